//! Doom 3 model declarations (`.def`) as models: a `model NAME { ... }` block's `mesh` and
//! `anim`s, loaded with the MD5 parser.
//!
//! ```text
//! model monster_imp {
//!     inherit  monster_base
//!     mesh     models/md5/monsters/imp/imp.md5mesh
//!     channel  torso ( *Waist )
//!     anim     idle  models/md5/monsters/imp/idle1.md5anim
//!     anim     walk  models/md5/monsters/imp/walk1.md5anim {
//!         frame 10 sound_body snd_footstep
//!     }
//! }
//! ```
//!
//! Decisions (documented in docs/formats/scripts.md):
//! * **Which model.** A file declares several models (and other declarations, `entityDef`,
//!   `export`, ..., which are skipped); the first `model` loads unless `--model-name` names
//!   another (exact name first, then any case).
//! * **Inheritance.** `inherit OTHER` takes OTHER's mesh (unless the model has its own) and
//!   its anims, in OTHER's order; an anim of the same name in the model replaces OTHER's in
//!   place, new ones follow. One level is followed: when OTHER inherits in turn, that is a
//!   warning and the third model's entries are not used (so a loop cannot hang the load). A
//!   model inheriting itself, or one the file does not declare (Doom 3 reads every `.def` of a
//!   game; spritebake reads one), is a warning.
//! * **Paths.** Doom 3 paths are relative to the game's base folder (`models/md5/...`), which
//!   is usually the parent of the `def/` folder. Each path is looked for relative to the
//!   `.def`'s folder, then its parent folders up to [`MAX_BASE_LEVELS`] up — but only folders
//!   the confinement allows: the `.def`'s own folder and below, and `--texture-root`s. So
//!   `base/def/imp.def` naming `models/...` needs `--texture-root base`; without it the error
//!   says so. Textures are then looked for beside the mesh and in the base folder the mesh was
//!   found in.
//! * `channel`, per-anim `{ frame ... }` blocks, `skin` and `offset` are ignored with one note.
//!   An anim file that is missing is a warning; a missing mesh is an error.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::tokens::{Syntax, Token, Tokens};
use super::{Files, FormatError, md5};
use crate::budget::MemoryBudget;
use crate::confine::Denied;
use crate::error::suggest;
use crate::error::{Error, Result};
use crate::model::Model;

const FORMAT: &str = "DEF";
/// How many folders above the `.def`'s own its paths may be relative to.
pub const MAX_BASE_LEVELS: usize = 3;
/// Most `model` declarations in one file, and `anim`s in one model (Doom 3's own files hold
/// a few dozen of each): a file of tiny declarations must not cost more memory than its text.
pub const MAX_ITEMS: usize = 4096;
/// Most names of ignored commands kept for the note.
const MAX_IGNORED: usize = 16;

/// One `anim NAME PATH` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DefAnim {
    /// The clip's name.
    pub name: String,
    /// The `.md5anim` path as written (the first of comma-separated alternatives).
    pub path: String,
    /// 1-based line.
    pub line: usize,
}

/// One `model NAME { ... }` declaration.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DefModel {
    /// Its name.
    pub name: String,
    /// `inherit OTHER` and its line.
    pub inherit: Option<(String, usize)>,
    /// `mesh PATH` and its line.
    pub mesh: Option<(String, usize)>,
    /// Its own anims, in order.
    pub anims: Vec<DefAnim>,
    /// Commands read but not used (`channel`, `frame`, ...).
    pub ignored: BTreeSet<String>,
    /// Anims named twice (the first kept).
    pub repeated: Vec<DefAnim>,
    /// 1-based line of `model`.
    pub line: usize,
}

fn err(line: usize, message: impl Into<String>) -> FormatError {
    FormatError::at_line(FORMAT, line, message)
}

/// Reads every `model` declaration of a `.def` file.
///
/// # Errors
/// A `model` block that is not closed, or an `anim` or `mesh` without its path, with the line.
pub fn parse(src: &str) -> std::result::Result<Vec<DefModel>, FormatError> {
    let mut s = Tokens::new(FORMAT, Syntax::DEF, src);
    let mut models = Vec::new();
    while let Some(t) = s.next_token() {
        if t.is("{") {
            s.skip_block();
            continue;
        }
        if !t.is_keyword("model") {
            continue;
        }
        let Some(name) = s.next_token() else { break };
        if name.is("{") {
            s.skip_block();
            continue;
        }
        if s.peek().is_some_and(|b| b.is("{")) {
            if models.len() >= MAX_ITEMS {
                return Err(err(t.line, format!("more than {MAX_ITEMS} model declarations")));
            }
            s.next_token();
            models.push(parse_model(&mut s, name.text, t.line)?);
        }
    }
    Ok(models)
}

fn value<'a>(s: &mut Tokens<'a>, after: &Token, what: &str) -> std::result::Result<Token<'a>, FormatError> {
    match s.next_token() {
        Some(v) if !matches!(v.text, "{" | "}" | "(" | ")") || v.quoted => Ok(v),
        _ => Err(err(after.line, format!("`{}` needs {what}", after.text))),
    }
}

/// Notes an ignored command (the first [`MAX_IGNORED`] names).
fn ignore(model: &mut DefModel, command: &str) {
    if model.ignored.len() < MAX_IGNORED {
        model.ignored.insert(command.to_string());
    }
}

fn parse_model(s: &mut Tokens, name: &str, line: usize) -> std::result::Result<DefModel, FormatError> {
    let mut model = DefModel { name: name.to_string(), line, ..DefModel::default() };
    loop {
        let Some(t) = s.next_token() else {
            return Err(err(line, format!("model '{name}' is not closed with `}}`")));
        };
        if t.is("}") {
            return Ok(model);
        }
        if t.is("{") {
            s.skip_block();
            continue;
        }
        if t.is("(") {
            s.skip_group();
            continue;
        }
        match t.text.to_ascii_lowercase().as_str() {
            "inherit" => model.inherit = Some((value(s, &t, "a model name")?.text.to_string(), t.line)),
            "mesh" => model.mesh = Some((value(s, &t, "a .md5mesh path")?.text.to_string(), t.line)),
            "anim" => {
                let clip = value(s, &t, "a name and a .md5anim path")?.text.to_string();
                let first = value(s, &t, "a .md5anim path")?;
                // `anim pain a.md5anim, b.md5anim`: Doom 3 picks one at random; the first plays.
                let mut more = first.text.ends_with(',');
                while more || s.peek().is_some_and(|p| !p.quoted && p.text.starts_with(',')) {
                    let Some(next) = s.next_token() else { break };
                    more = next.text.ends_with(',') || (next.text == "," && !next.quoted);
                }
                let path = first.text.split(',').next().unwrap_or_default().to_string();
                if s.peek().is_some_and(|b| b.is("{")) {
                    s.next_token();
                    s.skip_block();
                    ignore(&mut model, "frame");
                }
                if model.anims.len() + model.repeated.len() >= MAX_ITEMS {
                    return Err(err(t.line, format!("model '{name}' has more than {MAX_ITEMS} anims")));
                }
                let anim = DefAnim { name: clip, path, line: t.line };
                if model.anims.iter().any(|a| a.name == anim.name) {
                    model.repeated.push(anim);
                } else {
                    model.anims.push(anim);
                }
            }
            other => {
                ignore(&mut model, other);
                // `channel torso ( ... )`, `offset ( x y z )`, `skin PATH`: skip the values.
                while let Some(v) = s.peek() {
                    if v.is("(") {
                        s.next_token();
                        s.skip_group();
                        break;
                    }
                    if v.is("}") || v.is("{") || v.line != t.line {
                        break;
                    }
                    s.next_token();
                }
            }
        }
    }
}

/// A declaration with its `inherit` followed: what loads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declared {
    /// The model's name.
    pub name: String,
    /// The mesh path and the line naming it.
    pub mesh: Option<(String, usize)>,
    /// Every anim, inherited ones first.
    pub anims: Vec<DefAnim>,
    /// Notes about what was not followed or used.
    pub warnings: Vec<String>,
}

/// The declaration `wanted` names (the first without it), `inherit` followed one level.
///
/// # Errors
/// No model in the file, or none called `wanted` (with the closest names).
pub fn declared(models: &[DefModel], wanted: Option<&str>, file: &Path) -> Result<Declared> {
    let find = |name: &str| {
        models
            .iter()
            .position(|m| m.name == name)
            .or_else(|| models.iter().position(|m| m.name.eq_ignore_ascii_case(name)))
    };
    let index = match wanted {
        Some(name) => find(name).ok_or_else(|| {
            let list: Vec<&str> = models.iter().map(|m| m.name.as_str()).collect();
            let context = if list.is_empty() {
                format!("{} declares no models", file.display())
            } else {
                format!("{} declares: {}", file.display(), list.join(", "))
            };
            Error::from(suggest::UnknownName::new("model", name, list.iter().copied(), context))
        })?,
        None if models.is_empty() => {
            return Err(FormatError::whole_file(FORMAT, "no `model NAME { ... }` declaration").in_file(file).into());
        }
        None => 0,
    };
    let model = &models[index];
    let at = |line: usize| format!("{} line {line}", file.display());
    let mut warnings = Vec::new();
    let mut mesh = model.mesh.clone();
    let mut anims = Vec::new();
    let mut ignored = model.ignored.clone();
    if let Some((parent, line)) = &model.inherit {
        match find(parent) {
            Some(p) if p == index => {
                warnings.push(format!("{}: model '{}' inherits itself; ignored", at(*line), model.name));
            }
            Some(p) => {
                let parent = &models[p];
                if let Some((grand, _)) = &parent.inherit {
                    warnings.push(format!(
                        "{}: model '{}' inherits '{}', which inherits '{grand}': one level of inherit is followed, \
                         so '{grand}' is not used",
                        at(*line),
                        model.name,
                        parent.name
                    ));
                }
                mesh = mesh.or_else(|| parent.mesh.clone());
                anims.extend(parent.anims.iter().cloned());
                ignored.extend(parent.ignored.iter().cloned());
            }
            None => warnings.push(format!(
                "{}: model '{}' inherits '{parent}', which {} does not declare (spritebake reads one .def file); ignored",
                at(*line),
                model.name,
                file.display()
            )),
        }
    }
    for own in &model.anims {
        match anims.iter_mut().find(|a: &&mut DefAnim| a.name == own.name) {
            Some(inherited) => *inherited = own.clone(),
            None => anims.push(own.clone()),
        }
    }
    for repeated in &model.repeated {
        warnings.push(format!("{}: a second anim '{}' skipped", at(repeated.line), repeated.name));
    }
    if !ignored.is_empty() {
        let list: Vec<&str> = ignored.iter().map(String::as_str).collect();
        warnings.push(format!(
            "{}: model '{}': {} ignored (spritebake plays each anim on the whole body)",
            file.display(),
            model.name,
            list.join(", ")
        ));
    }
    Ok(Declared { name: model.name.clone(), mesh, anims, warnings })
}

/// What [`load`] made.
#[derive(Debug)]
pub struct Built {
    /// The model, named after its declaration.
    pub model: Model,
    /// Folders to look for its textures in after the `.def`'s own.
    pub texture_folders: Vec<PathBuf>,
}

/// The folders a path in `file` may be relative to: its folder, then up to
/// [`MAX_BASE_LEVELS`] parents, each only if the confinement allows it.
fn bases(file: &Path, files: &Files) -> Vec<PathBuf> {
    Files::ancestors(file, MAX_BASE_LEVELS).into_iter().filter(|b| files.allows(b)).collect()
}

/// Finds and reads `written` relative to the first of `bases` that has it: the path, the base
/// it was found in and the bytes; `Err` with the reason (missing everywhere, or refused).
fn fetch(
    files: &mut Files,
    bases: &[PathBuf],
    written: &str,
) -> std::result::Result<(PathBuf, PathBuf, std::sync::Arc<Vec<u8>>), Denied> {
    let relative = PathBuf::from(written.replace('\\', "/"));
    let mut last = None;
    for base in bases {
        match files.read(&base.join(&relative)) {
            Ok((path, bytes)) => return Ok((path, base.clone(), bytes)),
            Err(d) if d.is_missing() => last = Some(d),
            Err(d) => return Err(d),
        }
    }
    Err(last.unwrap_or_else(|| Denied::Missing(std::io::Error::from(std::io::ErrorKind::NotFound))))
}

/// Where a path was looked for, for messages.
fn looked_in(bases: &[PathBuf]) -> String {
    let list: Vec<String> = bases.iter().map(|b| b.display().to_string()).collect();
    format!("looked in {} (folders above the .def's are searched only inside a --texture-root)", list.join(", "))
}

/// Loads the model a `.def` declares: its mesh, then its anims as clips named after them.
///
/// # Errors
/// As [`parse`] and [`declared`]; a mesh that is missing, refused or malformed; a malformed
/// anim; the budget.
pub fn load(src: &str, file: &Path, wanted: Option<&str>, files: &mut Files, budget: &MemoryBudget) -> Result<Built> {
    let models = parse(src).map_err(|e| e.in_file(file))?;
    let declared = declared(&models, wanted, file)?;
    let bases = bases(file, files);
    let Some((mesh_name, mesh_line)) = &declared.mesh else {
        return Err(err(declared_line(&models, &declared.name), format!("model '{}' has no `mesh`", declared.name))
            .in_file(file)
            .into());
    };
    let (mesh_path, base, bytes) = fetch(files, &bases, mesh_name).map_err(|d| match d {
        Denied::Missing(_) => {
            Error::from(err(*mesh_line, format!("mesh '{mesh_name}' not found: {}", looked_in(&bases))).in_file(file))
        }
        refused => {
            refused.into_error(Path::new(mesh_name), format!("{} line {mesh_line}: mesh '{mesh_name}'", file.display()))
        }
    })?;
    let cost = (bytes.len() as u64).saturating_mul(super::Format::Md5Mesh.parse_bytes_per_byte());
    budget.charge(cost, || format!("{}: parsing {} KiB of MD5", mesh_path.display(), bytes.len().div_ceil(1024)))?;
    let mut model =
        md5::parse_mesh(&String::from_utf8_lossy(&bytes)).map_err(|e| Error::Format(e.in_file(&mesh_path)))?;
    drop(bytes);
    let material_bases = super::mtr::apply(&mut model, &mesh_path, files, budget)?;
    model.warnings.extend(declared.warnings.iter().cloned());
    let skeleton = model.skeleton.clone().unwrap_or_default();
    for anim in &declared.anims {
        let at = format!("{} line {}", file.display(), anim.line);
        let (path, _, bytes) = match fetch(files, &bases, &anim.path) {
            Ok(found) => found,
            Err(Denied::Missing(_)) => {
                let where_ = looked_in(&bases);
                model
                    .warnings
                    .push(format!("{at}: anim '{}': '{}' not found ({where_}); skipped", anim.name, anim.path));
                continue;
            }
            Err(refused) => {
                model.warnings.push(format!("{at}: anim '{}': '{}' {refused}; skipped", anim.name, anim.path));
                continue;
            }
        };
        let reading = (bytes.len() as u64).saturating_mul(2);
        budget.charge(reading, || format!("{}: reading {} KiB", path.display(), bytes.len().div_ceil(1024)))?;
        let clip = md5::parse_anim_within(&String::from_utf8_lossy(&bytes), &anim.name, &skeleton, budget)
            .map_err(|e| super::files::in_file(e, &path))?;
        model.clips.push(clip);
    }
    model.name = declared.name;
    let mut texture_folders = Vec::new();
    if let Some(folder) = mesh_path.parent() {
        texture_folders.push(folder.to_path_buf());
    }
    for base in std::iter::once(base).chain(material_bases) {
        if !texture_folders.contains(&base) {
            texture_folders.push(base);
        }
    }
    Ok(Built { model, texture_folders })
}

fn declared_line(models: &[DefModel], name: &str) -> usize {
    models.iter().find(|m| m.name == name).map_or(1, |m| m.line)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEF: &str = "// monsters\n\
        entityDef monster_imp { \"model\" \"imp\" \"inherit\" \"x\" }\n\
        export fred { mesh a.ma }\n\
        model imp {\n\
            mesh models/imp/imp.md5mesh\n\
            channel torso ( *Waist )\n\
            anim idle models/imp/idle.md5anim\n\
            anim walk models/imp/walk.md5anim, models/imp/walk2.md5anim {\n\
                frame 10 sound_body snd_footstep\n\
            }\n\
            anim pain models/imp/pain.md5anim\n\
        }\n\
        model imp_fast {\n\
            inherit imp\n\
            anim walk models/imp/run.md5anim\n\
            anim taunt models/imp/taunt.md5anim\n\
            anim taunt models/imp/taunt2.md5anim\n\
        }\n";

    fn names(d: &Declared) -> Vec<(&str, &str)> {
        d.anims.iter().map(|a| (a.name.as_str(), a.path.as_str())).collect()
    }

    #[test]
    fn models_inherit_one_level_and_override_anims_in_place() {
        let models = parse(DEF).unwrap();
        assert_eq!(models.iter().map(|m| m.name.as_str()).collect::<Vec<_>>(), ["imp", "imp_fast"]);
        let file = Path::new("m.def");
        let first = declared(&models, None, file).unwrap();
        assert_eq!(first.mesh, Some(("models/imp/imp.md5mesh".to_string(), 5)));
        assert_eq!(
            names(&first),
            [
                ("idle", "models/imp/idle.md5anim"),
                ("walk", "models/imp/walk.md5anim"),
                ("pain", "models/imp/pain.md5anim")
            ]
        );
        assert!(first.warnings.iter().any(|w| w.contains("channel, frame ignored")), "{:?}", first.warnings);
        let fast = declared(&models, Some("IMP_FAST"), file).unwrap();
        assert_eq!(fast.mesh.as_ref().map(|m| m.0.as_str()), Some("models/imp/imp.md5mesh"));
        assert_eq!(
            names(&fast),
            [
                ("idle", "models/imp/idle.md5anim"),
                ("walk", "models/imp/run.md5anim"),
                ("pain", "models/imp/pain.md5anim"),
                ("taunt", "models/imp/taunt.md5anim")
            ]
        );
        assert!(fast.warnings.iter().any(|w| w.contains("line 17") && w.contains("second anim 'taunt'")));
        let e = declared(&models, Some("impp"), file).unwrap_err().to_string();
        assert!(e.contains("impp") && e.contains("imp_fast"), "{e}");
    }

    #[test]
    fn chains_and_loops_follow_one_level() {
        let src = "model a { inherit b mesh a.md5mesh }\nmodel b { inherit a anim x b.md5anim }\nmodel c { inherit c }";
        let models = parse(src).unwrap();
        let a = declared(&models, None, Path::new("x.def")).unwrap();
        assert_eq!(names(&a), [("x", "b.md5anim")]);
        assert!(a.warnings.iter().any(|w| w.contains("one level")), "{:?}", a.warnings);
        let c = declared(&models, Some("c"), Path::new("x.def")).unwrap();
        assert!(c.warnings.iter().any(|w| w.contains("inherits itself")), "{:?}", c.warnings);
        let e = parse("model a {\n mesh x").unwrap_err().to_string();
        assert!(e.contains("line 1") && e.contains("not closed"), "{e}");
        assert!(declared(&[], None, Path::new("x.def")).is_err());
        // A file of tiny declarations is refused past the limits, naming the line.
        let e = parse(&"model m {}\n".repeat(MAX_ITEMS + 1)).unwrap_err().to_string();
        assert!(e.contains(&format!("line {}", MAX_ITEMS + 1)), "{e}");
        let e = parse(&format!("model m {{\n{}}}", "anim a a.md5anim\n".repeat(MAX_ITEMS + 1))).unwrap_err();
        assert!(e.to_string().contains("more than 4096 anims"), "{e}");
    }
}
