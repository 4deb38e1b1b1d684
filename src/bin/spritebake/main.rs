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

use args::{Cli, Command, FrameArgs, InfoArgs, ModelArgs, RenderArgs};

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
