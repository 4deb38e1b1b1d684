//! `spritebake thumbnail`: a good picture of each model with no flags, many models in parallel.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use rayon::prelude::*;
use spritebake::anim::PoseOptions;
use spritebake::bake::{self, FrameRequest};
use spritebake::formats::{self, LoadOptions};
use spritebake::output::{OutputFormat, OutputPlan, sanitize_component};
use spritebake::raster::{Light, OrbitView, RenderOptions, Renderer};
use spritebake::rig::{self, Controls};

use crate::args::AnimArgs;
use crate::common::set_threads;

/// `spritebake thumbnail`.
#[derive(Debug, Args)]
pub struct ThumbnailArgs {
    /// Model files.
    #[arg(required = true)]
    pub models: Vec<PathBuf>,
    /// Output: a folder (one `<stem>.png` per model, the stem made a safe file name; created if
    /// missing) or, for one model, a `.png` file.
    #[arg(short, long)]
    pub output: PathBuf,
    /// Thumbnail size in pixels (square), from 1 to 8192.
    #[arg(long, default_value_t = 256, value_parser = spritebake::bounds::SIDE.parser())]
    pub size: u32,
    /// Worker threads, from 1 to 1024 (default: all cores).
    #[arg(long, value_parser = spritebake::bounds::THREADS.parser())]
    pub threads: Option<usize>,
    /// Clip to pose (default: the first clip).
    #[arg(long, value_name = "NAME")]
    pub anim: Option<String>,
    /// Attachments, bone overrides, blend, transition (applied to every model).
    #[command(flatten)]
    pub controls: AnimArgs,
    /// Limits for every model (each gets its own memory budget).
    #[command(flatten)]
    pub limits: crate::args::LimitArgs,
}

/// Three-quarter view, key + fill light, 4×4 supersampling.
fn thumbnail_options(size: u32) -> (OrbitView, RenderOptions) {
    let view = OrbitView { yaw_degrees: 35.0, pitch_degrees: 20.0, ..OrbitView::default() };
    let options = RenderOptions {
        width: size,
        height: size,
        ssaa: 4,
        lights: vec![Light::KEY, Light::FILL],
        ambient: 0.25,
        ..RenderOptions::default()
    };
    (view, options)
}

/// One model and `-o NAME.EXT` that is not an existing folder: the output is that file (and
/// the plan refuses an extension other than .png); otherwise `-o` is a folder.
fn single_file(args: &ThumbnailArgs) -> bool {
    args.models.len() == 1 && args.output.extension().is_some() && !args.output.is_dir()
}

fn output_for(args: &ThumbnailArgs, model: &Path) -> PathBuf {
    if single_file(args) {
        return args.output.clone();
    }
    let stem = model.file_stem().map(|s| sanitize_component(&s.to_string_lossy())).unwrap_or_else(|| "model".into());
    args.output.join(format!("{stem}.png"))
}

/// The files named on the command line that every model of the batch reads.
fn shared_inputs(args: &ThumbnailArgs) -> Vec<PathBuf> {
    let controls = &args.controls;
    controls.animation_files().into_iter().chain(controls.attach.iter().map(|a| a.path.clone())).collect()
}

fn one(
    model_path: &Path,
    out: &Path,
    args: &ThumbnailArgs,
    controls: &Controls,
    renderer: &Renderer,
) -> spritebake::Result<usize> {
    let load = LoadOptions {
        animations: args.controls.animation_files(),
        limits: args.limits.limits(),
        ..LoadOptions::default()
    };
    let model = formats::load(model_path, &load)?;
    let props = rig::load_attachments(controls, model_path, &model, &load)?;
    // This model's own files (its skin may sit where its thumbnail would go): checked once
    // they are known, and a clash fails this model only.
    let mut inputs = shared_inputs(args);
    inputs.extend(model.sources.iter().chain(props.iter().flat_map(|p| &p.sources)).cloned());
    let mut plan = OutputPlan::new();
    plan.add(out, OutputFormat::Png);
    plan.check(&inputs)?;
    let clip = match &args.anim {
        Some(name) => Some(bake::find_clip(&model, name)?),
        None => model.clips.first(),
    };
    let animation = rig::animation(&model, &props, controls, clip, PoseOptions::default())?;
    let (view, options) = thumbnail_options(args.size);
    let request = FrameRequest { animation, ..FrameRequest::default() };
    let image = bake::render_frame(renderer, &model, &request, &view, &options)?;
    spritebake::output::write_png(out, &image)?;
    Ok(model.warnings.len() + props.iter().map(|p| p.warnings.len()).sum::<usize>())
}

/// Runs the command: one line per model; failures do not stop the others.
pub fn run(args: &ThumbnailArgs) -> Result<ExitCode> {
    let mut stdout = std::io::stdout();
    set_threads(args.threads)?;
    // Every model's output, planned before anything is rendered: two models with one stem,
    // or an output on any model file, refuse the whole batch. (An output that cannot be
    // written, such as a folder in the way, fails only its own model, below.)
    let mut plan = OutputPlan::new();
    for m in &args.models {
        plan.add(output_for(args, m), OutputFormat::Png);
    }
    plan.check_distinct(&args.models.iter().cloned().chain(shared_inputs(args)).collect::<Vec<_>>())?;
    // A batch commits per model, so its folder is made once, up front.
    if !single_file(args) {
        std::fs::create_dir_all(&args.output)?;
    }
    let renderer = Renderer::new();
    let controls = args.controls.controls()?;
    // However many cores, only a few models (each within its budget, and its attachments
    // within another) are held at once.
    let per_model = args.limits.memory.bytes().saturating_mul(if controls.attachments.is_empty() { 1 } else { 2 });
    let at_once = spritebake::budget::models_in_flight(per_model);
    let results: Vec<(PathBuf, PathBuf, spritebake::Result<usize>)> = args
        .models
        .chunks(at_once)
        .flat_map(|chunk| {
            chunk
                .par_iter()
                .map(|m| {
                    let out = output_for(args, m);
                    let result = one(m, &out, args, &controls, &renderer);
                    (m.clone(), out, result)
                })
                .collect::<Vec<_>>()
        })
        .collect();
    let mut failed = 0;
    for (model, out, result) in &results {
        // File names and error messages carry model text: one escaped line per model.
        let line = match result {
            Ok(0) => format!("ok    {} -> {}", model.display(), out.display()),
            Ok(w) => format!("ok    {} -> {} ({w} warnings)", model.display(), out.display()),
            Err(e) => {
                failed += 1;
                // Loader errors start with the file's name already.
                let message = e.to_string();
                let prefix = format!("{}: ", model.display());
                format!("FAIL  {prefix}{}", message.strip_prefix(&prefix).unwrap_or(&message))
            }
        };
        writeln!(stdout, "{}", spritebake::text::escape_control(&line))?;
    }
    writeln!(stdout, "{} thumbnails, {failed} failed", results.len() - failed)?;
    Ok(if failed > 0 { ExitCode::from(1) } else { ExitCode::SUCCESS })
}
