//! `spritebake render`: one image of a model.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use spritebake::bake::Product;
use spritebake::spec::{BakeSpec, MomentSpec};

use crate::args::{ImageArgs, RunArgs};
use crate::common::bake_files;

/// `spritebake render`.
#[derive(Debug, Args)]
pub struct RenderArgs {
    /// Model, clips, camera, rendering, looks, limits.
    #[command(flatten)]
    pub image: ImageArgs,
    /// Which moment.
    #[command(flatten)]
    pub moment: MomentSpec,
    /// Threads and chatter.
    #[command(flatten)]
    pub run: RunArgs,
    /// Output PNG.
    #[arg(short, long)]
    pub output: PathBuf,
}

/// Runs the command.
pub fn run(args: &RenderArgs) -> Result<ExitCode> {
    let spec = BakeSpec { moment: args.moment.clone(), ..args.image.spec() };
    bake_files(Product::Render, &spec, &args.output.to_string_lossy(), &args.run)?;
    Ok(ExitCode::SUCCESS)
}
