//! Primitive assembly: clip-space triangles → clipped → snapped to the fixed-point grid →
//! edge functions and attribute planes, ready for binning.
//!
//! * **Clipping** happens in homogeneous space against the near plane (`z ≥ 0`, glam's depth
//!   convention) and against a guard band `|x|, |y| ≤ GUARD·w`; everything inside the guard band
//!   is left to the rasterizer's bounding box, so ordinary off-screen triangles are not cut.
//! * **Fixed point**: screen positions are snapped to 1/256 pixel (8 sub-pixel bits, as in
//!   llvmpipe). Edge functions are evaluated exactly in `i64`, so shared edges are rasterized
//!   identically by both triangles.
//! * **Top-left rule**: a sample exactly on an edge belongs to the triangle only if the edge is a
//!   top or left edge; implemented as a −1 bias on the other edges' constants, so the inner test
//!   is just `e ≥ 0`.
//! * **Attributes**: depth `z/w` and `1/w` are affine in screen space; other attributes are
//!   interpolated as `a/w` and divided by the interpolated `1/w` per pixel (perspective-correct).
//!   Planes are derived from the snapped edge functions so interpolation agrees with coverage.

use glam::Vec4;
use wide::{f32x4, f64x2, i32x4};

/// Attributes a set-up triangle carries for every draw: u, v, normal x, y, z (view space).
pub(super) const ATTRS: usize = 5;
/// Attributes a corner carries through clipping: the [`ATTRS`], then its vertex colour (linear
/// RGBA, premultiplied), which only a draw with vertex colours sets up ([`ColourPlanes`]).
pub(super) const CORNER_ATTRS: usize = ATTRS + 4;

/// A triangle's vertex colour as planes of `colour/w`, red, green, blue and alpha
/// (premultiplied), interpolated as the other attributes. Kept beside the triangles, one per
/// triangle, only by a draw that has vertex colours: every other draw's triangles stay as
/// small as they were.
pub(super) type ColourPlanes = [Plane; 4];

/// Sub-pixel precision: 8 bits.
const SUBPIXEL_BITS: u32 = 8;
const SUBPIXEL: f64 = (1 << SUBPIXEL_BITS) as f64;
const HALF_PIXEL: i64 = 1 << (SUBPIXEL_BITS - 1);

/// Guard band in multiples of the viewport half-size. Larger triangles are clipped geometrically
/// so snapped coordinates stay far inside `i64` edge arithmetic (≤ 2^25 · 2^25).
const GUARD: f32 = 8.0;

/// A vertex after the vertex stage.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct ClipVertex {
    /// Clip-space position.
    pub pos: Vec4,
    /// Attributes, see [`CORNER_ATTRS`].
    pub attrs: [f32; CORNER_ATTRS],
}

impl ClipVertex {
    fn lerp(&self, other: &ClipVertex, t: f32) -> ClipVertex {
        let mut attrs = [0.0; CORNER_ATTRS];
        for (i, a) in attrs.iter_mut().enumerate() {
            *a = self.attrs[i] + (other.attrs[i] - self.attrs[i]) * t;
        }
        ClipVertex { pos: self.pos.lerp(other.pos, t), attrs }
    }
}

/// An edge function `e(x, y) = c + dx·x + dy·y` over integer sample coordinates, evaluated at
/// sample centres; a sample is inside when `e ≥ 0` (fill-rule bias included in `c`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Edge {
    /// Change per sample step in x.
    pub dx: i64,
    /// Change per sample step in y.
    pub dy: i64,
    /// Value at sample (0, 0).
    pub c: i64,
}

impl Edge {
    /// Value at sample (x, y).
    #[inline]
    pub(super) fn at(&self, x: i32, y: i32) -> i64 {
        self.c + self.dx * x as i64 + self.dy * y as i64
    }
}

/// An affine function over samples, relative to the triangle's bounding-box origin.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(super) struct Plane {
    /// Value at the origin sample.
    pub base: f32,
    /// Change per sample in x.
    pub dx: f32,
    /// Change per sample in y.
    pub dy: f32,
}

impl Plane {
    /// Value at an offset from the origin.
    #[inline]
    pub(super) fn at(&self, ox: f32, oy: f32) -> f32 {
        self.base + self.dx * ox + self.dy * oy
    }
}

/// A triangle ready to rasterize.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Triangle {
    /// The three edge functions.
    pub edges: [Edge; 3],
    /// Inclusive sample bounding box `[x0, y0, x1, y1]`, clamped to the target.
    pub bbox: [i32; 4],
    /// Depth (`z/w`, 0 = near).
    pub z: Plane,
    /// The depth of its centroid (the mean of its corners' `z/w`): the order blended triangles
    /// are drawn in, farthest first.
    pub centroid_depth: f32,
    /// `1/w`, when its material's [`PlaneNeeds`] ask for it (else zero).
    pub inv_w: Plane,
    /// `attribute/w` for each attribute whose planes its material's [`PlaneNeeds`] ask for
    /// (the others zero).
    pub attrs: [Plane; ATTRS],
    /// Index of the material in the draw's material table.
    pub material: u32,
    /// True when the triangle faces away from the camera (drawn only when culling is off).
    pub back_facing: bool,
}

/// Which attribute planes a triangle's material reads ([`FragmentNeeds::planes`]): setup builds
/// only those, besides depth, which every draw tests. On a dense mesh most triangles set up
/// are hidden, and an untextured lit material reads only normals: the uv and `1/w` planes it
/// would skip were a fifth of setting up a triangle.
///
/// [`FragmentNeeds::planes`]: super::context::FragmentNeeds::planes
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct PlaneNeeds {
    pub uv: bool,
    pub normals: bool,
    pub inv_w: bool,
}

impl PlaneNeeds {
    /// Every plane: what the tests compare.
    #[cfg(test)]
    pub(super) const ALL: PlaneNeeds = PlaneNeeds { uv: true, normals: true, inv_w: true };
}

/// What setup needs to know of the part a triangle comes from.
#[derive(Debug, Clone, Copy)]
pub(super) struct PartSetup {
    /// Index of the part's material in the draw's material table.
    pub material: u32,
    /// Triangles facing away are dropped.
    pub cull: bool,
    /// The attribute planes its material reads.
    pub planes: PlaneNeeds,
}

/// Outcode bits of a clip-space position: outside one of the six clip planes each.
const OUTSIDE_PLANES: u8 = 0b11_1111;
/// The vertex lies behind the near plane or outside the guard band: its triangles are clipped.
const NEEDS_CLIP: u8 = 1 << 6;
/// A coordinate is not finite (the vertex stage also marks vertices with non-finite attributes).
const NOT_FINITE: u8 = 1 << 7;

/// A vertex after the vertex stage as the cheap triangle tests see it, projected once for all
/// the triangles that share it: its outcode and, for a vertex inside the near plane and guard
/// band, its position snapped to the sub-pixel grid. Inside the guard band a snapped
/// coordinate is at most 4.5 target widths of 2^16 samples at 2^8 steps a sample from the
/// origin: an `i32` holds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct ScreenVertex {
    x: i32,
    y: i32,
    code: u8,
}

impl ScreenVertex {
    /// A vertex whose triangles are dropped: a non-finite coordinate or attribute, or an index
    /// past the vertices.
    pub(super) const NOT_FINITE: ScreenVertex = ScreenVertex { x: 0, y: 0, code: NOT_FINITE };

    /// Projects clip-space `pos` onto a target of `size` samples.
    #[inline]
    pub(super) fn new(pos: Vec4, size: (u32, u32)) -> ScreenVertex {
        if !pos.is_finite() {
            return ScreenVertex::NOT_FINITE;
        }
        let outcode = (pos.z < 0.0) as u8
            | ((pos.z > pos.w) as u8) << 1
            | ((pos.x > pos.w) as u8) << 2
            | ((pos.x < -pos.w) as u8) << 3
            | ((pos.y > pos.w) as u8) << 4
            | ((pos.y < -pos.w) as u8) << 5;
        if pos.z < 0.0 || pos.x.abs() > GUARD * pos.w || pos.y.abs() > GUARD * pos.w {
            return ScreenVertex { x: 0, y: 0, code: outcode | NEEDS_CLIP };
        }
        let (x, y) = snap(pos, 1.0 / pos.w as f64, size);
        ScreenVertex { x: x as i32, y: y as i32, code: outcode }
    }
}

/// Projects clip-space positions `clip` onto a target of `size` samples into `screen` (as long):
/// [`ScreenVertex::new`] of each, four at a time in vector lanes. The same comparisons and the
/// same `f64` sums, lane by lane, so every bit is the same; without the branches, which a mesh
/// partly off screen or behind the camera mispredicts.
pub(super) fn project(clip: &[Vec4], screen: &mut [ScreenVertex], size: (u32, u32)) {
    let (groups, rest) = screen.as_chunks_mut::<4>();
    let (clip_groups, clip_rest) = clip.as_chunks::<4>();
    for (out, pos) in groups.iter_mut().zip(clip_groups) {
        *out = project_lanes(pos, size);
    }
    for (out, &pos) in rest.iter_mut().zip(clip_rest) {
        *out = ScreenVertex::new(pos, size);
    }
}

/// [`ScreenVertex::new`] of four positions side by side.
#[inline(always)]
fn project_lanes(pos: &[Vec4; 4], size: (u32, u32)) -> [ScreenVertex; 4] {
    let lanes = |coordinate: fn(&Vec4) -> f32| f32x4::new(std::array::from_fn(|k| coordinate(&pos[k])));
    let (x, y, z, w) = (lanes(|p| p.x), lanes(|p| p.y), lanes(|p| p.z), lanes(|p| p.w));
    let finite = x.is_finite() & y.is_finite() & z.is_finite() & w.is_finite();
    let bit = |outside: f32x4, bit: u8| bytemuck::cast::<f32x4, i32x4>(outside) & i32x4::splat(i32::from(bit));
    let outcode = bit(z.simd_lt(f32x4::ZERO), 1)
        | bit(z.simd_gt(w), 1 << 1)
        | bit(x.simd_gt(w), 1 << 2)
        | bit(x.simd_lt(-w), 1 << 3)
        | bit(y.simd_gt(w), 1 << 4)
        | bit(y.simd_lt(-w), 1 << 5);
    let guard = f32x4::splat(GUARD) * w;
    let needs_clip = z.simd_lt(f32x4::ZERO) | x.abs().simd_gt(guard) | y.abs().simd_gt(guard);
    let code = bytemuck::cast::<f32x4, i32x4>(finite)
        .select(outcode | bit(needs_clip, NEEDS_CLIP), i32x4::splat(i32::from(NOT_FINITE)))
        .to_array();
    // Snapped in `f64`, two lanes a vector, as `snap` does; lanes that are not snapped (not
    // finite or clipped) keep (0, 0).
    let snapped = (!bytemuck::cast::<f32x4, i32x4>(needs_clip) & bytemuck::cast::<f32x4, i32x4>(finite)).to_array();
    let (x, y, w) = (x.to_array(), y.to_array(), w.to_array());
    let (width, height) = (f64x2::splat(size.0 as f64), f64x2::splat(size.1 as f64));
    let half = f64x2::splat(0.5);
    let pair = |a: &[f32; 4], k: usize| f64x2::new([f64::from(a[k]), f64::from(a[k + 1])]);
    let round = |v: f64x2| {
        let v = v * f64x2::splat(SUBPIXEL);
        (v + v.simd_ge(f64x2::ZERO).select(half, -half)).trunc_int().to_array()
    };
    let mut out = [ScreenVertex::NOT_FINITE; 4];
    for k in [0, 2] {
        let inv_w = f64x2::ONE / pair(&w, k);
        let sx = round((pair(&x, k) * inv_w * half + half) * width);
        let sy = round((half - pair(&y, k) * inv_w * half) * height);
        for j in 0..2 {
            let keep = snapped[k + j];
            out[k + j] = ScreenVertex { x: sx[j] as i32 & keep, y: sy[j] as i32 & keep, code: code[k + j] as u8 };
        }
    }
    out
}

/// Viewport transform (pixel row 0 at the top) of a clip-space position with its `1/w`, snapped
/// to the sub-pixel grid.
#[inline(always)]
fn snap(p: Vec4, inv_w: f64, size: (u32, u32)) -> (i64, i64) {
    let (w, h) = (size.0 as f64, size.1 as f64);
    let x = (p.x as f64 * inv_w * 0.5 + 0.5) * w;
    let y = (0.5 - p.y as f64 * inv_w * 0.5) * h;
    (round_to_i64(x * SUBPIXEL), round_to_i64(y * SUBPIXEL))
}

/// A part's vertices after the vertex stage: clip positions and projections (one for each
/// position, several vertices may share one), and the attributes of vertex `i` from
/// `attrs(i)`.
pub(super) struct Corners<'v, A> {
    pub clip: &'v [Vec4],
    pub screen: &'v [ScreenVertex],
    pub attrs: A,
}

/// Sets up the triangles of one part into `out`, in order, and their colour planes into
/// `colours` when the draw has vertex colours. `triangles` are the part's triangles twice:
/// as vertices (for the attributes) and as positions (indices into `vertices`' projections).
///
/// Two passes: the first keeps, without a branch per triangle, the triangles that may draw
/// something; only those are set up. On a dense mesh at sprite sizes most triangles face away
/// or fall between sample centres, and branching on each would mispredict about as often as
/// the tests themselves cost. On targets up to [`EXACT_IN_F64`] samples a side (every sprite)
/// the first pass tests [`BATCH`] triangles at a time in vector lanes.
///
/// Kept out of line: inlined into the vertex stage's closure (which LLVM does or not as other
/// code changes) it runs 1.4% more instructions on a Mixamo sheet, 1.4% more on a dense
/// sphere.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
pub(super) fn setup_triangles<A: Fn(usize) -> [f32; CORNER_ATTRS]>(
    (indices, positions): (&[[u32; 3]], &[[u32; 3]]),
    vertices: &Corners<A>,
    size: (u32, u32),
    part: PartSetup,
    kept: &mut Vec<u32>,
    out: &mut Vec<Triangle>,
    mut colours: Option<&mut Vec<ColourPlanes>>,
) {
    let Corners { clip, screen, attrs } = vertices;
    let corners = |tri: &[u32; 3]| tri.map(|i| screen.get(i as usize).copied().unwrap_or(ScreenVertex::NOT_FINITE));
    kept.clear();
    kept.resize(positions.len(), 0);
    let mut count = 0;
    let mut keep = |i: usize, drawn: bool| {
        if let Some(slot) = kept.get_mut(count) {
            *slot = i as u32;
        }
        count += drawn as usize;
    };
    if size.0.max(size.1) <= EXACT_IN_F64 {
        let mut batch = Batch::default();
        for (b, chunk) in positions.chunks(BATCH).enumerate() {
            for (k, tri) in chunk.iter().enumerate() {
                batch.set(k, corners(tri));
            }
            let drawn = batch.may_draw(part.cull);
            for (k, drawn) in drawn.into_iter().take(chunk.len()).enumerate() {
                keep(b * BATCH + k, drawn);
            }
        }
    } else {
        for (i, tri) in positions.iter().enumerate() {
            keep(i, may_draw(corners(tri), size, part.cull));
        }
    }
    kept.truncate(count);
    for &i in kept.iter() {
        let (Some(tri), Some(at)) = (indices.get(i as usize), positions.get(i as usize)) else { continue };
        let clip_positions = at.map(|i| clip.get(i as usize).copied().unwrap_or(Vec4::NAN));
        let corner_attrs = |k: usize| attrs(tri[k] as usize);
        setup_projected(clip_positions, corners(at), corner_attrs, size, part, out, colours.as_deref_mut());
    }
}

/// Whether a triangle may draw anything: false only for one that [`setup_projected`] would
/// drop (a non-finite corner, all corners outside one clip plane, or, unless it needs
/// clipping, zero area, facing away when `cull`, or no sample centre in its box). Integer
/// tests combined without branches.
#[inline(always)]
fn may_draw(v: [ScreenVertex; 3], size: (u32, u32), cull: bool) -> bool {
    let (any, all) = (v[0].code | v[1].code | v[2].code, v[0].code & v[1].code & v[2].code);
    let dropped = (any & NOT_FINITE != 0) | (all & OUTSIDE_PLANES != 0);
    let p = v.map(|v| (v.x as i64, v.y as i64));
    let area = (p[1].0 - p[0].0) * (p[2].1 - p[0].1) - (p[1].1 - p[0].1) * (p[2].0 - p[0].0);
    let [x0, y0, x1, y1] = sample_box(p, size);
    let empty = (area == 0) | (cull & (area > 0)) | (x0 > x1) | (y0 > y1);
    !dropped & ((any & NEEDS_CLIP != 0) | !empty)
}

/// How many triangles the cheap pass tests side by side.
const BATCH: usize = 16;

/// Up to this many samples a side, snapped coordinates differ by less than 2^25 steps (the
/// guard band is 8 target widths across, at 2^8 steps a sample): the products of the area
/// test stay below 2^50, exact in `f64`, which the side-by-side test computes them in (SSE2
/// has no 64-bit integer multiply).
const EXACT_IN_F64: u32 = 1 << 14;

/// The corners of [`BATCH`] triangles, one array per coordinate, so that [`Batch::may_draw`]
/// compiles to vector instructions.
#[derive(Default)]
struct Batch {
    x: [[i32; BATCH]; 3],
    y: [[i32; BATCH]; 3],
    code: [[u32; BATCH]; 3],
}

impl Batch {
    /// Puts triangle `v` in lane `k`.
    #[inline(always)]
    fn set(&mut self, k: usize, v: [ScreenVertex; 3]) {
        for (c, v) in v.iter().enumerate() {
            if let Some(((x, y), code)) = self.x[c].get_mut(k).zip(self.y[c].get_mut(k)).zip(self.code[c].get_mut(k)) {
                (*x, *y, *code) = (v.x, v.y, u32::from(v.code));
            }
        }
    }

    /// [`may_draw`] of every lane, on targets up to [`EXACT_IN_F64`] samples a side, except that
    /// a box is found empty only where all three corners lie between the same two sample
    /// centres, not where it is clamped away off the target: the lanes then test equality,
    /// which SSE2 has, instead of minima and maxima, which it has not. Setup itself tests the
    /// clamped box of the few it keeps.
    #[inline(always)]
    #[allow(clippy::needless_range_loop)] // lane loops index several arrays in step
    fn may_draw(&self, cull: bool) -> [bool; BATCH] {
        let (x, y, code) = (&self.x, &self.y, &self.code);
        // Between the same two sample centres: the same sample at or before, none on a centre.
        let between_centres = |a: &[[i32; BATCH]; 3], k: usize| {
            let [p0, p1, p2] = [a[0][k], a[1][k], a[2][k]].map(|p| p - HALF_PIXEL as i32);
            let same = (p0 >> SUBPIXEL_BITS == p1 >> SUBPIXEL_BITS) & (p1 >> SUBPIXEL_BITS == p2 >> SUBPIXEL_BITS);
            let on_centre = |p: i32| p & ((1 << SUBPIXEL_BITS) - 1) == 0;
            same & !(on_centre(p0) | on_centre(p1) | on_centre(p2))
        };
        let mut drawn = [false; BATCH];
        for k in 0..BATCH {
            let any = code[0][k] | code[1][k] | code[2][k];
            let all = code[0][k] & code[1][k] & code[2][k];
            let dropped = (any & u32::from(NOT_FINITE) != 0) | (all & u32::from(OUTSIDE_PLANES) != 0);
            let d = |a: &[[i32; BATCH]; 3], i: usize| f64::from(a[i][k] - a[0][k]);
            let area = d(x, 1) * d(y, 2) - d(y, 1) * d(x, 2);
            let empty = (area == 0.0) | (cull & (area > 0.0)) | between_centres(x, k) | between_centres(y, k);
            drawn[k] = !dropped & ((any & u32::from(NEEDS_CLIP) != 0) | !empty);
        }
        drawn
    }
}

/// The samples whose centres a triangle with snapped corners `p` may cover: its inclusive
/// bounding box in samples, clamped to the target (empty when `x0 > x1` or `y0 > y1`).
#[inline(always)]
fn sample_box(p: [(i64, i64); 3], size: (u32, u32)) -> [i64; 4] {
    let (xs, ys) = ([p[0].0, p[1].0, p[2].0], [p[0].1, p[1].1, p[2].1]);
    let sample_lo = |lo: i64| (lo - HALF_PIXEL + (1 << SUBPIXEL_BITS) - 1) >> SUBPIXEL_BITS;
    let sample_hi = |hi: i64| (hi - HALF_PIXEL) >> SUBPIXEL_BITS;
    [
        sample_lo(xs[0].min(xs[1]).min(xs[2])).max(0),
        sample_lo(ys[0].min(ys[1]).min(ys[2])).max(0),
        sample_hi(xs[0].max(xs[1]).max(xs[2])).min(size.0 as i64 - 1),
        sample_hi(ys[0].max(ys[1]).max(ys[2])).min(size.1 as i64 - 1),
    ]
}

/// Clips one triangle and appends the resulting triangles (0 to 7) in order: the tests' way
/// in, one triangle at a time.
///
/// `size` is the target size in samples. Triangles facing away are dropped when `cull` is set.
#[cfg(test)]
pub(super) fn setup_triangle(v: [ClipVertex; 3], size: (u32, u32), material: u32, cull: bool, out: &mut Vec<Triangle>) {
    let screen = v.map(|v| match v.attrs.iter().all(|a| a.is_finite()) {
        true => ScreenVertex::new(v.pos, size),
        false => ScreenVertex::NOT_FINITE,
    });
    let part = PartSetup { material, cull, planes: PlaneNeeds::ALL };
    setup_projected(v.map(|v| v.pos), screen, |k| v[k].attrs, size, part, out, None);
}

/// Sets up one triangle from its corners' clip positions and projections, clipping it when a
/// corner needs it; `attrs(k)` gives corner `k`'s attributes, asked for only once the
/// triangle is known to cover a sample (or to be too large to tell cheaply).
#[inline]
#[allow(clippy::too_many_arguments)]
fn setup_projected(
    pos: [Vec4; 3],
    screen: [ScreenVertex; 3],
    attrs: impl Fn(usize) -> [f32; CORNER_ATTRS],
    size: (u32, u32),
    part: PartSetup,
    out: &mut Vec<Triangle>,
    mut colours: Option<&mut Vec<ColourPlanes>>,
) {
    let codes = screen.map(|v| v.code);
    // Any non-finite input; or all three outside one clip plane.
    if (codes[0] | codes[1] | codes[2]) & NOT_FINITE != 0 || codes[0] & codes[1] & codes[2] & OUTSIDE_PLANES != 0 {
        return;
    }
    if (codes[0] | codes[1] | codes[2]) & NEEDS_CLIP == 0 {
        let corners: [SnappedCorner; 3] = std::array::from_fn(|k| SnappedCorner {
            snapped: (screen[k].x as i64, screen[k].y as i64),
            w: pos[k].w,
            z: pos[k].z,
        });
        setup_snapped(corners, || [attrs(0), attrs(1), attrs(2)], size, part, out, colours);
        return;
    }
    let mut poly: Vec<ClipVertex> = (0..3).map(|k| ClipVertex { pos: pos[k], attrs: attrs(k) }).collect();
    // A non-finite attribute drops the whole triangle, not only the parts of it cut from that corner.
    if poly.iter().any(|v| v.attrs.iter().any(|a| !a.is_finite())) {
        return;
    }
    // Plane distances: inside when ≥ 0.
    let planes: [fn(Vec4) -> f32; 5] =
        [|p| p.z, |p| GUARD * p.w - p.x, |p| GUARD * p.w + p.x, |p| GUARD * p.w - p.y, |p| GUARD * p.w + p.y];
    for plane in planes {
        poly = clip_polygon(&poly, plane);
        if poly.len() < 3 {
            return;
        }
    }
    // Triangulate the convex polygon as a fan; order is preserved, so output stays deterministic.
    for i in 1..poly.len() - 1 {
        let fan = [poly[0], poly[i], poly[i + 1]];
        let corners =
            fan.map(|v| SnappedCorner { snapped: snap(v.pos, 1.0 / v.pos.w as f64, size), w: v.pos.w, z: v.pos.z });
        setup_snapped(corners, || fan.map(|v| v.attrs), size, part, out, colours.as_deref_mut());
    }
}

/// Sutherland–Hodgman against one plane given as a signed distance.
fn clip_polygon(poly: &[ClipVertex], dist: fn(Vec4) -> f32) -> Vec<ClipVertex> {
    let mut out = Vec::with_capacity(poly.len() + 2);
    for (i, a) in poly.iter().enumerate() {
        let b = &poly[(i + 1) % poly.len()];
        let (da, db) = (dist(a.pos), dist(b.pos));
        if da >= 0.0 {
            out.push(*a);
        }
        if (da >= 0.0) != (db >= 0.0) {
            out.push(a.lerp(b, da / (da - db)));
        }
    }
    out
}

/// `v.round() as i64` without the libm call `f64::round` compiles to on baseline x86-64: half
/// away from zero, exact for the guard band's coordinates (far below 2^52).
#[inline(always)]
fn round_to_i64(v: f64) -> i64 {
    (v + if v >= 0.0 { 0.5 } else { -0.5 }) as i64
}

/// A corner of a triangle inside the near plane and guard band: snapped position and
/// clip-space `w` and `z`.
#[derive(Clone, Copy)]
struct SnappedCorner {
    snapped: (i64, i64),
    w: f32,
    z: f32,
}

/// Boxes of at most this many samples are tested sample by sample before any plane is built:
/// at sprite sizes most triangles of a dense mesh cover none of theirs.
const SMALL_BOX: i64 = 16;

/// Sets up a triangle known to be inside the near plane and guard band; its corners'
/// attributes are asked for only once it is known to cover a sample (or to be too large to
/// tell cheaply). Its colour planes go to `colours` when the draw keeps them.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn setup_snapped(
    mut corners: [SnappedCorner; 3],
    attrs: impl FnOnce() -> [[f32; CORNER_ATTRS]; 3],
    size: (u32, u32),
    part: PartSetup,
    out: &mut Vec<Triangle>,
    colours: Option<&mut Vec<ColourPlanes>>,
) {
    let p = corners.map(|c| c.snapped);
    let area = (p[1].0 - p[0].0) * (p[2].1 - p[0].1) - (p[1].1 - p[0].1) * (p[2].0 - p[0].0);
    if area == 0 {
        return;
    }
    // Counter-clockwise in y-up clip space is front-facing; the viewport's y flip makes that a
    // negative area here.
    let back_facing = area > 0;
    if back_facing && part.cull {
        return;
    }
    // The edge functions below assume positive area: reorder front faces (their attributes
    // too, once read).
    if !back_facing {
        corners.swap(1, 2);
    }
    let (p, area) = (corners.map(|c| c.snapped), area.abs());

    let [x0, y0, x1, y1] = sample_box(p, size);
    if x0 > x1 || y0 > y1 {
        return;
    }

    // Edge i is opposite vertex i: from vertex i+1 to vertex i+2.
    let mut edges = [Edge { dx: 0, dy: 0, c: 0 }; 3];
    let mut unbiased = [0i64; 3];
    for (i, edge) in edges.iter_mut().enumerate() {
        let (ax, ay) = p[(i + 1) % 3];
        let (bx, by) = p[(i + 2) % 3];
        // e(P) = (b.x − a.x)(P.y − a.y) − (b.y − a.y)(P.x − a.x), at sample centres.
        let (ex, ey) = (-(by - ay), bx - ax);
        let c_sub = -(ex * ax + ey * ay);
        // Value at sample (0,0), whose centre is at (½, ½) pixel.
        let c0 = c_sub + ex * HALF_PIXEL + ey * HALF_PIXEL;
        // Top edge: horizontal going right; left edge: going up (positive area, y down).
        let top_left = (ay == by && bx > ax) || by < ay;
        unbiased[i] = c0;
        *edge = Edge { dx: ex << SUBPIXEL_BITS, dy: ey << SUBPIXEL_BITS, c: if top_left { c0 } else { c0 - 1 } };
    }
    // A triangle that covers none of its few samples draws nothing: dropped before its planes.
    if (x1 - x0 + 1) * (y1 - y0 + 1) <= SMALL_BOX && !covers_a_sample(&edges, [x0, y0, x1, y1]) {
        return;
    }

    // Attribute planes from barycentrics λi = e_i / area, relative to the bbox origin.
    let inv_area = 1.0 / area as f64;
    let (ox, oy) = (x0, y0);
    let mut lambda_planes = [(0.0, 0.0, 0.0); 3];
    for ((lambda, e), unbiased) in lambda_planes.iter_mut().zip(&edges).zip(unbiased) {
        let at_origin = unbiased + e.dx * ox + e.dy * oy;
        *lambda = (at_origin as f64 * inv_area, e.dx as f64 * inv_area, e.dy as f64 * inv_area);
    }
    let mut corner_attrs = attrs();
    if !back_facing {
        corner_attrs.swap(1, 2);
    }
    // The colours count only where they are set up. Folded without a branch per value: a
    // short-circuiting test of fifteen values costs more than the values.
    let all_finite = |values: &[f32]| values.iter().fold(true, |finite, a| finite & a.is_finite());
    let finite = |corner: &[f32; CORNER_ATTRS]| {
        all_finite(&corner[..ATTRS]) & (colours.is_none() || all_finite(&corner[ATTRS..]))
    };
    if !corner_attrs.iter().all(finite) {
        return;
    }
    // `1/w` is divided out only now: most triangles set up draw nothing.
    let inv_w = corners.map(|c| 1.0 / c.w as f64);
    let depths = [0, 1, 2].map(|k| corners[k].z as f64 * inv_w[k]);
    let centroid_depth = (depths.iter().sum::<f64>() / 3.0) as f32;
    let over_w = |k: usize, a: usize| corner_attrs[k][a] as f64 * inv_w[k];
    // Each plane is the same sum whether built alone or beside others: leaving out the ones
    // the material does not read changes no bit of the rest.
    let [z] = planes(&lambda_planes, depths.map(|d| [d]));
    let needs = part.planes;
    let inv_w_plane = match needs.inv_w {
        true => planes(&lambda_planes, inv_w.map(|q| [q]))[0],
        false => Plane::default(),
    };
    let mut attrs = [Plane::default(); ATTRS];
    if needs.uv {
        let uv = planes(&lambda_planes, std::array::from_fn(|k| [over_w(k, 0), over_w(k, 1)]));
        attrs[..2].copy_from_slice(&uv);
    }
    if needs.normals {
        let normals = planes(&lambda_planes, std::array::from_fn(|k| [over_w(k, 2), over_w(k, 3), over_w(k, 4)]));
        attrs[2..].copy_from_slice(&normals);
    }
    if let Some(colours) = colours {
        colours.push(planes(&lambda_planes, std::array::from_fn(|i| std::array::from_fn(|c| over_w(i, ATTRS + c)))));
    }
    out.push(Triangle {
        edges,
        bbox: [x0 as i32, y0 as i32, x1 as i32, y1 as i32],
        z,
        centroid_depth,
        inv_w: inv_w_plane,
        attrs,
        material: part.material,
        back_facing,
    });
}

/// The planes of `K` values given at a triangle's three corners, from its barycentric planes
/// `lambda` (each corner's weight at the origin and per sample in x and y): every plane is
/// the same sum of products, in the same order, so they are computed side by side.
#[inline(always)]
fn planes<const K: usize>(lambda: &[(f64, f64, f64); 3], values: [[f64; K]; 3]) -> [Plane; K] {
    let (mut base, mut dx, mut dy) = ([0.0f64; K], [0.0f64; K], [0.0f64; K]);
    for (l, corner) in lambda.iter().zip(&values) {
        for (((base, dx), dy), value) in base.iter_mut().zip(&mut dx).zip(&mut dy).zip(corner) {
            *base += l.0 * value;
            *dx += l.1 * value;
            *dy += l.2 * value;
        }
    }
    let mut planes = [Plane::default(); K];
    for (((plane, base), dx), dy) in planes.iter_mut().zip(base).zip(dx).zip(dy) {
        *plane = Plane { base: base as f32, dx: dx as f32, dy: dy as f32 };
    }
    planes
}

/// Whether any sample of the inclusive box `[x0, y0, x1, y1]` (at most [`SMALL_BOX`] samples,
/// on the target) is inside all three edges.
#[inline(always)]
fn covers_a_sample(edges: &[Edge; 3], sample_box: [i64; 4]) -> bool {
    each_covered_sample(edges, sample_box.map(|v| v as i32), |_, _| false)
}

/// Calls `visit(x, y)` for each sample of the inclusive box `[x0, y0, x1, y1]` that a triangle
/// with `edges` covers, row after row, until `visit` returns false; whether it did. For the few
/// samples of a small triangle's box: one flat loop (nested counted loops compile to vector
/// code whose set-up costs more than the samples), the edge values stepped by additions (the
/// same sums [`Edge::at`] makes), and a sample inside where none of the three is negative (one
/// test, not a branch per edge, whose outcome is a coin toss on a triangle's rim).
#[inline(always)]
pub(super) fn each_covered_sample(
    edges: &[Edge; 3],
    [x0, y0, x1, y1]: [i32; 4],
    mut visit: impl FnMut(i32, i32) -> bool,
) -> bool {
    let [a, b, c] = *edges;
    let mut row = [a.at(x0, y0), b.at(x0, y0), c.at(x0, y0)];
    let mut v = row;
    let mut left = (x1 - x0 + 1) * (y1 - y0 + 1);
    let (mut x, mut y) = (x0, y0);
    if left <= 0 {
        return false;
    }
    loop {
        if (v[0] | v[1] | v[2]) >= 0 && !visit(x, y) {
            return true;
        }
        left -= 1;
        if left <= 0 {
            return false;
        }
        x += 1;
        if x > x1 {
            (x, y) = (x0, y + 1);
            row = [row[0] + a.dy, row[1] + b.dy, row[2] + c.dy];
            v = row;
        } else {
            v = [v[0] + a.dx, v[1] + b.dx, v[2] + c.dx];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Triangles of every kind setup meets: tiny ones between sample centres and on them, both
    /// windings, off screen, across the near plane and guard band, degenerate, non-finite.
    fn assorted_triangles(count: usize) -> Vec<[ClipVertex; 3]> {
        let mut seed = 0x2545_f491_u32;
        let mut random = move || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed as f32 / u32::MAX as f32
        };
        let vertex = |pos: Vec4, attrs: [f32; CORNER_ATTRS]| ClipVertex { pos, attrs };
        (0..count)
            .map(|i| {
                // Scales from a fraction of a sample (on a 64-sample target) to past the guard band.
                let scale = [0.004, 0.02, 0.1, 1.0, 12.0][i % 5];
                let (cx, cy) = (random() * 2.4 - 1.2, random() * 2.4 - 1.2);
                let corner = |random: &mut dyn FnMut() -> f32| {
                    let w = 0.5 + random() * 2.0;
                    let z = random() * 1.4 - 0.2;
                    let pos = Vec4::new(cx + (random() - 0.5) * scale, cy + (random() - 0.5) * scale, z, 1.0) * w;
                    vertex(pos, [random(), random(), 0.0, 0.0, 1.0, random(), random(), random(), 1.0])
                };
                let mut tri = [corner(&mut random), corner(&mut random), corner(&mut random)];
                match i % 23 {
                    7 => tri[1].pos.x = f32::NAN,
                    11 => tri[2].attrs[3] = f32::INFINITY,
                    13 => tri[2] = tri[1],
                    _ => {}
                }
                tri
            })
            .collect()
    }

    #[test]
    fn projection_in_lanes_is_each_position_projected() {
        // Every case of the tests: either side of zero and of the guard band, on it, tiny,
        // not finite; w zero of either sign, negative, tiny.
        let values = [0.0, -0.0, 0.3, -0.3, 1.0, -1.0, 2.5, 7.9, 8.0, -8.0, 8.1, 1e-30, f32::NAN, f32::INFINITY, -3e38];
        let ws = [1.0, 0.0, -0.0, 0.5, -1.0, 1e-30, 3.0, f32::NAN];
        let mut clip = Vec::new();
        for x in values {
            for y in values {
                for z in [0.0, -0.0, 0.5, -0.1, 1.5, f32::NAN] {
                    for w in ws {
                        // Scaled by w, as clip positions are, and as given.
                        clip.extend([Vec4::new(x, y, z, w), Vec4::new(x * w, y * w, z * w, w)]);
                    }
                }
            }
        }
        // A count that leaves a remainder past the groups of four.
        clip.push(Vec4::new(0.25, -0.5, 0.5, 1.0));
        assert_eq!(clip.len() % 4, 1);
        for size in [(64, 48), (512, 512), (1 << 16, 3)] {
            let mut screen = vec![ScreenVertex::NOT_FINITE; clip.len()];
            project(&clip, &mut screen, size);
            for (pos, got) in clip.iter().zip(&screen) {
                assert_eq!(*got, ScreenVertex::new(*pos, size), "{pos} at {size:?}");
            }
        }
    }

    #[test]
    fn the_triangles_setup_skips_are_the_ones_that_draw_nothing() {
        // Side by side on a sprite-sized target, one at a time past `EXACT_IN_F64`.
        for size in [(64, 48), (EXACT_IN_F64 + 1, 48)] {
            let (kept, set_up) = setup_skips_only_triangles_that_draw_nothing(size);
            // The mix really has all kinds: some clipped into several, and on the sprite most
            // are dropped.
            assert!(set_up > 300, "{set_up} set up at {size:?}");
            assert!(size.0 > 64 || kept < 4000 / 2, "{kept} kept");
        }
    }

    /// The triangles the cheap pass kept and those set up, of the last pass (culling).
    fn setup_skips_only_triangles_that_draw_nothing(size: (u32, u32)) -> (usize, usize) {
        let triangles = assorted_triangles(4000);
        let mut counts = (0, 0);
        for cull in [false, true] {
            // One at a time, every triangle through the whole setup.
            let mut one_by_one = Vec::new();
            for tri in &triangles {
                setup_triangle(*tri, size, 0, cull, &mut one_by_one);
            }
            // The part's way: projected once per vertex, the cheap pass first.
            let clip: Vec<Vec4> = triangles.iter().flatten().map(|v| v.pos).collect();
            let attrs: Vec<[f32; CORNER_ATTRS]> = triangles.iter().flatten().map(|v| v.attrs).collect();
            let screen: Vec<ScreenVertex> = triangles
                .iter()
                .flatten()
                .map(|v| match v.attrs.iter().all(|a| a.is_finite()) {
                    true => ScreenVertex::new(v.pos, size),
                    false => ScreenVertex::NOT_FINITE,
                })
                .collect();
            let indices: Vec<[u32; 3]> = (0..triangles.len() as u32).map(|t| [3 * t, 3 * t + 1, 3 * t + 2]).collect();
            let (mut kept, mut batched, mut colours) = (Vec::new(), Vec::new(), Vec::new());
            let vertices = Corners { clip: &clip, screen: &screen, attrs: |i: usize| attrs[i] };
            let part = PartSetup { material: 0, cull, planes: PlaneNeeds::ALL };
            setup_triangles((&indices, &indices), &vertices, size, part, &mut kept, &mut batched, Some(&mut colours));
            assert_eq!(batched, one_by_one, "cull {cull}");
            // Planes a material does not read are left out; the others are the same to the bit.
            let normals_only = PartSetup { planes: PlaneNeeds { uv: false, normals: true, inv_w: false }, ..part };
            let mut fewer = Vec::new();
            setup_triangles((&indices, &indices), &vertices, size, normals_only, &mut kept, &mut fewer, None);
            let without_uv = |t: &Triangle| {
                let mut attrs = t.attrs;
                attrs[..2].fill(Plane::default());
                Triangle { inv_w: Plane::default(), attrs, ..t.clone() }
            };
            assert_eq!(fewer, one_by_one.iter().map(without_uv).collect::<Vec<_>>(), "cull {cull}");
            assert_eq!(colours.len(), batched.len(), "one set of colour planes a triangle");
            // Each set-up triangle covers a sample of its box, or its box is too large to tell.
            for t in &batched {
                let [x0, y0, x1, y1] = t.bbox.map(i64::from);
                assert!((x1 - x0 + 1) * (y1 - y0 + 1) > SMALL_BOX || covers_a_sample(&t.edges, [x0, y0, x1, y1]));
            }
            counts = (kept.len(), batched.len());
        }
        counts
    }

    #[test]
    fn the_side_by_side_cheap_test_keeps_every_triangle_the_single_one_keeps() {
        let size = (64, 48);
        let triangles = assorted_triangles(4000);
        let screen: Vec<[ScreenVertex; 3]> =
            triangles.iter().map(|tri| tri.map(|v| ScreenVertex::new(v.pos, size))).collect();
        for cull in [false, true] {
            let (mut same, mut more) = (0, 0);
            for chunk in screen.chunks(BATCH) {
                let mut batch = Batch::default();
                for (k, &v) in chunk.iter().enumerate() {
                    batch.set(k, v);
                }
                for (&v, side_by_side) in chunk.iter().zip(batch.may_draw(cull)) {
                    let alone = may_draw(v, size, cull);
                    assert!(side_by_side || !alone, "a drawable triangle dropped: {v:?}");
                    (same, more) = (same + (side_by_side == alone) as usize, more + (side_by_side && !alone) as usize);
                }
            }
            // It keeps more only of the triangles whose box lies off the target.
            assert!(more > 0 && more < same / 10, "{more} more, {same} the same");
        }
    }

    #[test]
    fn a_tiny_triangle_is_kept_exactly_when_it_holds_a_sample_centre() {
        let size = (16, 16);
        // One sample is 2/16 of clip space wide; sample (8, 8) has its centre at clip (1/16, -1/16).
        let at = |x: f32, y: f32| ClipVertex { pos: Vec4::new(x, y, 0.5, 1.0), attrs: [0.0; CORNER_ATTRS] };
        let around = |cx: f32, cy: f32| [at(cx - 0.02, cy - 0.02), at(cx + 0.02, cy - 0.02), at(cx, cy + 0.02)];
        let mut out = Vec::new();
        setup_triangle(around(1.0 / 16.0, -1.0 / 16.0), size, 0, true, &mut out);
        assert_eq!(out.len(), 1, "a triangle around a sample centre is kept");
        assert_eq!(out[0].bbox, [8, 8, 8, 8]);
        setup_triangle(around(0.0, 0.0), size, 0, true, &mut out);
        assert_eq!(out.len(), 1, "one between four sample centres is dropped");
    }
}
