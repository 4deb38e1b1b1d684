//! The files a script format names (`.qc`, `.def`), read through the model's reader.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::confine::{self, Confinement, Denied, Keep};
use crate::error::Error;

/// The files a script (`.qc`, `.def`) names, read through the model's reader and
/// confinement. A name missing as written is looked for without regard to case (scripts
/// written on Windows), folder by folder, listing only folders the confinement allows.
pub struct Files<'a> {
    pub(super) reader: &'a mut confine::Reader,
    pub(super) scope: &'a Confinement,
}

impl Files<'_> {
    /// Reads the file at `path` (not kept in the reader's cache): its canonical path and bytes.
    ///
    /// # Errors
    /// Missing (also without regard to case), outside the allowed folders, not a regular file,
    /// too large.
    pub fn read(&mut self, path: &Path) -> std::result::Result<(PathBuf, Arc<Vec<u8>>), Denied> {
        match self.reader.read_named(self.scope, path, Keep::Nothing) {
            Err(denied) if denied.is_missing() => match self.any_case(path) {
                Some(other) if other != path => self.reader.read_named(self.scope, &other, Keep::Nothing),
                _ => Err(denied),
            },
            read => read,
        }
    }

    /// Whether paths may lead into `folder`.
    pub fn allows(&self, folder: &Path) -> bool {
        self.scope.place(folder).is_ok()
    }

    /// `file`'s folder (canonical where it can be) and up to `levels` folders above it, nearest
    /// first: where paths a script writes relative to a game's base folder may start.
    pub fn ancestors(file: &Path, levels: usize) -> Vec<PathBuf> {
        let dir = file.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
        dir.ancestors().take(levels + 1).map(Path::to_path_buf).collect()
    }

    /// The files of `folder` with the extension `extension` (any case), in name order; none
    /// when the confinement does not allow the folder or it cannot be listed. At most
    /// `max_entries` entries are looked at; `false` says a folder had more (a folder of
    /// millions is cut short).
    pub fn list(&self, folder: &Path, extension: &str, max_entries: usize) -> (Vec<PathBuf>, bool) {
        if !self.allows(folder) {
            return (Vec::new(), true);
        }
        let Ok(entries) = std::fs::read_dir(folder) else { return (Vec::new(), true) };
        let mut found = Vec::new();
        for (n, entry) in entries.flatten().enumerate() {
            if n == max_entries {
                found.sort();
                return (found, false);
            }
            let path = entry.path();
            if path.extension().is_some_and(|e| e.eq_ignore_ascii_case(extension)) {
                found.push(path);
            }
        }
        found.sort();
        (found, true)
    }

    /// `path` with each missing component matched without regard to case in its folder.
    fn any_case(&self, path: &Path) -> Option<PathBuf> {
        let mut missing = Vec::new();
        let mut base = path.to_path_buf();
        while !base.as_os_str().is_empty() && base.symlink_metadata().is_err() {
            missing.push(base.file_name()?.to_os_string());
            base = base.parent()?.to_path_buf();
        }
        for name in missing.iter().rev() {
            let folder = if base.as_os_str().is_empty() { Path::new(".") } else { base.as_path() };
            if !self.allows(folder) {
                return None;
            }
            let wanted = name.to_string_lossy().to_lowercase();
            let entry = std::fs::read_dir(folder)
                .ok()?
                .flatten()
                .map(|e| e.file_name())
                .find(|n| n.to_string_lossy().to_lowercase() == wanted)?;
            base = base.join(entry);
        }
        Some(base)
    }
}

/// The error naming `path` where the parser could not (format errors, budget overruns).
pub(super) fn in_file(e: Error, path: &Path) -> Error {
    match e {
        Error::Format(e) => Error::Format(e.in_file(path)),
        Error::Budget { what, needed, budget, option } => {
            Error::Budget { what: format!("{}: {what}", path.display()), needed, budget, option }
        }
        other => other,
    }
}
