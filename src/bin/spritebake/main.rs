//! The `spritebake` command line: parses flags, calls the library, reports errors as one line.

mod args;

use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Parser;
use spritebake::anim::{FrameTime, PoseOptions};
use spritebake::bake::{self, FrameRequest};
use spritebake::formats;
use spritebake::model::{ClipFrames, Model, TextureStatus};
use spritebake::raster::Renderer;

use args::{BenchArgs, Cli, Command, FrameArgs, InfoArgs, ModelArgs, RenderArgs};

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Render(args) => render(&args),
        Command::Info(args) => info(&args),
        Command::Bench(args) => bench(&args),
    }
}

fn set_threads(threads: Option<usize>) -> Result<()> {
    if let Some(n) = threads {
        rayon::ThreadPoolBuilder::new().num_threads(n.max(1)).build_global().context("setting up worker threads")?;
    }
    Ok(())
}

fn load(args: &ModelArgs) -> Result<Model> {
    let model = formats::load(&args.model, &args.load_options())?;
    for warning in &model.warnings {
        eprintln!("warning: {warning}");
    }
    Ok(model)
}

fn frame_time(frame: &FrameArgs) -> FrameTime {
    match (frame.frame, frame.time) {
        (_, Some(t)) => FrameTime::Seconds(t),
        (Some(f), None) => FrameTime::Frame(f),
        (None, None) => FrameTime::Frame(0.0),
    }
}

fn render(args: &RenderArgs) -> Result<ExitCode> {
    set_threads(args.threads)?;
    let model = load(&args.model)?;
    let clip = args.model.clip_name().map(|name| bake::find_clip(&model, &name)).transpose()?;
    let request = FrameRequest {
        clip,
        time: frame_time(&args.frame),
        pose: PoseOptions { in_place: args.frame.in_place, ..PoseOptions::default() },
    };
    let image =
        bake::render_frame(&Renderer::new(), &model, &request, &args.view.orbit(), &args.view.render_options())?;
    spritebake::output::write_png(&args.output, &image)?;
    Ok(ExitCode::SUCCESS)
}

fn info(args: &InfoArgs) -> Result<ExitCode> {
    let model = formats::load(&args.model.model, &args.model.load_options())?;
    println!("model: {} ({})", args.model.model.display(), model.name);
    println!(
        "meshes: {}  vertices: {}  triangles: {}",
        model.meshes.len(),
        model.vertex_count(),
        model.triangle_count()
    );
    for (i, mesh) in model.meshes.iter().enumerate() {
        let material = model.materials.get(mesh.material).map(|m| m.name.as_str()).unwrap_or("?");
        println!(
            "  mesh {i} '{}': {} vertices, {} triangles, material '{material}'",
            mesh.name,
            mesh.positions.len(),
            mesh.indices.len()
        );
    }
    println!("materials: {}", model.materials.len());
    for m in &model.materials {
        let texture = match &m.texture_status {
            TextureStatus::None => "no texture".to_string(),
            TextureStatus::Found(path) => format!("texture {}", path.display()),
            TextureStatus::Missing { name, reason } => format!("texture '{name}' MISSING ({reason})"),
        };
        println!("  '{}': {texture}", m.name);
    }
    if let Some(skeleton) = &model.skeleton {
        println!("joints: {}", skeleton.joints.len());
    }
    println!("clips: {}", model.clips.len());
    for clip in &model.clips {
        let kind = match clip.frames {
            ClipFrames::Skeletal(_) => "skeletal",
            ClipFrames::Morph(_) => "morph",
        };
        println!(
            "  '{}': {} frames at {} fps, {:.3} s ({kind})",
            clip.name,
            clip.frame_count(),
            clip.fps,
            clip.duration()
        );
    }
    let b = model.rest_bounds();
    if b.is_empty() {
        println!("bounds: empty");
    } else {
        println!(
            "bounds: min {:.4} {:.4} {:.4}  max {:.4} {:.4} {:.4}",
            b.min.x, b.min.y, b.min.z, b.max.x, b.max.y, b.max.z
        );
    }
    for w in &model.warnings {
        println!("warning: {w}");
    }
    Ok(ExitCode::SUCCESS)
}

fn bench(args: &BenchArgs) -> Result<ExitCode> {
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
