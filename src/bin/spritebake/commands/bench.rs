//! `spritebake bench`: render throughput on a model, the work glrender measures.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;
use clap::{Args, ValueEnum};
use spritebake::output::{OutputFormat, OutputPlan};
use spritebake::spec::{AnimSpec, BakeSpec, LimitsSpec, ModelSpec, RenderSpec, ViewSpec};

use crate::common::{resolve_and_load, set_threads};
use crate::orbit::{self, Framing, OrbitBench, Schedule};

/// `spritebake bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Model selection.
    #[command(flatten)]
    pub model: ModelSpec,
    /// The clip to play: frame i of the clip is posed for frame i (a clip name or an animation
    /// file; default: the rest pose).
    #[arg(long, value_name = "FILE|NAME")]
    pub anim: Option<String>,
    /// Camera and image (yaw is replaced by the orbit: frame i at 360·i/N degrees).
    #[command(flatten)]
    pub view: ViewSpec,
    /// Rendering.
    #[command(flatten)]
    pub render: RenderSpec,
    /// Resource limits.
    #[command(flatten)]
    pub limits: LimitsSpec,
    /// Timed frames, from 1 to 100000.
    #[arg(long, default_value_t = 200, value_parser = spritebake::internal::bounds::BENCH_FRAMES.parser())]
    pub frames: usize,
    /// Untimed frames rendered first, from 0 to 10000.
    #[arg(long, default_value_t = 2, value_parser = spritebake::internal::bounds::BENCH_WARMUP.parser())]
    pub warmup: usize,
    /// Worker threads, from 1 to 1024 (default: all cores).
    #[arg(long, value_parser = spritebake::internal::bounds::THREADS.parser())]
    pub threads: Option<usize>,
    /// Camera framing: `sphere` orbits the rest pose's bounding sphere as glrender does;
    /// `points` fits each frame tightly as `render` does.
    #[arg(long, value_enum, default_value = "sphere")]
    pub fit: FitArg,
    /// `frames` renders frames in parallel, one per thread (as sprite jobs do); `tiles` renders
    /// one frame at a time with its tiles in parallel.
    #[arg(long, value_enum, default_value = "frames")]
    pub schedule: ScheduleArg,
    /// Also write the last frame here, to see what was measured.
    #[arg(short, long)]
    pub output: Option<std::path::PathBuf>,
}

/// `--fit` values.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum FitArg {
    /// The rest pose's bounding sphere.
    Sphere,
    /// Each frame's posed points.
    Points,
}

/// `--schedule` values.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ScheduleArg {
    /// Frames in parallel.
    Frames,
    /// Tiles of one frame in parallel.
    Tiles,
}

/// Runs the command.
pub fn run(args: &BenchArgs) -> Result<ExitCode> {
    let mut stdout = std::io::stdout();
    use std::time::Instant;
    set_threads(args.threads)?;
    let start = Instant::now();
    let spec = BakeSpec {
        model: args.model.clone(),
        anim: AnimSpec { anim: args.anim.iter().cloned().collect(), ..AnimSpec::default() },
        view: args.view.clone(),
        render: args.render.clone(),
        limits: args.limits.clone(),
        ..BakeSpec::default()
    };
    let (resolved, loaded) = resolve_and_load(&spec)?;
    let load_seconds = start.elapsed().as_secs_f64();
    let mut plan = OutputPlan::new();
    if let Some(path) = &args.output {
        plan.add(path, OutputFormat::Png);
    }
    plan.check(&loaded.inputs)?;
    let model = loaded.model;
    let clip =
        resolved.clip.as_deref().filter(|_| args.anim.is_some()).map(|name| model.find_clip(name)).transpose()?;
    let options = resolved.options.clone();
    let (width, height, ssaa) = (options.width, options.height, options.ssaa);
    let report = orbit::orbit(
        &model,
        &OrbitBench {
            clip,
            view: resolved.view,
            options,
            frames: args.frames,
            warmup: args.warmup,
            framing: match args.fit {
                FitArg::Sphere => Framing::Sphere,
                FitArg::Points => Framing::Points,
            },
            schedule: match args.schedule {
                ScheduleArg::Frames => Schedule::Frames,
                ScheduleArg::Tiles => Schedule::Tiles,
            },
        },
    )?;
    let frames = report.frames.max(1) as f64;
    writeln!(
        stdout,
        "{} triangles, {width}x{height}, ssaa {ssaa}, {} frames in {:.3} s = {:.1} frames/s, {:.3} ms/frame, \
         {:.2} Mtri/s (load {:.3} s, posing {:.3} ms/frame of thread time, threads {})",
        model.triangle_count(),
        report.frames,
        report.seconds,
        report.frames_per_second(),
        1e3 * report.seconds / frames,
        report.mtriangles_per_second(),
        load_seconds,
        1e3 * report.pose_seconds / frames,
        rayon::current_num_threads(),
    )?;
    if let (Some(path), Some(image)) = (&args.output, &report.last_frame) {
        spritebake::output::write_png(path, image)?;
    }
    Ok(ExitCode::SUCCESS)
}
