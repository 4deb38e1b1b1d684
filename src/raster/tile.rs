//! Binning and the per-tile raster loop.
//!
//! Every tile owns its colour (linear, premultiplied `f32`) and depth buffers, draws the
//! triangles binned to it in submission order, and resolves its own supersamples into output
//! pixels. Tiles share nothing, so rayon can run them on any number of threads and the bytes
//! come out the same.
//!
//! Coverage is tested hierarchically: the triangle's rectangle within the tile, then 8×8
//! blocks, are classified against each edge by their extreme corners (an edge function is
//! affine, so its minimum over a rectangle is at a corner). Fully covered rectangles and blocks
//! skip the per-sample edge tests; blocks outside any edge are skipped entirely.

use glam::{Vec2, Vec3};

use super::color::{SrgbEncoder, srgb_to_linear, unorm_to_byte};
use super::setup::{Edge, Triangle};
use super::shade::{DrawMaterial, Fragment, Shader};
use crate::model::AlphaMode;

/// Block size for hierarchical coverage tests, in samples.
const BLOCK: i32 = 8;

/// A tile's place in the sample grid.
#[derive(Debug, Clone, Copy)]
pub struct TileRect {
    /// First sample column.
    pub x0: i32,
    /// First sample row.
    pub y0: i32,
    /// Width in samples.
    pub w: i32,
    /// Height in samples.
    pub h: i32,
}

/// Per-tile lists of triangle indices, in submission order.
pub fn bin(triangles: &[Triangle], tile_size: i32, tiles_x: usize, tiles_y: usize) -> Vec<Vec<u32>> {
    let mut bins = vec![Vec::new(); tiles_x * tiles_y];
    for (i, t) in triangles.iter().enumerate() {
        let [x0, y0, x1, y1] = t.bbox;
        let (tx0, ty0) = ((x0 / tile_size) as usize, (y0 / tile_size) as usize);
        let (tx1, ty1) = (((x1 / tile_size) as usize).min(tiles_x - 1), ((y1 / tile_size) as usize).min(tiles_y - 1));
        for ty in ty0..=ty1 {
            for tx in tx0..=tx1 {
                bins[ty * tiles_x + tx].push(i as u32);
            }
        }
    }
    bins
}

/// What every tile needs to draw.
pub struct DrawContext<'a> {
    /// All set-up triangles.
    pub triangles: &'a [Triangle],
    /// Materials indexed by `Triangle::material`.
    pub materials: &'a [DrawMaterial],
    /// Fragment stage.
    pub shader: &'a Shader,
}

/// A tile's sample buffers.
pub struct TileBuffers {
    rect: TileRect,
    color: Vec<[f32; 4]>,
    depth: Vec<f32>,
    /// When set, the tile only counts how many triangles cover each sample (no depth test, no
    /// shading): the instrument that checks the fill rule.
    counts: Option<Vec<u16>>,
}

impl TileBuffers {
    /// Cleared buffers: transparent black, depth at infinity.
    pub fn new(rect: TileRect) -> TileBuffers {
        let n = (rect.w * rect.h) as usize;
        TileBuffers { rect, color: vec![[0.0; 4]; n], depth: vec![f32::INFINITY; n], counts: None }
    }

    /// Buffers that count coverage instead of shading.
    pub fn counting(rect: TileRect) -> TileBuffers {
        TileBuffers { counts: Some(vec![0; (rect.w * rect.h) as usize]), ..TileBuffers::new(rect) }
    }

    /// Coverage counts, row-major over the tile (empty unless built with [`Self::counting`]).
    pub fn counts(&self) -> &[u16] {
        self.counts.as_deref().unwrap_or(&[])
    }

    /// Draws the binned triangles in order.
    pub fn draw(&mut self, bin: &[u32], ctx: &DrawContext) {
        for &i in bin {
            let Some(tri) = ctx.triangles.get(i as usize) else { continue };
            let Some(material) = ctx.materials.get(tri.material as usize) else { continue };
            self.draw_triangle(tri, material, ctx.shader);
        }
    }

    fn draw_triangle(&mut self, tri: &Triangle, material: &DrawMaterial, shader: &Shader) {
        let r = self.rect;
        let x0 = tri.bbox[0].max(r.x0);
        let y0 = tri.bbox[1].max(r.y0);
        let x1 = tri.bbox[2].min(r.x0 + r.w - 1);
        let y1 = tri.bbox[3].min(r.y0 + r.h - 1);
        if x0 > x1 || y0 > y1 {
            return;
        }
        match classify(&tri.edges, x0, y0, x1, y1) {
            Coverage::Outside => {}
            Coverage::Full => self.fill_rect::<false>(tri, material, shader, x0, y0, x1, y1),
            Coverage::Partial => {
                // Walk 8×8 blocks aligned to the sample grid.
                let mut by = y0 - y0.rem_euclid(BLOCK);
                while by <= y1 {
                    let (ry0, ry1) = (by.max(y0), (by + BLOCK - 1).min(y1));
                    let mut bx = x0 - x0.rem_euclid(BLOCK);
                    while bx <= x1 {
                        let (rx0, rx1) = (bx.max(x0), (bx + BLOCK - 1).min(x1));
                        match classify(&tri.edges, rx0, ry0, rx1, ry1) {
                            Coverage::Outside => {}
                            Coverage::Full => self.fill_rect::<false>(tri, material, shader, rx0, ry0, rx1, ry1),
                            Coverage::Partial => self.fill_rect::<true>(tri, material, shader, rx0, ry0, rx1, ry1),
                        }
                        bx += BLOCK;
                    }
                    by += BLOCK;
                }
            }
        }
    }

    /// Shades the samples of an inclusive rectangle; with `TEST` only those inside all edges.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn fill_rect<const TEST: bool>(
        &mut self,
        tri: &Triangle,
        material: &DrawMaterial,
        shader: &Shader,
        x0: i32,
        y0: i32,
        x1: i32,
        y1: i32,
    ) {
        if self.counts.is_some() {
            self.count_rect::<TEST>(tri, x0, y0, x1, y1);
            return;
        }
        let r = self.rect;
        let needs_uv = material.texture.is_some();
        let needs_normals = shader.needs_normals();
        let needs_derivatives = shader.needs_derivatives(material);
        // An untextured, unlit material has one colour for the whole triangle.
        let constant = (!needs_uv && !needs_normals)
            .then(|| {
                shader.shade(
                    material,
                    &Fragment { uv: Vec2::ZERO, duv: [Vec2::ZERO; 2], normal: Vec3::Z, back_facing: false },
                )
            })
            .flatten();
        let blend = material.alpha == AlphaMode::Blend;
        let [e0, e1, e2] = tri.edges;
        let (mut row0, mut row1, mut row2) = (e0.at(x0, y0), e1.at(x0, y0), e2.at(x0, y0));
        let ox0 = (x0 - tri.bbox[0]) as f32;
        for y in y0..=y1 {
            let (mut v0, mut v1, mut v2) = (row0, row1, row2);
            let oy = (y - tri.bbox[1]) as f32;
            let row = ((y - r.y0) * r.w + (x0 - r.x0)) as usize;
            let width = (x1 - x0 + 1) as usize;
            let (Some(depths), Some(colors)) =
                (self.depth.get_mut(row..row + width), self.color.get_mut(row..row + width))
            else {
                continue;
            };
            // Depth steps incrementally along the row; other attributes are evaluated only for
            // samples that pass the depth test.
            let mut z = tri.z.at(ox0, oy);
            for (i, (depth, dst)) in depths.iter_mut().zip(colors.iter_mut()).enumerate() {
                // All three non-negative ⇔ the sign bit of their OR is clear.
                let inside = !TEST || (v0 | v1 | v2) >= 0;
                let zi = z;
                v0 += e0.dx;
                v1 += e1.dx;
                v2 += e2.dx;
                z += tri.z.dx;
                // Depth test before any shading work; z > 1 is beyond the far plane.
                let visible = inside && zi < *depth && zi <= 1.0; // false for NaN too
                if !visible {
                    continue;
                }
                let src = match constant {
                    Some(c) => c,
                    None => {
                        let ox = ox0 + i as f32;
                        let fragment = interpolate(tri, ox, oy, needs_uv, needs_normals, needs_derivatives);
                        let Some(src) = shader.shade(material, &fragment) else { continue };
                        src
                    }
                };
                if blend {
                    // Premultiplied "over"; blended surfaces do not occlude what comes later.
                    let k = 1.0 - src[3];
                    *dst = [src[0] + dst[0] * k, src[1] + dst[1] * k, src[2] + dst[2] * k, src[3] + dst[3] * k];
                } else {
                    *dst = src;
                    *depth = zi;
                }
            }
            row0 += e0.dy;
            row1 += e1.dy;
            row2 += e2.dy;
        }
    }

    /// The counting variant of [`Self::fill_rect`]: no depth, no shading.
    fn count_rect<const TEST: bool>(&mut self, tri: &Triangle, x0: i32, y0: i32, x1: i32, y1: i32) {
        let r = self.rect;
        let Some(counts) = &mut self.counts else { return };
        for y in y0..=y1 {
            for x in x0..=x1 {
                let inside = !TEST || tri.edges.iter().all(|e| e.at(x, y) >= 0);
                if let Some(c) = counts.get_mut(((y - r.y0) * r.w + (x - r.x0)) as usize).filter(|_| inside) {
                    *c = c.saturating_add(1);
                }
            }
        }
    }

    /// Averages each `ssaa × ssaa` block of samples into one output pixel (in linear light,
    /// premultiplied, so edges neither darken nor brighten), composites the background and
    /// encodes straight-alpha sRGB bytes, row-major over the tile's output pixels.
    pub fn resolve(&self, ssaa: i32, background: Option<[u8; 4]>) -> Vec<u8> {
        let (ow, oh) = ((self.rect.w / ssaa) as usize, (self.rect.h / ssaa) as usize);
        let bg = background.map(|b| {
            let a = b[3] as f32 / 255.0;
            [srgb_to_linear(b[0]) * a, srgb_to_linear(b[1]) * a, srgb_to_linear(b[2]) * a, a]
        });
        let encoder = SrgbEncoder::new();
        let (s, stride) = (ssaa as usize, self.rect.w as usize);
        let scale = 1.0 / (s * s) as f32;
        let mut out = vec![0u8; ow * oh * 4];
        for (oy, out_row) in out.chunks_exact_mut(ow * 4).enumerate() {
            for (ox, px) in out_row.chunks_exact_mut(4).enumerate() {
                let mut p = [0.0f32; 4];
                for sy in 0..s {
                    let row = (oy * s + sy) * stride + ox * s;
                    for sample in self.color.get(row..row + s).unwrap_or(&[]) {
                        for c in 0..4 {
                            p[c] += sample[c];
                        }
                    }
                }
                if s > 1 {
                    p = p.map(|v| v * scale);
                }
                if let Some(bg) = bg {
                    let k = 1.0 - p[3];
                    p = [p[0] + bg[0] * k, p[1] + bg[1] * k, p[2] + bg[2] * k, p[3] + bg[3] * k];
                }
                if p[3] > 0.0 {
                    let inv = 1.0 / p[3];
                    px.copy_from_slice(&[
                        encoder.encode(p[0] * inv),
                        encoder.encode(p[1] * inv),
                        encoder.encode(p[2] * inv),
                        unorm_to_byte(p[3]),
                    ]);
                }
            }
        }
        out
    }
}

/// Perspective-correct attributes of the sample at offset (`ox`, `oy`) from the triangle's
/// bounding-box origin; only what the shader will use is computed.
#[inline(always)]
fn interpolate(tri: &Triangle, ox: f32, oy: f32, uv: bool, normal: bool, derivatives: bool) -> Fragment {
    // Attributes were interpolated as a/w; dividing by the interpolated 1/w restores them.
    // Normals skip the division: they are renormalised, and a/w is parallel to a.
    let w = if uv { 1.0 / tri.inv_w.at(ox, oy) } else { 1.0 };
    let uv = if uv { Vec2::new(tri.attrs[0].at(ox, oy) * w, tri.attrs[1].at(ox, oy) * w) } else { Vec2::ZERO };
    let duv = if derivatives {
        // d(a/w ÷ 1/w)/dx = (d(a/w)/dx − a · d(1/w)/dx) · w, likewise for y.
        let (a, b, q) = (&tri.attrs[0], &tri.attrs[1], &tri.inv_w);
        [
            Vec2::new((a.dx - uv.x * q.dx) * w, (b.dx - uv.y * q.dx) * w),
            Vec2::new((a.dy - uv.x * q.dy) * w, (b.dy - uv.y * q.dy) * w),
        ]
    } else {
        [Vec2::ZERO; 2]
    };
    let normal = if normal {
        Vec3::new(tri.attrs[2].at(ox, oy), tri.attrs[3].at(ox, oy), tri.attrs[4].at(ox, oy))
    } else {
        Vec3::Z
    };
    Fragment { uv, duv, normal, back_facing: tri.back_facing }
}

enum Coverage {
    Outside,
    Partial,
    Full,
}

/// Classifies an inclusive sample rectangle against the three edges.
#[inline]
fn classify(edges: &[Edge; 3], x0: i32, y0: i32, x1: i32, y1: i32) -> Coverage {
    let mut full = true;
    for e in edges {
        let base = e.at(x0, y0);
        let (sx, sy) = (e.dx * (x1 - x0) as i64, e.dy * (y1 - y0) as i64);
        let max = base + sx.max(0) + sy.max(0);
        let min = base + sx.min(0) + sy.min(0);
        if max < 0 {
            return Coverage::Outside;
        }
        full &= min >= 0;
    }
    if full { Coverage::Full } else { Coverage::Partial }
}
