//! The state file of a project: what each entry read and wrote last time, by content hash, so
//! a run can tell an up-to-date entry without loading its model.
//!
//! Entries are recorded as they commit, not only when the run ends, so a run that is stopped
//! (Ctrl-C, SIGTERM, a CI timeout, SIGKILL) keeps the records of the entries it finished. The
//! state file is rewritten whole once per run; in between, each entry's record is appended to a
//! journal beside it ([`journal_path`]), one line of JSON per entry, in the same critical section
//! as the entry's commit. A run reads the state file and then the journal, later lines winning,
//! and after writing the state file anew removes the journal. Appending costs one record, so a
//! run of N entries writes O(N) bytes of state, not the O(N²) of rewriting every record after
//! each entry.
//!
//! That read, the journal and the write are one read-modify-write of the state: a run that
//! writes holds the state file's lock ([`lock_path`]) through all of it. Without it two runs
//! started at once (two versions of the project) both read the old state; the one that ended
//! first removed the journal holding the other's records, the one that ended last wrote only
//! its own, and the files of the other were recorded nowhere (never removed, the entry "up to
//! date" for ever). With it the second run waits, reads the first's records, and removes what
//! the first wrote that it does not write.

use std::collections::{BTreeMap, HashMap};
use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use super::{Entry, Kind};
use crate::confine::{Confinement, Denied, canonical_lenient};
use crate::error::Error;
use crate::spec::BakeSpec;

/// Largest state file (and journal) read, in bytes; a larger one is ignored (everything is
/// rebuilt, and the run replaces it). No flag raises it: `--max-file-mib` bounds the files
/// entries read, and a state file this large would hold some 100,000 entries.
pub(crate) const MAX_STATE_BYTES: u64 = 64 << 20;

/// The version a state file records; a different one makes every entry stale.
pub(super) const VERSION: &str = env!("CARGO_PKG_VERSION");

/// What the state file keeps of an entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Record {
    /// Hash of the spritebake version, the entry's kind, output and spec.
    pub(super) settings: String,
    /// The same settings key by key ([`settings_keys`]), to say which changed; never trusted
    /// to tell whether they did (the hash does). Empty in a record of an older run.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub(super) keys: BTreeMap<String, String>,
    /// Every file the bake read (relative to the project's folder when inside it) and the hash
    /// of its content (`null`: missing or not readable).
    pub(super) inputs: BTreeMap<String, Option<String>>,
    /// Every file it wrote, and what was written.
    pub(super) outputs: BTreeMap<String, Written>,
}

impl Record {
    /// A path the record names in a form no run records it in ([`plain`]), if it names one:
    /// another spelling of a file (`./a.png`, `out//a.png`), which would be hashed, matched
    /// against the entry's output and removed under a name no run gives it.
    pub(super) fn misspelt(&self) -> Option<&str> {
        let mut names = self.inputs.keys().chain(self.outputs.keys()).map(String::as_str);
        names.find(|name| name.is_empty() || plain(Path::new(name)) != *name)
    }
}

/// How the state file writes `path`: its components as given, without `.` ones and doubled or
/// trailing separators; `..` is kept, since it may follow a link.
pub(super) fn plain(path: &Path) -> String {
    let plain: PathBuf = path.components().filter(|c| *c != Component::CurDir).collect();
    plain.to_string_lossy().into_owned()
}

/// What an entry wrote to one file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Written {
    /// Its size: a file of another size is not what was written, and is never read to tell.
    pub(super) bytes: u64,
    /// The hash of its content.
    pub(super) hash: String,
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

/// One line of the journal.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Journaled<'a> {
    name: std::borrow::Cow<'a, str>,
    record: std::borrow::Cow<'a, Record>,
}

/// The journal of the state file at `state`: `NAME.state.json` has `NAME.state.journal`.
pub(super) fn journal_path(state: &Path) -> PathBuf {
    state.with_extension("journal")
}

/// The lock file of the state file at `state`: `NAME.state.json` has `NAME.state.lock`. A run
/// that writes holds an exclusive advisory lock (`flock`) on it from before it reads the state
/// file until it has written it anew, so two runs over one state file (two versions of the
/// project baked at once) take turns: the second reads what the first recorded, and neither
/// drops the other's records. The file is never removed (removing a lock file races with its
/// next user).
pub(super) fn lock_path(state: &Path) -> PathBuf {
    state.with_extension("lock")
}

/// A state file, its journal and its lock file ([`journal_path`], [`lock_path`]).
pub(super) fn state_files(state: &Path) -> [PathBuf; 3] {
    [journal_path(state), lock_path(state), state.to_path_buf()]
}

/// The lock on a state file, held while alive (see [`lock_path`]).
pub(super) struct StateLock {
    _file: std::fs::File,
}

/// Takes the lock on the state file at `state`, waiting for another run that holds it. `Ok`
/// with a warning when it had to wait; `Err` with a warning when the lock file cannot be opened
/// or locked (a link or special file planted at its name, a folder not writable): the run goes
/// on without it.
pub(super) fn lock_state(state: &Path) -> Result<(StateLock, Option<String>), String> {
    let path = lock_path(state);
    let mut options = std::fs::OpenOptions::new();
    options.read(true).write(true).create(true).truncate(false);
    // Never through a planted link, and never blocking on a FIFO.
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NOFOLLOW | libc::O_NONBLOCK);
    let unlocked = |why: String| {
        format!(
            "the state file's lock {} was not taken: {why}; a run of this project at the same time may drop this \
             run's records",
            path.display()
        )
    };
    let file = options.open(&path).map_err(|e| unlocked(e.to_string()))?;
    if !file.metadata().map_err(|e| unlocked(e.to_string()))?.is_file() {
        return Err(unlocked("not a regular file".into()));
    }
    let waited = match file.try_lock() {
        Ok(()) => None,
        Err(std::fs::TryLockError::WouldBlock) => {
            let start = std::time::Instant::now();
            file.lock().map_err(|e| unlocked(e.to_string()))?;
            Some(format!(
                "waited {:.1} s for another spritebake run of this project to finish with its state file",
                start.elapsed().as_secs_f64()
            ))
        }
        Err(std::fs::TryLockError::Error(e)) => return Err(unlocked(e.to_string())),
    };
    Ok((StateLock { _file: file }, waited))
}

/// Whether the file name `name` is that of a state file, journal or lock file of the project
/// file named `project`, for any shard: `PROJECT.state.json`, `PROJECT.shard-I-of-N.state.json`
/// and their `.state.journal`s and `.state.lock`s ([`super::Project::state_path`],
/// [`journal_path`], [`lock_path`]). Letter case is ignored, as some file systems ignore it.
pub(super) fn is_state_name(name: &str, project: &str) -> bool {
    let (name, project) = (name.to_ascii_lowercase(), project.to_ascii_lowercase());
    let Some(rest) = name.strip_prefix(&project) else { return false };
    let suffixes = [".state.json", ".state.journal", ".state.lock"];
    let Some(shard) = suffixes.iter().find_map(|suffix| rest.strip_suffix(suffix)) else { return false };
    let number = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    match shard.strip_prefix(".shard-").and_then(|s| s.split_once("-of-")) {
        Some((i, n)) => number(i) && number(n),
        None => shard.is_empty(),
    }
}

/// Reads the state file and its journal: missing is empty; unreadable, too large or corrupt is
/// empty with a warning (its entries are rebuilt, and the file is written anew). Damaged lines
/// of the journal (a run killed while appending) are skipped.
pub(super) fn read_state(path: &Path) -> (State, Vec<String>) {
    let mut warnings = Vec::new();
    let mut state = State::default();
    if std::fs::symlink_metadata(path).is_ok() {
        let parsed =
            read_capped(path).and_then(|bytes| serde_json::from_slice::<State>(&bytes).map_err(|e| e.to_string()));
        match parsed {
            Ok(read) => state = read,
            Err(e) => warnings.push(format!(
                "ignoring the state file {}: {e}; every entry is rebuilt, and the run (unless a dry run) replaces \
                 the file",
                path.display()
            )),
        }
    }
    let journal = journal_path(path);
    if std::fs::symlink_metadata(&journal).is_err() {
        return (state, warnings);
    }
    match read_capped(&journal) {
        Ok(bytes) => {
            let lines = bytes.split(|&b| b == b'\n').filter(|l| !l.trim_ascii().is_empty());
            let mut damaged = 0;
            for line in lines {
                match serde_json::from_slice::<Journaled>(line) {
                    Ok(j) => {
                        state.entries.insert(j.name.into_owned(), j.record.into_owned());
                    }
                    Err(_) => damaged += 1,
                }
            }
            if damaged > 0 {
                warnings.push(format!(
                    "{}: {damaged} damaged lines skipped (a run was killed while writing them); their entries are \
                     rebuilt",
                    journal.display()
                ));
            }
        }
        Err(e) => warnings.push(format!("ignoring {}: {e}; the entries it recorded are rebuilt", journal.display())),
    }
    (state, warnings)
}

/// Reads the state file or its journal whole: a regular file of at most [`MAX_STATE_BYTES`],
/// refused by its size before anything is read. Errors say why, without the file's name.
fn read_capped(path: &Path) -> Result<Vec<u8>, String> {
    crate::confine::read_user_file(path, MAX_STATE_BYTES).map_err(|denied| match denied {
        Denied::TooLarge { bytes, .. } => {
            format!("it is {bytes} bytes, over the {} MiB a state file may hold", MAX_STATE_BYTES >> 20)
        }
        other => other.to_string(),
    })
}

/// Appends an entry's record to the journal (see the module notes).
///
/// # Errors
/// The journal cannot be opened (it is a link, a special file) or written.
pub(super) fn append_record(journal: &Path, name: &str, record: &Record) -> crate::error::Result<()> {
    use std::borrow::Cow;
    use std::io::Write;
    let line = serde_json::to_vec(&Journaled { name: Cow::Borrowed(name), record: Cow::Borrowed(record) })
        .map_err(|e| Error::internal(e.to_string()))?;
    let mut options = std::fs::OpenOptions::new();
    options.append(true).create(true);
    // Never through a planted link, and never blocking on a FIFO.
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NOFOLLOW | libc::O_NONBLOCK);
    let io = |e| Error::io(journal, e);
    let mut file = options.open(journal).map_err(io)?;
    if !file.metadata().map_err(io)?.is_file() {
        return Err(Error::in_file(journal, "not a regular file"));
    }
    // The newline goes first, in the same write: a line torn by a kill stays a line of its own
    // and never swallows the record appended after it.
    let mut bytes = Vec::with_capacity(line.len() + 1);
    bytes.push(b'\n');
    bytes.extend_from_slice(&line);
    file.write_all(&bytes).map_err(io)
}

/// Content hashes of files, each file hashed once per run: known by where its path leads
/// (links followed), so that no number of spellings of one file has it read again.
#[derive(Default)]
pub(super) struct Hashes {
    known: Mutex<HashMap<(PathBuf, u64), Option<String>>>,
}

impl Hashes {
    /// The hash of the file at `path` if it is a regular file of at most `max` bytes inside
    /// `scope`, else `None` (missing, refused: never read).
    pub(super) fn of(&self, scope: &Confinement, path: &Path, max: u64) -> Option<String> {
        let key = (canonical_lenient(path).unwrap_or_else(|| path.to_path_buf()), max);
        if let Some(hash) = self.known.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
            return hash.clone();
        }
        let hash = hash_file(scope, path, max);
        self.known.lock().unwrap_or_else(|e| e.into_inner()).insert(key, hash.clone());
        hash
    }
}

/// The size of the regular file `path` leads to inside `scope` (`None`: missing, refused),
/// from its metadata: nothing is read.
pub(super) fn size_of(scope: &Confinement, path: &Path) -> Option<u64> {
    let target = scope.file(path).ok()?;
    std::fs::metadata(target).ok().map(|m| m.len())
}

/// The hash of the file at `path`, read now: as [`Hashes::of`], without remembering it.
pub(super) fn hash_file(scope: &Confinement, path: &Path, max: u64) -> Option<String> {
    let mut hasher = blake3::Hasher::new();
    let read = scope.read_chunks(path, max, &mut |bytes| {
        hasher.update(bytes);
    });
    read.is_ok().then(|| hasher.finalize().to_hex().to_string())
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

/// An entry's settings key by key as the project file writes them (`size` = `128`), each key
/// whose value is not its kind's default, with `spritebake` (the version), `kind` and
/// `output`: what [`settings_hash`] hashes, in a few hundred bytes a record.
pub(super) fn settings_keys(entry: &Entry) -> BTreeMap<String, String> {
    let defaults = entry.kind.base().to_table();
    let set = entry.spec.to_table().into_iter().filter(|(key, value)| defaults.get(key) != Some(value));
    let spec = set.map(|(key, value)| (key, shown(&value)));
    let own = [("spritebake", VERSION), ("kind", entry.kind.table()), ("output", &entry.output)];
    own.into_iter().map(|(k, v)| (k.to_string(), v.to_string())).chain(spec).collect()
}

/// The default of every setting of an entry of `kind`, as [`settings_keys`] writes values.
pub(super) fn default_keys(kind: Kind) -> BTreeMap<String, String> {
    kind.base().to_table().into_iter().map(|(key, value)| (key, shown(&value))).collect()
}

/// A setting's value as a project file writes it, strings unquoted.
fn shown(value: &toml::Value) -> String {
    match value {
        toml::Value::String(s) => s.clone(),
        other => crate::spec::show(other),
    }
}

/// Which settings changed from `old` to `new` ([`settings_keys`]; a key they leave out is at
/// its value in `defaults`, else unset): `size 128 → 120, ssaa 2 → 4`, the first few in key
/// order and how many more; `None` when `old` has none (a record of an older run) or none
/// differs.
pub(super) fn changed_settings(
    old: &BTreeMap<String, String>,
    new: &BTreeMap<String, String>,
    defaults: &BTreeMap<String, String>,
) -> Option<String> {
    const SHOWN: usize = 4;
    if old.is_empty() {
        return None;
    }
    let keys: std::collections::BTreeSet<&String> = old.keys().chain(new.keys()).collect();
    let unset = "(unset)".to_string();
    let changes: Vec<String> = keys
        .into_iter()
        .filter_map(|key| {
            let was = old.get(key).or(defaults.get(key)).unwrap_or(&unset);
            let is = new.get(key).or(defaults.get(key)).unwrap_or(&unset);
            (was != is).then(|| format!("{key} {was} → {is}"))
        })
        .collect();
    let more = match changes.len().saturating_sub(SHOWN) {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    (!changes.is_empty())
        .then(|| format!("{}{more}", changes.iter().take(SHOWN).cloned().collect::<Vec<_>>().join(", ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(output: &str) -> Record {
        Record {
            settings: "s".into(),
            keys: BTreeMap::new(),
            inputs: BTreeMap::from([("m.obj".into(), Some("h".into()))]),
            outputs: BTreeMap::from([(output.into(), Written { bytes: 1, hash: "o".into() })]),
        }
    }

    #[test]
    fn changed_settings_name_each_key_with_both_values() {
        let keys = |pairs: &[(&str, &str)]| pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        let old = keys(&[("size", "128"), ("ssaa", "2"), ("anim", "[\"walk\"]")]);
        let new = keys(&[("size", "120"), ("ssaa", "2"), ("palette", "16")]);
        // A key left out is at its default: `anim`'s is `[]`, `palette` has none.
        let defaults = keys(&[("size", "64"), ("ssaa", "2"), ("anim", "[]")]);
        assert_eq!(
            changed_settings(&old, &new, &defaults).as_deref(),
            Some("anim [\"walk\"] → [], palette (unset) → 16, size 128 → 120")
        );
        assert_eq!(changed_settings(&old, &old, &defaults), None);
        assert_eq!(changed_settings(&BTreeMap::new(), &new, &defaults), None, "an older run's record names no keys");
        let many: BTreeMap<String, String> = (0..7).map(|i| (format!("k{i}"), "1".to_string())).collect();
        let shown = changed_settings(&many, &BTreeMap::new(), &defaults).unwrap();
        assert!(shown.ends_with("k3 1 → (unset) and 3 more"), "{shown}");
    }

    #[test]
    fn a_file_is_hashed_once_whatever_its_spellings() {
        let dir = std::env::temp_dir().join(format!("spritebake-hashes-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("x")).unwrap();
        std::fs::write(dir.join("a.png"), b"first").unwrap();
        let scope = Confinement::for_project(&dir);
        let hashes = Hashes::default();
        let first = hashes.of(&scope, &dir.join("a.png"), 100);
        assert_eq!(first, Some(hash_bytes(b"first")));
        // Changed now: another spelling of it is not read again.
        std::fs::write(dir.join("a.png"), b"second").unwrap();
        for spelling in ["x/../a.png", "./a.png", "x/../x/../a.png"] {
            assert_eq!(hashes.of(&scope, &dir.join(spelling), 100), first, "{spelling}");
        }
        assert_eq!(hash_file(&scope, &dir.join("a.png"), 100), Some(hash_bytes(b"second")));
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn the_journal_is_read_over_the_state_file_later_lines_winning() {
        let dir = std::env::temp_dir().join(format!("spritebake-state-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("p.toml.state.json");
        let state = State { spritebake: VERSION.into(), entries: BTreeMap::from([("a".into(), record("a1.png"))]) };
        std::fs::write(&path, serde_json::to_vec(&state).unwrap()).unwrap();
        let journal = journal_path(&path);
        assert_eq!(journal, dir.join("p.toml.state.journal"));
        append_record(&journal, "b", &record("b1.png")).unwrap();
        append_record(&journal, "a", &record("a2.png")).unwrap();
        // A line torn by a kill, then a record appended by the next run.
        let mut file = std::fs::OpenOptions::new().append(true).open(&journal).unwrap();
        std::io::Write::write_all(&mut file, b"\n{\"name\": \"c\", \"rec").unwrap();
        append_record(&journal, "d", &record("d1.png")).unwrap();
        let (read, warnings) = read_state(&path);
        let outputs: Vec<(&str, &str)> =
            read.entries.iter().map(|(name, r)| (name.as_str(), r.outputs.keys().next().unwrap().as_str())).collect();
        assert_eq!(outputs, [("a", "a2.png"), ("b", "b1.png"), ("d", "d1.png")]);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].contains("1 damaged lines skipped"), "{warnings:?}");
        // Never through a link planted at its name.
        #[cfg(unix)]
        {
            std::fs::remove_file(&journal).unwrap();
            std::fs::write(dir.join("victim"), b"precious").unwrap();
            std::os::unix::fs::symlink(dir.join("victim"), &journal).unwrap();
            assert!(append_record(&journal, "e", &record("e.png")).is_err());
            assert_eq!(std::fs::read(dir.join("victim")).unwrap(), b"precious");
        }
        std::fs::remove_dir_all(dir).unwrap();
    }
}
