//! Which models a batch renders: the MODEL arguments expanded (folders walked, quoted glob
//! patterns matched), each model with the folder its name is taken from.

use std::collections::HashSet;
use std::path::{Component, Path, PathBuf};

use crate::confine::Confinement;
use crate::error::{Error, Result};
use crate::formats::Format;

/// One model of a batch.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Found {
    /// The model file, as the walk or the command line spelled it.
    pub(crate) path: PathBuf,
    /// The folder or pattern root it was found under (its thumbnail's name mirrors the path
    /// below it); `None` for a file named on the command line.
    pub(crate) root: Option<PathBuf>,
}

impl Found {
    /// Whether a folder scan or a pattern found it (so it may be left out as no model of its
    /// own: a sequence SMD, a file a script reads); a file named on the command line never is.
    pub(crate) fn scanned(&self) -> bool {
        self.root.is_some()
    }

    /// Refuses, unread, a file a scan found that leads out of the folder or pattern root it was
    /// found in (a symbolic link to `/proc/self/environ`, to a private file): a scan reads what
    /// lies in the folder scanned. A file named on the command line goes anywhere.
    ///
    /// # Errors
    /// [`Error::Refused`] naming the link and where it leads; a link to nothing.
    pub(crate) fn confined(&self) -> Result<()> {
        let Some(root) = &self.root else { return Ok(()) };
        let subject = format!("{}:", self.path.display());
        Confinement::for_scan(root).file(&self.path).map(drop).map_err(|denied| denied.into_error(&self.path, subject))
    }

    /// Whether it is a script that describes a model made of other files (`.qc`, `.def`).
    pub(crate) fn is_script(&self) -> bool {
        Format::from_extension(&self.path).is_some_and(Format::is_script)
    }
}

/// The models of a batch, as the command line's MODEL arguments expand.
#[derive(Debug, Default)]
pub(crate) struct Models {
    /// Each model once, in argument order; each folder's or pattern's models sorted.
    pub(crate) found: Vec<Found>,
    /// Some argument was a folder or a pattern.
    pub(crate) expanded: bool,
    /// The folders a walk could not read, in the order met: each fails on its own line while
    /// the rest of the batch renders.
    pub(crate) unreadable: Vec<Unreadable>,
}

/// A folder a walk could not list (no permission, gone meanwhile).
#[derive(Debug)]
pub(crate) struct Unreadable {
    pub(crate) folder: PathBuf,
    pub(crate) error: std::io::Error,
}

impl Unreadable {
    /// Why, for the batch's FAIL line and records.
    pub(crate) fn reason(&self) -> String {
        format!("cannot read this folder: {}", self.error)
    }
}

/// A file a folder or a pattern expands to: one whose extension (any letter case) names a
/// format `load` reads, the scripts (`.qc`, `.def`) included.
fn is_model_file(path: &Path) -> bool {
    Format::from_extension(path).is_some()
}

/// A file or folder name with `*`, `?` or `[` (a Windows prefix such as `\\?\` is no pattern).
fn is_pattern(name: &std::ffi::OsStr) -> bool {
    name.to_string_lossy().contains(['*', '?', '['])
}

fn has_glob_chars(arg: &Path) -> bool {
    arg.components().any(|c| matches!(c, Component::Normal(name) if is_pattern(name)))
}

/// Expands the MODEL arguments: a folder to the model files under it, an argument with glob
/// characters that names nothing that exists to the model files and folders it matches, and
/// anything else stays as it is (a missing file then fails on its own line). A path that
/// comes twice (the same file, however it is spelled) is kept the first time.
///
/// Folders that cannot be read (the argument's own or one below it) are noted in
/// [`Models::unreadable`].
///
/// # Errors
/// A folder or a pattern with no model in it and no folder it could not read, an invalid
/// pattern.
pub(crate) fn expand(args: &[PathBuf]) -> Result<Models> {
    let mut models = Models::default();
    let mut seen = HashSet::new();
    for arg in args {
        let unread_before = models.unreadable.len();
        let (found, root) = if arg.is_dir() {
            let found = models_under(arg, &mut models.unreadable);
            if found.is_empty() && models.unreadable.len() == unread_before {
                return Err(Error::NoModels {
                    argument: arg.clone(),
                    pattern: false,
                    extensions: Format::extension_list(),
                });
            }
            (found, arg.clone())
        } else if has_glob_chars(arg) && std::fs::symlink_metadata(arg).is_err() {
            let (found, root) = glob_models(arg, &mut models.unreadable)?;
            if found.is_empty() && models.unreadable.len() == unread_before {
                return Err(Error::NoModels {
                    argument: arg.clone(),
                    pattern: true,
                    extensions: Format::extension_list(),
                });
            }
            (found, root)
        } else {
            if seen.insert(identity(arg)) {
                models.found.push(Found { path: arg.clone(), root: None });
            }
            continue;
        };
        models.expanded = true;
        let fresh = found.into_iter().filter(|p| seen.insert(identity(p)));
        models.found.extend(fresh.map(|path| Found { path, root: Some(root.clone()) }));
    }
    Ok(models)
}

/// What makes two spellings of one file the same model: its canonical path where it exists.
pub(crate) fn identity(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// The folder's entries, sorted, as (path, is a folder that is no symbolic link); none when
/// it cannot be read, which is noted in `unreadable` (one folder a walk cannot read fails
/// alone, not the whole batch).
fn entries(dir: &Path, unreadable: &mut Vec<Unreadable>) -> Vec<(PathBuf, bool)> {
    let read = |dir: &Path| -> std::io::Result<Vec<(PathBuf, bool)>> {
        let mut entries = Vec::new();
        for entry in std::fs::read_dir(dir)? {
            let entry = entry?;
            // `DirEntry::file_type` does not follow symbolic links.
            entries.push((entry.path(), entry.file_type()?.is_dir()));
        }
        entries.sort();
        Ok(entries)
    };
    read(dir).unwrap_or_else(|error| {
        unreadable.push(Unreadable { folder: dir.to_path_buf(), error });
        Vec::new()
    })
}

/// Every model file under `dir`, sorted; folders reached through a symbolic link are left out
/// (no loops, nothing outside the folder), model files that are symbolic links are kept (and
/// refused when run if they lead out of the folder: [`Found::confined`]); folders that cannot
/// be read are noted in `unreadable`.
fn models_under(dir: &Path, unreadable: &mut Vec<Unreadable>) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(dir) = todo.pop() {
        for (path, is_dir) in entries(&dir, unreadable) {
            if is_dir {
                todo.push(path);
            } else if is_model_file(&path) && path.is_file() {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// One part of a pattern, between separators.
enum Part {
    /// No glob characters: joined as it is.
    Literal(PathBuf),
    /// `**`: this folder and every folder under it.
    AnyFolders,
    /// Matched against each name in the folder.
    Pattern(glob::Pattern),
}

/// The model files a pattern matches, sorted, with every folder it matches expanded as a
/// folder argument is; and the pattern's root, the folder its literal leading parts name. The parts before the first glob character are taken as written (as a
/// folder argument is); below them the walk, like the folder walk, never enters a symbolic
/// link to a folder. (`glob::glob` would: `**` would follow a link loop into an ever deeper
/// walk. So the walk is ours and the glob crate matches the names.) Folders that cannot be
/// read are noted in `unreadable`.
fn glob_models(pattern: &Path, unreadable: &mut Vec<Unreadable>) -> Result<(Vec<PathBuf>, PathBuf)> {
    let mut base = PathBuf::new();
    let mut parts = Vec::new();
    for component in pattern.components() {
        let text = component.as_os_str();
        let Component::Normal(name) = component else {
            // A prefix, the root, `.` or `..`: taken as written.
            if parts.is_empty() {
                base.push(text)
            } else {
                parts.push(Part::Literal(PathBuf::from(text)))
            }
            continue;
        };
        if parts.is_empty() && !is_pattern(name) {
            base.push(name);
        } else if name == "**" {
            // `**/**` is `**`.
            if !matches!(parts.last(), Some(Part::AnyFolders)) {
                parts.push(Part::AnyFolders);
            }
        } else if is_pattern(name) {
            let part = glob::Pattern::new(&name.to_string_lossy())
                .map_err(|e| Error::Invalid(format!("{}: not a valid pattern: {e}", pattern.display())))?;
            parts.push(Part::Pattern(part));
        } else {
            parts.push(Part::Literal(PathBuf::from(name)));
        }
    }
    if base.as_os_str().is_empty() {
        base.push(".");
    }
    if !base.is_dir() {
        return Ok((Vec::new(), base));
    }
    let options = glob::MatchOptions::new();
    let mut found = Vec::new();
    let mut matched = Vec::new();
    // (folder, index of the part its entries are matched against); a pattern of only literal
    // parts cannot get here (it names no glob character).
    let mut todo = vec![(base.clone(), 0)];
    while let Some((dir, i)) = todo.pop() {
        let last = i + 1 == parts.len();
        match &parts[i] {
            Part::AnyFolders => {
                if last {
                    // A pattern ending in `**`: the folder, expanded below, holds the rest.
                    matched.push(dir);
                    continue;
                }
                todo.push((dir.clone(), i + 1));
                for (path, is_dir) in entries(&dir, unreadable) {
                    if is_dir {
                        todo.push((path, i));
                    }
                }
            }
            Part::Literal(name) => {
                let path = dir.join(name);
                let is_dir = std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir());
                if last {
                    matched.push(path);
                } else if is_dir {
                    todo.push((path, i + 1));
                }
            }
            Part::Pattern(part) => {
                for (path, is_dir) in entries(&dir, unreadable) {
                    let name = path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
                    if !part.matches_with(&name, options) {
                        continue;
                    }
                    if last {
                        matched.push(path);
                    } else if is_dir {
                        todo.push((path, i + 1));
                    }
                }
            }
        }
    }
    for path in matched {
        match std::fs::symlink_metadata(&path) {
            Ok(m) if m.is_dir() => found.extend(models_under(&path, unreadable)),
            Ok(_) if is_model_file(&path) && path.is_file() => found.push(path),
            _ => {}
        }
    }
    found.sort();
    found.dedup();
    Ok((found, base))
}
