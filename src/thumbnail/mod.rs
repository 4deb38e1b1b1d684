//! A thumbnail batch: a good picture of each of many models with no flags, the models in
//! parallel (`spritebake thumbnail`).
//!
//! [`ThumbnailBatch::run`] expands the MODEL arguments (folders walked, glob patterns matched:
//! `scan.rs`), names every thumbnail (`names.rs`), plans every output before anything renders,
//! runs the models drawing their memory from one shared pool (`run.rs`), the scripts (`.qc`,
//! `.def`) first so that the files they read are not rendered again on their own, commits the
//! thumbnails held back, and gives the [`Summary`]: a [`Record`] per model, which
//! [`Summary::write_reports`] writes as `index.html` and JSON (`report.rs`).

mod names;
mod report;
mod run;
mod scan;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

pub use report::{Record, Status};

use crate::error::{ClashKind, Error, Result};
use crate::formats::Format;
use crate::output::{OutputFormat, OutputPlan, write_atomic};
use crate::spec::{BakeSpec, ModelSpec};
use run::{Done, Job, Outcome, Ran};
use scan::{Models, Unreadable, identity};

/// A batch of thumbnails: the models, where their thumbnails go, and the bake every model
/// gets.
#[derive(Debug, Clone)]
pub struct ThumbnailBatch {
    /// Model files, folders (every model file under them, in subfolders too; symbolic links to
    /// folders are not followed) or glob patterns (`models/*.obj`, `assets/**/*.md2`).
    pub models: Vec<PathBuf>,
    /// A folder (created if missing) where each thumbnail's name mirrors the model's path below
    /// the folder or pattern it was found in; or, for one model file (not a folder or a
    /// pattern), a `.png` file.
    pub output: PathBuf,
    /// Every thumbnail directly in the output folder, named after the model's stem (where two
    /// stems are the same: after the folders below the root too).
    pub flat: bool,
    /// Also write `index.html` in the output folder ([`Summary::write_reports`]).
    pub html: bool,
    /// Also write the JSON records to this file ([`Summary::write_reports`]).
    pub json: Option<PathBuf>,
    /// The bake of every model (its model path is replaced by each model's).
    pub base: BakeSpec,
}

/// What a batch did, for the lines a command prints and the reports it writes.
#[derive(Debug)]
pub struct Summary {
    /// One record per folder the scan could not read, then one per model rendered or failed,
    /// in the batch's order.
    pub records: Vec<Record>,
    /// Files left out as parts of models (sequence SMDs, Half-Life sequence groups and texture
    /// files: no triangles of their own).
    pub parts: usize,
    /// Files left out because a `.qc` or `.def` script of the batch reads them.
    pub read_by_scripts: usize,
    /// `animation.cfg` files left out, of no Quake 3 player (without `lower.md3`, `upper.md3`
    /// and `head.md3` beside them).
    pub configs: usize,
    /// Every file left out, with why.
    skipped: Vec<(PathBuf, String)>,
    /// The output folder, as the page names it and links its thumbnails from.
    folder: PathBuf,
    /// Where the index page goes, when asked for.
    html: Option<PathBuf>,
    /// Where the JSON records go, when asked for.
    json: Option<PathBuf>,
}

impl Summary {
    /// How many records failed.
    pub fn failed(&self) -> usize {
        self.records.iter().filter(|r| r.status == Status::Failed).count()
    }

    /// Writes the index page and the JSON records the batch asked for, each atomically.
    ///
    /// # Errors
    /// A file that cannot be written.
    pub fn write_reports(&self) -> Result<()> {
        if let Some(page) = &self.html {
            write_atomic(page, report::index_html(&self.folder, &self.records, &self.skipped).as_bytes())?;
        }
        if let Some(json) = &self.json {
            write_atomic(json, report::json_records(&self.records).as_bytes())?;
        }
        Ok(())
    }
}

impl ThumbnailBatch {
    /// Runs the batch: every option checked once, the models found and every output planned
    /// before any model renders; then every model, a failure failing that model only.
    /// `describe` says an error as the records and the batch's own errors give it (the command
    /// line names options by their flags; `|e| e.to_string()` by their keys).
    ///
    /// # Errors
    /// A refused option, a folder or pattern with no models, an invalid pattern, `html` with
    /// a single file's output, outputs that clash with each other or with an input (naming the
    /// models involved): then nothing is written.
    pub fn run(&self, describe: &dyn Fn(&Error) -> String) -> Result<Summary> {
        let base = &self.base;
        // Every option is checked once, before any model (a model path stands in).
        BakeSpec { model: ModelSpec { model: "model".into(), ..base.model.clone() }, ..base.clone() }.resolve()?;
        let models = scan::expand(&self.models)?;
        let outputs = self.outputs(&models);
        // Every model's output, planned before anything is rendered: an output on any model file
        // or on a file every model reads refuses the whole batch. (An output that cannot be
        // written, such as a folder in the way, fails only its own model, below.)
        let mut plan = OutputPlan::new();
        for out in &outputs {
            plan.add(out, OutputFormat::Png);
        }
        let reports = self.reports(&models)?;
        for report in reports.outputs() {
            plan.add(&report.path, report.format);
        }
        let inputs: Vec<PathBuf> = models.found.iter().map(|f| f.path.clone()).chain(shared_inputs(base)).collect();
        plan.check_distinct(&inputs).map_err(|e| naming_models(e, &models, &outputs, describe))?;
        // A report that exists already may be a file some model reads (its texture, its material
        // library), which is known only once the models have loaded: then every thumbnail waits
        // for that check, so a refused batch writes nothing. (One that does not exist yet is
        // nobody's input.)
        let hold_all = reports.outputs().iter().any(|report| std::fs::symlink_metadata(&report.path).is_ok());
        let jobs: Vec<Job> = models
            .found
            .iter()
            .zip(&outputs)
            .map(|(found, output)| Job { found, output, commit_now: !hold_all && !output.exists() })
            .collect();
        let mut fates = run_scripts_first(&jobs, base);
        if hold_all {
            check_reports(&reports, &jobs, &fates, describe)?;
        }
        commit_held(&jobs, &mut fates);
        Ok(self.summary(&jobs, &fates, &models.unreadable, describe))
    }

    /// One model file named as such and an output `NAME.EXT` that is not an existing folder: the
    /// output is that file (and the plan refuses an extension other than .png); otherwise the
    /// output is a folder (always, when the models came from a folder or a pattern).
    fn single_file(&self, models: &Models) -> bool {
        !models.expanded && models.found.len() == 1 && self.output.extension().is_some() && !self.output.is_dir()
    }

    /// Every model's thumbnail file, in `models`' order.
    fn outputs(&self, models: &Models) -> Vec<PathBuf> {
        if self.single_file(models) {
            return vec![self.output.clone()];
        }
        names::thumbnail_names(&models.found, self.flat).into_iter().map(|name| self.output.join(name)).collect()
    }

    /// The reports the batch writes (the index page, the JSON records), planned as its
    /// thumbnails are.
    fn reports(&self, models: &Models) -> Result<OutputPlan> {
        let mut plan = OutputPlan::new();
        if self.html {
            if self.single_file(models) {
                return Err(Error::Invalid(format!(
                    "--html writes index.html into the output folder: give -o a folder, not {}",
                    self.output.display()
                )));
            }
            plan.add(index_page(&self.output), OutputFormat::Html);
        }
        if let Some(json) = &self.json {
            plan.add(json, OutputFormat::Json);
        }
        Ok(plan)
    }

    /// The records and what was left out, and where the reports go.
    fn summary(
        &self,
        jobs: &[Job],
        fates: &[Fate],
        unreadable: &[Unreadable],
        describe: &dyn Fn(&Error) -> String,
    ) -> Summary {
        let (records, skipped) = records(jobs, fates, unreadable, describe);
        let is_part = |f: &Fate| matches!(f, Fate::Ran(Ran { outcome: Outcome::Part(_), .. }));
        let parts = fates.iter().filter(|f| is_part(f)).count();
        let read_by_scripts = skipped.len() - parts;
        // The cfgs of other games are counted apart: they are no parts of the models beside
        // them, as the studio files are.
        let is_config = |job: &Job| Format::from_extension(&job.found.path) == Some(Format::Md3Player);
        let configs = jobs.iter().zip(fates).filter(|(job, fate)| is_part(fate) && is_config(job)).count();
        Summary {
            records,
            parts: parts - configs,
            read_by_scripts,
            configs,
            skipped,
            folder: self.output.clone(),
            html: self.html.then(|| index_page(&self.output)),
            json: self.json.clone(),
        }
    }
}

/// The files named in the bake that every model of the batch reads.
fn shared_inputs(base: &BakeSpec) -> Vec<PathBuf> {
    base.named_files().into_iter().skip(1).collect()
}

/// A refused plan, with the models whose thumbnails clash named (two names that differ may
/// still be one file: a folder of the output tree that is a link to another).
fn naming_models(e: Error, models: &Models, outputs: &[PathBuf], describe: &dyn Fn(&Error) -> String) -> Error {
    let model_of = |path: &Path| {
        let found = models.found.iter().zip(outputs).find(|(_, out)| out.as_path() == path);
        found.map_or_else(|| "a model".to_string(), |(f, _)| f.path.display().to_string())
    };
    let text = describe(&e);
    match &e {
        Error::Clash { output, other, kind: ClashKind::Output } => Error::Refused(format!(
            "{text}: the thumbnails of {} and {}; nothing was rendered",
            model_of(other),
            model_of(output)
        )),
        Error::Clash { output, .. } => {
            Error::Refused(format!("{text}: the thumbnail of {}; nothing was rendered", model_of(output)))
        }
        _ => e,
    }
}

/// `text` without a leading `MODEL: ` (loader messages often start with the file's name), so
/// the line names the model once.
fn without_model<'t>(text: &'t str, model: &Path) -> &'t str {
    text.strip_prefix(&format!("{}: ", model.display())).unwrap_or(text)
}

/// What became of one model of the batch.
enum Fate {
    Ran(Ran),
    /// Left out: a scanned file the script named here reads (its reference SMD, MD5 mesh or
    /// animation), which is part of that script's model.
    ReadBy(PathBuf),
}

/// Refuses the batch when a report would replace a file one of its models read, naming that
/// model; the staged thumbnails are then dropped with `fates`, unwritten.
fn check_reports(
    reports: &OutputPlan,
    jobs: &[Job],
    fates: &[Fate],
    describe: &dyn Fn(&Error) -> String,
) -> Result<()> {
    let mut read: Vec<PathBuf> = Vec::new();
    let mut reader: Vec<&Path> = Vec::new();
    for (job, fate) in jobs.iter().zip(fates) {
        if let Fate::Ran(Ran { outcome: Outcome::Done(done), .. }) = fate {
            read.extend(done.inputs.iter().cloned());
            reader.resize(read.len(), job.found.path.as_path());
        }
    }
    reports.check_distinct(&read).map_err(|e| {
        let Error::Clash { other, kind: ClashKind::Input, .. } = &e else { return e };
        let model = read.iter().position(|input| input == other).and_then(|i| reader.get(i));
        let model = model.map_or_else(|| "a model".to_string(), |m| m.display().to_string());
        Error::Refused(format!("{}, which {model} reads; nothing was written", describe(&e)))
    })
}

/// Runs the scripts of the batch, then every other model except the scanned files a script
/// read; each job's fate, in `jobs`' order.
fn run_scripts_first(jobs: &[Job], base: &BakeSpec) -> Vec<Fate> {
    let mut fates: Vec<Option<Fate>> = (0..jobs.len()).map(|_| None).collect();
    let run_part = |part: &[usize], fates: &mut [Option<Fate>]| {
        let picked: Vec<Job> = part.iter().map(|&i| jobs[i]).collect();
        for (&i, ran) in part.iter().zip(run::run_all(&picked, base, crate::budget::BATCH_BYTES)) {
            fates[i] = Some(Fate::Ran(ran));
        }
    };
    let (scripts, others): (Vec<usize>, Vec<usize>) = (0..jobs.len()).partition(|&i| jobs[i].found.is_script());
    run_part(&scripts, &mut fates);
    let mut read_by: HashMap<PathBuf, &Path> = HashMap::new();
    for &i in &scripts {
        if let Some(Fate::Ran(Ran { outcome: Outcome::Done(done), .. })) = &fates[i] {
            read_by.extend(done.inputs.iter().map(|input| (identity(input), jobs[i].found.path.as_path())));
        }
    }
    let mut rest = Vec::new();
    for i in others {
        // (No script read anything: no file needs resolving to be compared.)
        let script = if read_by.is_empty() { None } else { read_by.get(&identity(&jobs[i].found.path)) };
        match script {
            Some(script) if jobs[i].found.scanned() => fates[i] = Some(Fate::ReadBy(script.to_path_buf())),
            _ => rest.push(i),
        }
    }
    run_part(&rest, &mut fates);
    fates.into_iter().map(|fate| fate.expect("every job is run or left out")).collect()
}

/// Commits the thumbnails whose files existed before the batch, each unless another model of
/// the batch read that file (`thumbnail X/a.obj Y/b.obj -o Y` with b's skin `Y/a.png`): then
/// that thumbnail fails, naming the file and the model that reads it.
fn commit_held(jobs: &[Job], fates: &mut [Fate]) {
    let held = |fate: &Fate| matches!(fate, Fate::Ran(Ran { outcome: Outcome::Done(Done { files: Some(_), .. }), .. }));
    // A batch into a fresh folder holds nothing: no model's inputs need resolving.
    if !fates.iter().any(held) {
        return;
    }
    let mut readers: HashMap<PathBuf, usize> = HashMap::new();
    for (i, fate) in fates.iter().enumerate() {
        if let Fate::Ran(Ran { outcome: Outcome::Done(done), .. }) = fate {
            for input in &done.inputs {
                readers.entry(identity(input)).or_insert(i);
            }
        }
    }
    for (i, fate) in fates.iter_mut().enumerate() {
        let Fate::Ran(ran) = fate else { continue };
        let Outcome::Done(done) = &mut ran.outcome else { continue };
        let Some(files) = done.files.take() else { continue };
        let output = jobs[i].output;
        let failed = match readers.get(&identity(output)).filter(|&&reader| reader != i) {
            Some(&reader) => Some(Error::Refused(format!(
                "its thumbnail would replace {}, which {} reads; {} left as it was",
                output.display(),
                jobs[reader].found.path.display(),
                output.display(),
            ))),
            None => files.commit().err(),
        };
        if let Some(e) = failed {
            ran.outcome = Outcome::Failed(e);
        }
    }
}

/// The record of each folder the scan could not read, then each model's, in `jobs`' order;
/// and the files left out with why.
fn records(
    jobs: &[Job],
    fates: &[Fate],
    unreadable: &[Unreadable],
    describe: &dyn Fn(&Error) -> String,
) -> (Vec<Record>, Vec<(PathBuf, String)>) {
    let mut records: Vec<Record> =
        unreadable.iter().map(|u| Record::failed(u.folder.clone(), Some(u.reason()), 0.0)).collect();
    let mut skipped = Vec::new();
    for (job, fate) in jobs.iter().zip(fates) {
        let model = &job.found.path;
        let ran = match fate {
            Fate::Ran(ran) => ran,
            Fate::ReadBy(script) => {
                skipped.push((model.clone(), format!("read by {}", script.display())));
                continue;
            }
        };
        let record = Record::failed(model.clone(), None, ran.seconds);
        records.push(match &ran.outcome {
            Outcome::Part(what) => {
                skipped.push((model.clone(), what.to_string()));
                continue;
            }
            Outcome::Done(done) => Record {
                output: Some(job.output.to_path_buf()),
                status: Status::Ok,
                warnings: done.warnings.iter().map(|w| without_model(w, model).to_string()).collect(),
                triangles: Some(done.triangles),
                ..record
            },
            Outcome::Failed(e) => Record { reason: Some(without_model(&describe(e), model).to_string()), ..record },
        });
    }
    (records, skipped)
}

/// Where the index page goes.
fn index_page(folder: &Path) -> PathBuf {
    folder.join("index.html")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_gives_a_record_per_model_and_writes_its_reports_when_asked() {
        let dir = std::env::temp_dir().join(format!("spritebake-batch-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("models")).unwrap();
        std::fs::write(dir.join("models/a.obj"), "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n").unwrap();
        std::fs::write(dir.join("models/b.md2"), "not a model").unwrap();
        let mut base = crate::spec::Profile::Thumbnail.spec();
        base.view.size = "24".parse().unwrap();
        let out = dir.join("out");
        let json = dir.join("records.json");
        let batch = ThumbnailBatch {
            models: vec![dir.join("models")],
            output: out.clone(),
            flat: false,
            html: true,
            json: Some(json.clone()),
            base,
        };
        let summary = batch.run(&|e| format!("said: {e}")).unwrap();
        let outputs: Vec<Option<PathBuf>> = summary.records.iter().map(|r| r.output.clone()).collect();
        assert_eq!(outputs, [Some(out.join("a.png")), None]);
        assert_eq!(summary.failed(), 1);
        assert!(summary.records[1].reason.as_deref().is_some_and(|r| r.starts_with("said: ")), "{summary:?}");
        assert!(out.join("a.png").is_file());
        // The reports are written when the caller says so, after what it prints.
        assert!(!out.join("index.html").exists() && !json.exists());
        summary.write_reports().unwrap();
        assert!(out.join("index.html").is_file() && json.is_file());
        std::fs::remove_dir_all(dir).unwrap();
    }
}
