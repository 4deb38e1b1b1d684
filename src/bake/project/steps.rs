//! What a run decides about each entry, step by step, and how it works on many at once.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicUsize;

use super::entry::Entry;
use super::state::{Record, State};
use crate::budget::{MemoryBudget, run_pooled};
use crate::error::{Error, Result};
use crate::spec::Resolved;

/// An entry to rebuild, planned: what it bakes, writes and reads. No model: the bake loads it
/// again, so an entry waiting to bake holds no memory of a pool (see `Project::bake_planned`).
pub(super) struct Planned {
    pub(super) resolved: Resolved,
    pub(super) outputs: Vec<PathBuf>,
    pub(super) inputs: Vec<PathBuf>,
    pub(super) seconds: f64,
}

/// What was decided about an entry so far.
pub(super) enum Step {
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
pub(super) struct Notes {
    /// Its model's warnings, and warnings about files of an earlier run left in place.
    pub(super) warnings: Vec<String>,
    /// Files of an earlier run removed.
    pub(super) removed: Vec<PathBuf>,
}

/// The entries a run does not bake (another shard's, or left out by name): planned (each
/// [`Step::Planned`], or [`Step::Failed`] when its model does not load) or as recorded
/// ([`Step::Fresh`]), never baked. A run that builds anything checks the whole project's
/// outputs and inputs, as a run of every entry does, so that it refuses what that run refuses
/// and its clean-up leaves every file another entry writes or reads.
#[derive(Default)]
pub(super) struct Elsewhere<'e> {
    pub(super) entries: Vec<&'e Entry>,
    pub(super) steps: Vec<Step>,
}

/// What a run must leave alone and where it records entries, for [`Project::bake`].
pub(super) struct Ledger<'a> {
    /// The entries' last records.
    pub(super) old: &'a State,
    /// Every file the run writes or reads, by canonical location, with the entry of this run
    /// that writes it (`None`: read, or written by no entry being built): never removed as an
    /// earlier run's, but by the entry that writes it (a sheet plans more pages than it
    /// writes).
    pub(super) keep: HashMap<PathBuf, Option<usize>>,
    /// The state file's journal.
    pub(super) journal: PathBuf,
}

/// A step a phase of the run works on ([`pooled`]): its entry and what was decided so far.
pub(super) struct Busy<'s> {
    pub(super) entry: &'s Entry,
    pub(super) step: &'s Step,
    /// Images its attempt in the pool reported rendered: a run alone after it renders them
    /// again, and does not report them twice (see `Project::bake_planned`).
    pub(super) reported: AtomicUsize,
}

/// Runs `work` on the steps `busy` selects, every one in parallel drawing its memory from one
/// pool of `pool_bytes`, and those the pool could not take again alone after the others
/// ([`run_pooled`]); `work` answers `Err` only when the pool could not take its step. The
/// other steps stay as they are.
pub(super) fn pooled(
    entries: &[&Entry],
    mut steps: Vec<Step>,
    pool_bytes: u64,
    busy: fn(&Step) -> bool,
    work: impl Fn(&Busy, Option<&Arc<MemoryBudget>>) -> Result<Step> + Sync,
) -> Vec<Step> {
    let done: Vec<(usize, Step)> = {
        let todo: Vec<(usize, Busy)> = entries
            .iter()
            .zip(&steps)
            .enumerate()
            .filter(|(_, (_, step))| busy(step))
            .map(|(i, (entry, step))| (i, Busy { entry, step, reported: AtomicUsize::new(0) }))
            .collect();
        let failed = |(i, busy): &(usize, Busy), e: Error| {
            (*i, Step::Failed { reason: busy.step.reason().into(), error: e.to_string(), seconds: 0.0 })
        };
        run_pooled(&todo, pool_bytes, |(i, busy), pool| Ok((*i, work(busy, pool)?)), failed)
    };
    for (i, step) in done {
        if let Some(slot) = steps.get_mut(i) {
            *slot = step;
        }
    }
    steps
}

impl Step {
    /// Why the entry is rebuilt; empty for one up to date.
    pub(super) fn reason(&self) -> &str {
        match self {
            Step::Fresh(_) => "",
            Step::Stale(reason) | Step::Planned(reason, _) => reason,
            Step::Built { reason, .. } | Step::Failed { reason, .. } => reason,
        }
    }
}
