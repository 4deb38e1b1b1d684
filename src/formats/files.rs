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
