//! `spritebake export`: the posed mesh of one frame as OBJ + MTL.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use glam::Mat3;
use spritebake::anim::{self, PoseOptions};

use crate::args::{AnimArgs, FrameArgs, ModelArgs};
use crate::common::{frame_time, guard_output, load};

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
    guard_output(&args.output, &args.model, model)?;
    guard_output(&args.output.with_extension("mtl"), &args.model, model)?;
    spritebake::output::write_obj(&args.output, &posed, axes)?;
    Ok(ExitCode::SUCCESS)
}
