//! `spritebake sheet`, `gif` and `frames`: multi-frame sprite jobs. They share every flag but
//! their own (sheet layout, GIF settings, the frame pattern).

use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use spritebake::bake::Product;
use spritebake::spec::{BakeSpec, GifSpec, LayoutSpec, SpriteSpec};

use crate::args::{ImageArgs, RunArgs};
use crate::common::bake_files;

/// What every sprite command takes.
#[derive(Debug, Args)]
pub struct SpriteJobArgs {
    /// Model, clips (`--anim walk,run` renders several), camera, rendering, looks, limits.
    #[command(flatten)]
    pub image: ImageArgs,
    /// Directions and frames.
    #[command(flatten)]
    pub sprite: SpriteSpec,
    /// Threads and chatter.
    #[command(flatten)]
    pub run: RunArgs,
}

impl SpriteJobArgs {
    /// The bake these flags describe (before the command's own settings).
    fn spec(&self) -> BakeSpec {
        BakeSpec { sprite: self.sprite.clone(), ..self.image.spec() }
    }
}

/// `spritebake sheet`.
#[derive(Debug, Args)]
pub struct SheetArgs {
    /// Model, camera, directions, framing, looks, threads.
    #[command(flatten)]
    pub job: SpriteJobArgs,
    /// Sheet layout.
    #[command(flatten)]
    pub layout: LayoutSpec,
    /// Output PNG; the JSON is written beside it with the same stem.
    #[arg(short, long)]
    pub output: String,
}

/// `spritebake gif`.
#[derive(Debug, Args)]
pub struct GifArgs {
    /// Model, camera, directions, framing, looks, threads.
    #[command(flatten)]
    pub job: SpriteJobArgs,
    /// GIF settings.
    #[command(flatten)]
    pub gif: GifSpec,
    /// Output GIF.
    #[arg(short, long)]
    pub output: String,
}

/// `spritebake frames`.
#[derive(Debug, Args)]
pub struct FramesArgs {
    /// Model, camera, directions, framing, looks, threads.
    #[command(flatten)]
    pub job: SpriteJobArgs,
    /// Output path pattern with `{clip}`, `{dir}` (the direction's index), `{dirname}` (its
    /// name: S, SW, ...) and `{frame}` (zero padding as `{dir:2}`, `{frame:03}`, width 0 to 9),
    /// e.g. `out/walk_{dirname}_{frame:03}.png`. Clip names from the model are made safe file
    /// names (separators, `..` and control characters become `_`; a transition A->B is named
    /// `A-to-B`). Every file must get its own name: with several directions the pattern needs
    /// `{dir}` or `{dirname}`, with several clips `{clip}`.
    #[arg(short, long)]
    pub output: String,
}

impl SheetArgs {
    /// The bake these flags describe.
    pub fn spec(&self) -> BakeSpec {
        BakeSpec { layout: self.layout.clone(), ..self.job.spec() }
    }
}

impl GifArgs {
    /// The bake these flags describe.
    pub fn spec(&self) -> BakeSpec {
        BakeSpec { gif: self.gif.clone(), ..self.job.spec() }
    }
}

/// Runs `sheet`.
pub fn sheet(args: &SheetArgs) -> Result<ExitCode> {
    bake_files(Product::Sheet, &args.spec(), &args.output, &args.job.run)?;
    Ok(ExitCode::SUCCESS)
}

/// Runs `gif`.
pub fn gif(args: &GifArgs) -> Result<ExitCode> {
    bake_files(Product::Gif, &args.spec(), &args.output, &args.job.run)?;
    Ok(ExitCode::SUCCESS)
}

/// Runs `frames`: the pattern is expanded for every frame and checked before rendering, and
/// the frames are written all together or not at all.
pub fn frames(args: &FramesArgs) -> Result<ExitCode> {
    bake_files(Product::Frames, &args.job.spec(), &args.output, &args.job.run)?;
    Ok(ExitCode::SUCCESS)
}
