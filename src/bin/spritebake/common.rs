//! Small steps shared by the commands.

use std::path::PathBuf;

use anyhow::{Context, Result};
use spritebake::anim::{Animation, FrameTime, PoseOptions};
use spritebake::formats;
use spritebake::model::Model;
use spritebake::output::OutputPlan;
use spritebake::rig::{self, Controls};

use crate::args::{AnimArgs, FrameArgs, ModelArgs};

/// Sizes rayon's global pool (once, before any parallel work).
pub fn set_threads(threads: Option<usize>) -> Result<()> {
    if let Some(n) = threads {
        rayon::ThreadPoolBuilder::new().num_threads(n.max(1)).build_global().context("setting up worker threads")?;
    }
    Ok(())
}

/// A loaded body with its attachment models and the controls that go with them.
pub struct Loaded {
    /// The body.
    pub model: Model,
    /// Attachment models, in `--attach` order.
    pub props: Vec<Model>,
    /// The animation controls.
    pub controls: Controls,
}

/// Loads the model (with the animation files --blend and --transition name) and its
/// attachments, printing warnings to stderr.
pub fn load(args: &ModelArgs, anim: &AnimArgs) -> Result<Loaded> {
    let options = args.load_options_with(anim.animation_files());
    let mut model = formats::load(&args.model, &options)?;
    let controls = anim.controls()?;
    // `all` (every glTF animation together) is made on demand, wherever a clip is named.
    let anims = args.clip_names();
    let blended = controls.blend.iter().map(|b| &b.clip);
    let faded = controls.transitions.iter().flat_map(|t| [&t.from, &t.to]);
    if anims.iter().chain(blended).chain(faded).any(|n| n == spritebake::bake::ALL_CLIPS) {
        spritebake::bake::add_all_clip(&mut model)?;
    }
    let props = rig::load_attachments(&controls, &args.model, &model, &options)?;
    for warning in model.warnings.iter().chain(props.iter().flat_map(|p| &p.warnings)) {
        eprintln!("warning: {}", spritebake::text::escape_control(warning));
    }
    Ok(Loaded { model, props, controls })
}

impl Loaded {
    /// The one animation of a single-frame command: the first transition, else the last
    /// `--anim` clip, else the rest pose.
    pub fn animation(&self, args: &ModelArgs, pose: PoseOptions) -> Result<Animation<'_>> {
        let clip = args.clip_name().map(|name| spritebake::bake::find_clip(&self.model, &name)).transpose()?;
        Ok(rig::animation(&self.model, &self.props, &self.controls, clip, pose)?)
    }
}

/// The moment selected by --frame/--time (frame 0 by default).
pub fn frame_time(frame: &FrameArgs) -> FrameTime {
    match (frame.frame, frame.time) {
        (_, Some(t)) => FrameTime::Seconds(t),
        (Some(f), None) => FrameTime::Frame(f),
        (None, None) => FrameTime::Frame(0.0),
    }
}

/// Builds the sprite job of a multi-frame command.
pub fn sprite_job<'m>(loaded: &'m Loaded, args: &crate::args::SpriteJobArgs) -> Result<spritebake::sprite::Job<'m>> {
    use spritebake::sprite::{Fit, Job, Sampling};
    let model = &loaded.model;
    let (model_args, view, sprite) = (&args.model, &args.view, &args.sprite);
    let names = model_args.clip_names();
    let transitions = rig::transitions(model, &loaded.controls)?;
    let clips = if names.is_empty() && transitions.is_empty() {
        vec![model.clips.first()]
    } else {
        names.iter().map(|n| spritebake::bake::find_clip(model, n).map(Some)).collect::<Result<_, _>>()?
    };
    let mut options = view.render_options();
    let mut orbit = view.orbit();
    if sprite.view.is_some() {
        orbit = spritebake::raster::OrbitView { margin: orbit.margin, ..spritebake::raster::OrbitView::ISOMETRIC_2_1 };
    }
    if let Some(scale) = sprite.pixel_art {
        // Render large without supersampling; the hard-edged downscale is the anti-aliasing.
        let scale = scale.clamp(1, 16);
        options.width *= scale;
        options.height *= scale;
        options.ssaa = 1;
    }
    let mut job = Job {
        model,
        clips,
        transitions,
        layers: Default::default(),
        directions: sprite.directions,
        view: orbit,
        options,
        fit: match sprite.fit {
            crate::args::FitArg::Shared => Fit::Shared,
            crate::args::FitArg::PerFrame => Fit::PerFrame,
        },
        sampling: match (sprite.sample_fps, sprite.frames) {
            (Some(f), _) => Sampling::Fps(f),
            (None, Some(n)) => Sampling::Count(n),
            _ => Sampling::ClipFrames,
        },
        pose: spritebake::anim::PoseOptions { looping: true, in_place: !sprite.root_motion },
        skeleton: sprite.skeleton,
    };
    // The layers are checked against every row (lockstep attachments need each clip).
    job.layers = rig::layers(model, &loaded.props, &loaded.controls, &job.motions())?;
    Ok(job)
}

/// Renders a job with a progress bar on a terminal, then applies pixel-art and outline.
pub fn render_cells(
    job: &spritebake::sprite::Job,
    args: &crate::args::SpriteJobArgs,
) -> Result<Vec<spritebake::sprite::Cell>> {
    let sprite = &args.sprite;
    use std::io::IsTerminal;
    let bar = (!sprite.quiet && std::io::stderr().is_terminal()).then(|| {
        let bar = indicatif::ProgressBar::new(job.cell_count() as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} frames {elapsed}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar
    });
    // The finished frames get a budget of their own, besides the model's.
    let mut cells = job.render_with_progress(&args.model.limits.memory.budget(), &|| {
        if let Some(b) = &bar {
            b.inc(1);
        }
    })?;
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    for cell in &mut cells {
        if let Some(scale) = sprite.pixel_art {
            let scale = scale.clamp(1, 16);
            cell.image = spritebake::sprite::post::pixelate(&cell.image, scale);
            cell.pivot /= scale as f32;
            if let Some(n) = sprite.palette {
                cell.image = spritebake::sprite::post::posterize(&cell.image, n);
            }
        }
        if sprite.outline > 0 {
            let [r, g, b, _] = sprite.outline_color;
            cell.image = spritebake::sprite::post::outline(&cell.image, sprite.outline, [r, g, b]);
        }
    }
    Ok(cells)
}

/// Every file a loaded job reads: what the loader recorded for the body and each attachment
/// (model, material libraries, buffers, textures, animations), plus every file named on the
/// command line (the model, `--anim`, `--blend`, `--transition`, `--attach`, `--texture`), in
/// case one of them was refused or failed before the loader recorded it.
pub fn inputs(args: &ModelArgs, anim: &AnimArgs, loaded: &Loaded) -> Vec<PathBuf> {
    let mut inputs = vec![args.model.clone()];
    inputs.extend(args.anim_files());
    inputs.extend(args.texture_files());
    inputs.extend(anim.animation_files());
    inputs.extend(anim.attach.iter().map(|a| a.path.clone()));
    inputs.extend(loaded.model.sources.iter().chain(loaded.props.iter().flat_map(|p| &p.sources)).cloned());
    inputs
}

/// Checks a command's planned outputs against everything its loaded job reads.
pub fn check_plan(plan: &OutputPlan, args: &ModelArgs, anim: &AnimArgs, loaded: &Loaded) -> Result<()> {
    Ok(plan.check(&inputs(args, anim, loaded))?)
}
