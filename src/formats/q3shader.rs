//! Quake 3 shader scripts (`scripts/*.shader`): how an MD3 surface is drawn.
//!
//! An MD3 surface (or a player's `.skin` line) names a shader, not an image
//! (`models/mapobjects/plant/leaves`); Quake 3 looks for its declaration in the game's
//! `scripts/*.shader` files, and only where none declares it takes the name as an image path:
//!
//! ```text
//! models/mapobjects/plant/leaves
//! {
//!     surfaceparm alphashadow
//!     cull disable
//!     {
//!         map models/mapobjects/plant/leaves.tga
//!         alphaFunc GE128
//!         depthWrite
//!     }
//! }
//! ```
//!
//! What a sprite draws from it:
//!
//! * **The image**: the `map` of the first stage that maps an image (`$lightmap` and
//!   `$whiteimage` stages do not); `clampMap` the same, clamped; `animMap` its first image,
//!   with a note.
//! * **Blending** as the shader's first stage blends with what is behind (later stages blend
//!   onto the earlier ones): `blendFunc add` (`GL_ONE GL_ONE`, or `GL_SRC_ALPHA GL_ONE`) adds,
//!   as the renderer adds (by the texture's alpha); `blend` (`GL_SRC_ALPHA
//!   GL_ONE_MINUS_SRC_ALPHA`) blends; `filter` (`GL_DST_COLOR GL_ZERO` or `GL_ZERO
//!   GL_SRC_COLOR`) multiplies what is behind. Another pair is drawn blended, with a note.
//! * **Cut-outs**: the image stage's `alphaFunc GT0` keeps texels of any alpha above 0,
//!   `GE128` those of half or more, `LT128` those below half (the texture's alpha turned
//!   over, [`Material::inverted_alpha`]). A cut-out is drawn opaque whatever the blending.
//! * **Sides**: `cull disable` (`none`, `twosided`) draws both sides; `cull back` (Quake 3
//!   then draws only the back) is drawn as the front, with a note.
//!
//! What changes the look and is not drawn (`tcMod`, `tcGen environment`, `rgbGen` or
//! `alphaGen` other than identity and the lighting the renderer does, `deformVertexes`, a
//! later stage with an image of its own) is named in one note per shader, with its line.
//! Everything else (`surfaceparm`, `q3map_*`, `qer_*`, `sort`, `depthWrite`, sky and fog
//! parameters) is skipped. Arguments are read from the keyword's own line, as Quake 3 reads
//! them. Shaders the model does not use, and a name declared again, are skipped without
//! keeping anything, so a file costs no more memory than its text.

use std::path::{Path, PathBuf};

use super::declarations::{self, Declared, Kind};
use super::tokens::{Syntax, Token, Tokens};
use super::{Files, FormatError};
use crate::budget::MemoryBudget;
use crate::error::Result;
use crate::model::{AlphaMode, Material, Model};

const FORMAT: &str = "shader";
/// Quake 3's shader scripts: at most 512 files are read for one model (Quake 3's own
/// `baseq3` has about forty).
const SHADER_FILES: Kind<Q3Shader> =
    Kind { folder: "scripts", extension: "shader", declares: "shader", max_files: 512, key, parse };
/// Most notes kept for one shader (a file repeating a keyword a million times says so once
/// or a few times, not a million).
const MAX_NOTES: usize = 8;
/// `blendFunc` pairs a sprite draws, and the shorthands that stand for them.
const BLENDS: [(&str, &str, AlphaMode); 6] = [
    ("GL_ONE", "GL_ZERO", AlphaMode::Opaque),
    ("GL_ONE", "GL_ONE", AlphaMode::Additive),
    ("GL_SRC_ALPHA", "GL_ONE", AlphaMode::Additive),
    ("GL_SRC_ALPHA", "GL_ONE_MINUS_SRC_ALPHA", AlphaMode::Blend),
    ("GL_DST_COLOR", "GL_ZERO", AlphaMode::Multiply),
    ("GL_ZERO", "GL_SRC_COLOR", AlphaMode::Multiply),
];
const SHORTHANDS: [(&str, AlphaMode); 3] =
    [("add", AlphaMode::Additive), ("blend", AlphaMode::Blend), ("filter", AlphaMode::Multiply)];
/// `rgbGen` and `alphaGen` values the renderer draws as Quake 3 does: none, or the model's
/// lighting, which the renderer does itself.
const PLAIN_GENERATORS: [&str; 3] = ["identity", "identityLighting", "lightingDiffuse"];

/// What a sprite uses of one shader.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Q3Shader {
    /// The declared name (as written; Quake 3 compares without regard to case or extension).
    pub name: String,
    /// 1-based line of the name.
    pub line: usize,
    /// The first image stage's image, as written (relative to the game's base folder).
    pub image: Option<String>,
    /// The image is clamped (`clampMap`), not repeated.
    pub clamp: bool,
    /// How the surface meets what is behind it.
    pub alpha_mode: AlphaMode,
    /// The cut-out keeps the texels whose alpha is below half (`alphaFunc LT128`).
    pub inverted_alpha: bool,
    /// Both sides are drawn (`cull disable`).
    pub two_sided: bool,
    /// What was read differently from Quake 3.
    pub notes: Vec<String>,
}

impl Q3Shader {
    fn note(&mut self, line: usize, note: impl FnOnce() -> String) {
        if self.notes.len() < MAX_NOTES {
            self.notes.push(format!("line {line}: {}", note()));
        }
    }

    /// Makes `material` drawn as this shader says.
    fn give(&self, material: &mut Material) {
        if let Some(image) = &self.image {
            material.texture_name = Some(image.clone());
        }
        material.wrap = !self.clamp;
        material.alpha_mode = self.alpha_mode;
        material.inverted_alpha = self.inverted_alpha;
        material.two_sided = self.two_sided;
    }
}

impl Declared for Q3Shader {
    fn declared(&self) -> (&str, usize, &[String]) {
        (&self.name, self.line, &self.notes)
    }
}

/// A shader name as Quake 3 compares it: without regard to case, `\` as `/`, and without
/// the extension (`plant.tga` is the shader `plant`).
fn key(name: &str) -> String {
    let name = name.trim().replace('\\', "/").to_ascii_lowercase();
    let file = name.rfind('/').map_or(0, |slash| slash + 1);
    match name[file..].rfind('.') {
        Some(dot) => name[..file + dot].to_string(),
        None => name,
    }
}

/// Draws the model's MD3 surfaces as the shaders their names declare (the name a surface or
/// a skin gives, [`Material::texture_name`]), from the `.shader` files beside `model_file` and
/// in the `scripts/` folders of its folder and those above, as `declarations.rs` finds and
/// reads them (the first declaration of a name wins). A name no shader declares stays an
/// image name. Returns the folders the shaders were found for, where their image paths
/// (relative to the game's base) are looked for. A malformed `.shader` file is a warning:
/// other shaders are still found.
///
/// # Errors
/// The budget, charged for each file's text before it is parsed.
pub fn apply(model: &mut Model, model_file: &Path, files: &mut Files, budget: &MemoryBudget) -> Result<Vec<PathBuf>> {
    let names = model.materials.iter().filter_map(|m| m.texture_name.clone()).collect();
    // Matched by the names the model gives: a shader's image may be named like another shader.
    let keys: Vec<Option<String>> = model.materials.iter().map(|m| m.texture_name.as_deref().map(key)).collect();
    let materials = &mut model.materials;
    declarations::apply(&SHADER_FILES, model_file, names, files, budget, &mut model.warnings, |shader, name| {
        for (material, _) in materials.iter_mut().zip(&keys).filter(|(_, k)| k.as_deref() == Some(name)) {
            shader.give(material);
        }
    })
}

/// Parses a `.shader` text, keeping the first declaration of each name `wanted` says yes to.
///
/// # Errors
/// A name not followed by `{`, or a stray `}`.
pub fn parse(src: &str, wanted: &dyn Fn(&str) -> bool) -> std::result::Result<Vec<Q3Shader>, FormatError> {
    let mut t = Tokens::new(FORMAT, Syntax::QC, src);
    let mut kept: Vec<Q3Shader> = Vec::new();
    while let Some(name) = t.next_declaration()? {
        t.expect("{")?;
        if wanted(name.text) && !kept.iter().any(|k| key(&k.name) == key(name.text)) {
            kept.push(shader_body(&mut t, name));
        } else {
            t.skip_block();
        }
    }
    Ok(kept)
}

/// Looks that a shader's stages change and a sprite does not draw, each named once with its
/// first line (at most [`MAX_NOTES`] of them).
#[derive(Debug, Default)]
struct Undrawn(Vec<(String, usize)>);

impl Undrawn {
    fn add(&mut self, what: impl Into<String>, line: usize) {
        let what = what.into();
        if self.0.len() < MAX_NOTES && !self.0.iter().any(|(w, _)| *w == what) {
            self.0.push((what, line));
        }
    }
}

/// What the stages read so far give the shader.
#[derive(Debug, Default)]
struct Stages {
    count: usize,
    /// The first stage's blending.
    blend: Option<AlphaMode>,
    /// The image stage's `alphaFunc`: the cutoff, and whether it keeps the alpha below it.
    cut: Option<(f32, bool)>,
}

/// Reads a shader's block, whose `{` was just read, to its closing `}`.
fn shader_body(t: &mut Tokens, name: Token) -> Q3Shader {
    let mut shader = Q3Shader { name: name.text.to_string(), line: name.line, ..Q3Shader::default() };
    let (mut stages, mut undrawn) = (Stages::default(), Undrawn::default());
    while let Some(token) = t.next_token() {
        if token.is("}") {
            break;
        } else if token.is("{") {
            stage(t, &mut shader, &mut stages, &mut undrawn);
        } else if token.is_keyword("cull") {
            cull(t, token, &mut shader);
        } else {
            // Other keywords' arguments are the rest of their line.
            if token.is_keyword("deformVertexes") {
                undrawn.add("deformVertexes", token.line);
            }
            skip_line(t, token.line);
        }
    }
    (shader.alpha_mode, shader.inverted_alpha) = match stages.cut {
        Some((cutoff, below)) => (AlphaMode::Mask(cutoff), below),
        None => (stages.blend.unwrap_or_default(), false),
    };
    if !undrawn.0.is_empty() {
        let list: Vec<String> = undrawn.0.iter().map(|(what, line)| format!("{what} (line {line})")).collect();
        shader.notes.push(format!("not drawn as in Quake 3: {}", list.join(", ")));
    }
    shader
}

/// Reads `cull`'s argument.
fn cull(t: &mut Tokens, keyword: Token, shader: &mut Q3Shader) {
    let Some(side) = argument(t, keyword.line) else { return };
    if ["none", "disable", "twosided"].iter().any(|k| side.is_keyword(k)) {
        shader.two_sided = true;
    } else if !side.is_keyword("front") {
        shader.note(side.line, || format!("`cull {}` draws only back faces in Quake 3; drawn as the front", side.text));
    }
}

/// Reads a stage, whose `{` was just read: its image when it is the shader's first image
/// stage, its blending when it is the first stage.
fn stage(t: &mut Tokens, shader: &mut Q3Shader, stages: &mut Stages, undrawn: &mut Undrawn) {
    let (mut image, mut clamp, mut blend, mut cut) = (None, false, None, None);
    while let Some(token) = t.next_token() {
        let line = token.line;
        // Keywords of a fixed number of arguments read them; the others' (a list, a wave,
        // an unknown keyword's) are the rest of their line.
        if token.is("}") {
            break;
        } else if token.is("{") {
            t.skip_block();
        } else if token.is_keyword("map") || token.is_keyword("clampMap") {
            image = argument(t, line).filter(is_image).map(|path| (path.text, line));
            clamp = token.is_keyword("clampMap");
        } else if token.is_keyword("blendFunc") {
            blend = blend_func(t, line, shader);
        } else if token.is_keyword("alphaFunc") {
            cut = alpha_func(t, line, shader);
        } else {
            if token.is_keyword("animMap") {
                argument(t, line);
                image = argument(t, line).filter(is_image).map(|path| (path.text, line));
                if let Some((first, _)) = image {
                    shader.note(line, || format!("animMap is drawn as its first image, {first}"));
                }
            } else if token.is_keyword("rgbGen") || token.is_keyword("alphaGen") {
                let value = argument(t, line).map_or("", |v| v.text);
                if !PLAIN_GENERATORS.iter().any(|g| g.eq_ignore_ascii_case(value)) {
                    undrawn.add(format!("{} {value}", token.text).trim_end(), line);
                }
            } else if token.is_keyword("tcMod") {
                undrawn.add("tcMod", line);
            } else if token.is_keyword("tcGen")
                && argument(t, line).is_some_and(|g| !g.is_keyword("base") && !g.is_keyword("texture"))
            {
                undrawn.add("tcGen", line);
            }
            skip_line(t, line);
        }
    }
    if stages.count == 0 {
        stages.blend = blend;
    }
    stages.count += 1;
    match image {
        Some((path, _)) if shader.image.is_none() => {
            shader.image = Some(path.to_string());
            shader.clamp = clamp;
            stages.cut = cut;
        }
        Some((path, line)) => undrawn.add(format!("a later image stage ({path})"), line),
        None => {}
    }
}

/// The blending `blendFunc`'s arguments say; `None` (with a note) without them.
fn blend_func(t: &mut Tokens, line: usize, shader: &mut Q3Shader) -> Option<AlphaMode> {
    let Some(first) = argument(t, line) else {
        shader.note(line, || "blendFunc without its factors is skipped".to_string());
        return None;
    };
    if let Some((_, mode)) = SHORTHANDS.iter().find(|(word, _)| first.is_keyword(word)) {
        return Some(*mode);
    }
    let second = argument(t, line).map_or("", |s| s.text);
    let pair = BLENDS.iter().find(|(s, d, _)| first.is_keyword(s) && second.eq_ignore_ascii_case(d));
    Some(match pair {
        Some((.., mode)) => *mode,
        None => {
            shader.note(line, || format!("blendFunc {} {second} is drawn blended (alpha over)", first.text));
            AlphaMode::Blend
        }
    })
}

/// The cut-out `alphaFunc`'s argument says: the cutoff, and whether alpha below it is kept.
fn alpha_func(t: &mut Tokens, line: usize, shader: &mut Q3Shader) -> Option<(f32, bool)> {
    let function = argument(t, line);
    match function {
        // Discards alpha 0 alone, as `alpha > 0` does (a filtered texel of any alpha above
        // it is kept).
        Some(f) if f.is_keyword("GT0") => Some((f32::MIN_POSITIVE, false)),
        Some(f) if f.is_keyword("GE128") => Some((0.5, false)),
        // Kept below half: the alpha turned over is kept from half up.
        Some(f) if f.is_keyword("LT128") => Some((0.5, true)),
        _ => {
            let text = function.map_or("", |f| f.text);
            shader.note(line, || format!("alphaFunc `{text}` is none of GT0, GE128 and LT128: not cut out"));
            None
        }
    }
}

/// Whether a stage's map is an image (`$lightmap`, `$whiteimage` and `*white` are not).
fn is_image(path: &Token) -> bool {
    !path.text.starts_with(['$', '*'])
}

/// The next token when it is an argument on `line` (Quake 3 reads a keyword's arguments from
/// its own line; a brace never is one).
fn argument<'a>(t: &mut Tokens<'a>, line: usize) -> Option<Token<'a>> {
    let next = t.peek().filter(|next| next.line == line && !next.is("{") && !next.is("}"))?;
    t.next_token();
    Some(next)
}

/// Skips the rest of `line`: arguments not read.
fn skip_line(t: &mut Tokens, line: usize) {
    while argument(t, line).is_some() {}
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(src: &str) -> Q3Shader {
        let mut all = parse(src, &|_| true).unwrap();
        assert_eq!(all.len(), 1, "{all:?}");
        all.remove(0)
    }

    #[test]
    fn the_first_image_stage_gives_the_image_the_cut_and_the_sides() {
        let src = "// plants\nmodels/mapobjects/plant/leaves\n{\n  surfaceparm alphashadow\n  cull disable\n  {\n    map $lightmap\n  }\n  {\n    clampMap models/mapobjects/plant/leaves.tga\n    alphaFunc GE128\n    depthWrite\n    rgbGen lightingDiffuse\n  }\n}\n";
        let s = one(src);
        assert_eq!((s.name.as_str(), s.line), ("models/mapobjects/plant/leaves", 2));
        assert_eq!(s.image.as_deref(), Some("models/mapobjects/plant/leaves.tga"));
        assert!(s.clamp && s.two_sided && !s.inverted_alpha);
        assert_eq!(s.alpha_mode, AlphaMode::Mask(0.5));
        assert!(s.notes.is_empty(), "{:?}", s.notes);
    }

    #[test]
    fn blend_functions_and_alpha_functions() {
        let mode = |stage: &str| {
            let s = one(&format!("s {{ {{ map a.tga\n{stage}\n}} }}"));
            (s.alpha_mode, s.inverted_alpha, s.notes.len())
        };
        assert_eq!(mode("blendFunc add"), (AlphaMode::Additive, false, 0));
        assert_eq!(mode("blendfunc GL_ONE gl_one"), (AlphaMode::Additive, false, 0));
        assert_eq!(mode("blendFunc FILTER"), (AlphaMode::Multiply, false, 0));
        assert_eq!(mode("blendFunc GL_ZERO GL_SRC_COLOR"), (AlphaMode::Multiply, false, 0));
        assert_eq!(mode("blendFunc blend"), (AlphaMode::Blend, false, 0));
        assert_eq!(mode("blendFunc GL_ONE GL_ZERO"), (AlphaMode::Opaque, false, 0));
        assert_eq!(mode("blendFunc GL_ONE GL_ONE_MINUS_SRC_ALPHA"), (AlphaMode::Blend, false, 1));
        assert_eq!(mode("alphaFunc GT0"), (AlphaMode::Mask(f32::MIN_POSITIVE), false, 0));
        assert_eq!(mode("alphaFunc LT128\nblendFunc blend"), (AlphaMode::Mask(0.5), true, 0));
        assert_eq!(mode("alphaFunc GT128"), (AlphaMode::Opaque, false, 1));
        // Arguments are on the keyword's line: `blendFunc` alone blends nothing, and the next
        // line's keyword is read as one.
        assert_eq!(mode("blendFunc\nalphaFunc GE128"), (AlphaMode::Mask(0.5), false, 1));
    }

    #[test]
    fn the_first_stage_blends_with_what_is_behind_and_later_looks_are_named_once() {
        // A lightmap first: the image stage filters onto it, and the surface is opaque.
        let s = one("w { { map $lightmap } { map w.tga\nblendFunc filter\ntcMod scroll 1 0\ntcMod scale 2 2 } }");
        assert_eq!((s.image.as_deref(), s.alpha_mode), (Some("w.tga"), AlphaMode::Opaque));
        assert_eq!(s.notes.len(), 1);
        assert_eq!(s.notes, ["not drawn as in Quake 3: tcMod (line 3)"]);
        let s = one(
            "g {\ndeformVertexes wave 1 sin 0 1 0 1\n{ animMap 5 g1.tga g2.tga\nrgbGen wave sin 0 1 0 1 }\n{ map env.tga\ntcGen environment\nblendFunc add }\n}",
        );
        assert_eq!(s.image.as_deref(), Some("g1.tga"));
        assert!(s.notes[0].contains("animMap is drawn as its first image, g1.tga"), "{:?}", s.notes);
        let undrawn = &s.notes[1];
        for what in
            ["deformVertexes (line 2)", "rgbGen wave (line 4)", "a later image stage (env.tga) (line 5)", "tcGen"]
        {
            assert!(undrawn.contains(what), "{what}: {undrawn}");
        }
        // cull back is noted; twosided is two-sided.
        assert!(one("b { cull back }").notes[0].contains("cull back"));
        assert!(one("b { cull twosided }").two_sided);
    }

    #[test]
    fn names_compare_without_case_or_extension_and_the_first_declaration_wins() {
        assert_eq!(key("Models\\Plant.TGA"), "models/plant");
        assert_eq!(key("models/v1.2/plant"), "models/v1.2/plant");
        let all = parse("a { { map 1.tga } }\nA.tga { { map 2.tga } }\nb { }", &|n| key(n) == "a").unwrap();
        assert_eq!(all.iter().map(|s| s.image.as_deref()).collect::<Vec<_>>(), [Some("1.tga")]);
    }

    #[test]
    fn malformed_files_name_the_line_and_any_truncation_parses() {
        let e = parse("a { }\n}\n", &|_| true).unwrap_err();
        assert!(e.to_string().contains("line 2"), "{e}");
        let e = parse("a b { }", &|_| true).unwrap_err();
        assert!(e.to_string().contains("expected `{`"), "{e}");
        let src = "textures/a\n{\n cull none\n { map a.tga\n blendFunc GL_SRC_ALPHA GL_ONE\n alphaFunc LT128 }\n}\n";
        for end in 0..=src.len() {
            let _ = parse(&src[..end], &|_| true);
        }
        // A file that ends inside a shader keeps what it read.
        assert!(one("a { cull none { map a.tga").two_sided);
        // A file repeating a look notes it a few times, not once a line.
        let many = format!("a {{ {{ map a.tga\n{} }} }}", "blendFunc x y\n".repeat(10_000));
        assert_eq!(one(&many).notes.len(), MAX_NOTES);
        let looks: String = (0..10_000).map(|k| format!("rgbGen wave{k}\n")).collect();
        assert_eq!(one(&format!("a {{ {{ {looks} }} }}")).notes[0].matches("rgbGen").count(), MAX_NOTES);
    }
}
