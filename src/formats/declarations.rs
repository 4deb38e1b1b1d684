//! The declaration files a game keeps in one folder of its base, where the names a model gives
//! are declared: Doom 3's `materials/*.mtr` ([`mtr`](super::mtr)) and Quake 3's
//! `scripts/*.shader` ([`q3shader`](super::q3shader)). Both games find and use them the same
//! way, so both readers do it here, once:
//!
//! * **Where.** The files beside the model, then those of the folder in the model's folder and
//!   up to [`MAX_BASE_LEVELS`] folders above (only those the confinement allows: above the
//!   model's folder, a `--texture-root`), nearest first, each folder's in name order; at most
//!   [`Kind::max_files`] of them.
//! * **How.** Each file is charged to the budget (its bytes and its text) before it is parsed;
//!   one that cannot be parsed is a warning, and the others are still read. Names are compared
//!   by [`Kind::key`]; the first declaration of a name wins; reading stops once every name is
//!   found.

use std::path::{Path, PathBuf};

use super::{Files, FormatError};
use crate::budget::MemoryBudget;
use crate::error::Result;

/// How many folders above the model's own may hold the game's declaration folder (Doom 3
/// keeps meshes in `base/models/md5/KIND/NAME/`, four below it; Quake 3 its models in
/// `baseq3/models/KIND/NAME/`, three below).
pub(super) const MAX_BASE_LEVELS: usize = 6;

/// One kind of declaration file, and how its declarations are read.
#[derive(Debug)]
pub(super) struct Kind<D> {
    /// The folder of the game's base that holds them (`materials`).
    pub folder: &'static str,
    /// Their extension (`mtr`).
    pub extension: &'static str,
    /// What one declares (`material`), for warnings.
    pub declares: &'static str,
    /// Most files read for one model.
    pub max_files: usize,
    /// A name as the game compares it (without regard to case, ...).
    pub key: fn(&str) -> String,
    /// Parses a file's text, keeping the declarations whose names it is asked for.
    pub parse: Parser<D>,
}

/// A declaration file's parser: its text and which names to keep, to the declarations kept.
pub(super) type Parser<D> = fn(&str, &dyn Fn(&str) -> bool) -> std::result::Result<Vec<D>, FormatError>;

/// What the reader needs of a parsed declaration.
pub(super) trait Declared {
    /// The declared name as written, the 1-based line of the name, and what was read
    /// differently from the game (for warnings).
    fn declared(&self) -> (&str, usize, &[String]);
}

/// Finds the declarations of `names` in the files of `kind` for the model file `model`, and
/// hands each to `give` with its name's key (the first of each name, nearest file first).
/// Notes and malformed files go to `warnings`, each naming the file (and the line). Returns
/// the base folders of the files that declared any, where the paths their declarations give
/// are looked for.
///
/// # Errors
/// The budget, charged for each file before it is parsed.
pub(super) fn apply<D: Declared>(
    kind: &Kind<D>,
    model: &Path,
    names: Vec<String>,
    files: &mut Files,
    budget: &MemoryBudget,
    warnings: &mut Vec<String>,
    mut give: impl FnMut(&D, &str),
) -> Result<Vec<PathBuf>> {
    let mut wanted: Vec<String> = names.iter().map(|n| (kind.key)(n)).filter(|n| !n.is_empty()).collect();
    let mut bases = Vec::new();
    for (read, (base, file)) in script_files(kind, model, files, warnings).into_iter().enumerate() {
        if wanted.is_empty() {
            break;
        }
        if read == kind.max_files {
            warnings.push(format!("more than {} .{} files; the others are not read", kind.max_files, kind.extension));
            break;
        }
        let Ok((path, bytes)) = files.read(&file) else { continue };
        let reading = (bytes.len() as u64).saturating_mul(2);
        budget.charge(reading, || format!("{}: reading {} KiB", path.display(), bytes.len().div_ceil(1024)))?;
        let parsed = (kind.parse)(&String::from_utf8_lossy(&bytes), &|name| wanted.contains(&(kind.key)(name)));
        let declared = match parsed {
            Ok(declared) => declared,
            Err(e) => {
                warnings.push(format!("{}; its {}s are not used", e.in_file(&path), kind.declares));
                continue;
            }
        };
        for found in declared {
            let (name, line, notes) = found.declared();
            let key = (kind.key)(name);
            let Some(at) = wanted.iter().position(|w| *w == key) else { continue };
            wanted.swap_remove(at);
            give(&found, &key);
            let (at, what) = (format!("{} line {line}", path.display()), kind.declares);
            warnings.extend(notes.iter().map(|note| format!("{at}: {what} '{name}': {note}")));
            if !bases.contains(&base) {
                bases.push(base.clone());
            }
        }
    }
    Ok(bases)
}

/// The files of `kind` to look in, each with the base folder its paths are relative to:
/// those beside the model, then those of the kind's folder in the model's folder and the
/// allowed folders above, nearest first, each folder's in name order.
fn script_files<D>(kind: &Kind<D>, model: &Path, files: &Files, warnings: &mut Vec<String>) -> Vec<(PathBuf, PathBuf)> {
    let ancestors = Files::ancestors(model, MAX_BASE_LEVELS);
    let beside = ancestors.first().map(|dir| (dir.clone(), dir.clone()));
    let folders = beside.into_iter().chain(ancestors.iter().map(|base| (base.clone(), base.join(kind.folder))));
    let mut found = Vec::new();
    for (base, folder) in folders {
        let (names, whole) = files.list(&folder, kind.extension, 64 * kind.max_files);
        if !whole {
            warnings.push(format!("{}: too many files to look for .{} files in", folder.display(), kind.extension));
        }
        found.extend(names.into_iter().map(|file| (base.clone(), file)));
    }
    found
}
