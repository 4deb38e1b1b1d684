//! `spritebake render`: one image of a model.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use spritebake::anim::PoseOptions;
use spritebake::bake::{self, FrameRequest};
use spritebake::output::{OutputFormat, OutputPlan};
use spritebake::raster::Renderer;

use crate::args::{AnimArgs, FrameArgs, ModelArgs, ViewArgs};
use crate::common::{check_plan, frame_time, load, set_threads};

/// `spritebake render`.
#[derive(Debug, Args)]
pub struct RenderArgs {
    /// Model selection.
    #[command(flatten)]
    pub model: ModelArgs,
    /// Attachments, bone overrides, blend, transition.
    #[command(flatten)]
    pub anim: AnimArgs,
    /// Which frame.
    #[command(flatten)]
    pub frame: FrameArgs,
    /// Camera and image.
    #[command(flatten)]
    pub view: ViewArgs,
    /// Output PNG.
    #[arg(short, long)]
    pub output: PathBuf,
    /// Draw joints and bones over the render.
    #[arg(long)]
    pub skeleton: bool,
    /// Worker threads, from 1 to 1024 (default: all cores).
    #[arg(long, value_parser = spritebake::bounds::THREADS.parser())]
    pub threads: Option<usize>,
}

/// Runs the command.
pub fn run(args: &RenderArgs) -> Result<ExitCode> {
    set_threads(args.threads)?;
    let loaded = load(&args.model, &args.anim)?;
    let model = &loaded.model;
    let mut plan = OutputPlan::new();
    plan.add(&args.output, OutputFormat::Png);
    check_plan(&plan, &args.model, &args.anim, &loaded)?;
    let pose = PoseOptions { in_place: args.frame.in_place, ..PoseOptions::default() };
    let request = FrameRequest { animation: loaded.animation(&args.model, pose)?, time: frame_time(&args.frame) };
    let options = args.view.render_options();
    let posed = request.pose(model);
    let aspect = options.width as f32 / options.height as f32;
    let camera = spritebake::raster::Camera::fit(&args.view.orbit(), &bake::world_points(model, &posed), aspect);
    let mut image = bake::render_posed(&Renderer::new(), model, &posed, camera, &options)?;
    if args.skeleton {
        let joints = bake::joint_pixels(model, &request, &camera, options.width, options.height);
        image = spritebake::sprite::post::skeleton_overlay(&image, &joints);
    }
    spritebake::output::write_png(&args.output, &image)?;
    Ok(ExitCode::SUCCESS)
}
