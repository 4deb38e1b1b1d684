//! `spritebake export`: the posed mesh of one frame as OBJ + MTL.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use glam::Mat3;
use spritebake::anim::{self, PoseOptions};
use spritebake::output::{OutputPlan, Transaction, encode_obj};

use crate::args::{AnimArgs, FrameArgs, ModelArgs};
use crate::common::{check_plan, frame_time, load};

/// `spritebake export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// Model selection.
    #[command(flatten)]
    pub model: ModelArgs,
    /// Attachments, bone overrides, blend, transition.
    #[command(flatten)]
    pub anim: AnimArgs,
    /// Which frame.
    #[command(flatten)]
    pub frame: FrameArgs,
    /// Convert to Y-up, facing +Z (default: the model file's own axes).
    #[arg(long)]
    pub y_up: bool,
    /// Output OBJ (a .mtl with the same stem is written beside it).
    #[arg(short, long)]
    pub output: PathBuf,
}

/// Runs the command.
pub fn run(args: &ExportArgs) -> Result<ExitCode> {
    let loaded = load(&args.model, &args.anim)?;
    let model = &loaded.model;
    let pose = PoseOptions { in_place: args.frame.in_place, ..PoseOptions::default() };
    let animation = loaded.animation(&args.model, pose)?;
    let posed = anim::animate(model, &animation, frame_time(&args.frame));
    let axes = if args.y_up { model.orientation.to_canonical() } else { Mat3::IDENTITY };
    let export = encode_obj(&args.output, &posed, axes);
    let mut plan = OutputPlan::new();
    export.plan(&mut plan);
    check_plan(&plan, &args.model, &args.anim, &loaded)?;
    // OBJ, MTL and texture copies all together, or none of them.
    let mut transaction = Transaction::new();
    let max_bytes = args.model.load_options().limits.max_file_bytes;
    for (source, dest) in &export.textures {
        transaction.stage(dest, &spritebake::formats::read_file(source, max_bytes)?)?;
    }
    transaction.stage(&export.mtl.0, export.mtl.1.as_bytes())?;
    transaction.stage(&export.obj.0, export.obj.1.as_bytes())?;
    transaction.commit()?;
    Ok(ExitCode::SUCCESS)
}
