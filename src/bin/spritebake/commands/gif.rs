//! `spritebake gif`: one clip from one direction as a looping animated GIF.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::{Args, ValueEnum};
use spritebake::output::gif::{GifOptions, Palette, encode_gif};
use spritebake::output::{OutputFormat, OutputPlan};

use crate::args::SpriteJobArgs;
use crate::common::{check_plan, load, render_cells, set_threads, sprite_job};

/// Palette strategies on the command line.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum PaletteArg {
    /// One palette for the whole GIF (stable colours, smaller file).
    Global,
    /// A palette per frame.
    PerFrame,
}

/// `spritebake gif`.
#[derive(Debug, Args)]
pub struct GifArgs {
    /// Model, camera, directions, framing, looks, threads.
    #[command(flatten)]
    pub job: SpriteJobArgs,
    /// Which direction of --directions to show.
    #[arg(long, default_value_t = 0)]
    pub direction: u32,
    /// Floyd–Steinberg dithering.
    #[arg(long)]
    pub dither: bool,
    /// Pixels with alpha below this become transparent.
    #[arg(long, default_value_t = 128)]
    pub alpha_threshold: u8,
    /// Palette strategy.
    #[arg(long = "gif-palette", value_enum, default_value = "global")]
    pub gif_palette: PaletteArg,
    /// Output GIF.
    #[arg(short, long)]
    pub output: PathBuf,
}

/// Runs the command.
pub fn run(args: &GifArgs) -> Result<ExitCode> {
    set_threads(args.job.threads)?;
    let loaded = load(&args.job.model, &args.job.anim)?;
    let mut plan = OutputPlan::new();
    plan.add(&args.output, OutputFormat::Gif);
    check_plan(&plan, &args.job.model, &args.job.anim, &loaded)?;
    let mut job = sprite_job(&loaded, &args.job)?;
    // One row: the first transition if there is one, else the first clip.
    if job.transitions.is_empty() {
        job.clips.truncate(1);
    } else {
        job.clips.clear();
        job.transitions.truncate(1);
    }
    // Render only the chosen direction, keeping the yaw it has among N directions.
    let n = job.directions.max(1);
    job.view.yaw_degrees = job.yaw(args.direction % n);
    job.directions = 1;
    let cells = render_cells(&job, &args.job)?;
    let frames: Vec<_> = cells.iter().map(|c| c.image.clone()).collect();
    let durations: Vec<f32> = cells.iter().map(|c| c.duration).collect();
    let options = GifOptions {
        alpha_threshold: args.alpha_threshold,
        dither: args.dither,
        palette: match args.gif_palette {
            PaletteArg::Global => Palette::Global,
            PaletteArg::PerFrame => Palette::PerFrame,
        },
    };
    let (bytes, dropped) = encode_gif(&frames, &durations, &options)?;
    if dropped > 0 {
        eprintln!("note: {dropped} frames dropped evenly: GIF delays cannot be shorter than 2 cs (50 fps)");
    }
    spritebake::output::write_atomic(&args.output, &bytes)?;
    Ok(ExitCode::SUCCESS)
}
