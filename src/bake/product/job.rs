//! Sprite jobs: many frames of a model — clips × directions × frames — rendered with one
//! framing, for sheets, GIFs and frame sequences.
//!
//! **Framing that never jitters.** By default every cell of a job shares one camera fit: the
//! posed points of every frame of every clip are wrapped in a vertical cylinder around the
//! vertical line through the model's origin, and the camera is fitted to that cylinder. The
//! cylinder looks the same from every yaw, so every direction gets the same scale, the same
//! ground line and the same pivot, and the model turns about its origin inside a fixed frame. A fixed scale
//! ([`Job::pixels_per_unit`]) and cells cut to the job's content ([`Job::auto_size`]) are
//! framed from the same points (see `framing.rs`). `Fit::PerFrame` fits each cell to its own
//! frame instead (tight, but the model jumps and shrinks between cells).
//!
//! **Directions** are named and turned as [`Directions`] says: direction `d` is the camera's
//! yaw plus [`Directions::angle`]`(d)`, so direction 0 is the view itself (its front faces the
//! camera at yaw 0) and direction 1 of 8 (`SW`) shows the model facing down and to the left.
//!
//! Cells render in parallel across frames (each small frame on one thread), which uses the
//! cores better than splitting a 128×128 frame into tiles; output is identical for any thread
//! count because every cell is rendered independently.
//!
//! **Rows.** A job renders rows: each clip of [`Job::clips`], then each transition of
//! [`Job::transitions`] (named `from->to`), all with the same [`Job::layers`] (blend, bone
//! overrides, attachments) through [`anim::animate`], the one posing path. Attachments are
//! part of the posed mesh, so shared framing includes them.

use std::borrow::Cow;

use glam::{Vec2, Vec3};
use rayon::prelude::*;

use crate::anim::{self, Animation, FrameTime, Layers, Motion, PoseOptions, Transition};
use crate::bake::frame::framing::{self, Framing, PosedFrames, cylinder};
use crate::bake::frame::points::{self, Point};
use crate::bake::frame::render::{
    FrameRequest, into_world, joint_pixels, render_posed, render_posed_into_rows, scene, world_points,
};
use crate::bake::look::maps::{self, MapKind, Maps, SurfaceMaps};
use crate::bake::{Directions, look::palette, look::post};
use crate::bounds;
use crate::budget::{MemoryBudget, bytes_for};
use crate::error::Result;
use crate::model::{Clip, ClipFrames, Model, SharedPositions};
use crate::raster::{Camera, Image, OrbitView, PixelRows, RenderOptions, Renderer};
use crate::spec::{Fit, Ground, Look};
use crate::sprite::{Looping, Sampling};

/// A batch of cells to render.
#[derive(Debug, Clone)]
pub struct Job<'a> {
    /// The model.
    pub model: &'a Model,
    /// Clips to render (`None` entries render the rest pose once).
    pub clips: Vec<Option<&'a Clip>>,
    /// Transitions to render after the clips, each as one more row.
    pub transitions: Vec<Transition<'a>>,
    /// Blend, bone overrides and attachments applied to every row.
    pub layers: Layers<'a>,
    /// The directions, with their names: yaw steps of 360/N from the view's yaw. Direction 0
    /// faces the camera.
    pub directions: Directions,
    /// Base camera (yaw of direction 0, pitch, projection, margin).
    pub view: OrbitView,
    /// Render options, including the render size (with pixel art, `look.pixel_art` times the
    /// cell size).
    pub options: RenderOptions,
    /// Framing, unless `pixels_per_unit` or `auto_size` frame the job as one.
    pub fit: Fit,
    /// Fixed scale: exactly this many pixels per model unit in the finished cells, the ground
    /// point under the model's origin on one pixel of every cell (orthographic views).
    pub pixels_per_unit: Option<f32>,
    /// The ground the pivot stands on (see `framing.rs`).
    pub ground: Ground,
    /// Cells cut to the content of the whole job, at most `options`' size.
    pub auto_size: bool,
    /// Which frames of each clip.
    pub sampling: Sampling,
    /// Which clips loop and which play once (transitions play once).
    pub looping: Looping,
    /// Posing options (`in_place` keeps walk cycles from walking out of the frame).
    pub pose: PoseOptions,
    /// Post-processing of every cell: the cells [`Job::render`] returns are final.
    pub look: Look,
    /// The points whose pixel each cell records ([`Cell::points`]).
    pub points: Vec<Point>,
}

/// What a sheet's JSON says about the job besides its frames.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct JobInfo {
    /// Row names (clips, `from->to` transitions, `rest`), by row index.
    pub rows: Vec<String>,
    /// The directions and their names.
    pub directions: Directions,
    /// The fixed scale, pixels per model unit, if the job has one.
    pub pixels_per_unit: Option<f32>,
    /// Whether the images' colour is premultiplied by alpha (the look's `alpha`).
    pub premultiplied: bool,
    /// Whether the images are pixel art (the look's `pixel_art`): hard-edged pixels an engine
    /// should sample nearest, never filter.
    pub pixel_art: bool,
    /// The names of the points each frame records ([`Cell::points`]), in their order.
    pub points: Vec<String>,
}

impl JobInfo {
    /// The tag (animation) of the cells of `row` turned to `direction`: `walk_S`, `a->b_SW`.
    /// Every sheet's frames are grouped by it ([`crate::bake::Placement::animation`]) and every file
    /// named after an animation is planned from it, so the two never disagree.
    pub fn tag(&self, row: usize, direction: u32) -> String {
        let row = self.rows.get(row).cloned().unwrap_or_else(|| format!("clip{row}"));
        format!("{row}_{}", self.directions.name(direction))
    }

    /// The name of the frame of `key` (row, direction, frame) and its tag ([`JobInfo::tag`]):
    /// `walk_SW_007`, `walk_SW`.
    pub fn frame_names(&self, (row, direction, frame): (usize, u32, usize)) -> (String, String) {
        let animation = self.tag(row, direction);
        (format!("{animation}_{frame:03}"), animation)
    }
}

/// An animation of a sheet, known before anything renders ([`Job::tags`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SheetTag {
    /// Its name ([`JobInfo::tag`]).
    pub name: String,
    /// How many frames it has.
    pub frames: usize,
    /// Whether it is a mirrored direction's, its source's frames drawn flipped.
    pub flipped: bool,
}

/// One rendered cell.
#[derive(Debug, Clone)]
pub struct Cell {
    /// Row index: into [`Job::clips`], then [`Job::transitions`] (see [`Job::rows`]).
    pub clip: usize,
    /// Direction index (0..directions).
    pub direction: u32,
    /// Frame index within the clip's sampling.
    pub frame: usize,
    /// How long the frame shows, in seconds.
    pub duration: f32,
    /// Whether its row loops ([`Looping`](crate::bake::Looping)): transitions (`A->B`) and clips marked to play
    /// once do not.
    pub looping: bool,
    /// The finished image (the job's cell size); empty when the cell was drawn straight where
    /// it goes ([`WaveSink::places`]).
    pub image: Image,
    /// The ground point under the model's origin (see `framing.rs`; under the centre of the
    /// frame's bounds when each cell is fitted alone), in pixels of the image: whole pixels
    /// unless each cell is fitted alone.
    pub pivot: Vec2,
    /// The camera the cell was rendered with (shared by all cells of a direction by default).
    pub camera: Camera,
    /// Its surface maps (the look's `maps`), in the image's layout.
    pub maps: Maps,
    /// Where each of the job's [`Job::points`] is, in pixels of the image (in front of the
    /// model or behind it alike).
    pub points: Vec<Vec2>,
}

impl<'a> Job<'a> {
    /// The yaw of direction `d`.
    pub fn yaw(&self, d: u32) -> f32 {
        self.view.yaw_degrees + self.directions.angle(d)
    }

    /// Names, directions and scale, for the sheet's JSON.
    pub fn info(&self) -> JobInfo {
        JobInfo {
            rows: self.row_names(),
            directions: self.directions.clone(),
            pixels_per_unit: self.pixels_per_unit,
            premultiplied: self.look.alpha == crate::spec::AlphaName::Premultiplied,
            pixel_art: self.look.pixel_art.is_some(),
            points: self.points.iter().map(|p| p.name.clone()).collect(),
        }
    }

    /// What each row plays: the clips, then the transitions.
    pub fn motions(&self) -> Vec<Motion<'a>> {
        let clips = self.clips.iter().map(|c| c.map_or(Motion::Rest, Motion::Clip));
        clips.chain(self.transitions.iter().map(|t| Motion::Transition(*t))).collect()
    }

    /// Each row's animation: its motion with the job's layers, a clip posed as a loop
    /// (wrapping at the end) or as a single pass (holding its last pose); a transition times
    /// its two clips itself.
    pub fn rows(&self) -> Vec<Animation<'a>> {
        let row = |motion: Motion<'a>| {
            let looping = matches!(motion, Motion::Transition(_)) || self.looping.loops(&motion);
            let options = PoseOptions { looping, ..self.pose };
            Animation { motion, layers: self.layers.clone(), options }
        };
        self.motions().into_iter().map(row).collect()
    }

    /// The frames of a row playing `motion`: positions and durations.
    fn motion_frames(&self, motion: &Motion) -> Vec<(f32, f32)> {
        self.sampling.motion_frames(motion, self.looping.loops(motion))
    }

    /// How many frames a row playing `motion` has.
    fn motion_count(&self, motion: &Motion) -> usize {
        self.sampling.motion_count(motion, self.looping.loops(motion))
    }

    /// Every animation (tag) of a sheet of the job, in sheet order: each row with frames in
    /// each direction, mirrored ones included.
    pub fn tags(&self) -> Vec<SheetTag> {
        let info = self.info();
        let mut tags = Vec::new();
        for (row, motion) in self.motions().iter().enumerate() {
            let frames = self.motion_count(motion);
            for d in (0..self.directions.count().max(1)).filter(|_| frames > 0) {
                let flipped = !self.directions.is_rendered(d);
                tags.push(SheetTag { name: info.tag(row, d), frames, flipped });
            }
        }
        tags
    }

    /// Row names for sheets and file names: clip names, `from->to`, `rest`.
    pub fn row_names(&self) -> Vec<String> {
        self.motions().iter().map(Motion::name).collect()
    }

    /// Every (row, frame position, duration) of the job, in order.
    fn frames(&self, rows: &[Animation<'a>]) -> Vec<(usize, usize, f32, f32)> {
        rows.iter()
            .enumerate()
            .flat_map(|(c, row)| {
                self.motion_frames(&row.motion).into_iter().enumerate().map(move |(i, (f, d))| (c, i, f, d))
            })
            .collect()
    }

    /// One framing for every cell, from every posed point of the job (each position that
    /// `shared` says vertices share posed once); `None` when each cell is fitted to its own
    /// frame.
    fn framing(&self, rows: &[Animation<'a>], shared: &[Option<SharedPositions>]) -> Result<Option<Framing>> {
        if self.fit == Fit::PerFrame && self.pixels_per_unit.is_none() && !self.auto_size {
            return Ok(None);
        }
        let frames = self.frames(rows);
        let posed_points = |i: usize| {
            let points = frames.get(i).map(|&(c, _, f, _)| {
                into_world(self.model, anim::animate_points(self.model, &rows[c], FrameTime::Frame(f), shared))
            });
            Cow::Owned(points.unwrap_or_default())
        };
        // The first frame decides the axis; every frame is posed again as framing reads it.
        let axis = framing::turning_axis(&posed_points(0));
        let ground = match self.ground {
            Ground::Auto => reference_ground(self.model).map(|(y, _)| y),
            Ground::Origin => Some(0.0),
            Ground::Lowest => None,
            Ground::Height(y) => Some(y),
        };
        let posed = PosedFrames { count: frames.len(), points: Box::new(posed_points) };
        let views: Vec<OrbitView> =
            (0..self.directions.count().max(1)).map(|d| OrbitView { yaw_degrees: self.yaw(d), ..self.view }).collect();
        let rule = framing::Rule {
            pixels_per_unit: self.pixels_per_unit,
            auto_size: self.auto_size,
            ..framing::Rule::of(&self.look, self.view.margin)
        };
        framing::frame(&views, &posed, (axis, ground), (self.options.width, self.options.height), &rule).map(Some)
    }

    /// Renders every cell: for each clip, each direction, each frame, in that order.
    ///
    /// # Errors
    /// Invalid render options; the cells would go over the default memory budget.
    pub fn render(&self) -> Result<Vec<Cell>> {
        self.render_with_progress(&MemoryBudget::default(), &|| {})
    }

    /// The cells [`Job::render`] returns, as (row, direction, frame), in its order, without
    /// rendering anything: commands name their output files from these before any rendering.
    ///
    /// # Errors
    /// [`crate::Error::OverLimit`], before anything is listed: a row of more than
    /// [`bounds::FRAMES`] frames, or a job of more than [`bounds::CELLS`] cells.
    pub fn cell_keys(&self) -> Result<Vec<(usize, u32, usize)>> {
        self.check_counts()?;
        Ok(self.work().into_iter().map(|(c, d, i, _, _)| (c, d, i)).collect())
    }

    /// Every cell to render: row, direction, frame index, frame position, duration. A
    /// mirrored direction ([`Directions::source_of`]) is not rendered: a sheet shows its
    /// source's cells flipped.
    fn work(&self) -> Vec<(usize, u32, usize, f32, f32)> {
        let mut work = Vec::new();
        for (c, motion) in self.motions().iter().enumerate() {
            for d in (0..self.directions.count().max(1)).filter(|&d| self.directions.is_rendered(d)) {
                for (i, (f, duration)) in self.motion_frames(motion).into_iter().enumerate() {
                    work.push((c, d, i, f, duration));
                }
            }
        }
        work
    }

    /// Number of cells the job renders (saturating: clip lengths come from files).
    pub fn cell_count(&self) -> usize {
        self.frame_count().saturating_mul(self.directions.rendered_count().max(1) as usize)
    }

    /// Number of frames a sheet of the job describes: every direction's, mirrored ones
    /// included (saturating).
    pub fn sheet_frame_count(&self) -> usize {
        self.frame_count().saturating_mul(self.directions.count().max(1) as usize)
    }

    /// Number of frames the job poses, over all its rows (saturating).
    fn frame_count(&self) -> usize {
        self.motions().iter().map(|m| self.motion_count(m)).fold(0, usize::saturating_add)
    }

    /// As [`Job::render`], calling `progress` once per finished cell (from any thread), every
    /// cell held at once and charged to `budget` first ([`Prepared::charge_held`]).
    ///
    /// # Errors
    /// Invalid render options; the cells would go over the budget.
    pub fn render_with_progress(&self, budget: &MemoryBudget, progress: &(dyn Fn() + Sync)) -> Result<Vec<Cell>> {
        let prepared = self.prepare(budget)?;
        prepared.charge_held(budget)?;
        let mut cells = Vec::with_capacity(prepared.cell_count());
        prepared.render_waves(prepared.cell_count(), progress, &mut |wave: Vec<Cell>| {
            cells.extend(wave);
            Ok(())
        })?;
        Ok(cells)
    }

    /// Refuses a row of more than [`bounds::FRAMES`] frames, or a job of more than
    /// [`bounds::CELLS`] cells, from their counts alone (nothing they size is allocated yet):
    /// cells stream, so memory no longer stops a clip whose file claims hours (a keyed
    /// clip's length is its latest key time), and such a row is never what a sprite is made
    /// of. Sampling it (`frames`, `sample_fps`) is capped at the same bound.
    ///
    /// # Errors
    /// [`crate::Error::OverLimit`], naming the row and its frame count, or the job's cell
    /// count.
    fn check_counts(&self) -> Result<()> {
        let over = |what: String, count: usize, limit: usize, remedy: &str| crate::Error::OverLimit {
            what,
            count,
            limit,
            remedy: remedy.to_string(),
        };
        for motion in self.motions() {
            let frames = self.motion_count(&motion);
            if frames > bounds::FRAMES.max {
                // The cause is the clip's length and rate, not an option the user gave.
                let what = match motion {
                    Motion::Clip(clip) => format!(
                        "the frame count of clip '{}' ({} s long at {} fps, every frame in its row)",
                        clip.name,
                        clip.duration(),
                        clip.fps
                    ),
                    _ => format!("the frame count of '{}' (frames a row)", motion.name()),
                };
                let remedy = "sample the clip with `frames` (e.g. 16 frames a row) or `sample_fps`";
                return Err(over(what, frames, bounds::FRAMES.max, remedy));
            }
        }
        let cells = self.cell_count();
        if cells > bounds::CELLS {
            let what = "the frame count of the job (rows x directions x frames)".to_string();
            let remedy = "sample fewer with `frames` or `sample_fps`, or name fewer clips";
            return Err(over(what, cells, bounds::CELLS, remedy));
        }
        Ok(())
    }

    /// Poses every frame to frame the job (`framing.rs`) and reads the look's palette file:
    /// what has to be known before the first cell renders, the cell size included. Frames are
    /// posed a few at a time, to frame the job and again to render it: the posed meshes of the
    /// frames in flight (one a thread) are charged to `budget` first.
    ///
    /// # Errors
    /// A palette file that cannot be read; the posed meshes over the budget.
    pub fn prepare(&self, budget: &MemoryBudget) -> Result<Prepared<'_, 'a>> {
        self.check_counts()?;
        let palette = palette::load(&self.look)?;
        let rows = self.rows();
        let in_flight = self.frame_count().min(rayon::current_num_threads()).max(1);
        let vertices = self.model.vertex_count() as u64;
        let bytes = (in_flight as u64).saturating_mul(vertices).saturating_mul(POSED_VERTEX_BYTES);
        budget.charge_part(bytes, || {
            format!("the posed meshes of {in_flight} frames in flight, {vertices} vertices each")
        })?;
        let shared = shared_positions(self.model, budget)?;
        let framing = self.framing(&rows, &shared)?;
        let (width, height) = framing.as_ref().map_or((self.options.width, self.options.height), |f| f.size);
        let options = RenderOptions { width, height, ..self.options.clone() };
        Ok(Prepared { job: self, work: self.work(), rows, framing, options, palette, shared })
    }
}

/// Which vertices of each of `model`'s meshes share a position in every pose, so that each
/// frame projects each position once in every direction; charged to `budget`.
fn shared_positions(model: &Model, budget: &MemoryBudget) -> Result<Vec<Option<SharedPositions>>> {
    let shared = SharedPositions::of_each(&model.meshes);
    let bytes = shared.iter().flatten().map(SharedPositions::bytes).sum();
    budget.charge_part(bytes, || String::from("the table of vertices that share a position"))?;
    Ok(shared)
}

/// The ground a job stands on by default ([`Ground::Auto`]): the lowest height (world up) of
/// the model's reference pose, with what that pose is. The reference is the first frame of the
/// model's first clip for a model animated by its vertices (its stored vertices may be any
/// frame, or none), else the stored vertices — the rest pose of a skeletal model, the mesh of
/// a static one. It depends on the model alone, never on the clips a job renders. `None` for a
/// model with no finite point.
pub fn reference_ground(model: &Model) -> Option<(f32, String)> {
    let (posed, what) = match model.clips.first() {
        Some(clip) if matches!(clip.frames, ClipFrames::Morph(_)) => {
            let options = PoseOptions { looping: false, in_place: false };
            let posed = anim::pose(model, Some(clip), FrameTime::Frame(0.0), &options);
            (posed, format!("the first frame of '{}'", clip.name))
        }
        _ => (anim::rest_pose(model), "the rest pose".to_string()),
    };
    framing::lowest(&world_points(model, &posed)).map(|y| (y, what))
}

/// The ground point under the middle of `points` (world space): a cell fitted to them alone
/// stands on it.
fn cylinder_ground(points: &[Vec3]) -> Vec3 {
    let (centre, _, y0, _) = cylinder(points);
    Vec3::new(centre.x, y0, centre.y)
}

/// Where [`Prepared::render_waves`] hands its waves of cells.
pub trait WaveSink {
    /// Rows of pixels where cells `first..first + count` of the job (the next wave) are drawn
    /// instead of into images of their own, one entry a cell (`None`, or no entry: an image of
    /// its own). Asked only when a finished cell is its render as it is; by default none.
    ///
    /// # Errors
    /// The places cannot be made (a page too large to allocate).
    fn places(&mut self, _first: usize, _count: usize) -> Result<Vec<Option<PixelRows<'_>>>> {
        Ok(Vec::new())
    }

    /// Takes the next wave of finished cells, in job order.
    ///
    /// # Errors
    /// Whatever the sink cannot do with them.
    fn take(&mut self, cells: Vec<Cell>) -> Result<()>;
}

impl<F: FnMut(Vec<Cell>) -> Result<()>> WaveSink for F {
    fn take(&mut self, cells: Vec<Cell>) -> Result<()> {
        self(cells)
    }
}

/// What a posed vertex holds while its frame is in flight: its posed position and normal,
/// its world-space point for framing, and the renderer's projected vertex and shading inputs.
const POSED_VERTEX_BYTES: u64 = 96;

/// A frame of a job to pose: row, frame index, frame position, duration.
type FrameKey = (usize, usize, f32, f32);

/// A direction of a frame to render, and where its cell is drawn (if not into its own image).
type Direction<'p> = (u32, Option<PixelRows<'p>>);

/// Cell bytes a wave holds at most when cells stream ([`Prepared::wave_len`]): enough cells
/// for every core to render several at sprite sizes (512 cells of 128², 32 of 512²), small
/// beside a 4096² page (64 MiB).
const WAVE_BYTES: u64 = 32 << 20;

/// A job framed and ready to render: its cell size is known, nothing is rendered yet.
///
/// Cells render in **waves** of consecutive cells (job order), each wave in parallel, and are
/// handed to the caller wave by wave in job order, so a caller that puts each wave in its page,
/// GIF or file and lets it go holds one wave at a time, not the job. Every cell renders alone,
/// so the bytes do not depend on the waves (nor on the thread count) — except where the look
/// makes one decision over every image of the output ([`Prepared::needs_every_cell`]).
pub struct Prepared<'j, 'a> {
    job: &'j Job<'a>,
    work: Vec<(usize, u32, usize, f32, f32)>,
    rows: Vec<Animation<'a>>,
    framing: Option<Framing>,
    /// The render options at the framed render size.
    options: RenderOptions,
    palette: Option<palette::Palette>,
    /// Per mesh of the model, the vertices that share a position.
    shared: Vec<Option<SharedPositions>>,
}

impl Prepared<'_, '_> {
    /// Number of cells.
    pub fn cell_count(&self) -> usize {
        self.work.len()
    }

    /// The size of the finished cells (the render size, divided by the pixel-art scale).
    pub fn cell_size(&self) -> (u32, u32) {
        let scale = self.job.look.pixel_art.unwrap_or(1).max(1);
        (self.options.width / scale, self.options.height / scale)
    }

    /// Whether the look decides something from every cell of the output together — a palette
    /// for pixel art, the depth range of depth maps — so every cell is held until the last
    /// one is rendered.
    pub fn needs_every_cell(&self) -> bool {
        palette::wanted(&self.job.look) || self.job.look.maps.contains(&MapKind::Depth)
    }

    /// Bytes one finished cell holds: its image and its maps, as rendered and as finished.
    pub fn cell_bytes(&self) -> u64 {
        let (w, h) = self.cell_size();
        self.cell_maps_bytes().saturating_add(bytes_for(u64::from(w) * u64::from(h), 4))
    }

    /// Bytes one cell drawn straight into its page ([`WaveSink::places`]) holds: no image of
    /// its own, only its maps.
    fn cell_maps_bytes(&self) -> u64 {
        let (w, h) = self.cell_size();
        let pixels = u64::from(w) * u64::from(h);
        (size_of::<Cell>() as u64).saturating_add(maps::bytes_for_images(&self.job.look.maps, pixels))
    }

    /// Whether a sink that gives places draws the cells there: only when the look leaves a
    /// finished cell as it was rendered ([`post::keeps_render`]).
    pub fn draws_in_place(&self) -> bool {
        post::keeps_render(&self.job.look)
    }

    /// Cells a wave renders: every cell when [`Prepared::needs_every_cell`], else as many as
    /// fit 32 MiB of finished cells (at least one).
    pub fn wave_len(&self) -> usize {
        if self.needs_every_cell() {
            return self.cell_count().max(1);
        }
        usize::try_from(WAVE_BYTES / self.cell_bytes().max(1)).unwrap_or(usize::MAX).clamp(1, self.cell_count().max(1))
    }

    /// Charges every cell held at once, and a sheet or GIF as large again made of them, to
    /// `budget` (for callers that keep the cells: `check`, [`Job::render`]).
    ///
    /// # Errors
    /// [`crate::Error::Budget`]: the clip lengths, directions and cell size need more.
    pub fn charge_held(&self, budget: &MemoryBudget) -> Result<()> {
        let (w, h) = self.cell_size();
        let cells = self.cell_count() as u64;
        let bytes = cells
            .saturating_mul(self.cell_bytes())
            .saturating_add(bytes_for(cells.saturating_mul(u64::from(w) * u64::from(h)), 4));
        budget.charge(bytes, || format!("{cells} frames of {w}x{h}"))
    }

    /// Charges one wave of `wave` cells to `budget` (for callers that stream the cells), each
    /// with an image of its own unless `in_place` (a sink that gives every cell a place where
    /// [`Prepared::draws_in_place`]).
    ///
    /// # Errors
    /// [`crate::Error::Budget`]: one wave of cells needs more.
    pub fn charge_wave(&self, wave: usize, in_place: bool, budget: &MemoryBudget) -> Result<()> {
        let (w, h) = self.cell_size();
        let cells = wave.min(self.cell_count());
        let in_place = in_place && self.draws_in_place();
        let each = if in_place { self.cell_maps_bytes() } else { self.cell_bytes() };
        budget.charge_part(bytes_for(cells as u64, each as usize), || {
            let drawn = if in_place { ", drawn in their pages" } else { "" };
            format!("{cells} frames of {w}x{h} rendered at once{drawn}")
        })
    }

    /// Renders every cell in waves of `wave` cells and hands each wave, finished and in job
    /// order (clip, direction, frame), to `sink` before the next wave renders; a cell that
    /// `sink` gives a place ([`WaveSink::places`]) is drawn there. `progress` is called once
    /// per finished cell, from any thread.
    ///
    /// # Errors
    /// Invalid render options; whatever `sink` returns.
    pub fn render_waves(&self, wave: usize, progress: &(dyn Fn() + Sync), sink: &mut dyn WaveSink) -> Result<()> {
        // A wave of everything when the look decides over every cell.
        let wave = if self.needs_every_cell() { self.work.len() } else { wave }.max(1);
        // Enough cells side by side to keep every thread busy: each is drawn on one thread.
        let renderer = match wave.min(self.work.len()) >= 2 * rayon::current_num_threads() {
            true => Renderer::for_parallel_draws(),
            false => Renderer::new(),
        };
        renderer.prepare_textures(&self.job.model.materials);
        for (w, cells) in self.work.chunks(wave).enumerate() {
            let places = if self.draws_in_place() { sink.places(w * wave, cells.len())? } else { Vec::new() };
            let rendered = self.render_cells(&renderer, cells, places, progress)?;
            let (mut cells, surfaces): (Vec<Cell>, Vec<SurfaceMaps>) = rendered.into_iter().unzip();
            let mut images: Vec<&mut Image> = cells.iter_mut().map(|c| &mut c.image).collect();
            let maps = post::finish_output(&self.job.look, self.palette.as_ref(), &mut images, surfaces);
            for (cell, maps) in cells.iter_mut().zip(maps) {
                cell.maps = maps;
            }
            sink.take(cells)?;
        }
        Ok(())
    }

    /// Renders `cells` (consecutive entries of the job's work) in parallel, each frame posed
    /// once for all its directions in the wave, and returns them in job order. Cell `k` is
    /// drawn into `places[k]` where there is one (its image left empty).
    fn render_cells(
        &self,
        renderer: &Renderer,
        cells: &[(usize, u32, usize, f32, f32)],
        mut places: Vec<Option<PixelRows>>,
        progress: &(dyn Fn() + Sync),
    ) -> Result<Vec<(Cell, SurfaceMaps)>> {
        let job = self.job;
        let (width, height) = (self.options.width, self.options.height);
        let aspect = width as f32 / height.max(1) as f32;
        // The wave's frames, in (row, frame) order, each with its directions and their places.
        let mut frames: Vec<(FrameKey, Vec<Direction>)> = Vec::new();
        let mut sorted: Vec<usize> = (0..cells.len()).collect();
        sorted.sort_by_key(|&k| (cells[k].0, cells[k].2, cells[k].1));
        for k in sorted {
            let (c, d, i, f, duration) = cells[k];
            let place = places.get_mut(k).and_then(Option::take);
            match frames.last_mut() {
                Some(((lc, li, _, _), dirs)) if (*lc, *li) == (c, i) => dirs.push((d, place)),
                _ => frames.push(((c, i, f, duration), vec![(d, place)])),
            }
        }
        let render_frame = |((c, i, f, duration), directions): (FrameKey, Vec<Direction>)| {
            let mut posed = anim::animate(job.model, &self.rows[c], FrameTime::Frame(f));
            posed.share_positions(&job.model.meshes, &self.shared);
            // The pivot's ground: the job's, or (each cell fitted alone) under this frame's
            // middle, as the cells below place it.
            let ground = || match &self.framing {
                Some(framing) => framing.ground,
                None => cylinder_ground(&world_points(job.model, &posed)),
            };
            let points = points::positions(job.model, &job.points, &self.rows[c], FrameTime::Frame(f), ground);
            // Pixels of the finished image: pixel art renders `scale` times larger.
            let scale = job.look.pixel_art.unwrap_or(1).max(1) as f32;
            let render_cell = |(d, place): Direction| {
                let (camera, pivot) = match &self.framing {
                    Some(framing) => {
                        // One camera per direction of `work`.
                        let camera = framing.cameras[d as usize];
                        (camera, framing.pivot.unwrap_or_else(|| camera.world_to_pixel(framing.ground, width, height)))
                    }
                    None => {
                        let view = OrbitView { yaw_degrees: job.yaw(d), ..job.view };
                        let points = world_points(job.model, &posed);
                        let camera = Camera::fit(&view, &points, aspect);
                        (camera, camera.world_to_pixel(cylinder_ground(&points), width, height))
                    }
                };
                let image = match place {
                    Some(mut rows) => {
                        render_posed_into_rows(renderer, job.model, &posed, camera, &self.options, &mut rows)?;
                        Image::default()
                    }
                    None => render_posed(renderer, job.model, &posed, camera, &self.options)?,
                };
                let scene = scene(job.model, &posed, camera);
                let mut surfaces = SurfaceMaps::render(renderer, &scene, &self.options, &job.look.maps)?;
                let joints = || {
                    let request = FrameRequest { animation: self.rows[c].clone(), time: FrameTime::Frame(f) };
                    joint_pixels(job.model, &request, &camera, width, height)
                };
                let (image, pivot) = post::finish(&job.look, image, pivot, joints, &mut surfaces);
                let points = points.iter().map(|&p| camera.world_to_pixel(p, width, height) / scale).collect();
                progress();
                let looping = self.rows[c].options.looping && !matches!(self.rows[c].motion, Motion::Transition(_));
                let maps = Maps::default();
                let cell =
                    Cell { clip: c, direction: d, frame: i, duration, looping, image, pivot, camera, maps, points };
                Ok((cell, surfaces))
            };
            directions.into_par_iter().map(render_cell).collect::<Result<Vec<(Cell, SurfaceMaps)>>>()
        };
        let rendered = frames.into_par_iter().map(render_frame).collect::<Result<Vec<Vec<(Cell, SurfaceMaps)>>>>()?;
        // Frames came in frame order; cells go out in the order of `work`.
        let mut rendered: Vec<(Cell, SurfaceMaps)> = rendered.into_iter().flatten().collect();
        rendered.sort_by_key(|(cell, _)| (cell.clip, cell.direction, cell.frame));
        Ok(rendered)
    }
}
