//! What a run decides about each entry, step by step, and how it works on many at once.

use std::collections::HashMap;
use std::path::PathBuf;

use rayon::prelude::*;

use super::entry::Entry;
use super::state::{Record, State};
use crate::spec::Resolved;

/// An entry to rebuild, planned: what it bakes, writes and reads.
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

/// Runs `work` on the steps `busy` selects, at most `at_once` at a time, each batch in
/// parallel; the other steps stay as they are.
pub(super) fn in_batches(
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
