//! The orbit benchmark: the work a peer renderer such as Mesa's llvmpipe (driven by `glrender`)
//! is timed on — one model, `N` frames of a camera orbiting it, each image kept in memory —
//! measured with spritebake's own pipeline, posing included when a clip plays.
//!
//! Two choices decide what is compared, and both default to the peer's:
//! * **Framing** ([`Framing::Sphere`]): the camera orbits the rest pose's bounding sphere at the
//!   peer's distance, so both renderers shade the same pixels. [`Framing::Points`] fits every
//!   frame tightly as `render` does, which shades more pixels of a tall character.
//! * **Schedule** ([`Schedule::Frames`]): a sequence of small frames runs one frame per thread,
//!   which is how sprite jobs run; [`Schedule::Tiles`] renders frames one after another with the
//!   tiles of each frame spread over the threads (what a single large render does).

use std::time::Instant;

use glam::Vec3;
use rayon::prelude::*;

use spritebake::Result;
use spritebake::anim::{self, FrameTime, PoseOptions};
use spritebake::internal::bake;
use spritebake::model::{Aabb, Clip, Model, SharedPositions};
use spritebake::raster::{Camera, Image, OrbitView, RenderOptions, Renderer};

/// How the orbiting camera frames the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Framing {
    /// The rest pose's bounding sphere, one distance for the whole orbit (the default; what
    /// glrender does).
    #[default]
    Sphere,
    /// Every frame fitted to its own posed points, as `render` frames one image.
    Points,
}

/// How frames share the threads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Schedule {
    /// Frames in parallel, one per thread (the default; how sprite jobs run).
    #[default]
    Frames,
    /// One frame at a time, its tiles in parallel.
    Tiles,
}

/// What to measure.
#[derive(Debug, Clone)]
pub struct OrbitBench<'a> {
    /// The clip to play (frame `i` of the orbit poses frame `i` of the clip), or the rest pose.
    pub clip: Option<&'a Clip>,
    /// Pitch, projection and margin of the orbit; the yaw is replaced by `360° · i / frames`.
    pub view: OrbitView,
    /// Image size and shading.
    pub options: RenderOptions,
    /// Timed frames.
    pub frames: usize,
    /// Untimed frames rendered first (textures prepared, caches warm).
    pub warmup: usize,
    /// Camera framing.
    pub framing: Framing,
    /// Thread schedule.
    pub schedule: Schedule,
}

/// What was measured.
#[derive(Debug, Clone)]
pub struct BenchReport {
    /// Timed frames.
    pub frames: usize,
    /// Triangles submitted over the timed frames.
    pub triangles: usize,
    /// Wall time of the timed frames, seconds.
    pub seconds: f64,
    /// Time spent posing, summed over the timed frames (thread time, not wall time), seconds.
    pub pose_seconds: f64,
    /// The last timed frame, to look at what was measured.
    pub last_frame: Option<Image>,
}

impl BenchReport {
    /// Frames per second of wall time.
    pub fn frames_per_second(&self) -> f64 {
        self.frames as f64 / self.seconds.max(1e-12)
    }

    /// Millions of submitted triangles per second of wall time.
    pub fn mtriangles_per_second(&self) -> f64 {
        self.triangles as f64 / self.seconds.max(1e-12) / 1e6
    }
}

/// Renders the orbit and times it.
///
/// # Errors
/// Invalid render options (see [`Renderer::render`]).
pub fn orbit(model: &Model, bench: &OrbitBench) -> Result<BenchReport> {
    let renderer = Renderer::new();
    let sphere = rest_sphere(model);
    // Each position projected once, as sprite jobs draw their frames (the table is made once,
    // before the clock starts, as a job makes it before its first frame).
    let shared = SharedPositions::of_each(&model.meshes);
    // Each worker renders into its own image, reused frame after frame as the peer reuses its
    // read-back buffer.
    let frame = |image: &mut Image, i: usize| -> Result<(f64, usize, Option<Image>)> {
        // Warm-up frames repeat the first timed ones: the orbit is over the timed frames.
        let step = i.checked_sub(bench.warmup).unwrap_or(i);
        let start = Instant::now();
        let mut posed = anim::pose(model, bench.clip, FrameTime::Frame(step as f32), &PoseOptions::default());
        posed.share_positions(&model.meshes, &shared);
        let pose_seconds = start.elapsed().as_secs_f64();
        let view = OrbitView { yaw_degrees: 360.0 * step as f32 / bench.frames.max(1) as f32, ..bench.view };
        let aspect = bench.options.width as f32 / bench.options.height.max(1) as f32;
        let camera = match bench.framing {
            Framing::Sphere => Camera::orbit_sphere(&view, sphere.0, sphere.1, aspect),
            Framing::Points => Camera::fit(&view, &bake::world_points(model, &posed), aspect),
        };
        bake::render_posed_into(&renderer, model, &posed, camera, &bench.options, image)?;
        // Only the last frame is kept, to look at.
        let keep = (i + 1 == bench.warmup + bench.frames).then(|| image.clone());
        Ok((pose_seconds, posed.triangle_count(), keep))
    };
    let mut image = Image::default();
    for i in 0..bench.warmup {
        frame(&mut image, i)?;
    }
    let start = Instant::now();
    let timed = bench.warmup..bench.warmup + bench.frames;
    let results: Vec<(f64, usize, Option<Image>)> = match bench.schedule {
        Schedule::Frames => timed.into_par_iter().map_init(Image::default, frame).collect::<Result<_>>()?,
        Schedule::Tiles => timed.map(|i| frame(&mut image, i)).collect::<Result<_>>()?,
    };
    let seconds = start.elapsed().as_secs_f64();
    Ok(BenchReport {
        frames: bench.frames,
        triangles: results.iter().map(|r| r.1).sum(),
        seconds,
        pose_seconds: results.iter().map(|r| r.0).sum(),
        last_frame: results.into_iter().filter_map(|r| r.2).next_back(),
    })
}

/// Centre and radius of the sphere around the rest pose's world-space bounding box (the box's
/// half diagonal, as the peer computes it).
fn rest_sphere(model: &Model) -> (Vec3, f32) {
    let rest = anim::rest_pose(model);
    let bounds = Aabb::from_points(bake::world_points(model, &rest));
    ((bounds.min + bounds.max) * 0.5, (bounds.max - bounds.min).length() * 0.5)
}
