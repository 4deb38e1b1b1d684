//! Binning, the per-tile buffers and drawing triangles in submission order.
//!
//! Every tile owns its colour (linear, premultiplied `f32`), depth and visibility buffers,
//! draws the triangles binned to it, and resolves its own supersamples into output pixels.
//! Tiles share nothing, so rayon can run them on any number of threads and the bytes come out
//! the same. Bins of opaque triangles take the deferred path (`deferred.rs`); bins holding
//! alpha-tested or blended triangles are drawn here, in submission order.
//!
//! Coverage is tested hierarchically: the triangle's rectangle within the tile, then 8×8
//! blocks, are classified against each edge by their extreme corners (an edge function is
//! affine, so its minimum over a rectangle is at a corner). Fully covered rectangles and blocks
//! skip the per-sample edge tests; blocks outside any edge are skipped entirely.
//!
//! Buffers are kept per worker thread and reused frame after frame (a sprite job renders
//! hundreds of small frames). Each tile tracks the rectangle its triangles touched; only that
//! rectangle is resolved and cleared again, so a model covering a quarter of the frame pays for
//! a quarter of the clear and resolve. Pixels no triangle touched are the background, which the
//! caller fills once.

use super::resolve::{OutputBand, Resolve};
use super::scene::{RenderOptions, ShadingRate};
use super::setup::{Edge, Triangle};
use super::shade::{DrawMaterial, Fragments, Shader};
use crate::model::AlphaMode;

/// Block size for hierarchical coverage tests, in samples.
const BLOCK: i32 = 8;

/// Visibility-buffer entry of a sample no triangle covers.
pub(super) const NO_TRIANGLE: u32 = u32::MAX;

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
    /// Samples per pixel side.
    pub ssaa: i32,
    /// Side in samples of the square that opaque triangles shade once: `ssaa` when shading per
    /// pixel, 1 when shading every sample.
    pub shading_block: i32,
    /// What the fragment stage needs of each material, decided once per render.
    needs: Vec<FragmentNeeds>,
}

impl<'a> DrawContext<'a> {
    /// The context of one render.
    pub fn new(
        triangles: &'a [Triangle],
        materials: &'a [DrawMaterial],
        shader: &'a Shader,
        options: &RenderOptions,
    ) -> DrawContext<'a> {
        let shading_block = match options.shading_rate {
            ShadingRate::Pixel => options.ssaa as i32,
            ShadingRate::Sample => 1,
        };
        let needs = materials.iter().map(|m| FragmentNeeds::of(shader, m)).collect();
        DrawContext { triangles, materials, shader, ssaa: options.ssaa as i32, shading_block, needs }
    }

    /// Triangle `id` with its material and what shading that material needs.
    #[inline]
    pub(super) fn triangle(&self, id: u32) -> Option<(&'a Triangle, &'a DrawMaterial, FragmentNeeds)> {
        let tri = self.triangles.get(id as usize)?;
        let m = tri.material as usize;
        Some((tri, self.materials.get(m)?, *self.needs.get(m)?))
    }
}

/// A tile's sample buffers.
///
/// Between uses, depth is infinite and the visibility buffer empty everywhere, and colour is
/// transparent black everywhere (the deferred path reads colour only where it wrote it).
pub struct TileBuffers {
    pub(super) rect: TileRect,
    pub(super) color: Vec<[f32; 4]>,
    pub(super) depth: Vec<f32>,
    /// Visibility buffer of the deferred path: the triangle kept at each sample.
    pub(super) ids: Vec<u32>,
    /// Inclusive sample rectangle `[x0, y0, x1, y1]` that triangles may have drawn into since
    /// the buffers were last clean; `None` while untouched.
    pub(super) dirty: Option<[i32; 4]>,
    /// Whether colour was written inside `dirty` (the deferred path mostly shades straight
    /// into output pixels and leaves it clean).
    pub(super) color_dirty: bool,
    /// When set, the tile only counts how many triangles cover each sample (no depth test, no
    /// shading): the instrument that checks the fill rule.
    counts: Option<Vec<u16>>,
}

thread_local! {
    /// Each worker thread's tile buffers, clean between uses.
    static SCRATCH: std::cell::RefCell<Option<TileBuffers>> = const { std::cell::RefCell::new(None) };
}

impl TileBuffers {
    /// Cleared buffers: transparent black, depth at infinity.
    pub fn new(rect: TileRect) -> TileBuffers {
        let n = (rect.w * rect.h) as usize;
        TileBuffers {
            rect,
            color: vec![[0.0; 4]; n],
            depth: vec![f32::INFINITY; n],
            ids: vec![NO_TRIANGLE; n],
            dirty: None,
            color_dirty: false,
            counts: None,
        }
    }

    /// Buffers that count coverage instead of shading.
    pub fn counting(rect: TileRect) -> TileBuffers {
        TileBuffers { counts: Some(vec![0; (rect.w * rect.h) as usize]), ..TileBuffers::new(rect) }
    }

    /// Draws `bin` into this thread's reusable buffers placed at `rect` and resolves what was
    /// drawn into `out` (pixels nothing was drawn on are left as they are: the background).
    pub fn draw_and_resolve<R: Resolve>(
        rect: TileRect,
        bin: &[u32],
        ctx: &DrawContext,
        resolver: &R,
        out: &mut OutputBand<R::Pixel>,
    ) {
        let mut run = |buffers: &mut TileBuffers| {
            buffers.place(rect);
            if all_opaque(bin, ctx) {
                buffers.draw_deferred(bin, ctx, resolver, out);
            } else {
                buffers.draw(bin, ctx);
                buffers.resolve_colors(ctx.ssaa, resolver, out);
            }
            buffers.clear_dirty();
        };
        // The scratch is taken out of its cell while in use, so re-entry (never expected: drawing
        // does not call rayon) would find it empty and use fresh buffers instead of panicking.
        let mut buffers = SCRATCH.with(|cell| cell.borrow_mut().take()).unwrap_or_else(|| TileBuffers::new(rect));
        run(&mut buffers);
        SCRATCH.with(|cell| *cell.borrow_mut() = Some(buffers));
    }

    /// Moves clean buffers to `rect`, growing them if needed (contents stay cleared).
    fn place(&mut self, rect: TileRect) {
        let n = (rect.w * rect.h) as usize;
        if self.color.len() < n {
            self.color.resize(n, [0.0; 4]);
            self.depth.resize(n, f32::INFINITY);
            self.ids.resize(n, NO_TRIANGLE);
        }
        self.rect = rect;
    }

    /// Restores the dirty rectangle to the clean state.
    fn clear_dirty(&mut self) {
        let Some([x0, y0, x1, y1]) = self.dirty.take() else { return };
        let r = self.rect;
        let width = (x1 - x0 + 1) as usize;
        for y in y0..=y1 {
            let start = ((y - r.y0) * r.w + (x0 - r.x0)) as usize;
            if self.color_dirty
                && let Some(c) = self.color.get_mut(start..start + width)
            {
                c.fill([0.0; 4]);
            }
            if let Some(d) = self.depth.get_mut(start..start + width) {
                d.fill(f32::INFINITY);
            }
            if let Some(ids) = self.ids.get_mut(start..start + width) {
                ids.fill(NO_TRIANGLE);
            }
        }
        self.color_dirty = false;
    }

    /// Coverage counts, row-major over the tile (empty unless built with [`Self::counting`]).
    pub fn counts(&self) -> &[u16] {
        self.counts.as_deref().unwrap_or(&[])
    }

    /// Draws the binned triangles in submission order (counting coverage instead when built
    /// with [`Self::counting`]).
    pub fn draw(&mut self, bin: &[u32], ctx: &DrawContext) {
        self.color_dirty = true;
        for &i in bin {
            let Some((tri, material, needs)) = ctx.triangle(i) else { continue };
            let Some(bounds) = self.clip_to_tile(tri) else { continue };
            let shading = (material, needs, ctx.shader);
            walk(tri, bounds, |[x0, y0, x1, y1], test| match (self.counts.is_some(), test) {
                (true, true) => self.count_rect::<true>(tri, x0, y0, x1, y1),
                (true, false) => self.count_rect::<false>(tri, x0, y0, x1, y1),
                (false, true) => self.fill_rect::<true>(tri, shading, x0, y0, x1, y1),
                (false, false) => self.fill_rect::<false>(tri, shading, x0, y0, x1, y1),
            });
        }
    }

    /// The triangle's bounding box within the tile, marked dirty; `None` when they do not meet.
    pub(super) fn clip_to_tile(&mut self, tri: &Triangle) -> Option<[i32; 4]> {
        let r = self.rect;
        let x0 = tri.bbox[0].max(r.x0);
        let y0 = tri.bbox[1].max(r.y0);
        let x1 = tri.bbox[2].min(r.x0 + r.w - 1);
        let y1 = tri.bbox[3].min(r.y0 + r.h - 1);
        if x0 > x1 || y0 > y1 {
            return None;
        }
        let dirty = self.dirty.get_or_insert([x0, y0, x1, y1]);
        *dirty = [dirty[0].min(x0), dirty[1].min(y0), dirty[2].max(x1), dirty[3].max(y1)];
        Some([x0, y0, x1, y1])
    }

    /// Shades the samples of an inclusive rectangle; with `TEST` only those inside all edges.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn fill_rect<const TEST: bool>(
        &mut self,
        tri: &Triangle,
        (material, needs, shader): (&DrawMaterial, FragmentNeeds, &Shader),
        x0: i32,
        y0: i32,
        x1: i32,
        y1: i32,
    ) {
        let r = self.rect;
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
                let src = match needs.constant {
                    Some(c) => c,
                    None => {
                        let ox = ox0 + i as f32;
                        let fragment = interpolate(tri, ox, oy, needs.uv, needs.normals, needs.derivatives);
                        let clip_z = || clip_z_lanes(tri, [ox], oy);
                        let Some(src) = shader.shade(material, &fragment, clip_z) else { continue };
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
}

/// True when every triangle of the bin is opaque: alpha-tested and blended samples show what
/// lies behind them, which only drawing in order gets right.
fn all_opaque(bin: &[u32], ctx: &DrawContext) -> bool {
    bin.iter().all(|&i| {
        let material = ctx.triangles.get(i as usize).and_then(|t| ctx.materials.get(t.material as usize));
        material.is_some_and(|m| m.alpha == AlphaMode::Opaque)
    })
}

/// What the fragment stage of one material needs.
#[derive(Clone, Copy)]
pub(super) struct FragmentNeeds {
    pub(super) uv: bool,
    pub(super) normals: bool,
    pub(super) derivatives: bool,
    /// An untextured, unlit material has one colour for the whole triangle.
    pub(super) constant: Option<[f32; 4]>,
}

impl FragmentNeeds {
    #[inline]
    pub(super) fn of(shader: &Shader, material: &DrawMaterial) -> FragmentNeeds {
        let uv = material.texture.is_some();
        let normals = shader.needs_normals();
        let flat = Fragments::default();
        let varies = uv || normals || shader.needs_depth();
        let constant = (!varies).then(|| shader.shade(material, &flat, || [0.0])).flatten();
        FragmentNeeds { uv, normals, derivatives: shader.needs_derivatives(material), constant }
    }
}

/// Walks the inclusive sample rectangle `bounds` of a triangle hierarchically and calls
/// `fill(rect, test)` for every part that may be covered: `test` is false for parts the
/// triangle covers entirely (no per-sample edge tests needed).
#[inline(always)]
pub(super) fn walk(tri: &Triangle, bounds: [i32; 4], mut fill: impl FnMut([i32; 4], bool)) {
    let [x0, y0, x1, y1] = bounds;
    // A triangle within one block's area is cheaper to test sample by sample than to classify.
    if (x1 - x0 + 1) * (y1 - y0 + 1) <= BLOCK * BLOCK {
        fill(bounds, true);
        return;
    }
    match classify(&tri.edges, x0, y0, x1, y1) {
        Coverage::Outside => {}
        Coverage::Full => fill(bounds, false),
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
                        Coverage::Full => fill([rx0, ry0, rx1, ry1], false),
                        Coverage::Partial => fill([rx0, ry0, rx1, ry1], true),
                    }
                    bx += BLOCK;
                }
                by += BLOCK;
            }
        }
    }
}

/// Perspective-correct attributes of the sample at offset (`ox`, `oy`) from the triangle's
/// bounding-box origin; only what the shader will use is computed.
#[inline(always)]
pub(super) fn interpolate(tri: &Triangle, ox: f32, oy: f32, uv: bool, normal: bool, derivatives: bool) -> Fragments<1> {
    interpolate_lanes(tri, [ox], oy, uv, normal, derivatives)
}

/// [`interpolate`] for `L` samples of one row at once (offsets `ox`, row offset `oy`): the same
/// arithmetic per sample, in loops over lanes that compile to vector instructions.
#[inline(always)]
#[allow(clippy::needless_range_loop)] // lane loops index several arrays in step
pub(super) fn interpolate_lanes<const L: usize>(
    tri: &Triangle,
    ox: [f32; L],
    oy: f32,
    uv: bool,
    normal: bool,
    derivatives: bool,
) -> Fragments<L> {
    let mut f = Fragments::<L> { back_facing: tri.back_facing, ..Fragments::default() };
    let (a, b, q) = (&tri.attrs[0], &tri.attrs[1], &tri.inv_w);
    if uv {
        // Attributes were interpolated as a/w; dividing by the interpolated 1/w restores them.
        let mut w = [0.0; L];
        for k in 0..L {
            w[k] = 1.0 / q.at(ox[k], oy);
            f.u[k] = a.at(ox[k], oy) * w[k];
            f.v[k] = b.at(ox[k], oy) * w[k];
        }
        if derivatives {
            // d(a/w ÷ 1/w)/dx = (d(a/w)/dx − a · d(1/w)/dx) · w, likewise for y.
            for k in 0..L {
                f.du_dx[k] = (a.dx - f.u[k] * q.dx) * w[k];
                f.dv_dx[k] = (b.dx - f.v[k] * q.dx) * w[k];
                f.du_dy[k] = (a.dy - f.u[k] * q.dy) * w[k];
                f.dv_dy[k] = (b.dy - f.v[k] * q.dy) * w[k];
            }
        }
    }
    if normal {
        // Normals skip the division: they are renormalised, and a/w is parallel to a.
        for k in 0..L {
            f.nx[k] = tri.attrs[2].at(ox[k], oy);
            f.ny[k] = tri.attrs[3].at(ox[k], oy);
            f.nz[k] = tri.attrs[4].at(ox[k], oy);
        }
    }
    f
}

/// Clip z of `L` samples of one row (offsets as [`interpolate_lanes`]): depth z/w and 1/w are
/// both affine in screen space, and their ratio is clip z. Only the depth map asks for it.
#[inline(always)]
pub(super) fn clip_z_lanes<const L: usize>(tri: &Triangle, ox: [f32; L], oy: f32) -> [f32; L] {
    std::array::from_fn(|k| tri.z.at(ox[k], oy) / tri.inv_w.at(ox[k], oy))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::raster::setup::{Edge, Plane};

    #[test]
    fn lanes_interpolate_each_sample_as_one_sample_alone() {
        let plane = |base: f32, dx: f32, dy: f32| Plane { base, dx, dy };
        let edge = Edge { dx: 0, dy: 0, c: 0 };
        let tri = Triangle {
            edges: [edge; 3],
            bbox: [3, 5, 40, 50],
            z: plane(0.5, 0.0, 0.0),
            inv_w: plane(0.9, -0.0131, 0.0077),
            attrs: [
                plane(0.31, 0.0173, -0.0041),
                plane(0.77, -0.0029, 0.0113),
                plane(0.1, 0.03, -0.02),
                plane(-0.4, 0.011, 0.005),
                plane(0.8, -0.007, 0.013),
            ],
            material: 0,
            back_facing: true,
        };
        let ox: [f32; 8] = std::array::from_fn(|k| 2.0 + k as f32);
        let lanes = interpolate_lanes(&tri, ox, 7.0, true, true, true);
        for (k, &x) in ox.iter().enumerate() {
            let one = interpolate(&tri, x, 7.0, true, true, true);
            let bits = |f: &Fragments<8>, k: usize| {
                [f.u[k], f.v[k], f.du_dx[k], f.dv_dx[k], f.du_dy[k], f.dv_dy[k], f.nx[k], f.ny[k], f.nz[k]]
                    .map(f32::to_bits)
            };
            let one_bits = [one.u, one.v, one.du_dx, one.dv_dx, one.du_dy, one.dv_dy, one.nx, one.ny, one.nz]
                .map(|[x]| x.to_bits());
            assert_eq!(clip_z_lanes(&tri, ox, 7.0)[k].to_bits(), clip_z_lanes(&tri, [x], 7.0)[0].to_bits());
            assert_eq!(bits(&lanes, k), one_bits, "lane {k}");
            assert!(one.back_facing);
        }
        assert!(lanes.back_facing);
    }
}
