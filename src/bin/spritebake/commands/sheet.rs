//! `spritebake sheet`: clips × directions × frames in one PNG plus engine-ready JSON.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Args;
use spritebake::sprite::sheet::{JsonFormat, Layout, pack};

use crate::args::{JsonFormatArg, SpriteJobArgs};
use crate::common::{guard_output, load, render_cells, set_threads, sprite_job};

/// `spritebake sheet`.
#[derive(Debug, Args)]
pub struct SheetArgs {
    /// Model, camera, directions, framing, looks, threads.
    #[command(flatten)]
    pub job: SpriteJobArgs,
    /// Transparent pixels between cells and around the sheet.
    #[arg(long, default_value_t = 2)]
    pub padding: u32,
    /// Repeat each frame's edge pixels this far into the padding.
    #[arg(long, default_value_t = 0)]
    pub extrude: u32,
    /// Crop frames to their opaque pixels (the JSON records the offsets).
    #[arg(long)]
    pub trim: bool,
    /// JSON layout.
    #[arg(long, value_enum, default_value = "texturepacker")]
    pub json_format: JsonFormatArg,
    /// Output PNG; the JSON is written beside it with the same stem.
    #[arg(short, long)]
    pub output: PathBuf,
}

/// Runs the command.
pub fn run(args: &SheetArgs) -> Result<ExitCode> {
    set_threads(args.job.threads)?;
    let loaded = load(&args.job.model, &args.job.anim)?;
    let model = &loaded.model;
    let job = sprite_job(&loaded, &args.job)?;
    let cells = render_cells(&job, &args.job)?;
    let names = job.row_names();
    let layout = Layout { padding: args.padding, extrude: args.extrude, trim: args.trim };
    let sheet = pack(&cells, &names, layout)?;
    let format = match args.json_format {
        JsonFormatArg::Texturepacker => JsonFormat::TexturePacker,
        JsonFormatArg::Aseprite => JsonFormat::Aseprite,
    };
    let image_name = args.output.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let json = serde_json::to_string_pretty(&sheet.to_json(&image_name, format)).context("encoding the sheet JSON")?;
    guard_output(&args.output, &args.job.model, model)?;
    guard_output(&args.output.with_extension("json"), &args.job.model, model)?;
    spritebake::output::write_png(&args.output, &sheet.image)?;
    spritebake::output::write_atomic(&args.output.with_extension("json"), json.as_bytes())?;
    if !args.job.sprite.quiet {
        eprintln!("{}: {} frames, {}x{}", args.output.display(), cells.len(), sheet.image.width, sheet.image.height);
    }
    Ok(ExitCode::SUCCESS)
}
