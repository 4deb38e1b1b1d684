//! `bake` project files: every sprite of a game in one TOML file, baked in parallel and
//! incrementally (`spritebake bake PROJECT.toml`).
//!
//! ```toml
//! [defaults]              # any spec key; applies to every entry
//! size = 128
//! [[sheet]]               # a sprite sheet PNG, its JSON beside it
//! name = "robot-walk"     # required, unique in the file
//! model = "assets/robot/robot.md5mesh"
//! anim = ["assets/robot/walk.md5anim"]
//! directions = 8
//! output = "out/robot-walk.png"
//! [[gif]]                 # output: a .gif
//! [[frames]]              # output: a pattern, "out/{clip}_{dir}_{frame:03}.png"
//! [[thumbnail]]           # output: a .png; starts from the `thumbnail` defaults
//! [[render]]              # output: a .png of one moment
//! ```
//!
//! An entry is a [`BakeSpec`] (every key the commands take, named as their flags) plus `name`
//! and `output` ([`ENTRY_KEYS`]): `[defaults]` fills what it leaves out; a `[[thumbnail]]`
//! starts from [`BakeSpec::thumbnail`], then `[defaults]`, then its own keys. Entries are
//! numbered in file order over every kind (their header lines), which is what
//! [`RunOptions::shard`] goes by: adding entries at the end keeps every existing assignment.
//!
//! Every path (models, animations, textures, attachments, outputs) is relative to the project
//! file's folder and must lead inside it, or inside a folder allowed with
//! [`Project::allowing`] (`--allow-dir`); see [`crate::confine`].
//!
//! A run ([`Project::run`]):
//! 1. checks what is known without loading anything: every output inside the allowed folders,
//!    no two entries writing one file, no output on a file an entry names, nor on a state file,
//!    journal or state lock of the project, of whichever shard (a refusal of the whole run);
//! 2. (unless a dry run) takes the state file's lock, waiting for another run of the project
//!    that holds it, and keeps it until step 5 is done: two runs over one state file (two
//!    versions of the project baked at once) take turns, so the second reads what the first
//!    recorded and removes what it wrote, and no run's records are dropped (see `state.rs`);
//!    then decides which entries are up to date from the state file alone (no model is loaded): an
//!    entry is rebuilt when it has no record, its settings changed (its kind, output and spec
//!    as written, with the spritebake version, hashed), its record cannot cover what a bake of
//!    it writes (no output, a file its output cannot name, one it writes left out: a warning,
//!    see `cover.rs`), the content of a file it read last time
//!    changed (or one that was missing appeared), or an output is missing or differs from what
//!    was written: its size first, from its metadata, and its content (hashed, never more bytes
//!    than were written) only when the size is the one recorded;
//! 3. loads each entry to rebuild once to plan it: its outputs (a frame pattern expands to every
//!    file) and every file it reads, then checks every output of the run against every other
//!    and against every input of every entry — still before anything renders (a refusal of the
//!    whole run; but where the record of an up-to-date entry takes part, that entry is rebuilt
//!    instead, with a warning, and the run refused only if its plan clashes too: a record can
//!    never block a run, see `clash.rs`); a shard with an entry to rebuild plans every other
//!    shard's entry too, so that it refuses what a run of the whole project refuses;
//! 4. bakes the entries to rebuild in parallel (loading each again; at most
//!    [`crate::budget::models_in_flight`] at once), each writing its files together or none;
//!    an entry that fails is reported and the others go on. Under the same locks as its commit
//!    (see [`crate::output::Transaction::commit_then`]), a built entry removes the files its
//!    last record says it wrote and this run did not (pages of a sheet that now has fewer,
//!    frames no longer made), and its record is appended to the state file's journal, so an
//!    interrupted run keeps what it finished (see `state.rs`);
//! 5. writes the state file ([`Project::state_path`]) atomically, with a record for every entry
//!    built or up to date (a failed entry keeps none, so it is rebuilt next time), and removes
//!    the journal; then lets go of the state file's lock.
//!
//! A file an earlier run wrote is removed only when the state file records it for that entry,
//! the entry's output can name it now (else it is left, with a warning), its size and content
//! are still what was written (else it is left, with a warning: someone changed it), it is
//! inside the allowed folders and it is no file this run writes or reads, nor one any entry of
//! the project names or (planned from another shard) writes or reads.
//!
//! The state file records paths as the project names them, relative to its folder, not where
//! links led when they were written: every check looks at what a recorded path leads to now,
//! so a link re-pointed since shows as a change. A file a model names reaches the record only
//! by its canonical path, and is recorded through the folder of a file the entry names that
//! holds it (`Project::stored_inputs`); a link below that folder leading out of it is
//! recorded resolved.
//!
//! The state file is untrusted input like any other: bounded ([`MAX_STATE_BYTES`]), a corrupt
//! one ignored with a warning (everything is rebuilt), and the files it names are read (to hash
//! them) only inside the allowed folders, each at most once a run. A record naming a path in a
//! form no run records it in (`./a.png`, `out//a.png`, or `x/../a.png` where no path its
//! entry names climbs out of `x`) is not believed at all: its entry is rebuilt, with a warning.
//! A record is believed only to skip an entry whose outputs are all there with the size and
//! content it records, and to remove files the entry's output can name; it can neither block
//! a run (step 3) nor make one write anywhere.

mod clash;
mod cover;
mod entry;
mod state;

use std::collections::{BTreeSet, HashMap, HashSet};
use std::fmt;
use std::path::{Component, Path, PathBuf};
use std::time::Instant;

use rayon::prelude::*;
use serde::Serialize;

pub use entry::{ENTRY_KEYS, Entry, Kind};
pub use state::MAX_STATE_BYTES;

use super::Loaded;
use super::pipeline::{self, Stage};
use crate::budget::models_in_flight;
use crate::confine::{Confinement, canonical_lenient};
use crate::error::{Error, Result};
use crate::model::UnknownName;
use crate::output::{FramePattern, OutputFormat, OutputPlan, Transaction};
use crate::spec::file::{MAX_TOML_BYTES, header_lines, parse_with_defaults, read_toml_text, take_entries};
use crate::spec::{BakeSpec, Resolved};
use clash::{Role, Uses};
use cover::Names;
use state::{
    Hashes, Record, State, VERSION, Written, append_record, changed_settings, default_keys, hash_bytes, hash_file,
    is_state_name, journal_path, lock_state, plain, read_state, settings_hash, settings_keys, size_of, state_files,
};

/// Largest project file read, in bytes (as for `check` manifests: about 10,000 entries).
pub const MAX_PROJECT_BYTES: u64 = MAX_TOML_BYTES;

/// A parsed project file.
#[derive(Debug, Clone)]
pub struct Project {
    /// The project file.
    pub path: PathBuf,
    /// Where the paths in entries may lead: the project's folder, plus folders allowed with
    /// [`Project::allowing`] (`--allow-dir`).
    pub scope: Confinement,
    /// Entries in file order.
    pub entries: Vec<Entry>,
    /// The project's folder, canonical: the state file records a file a model names relative
    /// to it when no folder its entry names holds it.
    root: PathBuf,
}

/// How a run goes.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Rebuild every entry, whatever the state file says.
    pub force: bool,
    /// Decide what would be rebuilt, and load, render and write nothing.
    pub dry_run: bool,
    /// Bake only entries `i` with `i % count == index` (0-based index), `i` the entry's number
    /// in file order; the state file gets a name of its own ([`Project::state_path`]).
    pub shard: Option<(usize, usize)>,
    /// Bake only the entries of these names (of the shard, with one); `None`: every entry.
    /// The others' records in the state file are kept as they are.
    pub only: Option<BTreeSet<String>>,
    /// Files the caller writes after the run (a JSON summary): checked with the outputs.
    pub extra_outputs: Vec<PathBuf>,
}

/// Progress of a run, reported from any thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// An entry to rebuild was planned: it will render this many images.
    Planned(usize),
    /// One image was rendered.
    Rendered,
}

/// How an entry ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// Baked and written.
    Built,
    /// Nothing it reads or writes changed: left alone.
    UpToDate,
    /// It could not be baked (see its error); nothing of it was written.
    Failed,
    /// A dry run: it would be rebuilt.
    WouldBuild,
}

/// One entry's result.
#[derive(Debug, Clone, Serialize)]
pub struct EntryReport {
    /// The entry's name.
    pub name: String,
    /// Its kind.
    pub kind: Kind,
    /// The files it writes (a frame pattern until it is planned), as paths from the working
    /// folder.
    pub outputs: Vec<PathBuf>,
    /// How it ended.
    pub status: Status,
    /// Seconds spent on it (planning and baking).
    pub seconds: f64,
    /// Why it failed.
    pub error: Option<String>,
    /// Why it was (or would be) rebuilt: `new`, `forced`, `settings changed`, `FILE changed`...
    pub reason: Option<String>,
    /// Warnings of its model, and about files of an earlier run it left.
    pub warnings: Vec<String>,
    /// Files an earlier run of it wrote that this one did not, removed (as paths from the
    /// working folder).
    pub removed: Vec<PathBuf>,
}

impl EntryReport {
    /// One line, as `bake` prints it: `robot-walk: built (1.2 s)`, `robot-walk: up to date`,
    /// `robot-walk: FAIL: reason`, `robot-walk: would build (new)`. Control characters in
    /// names and messages are escaped.
    pub fn line(&self) -> String {
        let line = match self.status {
            Status::Built => format!("{}: built ({:.1} s)", self.name, self.seconds),
            Status::UpToDate => format!("{}: up to date", self.name),
            Status::Failed => format!("{}: FAIL: {}", self.name, self.error.as_deref().unwrap_or("")),
            Status::WouldBuild => format!("{}: would build ({})", self.name, self.reason.as_deref().unwrap_or("")),
        };
        crate::terminal::escape_control(&line).into_owned()
    }
}

/// What a run did.
#[derive(Debug, Clone)]
pub struct Report {
    /// Every selected entry, in file order.
    pub entries: Vec<EntryReport>,
    /// The state file read (and written, unless a dry run).
    pub state: PathBuf,
    /// Problems with the state file (ignored, or not written).
    pub warnings: Vec<String>,
}

impl Report {
    /// How many entries ended with `status`.
    pub fn count(&self, status: Status) -> usize {
        self.entries.iter().filter(|e| e.status == status).count()
    }

    /// The last line `bake` prints: `3 built, 2 up to date, 0 failed` (a dry run: `3 would
    /// build, 2 up to date`).
    pub fn totals(&self) -> String {
        let up_to_date = self.count(Status::UpToDate);
        match self.count(Status::WouldBuild) {
            0 => format!(
                "{} built, {up_to_date} up to date, {} failed",
                self.count(Status::Built),
                self.count(Status::Failed)
            ),
            n => format!("{n} would build, {up_to_date} up to date"),
        }
    }
}

/// An entry to rebuild, planned: what it bakes, writes and reads.
struct Planned {
    resolved: Resolved,
    outputs: Vec<PathBuf>,
    inputs: Vec<PathBuf>,
    seconds: f64,
}

/// What was decided about an entry so far.
enum Step {
    /// Up to date: its record stays.
    Fresh(Record),
    /// To rebuild, and why.
    Stale(String),
    /// To rebuild, planned.
    Planned(String, Box<Planned>),
    /// Built: its new record.
    Built { reason: String, record: Record, notes: Notes, outputs: Vec<PathBuf>, seconds: f64 },
    /// Failed: why it was to be rebuilt, why it failed, seconds spent.
    Failed { reason: String, error: String, seconds: f64 },
}

/// What baking an entry did besides writing its outputs.
struct Notes {
    /// Its model's warnings, and warnings about files of an earlier run left in place.
    warnings: Vec<String>,
    /// Files of an earlier run removed.
    removed: Vec<PathBuf>,
}

/// The entries a run does not bake (another shard's, or left out by name): planned (each
/// [`Step::Planned`], or [`Step::Failed`] when its model does not load) or as recorded
/// ([`Step::Fresh`]), never baked. A run that builds anything checks the whole project's
/// outputs and inputs, as a run of every entry does, so that it refuses what that run refuses
/// and its clean-up leaves every file another entry writes or reads.
#[derive(Default)]
struct Elsewhere<'e> {
    entries: Vec<&'e Entry>,
    steps: Vec<Step>,
}

/// What a run must leave alone and where it records entries, for [`Project::bake`].
struct Ledger<'a> {
    /// The entries' last records.
    old: &'a State,
    /// Every file the run writes or reads, by canonical location, with the entry of this run
    /// that writes it (`None`: read, or written by no entry being built): never removed as an
    /// earlier run's, but by the entry that writes it (a sheet plans more pages than it
    /// writes).
    keep: HashMap<PathBuf, Option<usize>>,
    /// The state file's journal.
    journal: PathBuf,
}

/// Runs `work` on the steps `busy` selects, at most `at_once` at a time, each batch in
/// parallel; the other steps stay as they are.
fn in_batches(
    entries: &[&Entry],
    steps: Vec<Step>,
    at_once: usize,
    busy: fn(&Step) -> bool,
    work: impl Fn(&Entry, Step) -> Step + Sync,
) -> Vec<Step> {
    let mut slots: Vec<Option<Step>> = steps.into_iter().map(Some).collect();
    let todo: Vec<usize> =
        (0..slots.len()).filter(|&i| slots.get(i).is_some_and(|s| s.as_ref().is_some_and(busy))).collect();
    for batch in todo.chunks(at_once.max(1)) {
        let taken: Vec<(usize, &Entry, Step)> =
            batch.iter().filter_map(|&i| Some((i, *entries.get(i)?, slots.get_mut(i)?.take()?))).collect();
        let done: Vec<(usize, Step)> = taken.into_par_iter().map(|(i, entry, step)| (i, work(entry, step))).collect();
        for (i, step) in done {
            if let Some(slot) = slots.get_mut(i) {
                *slot = Some(step);
            }
        }
    }
    slots.into_iter().flatten().collect()
}

impl Project {
    /// Reads and validates a project file.
    ///
    /// # Errors
    /// Unreadable file, not a regular file, larger than [`MAX_PROJECT_BYTES`], not UTF-8, TOML
    /// syntax, unknown tables or keys and bad values (named with their entry and line), entries
    /// without a `name` or `output`, duplicate names.
    pub fn load(path: &Path) -> Result<Project> {
        Project::parse(&read_toml_text(path, MAX_PROJECT_BYTES, "project files")?, path)
    }

    /// The same project with `folders` allowed besides its own for the paths entries name
    /// (`bake --allow-dir`).
    ///
    /// # Errors
    /// A folder that does not exist.
    pub fn allowing(mut self, folders: &[PathBuf]) -> Result<Project> {
        self.scope = self.scope.allowing(folders)?;
        Ok(self)
    }

    /// Parses project text; `path` names it in errors and anchors relative paths.
    ///
    /// # Errors
    /// As [`Project::load`], except reading.
    pub fn parse(text: &str, path: &Path) -> Result<Project> {
        let (mut table, defaults) = parse_with_defaults(text, path)?;
        let mut raw = Vec::new();
        for kind in Kind::ALL {
            let values = take_entries(&mut table, kind.table(), path)?;
            let lines = header_lines(text, kind.table());
            if lines.len() != values.len() {
                return Err(Error::in_file(
                    path,
                    format!(
                        "{} [[{kind}]] entries but {} lines starting with `[[{kind}]]`: write each \
                     entry as a [[{kind}]] table with its header on a line of its own (entries are \
                     numbered by their header lines)",
                        values.len(),
                        lines.len()
                    ),
                ));
            }
            raw.extend(lines.into_iter().zip(values).map(|(line, value)| (line, kind, value)));
        }
        if let Some(key) = table.keys().next() {
            let known = std::iter::once("defaults").chain(Kind::ALL.map(Kind::table));
            return Err(Error::in_file(
                path,
                format!(
                    "{} (a project file has [defaults] and [[sheet]], [[gif]], [[frames]], \
                 [[thumbnail]] and [[render]] tables)",
                    UnknownName::new("table", key, known, "")
                ),
            ));
        }
        if let Some(defaults) = &defaults {
            if let Some(key) = ENTRY_KEYS.iter().find(|k| defaults.contains_key(**k)) {
                return Err(Error::in_entry(path, "[defaults]", None, format!("`{key}` belongs in each entry")));
            }
            BakeSpec::from_table(defaults, &[])
                .map_err(|e| Error::in_entry(path, "[defaults]", None, e.to_string()))?;
        }
        raw.sort_by_key(|(line, _, _)| *line);
        let mut entries: Vec<Entry> = Vec::with_capacity(raw.len());
        let mut named: HashMap<String, usize> = HashMap::with_capacity(raw.len());
        for (index, (line, kind, value)) in raw.into_iter().enumerate() {
            let entry = Entry::parse(path, index, line, kind, value, defaults.as_ref())?;
            if let Some(first) = named.insert(entry.name.clone(), index).and_then(|i| entries.get(i)) {
                return Err(Error::in_file(
                    path,
                    format!(
                        "{} and {} have the same name (names are unique in a project file)",
                        first.label(),
                        entry.label()
                    ),
                ));
            }
            entries.push(entry);
        }
        let dir = path.parent().unwrap_or(Path::new(".")).to_path_buf();
        let scope = Confinement::for_project(&dir);
        let root = std::fs::canonicalize(scope.home()).unwrap_or_else(|_| scope.home().to_path_buf());
        Ok(Project { path: path.to_path_buf(), scope, entries, root })
    }

    /// The state file of a run: `<project file name>.state.json` beside the project file, or
    /// with a shard `<project file name>.shard-I-of-N.state.json` (I from 1), so that shards
    /// running side by side keep their own.
    pub fn state_path(&self, shard: Option<(usize, usize)>) -> PathBuf {
        let name = self.path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let shard = shard.map(|(i, n)| format!(".shard-{}-of-{n}", i + 1)).unwrap_or_default();
        self.path.with_file_name(format!("{name}{shard}.state.json"))
    }

    /// The entries of a shard (all without one), in file order.
    pub fn selected(&self, shard: Option<(usize, usize)>) -> Vec<&Entry> {
        self.entries.iter().filter(|e| shard.is_none_or(|(i, n)| e.index % n.max(1) == i)).collect()
    }

    /// `path` (relative to the project's folder, or absolute) from the working folder.
    fn joined(&self, path: impl AsRef<Path>) -> PathBuf {
        match self.scope.home() {
            home if home == Path::new(".") => path.as_ref().to_path_buf(),
            home => home.join(path),
        }
    }

    /// How the state file records `path` (joined to the project's folder): as the project
    /// names it, relative to the folder, with no link resolved (`./` and doubled slashes
    /// dropped; `..` kept, since it may follow a link). A link re-pointed since then shows as a
    /// change of what the recorded path leads to.
    fn stored(&self, path: &Path) -> String {
        plain(path.strip_prefix(self.scope.home()).unwrap_or(path))
    }

    /// A path as the state file records it, from the working folder.
    fn recorded(&self, stored: &str) -> PathBuf {
        self.joined(stored)
    }

    /// How the state file records the files a bake of `spec` (anchored) read, `inputs`: the
    /// files the entry names as written ([`Project::stored`]). A file its model names is known
    /// only by its canonical path, so it is recorded through the folder of a file the entry
    /// names (or a `texture_root`) that holds it, as written: `assets/tower_bricks.png` when
    /// `assets` is a link, so that re-pointing the link shows as a change. Failing that, it
    /// is recorded relative to the project's canonical folder, or whole.
    fn stored_inputs(&self, spec: &BakeSpec, inputs: &[PathBuf]) -> Vec<(String, PathBuf)> {
        let named = spec.named_files();
        let parents = named.iter().filter_map(|p| p.parent()).map(Path::to_path_buf);
        let mut folders: Vec<(PathBuf, PathBuf)> = parents
            .chain(spec.model.texture_root.iter().cloned())
            .filter_map(|folder| Some((std::fs::canonicalize(&folder).ok()?, folder)))
            .collect();
        // The deepest folder first.
        folders.sort_by_key(|(canonical, _)| std::cmp::Reverse(canonical.components().count()));
        let store = |path: &PathBuf| {
            if named.contains(path) {
                return self.stored(path);
            }
            let through = folders.iter().find_map(|(c, f)| Some(f.join(path.strip_prefix(c).ok()?)));
            match through {
                Some(via) => self.stored(&via),
                None => path.strip_prefix(&self.root).unwrap_or(path).to_string_lossy().into_owned(),
            }
        };
        inputs.iter().map(|p| (store(p), p.clone())).collect()
    }

    /// The files `entry`'s output can name, as the state file records them (see `cover.rs`).
    fn names<'p>(&'p self, entry: &Entry) -> Names<impl Fn(&Path) -> String + 'p> {
        Names::of(entry, move |p: &Path| self.stored(&self.joined(p)))
    }

    /// The files an entry writes when they do not depend on its model, joined to the folder.
    fn fixed_outputs(&self, entry: &Entry) -> Vec<(PathBuf, OutputFormat)> {
        let spec = &entry.spec;
        let plan = entry.kind.product().fixed_plan(&entry.output, spec.layout.json_format.into(), &spec.look.maps);
        plan.map(|p| p.outputs().iter().map(|o| (self.joined(&o.path), o.format)).collect()).unwrap_or_default()
    }

    /// Every file an entry writes, joined to the folder. The output is expanded as written
    /// and joined afterwards, so braces in the folder's own name are never placeholders.
    fn outputs_of(&self, entry: &Entry, loaded: &Loaded, resolved: &Resolved) -> Result<OutputPlan> {
        let mut plan = OutputPlan::new();
        for o in entry.kind.product().plan(&entry.output, loaded, resolved)?.outputs() {
            plan.add(self.joined(&o.path), o.format);
        }
        Ok(plan)
    }

    /// What an entry will write as far as known without loading: its fixed outputs, or its
    /// frame pattern.
    fn expected_outputs(&self, entry: &Entry) -> Vec<PathBuf> {
        match entry.kind {
            Kind::Frames => vec![self.joined(&entry.output)],
            _ => self.fixed_outputs(entry).into_iter().map(|(p, _)| p).collect(),
        }
    }

    /// A refusal of the whole run.
    fn refused(&self, e: impl fmt::Display) -> Error {
        Error::Refused(format!("{}: {e}", self.path.display()))
    }

    /// Checks that `path`, an output of `entry`, stays inside the allowed folders and is no
    /// state file of the project.
    fn check_inside(&self, entry: &Entry, path: &Path) -> Result<()> {
        let subject = format!("{}: output '{}'", entry.label(), path.display());
        self.scope.place(path).map_err(|d| self.refused(d.into_error(path, &subject)))?;
        self.check_not_state(path, &subject)
    }

    /// Refuses `path`, an output (`subject` in the message), when it lands on a state file or
    /// journal of the project, of any shard ([`is_state_name`]): shards sharing a folder keep
    /// each other's records, and a run never writes over the one it reads.
    fn check_not_state(&self, path: &Path, subject: &str) -> Result<()> {
        let project = self.path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
        let Some(location) = canonical_lenient(path) else { return Ok(()) };
        let name = location.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
        if location.parent() != Some(self.root.as_path()) || !is_state_name(&name, &project) {
            return Ok(());
        }
        // Named where it lands when the output reaches it another way (through a link).
        let state = self.joined(&*name);
        let at = if state == path { String::new() } else { format!(" ({})", state.display()) };
        Err(self.refused(format!(
            "{subject} is a state file of this project{at}: each shard's state file and journal are kept \
             for its runs, whichever shard runs"
        )))
    }

    /// Checks every output of the run (the entries', the state file, the caller's) against
    /// the others (naming the two entries) and against `inputs`, and with `writable` that each
    /// can be written.
    fn check_outputs(
        &self,
        outputs: &[(&Entry, PathBuf, OutputFormat)],
        inputs: &[PathBuf],
        writable: bool,
        options: &RunOptions,
    ) -> Result<()> {
        let mut owners: HashMap<PathBuf, &Entry> = HashMap::new();
        let mut plan = OutputPlan::new();
        let [journal, lock, state] = state_files(&self.state_path(options.shard));
        plan.add(journal, OutputFormat::Copy);
        plan.add(lock, OutputFormat::Copy);
        plan.add(state, OutputFormat::Json);
        for extra in &options.extra_outputs {
            plan.add(extra, OutputFormat::Copy);
        }
        for (entry, path, format) in outputs {
            let location = canonical_lenient(path).unwrap_or_else(|| path.clone());
            if let Some(other) = owners.insert(location, entry)
                && other.index != entry.index
            {
                return Err(self.refused(format!(
                    "{} and {} both write {}",
                    other.label(),
                    entry.label(),
                    path.display()
                )));
            }
            plan.add(path, *format);
        }
        let checked = if writable { plan.check(inputs) } else { plan.check_distinct(inputs) };
        checked.map_err(|e| self.refused(e))
    }

    /// Step 1: what is known without loading: outputs inside, no two entries on one file, no
    /// output on a file an entry names (every entry, whatever the shard, so all shards agree).
    fn check_fixed(&self, options: &RunOptions) -> Result<()> {
        let mut outputs = Vec::new();
        for entry in &self.entries {
            if entry.kind == Kind::Frames {
                let pattern = FramePattern::parse(&entry.output)?;
                self.check_inside(entry, &self.joined(pattern.path("clip", 0, "S", 0)))?;
            }
            for (path, format) in self.fixed_outputs(entry) {
                self.check_inside(entry, &path)?;
                outputs.push((entry, path, format));
            }
        }
        for extra in &options.extra_outputs {
            self.check_not_state(extra, &format!("output '{}'", extra.display()))?;
        }
        let mut inputs: Vec<PathBuf> =
            self.entries.iter().flat_map(|e| e.spec.named_files()).map(|p| self.joined(p)).collect();
        inputs.push(self.path.clone());
        self.check_outputs(&outputs, &inputs, false, options)
    }

    /// Why `entry`'s `record` (`current`: of its settings as they are now) is not believed,
    /// if it is not: it names a path in a form no run records, or (when current) it cannot
    /// cover what a bake of the entry writes (see `cover.rs`). An earlier run's record is
    /// believed only to name files to remove, which its entry's output must name now.
    fn distrust(&self, entry: &Entry, record: &Record, current: bool) -> Option<String> {
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
    fn freshness(
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

    /// Step 3 for one entry: loads it to learn every file it writes and reads.
    fn plan(&self, entry: &Entry, events: &(dyn Fn(Event) + Sync)) -> Result<Planned> {
        let start = Instant::now();
        let resolved = entry.spec.anchored(&self.scope)?.resolve()?;
        let loaded = super::load(&resolved)?;
        let plan = self.outputs_of(entry, &loaded, &resolved)?;
        for o in plan.outputs() {
            self.check_inside(entry, &o.path)?;
        }
        // Each output's own form here (extension, no folder in the way); an output on a file
        // this or any entry reads is checked with the whole run's (step 3's refusal), so an
        // entry writing over its own texture stops the run rather than failing alone.
        plan.check(&[])?;
        events(Event::Planned(entry.kind.product().image_count(&loaded, &resolved)?));
        let outputs = plan.outputs().iter().map(|o| o.path.clone()).collect();
        Ok(Planned { resolved, outputs, inputs: loaded.inputs, seconds: start.elapsed().as_secs_f64() })
    }

    /// `step` planned when it is [`Step::Stale`] (failed when the entry cannot be), else as it is.
    fn planned(&self, entry: &Entry, step: Step, events: &(dyn Fn(Event) + Sync)) -> Step {
        let Step::Stale(reason) = step else { return step };
        let start = Instant::now();
        match self.plan(entry, events) {
            Ok(planned) => Step::Planned(reason, Box::new(planned)),
            Err(e) => Step::Failed { reason, error: e.to_string(), seconds: start.elapsed().as_secs_f64() },
        }
    }

    /// Step 3 for the entries a run does not bake, `selected` being those it bakes: see
    /// [`Elsewhere`]. An entry of the shard (`in_shard`) left out by name stands for what its
    /// record in `state` says it writes and reads, unloaded; the others (another shard's, or
    /// one without a record) are planned. Their images are not counted in the progress.
    fn plan_elsewhere<'p>(
        &'p self,
        selected: &[&Entry],
        in_shard: &[&Entry],
        state: &State,
        at_once: usize,
    ) -> Elsewhere<'p> {
        let ours: HashSet<usize> = selected.iter().map(|e| e.index).collect();
        let shard: HashSet<usize> = in_shard.iter().map(|e| e.index).collect();
        let entries: Vec<&Entry> = self.entries.iter().filter(|e| !ours.contains(&e.index)).collect();
        let recorded = |e: &Entry| state.entries.get(&e.name).filter(|_| shard.contains(&e.index)).cloned();
        let step = |e: &&Entry| match recorded(e) {
            Some(record) => Step::Fresh(record),
            None => Step::Stale("not baked in this run".into()),
        };
        let steps = entries.iter().map(step).collect();
        let quiet = |_: Event| {};
        let stale = |s: &Step| matches!(s, Step::Stale(_));
        let steps = in_batches(&entries, steps, at_once, stale, |entry, step| self.planned(entry, step, &quiet));
        Elsewhere { entries, steps }
    }

    /// Step 4 for one entry: bakes and writes it, removes what its last run wrote and this one
    /// did not, records it in the journal, and returns its record.
    fn bake(
        &self,
        entry: &Entry,
        planned: &Planned,
        hashes: &Hashes,
        ledger: &Ledger,
        events: &(dyn Fn(Event) + Sync),
    ) -> Result<(Record, Notes)> {
        let resolved = &planned.resolved;
        let max = resolved.limits.max_file_bytes;
        // Inputs are hashed before they are read again: a file that changes during the bake
        // then shows as changed on the next run.
        for path in &planned.inputs {
            hashes.of(&self.scope, path, max);
        }
        let loaded = super::load(resolved)?;
        let plan = self.outputs_of(entry, &loaded, resolved)?;
        if plan.outputs().iter().map(|o| &o.path).ne(planned.outputs.iter()) {
            return Err(Error::Invalid(
                "its outputs changed after they were planned (a file changed during the run); run again".into(),
            ));
        }
        plan.check(&loaded.inputs)?;
        let budget = resolved.limits.budget();
        let product = entry.kind.product();
        let mut transaction = Transaction::new();
        let mut staged = InProject { project: self, transaction: &mut transaction, written: Vec::new() };
        let rendered = || events(Event::Rendered);
        pipeline::write(product, &loaded, resolved, &entry.output, &budget, &rendered, &mut staged)?;
        let record = Record {
            settings: settings_hash(entry).unwrap_or_default(),
            keys: settings_keys(entry),
            inputs: self
                .stored_inputs(&resolved.spec, &loaded.inputs)
                .into_iter()
                .map(|(stored, p)| (stored, hashes.of(&self.scope, &p, max)))
                .collect(),
            outputs: staged.written.into_iter().collect(),
        };
        let old = ledger.old.entries.get(&entry.name).map(|r| &r.outputs);
        let gone = old.into_iter().flatten().filter(|(p, _)| !record.outputs.contains_key(*p));
        // Only files its output can name: the record is untrusted (see `cover.rs`).
        let names = self.names(entry);
        let (stale, foreign): (Vec<(&String, &Written)>, Vec<_>) = gone.partition(|(p, _)| names.could_write(p));
        let stale_paths: Vec<PathBuf> = stale.iter().map(|(p, _)| self.recorded(p)).collect();
        let mut notes = Notes { warnings: loaded.warnings, removed: Vec::new() };
        notes.warnings.extend(self.left_in_place(foreign.into_iter().map(|(p, _)| p)));
        // Removed and recorded under the commit's locks: another spritebake writing there waits
        // for the folder as this entry leaves it, and an interrupt waits for the record.
        let also: Vec<&Path> = stale_paths.iter().map(PathBuf::as_path).chain([ledger.journal.as_path()]).collect();
        transaction.commit_then(&also, || {
            for ((stored, written), path) in stale.iter().zip(&stale_paths) {
                self.remove_stale(entry, stored, path, written, &ledger.keep, &mut notes);
            }
            if let Err(e) = append_record(&ledger.journal, &entry.name, &record) {
                notes.warnings.push(format!("not recorded until the run ends: {e}"));
            }
        })?;
        Ok((record, notes))
    }

    /// A warning naming the files of `stored` (as the state file records them) that exist: an
    /// earlier run of an entry recorded them, and its output cannot name them now.
    fn left_in_place<'s>(&self, stored: impl Iterator<Item = &'s String>) -> Option<String> {
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
    fn remove_stale(
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

    /// Step 3, across entries: every output of the run (and of the entries `elsewhere`)
    /// against every other and against every file any entry reads, before anything renders.
    /// Returns, when an entry is to be built, [`Ledger::keep`]: every file the run writes or
    /// reads, with the files that entries neither built nor up to date last wrote, the state
    /// file's, every file an entry of the project names and those other shards' entries write
    /// and read.
    fn check_planned(
        &self,
        entries: &[&Entry],
        steps: &[Step],
        elsewhere: &Elsewhere,
        old: &State,
        options: &RunOptions,
    ) -> Result<HashMap<PathBuf, Option<usize>>> {
        let mut outputs = Vec::new();
        let mut inputs = vec![self.path.clone()];
        let mut others = Vec::new();
        // Of each output, the entry that writes it if it is to be built here.
        let mut writers = Vec::new();
        let ours = entries.iter().zip(steps).map(|(entry, step)| (entry, step, true));
        let theirs = elsewhere.entries.iter().zip(&elsewhere.steps).map(|(entry, step)| (entry, step, false));
        for (entry, step, built_here) in ours.chain(theirs) {
            match step {
                Step::Fresh(record) => {
                    outputs.extend(record.outputs.keys().map(|p| (*entry, self.recorded(p), OutputFormat::Copy)));
                    writers.resize(outputs.len(), None);
                    inputs.extend(record.inputs.keys().map(|p| self.recorded(p)));
                }
                Step::Planned(_, planned) => {
                    outputs.extend(planned.outputs.iter().map(|p| (*entry, p.clone(), OutputFormat::Copy)));
                    writers.resize(outputs.len(), built_here.then_some(entry.index));
                    inputs.extend(planned.inputs.iter().cloned());
                }
                _ => {
                    inputs.extend(entry.spec.named_files().into_iter().map(|p| self.joined(p)));
                    let last = old.entries.get(&entry.name).map(|r| &r.outputs);
                    others.extend(last.into_iter().flat_map(|o| o.keys()).map(|p| self.recorded(p)));
                }
            }
        }
        self.check_outputs(&outputs, &inputs, true, options)?;
        if !steps.iter().any(|s| matches!(s, Step::Planned(..))) {
            return Ok(HashMap::new());
        }
        let location = |p: &Path| canonical_lenient(p).unwrap_or_else(|| p.to_path_buf());
        let mut keep: HashMap<PathBuf, Option<usize>> = HashMap::new();
        for ((_, path, _), writer) in outputs.iter().zip(writers) {
            keep.insert(location(path), writer);
        }
        let state = self.state_path(options.shard);
        // The outputs of other shards' entries, as far as known without loading them.
        let selected: HashSet<usize> = entries.iter().map(|e| e.index).collect();
        let other_shards = self.entries.iter().filter(|e| !selected.contains(&e.index));
        let fixed = other_shards.flat_map(|e| self.fixed_outputs(e)).map(|(p, _)| p);
        // Whatever a record or a plan left out, no file an entry names is an earlier run's.
        let named = self.entries.iter().flat_map(|e| e.spec.named_files()).map(|p| self.joined(p));
        let rest =
            inputs.into_iter().chain(others).chain(options.extra_outputs.iter().cloned()).chain(fixed).chain(named);
        for path in rest.chain(state_files(&state)) {
            keep.insert(location(&path), None);
        }
        Ok(keep)
    }

    /// The up-to-date entries (by position in `entries`) whose records take part in a clash
    /// of the run (the entries `elsewhere` included), each with what its record says: an
    /// output another entry writes or any entry reads, an input an entry writes (see
    /// `clash.rs`).
    fn clashing_records(
        &self,
        entries: &[&Entry],
        steps: &[Step],
        elsewhere: &Elsewhere,
        options: &RunOptions,
    ) -> Vec<(usize, String)> {
        let mut uses = Uses::default();
        // The entries elsewhere numbered after this run's.
        let everyone = entries.iter().chain(&elsewhere.entries).zip(steps.iter().chain(&elsewhere.steps));
        for (i, (entry, step)) in everyone.enumerate() {
            match step {
                Step::Fresh(record) => {
                    record.outputs.keys().for_each(|p| uses.add(&self.recorded(p), Some(i), Role::Writes));
                    record.inputs.keys().for_each(|p| uses.add(&self.recorded(p), Some(i), Role::Reads));
                }
                Step::Planned(_, planned) => {
                    planned.outputs.iter().for_each(|p| uses.add(p, Some(i), Role::Writes));
                    planned.inputs.iter().for_each(|p| uses.add(p, Some(i), Role::Reads));
                }
                _ => entry.spec.named_files().iter().for_each(|p| uses.add(&self.joined(p), Some(i), Role::Reads)),
            }
        }
        let state = self.state_path(options.shard);
        for path in state_files(&state).iter().chain(&options.extra_outputs) {
            uses.add(path, None, Role::Writes);
        }
        uses.add(&self.path, None, Role::Reads);
        let mut clashing = Vec::new();
        for (i, step) in steps.iter().enumerate() {
            let Step::Fresh(record) = step else { continue };
            let outputs = record.outputs.keys().map(|p| (p, Role::Writes, "output"));
            let inputs = record.inputs.keys().map(|p| (p, Role::Reads, "input"));
            let why = outputs.chain(inputs).find_map(|(stored, role, what)| {
                let path = self.recorded(stored);
                let why = uses.clash(&path, i, role)?;
                Some(format!("names {} as its {what}, which {why}", path.display()))
            });
            clashing.extend(why.map(|why| (i, why)));
        }
        clashing
    }

    /// The report of an entry's last step.
    fn report(&self, entry: &Entry, step: Step, dry_run: bool) -> EntryReport {
        let mut report = EntryReport {
            name: entry.name.clone(),
            kind: entry.kind,
            outputs: self.expected_outputs(entry),
            status: Status::UpToDate,
            seconds: 0.0,
            error: None,
            reason: None,
            warnings: Vec::new(),
            removed: Vec::new(),
        };
        match step {
            Step::Fresh(record) => report.outputs = record.outputs.keys().map(|p| self.joined(p)).collect(),
            Step::Stale(reason) | Step::Planned(reason, _) => {
                // Only a dry run leaves entries unbaked.
                report.status = if dry_run { Status::WouldBuild } else { Status::Failed };
                report.reason = Some(reason);
            }
            Step::Built { reason, notes, outputs, seconds, .. } => {
                (report.status, report.reason, report.seconds) = (Status::Built, Some(reason), seconds);
                (report.outputs, report.warnings, report.removed) = (outputs, notes.warnings, notes.removed);
            }
            Step::Failed { reason, error, seconds } => {
                (report.status, report.reason, report.seconds) = (Status::Failed, Some(reason), seconds);
                report.error = Some(error);
            }
        }
        report
    }

    /// Runs the project: see the module notes. `events` hears of planned entries and rendered
    /// images, from any thread.
    ///
    /// # Errors
    /// A refusal of the whole run, before anything renders: an output outside the allowed
    /// folders, two entries writing one file, an output on a file an entry reads, an output
    /// that cannot be written. An entry that fails is not an error: its report says why.
    pub fn run(&self, options: &RunOptions, events: &(dyn Fn(Event) + Sync)) -> Result<Report> {
        let state_path = self.state_path(options.shard);
        let journal = journal_path(&state_path);
        self.check_fixed(options)?;
        // From before the state file is read until it is written anew: another run of this
        // project (another version of it) waits, then reads what this one recorded (see
        // `state.rs`). A dry run writes nothing, and takes no lock.
        let mut lock_warnings = Vec::new();
        let _lock = match options.dry_run {
            true => None,
            false => match lock_state(&state_path) {
                Ok((lock, waited)) => {
                    lock_warnings.extend(waited);
                    Some(lock)
                }
                Err(warning) => {
                    lock_warnings.push(warning);
                    None
                }
            },
        };
        let (mut state, mut warnings) = read_state(&state_path);
        warnings.splice(0..0, lock_warnings);
        let in_shard = self.selected(options.shard);
        let chosen = |e: &&Entry| options.only.as_ref().is_none_or(|names| names.contains(&e.name));
        let selected: Vec<&Entry> = in_shard.iter().copied().filter(chosen).collect();
        // A name of another shard's entry bakes nothing here: said, not silent.
        let named = options.only.iter().flatten();
        let elsewhere: Vec<String> =
            named.filter(|n| !selected.iter().any(|e| &e.name == *n)).map(|n| format!("'{n}'")).collect();
        if !elsewhere.is_empty() {
            warnings.push(format!("{} not baked: another shard's entries", elsewhere.join(", ")));
        }
        let hashes = Hashes::default();
        // Each step, and why the entry's record is not believed (see `cover.rs`).
        let judged: Vec<(Step, Option<String>)> = selected
            .par_iter()
            .map(|entry| {
                let settings = settings_hash(entry);
                let record = state.entries.get(&entry.name);
                let current = record.filter(|r| settings.as_ref() == Some(&r.settings));
                let distrust = record.and_then(|r| self.distrust(entry, r, current.is_some()));
                let step = match (options.force, &distrust) {
                    (true, _) => Step::Stale("forced".into()),
                    (false, Some(_)) => Step::Stale("its record is not believed".into()),
                    (false, None) => match self.freshness(entry, record, current, &hashes) {
                        Ok(record) => Step::Fresh(record),
                        Err(reason) => Step::Stale(reason),
                    },
                };
                (step, distrust)
            })
            .collect();
        let mut steps = Vec::with_capacity(judged.len());
        for (entry, (step, distrust)) in selected.iter().zip(judged) {
            if let Some(why) = distrust {
                warnings.push(format!("{}: its record in the state file {why}; it is rebuilt", entry.label()));
                // Nor is it trusted to say what the entry wrote last time.
                state.entries.remove(&entry.name);
            }
            steps.push(step);
        }
        if !options.dry_run {
            // A job holds its model and, on a budget as large again, its images.
            let per_entry = selected.iter().map(|e| e.spec.limits.limits().max_memory_bytes).max().unwrap_or(0);
            let at_once = models_in_flight(per_entry.saturating_mul(2));
            let stale = |s: &Step| matches!(s, Step::Stale(_));
            let plan = |entry: &Entry, step| self.planned(entry, step, events);
            // Planning (loading, not rendering) every other shard's entry costs a shard that
            // builds nothing too much to pay for nothing: it writes and removes nothing.
            let elsewhere = match steps.iter().any(stale) {
                true => self.plan_elsewhere(&selected, &in_shard, &state, at_once),
                false => Elsewhere::default(),
            };
            steps = in_batches(&selected, steps, at_once, stale, plan);
            // A refusal that records take part in rebuilds their entries instead (see
            // `clash.rs`); each round leaves fewer records, and then only plans can refuse.
            let keep = loop {
                let refusal = match self.check_planned(&selected, &steps, &elsewhere, &state, options) {
                    Ok(keep) => break keep,
                    Err(refusal) => refusal,
                };
                let clashing = self.clashing_records(&selected, &steps, &elsewhere, options);
                if clashing.is_empty() {
                    return Err(refusal);
                }
                for (i, why) in clashing {
                    let (Some(entry), Some(step)) = (selected.get(i), steps.get_mut(i)) else { continue };
                    warnings.push(format!("{}: its record in the state file {why}; it is rebuilt", entry.label()));
                    *step = Step::Stale("its record clashes with the run".into());
                    // Nor is it trusted to say what the entry wrote last time.
                    state.entries.remove(&entry.name);
                }
                steps = in_batches(&selected, steps, at_once, stale, plan);
            };
            let ledger = Ledger { old: &state, keep, journal: journal.clone() };
            let planned = |s: &Step| matches!(s, Step::Planned(..));
            steps = in_batches(&selected, steps, at_once, planned, |entry, step| match step {
                Step::Planned(reason, planned) => {
                    let start = Instant::now();
                    let result = self.bake(entry, &planned, &hashes, &ledger, events);
                    let seconds = planned.seconds + start.elapsed().as_secs_f64();
                    match result {
                        Ok((record, notes)) => {
                            // What it wrote, in planned order: a sheet writes some of the
                            // pages it planned.
                            let written = |p: &PathBuf| record.outputs.contains_key(&self.stored(p));
                            let outputs = planned.outputs.into_iter().filter(written).collect();
                            Step::Built { reason, record, notes, outputs, seconds }
                        }
                        Err(e) => Step::Failed { reason, error: e.to_string(), seconds },
                    }
                }
                other => other,
            });
            // The shard's entries left out by name keep their records.
            let unchosen = in_shard.iter().filter(|e| !chosen(e));
            let kept = unchosen.filter_map(|e| Some((e.name.clone(), state.entries.get(&e.name)?.clone())));
            let kept: Vec<(String, Record)> = kept.collect();
            warnings.extend(self.write_state(&state_path, &journal, &state, kept, &selected, &steps));
        }
        let entries =
            selected.iter().zip(steps).map(|(entry, step)| self.report(entry, step, options.dry_run)).collect();
        Ok(Report { entries, state: state_path, warnings })
    }

    /// Step 5: the records of every entry built or up to date and the `kept` ones, written
    /// atomically when they differ from what was read or a journal holds records, and the
    /// journal removed; a warning when that fails.
    fn write_state(
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

/// Stages an entry's files in the project's folder (an entry names its output relative to
/// it) and keeps each one's name as the state file stores it, with its size and hash.
struct InProject<'p, 't> {
    project: &'p Project,
    transaction: &'t mut Transaction,
    written: Vec<(String, Written)>,
}

impl Stage for InProject<'_, '_> {
    fn stage(&mut self, path: &Path, bytes: &[u8]) -> Result<()> {
        let path = self.project.joined(path);
        self.transaction.stage(&path, bytes)?;
        let written = Written { bytes: bytes.len() as u64, hash: hash_bytes(bytes) };
        self.written.push((self.project.stored(&path), written));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Project> {
        Project::parse(text, Path::new("game/spritebake.toml"))
    }

    const ENTRIES: &str = "[defaults]\nsize = 64\nssaa = 2\n\
        [[thumbnail]]\nname = \"t\"\nmodel = \"m.obj\"\noutput = \"t.png\"\n\
        [[sheet]]\nname = \"s\"\nmodel = \"m.md2\"\nsize = 32\noutput = \"s.png\"\n\
        [[gif]]\nname = \"g\"\nmodel = \"m.md2\"\noutput = \"g.gif\"\n\
        [[thumbnail]]\nname = \"t2\"\nmodel = \"m.obj\"\nyaw = 5\noutput = \"t2.png\"\n";

    #[test]
    fn entries_are_numbered_in_file_order_over_every_kind() {
        let project = parse(ENTRIES).unwrap();
        let names: Vec<(&str, Kind, usize, usize)> =
            project.entries.iter().map(|e| (e.name.as_str(), e.kind, e.index, e.line)).collect();
        assert_eq!(
            names,
            [
                ("t", Kind::Thumbnail, 0, 4),
                ("s", Kind::Sheet, 1, 8),
                ("g", Kind::Gif, 2, 13),
                ("t2", Kind::Thumbnail, 3, 17)
            ]
        );
        let shard = |i, n| project.selected(Some((i, n))).iter().map(|e| e.name.as_str()).collect::<Vec<_>>();
        assert_eq!((shard(0, 2), shard(1, 2)), (vec!["t", "g"], vec!["s", "t2"]));
        assert_eq!(project.selected(None).len(), 4);
    }

    #[test]
    fn thumbnails_start_from_the_thumbnail_defaults_then_defaults_then_their_keys() {
        let project = parse(ENTRIES).unwrap();
        let [t, s, _, t2] = [0, 1, 2, 3].map(|i| &project.entries[i].spec);
        let thumb = BakeSpec::thumbnail();
        assert_eq!((t.view.yaw, t.render.ssaa, t.view.size), (thumb.view.yaw, 2, crate::spec::Size::square(64).into()));
        assert_eq!(t.render.light, thumb.render.light);
        assert_eq!((t2.view.yaw, s.view.yaw), (5.0, 0.0));
        assert_eq!(s.view.size, crate::spec::Size::square(32).into());
    }

    #[test]
    fn state_files_are_named_after_the_project_and_the_shard() {
        let project = parse(ENTRIES).unwrap();
        assert_eq!(project.state_path(None), Path::new("game/spritebake.toml.state.json"));
        assert_eq!(project.state_path(Some((1, 3))), Path::new("game/spritebake.toml.shard-2-of-3.state.json"));
    }

    #[test]
    fn every_shards_state_file_journal_and_lock_has_a_state_name() {
        let project = parse(ENTRIES).unwrap();
        for shard in [None, Some((0, 1)), Some((1, 3)), Some((11, 12))] {
            for path in state_files(&project.state_path(shard)) {
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                assert!(is_state_name(&name, "spritebake.toml"), "{name}");
                assert!(is_state_name(&name.to_uppercase(), "spritebake.toml"), "{name}");
            }
        }
        for name in [
            "spritebake.toml",
            "spritebake.toml.json",
            "spritebake.toml.state.png",
            "spritebake.toml.shard--of-3.state.json",
            "spritebake.toml.shard-1-of-.state.json",
            "spritebake.toml.shard-1-of-3-state.json",
            "other.toml.state.json",
            "xspritebake.toml.state.json",
        ] {
            assert!(!is_state_name(name, "spritebake.toml"), "{name}");
        }
    }

    #[test]
    fn settings_hashes_change_with_any_setting() {
        let project = parse(ENTRIES).unwrap();
        let entry = &project.entries[1];
        let same = settings_hash(entry);
        assert_eq!(same, settings_hash(&entry.clone()));
        let mut other = entry.clone();
        other.spec.render.ambient += 0.01;
        assert_ne!(settings_hash(&other), same);
        let mut other = entry.clone();
        other.output = "s2.png".into();
        assert_ne!(settings_hash(&other), same);
        let mut other = entry.clone();
        other.kind = Kind::Render;
        assert_ne!(settings_hash(&other), same);
    }

    #[test]
    fn climbs_are_the_beginnings_ending_in_dot_dot_after_a_folder() {
        let shown = |p: &str| climbs(Path::new(p)).iter().map(|c| c.display().to_string()).collect::<Vec<_>>();
        assert_eq!(shown("../../a/x/../b/../c.png"), ["../../a/x/..", "../../a/x/../b/.."]);
        assert!(shown("../a.png").is_empty() && shown("a/b.png").is_empty() && shown("/a/b.png").is_empty());
    }

    #[test]
    fn headers_the_numbering_cannot_see_are_refused() {
        let e = parse("[[ sheet ]]\nname = \"s\"\nmodel = \"m.md2\"\noutput = \"s.png\"\n").unwrap_err().to_string();
        assert!(e.contains("1 [[sheet]] entries but 0 lines starting with `[[sheet]]`"), "{e}");
        let e = parse("sheet = [{ name = \"s\", model = \"m.md2\", output = \"s.png\" }]\n").unwrap_err().to_string();
        assert!(e.contains("header on a line of its own"), "{e}");
    }
}
