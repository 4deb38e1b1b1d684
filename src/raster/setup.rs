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

/// Attributes carried per vertex: u, v, normal x, y, z (view space).
pub const ATTRS: usize = 5;

/// Sub-pixel precision: 8 bits.
const SUBPIXEL_BITS: u32 = 8;
const SUBPIXEL: f64 = (1 << SUBPIXEL_BITS) as f64;
const HALF_PIXEL: i64 = 1 << (SUBPIXEL_BITS - 1);

/// Guard band in multiples of the viewport half-size. Larger triangles are clipped geometrically
/// so snapped coordinates stay far inside `i64` edge arithmetic (≤ 2^25 · 2^25).
const GUARD: f32 = 8.0;

/// A vertex after the vertex stage.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClipVertex {
    /// Clip-space position.
    pub pos: Vec4,
    /// Attributes, see [`ATTRS`].
    pub attrs: [f32; ATTRS],
}

impl ClipVertex {
    fn lerp(&self, other: &ClipVertex, t: f32) -> ClipVertex {
        let mut attrs = [0.0; ATTRS];
        for (i, a) in attrs.iter_mut().enumerate() {
            *a = self.attrs[i] + (other.attrs[i] - self.attrs[i]) * t;
        }
        ClipVertex { pos: self.pos.lerp(other.pos, t), attrs }
    }
}

/// An edge function `e(x, y) = c + dx·x + dy·y` over integer sample coordinates, evaluated at
/// sample centres; a sample is inside when `e ≥ 0` (fill-rule bias included in `c`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Edge {
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
    pub fn at(&self, x: i32, y: i32) -> i64 {
        self.c + self.dx * x as i64 + self.dy * y as i64
    }
}

/// An affine function over samples, relative to the triangle's bounding-box origin.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Plane {
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
    pub fn at(&self, ox: f32, oy: f32) -> f32 {
        self.base + self.dx * ox + self.dy * oy
    }
}

/// A triangle ready to rasterize.
#[derive(Debug, Clone, PartialEq)]
pub struct Triangle {
    /// The three edge functions.
    pub edges: [Edge; 3],
    /// Inclusive sample bounding box `[x0, y0, x1, y1]`, clamped to the target.
    pub bbox: [i32; 4],
    /// Depth (`z/w`, 0 = near).
    pub z: Plane,
    /// The depth of its centroid (the mean of its corners' `z/w`): the order blended triangles
    /// are drawn in, farthest first.
    pub centroid_depth: f32,
    /// `1/w`.
    pub inv_w: Plane,
    /// `attribute/w` for each attribute.
    pub attrs: [Plane; ATTRS],
    /// Index of the material in the draw's material table.
    pub material: u32,
    /// True when the triangle faces away from the camera (drawn only when culling is off).
    pub back_facing: bool,
}

/// Clips one triangle and appends the resulting triangles (0 to 7) in order.
///
/// `size` is the target size in samples. Triangles facing away are dropped when `cull` is set.
pub fn setup_triangle(v: [ClipVertex; 3], size: (u32, u32), material: u32, cull: bool, out: &mut Vec<Triangle>) {
    // The vertex stage gives a vertex with any non-finite input a NaN position.
    if v.iter().any(|v| !v.pos.is_finite()) {
        return;
    }
    // Trivial reject: all vertices outside one plane (the AND of their outcodes is non-zero).
    let outcode = |p: Vec4| {
        (p.z < 0.0) as u8
            | ((p.z > p.w) as u8) << 1
            | ((p.x > p.w) as u8) << 2
            | ((p.x < -p.w) as u8) << 3
            | ((p.y > p.w) as u8) << 4
            | ((p.y < -p.w) as u8) << 5
    };
    if outcode(v[0].pos) & outcode(v[1].pos) & outcode(v[2].pos) != 0 {
        return;
    }
    let needs_clip =
        v.iter().any(|v| v.pos.z < 0.0 || v.pos.x.abs() > GUARD * v.pos.w || v.pos.y.abs() > GUARD * v.pos.w);
    if !needs_clip {
        setup_clipped(&v, size, material, cull, out);
        return;
    }
    let mut poly: Vec<ClipVertex> = v.to_vec();
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
        setup_clipped(&[poly[0], poly[i], poly[i + 1]], size, material, cull, out);
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

/// Sets up a triangle known to be inside the near plane and guard band.
fn setup_clipped(v: &[ClipVertex; 3], size: (u32, u32), material: u32, cull: bool, out: &mut Vec<Triangle>) {
    let (w, h) = (size.0 as f64, size.1 as f64);
    // Viewport transform (pixel row 0 at the top) and snap to the sub-pixel grid.
    // 1/w of each vertex: the perspective divide here, the attribute planes below.
    let inv_w = v.map(|v| 1.0 / v.pos.w as f64);
    let snap = |p: Vec4, inv: f64| -> (i64, i64) {
        let x = (p.x as f64 * inv * 0.5 + 0.5) * w;
        let y = (0.5 - p.y as f64 * inv * 0.5) * h;
        (round_to_i64(x * SUBPIXEL), round_to_i64(y * SUBPIXEL))
    };
    let mut p = [snap(v[0].pos, inv_w[0]), snap(v[1].pos, inv_w[1]), snap(v[2].pos, inv_w[2])];
    let mut order = [0usize, 1, 2];
    let area = (p[1].0 - p[0].0) * (p[2].1 - p[0].1) - (p[1].1 - p[0].1) * (p[2].0 - p[0].0);
    if area == 0 {
        return;
    }
    // Counter-clockwise in y-up clip space is front-facing; the viewport's y flip makes that a
    // negative area here.
    let back_facing = area > 0;
    if back_facing && cull {
        return;
    }
    // The edge functions below assume positive area: reorder front faces.
    if area < 0 {
        p.swap(1, 2);
        order.swap(1, 2);
    }
    let area = area.abs();

    let (xs, ys) = ([p[0].0, p[1].0, p[2].0], [p[0].1, p[1].1, p[2].1]);
    let sample_lo = |lo: i64| (lo - HALF_PIXEL + (1 << SUBPIXEL_BITS) - 1) >> SUBPIXEL_BITS;
    let sample_hi = |hi: i64| (hi - HALF_PIXEL) >> SUBPIXEL_BITS;
    let x0 = sample_lo(*xs.iter().min().unwrap_or(&0)).max(0);
    let y0 = sample_lo(*ys.iter().min().unwrap_or(&0)).max(0);
    let x1 = sample_hi(*xs.iter().max().unwrap_or(&0)).min(size.0 as i64 - 1);
    let y1 = sample_hi(*ys.iter().max().unwrap_or(&0)).min(size.1 as i64 - 1);
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

    // Attribute planes from barycentrics λi = e_i / area, relative to the bbox origin.
    let inv_area = 1.0 / area as f64;
    let (ox, oy) = (x0, y0);
    let lambda_planes: [(f64, f64, f64); 3] = std::array::from_fn(|i| {
        let e = &edges[i];
        let at_origin = unbiased[i] + e.dx * ox + e.dy * oy;
        (at_origin as f64 * inv_area, e.dx as f64 * inv_area, e.dy as f64 * inv_area)
    });
    let plane = |values: [f64; 3]| -> Plane {
        let mut pl = (0.0f64, 0.0f64, 0.0f64);
        for (l, value) in lambda_planes.iter().zip(values) {
            pl.0 += l.0 * value;
            pl.1 += l.1 * value;
            pl.2 += l.2 * value;
        }
        Plane { base: pl.0 as f32, dx: pl.1 as f32, dy: pl.2 as f32 }
    };
    let verts = order.map(|i| v[i]);
    let inv_w = order.map(|i| inv_w[i]);
    let depths: [f64; 3] = std::array::from_fn(|i| verts[i].pos.z as f64 * inv_w[i]);
    let z = plane(depths);
    let centroid_depth = (depths.iter().sum::<f64>() / 3.0) as f32;
    let inv_w_plane = plane(inv_w);
    let attrs = std::array::from_fn(|a| plane(std::array::from_fn(|i| verts[i].attrs[a] as f64 * inv_w[i])));
    out.push(Triangle {
        edges,
        bbox: [x0 as i32, y0 as i32, x1 as i32, y1 as i32],
        z,
        centroid_depth,
        inv_w: inv_w_plane,
        attrs,
        material,
        back_facing,
    });
}
