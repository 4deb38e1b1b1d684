//! The refusals of a whole run: outputs outside the allowed folders, on a state file, on one
//! another or on a file an entry reads, and the records that take part in a clash.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::path::{Path, PathBuf};

use super::entry::{Entry, Kind};
use super::state::{State, is_state_name, state_files};
use super::steps::{Elsewhere, Step};
use super::types::{Project, RunOptions};
use crate::confine::canonical_lenient;
use crate::error::{Error, Result};
use crate::output::{FramePattern, OutputFormat, OutputPlan, Role, Use, Uses};

impl Project {
    /// A refusal of the whole run.
    fn refused(&self, e: impl fmt::Display) -> Error {
        Error::Refused(format!("{}: {e}", self.path.display()))
    }

    /// Checks that `path`, an output of `entry`, stays inside the allowed folders and is no
    /// state file of the project.
    pub(super) fn check_inside(&self, entry: &Entry, path: &Path) -> Result<()> {
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
    pub(super) fn check_fixed(&self, options: &RunOptions) -> Result<()> {
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

    /// Step 3, across entries: every output of the run (and of the entries `elsewhere`)
    /// against every other and against every file any entry reads, before anything renders.
    /// Returns, when an entry is to be built, [`Ledger::keep`]: every file the run writes or
    /// reads, with the files that entries neither built nor up to date last wrote, the state
    /// file's, every file an entry of the project names and those other shards' entries write
    /// and read.
    pub(super) fn check_planned(
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
    /// output another entry writes or any entry reads, an input an entry writes. The state
    /// file is untrusted, so a record that says so must not refuse the run as an honest plan
    /// would: its entry is rebuilt instead, planned from what it really reads and writes, and
    /// the run is refused only if that clashes. The files are told apart as the output plan
    /// tells them ([`Uses`]), so every clash the plan refuses is found here.
    pub(super) fn clashing_records(
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
                let why = why(role, uses.clash(&path, i, role)?, i);
                Some(format!("names {} as its {what}, which {why}", path.display()))
            });
            clashing.extend(why.map(|why| (i, why)));
        }
        clashing
    }
}

/// Why a use of a file in `role` by the entry at `by` clashes with `other`, for messages.
fn why(role: Role, other: &Use, by: usize) -> &'static str {
    match (role, other.role) {
        (Role::Writes, Role::Writes) if other.by == Some(by) => "it also writes under another name",
        (Role::Writes, Role::Writes) => "another entry writes",
        (Role::Writes, Role::Reads) => "an entry reads",
        (Role::Reads, _) => "an entry writes",
    }
}
