//! `spritebake frames`: every frame of a clip (× directions) as numbered PNG files.

use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use spritebake::output::{FramePattern, OutputFormat, OutputPlan, Transaction, encode_png};

use crate::args::SpriteJobArgs;
use crate::common::{check_plan, load, render_cells, set_threads, sprite_job};

/// `spritebake frames`.
#[derive(Debug, Args)]
pub struct FramesArgs {
    /// Model, camera, directions, framing, looks, threads.
    #[command(flatten)]
    pub job: SpriteJobArgs,
    /// Output path pattern with `{clip}`, `{dir}` and `{frame}` (zero padding as `{frame:03}`,
    /// width 0 to 9), e.g. `out/walk_{dir}_{frame:03}.png`. Clip names from the model are made
    /// safe file names (separators, `..` and control characters become `_`; a transition A->B
    /// is named `A-to-B`). Every file must get its own name: with several directions the
    /// pattern needs `{dir}`, with several clips `{clip}`.
    #[arg(short, long)]
    pub output: String,
}

/// Runs the command: the pattern is expanded for every frame and checked before rendering,
/// and the frames are written all together or not at all.
pub fn run(args: &FramesArgs) -> Result<ExitCode> {
    set_threads(args.job.threads)?;
    let pattern = FramePattern::parse(&args.output)?;
    let loaded = load(&args.job.model, &args.job.anim)?;
    let job = sprite_job(&loaded, &args.job)?;
    let names = job.row_names();
    let path_of = |row: usize, dir, frame| pattern.path(names.get(row).map_or("rest", String::as_str), dir, frame);
    let mut plan = OutputPlan::new();
    for (row, dir, frame) in job.cell_keys() {
        plan.add(path_of(row, dir, frame), OutputFormat::Png);
    }
    check_plan(&plan, &args.job.model, &args.job.anim, &loaded)?;
    let cells = render_cells(&job, &args.job)?;
    let mut transaction = Transaction::new();
    for cell in &cells {
        transaction.stage(&path_of(cell.clip, cell.direction, cell.frame), &encode_png(&cell.image)?)?;
    }
    transaction.commit()?;
    if !args.job.sprite.quiet {
        eprintln!("{} frames written", cells.len());
    }
    Ok(ExitCode::SUCCESS)
}
