//! `spritebake thumbnail`: a good picture of each model with no flags, many models in parallel.

mod names;
mod report;
mod run;
mod scan;

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use spritebake::internal::formats::Format;
use spritebake::model::Axis;
use spritebake::output::{OutputFormat, OutputPlan};
use spritebake::spec::{AnimSpec, BakeSpec, LimitsSpec, ModelSpec, Profile, RenderSpec, ViewSpec};

use crate::args::{RunArgs, with_defaults_of};
use crate::common::set_threads;
use report::{Record, Status};
use run::{Done, Job, Outcome, Ran};
use scan::{Models, Unreadable, identity};

/// The MODEL arguments' help, naming the extensions the loader knows.
fn models_help() -> String {
    format!(
        "Model files, folders (every {} file under them, in subfolders too; symbolic links to \
         folders are not followed, and model files that are symbolic links leading out of the folder \
         are refused unread) or quoted glob patterns ('models/*.obj', 'assets/**/*.md2'). In folders \
         and patterns, a model a .qc or .def script describes is rendered through the script only, \
         and parts of models (sequence SMDs, Half-Life sequence group and texture files) and \
         animation.cfg files with no Quake 3 player beside them are skipped.",
        Format::extension_list()
    )
}

/// `spritebake thumbnail`.
#[derive(Debug, Args)]
pub struct ThumbnailArgs {
    /// Model files, folders (every model file under them, in subfolders too) or quoted glob
    /// patterns: see [`models_help`].
    #[arg(required = true, value_name = "MODEL", help = models_help())]
    pub models: Vec<PathBuf>,
    /// Output: a folder (created if missing) where each thumbnail's name mirrors the model's
    /// path below the folder or pattern it was found in (`thumbnail assets -o out`:
    /// `assets/md2/ogro/tris.md2` -> `out/md2/ogro/tris.png`; a file named as such: its stem);
    /// or, for one model file (not a folder or a pattern), a `.png` file.
    #[arg(short, long)]
    pub output: PathBuf,
    /// Every thumbnail directly in the output folder, named after the model's stem (where two
    /// stems are the same: after the folders below the root too, `players_male_tris.png`).
    #[arg(long)]
    pub flat: bool,
    /// Also write `index.html` in the output folder: every thumbnail in a grid with its name,
    /// model path, triangle count and warnings, the failed models first with their reasons;
    /// one self-contained page to open from a CI artifact.
    #[arg(long)]
    pub html: bool,
    /// Also write one JSON record per model to FILE: input, output, status (`ok`, `failed`),
    /// reason, warnings, triangles, seconds.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Camera and thumbnail size, as `render` takes them; a flag not given keeps the
    /// thumbnail's default (a three-quarter view: yaw 35, pitch 20).
    #[command(flatten)]
    pub view: ViewSpec,
    /// Rendering, as `render` takes it; a flag not given keeps the thumbnail's default (4×4
    /// supersampling, a key and a fill light, ambient 0.25).
    #[command(flatten)]
    pub render: RenderSpec,
    /// Every model's front axis in its file, as `render --facing` (default: each format's).
    #[arg(long, allow_hyphen_values = true)]
    pub facing: Option<Axis>,
    /// Every model's up axis in its file, as `render --up` (default: each format's).
    #[arg(long, allow_hyphen_values = true)]
    pub up: Option<Axis>,
    /// A folder outside each model's own that paths written in the models (textures, material
    /// libraries, buffers) may lead into, as `render --texture-root` (repeatable): the base
    /// folder of a Doom 3 tree, whose `.def` files name meshes and textures from it.
    #[arg(long, value_name = "DIR")]
    pub texture_root: Vec<PathBuf>,
    /// Clips, attachments, bone overrides, blend, transition (applied to every model; the
    /// default pose is each model's first clip that moves).
    #[command(flatten)]
    pub anim: AnimSpec,
    /// Limits for every model (each gets its own memory budget).
    #[command(flatten)]
    pub limits: LimitsSpec,
    /// Threads; --quiet prints only failures and the summary line (no `ok` lines, no warnings).
    #[command(flatten)]
    pub run: RunArgs,
}

/// `thumbnail`'s flags with the thumbnail profile's defaults (see [`with_defaults_of`]).
pub fn with_thumbnail_defaults(command: clap::Command) -> clap::Command {
    with_defaults_of(command, Profile::Thumbnail)
}

impl ThumbnailArgs {
    /// The bake of every model: the thumbnail profile with the flags given over it (clap took
    /// the view and render flags' defaults from the profile), the model left out.
    fn spec(&self) -> BakeSpec {
        let base = Profile::Thumbnail.spec();
        let model = ModelSpec {
            facing: self.facing,
            up: self.up,
            texture_root: self.texture_root.clone(),
            ..base.model.clone()
        };
        BakeSpec {
            model,
            anim: self.anim.clone(),
            view: self.view.clone(),
            render: self.render.clone(),
            limits: self.limits.clone(),
            ..base
        }
    }
}

/// One model file named as such and `-o NAME.EXT` that is not an existing folder: the output
/// is that file (and the plan refuses an extension other than .png); otherwise `-o` is a folder
/// (always, when the models came from a folder or a pattern).
fn single_file(args: &ThumbnailArgs, models: &Models) -> bool {
    !models.expanded && models.found.len() == 1 && args.output.extension().is_some() && !args.output.is_dir()
}

/// Every model's thumbnail file, in `models`' order.
fn outputs(args: &ThumbnailArgs, models: &Models) -> Vec<PathBuf> {
    if single_file(args, models) {
        return vec![args.output.clone()];
    }
    names::thumbnail_names(&models.found, args.flat).into_iter().map(|name| args.output.join(name)).collect()
}

/// The files named on the command line that every model of the batch reads.
fn shared_inputs(base: &BakeSpec) -> Vec<PathBuf> {
    base.named_files().into_iter().skip(1).collect()
}

/// A refused plan, with the models whose thumbnails clash named (two names that differ may
/// still be one file: a folder of the output tree that is a link to another).
fn naming_models(e: spritebake::Error, models: &Models, outputs: &[PathBuf]) -> anyhow::Error {
    let model_of = |path: &Path| {
        let found = models.found.iter().zip(outputs).find(|(_, out)| out.as_path() == path);
        found.map_or_else(|| "a model".to_string(), |(f, _)| f.path.display().to_string())
    };
    let text = crate::common::message(&e);
    match &e {
        spritebake::Error::Clash { output, other, kind: spritebake::ClashKind::Output } => {
            anyhow::anyhow!(
                "{text}: the thumbnails of {} and {}; nothing was rendered",
                model_of(other),
                model_of(output)
            )
        }
        spritebake::Error::Clash { output, .. } => {
            anyhow::anyhow!("{text}: the thumbnail of {}; nothing was rendered", model_of(output))
        }
        _ => e.into(),
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

/// Runs the command: one line per model; failures do not stop the others.
pub fn run(args: &ThumbnailArgs) -> Result<ExitCode> {
    set_threads(args.run.threads)?;
    let base = args.spec();
    // Every option is checked once, before any model (a model path stands in).
    BakeSpec { model: spritebake::spec::ModelSpec { model: "model".into(), ..base.model.clone() }, ..base.clone() }
        .resolve()?;
    let models = scan::expand(&args.models)?;
    let outputs = outputs(args, &models);
    // Every model's output, planned before anything is rendered: an output on any model file
    // or on a file every model reads refuses the whole batch. (An output that cannot be
    // written, such as a folder in the way, fails only its own model, below.)
    let mut plan = OutputPlan::new();
    for out in &outputs {
        plan.add(out, OutputFormat::Png);
    }
    let reports = reports(args, &models)?;
    for report in reports.outputs() {
        plan.add(&report.path, report.format);
    }
    let inputs: Vec<PathBuf> = models.found.iter().map(|f| f.path.clone()).chain(shared_inputs(&base)).collect();
    plan.check_distinct(&inputs).map_err(|e| naming_models(e, &models, &outputs))?;
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
    let mut fates = run_scripts_first(&jobs, &base);
    if hold_all {
        check_reports(&reports, &jobs, &fates)?;
    }
    commit_held(&jobs, &mut fates);
    report(args, &jobs, &fates, &models.unreadable)
}

/// The reports the batch writes (`--html`'s page, `--json`'s file), planned as its thumbnails
/// are.
fn reports(args: &ThumbnailArgs, models: &Models) -> Result<OutputPlan> {
    let mut plan = OutputPlan::new();
    if args.html {
        anyhow::ensure!(
            !single_file(args, models),
            "--html writes index.html into the output folder: give -o a folder, not {}",
            args.output.display()
        );
        plan.add(index_page(&args.output), OutputFormat::Html);
    }
    if let Some(json) = &args.json {
        plan.add(json, OutputFormat::Json);
    }
    Ok(plan)
}

/// Refuses the batch when a report would replace a file one of its models read, naming that
/// model; the staged thumbnails are then dropped with `fates`, unwritten.
fn check_reports(reports: &OutputPlan, jobs: &[Job], fates: &[Fate]) -> Result<()> {
    let mut read: Vec<PathBuf> = Vec::new();
    let mut reader: Vec<&Path> = Vec::new();
    for (job, fate) in jobs.iter().zip(fates) {
        if let Fate::Ran(Ran { outcome: Outcome::Done(done), .. }) = fate {
            read.extend(done.inputs.iter().cloned());
            reader.resize(read.len(), job.found.path.as_path());
        }
    }
    reports.check_distinct(&read).map_err(|e| {
        let spritebake::Error::Clash { other, kind: spritebake::ClashKind::Input, .. } = &e else { return e.into() };
        let model = read.iter().position(|input| input == other).and_then(|i| reader.get(i));
        let model = model.map_or_else(|| "a model".to_string(), |m| m.display().to_string());
        anyhow::anyhow!("{}, which {model} reads; nothing was written", crate::common::message(&e))
    })
}

/// Runs the scripts of the batch, then every other model except the scanned files a script
/// read; each job's fate, in `jobs`' order.
fn run_scripts_first(jobs: &[Job], base: &BakeSpec) -> Vec<Fate> {
    let mut fates: Vec<Option<Fate>> = (0..jobs.len()).map(|_| None).collect();
    let run_part = |part: &[usize], fates: &mut [Option<Fate>]| {
        let picked: Vec<Job> = part.iter().map(|&i| jobs[i]).collect();
        for (&i, ran) in part.iter().zip(run::run_all(&picked, base, spritebake::internal::budget::BATCH_BYTES)) {
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
            Some(&reader) => Some(spritebake::Error::Invalid(format!(
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
fn records(jobs: &[Job], fates: &[Fate], unreadable: &[Unreadable]) -> (Vec<Record>, Vec<(PathBuf, String)>) {
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
            Outcome::Failed(e) => {
                Record { reason: Some(without_model(&crate::common::message(e), model).to_string()), ..record }
            }
        });
    }
    (records, skipped)
}

/// Prints one line per model and per folder the scan could not read (and one for the files
/// left out) and the summary line; writes the index page and the JSON records when asked.
fn report(args: &ThumbnailArgs, jobs: &[Job], fates: &[Fate], unreadable: &[Unreadable]) -> Result<ExitCode> {
    let (records, skipped) = records(jobs, fates, unreadable);
    let mut stdout = std::io::stdout();
    let mut stderr = std::io::stderr();
    // File names, warnings and error messages carry model text: each line escaped.
    let print =
        |out: &mut dyn Write, line: String| writeln!(out, "{}", spritebake::internal::terminal::escape_control(&line));
    for record in &records {
        let model = record.input.display();
        match (&record.output, &record.reason) {
            (Some(_), _) if args.run.quiet => {}
            (Some(output), _) => {
                for warning in &record.warnings {
                    print(&mut stderr, format!("warning: {model}: {warning}"))?;
                }
                let line = match record.warnings.len() {
                    0 => format!("ok    {model} -> {}", output.display()),
                    w => format!("ok    {model} -> {} ({w} warnings)", output.display()),
                };
                print(&mut stdout, line)?;
            }
            (None, reason) => print(&mut stdout, format!("FAIL  {model}: {}", reason.as_deref().unwrap_or("")))?,
        }
    }
    let is_part = |f: &Fate| matches!(f, Fate::Ran(Ran { outcome: Outcome::Part(_), .. }));
    let parts = fates.iter().filter(|f| is_part(f)).count();
    let read_by_scripts = skipped.len() - parts;
    // The cfgs of other games are said on a line of their own: they are no parts of the
    // models beside them, as the studio files are.
    let is_config = |job: &Job| Format::from_extension(&job.found.path) == Some(Format::Md3Player);
    let configs = jobs.iter().zip(fates).filter(|(job, fate)| is_part(fate) && is_config(job)).count();
    let parts = parts - configs;
    if !args.run.quiet && parts + read_by_scripts > 0 {
        writeln!(
            stdout,
            "skipped {parts} parts of models (sequence SMDs, Half-Life sequence groups and texture files: no \
             triangles of their own) and {read_by_scripts} files a .qc or .def script of the batch reads"
        )?;
    }
    if !args.run.quiet && configs > 0 {
        writeln!(
            stdout,
            "skipped {configs} animation.cfg files of no Quake 3 player (without lower.md3, upper.md3 and \
             head.md3 beside them)"
        )?;
    }
    let failed = records.iter().filter(|r| r.status == Status::Failed).count();
    writeln!(stdout, "{} thumbnails, {failed} failed", records.len() - failed)?;
    if args.html {
        spritebake::output::write_atomic(
            &index_page(&args.output),
            report::index_html(&args.output, &records, &skipped).as_bytes(),
        )?;
    }
    if let Some(json) = &args.json {
        spritebake::output::write_atomic(json, report::json_records(&records).as_bytes())?;
    }
    Ok(if failed > 0 { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// Where `--html` writes the index page.
fn index_page(folder: &Path) -> PathBuf {
    folder.join("index.html")
}

#[cfg(test)]
mod tests {
    use clap::FromArgMatches;

    use super::*;

    /// `thumbnail`'s arguments as the command line parses them.
    fn parsed(flags: &[&str]) -> ThumbnailArgs {
        let words = ["spritebake", "thumbnail", "m.obj", "-o", "out"].into_iter().chain(flags.iter().copied());
        let matches = crate::cli_command().try_get_matches_from(words).unwrap();
        ThumbnailArgs::from_arg_matches(matches.subcommand().unwrap().1).unwrap()
    }

    #[test]
    fn flags_not_given_are_the_thumbnail_profile_and_given_ones_replace_it() {
        assert_eq!(parsed(&[]).spec(), Profile::Thumbnail.spec());
        let spec = parsed(&["--yaw", "-90", "--light", "0,1,0"]).spec();
        let thumbnail = Profile::Thumbnail.spec();
        assert_eq!((spec.view.yaw, spec.view.pitch, spec.render.ambient), (-90.0, 20.0, 0.25));
        assert_eq!(spec.render.light, ["0,1,0".parse().unwrap()]);
        assert_ne!(spec.render.light, thumbnail.render.light);
        assert_eq!(spec.render.ssaa, thumbnail.render.ssaa);
    }
}
