//! The state file of a project: what each entry read and wrote last time, by content hash, so
//! a run can tell an up-to-date entry without loading its model.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use super::{Entry, Kind, MAX_STATE_BYTES, VERSION};
use crate::error::Error;
use crate::formats::Confinement;
use crate::spec::BakeSpec;

/// What the state file keeps of an entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Record {
    /// Hash of the spritebake version, the entry's kind, output and spec.
    pub(super) settings: String,
    /// Every file the bake read (relative to the project's folder when inside it) and the hash
    /// of its content (`null`: missing or not readable).
    pub(super) inputs: BTreeMap<String, Option<String>>,
    /// Every file it wrote and the hash of what was written.
    pub(super) outputs: BTreeMap<String, String>,
}

/// The state file.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct State {
    /// The spritebake that wrote it.
    pub(super) spritebake: String,
    /// Records by entry name.
    pub(super) entries: BTreeMap<String, Record>,
}

/// Reads the state file: missing is empty; unreadable, too large or corrupt is empty with a
/// warning (every entry is rebuilt, and the file is written anew).
pub(super) fn read_state(path: &Path) -> (State, Vec<String>) {
    if std::fs::symlink_metadata(path).is_err() {
        return (State::default(), Vec::new());
    }
    let parsed = crate::formats::read_file(path, MAX_STATE_BYTES)
        .and_then(|bytes| serde_json::from_slice::<State>(&bytes).map_err(|e| Error::Invalid(e.to_string())));
    match parsed {
        Ok(state) => (state, Vec::new()),
        Err(e) => {
            (State::default(), vec![format!("ignoring the state file {}: {e}; every entry is rebuilt", path.display())])
        }
    }
}

/// Content hashes of files, each file hashed once per run.
#[derive(Default)]
pub(super) struct Hashes {
    known: Mutex<HashMap<(PathBuf, u64), Option<String>>>,
}

impl Hashes {
    /// The hash of the file at `path` if it is a regular file of at most `max` bytes inside
    /// `scope`, else `None` (missing, refused: never read).
    pub(super) fn of(&self, scope: &Confinement, path: &Path, max: u64) -> Option<String> {
        let key = (path.to_path_buf(), max);
        if let Some(hash) = self.known.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
            return hash.clone();
        }
        let mut hasher = blake3::Hasher::new();
        let read = scope.read_chunks(path, max, &mut |bytes| {
            hasher.update(bytes);
        });
        let hash = read.is_ok().then(|| hasher.finalize().to_hex().to_string());
        self.known.lock().unwrap_or_else(|e| e.into_inner()).insert(key, hash.clone());
        hash
    }
}

pub(super) fn hash_bytes(bytes: &[u8]) -> String {
    blake3::hash(bytes).to_hex().to_string()
}

/// The hash of everything that decides an entry's bytes besides the files it reads (`None`
/// if the spec does not serialize, which makes the entry never up to date).
pub(super) fn settings_hash(entry: &Entry) -> Option<String> {
    #[derive(Serialize)]
    struct Settings<'a> {
        spritebake: &'a str,
        kind: Kind,
        output: &'a str,
        spec: &'a BakeSpec,
    }
    let settings = Settings { spritebake: VERSION, kind: entry.kind, output: &entry.output, spec: &entry.spec };
    // Through a `Value`: its maps keep their keys sorted, so the text is canonical.
    let text = serde_json::to_value(&settings).and_then(|v| serde_json::to_string(&v)).ok()?;
    Some(hash_bytes(text.as_bytes()))
}
