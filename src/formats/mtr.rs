//! Doom 3 material files (`materials/*.mtr`): what an MD5 mesh's `shader` draws with.
//!
//! An MD5 mesh names a material, not an image (`shader "models/monsters/imp/imp"`); Doom 3
//! finds the material's declaration in its `materials/*.mtr` files:
//!
//! ```text
//! models/characters/hair
//! {
//!     translucent
//!     bumpmap     addnormals(models/characters/hair_local.tga, heightmap(models/characters/hair_h.tga, 4))
//!     {
//!         blend       diffusemap
//!         map         models/characters/hair_d.tga
//!         alphaTest   0.5
//!     }
//! }
//! ```
//!
//! What a sprite draws from it: the diffuse image (`diffusemap IMAGE`, or the `map` of a stage
//! that blends `diffusemap`; the editor's `qer_editorimage` when there is neither), the
//! diffuse stage's `alphaTest` as a cut-out (an expression instead of a number is taken as
//! 0.5, with a note), and `translucent` as a blended surface. Image programs (`addnormals(...)`,
//! `makeAlpha(...)`) are skipped: they make bump and specular maps, or an image a sprite cannot
//! show as written. Declarations of other kinds (`table NAME { ... }`, `skin`, ...) and
//! materials the model does not use are skipped without keeping anything, so a file of a
//! million declarations costs no more memory than its text.

use std::path::{Path, PathBuf};

use super::declarations::{self, Declared, Kind};
use super::tokens::{Syntax, Token, Tokens};
use super::{Files, FormatError};
use crate::budget::MemoryBudget;
use crate::error::Result;
use crate::model::{AlphaMode, Model};

const FORMAT: &str = "MTR";
/// Doom 3's materials: at most 512 files are read for one model (Doom 3's own base has about
/// a hundred); names are compared without regard to case, `\` as `/`.
const MATERIAL_FILES: Kind<MtrMaterial> = Kind {
    folder: "materials",
    extension: "mtr",
    declares: "material",
    max_files: 512,
    key: |name| name.replace('\\', "/").to_ascii_lowercase(),
    parse,
};
/// Doom 3's declaration kinds besides materials that a `.mtr` file may hold: skipped.
const OTHER_DECLARATIONS: [&str; 10] =
    ["table", "skin", "sound", "particle", "fx", "entityDef", "model", "export", "mapDef", "pda"];

/// What a sprite uses of one material declaration.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MtrMaterial {
    /// The declared name (as written; Doom 3 compares without regard to case).
    pub name: String,
    /// 1-based line of the name.
    pub line: usize,
    /// The diffuse image, as written (relative to the game's base folder).
    pub diffuse: Option<String>,
    /// The diffuse stage's alpha test cutoff.
    pub alpha_test: Option<f32>,
    /// `translucent`: blended over what is behind.
    pub translucent: bool,
    /// What was read differently from Doom 3 (an alpha test expression).
    pub notes: Vec<String>,
}

impl Declared for MtrMaterial {
    fn declared(&self) -> (&str, usize, &[String]) {
        (&self.name, self.line, &self.notes)
    }
}

/// Gives the model's MD5 materials (whose names are Doom 3 material names) the image, alpha
/// test and blending their declarations say, from the `.mtr` files beside `mesh` and in the
/// `materials/` folders of its folder and those above, as `declarations.rs` finds and reads
/// them (the first declaration of a name wins, as in Doom 3). Returns the folders the
/// declarations were found for, where their image paths (relative to the game's base) are
/// looked for. A malformed `.mtr` file is a warning: other declarations are still found.
///
/// # Errors
/// The budget, charged for each file's text before it is parsed.
pub fn apply(model: &mut Model, mesh: &Path, files: &mut Files, budget: &MemoryBudget) -> Result<Vec<PathBuf>> {
    let names = model.materials.iter().map(|m| m.name.clone()).collect();
    let materials = &mut model.materials;
    declarations::apply(&MATERIAL_FILES, mesh, names, files, budget, &mut model.warnings, |found, key| {
        for material in materials.iter_mut().filter(|m| (MATERIAL_FILES.key)(&m.name) == key) {
            if let Some(image) = &found.diffuse {
                material.texture_name = Some(image.clone());
            }
            material.alpha_mode = match (found.alpha_test, found.translucent) {
                (Some(cutoff), _) => AlphaMode::Mask(cutoff),
                (None, true) => AlphaMode::Blend,
                (None, false) => material.alpha_mode,
            };
        }
    })
}

/// Parses a `.mtr` text, keeping the materials `wanted` says yes to (by declared name).
///
/// # Errors
/// A declaration whose name is not followed by `{`, or a stray `}`.
pub fn parse(src: &str, wanted: &dyn Fn(&str) -> bool) -> Result<Vec<MtrMaterial>, FormatError> {
    let mut t = Tokens::new(FORMAT, Syntax::DEF, src);
    let mut kept = Vec::new();
    while let Some(token) = t.next_declaration()? {
        let other = OTHER_DECLARATIONS.iter().any(|kind| token.is_keyword(kind));
        let name = if other || token.is_keyword("material") { next_name(&mut t, token)? } else { token };
        t.expect("{")?;
        if other || !wanted(name.text) {
            t.skip_block();
        } else {
            kept.push(material_body(&mut t, name));
        }
    }
    Ok(kept)
}

/// The name after a declaration keyword.
fn next_name<'a>(t: &mut Tokens<'a>, keyword: Token) -> Result<Token<'a>, FormatError> {
    match t.next_token() {
        Some(name) if !name.is("{") && !name.is("}") => Ok(name),
        _ => Err(FormatError::at_line(FORMAT, keyword.line, format!("expected a name after `{}`", keyword.text))),
    }
}

/// Reads a material's block, whose `{` was just read, to its closing `}`.
fn material_body(t: &mut Tokens, name: Token) -> MtrMaterial {
    let mut material = MtrMaterial { name: name.text.to_string(), line: name.line, ..MtrMaterial::default() };
    let mut editor_image = None;
    while let Some(token) = t.next_token() {
        if token.is("}") {
            break;
        } else if token.is("{") {
            stage(t, &mut material);
        } else if token.is_keyword("translucent") {
            material.translucent = true;
        } else if token.is_keyword("diffusemap") {
            if let Some(image) = image(t) {
                material.diffuse.get_or_insert(image);
            }
        } else if token.is_keyword("qer_editorimage") {
            editor_image = image(t);
        } else if token.is("(") {
            t.skip_group();
        }
    }
    if material.diffuse.is_none() {
        material.diffuse = editor_image;
    }
    material
}

/// Reads a stage, whose `{` was just read: its image and alpha test count when it blends
/// `diffusemap` and the material has no diffuse image yet.
fn stage(t: &mut Tokens, material: &mut MtrMaterial) {
    let (mut diffuse, mut map, mut alpha_test) = (false, None, None);
    while let Some(token) = t.next_token() {
        if token.is("}") {
            break;
        } else if token.is("{") {
            t.skip_block();
        } else if token.is("(") {
            t.skip_group();
        } else if token.is_keyword("blend") {
            diffuse = t.peek().is_some_and(|kind| kind.is_keyword("diffusemap"));
        } else if token.is_keyword("map") {
            map = image(t);
        } else if token.is_keyword("alphaTest") {
            alpha_test = Some(cutoff(t, material));
        }
    }
    if diffuse && material.diffuse.is_none() {
        material.diffuse = map;
        material.alpha_test = alpha_test;
    }
}

/// The image after `map`, `diffusemap` or `qer_editorimage`: a path, or `None` for an image
/// program (`name(...)`, skipped whole).
fn image(t: &mut Tokens) -> Option<String> {
    let path = t.next_token().filter(|p| !p.is("{") && !p.is("}"))?;
    if t.peek().is_some_and(|next| next.is("(")) {
        t.next_token();
        t.skip_group();
        return None;
    }
    Some(path.text.to_string())
}

/// The alpha test cutoff after `alphaTest`: a number in 0..=1, else 0.5 with a note (Doom 3
/// evaluates expressions of time and entity parameters; a sprite has neither).
fn cutoff(t: &mut Tokens, material: &mut MtrMaterial) -> f32 {
    let Some(token) = t.next_token() else { return 0.5 };
    match token.text.parse::<f32>() {
        Ok(x) if (0.0..=1.0).contains(&x) => x,
        _ => {
            if token.is("(") {
                t.skip_group();
            }
            material.notes.push(format!(
                "line {}: alphaTest `{}` is not a number from 0 to 1; 0.5 is used",
                token.line, token.text
            ));
            0.5
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(src: &str) -> Vec<MtrMaterial> {
        parse(src, &|_| true).unwrap()
    }

    #[test]
    fn a_diffuse_stage_gives_the_image_and_its_alpha_test() {
        let src = "table sinTable { { 0, 1 } }\n// c\nmodels/hair\n{\n  translucent\n  bumpmap addnormals(a.tga, heightmap(b.tga, 4))\n  {\n    blend diffusemap\n    map models/hair_d.tga\n    alphaTest 0.4\n  }\n}\n";
        let m = all(src);
        assert_eq!(m.len(), 1);
        assert_eq!((m[0].name.as_str(), m[0].line), ("models/hair", 3));
        assert_eq!(m[0].diffuse.as_deref(), Some("models/hair_d.tga"));
        assert_eq!(m[0].alpha_test, Some(0.4));
        assert!(m[0].translucent);
    }

    #[test]
    fn the_diffusemap_shorthand_wins_over_the_editor_image_and_programs_are_skipped() {
        let m = all(
            "material a { qer_editorimage ed.tga diffusemap d.tga }\nb { diffusemap makeAlpha(x.tga) qer_editorimage e.tga }\nc { { blend add map glow.tga alphaTest 0.5 } }",
        );
        assert_eq!(m[0].diffuse.as_deref(), Some("d.tga"));
        assert_eq!(m[0].alpha_test, None);
        assert_eq!(m[1].diffuse.as_deref(), Some("e.tga"));
        // A stage that does not blend diffusemap is not the diffuse image.
        assert_eq!((m[2].diffuse.as_deref(), m[2].alpha_test), (None, None));
    }

    #[test]
    fn an_alpha_test_expression_is_half_with_a_note() {
        let m = all("a { { blend diffusemap map a.tga alphaTest ( parm3 * 0.5 ) } }");
        assert_eq!(m[0].alpha_test, Some(0.5));
        assert!(m[0].notes[0].contains("not a number"), "{:?}", m[0].notes);
    }

    #[test]
    fn unwanted_materials_are_skipped_and_malformed_files_name_the_line() {
        let m = parse("a { diffusemap a.tga }\nb { diffusemap b.tga }", &|n| n == "b").unwrap();
        assert_eq!(m.iter().map(|m| m.name.as_str()).collect::<Vec<_>>(), ["b"]);
        let e = parse("a { }\n}\n", &|_| true).unwrap_err();
        assert!(e.to_string().contains("line 2"), "{e}");
        let e = parse("a b { }", &|_| true).unwrap_err();
        assert!(e.to_string().contains("expected `{`"), "{e}");
        // A file that ends inside a declaration keeps what it read.
        assert_eq!(all("a { diffusemap a.tga").len(), 1);
    }
}
