//! The records of earlier bakes: whether one is believed and still holds, the files it lists
//! that a bake no longer writes (removed or left), and the state file written anew.

use std::collections::{HashMap, HashSet};
use std::path::{Component, Path, PathBuf};

use super::entry::Entry;
use super::state::{
    Hashes, Record, State, VERSION, Written, changed_settings, default_keys, hash_file, settings_keys, size_of,
};
use super::steps::{Notes, Step};
use super::types::Project;
use crate::confine::canonical_lenient;
use crate::error::Error;
use crate::output::Transaction;

impl Project {
    /// Why `entry`'s `record` (`current`: of its settings as they are now) is not believed,
    /// if it is not: it names a path in a form no run records, or (when current) it cannot
    /// cover what a bake of the entry writes (see `cover.rs`). An earlier run's record is
    /// believed only to name files to remove, which its entry's output must name now.
    pub(super) fn distrust(&self, entry: &Entry, record: &Record, current: bool) -> Option<String> {
        if let Some(name) = record.misspelt().or_else(|| self.climbing_input(entry, record)) {
            return Some(format!("names '{name}', a spelling no run of it records"));
        }
        current.then(|| self.names(entry).uncovered(&record.outputs)).flatten()
    }

    /// An input of `record` that climbs out of a folder (`x/../a.png`) where no path `entry`
    /// names climbs the same way, if there is one. A bake records the files an entry names as
    /// written, and others through the folder of one or canonical ([`Project::stored_inputs`]),
    /// so such a path is one more spelling of a file, to be hashed again by every run.
    fn climbing_input<'r>(&self, entry: &Entry, record: &'r Record) -> Option<&'r str> {
        let spec = &entry.spec;
        let named = spec.named_files().into_iter().chain(spec.model.texture_root.iter().cloned());
        let named: HashSet<PathBuf> = named.flat_map(|p| climbs(Path::new(&self.stored(&self.joined(p))))).collect();
        let unnamed = |name: &&String| climbs(Path::new(name.as_str())).last().is_some_and(|c| !named.contains(c));
        record.inputs.keys().find(unnamed).map(String::as_str)
    }

    /// Step 2: whether an entry's record still holds (`Err`: why not): `record` is its record,
    /// `current` the same when it is of the entry's settings as they are now. Reads the files
    /// the record names, never the model's.
    pub(super) fn freshness(
        &self,
        entry: &Entry,
        record: Option<&Record>,
        current: Option<&Record>,
        hashes: &Hashes,
    ) -> Result<Record, String> {
        let last = record.ok_or("new")?;
        let changes = || changed_settings(&last.keys, &settings_keys(entry), &default_keys(entry.kind));
        let record = current.ok_or_else(|| match changes() {
            Some(changes) => format!("settings changed: {changes}"),
            None => "settings changed".to_string(),
        })?;
        // Sizes first: they need no read.
        for (path, written) in &record.outputs {
            match size_of(&self.scope, &self.recorded(path)) {
                None => return Err(format!("{path} is missing")),
                Some(bytes) if bytes != written.bytes => {
                    return Err(format!("{path} is {bytes} bytes, not the {} written", written.bytes));
                }
                Some(_) => {}
            }
        }
        let max = entry.spec.limits.limits().max_file_bytes;
        for (path, hash) in &record.inputs {
            if hashes.of(&self.scope, &self.recorded(path), max) != *hash {
                return Err(format!("{path} changed"));
            }
        }
        for (path, written) in &record.outputs {
            // At most the bytes written: a file that grew since its size was read is not it.
            if hashes.of(&self.scope, &self.recorded(path), written.bytes).as_ref() != Some(&written.hash) {
                return Err(format!("{path} was changed"));
            }
        }
        Ok(record.clone())
    }

    /// A warning naming the files of `stored` (as the state file records them) that exist: an
    /// earlier run of an entry recorded them, and its output cannot name them now.
    pub(super) fn left_in_place<'s>(&self, stored: impl Iterator<Item = &'s String>) -> Option<String> {
        let there: Vec<String> = stored
            .filter(|p| size_of(&self.scope, &self.recorded(p)).is_some())
            .map(|p| self.recorded(p).display().to_string())
            .collect();
        let (shown, more) =
            (there.iter().take(3).cloned().collect::<Vec<_>>().join(", "), there.len().saturating_sub(3));
        let more = if more > 0 { format!(" and {more} more") } else { String::new() };
        (!there.is_empty()).then(|| {
            format!(
                "{shown}{more}: an earlier run recorded them as its files, but its output does not name them now; \
                 left in place"
            )
        })
    }

    /// Removes `path` (`stored` in the state file), which `entry`'s last record says it wrote
    /// (`written`) and which it did not write now, unless the run otherwise writes or reads it
    /// (`keep`), it is outside the allowed folders or not a regular file, or it changed since
    /// (left, with a warning; a file of another size is not read to tell).
    pub(super) fn remove_stale(
        &self,
        entry: &Entry,
        stored: &str,
        path: &Path,
        written: &Written,
        keep: &HashMap<PathBuf, Option<usize>>,
        notes: &mut Notes,
    ) {
        let kept = canonical_lenient(path)
            .is_none_or(|location| keep.get(&location).is_some_and(|writer| *writer != Some(entry.index)));
        let regular = std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file());
        if kept || !regular || self.scope.place(path).is_err() {
            return;
        }
        let shown = self.joined(stored);
        let unchanged = match size_of(&self.scope, path) {
            None => return,
            Some(bytes) => {
                bytes == written.bytes && hash_file(&self.scope, path, bytes).as_ref() == Some(&written.hash)
            }
        };
        if !unchanged {
            notes.warnings.push(format!(
                "{}: an earlier run wrote it and this one does not; left in place because it changed since",
                shown.display()
            ));
            return;
        }
        match std::fs::remove_file(path) {
            Ok(()) => notes.removed.push(shown),
            Err(e) => notes.warnings.push(format!(
                "{}: an earlier run wrote it and this one does not, but it could not be removed: {e}",
                shown.display()
            )),
        }
    }

    /// Step 5: the records of every entry built or up to date and the `kept` ones, written
    /// atomically when they differ from what was read or a journal holds records, and the
    /// journal removed; a warning when that fails.
    pub(super) fn write_state(
        &self,
        path: &Path,
        journal: &Path,
        old: &State,
        kept: Vec<(String, Record)>,
        entries: &[&Entry],
        steps: &[Step],
    ) -> Option<String> {
        let mut state = State { spritebake: VERSION.into(), entries: kept.into_iter().collect() };
        for (entry, step) in entries.iter().zip(steps) {
            match step {
                Step::Fresh(record) | Step::Built { record, .. } => {
                    state.entries.insert(entry.name.clone(), record.clone());
                }
                _ => {}
            }
        }
        let journaled = std::fs::symlink_metadata(journal).is_ok();
        if !journaled && state.spritebake == old.spritebake && state.entries == old.entries {
            return None;
        }
        let written = serde_json::to_vec_pretty(&state).map_err(|e| Error::internal(e.to_string())).and_then(|bytes| {
            let mut transaction = Transaction::new();
            transaction.stage(path, &bytes)?;
            // In the commit's critical section: an interrupt cannot leave the new state file
            // with the journal of what it already holds.
            transaction.commit_then(&[journal], || std::fs::remove_file(journal))?.or_else(|e| match e.kind() {
                std::io::ErrorKind::NotFound => Ok(()),
                _ => Err(Error::io(journal, e)),
            })
        });
        written
            .err()
            .map(|e| format!("the state file {} was not written: {e}; the next run rebuilds more", path.display()))
    }
}

/// The beginnings of `path` that end in a `..` after a folder's name (`x/..`, `x/../y/..`):
/// where it climbs out of a folder it named.
fn climbs(path: &Path) -> Vec<PathBuf> {
    let mut head = PathBuf::new();
    let mut in_folder = false;
    let mut climbs = Vec::new();
    for component in path.components() {
        head.push(component);
        match component {
            Component::Normal(_) => in_folder = true,
            Component::ParentDir if in_folder => climbs.push(head.clone()),
            _ => {}
        }
    }
    climbs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn climbs_are_the_beginnings_ending_in_dot_dot_after_a_folder() {
        let shown = |p: &str| climbs(Path::new(p)).iter().map(|c| c.display().to_string()).collect::<Vec<_>>();
        assert_eq!(shown("../../a/x/../b/../c.png"), ["../../a/x/..", "../../a/x/../b/.."]);
        assert!(shown("../a.png").is_empty() && shown("a/b.png").is_empty() && shown("/a/b.png").is_empty());
    }
}
