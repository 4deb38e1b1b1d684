//! A run: each entry judged, planned, checked with the others, baked and reported.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use rayon::prelude::*;

use super::entry::Entry;
use super::state::{
    Hashes, Record, State, StateLock, Written, append_record, hash_bytes, journal_path, lock_state, read_state,
    settings_hash, settings_keys,
};
use super::steps::{Busy, Elsewhere, Ledger, Notes, Planned, Step, pooled};
use super::types::{EntryReport, Event, Project, Report, RunOptions, Status};
use crate::bake::load_within;
use crate::bake::product::pipeline::{self, Stage};
use crate::budget::{BATCH_BYTES, MemoryBudget, is_pool_spent};
use crate::error::{Error, Result};
use crate::output::Transaction;

impl Project {
    /// Step 3 for one entry: loads it to learn every file it writes and reads, its model and
    /// attachments drawing on `pool` where there is one.
    fn plan(
        &self,
        entry: &Entry,
        events: &(dyn Fn(Event) + Sync),
        pool: Option<&Arc<MemoryBudget>>,
    ) -> Result<Planned> {
        let start = Instant::now();
        let resolved = entry.spec.anchored(&self.scope)?.resolve()?;
        // The model and its attachments each get a budget, as `bake::load` gives them. A plan
        // keeps none of it: what the loaded model drew on the pool is given back when this
        // returns, so planned entries waiting to bake hold nothing of the bake's pool.
        let budget = || MemoryBudget::in_pool(resolved.load.limits.max_memory_bytes, pool);
        let loaded = load_within(&resolved, &budget(), &budget())?;
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

    /// An entry to rebuild for `reason`, planned (failed when it cannot be); `Err` only when
    /// `pool` could not take it.
    fn planned(
        &self,
        entry: &Entry,
        reason: &str,
        events: &(dyn Fn(Event) + Sync),
        pool: Option<&Arc<MemoryBudget>>,
    ) -> Result<Step> {
        let start = Instant::now();
        let reason = reason.to_owned();
        match self.plan(entry, events, pool) {
            Ok(planned) => Ok(Step::Planned(reason, Box::new(planned))),
            Err(e) if is_pool_spent(&e) => Err(e),
            Err(e) => Ok(Step::Failed { reason, error: e.to_string(), seconds: start.elapsed().as_secs_f64() }),
        }
    }

    /// Step 3 for the `steps` of `entries` to rebuild ([`Step::Stale`]), every one loaded at
    /// once on a pool of `pool_bytes` (those it cannot take again alone, after the others);
    /// the other steps stay as they are.
    fn plan_stale(
        &self,
        entries: &[&Entry],
        steps: Vec<Step>,
        pool_bytes: u64,
        events: &(dyn Fn(Event) + Sync),
    ) -> Vec<Step> {
        let stale = |s: &Step| matches!(s, Step::Stale(_));
        pooled(entries, steps, pool_bytes, stale, |busy, pool| {
            self.planned(busy.entry, busy.step.reason(), events, pool)
        })
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
        pool_bytes: u64,
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
        let steps = self.plan_stale(&entries, steps, pool_bytes, &|_: Event| {});
        Elsewhere { entries, steps }
    }

    /// Step 4 for one entry: bakes and writes it, removes what its last run wrote and this one
    /// did not, records it in the journal, and returns its record. Its model, attachments and
    /// images draw on `pool` where there is one: a charge the pool cannot take fails it before
    /// anything is committed or recorded. `rendered` hears of each image.
    fn bake(
        &self,
        entry: &Entry,
        planned: &Planned,
        (hashes, ledger): (&Hashes, &Ledger),
        rendered: &(dyn Fn() + Sync),
        pool: Option<&Arc<MemoryBudget>>,
    ) -> Result<(Record, Notes)> {
        let resolved = &planned.resolved;
        let max = resolved.limits.max_file_bytes;
        // Inputs are hashed before they are read again: a file that changes during the bake
        // then shows as changed on the next run.
        for path in &planned.inputs {
            hashes.of(&self.scope, path, max);
        }
        // The model and its attachments each get a budget, as `bake::load` gives them, and its
        // images one more.
        let load_budget = || MemoryBudget::in_pool(resolved.load.limits.max_memory_bytes, pool);
        let loaded = load_within(resolved, &load_budget(), &load_budget())?;
        let plan = self.outputs_of(entry, &loaded, resolved)?;
        if plan.outputs().iter().map(|o| &o.path).ne(planned.outputs.iter()) {
            return Err(Error::Invalid(
                "its outputs changed after they were planned (a file changed during the run); run again".into(),
            ));
        }
        plan.check(&loaded.inputs)?;
        let budget = MemoryBudget::in_pool(resolved.limits.max_memory_bytes, pool);
        let product = entry.kind.product();
        let mut transaction = Transaction::new();
        let mut staged = InProject { project: self, transaction: &mut transaction, written: Vec::new() };
        pipeline::write(product, &loaded, resolved, &entry.output, &budget, rendered, &mut staged)?;
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
        self.run_within(options, events, BATCH_BYTES)
    }

    /// As [`Project::run`], the entries planned and baked at once drawing on a pool of
    /// `pool_bytes` (see `bake_planned`).
    pub(crate) fn run_within(
        &self,
        options: &RunOptions,
        events: &(dyn Fn(Event) + Sync),
        pool_bytes: u64,
    ) -> Result<Report> {
        let state_path = self.state_path(options.shard);
        let journal = journal_path(&state_path);
        self.check_fixed(options)?;
        let (_lock, lock_warnings) = lock(&state_path, options.dry_run);
        let (mut state, mut warnings) = read_state(&state_path);
        warnings.splice(0..0, lock_warnings);
        let in_shard = self.selected(options.shard);
        let selected: Vec<&Entry> = in_shard.iter().copied().filter(|e| chosen(options, e)).collect();
        // A name of another shard's entry bakes nothing here: said, not silent.
        let named = options.only.iter().flatten();
        let elsewhere: Vec<String> =
            named.filter(|n| !selected.iter().any(|e| &e.name == *n)).map(|n| format!("'{n}'")).collect();
        if !elsewhere.is_empty() {
            warnings.push(format!("{} not baked: another shard's entries", elsewhere.join(", ")));
        }
        let hashes = Hashes::default();
        let mut steps = self.judge(&selected, &mut state, &hashes, options.force, &mut warnings);
        if !options.dry_run {
            let stale = |s: &Step| matches!(s, Step::Stale(_));
            // Planning (loading, not rendering) every other shard's entry costs a shard that
            // builds nothing too much to pay for nothing: it writes and removes nothing.
            let elsewhere = match steps.iter().any(stale) {
                true => self.plan_elsewhere(&selected, &in_shard, &state, pool_bytes),
                false => Elsewhere::default(),
            };
            steps = self.plan_stale(&selected, steps, pool_bytes, events);
            // A refusal that records take part in rebuilds their entries instead (see
            // `refusals.rs`); each round leaves fewer records, and then only plans can refuse.
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
                steps = self.plan_stale(&selected, steps, pool_bytes, events);
            };
            let ledger = Ledger { old: &state, keep, journal: journal.clone() };
            steps = self.bake_planned(&selected, steps, pool_bytes, (&hashes, &ledger), events);
            // The shard's entries left out by name keep their records.
            let unchosen = in_shard.iter().filter(|e| !chosen(options, e));
            let kept = unchosen.filter_map(|e| Some((e.name.clone(), state.entries.get(&e.name)?.clone())));
            let kept: Vec<(String, Record)> = kept.collect();
            warnings.extend(self.write_state(&state_path, &journal, &state, kept, &selected, &steps));
        }
        let entries =
            selected.iter().zip(steps).map(|(entry, step)| self.report(entry, step, options.dry_run)).collect();
        Ok(Report { entries, state: state_path, warnings })
    }

    /// Step 2 for the entries of the run: each one up to date or to rebuild (and why), from
    /// the state file alone. A record that is not believed (see `cover.rs`) is dropped from
    /// `state`, with a warning, and its entry rebuilt.
    fn judge(
        &self,
        selected: &[&Entry],
        state: &mut State,
        hashes: &Hashes,
        force: bool,
        warnings: &mut Vec<String>,
    ) -> Vec<Step> {
        // Each step, and why the entry's record is not believed (see `cover.rs`).
        let judged: Vec<(Step, Option<String>)> = selected
            .par_iter()
            .map(|entry| {
                let settings = settings_hash(entry);
                let record = state.entries.get(&entry.name);
                let current = record.filter(|r| settings.as_ref() == Some(&r.settings));
                let distrust = record.and_then(|r| self.distrust(entry, r, current.is_some()));
                let step = match (force, &distrust) {
                    (true, _) => Step::Stale("forced".into()),
                    (false, Some(_)) => Step::Stale("its record is not believed".into()),
                    (false, None) => match self.freshness(entry, record, current, hashes) {
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
        steps
    }

    /// Step 4: bakes the planned entries, every one at once drawing on a pool of `pool_bytes`
    /// and those the pool cannot take again alone, after the others ([`pooled`]); each one
    /// then built or failed, the other steps as they are.
    ///
    /// A planned entry holds its resolved spec and the paths it writes and reads, no model (see
    /// `plan`): the entries waiting to bake hold nothing of the pool, which only the entries
    /// baking draw on, and an entry the pool cannot take fails before it commits or records
    /// anything, so running it again alone writes what it would have.
    fn bake_planned(
        &self,
        selected: &[&Entry],
        steps: Vec<Step>,
        pool_bytes: u64,
        ledger: (&Hashes, &Ledger),
        events: &(dyn Fn(Event) + Sync),
    ) -> Vec<Step> {
        let is_planned = |s: &Step| matches!(s, Step::Planned(..));
        pooled(selected, steps, pool_bytes, is_planned, |busy, pool| self.baked(busy, ledger, events, pool))
    }

    /// A planned entry baked: built or failed; `Err` only when `pool` could not take it.
    fn baked(
        &self,
        busy: &Busy,
        ledger: (&Hashes, &Ledger),
        events: &(dyn Fn(Event) + Sync),
        pool: Option<&Arc<MemoryBudget>>,
    ) -> Result<Step> {
        let Step::Planned(reason, planned) = busy.step else {
            return Err(Error::internal("an entry baked before it was planned"));
        };
        // Run alone after the pool could not take it, an entry renders again the images its
        // attempt in the pool rendered: they were counted once.
        let rendered = || {
            let again = |n: usize| n.checked_sub(1);
            if pool.is_some() {
                busy.reported.fetch_add(1, Ordering::SeqCst);
                events(Event::Rendered);
            } else if busy.reported.fetch_update(Ordering::SeqCst, Ordering::SeqCst, again).is_err() {
                events(Event::Rendered);
            }
        };
        let start = Instant::now();
        let result = self.bake(busy.entry, planned, ledger, &rendered, pool);
        let seconds = planned.seconds + start.elapsed().as_secs_f64();
        let reason = reason.clone();
        Ok(match result {
            Ok((record, notes)) => {
                // What it wrote, in planned order: a sheet writes some of the pages it planned.
                let written = |p: &&PathBuf| record.outputs.contains_key(&self.stored(p));
                let outputs = planned.outputs.iter().filter(written).cloned().collect();
                Step::Built { reason, record, notes, outputs, seconds }
            }
            Err(e) if is_pool_spent(&e) => return Err(e),
            Err(e) => Step::Failed { reason, error: e.to_string(), seconds },
        })
    }
}

/// Whether the run bakes `entry` of its shard: every one, or those `only` names.
fn chosen(options: &RunOptions, entry: &Entry) -> bool {
    options.only.as_ref().is_none_or(|names| names.contains(&entry.name))
}

/// The state file's lock, and warnings about it. From before the state file is read until it
/// is written anew: another run of this project (another version of it) waits, then reads
/// what this one recorded (see `state.rs`). A dry run writes nothing, and takes no lock.
fn lock(state_path: &Path, dry_run: bool) -> (Option<StateLock>, Vec<String>) {
    if dry_run {
        return (None, Vec::new());
    }
    match lock_state(state_path) {
        Ok((lock, waited)) => (Some(lock), waited.into_iter().collect()),
        Err(warning) => (None, vec![warning]),
    }
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
    use std::collections::BTreeMap;
    use std::sync::atomic::AtomicUsize;

    use super::*;

    /// Every file under `dir` but the models, by path relative to it.
    fn written(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
        let mut files = BTreeMap::new();
        let mut folders = vec![dir.to_path_buf()];
        while let Some(folder) = folders.pop() {
            for entry in std::fs::read_dir(folder).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    folders.push(path);
                } else if path.extension().is_none_or(|e| e != "obj") {
                    files.insert(path.strip_prefix(dir).unwrap().to_path_buf(), std::fs::read(&path).unwrap());
                }
            }
        }
        files
    }

    #[test]
    fn entries_the_pool_cannot_take_bake_again_alone_with_the_same_result() {
        let dir = std::env::temp_dir().join(format!("spritebake-project-pool-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let text = "[defaults]\nsize = 24\n\
            [[thumbnail]]\nname = \"t\"\nmodel = \"m0.obj\"\noutput = \"out/t.png\"\n\
            [[sheet]]\nname = \"s\"\nmodel = \"m1.obj\"\ndirections = 4\noutput = \"out/s.png\"\n\
            [[frames]]\nname = \"f\"\nmodel = \"m2.obj\"\ndirections = 2\noutput = \"out/f/{clip}_{dir}_{frame:03}.png\"\n\
            [[gif]]\nname = \"g\"\nmodel = \"m1.obj\"\ndirections = 8\noutput = \"out/g.gif\"\n\
            [[render]]\nname = \"r\"\nmodel = \"m0.obj\"\nyaw = 30\noutput = \"out/r.png\"\n";
        let run = |pool_bytes: u64, folder: &str| {
            let home = dir.join(folder);
            std::fs::create_dir_all(&home).unwrap();
            for i in 0..3 {
                let obj = format!("v 0 0 0\nv 1 {i} 0\nv 0 1 1\nf 1 2 3\n");
                std::fs::write(home.join(format!("m{i}.obj")), obj).unwrap();
            }
            let path = home.join("project.toml");
            std::fs::write(&path, text).unwrap();
            let project = Project::load(&path).unwrap();
            // Images planned and images rendered, as a progress bar hears of them.
            let (planned, rendered) = (AtomicUsize::new(0), AtomicUsize::new(0));
            let events = |event: Event| {
                match event {
                    Event::Planned(images) => planned.fetch_add(images, Ordering::SeqCst),
                    Event::Rendered => rendered.fetch_add(1, Ordering::SeqCst),
                };
            };
            let report = project.run_within(&RunOptions::default(), &events, pool_bytes).unwrap();
            let statuses: Vec<Status> = report.entries.iter().map(|e| e.status).collect();
            assert_eq!(statuses, [Status::Built; 5], "{:?}", report.entries);
            assert!(report.warnings.is_empty(), "{:?}", report.warnings);
            let (planned, rendered) = (planned.into_inner(), rendered.into_inner());
            assert_eq!(planned, rendered, "every image planned was reported rendered once");
            (written(&home), planned)
        };
        let roomy = run(BATCH_BYTES, "roomy");
        assert!(roomy.0.keys().any(|p| p.ends_with("project.toml.state.json")), "{:?}", roomy.0.keys());
        // A pool of one byte takes no entry, to plan or to bake; the others take some entries,
        // or an entry until part of it is rendered (a GIF's frames are charged as they come):
        // those run again alone, as they would have, the images of both tries counted once.
        for pool_bytes in std::iter::once(1).chain((1..=32).map(|k| k * (4 << 10))) {
            assert!(run(pool_bytes, &format!("pool-{pool_bytes}")) == roomy, "a pool of {pool_bytes} bytes");
        }
        std::fs::remove_dir_all(dir).unwrap();
    }
}
