//! `spritebake sheet`: clips × directions × frames in one PNG plus engine-ready JSON.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Args;
use spritebake::output::{OutputFormat, OutputPlan, Transaction, encode_png};
use spritebake::sprite::sheet::{JsonFormat, Layout, pack};

use crate::args::{JsonFormatArg, SpriteJobArgs};
use crate::common::{check_plan, load, render_cells, set_threads, sprite_job};

/// `spritebake sheet`.
#[derive(Debug, Args)]
pub struct SheetArgs {
    /// Model, camera, directions, framing, looks, threads.
    #[command(flatten)]
    pub job: SpriteJobArgs,
    /// Transparent pixels between cells and around the sheet, from 0 to 256.
    #[arg(long, default_value_t = 2, value_parser = spritebake::bounds::PADDING.parser())]
    pub padding: u32,
    /// Repeat each frame's edge pixels this far into the padding, from 0 to 64.
    #[arg(long, default_value_t = 0, value_parser = spritebake::bounds::EXTRUDE.parser())]
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
    let json_path = args.output.with_extension("json");
    let mut plan = OutputPlan::new();
    plan.add(&args.output, OutputFormat::Png).add(&json_path, OutputFormat::Json);
    check_plan(&plan, &args.job.model, &args.job.anim, &loaded)?;
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
    // Both files or neither: a PNG without its JSON is useless to an engine.
    let mut transaction = Transaction::new();
    transaction.stage(&args.output, &encode_png(&sheet.image)?)?;
    transaction.stage(&json_path, json.as_bytes())?;
    transaction.commit()?;
    if !args.job.sprite.quiet {
        eprintln!("{}: {} frames, {}x{}", args.output.display(), cells.len(), sheet.image.width, sheet.image.height);
    }
    Ok(ExitCode::SUCCESS)
}
