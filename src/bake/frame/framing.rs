//! Framing a sprite job: one camera per direction and one cell size for every cell, from every
//! posed point of the job (all rows, frames and, through the cameras, directions).
//!
//! **The model turns about its own origin**, as it does in a game: the pivot is the ground
//! point under the model's origin (the root of a skeleton, the point a game places), and every
//! direction and clip is framed around that one vertical axis. **The ground** is the lowest
//! point of the model's reference pose by default (`Ground::Auto`, chosen in `job.rs`), not
//! of the job: a death clip that sinks below the floor once lifted every standing clip of its
//! sheet by the depth of its fall (8 px of ogro's `stand` at 128 px). Points below the ground
//! are still framed; they hang below the pivot.
//! A clip that moves the body off the origin (a fall, a lunge) widens the cells; it never moves
//! the pivot, so the feet of a walk stay on the pivot in every direction and beside every other
//! clip of the sheet. (Before, the axis was the centre of the whole job's bounds: a `Death`
//! falling to one side pulled it off the walk's feet, and the walk circled the pivot from one
//! direction to the next.) A model whose origin lies outside its own footprint in the job's
//! first frame — a prop modelled away from the origin — turns about the centre of that
//! footprint instead, where a game would have put its origin.
//!
//! * **Shared fit** (the default): each direction's camera is fitted to the job's bounding
//!   cylinder, a vertical cylinder around the axis holding every posed point. It looks the
//!   same from every yaw, so every direction gets the same scale, ground line and pivot.
//! * **Fixed scale** (`pixels_per_unit`): orthographic cameras at exactly P pixels per model
//!   unit, the pivot placed so the frames of all directions are centred.
//! * **Auto size** (`size` = auto): after either, the cells are cut to what the frames of the
//!   whole job cover, plus the outline and the margin, at most the given size. Without a fixed
//!   scale the content is zoomed to fill the largest cell (its longer side, for the cell's
//!   shape) and the other side shrinks to it; with one, frames larger than the maximum are
//!   refused, never cut.
//!
//! Cells are whole pixels of the finished image (pixel art renders `block` times larger, so a
//! cell is whole pixel-art blocks), every cell of a job is cut alike, and **the pivot is on a
//! whole finished pixel** (a pixel corner): a fitted camera is moved by less than a pixel to
//! put it there, a fixed scale places its window on whole pixels. So an engine that places a
//! sprite by its pivot puts it on the pixel grid, and pixel art stays crisp.
//! A considered alternative, trimming each rendered cell to the union of their opaque pixels,
//! renders every cell at the largest size first and needs every cell in memory before any
//! size is known; projecting the posed points costs a fraction of one render.
//!
//! **Memory stays flat in clip length.** Framing never holds the points of every frame: it
//! reads [`PosedFrames`] a few frames at a time (one per thread) and keeps each frame's extent
//! only. The cylinder needs one pass over the frames; cells cut to their content and fixed
//! scales need a second (their cameras and pivot come from the first), so those jobs pose
//! every frame once more. A 600-frame dance of a 69k-vertex character held 476 MiB of points
//! when they were kept; the extents are a few bytes.

use std::borrow::Cow;

use glam::{Vec2, Vec3};
use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::raster::{Camera, OrbitView};
use crate::spec::Look;

/// How a job is framed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(in crate::bake) struct Rule {
    /// Fixed scale, pixels per model unit in the finished cell.
    pub pixels_per_unit: Option<f32>,
    /// Cells cut to the content, at most the render size.
    pub auto_size: bool,
    /// Empty border as a fraction of the cell (the view's margin).
    pub margin: f32,
    /// Pixels drawn outside the silhouette (the outline), finished-cell pixels.
    pub border: u32,
    /// Render pixels per finished pixel (pixel art), at least 1.
    pub block: u32,
}

impl Rule {
    /// The rule for cells finished with `look` (its outline and pixel-art blocks) and
    /// `margin`, fitted (no fixed scale, no auto size).
    pub(in crate::bake) fn of(look: &Look, margin: f32) -> Rule {
        Rule {
            pixels_per_unit: None,
            auto_size: false,
            margin,
            // An outline's anti-aliased edge (all but pixel art) reaches one pixel further.
            border: look.outline + u32::from(look.outline > 0 && look.pixel_art.is_none()),
            block: look.pixel_art.unwrap_or(1),
        }
    }
}

/// The framing of every cell of a job.
#[derive(Debug, Clone)]
pub(in crate::bake) struct Framing {
    /// One camera per direction.
    pub cameras: Vec<Camera>,
    /// The render size of every cell.
    pub size: (u32, u32),
    /// The ground point of the pivot (world space).
    pub ground: Vec3,
    /// With a fixed scale, the pivot's exact render pixel (the ground point's).
    pub pivot: Option<Vec2>,
}

/// The posed points of a job's frames, posed on demand: framing reads them a few frames at a
/// time and may read each frame more than once.
pub(in crate::bake) struct PosedFrames<'f> {
    /// How many frames.
    pub count: usize,
    /// The world-space points of frame `i`.
    pub points: Box<dyn Fn(usize) -> Cow<'f, [Vec3]> + Sync + 'f>,
}

impl<'f> PosedFrames<'f> {
    /// One frame whose points are known.
    pub(in crate::bake) fn one(points: &'f [Vec3]) -> PosedFrames<'f> {
        PosedFrames { count: 1, points: Box::new(move |_| Cow::Borrowed(points)) }
    }

    /// `per_frame` of every frame, folded with `combine` from `empty`: frames are posed side by
    /// side, but never more at once than the pool has threads, so the points held stay a few
    /// frames' worth however long the job is. `combine` must not depend on order (the bytes
    /// of a render may not depend on the thread count).
    fn fold<T: Send + Sync + Clone>(
        &self,
        empty: T,
        per_frame: impl Fn(&[Vec3]) -> T + Sync,
        combine: impl Fn(T, T) -> T + Sync + Send,
    ) -> T {
        let batch = rayon::current_num_threads().max(1);
        (0..self.count).step_by(batch).fold(empty.clone(), |acc, first| {
            let last = (first + batch).min(self.count);
            let part =
                (first..last).into_par_iter().map(|i| per_frame(&(self.points)(i))).reduce(|| empty.clone(), &combine);
            combine(acc, part)
        })
    }
}

/// Frames a job seen from `views` (one per direction) whose posed points are `frames`,
/// turning about the vertical line through `axis` (world x, z; see [`turning_axis`]) and
/// standing on the height `ground` (`None`: the job's lowest point); `size` is the render
/// size of a cell, or of the largest cell with an auto size.
///
/// # Errors
/// With a fixed scale, frames that do not fit the size (or the auto size's maximum), naming
/// `pixels_per_unit`.
pub(in crate::bake) fn frame(
    views: &[OrbitView],
    frames: &PosedFrames,
    (axis, ground): (Vec2, Option<f32>),
    size: (u32, u32),
    rule: &Rule,
) -> Result<Framing> {
    let (centre, radius, y0, y1) = cylinder_of_frames(frames, axis);
    let ground_y = ground.filter(|y| y.is_finite()).unwrap_or(y0);
    // Points near ±3.4e38 are finite, but their extent is not: every camera, pivot and anchor
    // made from it would be NaN (engine data with `"y": null`).
    if !(centre.is_finite() && radius.is_finite() && (y1 - y0).is_finite()) {
        return Err(Error::Invalid(format!(
            "the posed model spans more than 32-bit floats hold (height {}, radius {radius}): \
             its coordinates are too large to frame; scale the model down in its file",
            y1 - y0
        )));
    }
    let block = rule.block.max(1);
    let cell = (size.0 / block, size.1 / block);
    let Some(scale) = rule.pixels_per_unit else {
        let aspect = size.0 as f32 / size.1.max(1) as f32;
        let rim = cylinder_points(centre, radius, y0, y1);
        let cameras: Vec<Camera> = views.iter().map(|v| Camera::fit(v, &rim, aspect)).collect();
        let ground = Vec3::new(centre.x, ground_y, centre.y);
        let (cameras, size) = if rule.auto_size { cut(&cameras, frames, size, rule) } else { (cameras, size) };
        let cameras = cameras.iter().map(|c| pivot_on_whole_pixel(c, ground, size, block)).collect();
        return Ok(Framing { cameras, size, ground, pivot: None });
    };
    // Fixed scale: offsets from the pivot, in finished pixels, x right and y down.
    let ground = Vec3::new(centre.x, ground_y, centre.y);
    let rotations: Vec<_> = views.iter().map(OrbitView::world_to_view_rotation).collect();
    // The pixel bounds and the reach (the farthest point from the pivot) in one pass.
    let to_pixel = |r: &glam::Mat3, p: Vec3| {
        let v = *r * (p - ground);
        Vec2::new(v.x, -v.y) * scale
    };
    let ((lo, hi), reach) = pixel_bounds(&rotations, frames, to_pixel, Some(ground));
    let reach = reach.max(radius);
    let limit = |side| if rule.auto_size { Limit::Auto(side) } else { Limit::Fixed(side) };
    let (x, y) = (window(lo.x, hi.x, rule, limit(cell.0)), window(lo.y, hi.y, rule, limit(cell.1)));
    let ((x, w), (y, h)) = match x.zip(y) {
        Some(windows) => windows,
        None => {
            let need = |lo, hi| span(lo, hi, rule.border).1;
            let allowed = if rule.auto_size { "the auto size's maximum" } else { "`size`" };
            let expected = format!(
                "the job's frames need {}x{} pixels at this scale, more than {allowed} ({}x{}): give a larger size or a smaller scale",
                need(lo.x, hi.x),
                need(lo.y, hi.y),
                cell.0,
                cell.1
            );
            return Err(Error::bad_option("pixels_per_unit", scale, expected));
        }
    };
    // The window's corner is `(x, y)` pixels from the pivot: the pivot is at `(-x, -y)`.
    let pivot = Vec2::new(-x as f32, -y as f32) * block as f32;
    let size = (w * block, h * block);
    let px = scale * block as f32;
    let cameras = views.iter().map(|v| Camera::orthographic_at_scale(v, ground, px, pivot, size, reach)).collect();
    Ok(Framing { cameras, size, ground, pivot: Some(pivot) })
}

/// Cameras fitted to `points` in images of `size` (render pixels), cut to what every point
/// seen through every camera covers and scaled so that it fills the largest cell `size` with
/// the rule's border and margin: the new cameras and the cell's size. The scale is the one that
/// fits the content's longer side (relative to the cell's shape); the other side shrinks to
/// the content.
pub(in crate::bake) fn cut(
    cameras: &[Camera],
    frames: &PosedFrames,
    size: (u32, u32),
    rule: &Rule,
) -> (Vec<Camera>, (u32, u32)) {
    let block = rule.block.max(1) as f32;
    let largest = Vec2::new(size.0 as f32, size.1 as f32) / block;
    let ((lo, hi), _) = pixel_bounds(cameras, frames, |c, p| c.world_to_pixel(p, size.0, size.1) / block, None);
    let content = (hi - lo).max(Vec2::splat(1e-3));
    let (fill, border) = (fill(rule.margin), rule.border as f32);
    // Finished pixels per fitted pixel: the content, its border and margin fill the cell.
    let room = (largest * fill - Vec2::splat(2.0 * border)).max(Vec2::ONE);
    let zoom = (room / content).min_element();
    let cell = ((content * zoom + Vec2::splat(2.0 * border)) / fill).ceil().min(largest).max(Vec2::ONE);
    // The window of the fitted image the cell shows, centred on the content.
    let span = cell / zoom;
    let corner = (lo + hi - span) * 0.5;
    let crop = (corner.x * block, corner.y * block, span.x * block, span.y * block);
    let cameras = cameras.iter().map(|c| c.cropped(size, crop)).collect();
    (cameras, ((cell.x * block) as u32, (cell.y * block) as u32))
}

/// `camera` moved by less than a finished pixel so that `ground` lands on a whole finished
/// pixel (a multiple of `block` render pixels) of an image of `size`.
fn pivot_on_whole_pixel(camera: &Camera, ground: Vec3, size: (u32, u32), block: u32) -> Camera {
    let block = block.max(1) as f32;
    let pivot = camera.world_to_pixel(ground, size.0, size.1);
    if !pivot.is_finite() {
        return *camera;
    }
    let shift = pivot - (pivot / block).round() * block;
    camera.cropped(size, (shift.x, shift.y, size.0 as f32, size.1 as f32))
}

/// The share of a cell the content fills with `margin` on each side (as [`Camera::fit`]).
fn fill(margin: f32) -> f32 {
    (1.0 - 2.0 * margin.clamp(0.0, 0.45)).max(0.1)
}

/// The smallest and largest pixel position of every frame's points seen through every camera,
/// and, read in the same pass, the farthest any point lies from `reach_from` (0 without it).
fn pixel_bounds<C: Sync>(
    cameras: &[C],
    frames: &PosedFrames,
    to_pixel: impl Fn(&C, Vec3) -> Vec2 + Sync,
    reach_from: Option<Vec3>,
) -> ((Vec2, Vec2), f32) {
    let empty = (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY));
    let per_frame = |points: &[Vec3]| {
        let finite = || points.iter().filter(|p| p.is_finite());
        let bounds = cameras
            .iter()
            .flat_map(|c| finite().map(|&p| to_pixel(c, p)))
            .fold(empty, |(lo, hi), q| (lo.min(q), hi.max(q)));
        let reach = reach_from.map_or(0.0, |from| finite().map(|p| p.distance(from)).fold(0.0, f32::max));
        (bounds, reach)
    };
    let ((lo, hi), reach) =
        frames.fold((empty, 0.0), per_frame, |(a, x), (b, y)| ((a.0.min(b.0), a.1.max(b.1)), x.max(y)));
    (if lo.x > hi.x { (Vec2::ZERO, Vec2::ZERO) } else { (lo, hi) }, reach)
}

/// How large a window may be along one axis.
#[derive(Debug, Clone, Copy)]
enum Limit {
    /// Exactly this many pixels.
    Fixed(u32),
    /// As few as the content with its margin needs, at most this many.
    Auto(u32),
}

/// Content spanning `lo..hi` (finished pixels) with `border` pixels around it, in whole
/// pixels: its first pixel and its length (at least 1).
fn span(lo: f32, hi: f32, border: u32) -> (f64, f64) {
    let border = f64::from(border);
    let (lo, hi) = ((f64::from(lo) - border).floor(), (f64::from(hi) + border).ceil());
    (lo, (hi - lo).max(1.0))
}

/// The window along one axis around content spanning `lo..hi` (finished pixels, plus the
/// rule's border): its first pixel and its length, the content centred in it; `None` when
/// the content needs more than the limit.
fn window(lo: f32, hi: f32, rule: &Rule, limit: Limit) -> Option<(i64, u32)> {
    let (lo, content) = span(lo, hi, rule.border);
    let side = match limit {
        Limit::Fixed(side) => side,
        Limit::Auto(max) => (content / f64::from(fill(rule.margin))).ceil().min(f64::from(max)) as u32,
    };
    if content > f64::from(side) {
        return None;
    }
    // Whole pixels: the spare room split evenly, the odd pixel after the content.
    let spare = (f64::from(side) - content) as i64;
    Some((lo as i64 - spare / 2, side.max(1)))
}

/// The vertical cylinder around `points`: centre of the x/z bounds, radius, y range.
pub(in crate::bake) fn cylinder(points: &[Vec3]) -> (Vec2, f32, f32, f32) {
    let b = crate::model::Aabb::from_points(points.iter().copied());
    if b.is_empty() {
        return (Vec2::ZERO, 0.5, 0.0, 1.0);
    }
    cylinder_about(points, Vec2::new((b.min.x + b.max.x) * 0.5, (b.min.z + b.max.z) * 0.5))
}

/// The vertical cylinder around the line through `axis` (x, z) holding `points`: its centre
/// (`axis`), radius and y range.
fn cylinder_about(points: &[Vec3], axis: Vec2) -> (Vec2, f32, f32, f32) {
    cylinder_of_frames(&PosedFrames::one(points), axis)
}

/// The vertical cylinder around the line through `axis` (x, z) holding every frame's points:
/// its centre (`axis`), radius and y range. The least, the most and the farthest are the same
/// in any order, so the frames are read side by side.
fn cylinder_of_frames(frames: &PosedFrames, axis: Vec2) -> (Vec2, f32, f32, f32) {
    use crate::model::Aabb;
    let extent = |points: &[Vec3]| {
        points.iter().filter(|p| p.is_finite()).fold((Aabb::EMPTY, 0.0f32), |(mut b, r), &p| {
            b.grow(p);
            (b, r.max(Vec2::new(p.x, p.z).distance(axis)))
        })
    };
    let (b, radius) = frames.fold((Aabb::EMPTY, 0.0), extent, |(a, ra), (b, rb)| (a.union(b), ra.max(rb)));
    if b.is_empty() {
        return (axis, 0.5, 0.0, 1.0);
    }
    (axis, radius.max(1e-4), b.min.y, b.max.y)
}

/// The vertical axis (x, z) a job turns about, from the posed points of its first frame: the
/// model's origin, unless the origin lies outside that frame's footprint (its x/z bounds), then
/// the footprint's centre.
pub(in crate::bake) fn turning_axis(first_frame: &[Vec3]) -> Vec2 {
    let b = crate::model::Aabb::from_points(first_frame.iter().copied());
    if b.is_empty() {
        return Vec2::ZERO;
    }
    let (lo, hi) = (Vec2::new(b.min.x, b.min.z), Vec2::new(b.max.x, b.max.z));
    if Vec2::ZERO.cmpge(lo).all() && Vec2::ZERO.cmple(hi).all() { Vec2::ZERO } else { (lo + hi) * 0.5 }
}

/// The lowest height of `points` (`None` when none is finite).
pub(in crate::bake) fn lowest(points: &[Vec3]) -> Option<f32> {
    points.iter().filter(|p| p.is_finite()).map(|p| p.y).reduce(f32::min)
}

/// Points on the rims of a cylinder, enough that a fitted camera contains the whole cylinder
/// to within a fraction of a percent.
fn cylinder_points(centre: Vec2, radius: f32, y0: f32, y1: f32) -> Vec<Vec3> {
    const STEPS: usize = 64;
    // Polygon points on a slightly larger circle so the polygon encloses the true circle.
    let r = radius / (std::f32::consts::PI / STEPS as f32).cos();
    (0..STEPS)
        .flat_map(|i| {
            let a = i as f32 / STEPS as f32 * std::f32::consts::TAU;
            let (x, z) = (centre.x + r * a.cos(), centre.y + r * a.sin());
            [Vec3::new(x, y0, z), Vec3::new(x, y1, z)]
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::raster::Projection;

    fn rule(pixels_per_unit: Option<f32>, auto_size: bool) -> Rule {
        Rule { pixels_per_unit, auto_size, margin: 0.0, border: 0, block: 1 }
    }

    /// A box 1 wide, 2 tall, 0.5 deep standing on y = 0 around the origin.
    fn points() -> Vec<Vec3> {
        crate::model::Aabb { min: Vec3::new(-0.5, 0.0, -0.25), max: Vec3::new(0.5, 2.0, 0.25) }.corners().to_vec()
    }

    fn side_view(yaw: f32) -> OrbitView {
        OrbitView { yaw_degrees: yaw, pitch_degrees: 0.0, projection: Projection::Orthographic, margin: 0.0 }
    }

    #[test]
    fn a_fixed_scale_is_exact_and_centres_every_direction() {
        let views = [side_view(0.0), side_view(90.0)];
        let f = frame(&views, &PosedFrames::one(&points()), (Vec2::ZERO, None), (64, 64), &rule(Some(10.0), false))
            .unwrap();
        assert_eq!(f.size, (64, 64));
        // 20 px tall, centred: rows 22..42; the pivot is on the ground line, mid-column.
        let pivot = f.pivot.unwrap();
        assert_eq!(pivot, Vec2::new(32.0, 42.0));
        for cam in &f.cameras {
            let top = cam.world_to_pixel(Vec3::new(0.0, 2.0, 0.0), 64, 64);
            assert!(top.distance(Vec2::new(32.0, 22.0)) < 1e-3, "{top}");
        }
        // Auto: the box is 10 px wide from the front, 5 from the side; the cell is the wider.
        let f =
            frame(&views, &PosedFrames::one(&points()), (Vec2::ZERO, None), (64, 64), &rule(Some(10.0), true)).unwrap();
        assert_eq!((f.size, f.pivot), ((10, 20), Some(Vec2::new(5.0, 20.0))));
        // Pixel art renders 3 times larger: the same window in blocks.
        let f = frame(
            &views,
            &PosedFrames::one(&points()),
            (Vec2::ZERO, None),
            (192, 192),
            &Rule { block: 3, ..rule(Some(10.0), true) },
        )
        .unwrap();
        assert_eq!((f.size, f.pivot), ((30, 60), Some(Vec2::new(15.0, 60.0))));
    }

    #[test]
    fn frames_larger_than_the_size_are_refused_not_cut() {
        let e = frame(
            &[side_view(0.0)],
            &PosedFrames::one(&points()),
            (Vec2::ZERO, None),
            (64, 16),
            &rule(Some(10.0), false),
        )
        .unwrap_err()
        .to_string();
        assert_eq!(
            e,
            "`pixels_per_unit` = 10: the job's frames need 10x20 pixels at this scale, more than `size` (64x16): give a larger size or a smaller scale"
        );
        let e = frame(
            &[side_view(0.0)],
            &PosedFrames::one(&points()),
            (Vec2::ZERO, None),
            (8, 64),
            &rule(Some(10.0), true),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("need 10x20 pixels") && e.contains("the auto size's maximum (8x64)"), "{e}");
    }

    #[test]
    fn auto_without_a_scale_cuts_the_fitted_cells_to_the_content() {
        let views = [side_view(0.0), side_view(90.0)];
        let fitted =
            frame(&views, &PosedFrames::one(&points()), (Vec2::ZERO, None), (100, 100), &rule(None, false)).unwrap();
        let auto =
            frame(&views, &PosedFrames::one(&points()), (Vec2::ZERO, None), (100, 100), &rule(None, true)).unwrap();
        // The box (2 units tall, 1 wide from the front) fills the height at the largest size,
        // and the width shrinks to it: 50 px.
        assert_eq!(auto.size, (50, 100));
        for (d, cam) in auto.cameras.iter().enumerate() {
            let top = cam.world_to_pixel(Vec3::new(0.0, 2.0, 0.0), 50, 100);
            let ground = cam.world_to_pixel(auto.ground, 50, 100);
            assert!(
                top.distance(Vec2::new(25.0, 0.0)) < 1e-3 && ground.distance(Vec2::new(25.0, 100.0)) < 1e-3,
                "{d}: {top} {ground}"
            );
        }
        // The fitted cells were the same scale but twice as wide.
        let ground = fitted.cameras[0].world_to_pixel(fitted.ground, 100, 100);
        assert!(ground.distance(Vec2::new(50.0, 100.0)) < 1e-3, "{ground}");
    }

    #[test]
    fn the_model_turns_about_its_origin_whatever_a_clip_does() {
        // The box, and the same box fallen 3 units to the side (a death clip): the axis stays
        // at the origin, the cells grow to hold the fall, and the pivot is the origin's ground
        // point in every direction, on a whole pixel.
        let fallen: Vec<Vec3> = points().iter().map(|p| *p + Vec3::X * 3.0).collect();
        let both: Vec<Vec3> = points().into_iter().chain(fallen).collect();
        let views: Vec<OrbitView> =
            (0..8).map(|d| OrbitView { yaw_degrees: d as f32 * 45.0, ..OrbitView::ISOMETRIC_2_1 }).collect();
        let f =
            frame(&views, &PosedFrames::one(&both), (turning_axis(&points()), None), (128, 128), &rule(None, false))
                .unwrap();
        assert_eq!(f.ground, Vec3::ZERO);
        let pivots: Vec<Vec2> = f.cameras.iter().map(|c| c.world_to_pixel(f.ground, 128, 128)).collect();
        for p in &pivots {
            assert!(p.distance(pivots[0]) < 1e-3 && p.distance(p.round()) < 1e-3, "{pivots:?}");
        }
        // The centre of both boxes' bounds (x = 1.5) would circle the origin from one
        // direction to the next.
        let (centre, ..) = cylinder(&both);
        assert_eq!(centre, Vec2::new(1.5, 0.0));
    }

    #[test]
    fn the_ground_is_where_it_is_put_and_points_below_it_are_still_framed() {
        // The box standing on y = 0 and the same box sunk 1 unit (a death clip): on the given
        // ground the pivot is at height 0 whichever boxes share the job, and the sunk box is
        // inside the cells, below the pivot.
        let sunk: Vec<Vec3> = points().iter().map(|p| *p - Vec3::Y).collect();
        let both: Vec<Vec3> = points().into_iter().chain(sunk).collect();
        let views = [side_view(0.0)];
        for ground in [Some(0.0), None] {
            let f =
                frame(&views, &PosedFrames::one(&both), (Vec2::ZERO, ground), (64, 64), &rule(None, false)).unwrap();
            assert_eq!(f.ground.y, ground.unwrap_or(-1.0));
            // Framed, but for the half pixel at most that puts the pivot on a whole pixel
            // (this rule has no margin to take it).
            let bottom = f.cameras[0].world_to_pixel(Vec3::new(0.0, -1.0, 0.0), 64, 64);
            assert!(bottom.y <= 64.5 + 1e-3, "{bottom}");
        }
        let f = frame(&views, &PosedFrames::one(&both), (Vec2::ZERO, Some(0.0)), (64, 64), &rule(Some(10.0), false));
        let f = f.unwrap();
        // 30 px tall at 10 px a unit, centred: rows 17..47, the ground 10 px above the bottom.
        assert_eq!(f.pivot, Some(Vec2::new(32.0, 37.0)));
        assert_eq!(lowest(&both), Some(-1.0));
        assert_eq!(lowest(&[]), None);
    }

    #[test]
    fn a_model_away_from_its_origin_turns_about_its_footprint() {
        let away: Vec<Vec3> = points().iter().map(|p| *p + Vec3::new(10.0, 0.0, -4.0)).collect();
        assert_eq!(turning_axis(&away), Vec2::new(10.0, -4.0));
        assert_eq!(turning_axis(&points()), Vec2::ZERO);
        assert_eq!(turning_axis(&[]), Vec2::ZERO);
    }
}
