//! The pixel visibility pass of supersampled opaque bins, as multisampling GPUs do it: a
//! triangle meets a pixel's `N` samples at once instead of one sample at a time.
//!
//! * **Coverage** of a pixel comes from its edge functions in one step: each edge is evaluated
//!   once at the pixel's first sample, and the pixel is outside (an edge negative at every
//!   sample), covered whole (all edges non-negative at every sample) or mixed by comparing that
//!   value with the edge's smallest and largest offset over the pixel's samples. Only mixed
//!   pixels test their samples, in `N` lanes of `i32` (offsets from the pixel's first sample are
//!   small; triangles too large for that test in `i64`). The hierarchical walk of
//!   `coverage.rs` in pixel-aligned blocks skips the per-pixel classification where whole
//!   blocks are covered.
//! * **Depth** is per sample ([`SampleDepth`], the same depths every pass uses), but each pixel
//!   keeps a lower and an upper bound of its stored depths. A triangle whose nearest sample in
//!   the pixel is no nearer than the upper bound is rejected with one test; a triangle covering
//!   the pixel whole whose farthest sample is nearer than the lower bound is accepted with one
//!   test and writes its samples without comparing them. Only the rest compare sample by
//!   sample, in lanes. Either way the kept samples are exactly those of the per-sample test.
//! * **Small triangles** skip all of that: one whose box holds at most two pixels' worth of
//!   samples (most triangles of a dense mesh at sprite sizes) is tested sample by sample, with
//!   the same edge functions and depths, which costs less than a pixel's lanes.
//!
//! The buffers are pixel-major here: pixel `p`'s samples are `ids[p·N..(p+1)·N]` (and the same
//! in `depth`), sample `k` at offset (`k mod s`, `k div s`) in the pixel, so the deferred
//! shading reads a pixel's triangles as one contiguous array.

use super::buffers::{SampleOrder, TileBuffers};
use super::context::DrawContext;
use super::coverage::{BLOCK, SampleDepth, depth_mask, walk};
use super::setup::{Edge, Triangle, each_covered_sample};

/// Fills the tile's depth and visibility buffers (pixel-major, `N` = `ssaa`² samples a pixel)
/// with the binned triangles.
pub(super) fn draw<const N: usize>(buffers: &mut TileBuffers, bin: &[u32], ctx: &DrawContext) {
    let s = side(N);
    debug_assert_eq!(s, ctx.ssaa);
    buffers.order = SampleOrder::Pixels;
    // Blocks of whole pixels, about as large as the sample passes' blocks.
    let block = s * (BLOCK / s).max(1);
    for &id in bin {
        let Some(tri) = ctx.triangles.get(id as usize) else { continue };
        let Some([x0, y0, x1, y1]) = buffers.touch(tri) else { continue };
        if ((x1 - x0 + 1) * (y1 - y0 + 1)) as usize <= FEW_SAMPLES * N {
            few_samples::<N>(buffers, tri, id, [x0, y0, x1, y1]);
            continue;
        }
        // Whole pixels: tiles start on pixel boundaries and hold whole pixels.
        let bounds = [
            x0 - x0.rem_euclid(s),
            y0 - y0.rem_euclid(s),
            x1 - x1.rem_euclid(s) + s - 1,
            y1 - y1.rem_euclid(s) + s - 1,
        ];
        let lanes = PixelLanes::<N>::new(tri);
        walk(tri, bounds, block, |rect, test| match test {
            true => pixels_rect::<N, true>(buffers, &lanes, id, rect),
            false => pixels_rect::<N, false>(buffers, &lanes, id, rect),
        });
    }
}

/// The samples of consecutive pixels, `N` each, in a pixel-major buffer.
#[inline(always)]
pub(super) fn by_pixel<const N: usize, T>(samples: &[T]) -> impl Iterator<Item = &[T; N]> {
    samples.chunks_exact(N).filter_map(|pixel| pixel.try_into().ok())
}

/// As [`by_pixel`], mutably.
#[inline(always)]
fn by_pixel_mut<const N: usize, T>(samples: &mut [T]) -> impl Iterator<Item = &mut [T; N]> {
    samples.chunks_exact_mut(N).filter_map(|pixel| pixel.try_into().ok())
}

/// A pixel's coverage by one triangle.
enum PixelCoverage<const N: usize> {
    Outside,
    Whole,
    /// Which samples are inside: all ones where inside, else zero (a lane mask).
    Mixed([u32; N]),
}

/// One triangle's constants for testing a pixel's `N` samples at once: the offsets of its
/// edge functions and depth from the pixel's first sample to each sample.
struct PixelLanes<'t, const N: usize> {
    edges: [Edge; 3],
    /// Per edge, the smallest and largest offset over the pixel's samples.
    edge_range: [(i64, i64); 3],
    /// Per edge and sample, the offset, when every offset fits the `i32` lane test.
    edge_lanes: Option<[[i32; N]; 3]>,
    /// Per-pixel step of the edge functions along a row.
    edge_step: [i64; 3],
    depth: SampleDepth<'t>,
    /// Per sample, the depth offset; and their smallest and largest.
    depth_offsets: [f32; N],
    depth_range: (f32, f32),
}

/// Edge offsets up to this size take the `i32` lane test: a pixel's edge value is clamped to
/// it, and value plus offset stays inside `i32`.
const LANE_LIMIT: i64 = 1 << 30;

/// Samples per pixel side of `n` samples a pixel; a constant wherever `n` is one, so the
/// per-sample offsets below compile without divisions.
const fn side(n: usize) -> i32 {
    match n {
        4 => 2,
        9 => 3,
        16 => 4,
        _ => 1,
    }
}

/// `f(i, j)` for each sample k = (k mod s, k div s) of a pixel of `N` samples, without
/// dividing per sample.
#[inline(always)]
fn per_sample<const N: usize, T: Copy + Default>(f: impl Fn(i32, i32) -> T) -> [T; N] {
    let s = side(N) as usize;
    let mut out = [T::default(); N];
    for (j, row) in out.chunks_exact_mut(s).enumerate() {
        for (i, o) in row.iter_mut().enumerate() {
            *o = f(i as i32, j as i32);
        }
    }
    out
}

impl<'t, const N: usize> PixelLanes<'t, N> {
    fn new(tri: &'t Triangle) -> PixelLanes<'t, N> {
        let s = side(N);
        // An edge's offsets range from the sum of its negative steps to the sum of its
        // positive ones, each taken s − 1 times.
        let most = (s - 1) as i64;
        let edge_range = tri.edges.map(|e| (most * (e.dx.min(0) + e.dy.min(0)), most * (e.dx.max(0) + e.dy.max(0))));
        let fits = edge_range.iter().all(|&(lo, hi)| lo > -LANE_LIMIT && hi < LANE_LIMIT);
        // Both steps fit then: |step| · (s − 1) < LANE_LIMIT.
        let edge_lanes = fits.then(|| tri.edges.map(|e| per_sample(|i, j| e.dx as i32 * i + e.dy as i32 * j)));
        let depth = SampleDepth::new(tri);
        let depth_offsets = per_sample(|i, j| depth.offset(i, j));
        // Each term of an offset is monotonic in its sample coordinate, and so is rounding:
        // the extremes are at the corners the steps' signs pick.
        let (dz_dx, dz_dy) = (tri.z.dx, tri.z.dy);
        let corner = |up: bool, step: f32| if (step > 0.0) == up { s - 1 } else { 0 };
        let depth_range = (
            depth.offset(corner(false, dz_dx), corner(false, dz_dy)),
            depth.offset(corner(true, dz_dx), corner(true, dz_dy)),
        );
        PixelLanes {
            edges: tri.edges,
            edge_range,
            edge_lanes,
            edge_step: tri.edges.map(|e| e.dx * s as i64),
            depth,
            depth_offsets,
            depth_range,
        }
    }

    /// The coverage of the pixel whose first sample has edge values `e`.
    #[inline(always)]
    fn coverage(&self, e: [i64; 3]) -> PixelCoverage<N> {
        let mut whole = true;
        for (v, (lo, hi)) in e.iter().zip(self.edge_range) {
            if v + hi < 0 {
                return PixelCoverage::Outside;
            }
            whole &= v + lo >= 0;
        }
        if whole {
            return PixelCoverage::Whole;
        }
        let mut inside = [0u32; N];
        match &self.edge_lanes {
            Some([o0, o1, o2]) => {
                // Only the signs matter, and clamping keeps them (|offset| < LANE_LIMIT).
                let [v0, v1, v2] = e.map(|v| v.clamp(-LANE_LIMIT, LANE_LIMIT) as i32);
                for k in 0..N {
                    // The sign of the OR, spread over the word, is all ones where any edge is
                    // negative.
                    inside[k] = !(((v0 + o0[k]) | (v1 + o1[k]) | (v2 + o2[k])) >> 31) as u32;
                }
            }
            None => {
                let [e0, e1, e2] = self.edges;
                let s = side(N);
                for (k, inside) in inside.iter_mut().enumerate() {
                    let (i, j) = (k as i32 % s, k as i32 / s);
                    let at = |edge: Edge, v: i64| v + edge.dx * i as i64 + edge.dy * j as i64;
                    *inside = (((at(e0, e[0]) | at(e1, e[1]) | at(e2, e[2])) >= 0) as u32).wrapping_neg();
                }
            }
        }
        PixelCoverage::Mixed(inside)
    }
}

/// Depth-tests the pixels of an inclusive, pixel-aligned sample rectangle (with `TEST`, after
/// classifying each pixel; without, every pixel is covered whole) and records triangle `id` at
/// the samples where it is nearest so far.
#[inline(always)]
fn pixels_rect<const N: usize, const TEST: bool>(
    buffers: &mut TileBuffers,
    lanes: &PixelLanes<N>,
    id: u32,
    [x0, y0, x1, y1]: [i32; 4],
) {
    let r = buffers.rect;
    let s = side(N);
    let (pixels_wide, count) = ((r.w / s) as usize, ((x1 - x0 + 1) / s) as usize);
    let mut py = y0;
    while py <= y1 {
        let first = ((py - r.y0) / s) as usize * pixels_wide + ((x0 - r.x0) / s) as usize;
        let (Some(depths), Some(ids), Some(bounds)) = (
            buffers.depth.get_mut(first * N..(first + count) * N),
            buffers.ids.get_mut(first * N..(first + count) * N),
            buffers.depth_bounds.get_mut(first..first + count),
        ) else {
            py += s;
            continue;
        };
        let mut e = lanes.edges.map(|edge| edge.at(x0, py));
        let pixels = by_pixel_mut::<N, _>(depths).zip(by_pixel_mut::<N, _>(ids)).zip(bounds.iter_mut());
        for (p, ((depth, pixel_ids), bound)) in pixels.enumerate() {
            let coverage = if TEST { lanes.coverage(e) } else { PixelCoverage::Whole };
            for (v, step) in e.iter_mut().zip(lanes.edge_step) {
                *v += step;
            }
            let inside = match coverage {
                PixelCoverage::Outside => continue,
                PixelCoverage::Whole => None,
                PixelCoverage::Mixed(inside) => Some(inside),
            };
            let px = x0 + p as i32 * s;
            test_pixel(lanes, id, lanes.depth.pixel_base(px, py), inside, depth, pixel_ids, bound);
        }
        py += s;
    }
}

/// Boxes of at most this many pixels' worth of samples are tested sample by sample.
const FEW_SAMPLES: usize = 2;

/// Depth-tests the samples of the inclusive rectangle `[x0, y0, x1, y1]` (at most
/// [`FEW_SAMPLES`] pixels' worth) that triangle `id` may cover: at sprite sizes most triangles
/// of a dense mesh cover a sample or two, for which testing the samples of their box one by
/// one costs less than the constants of a whole pixel's lanes. The samples kept and their
/// depths are the lanes' (the same edge functions, the same `base + offset` depths); a pixel's
/// lower depth bound takes the nearest depth written in it, which is what it bounds.
fn few_samples<const N: usize>(buffers: &mut TileBuffers, tri: &Triangle, id: u32, [x0, y0, x1, y1]: [i32; 4]) {
    let s = side(N);
    let r = buffers.rect;
    let pixels_wide = (r.w / s) as usize;
    let depth = SampleDepth::new(tri);
    each_covered_sample(&tri.edges, [x0, y0, x1, y1], |x, y| {
        let (i, j) = (x.rem_euclid(s), y.rem_euclid(s));
        let (px, py) = (x - i, y - j);
        let pixel = ((py - r.y0) / s) as usize * pixels_wide + ((px - r.x0) / s) as usize;
        let k = pixel * N + (j * s + i) as usize;
        let z = depth.pixel_base(px, py) + depth.offset(i, j);
        if let (Some(d), Some(t), Some(bound)) =
            (buffers.depth.get_mut(k), buffers.ids.get_mut(k), buffers.depth_bounds.get_mut(pixel))
            && depth_mask(z, *d) != 0
        {
            (*d, *t) = (z, id);
            bound[0] = bound[0].min(z);
        }
        true
    });
}

/// The depth test of one pixel's samples (`inside`: which ones the triangle covers, `None` for
/// all), with the pixel's depth bounds `[nearest, farthest]` kept up to date.
#[inline(always)]
fn test_pixel<const N: usize>(
    lanes: &PixelLanes<N>,
    id: u32,
    base: f32,
    inside: Option<[u32; N]>,
    depth: &mut [f32; N],
    ids: &mut [u32; N],
    bound: &mut [f32; 2],
) {
    let (nearest, farthest) = (base + lanes.depth_range.0, base + lanes.depth_range.1);
    // Every sample of the triangle is at least as far as what the pixel holds (or NaN).
    if nearest.partial_cmp(&bound[1]) != Some(std::cmp::Ordering::Less) {
        return;
    }
    if inside.is_none() && farthest < bound[0] && farthest <= 1.0 {
        // Nearer than everything the pixel holds: every sample passes.
        for (d, offset) in depth.iter_mut().zip(&lanes.depth_offsets) {
            *d = base + offset;
        }
        *ids = [id; N];
        *bound = [nearest, farthest];
        return;
    }
    let inside = inside.unwrap_or([u32::MAX; N]);
    // Selects by mask rather than branches, so the lanes compile to vector instructions.
    for k in 0..N {
        let z = base + lanes.depth_offsets[k];
        let keep = inside[k] & depth_mask(z, depth[k]);
        depth[k] = f32::from_bits((z.to_bits() & keep) | (depth[k].to_bits() & !keep));
        ids[k] = (id & keep) | (ids[k] & !keep);
    }
    // The samples written are no nearer than `nearest`; none got farther.
    bound[0] = bound[0].min(nearest);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::raster::buffers::{NO_TRIANGLE, TileRect};
    use crate::raster::scene::RenderOptions;
    use crate::raster::setup::{CORNER_ATTRS, ClipVertex, setup_triangle};
    use crate::raster::shade::{DrawMaterial, FragmentOutput, Shader};
    use crate::raster::visibility;
    use glam::Vec4;

    /// Triangles over a 64×64-sample tile at the top left of a `side`² sample target: a fan of
    /// small and large triangles at many depths, two that cross each other, two coincident
    /// ones (equal depths: the first drawn keeps its samples), one reaching beyond the far
    /// plane, one far larger than the tile (edge offsets too large for the `i32` lanes), and
    /// tiny ones of a sample or two, most inside one pixel, in front of the others and behind.
    /// Also the indices of the coincident pair and the large one.
    fn triangles(side: u32) -> (Vec<crate::raster::setup::Triangle>, [usize; 3]) {
        let vertex = |x: f32, y: f32, z: f32| ClipVertex { pos: Vec4::new(x, y, z, 1.0), attrs: [0.0; CORNER_ATTRS] };
        // Tile corner (-1, 1) to (-1 + t, 1 - t) in clip space.
        let t = 128.0 / side as f32;
        let at = |u: f32, v: f32, z: f32| vertex(-1.0 + u * t, 1.0 - v * t, z);
        let mut list = Vec::new();
        let mut seed = 12345u32;
        let mut random = || {
            seed = seed.wrapping_mul(1664525).wrapping_add(1013904223);
            (seed >> 8) as f32 / (1u32 << 24) as f32
        };
        for _ in 0..60 {
            let (cx, cy, r) = (random() * 1.2 - 0.1, random() * 1.2 - 0.1, 0.02 + random() * 0.4);
            let z = 0.1 + random() * 0.5;
            let (a0, dz) = (random() * std::f32::consts::TAU, [random(), random(), random()].map(|d| (d - 0.5) * 0.3));
            let corner = |k: usize| {
                let a = a0 + 2.1 * k as f32;
                at(cx + r * a.cos(), cy + r * a.sin(), z + dz[k])
            };
            list.push([corner(0), corner(1), corner(2)]);
        }
        for _ in 0..300 {
            // A tile is 64 samples wide: radii of 0.2 to 1 sample.
            let (cx, cy, r, z) = (random(), random(), (0.2 + random() * 0.8) / 64.0, random() * 0.8);
            let (a0, dz) = (random() * std::f32::consts::TAU, [random(), random(), random()].map(|d| (d - 0.5) * 0.02));
            let corner = |k: usize| {
                let a = a0 + 2.1 * k as f32;
                at(cx + r * a.cos(), cy + r * a.sin(), z + dz[k])
            };
            list.push([corner(0), corner(1), corner(2)]);
        }
        list.push([at(0.0, 0.0, 0.5), at(1.0, 0.1, 0.9), at(0.1, 1.0, 0.9)]);
        list.push([at(1.0, 0.0, 0.5), at(0.9, 1.0, 0.5), at(0.0, 0.4, 0.95)]);
        list.push([at(0.0, 0.0, 0.6), at(1.0, 0.0, 1.5), at(0.0, 1.0, 1.5)]);
        let mut out = Vec::new();
        for v in list {
            setup_triangle(v, (side, side), 0, false, &mut out);
        }
        let coincident = [at(0.2, 0.2, 0.3), at(0.9, 0.3, 0.3), at(0.3, 0.9, 0.3)];
        let huge = [vertex(-7.0, 7.0, 0.97), vertex(7.0, 6.0, 0.98), vertex(-6.0, -7.0, 0.99)];
        let marks = [out.len(), out.len() + 1, out.len() + 2];
        for v in [coincident, coincident, huge] {
            setup_triangle(v, (side, side), 0, false, &mut out);
        }
        assert_eq!(out.len(), marks[2] + 1, "the last three are not clipped");
        (out, marks)
    }

    #[test]
    fn pixels_keep_exactly_the_samples_the_sample_pass_keeps() {
        for (ssaa, side) in [(2, 256), (3, 252), (4, 256), (4, 16384)] {
            let (tris, [first, second, huge]) = triangles(side);
            assert!(tris.len() > 60, "{} triangles", tris.len());
            let options = RenderOptions { ssaa, ..RenderOptions::default() };
            let shader = Shader::new(&options, FragmentOutput::Color);
            let material = DrawMaterial::opaque([1.0; 4]);
            let materials = [material];
            let ctx = DrawContext::new(&tris, &[], &materials, &shader, &options);
            let s = ssaa as i32;
            // The large triangle takes the `i64` sample test on the largest target only.
            let lanes = PixelLanes::<16>::new(&tris[huge]).edge_lanes.is_some();
            assert_eq!(lanes, side < 16384, "ssaa {ssaa}, side {side}");
            let tile = (64 / s) * s;
            let rect = TileRect { x0: 0, y0: 0, w: tile, h: tile };
            let bin: Vec<u32> = (0..tris.len() as u32).collect();
            // Both roads are taken: boxes of a few samples (inside one pixel, and across
            // pixels), and whole pixels' lanes.
            let few = |t: &&crate::raster::setup::Triangle| {
                let [x0, y0, x1, y1] = t.bbox;
                x1 < tile && y1 < tile && ((x1 - x0 + 1) * (y1 - y0 + 1)) as usize <= FEW_SAMPLES * (s * s) as usize
            };
            let one_pixel =
                |t: &&crate::raster::setup::Triangle| t.bbox[0] / s == t.bbox[2] / s && t.bbox[1] / s == t.bbox[3] / s;
            let counts = [
                tris.iter().filter(few).filter(one_pixel).count(),
                tris.iter().filter(few).filter(|t| !one_pixel(t)).count(),
                tris.iter().filter(|t| !few(t)).count(),
            ];
            assert!(counts.iter().all(|&n| n > 10), "ssaa {ssaa}: one pixel, across pixels, lanes: {counts:?}");
            let mut by_sample = TileBuffers::new(rect);
            visibility::draw(&mut by_sample, &bin, &ctx);
            let mut by_pixel = TileBuffers::new(rect);
            match ssaa {
                2 => draw::<4>(&mut by_pixel, &bin, &ctx),
                3 => draw::<9>(&mut by_pixel, &bin, &ctx),
                _ => draw::<16>(&mut by_pixel, &bin, &ctx),
            }
            let n = (s * s) as usize;
            let mut seen = std::collections::HashSet::new();
            let mut wins = vec![0usize; tris.len() + 1];
            for y in 0..tile {
                for x in 0..tile {
                    let sample = rect.index(x, y);
                    let pixel = ((y / s) * (tile / s) + x / s) as usize;
                    let k = ((y % s) * s + x % s) as usize;
                    let (id, depth) = (by_sample.ids[sample], by_sample.depth[sample]);
                    assert_eq!(by_pixel.ids[pixel * n + k], id, "ssaa {ssaa}, sample ({x}, {y})");
                    assert_eq!(by_pixel.depth[pixel * n + k].to_bits(), depth.to_bits(), "ssaa {ssaa}, ({x}, {y})");
                    let [near, far] = by_pixel.depth_bounds[pixel];
                    assert!(near <= depth && depth <= far, "ssaa {ssaa}: bounds {near}..{far} hold {depth}");
                    seen.insert(id);
                    wins[id.min(tris.len() as u32) as usize] += 1;
                }
            }
            // Many triangles show; of the coincident pair only the first; the huge one fills
            // what nothing else covers.
            assert!(seen.len() > 30 && !seen.contains(&NO_TRIANGLE), "ssaa {ssaa}: {} ids", seen.len());
            assert!(wins[first] > 0 && wins[second] == 0 && wins[huge] > 0, "ssaa {ssaa}: {wins:?}");
            // Cleaning restores every sample.
            by_pixel.clear_dirty(s);
            assert!(by_pixel.ids.iter().all(|&id| id == NO_TRIANGLE));
            assert!(by_pixel.depth.iter().all(|&d| d == f32::INFINITY));
            assert!(by_pixel.depth_bounds.iter().all(|&b| b == [f32::INFINITY; 2]));
        }
    }

    /// The depth range taken from the corners is the smallest and largest sample offset.
    fn check_depth_range<const N: usize>(tri: &crate::raster::setup::Triangle) {
        let lanes = PixelLanes::<N>::new(tri);
        let (lo, hi) = lanes.depth_range;
        let offsets = lanes.depth_offsets;
        assert!(offsets.iter().all(|&o| lo <= o && o <= hi), "{lo}..{hi} holds {offsets:?}");
        assert!(offsets.contains(&lo) && offsets.contains(&hi), "{lo}..{hi} are among {offsets:?}");
    }

    #[test]
    fn depth_range_is_the_extreme_sample_offsets() {
        let (tris, _) = triangles(256);
        for tri in &tris {
            check_depth_range::<4>(tri);
            check_depth_range::<9>(tri);
            check_depth_range::<16>(tri);
        }
    }
}
