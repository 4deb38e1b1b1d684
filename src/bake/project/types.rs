//! A project as parsed, and what a run of it takes and reports.

use std::collections::BTreeSet;
use std::path::PathBuf;

use serde::Serialize;

use super::entry::{Entry, Kind};
use crate::confine::Confinement;

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
    pub(super) root: PathBuf,
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
