//! `spritebake bench`: render throughput on a model, the work glrender measures.

use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use spritebake::anim::{FrameTime, PoseOptions};
use spritebake::bake;
use spritebake::raster::Renderer;

use crate::args::{ModelArgs, ViewArgs};
use crate::common::{load, set_threads};

/// `spritebake bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Model selection (with --anim, frame i of the clip is posed for frame i).
    #[command(flatten)]
    pub model: ModelArgs,
    /// Camera and image (yaw is replaced by the orbit: frame i at 360·i/N degrees).
    #[command(flatten)]
    pub view: ViewArgs,
    /// Timed frames.
    #[arg(long, default_value_t = 200)]
    pub frames: usize,
    /// Untimed frames rendered first.
    #[arg(long, default_value_t = 2)]
    pub warmup: usize,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
}

/// Runs the command.
pub fn run(args: &BenchArgs) -> Result<ExitCode> {
    use std::time::Instant;
    set_threads(args.threads)?;
    let start = Instant::now();
    let model = load(&args.model)?;
    let load_seconds = start.elapsed().as_secs_f64();
    let clip = args.model.clip_name().map(|name| bake::find_clip(&model, &name)).transpose()?;
    let renderer = Renderer::new();
    let options = args.view.render_options();
    let aspect = options.width as f32 / options.height as f32;
    let (mut pose_seconds, mut render_seconds, mut triangles) = (0.0, 0.0, 0usize);
    for i in 0..args.warmup + args.frames {
        let timed = i >= args.warmup;
        let t0 = Instant::now();
        let frame = FrameTime::Frame(i as f32);
        let posed = spritebake::anim::pose(&model, clip, frame, &PoseOptions::default());
        let t1 = Instant::now();
        let mut view = args.view.orbit();
        view.yaw_degrees = 360.0 * i as f32 / args.frames.max(1) as f32;
        let camera = spritebake::raster::Camera::fit(&view, &bake::world_points(&model, &posed), aspect);
        let image = bake::render_posed(&renderer, &model, &posed, camera, &options)?;
        std::hint::black_box(&image);
        if timed {
            pose_seconds += (t1 - t0).as_secs_f64();
            render_seconds += t1.elapsed().as_secs_f64();
            triangles += posed.triangle_count();
        }
    }
    let total = pose_seconds + render_seconds;
    let frames = args.frames as f64;
    println!(
        "{} triangles, {}x{}, ssaa {}, {} frames in {:.3} s = {:.1} frames/s, {:.3} ms/frame, {:.2} Mtri/s \
         (load {:.3} s, posing {:.3} ms/frame, rendering {:.3} ms/frame, threads {})",
        model.triangle_count(),
        options.width,
        options.height,
        options.ssaa,
        args.frames,
        total,
        frames / total,
        1e3 * total / frames,
        triangles as f64 / total / 1e6,
        load_seconds,
        1e3 * pose_seconds / frames,
        1e3 * render_seconds / frames,
        rayon::current_num_threads(),
    );
    Ok(ExitCode::SUCCESS)
}
