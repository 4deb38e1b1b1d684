//! `spritebake bake`: bake every entry of a project file that changed.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Args;
use spritebake::bake::project::{Event, Project, Report, RunOptions, Status};
use spritebake::internal::terminal::escape_control;
use spritebake::model::UnknownName;

use crate::args::{RunArgs, parse_shard};
use crate::common::set_threads;
use crate::progress::Progress;

/// `spritebake bake`.
#[derive(Debug, Args)]
pub struct BakeArgs {
    /// The project file (TOML): [defaults] and [[sheet]], [[gif]], [[frames]], [[thumbnail]],
    /// [[render]] entries.
    pub project: PathBuf,
    /// Bake only these entries (names, or glob patterns such as 'robot-*'); the others and
    /// their records are left as they are.
    #[arg(value_name = "ENTRY")]
    pub entries: Vec<String>,
    /// Rebuild every entry, whatever changed.
    #[arg(long)]
    pub force: bool,
    /// List what would be rebuilt, and why; load, render and write nothing (but a --json
    /// summary).
    #[arg(long)]
    pub dry_run: bool,
    /// Write a JSON summary (name, kind, outputs, status, seconds, error, files removed per
    /// entry) to FILE, or to standard output with `-` (the lines then go to standard error).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Bake one shard: I/N bakes the entries numbered I, I+N, I+2N... in file order over every
    /// kind (1-based), with a state file of its own. N jobs with I = 1..N bake every entry once.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<String>,
    /// A folder outside the project's own that the models, animations, textures, attachments
    /// and outputs named in the project may be in (repeatable). Without it, paths leading out
    /// of the project's folder (absolute, `..`, symbolic links) are refused.
    #[arg(long, value_name = "DIR")]
    pub allow_dir: Vec<PathBuf>,
    /// Threads and chatter.
    #[command(flatten)]
    pub run: RunArgs,
}

/// Runs the command: exit 0 when every entry is built or up to date, 1 when any failed, 2 on
/// a project error (a bad file, clashing outputs) before anything was written.
pub fn run(args: &BakeArgs) -> Result<ExitCode> {
    set_threads(args.run.threads)?;
    let shard = args.shard.as_deref().map(parse_shard).transpose()?;
    let project = Project::load(&args.project)?.allowing(&args.allow_dir)?;
    let to_stdout = args.json.as_deref().is_some_and(|p| p.as_os_str() == "-");
    let json_file = args.json.clone().filter(|_| !to_stdout);
    let options = RunOptions {
        force: args.force,
        dry_run: args.dry_run,
        shard,
        only: chosen(&project, &args.entries)?,
        extra_outputs: json_file.iter().cloned().collect(),
    };
    // The total grows as entries are planned; a dry run renders nothing.
    let label = format!("bake {}", spritebake::internal::terminal::escape_control(&args.project.display().to_string()));
    let progress = Progress::counting(&label, "images", 0, args.run.quiet || args.dry_run);
    let events = |event: Event| match event {
        Event::Planned(images) => progress.grow(images as u64),
        Event::Rendered => progress.tick(),
    };
    let report = project.run(&options, &events)?;
    progress.finish();
    print_report(&report, args.run.quiet, to_stdout)?;
    if args.json.is_some() {
        let json = serde_json::to_string_pretty(&summary(&project, &report)).context("encoding the JSON summary")?;
        match &json_file {
            Some(path) => spritebake::output::write_atomic(path, format!("{json}\n").as_bytes())?,
            None => writeln!(std::io::stdout(), "{json}")?,
        }
    }
    Ok(if report.count(Status::Failed) > 0 { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// The names of the entries `patterns` (names or glob patterns) match; `None` without
/// patterns (every entry).
///
/// # Errors
/// A pattern that is not a glob, or one that matches no entry (naming the closest names).
fn chosen(project: &Project, patterns: &[String]) -> Result<Option<BTreeSet<String>>> {
    if patterns.is_empty() {
        return Ok(None);
    }
    let names = || project.entries.iter().map(|e| e.name.as_str());
    let mut chosen = BTreeSet::new();
    for pattern in patterns {
        let glob = glob::Pattern::new(pattern).with_context(|| format!("entry pattern '{pattern}'"))?;
        let matched: Vec<&str> = names().filter(|name| glob.matches(name)).collect();
        if matched.is_empty() {
            let context = format!("{} names {} entries", project.path.display(), project.entries.len());
            return Err(UnknownName::new("entry", pattern, names(), context).into());
        }
        chosen.extend(matched.into_iter().map(str::to_string));
    }
    Ok(Some(chosen))
}

/// One line per entry and the totals (on standard error when standard output carries the
/// JSON); warnings and the files of earlier runs removed on standard error. `quiet` keeps only
/// failures and warnings.
fn print_report(report: &Report, quiet: bool, json_on_stdout: bool) -> Result<()> {
    let mut out: Box<dyn Write> =
        if json_on_stdout { Box::new(std::io::stderr()) } else { Box::new(std::io::stdout().lock()) };
    for warning in &report.warnings {
        eprintln!("warning: {}", escape_control(warning));
    }
    for entry in &report.entries {
        for warning in &entry.warnings {
            eprintln!("warning: {}: {}", escape_control(&entry.name), escape_control(warning));
        }
        if !quiet || entry.status == Status::Failed {
            writeln!(out, "{}", entry.line())?;
        }
        if !quiet && !entry.removed.is_empty() {
            let removed: Vec<String> = entry.removed.iter().map(|p| p.display().to_string()).collect();
            let line = format!(
                "{}: removed {} (an earlier run wrote them; this one does not)",
                entry.name,
                removed.join(", ")
            );
            eprintln!("{}", escape_control(&line));
        }
    }
    if !quiet {
        writeln!(out, "{}", report.totals())?;
    }
    Ok(())
}

/// The machine-readable summary.
fn summary(project: &Project, report: &Report) -> serde_json::Value {
    serde_json::json!({
        "project": project.path,
        "state": report.state,
        "built": report.count(Status::Built),
        "up_to_date": report.count(Status::UpToDate),
        "failed": report.count(Status::Failed),
        "would_build": report.count(Status::WouldBuild),
        "entries": report.entries,
    })
}
