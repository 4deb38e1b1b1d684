//! `spritebake check`: run a manifest of golden-image cases.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Args;
use spritebake::check::{self, CheckOptions, Manifest, Outcome};
use spritebake::internal;
use spritebake::output::OutputFormat;

use crate::args::parse_shard;
use crate::common::set_threads;

/// `spritebake check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The manifest (TOML).
    pub manifest: PathBuf,
    /// Write goldens for new and failing cases.
    #[arg(long)]
    pub bless: bool,
    /// Folder for actual and diff images.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// JUnit XML report.
    #[arg(long)]
    pub junit: Option<PathBuf>,
    /// Folder for a self-contained HTML review report: index.html and every image it shows
    /// (expected, actual and diff of each frame of the failing and new cases).
    #[arg(long, value_name = "DIR")]
    pub html: Option<PathBuf>,
    /// The per-case results as JSON (statuses, per-frame numbers, bless commands; image paths
    /// relative to the --html folder).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Run one shard: I/N runs every N-th case starting with the I-th (1-based).
    #[arg(long, value_name = "I/N")]
    pub shard: Option<String>,
    /// A folder outside the manifest's own that the models, anims, attachments, textures and
    /// goldens named in the manifest may be in (repeatable). Without it, paths leading out of
    /// the manifest's folder (absolute, `..`, symbolic links) are refused.
    #[arg(long, value_name = "DIR")]
    pub allow_dir: Vec<PathBuf>,
    /// Worker threads, from 1 to 1024 (default: all cores).
    #[arg(long, value_parser = spritebake::internal::bounds::THREADS.parser())]
    pub threads: Option<usize>,
    /// Run (or with --bless, rewrite) only the case with this name; repeatable.
    #[arg(long, value_name = "NAME")]
    pub case: Vec<String>,
    /// Report for GitHub Actions: an `::error` annotation on the manifest's line of each case
    /// that did not pass, and a Markdown summary (counts, the worst cases) appended to the file
    /// $GITHUB_STEP_SUMMARY names. On by itself when GITHUB_ACTIONS is `true`.
    #[arg(long)]
    pub github: bool,
    /// Limits for every case, replacing what cases set.
    #[command(flatten)]
    pub limits: spritebake::spec::LimitOverrides,
}

/// What the reports need to write the command that blesses one case: the manifest as given
/// and the flags a rerun needs (`--allow-dir`, the limits given).
fn report_context(args: &CheckArgs, suite: &str) -> check::ReportContext {
    let mut flags = Vec::new();
    for dir in &args.allow_dir {
        flags.extend(["--allow-dir".to_string(), dir.display().to_string()]);
    }
    let given = &args.limits;
    let limits = [
        ("--max-file-mib", given.max_file_mib),
        ("--max-texture-side", given.max_texture_side.map(u64::from)),
        ("--max-memory-mib", given.max_memory_mib),
    ];
    for (flag, value) in limits {
        if let Some(value) = value {
            flags.extend([flag.to_string(), value.to_string()]);
        }
    }
    check::ReportContext { suite: suite.to_string(), manifest: args.manifest.display().to_string(), flags }
}

/// Runs the command: exit 0 when every case passes, 1 when any fails, 2 on a manifest error.
pub fn run(args: &CheckArgs) -> Result<ExitCode> {
    let mut stdout = std::io::stdout();
    set_threads(args.threads)?;
    let shard = args.shard.as_deref().map(parse_shard).transpose()?;
    let manifest = Manifest::load(&args.manifest)?.allowing(&args.allow_dir)?;
    let options = CheckOptions {
        bless: args.bless,
        out: args.out.clone(),
        shard,
        cases: args.case.clone(),
        limits: args.limits,
        report_images: args.html.is_some(),
    };
    internal::check::check_case_names(&manifest, &options)?;
    // Everything the run may write, checked before any case renders; each case checks its
    // own files again once its model has loaded.
    let (mut plan, mut inputs) = internal::check::planned_outputs(&manifest, &options);
    if let Some(path) = &args.junit {
        plan.add(path, OutputFormat::Xml);
    }
    if let Some(path) = &args.json {
        plan.add(path, OutputFormat::Json);
    }
    if let Some(dir) = &args.html {
        internal::check::plan_html_report(dir, &mut plan);
    }
    let github = args.github || std::env::var("GITHUB_ACTIONS").is_ok_and(|v| v == "true");
    // The runner's summary file, appended to: planned like every output (never an input).
    let step_summary = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|p| github && !p.is_empty()).map(PathBuf::from);
    if let Some(path) = &step_summary {
        plan.add(path, OutputFormat::Copy);
    }
    inputs.push(args.manifest.clone());
    plan.check(&inputs)?;
    internal::check::check_batch_outputs(&manifest, &options)?;
    // Cases commit one by one into --out: the folder is made once, up front.
    if let Some(out) = &args.out {
        std::fs::create_dir_all(out)?;
    }
    let results = check::run(&manifest, &options);
    for r in &results {
        writeln!(stdout, "{}", r.summary_line())?;
    }
    let count = |f: fn(&Outcome) -> bool| results.iter().filter(|r| f(&r.outcome)).count();
    let passed = count(|o| matches!(o, Outcome::Pass | Outcome::Blessed));
    let failed = count(|o| matches!(o, Outcome::Fail { .. } | Outcome::New));
    let errors = count(|o| matches!(o, Outcome::Error(_)));
    writeln!(stdout, "{passed} passed, {failed} failed, {errors} errors")?;
    if github {
        let manifest_name = args.manifest.display().to_string();
        write!(stdout, "{}", internal::check::github::annotations(&manifest_name, &manifest.text, &results))?;
    }
    if let Some(path) = &step_summary {
        let summary = internal::check::github::step_summary(&manifest.name, &results);
        let append = || -> std::io::Result<()> {
            std::fs::OpenOptions::new().create(true).append(true).open(path)?.write_all(summary.as_bytes())
        };
        append().with_context(|| format!("{}: cannot append the step summary", path.display()))?;
    }
    if let Some(path) = &args.junit {
        spritebake::output::write_atomic(path, check::junit_xml(&manifest.name, &results).as_bytes())?;
    }
    let context = report_context(args, &manifest.name);
    if let Some(dir) = &args.html {
        // The report's images are checked, with the page, against everything the run read or
        // wrote (the cases add their own files) before any of them is written.
        let mut taken = inputs.clone();
        taken.extend(args.junit.iter().chain(&args.json).cloned());
        check::html_report(dir, &context, &results, &taken)?;
    }
    if let Some(path) = &args.json {
        let json = check::json_report(&context, &results, args.html.as_deref());
        spritebake::output::write_atomic(path, json.as_bytes())?;
    }
    Ok(if failed + errors > 0 { ExitCode::from(1) } else { ExitCode::SUCCESS })
}
