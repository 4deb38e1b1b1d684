//! Deferred shading of opaque bins: after the visibility pass (`visibility.rs`) has kept one
//! triangle per sample, each visible sample is shaded once (or, with
//! [`ShadingRate::Pixel`](super::ShadingRate::Pixel) and supersampling, each triangle once per
//! pixel) and resolved to output bytes without going through the colour buffer. The colours
//! are those of drawing in order, without shading samples a later triangle covers.
//!
//! Rejected alternative: sorting triangles front to back before drawing in order. It saves
//! shading too, but changes which of two equally deep triangles wins, so renders would depend
//! on the sort.

use super::buffers::PixelRect;
use super::buffers::{NO_TRIANGLE, TileBuffers};
use super::context::{DrawContext, FragmentNeeds};
use super::interpolate::{clip_z_lanes, colour_lanes, interpolate_lanes};
use super::msaa;
use super::resolve::{MemoEncoder, OutputBand, Resolve, resolve_colors};
use super::setup::Triangle;
use super::shade::{DrawMaterial, Shader};
use wide::i32x4;

/// The largest supersampling factor (samples per pixel side).
const MAX_SSAA: usize = 4;

/// Shades and resolves the samples the sample visibility pass kept (in rows, see
/// `buffers::SampleOrder`): one sample per pixel, or supersampling shaded per sample.
pub(super) fn shade<R: Resolve>(
    buffers: &mut TileBuffers,
    ctx: &DrawContext,
    resolver: &R,
    out: &mut OutputBand<'_, '_, R::Pixel>,
) {
    match ctx.ssaa {
        1 => shade_samples_to_pixels(buffers, ctx, resolver, out),
        s => {
            shade_samples_to_colors(buffers, ctx);
            resolve_colors(buffers, s, resolver, out);
        }
    }
}

/// One sample per pixel: each visible sample shaded and encoded, row by row in runs of
/// samples of one triangle (looked up once, its row terms kept in registers).
fn shade_samples_to_pixels<R: Resolve>(
    buffers: &TileBuffers,
    ctx: &DrawContext,
    resolver: &R,
    out: &mut OutputBand<'_, '_, R::Pixel>,
) {
    let Some([x0, y0, x1, y1]) = buffers.dirty else { return };
    let r = buffers.rect;
    let width = (x1 - x0 + 1) as usize;
    let mut encoder = MemoEncoder::new(resolver);
    let mut shader = VisibleShader { ctx, current: None };
    for y in y0..=y1 {
        let row = r.index(x0, y);
        let (Some(ids), Some(out_row)) =
            (buffers.ids.get(row..row + width), out.pixels(x0 as usize, y as usize, width))
        else {
            continue;
        };
        let mut i = 0;
        while let Some(&id) = ids.get(i) {
            let run = ids[i..].iter().take_while(|&&other| other == id).count();
            let Some(pixels) = out_row.get_mut(i..i + run) else { break };
            if let Some(color) = shader.constant(id) {
                // Empty samples and flat colours: one encode for the whole run.
                pixels.fill(encoder.encode(color));
            } else {
                for (s, span) in pixels.chunks_mut(SPAN).enumerate() {
                    let x = x0 + (i + s * SPAN) as i32;
                    // Lanes past the span are computed and dropped: short spans (small
                    // triangles) take fewer lanes.
                    match span.len() {
                        ..=4 => shader.shade_and_encode::<4, R>(id, x, y, resolver, span),
                        5..=8 => shader.shade_and_encode::<8, R>(id, x, y, resolver, span),
                        _ => shader.shade_and_encode::<SPAN, R>(id, x, y, resolver, span),
                    }
                }
            }
            i += run;
        }
    }
}

/// Supersampling shaded per sample: visible samples shaded into the colour buffer, to be
/// averaged by the resolve.
fn shade_samples_to_colors(buffers: &mut TileBuffers, ctx: &DrawContext) {
    let Some([x0, y0, x1, y1]) = buffers.dirty else { return };
    buffers.color_dirty = true;
    let r = buffers.rect;
    let mut shader = VisibleShader { ctx, current: None };
    for y in y0..=y1 {
        for x in x0..=x1 {
            let i = r.index(x, y);
            let (Some(&id), Some(dst)) = (buffers.ids.get(i), buffers.color.get_mut(i)) else { continue };
            if id != NO_TRIANGLE {
                *dst = shader.shade(id, x as f32, y as f32, 1.0);
            }
        }
    }
}

/// Supersampling shaded per pixel, after the pixel visibility pass (`msaa.rs`; `N` samples a
/// pixel, pixel-major): each triangle that won samples of a pixel is shaded once, at the
/// centroid of those samples — always inside the triangle, so textures are never read beyond
/// its uv island — and weighs as the share of samples it won. Runs of pixels one triangle
/// covers whole (most pixels) are shaded together in lanes, and so are the triangles of the
/// pixels whose samples differ ([`MixedFragments`]).
pub(super) fn shade_pixels<const N: usize, R: Resolve>(
    buffers: &TileBuffers,
    ctx: &DrawContext,
    resolver: &R,
    out: &mut OutputBand<'_, '_, R::Pixel>,
) {
    let Some(rect) = PixelRect::covering(buffers.dirty, ctx.ssaa) else { return };
    let grid = PixelGrid::new(ctx.ssaa);
    let r = buffers.rect;
    let pixels_wide = (r.w / grid.s) as usize;
    let mut shader = VisibleShader { ctx, current: None };
    let mut mixed = MixedFragments::new();
    for oy in 0..rect.height {
        let Some(row) = out.pixels(rect.x0, rect.y0 + oy, rect.width) else { continue };
        let py = rect.sy0 + oy as i32 * grid.s;
        let first = ((py - r.y0) / grid.s) as usize * pixels_wide + ((rect.sx0 - r.x0) / grid.s) as usize;
        let Some(row_ids) = buffers.ids.get(first * N..(first + rect.width) * N) else { continue };
        for ((chunk, pixels), chunk_ids) in row.chunks_mut(SPAN).enumerate().zip(row_ids.chunks(SPAN * N)) {
            let count = pixels.len();
            let px0 = rect.sx0 + (chunk * SPAN) as i32 * grid.s;
            // The triangle covering each pixel whole (NO_TRIANGLE: none covers any of it),
            // and the colours of the pixels whose samples differ.
            let mut whole = [None; SPAN];
            let mut colors = [[0.0f32; 4]; SPAN];
            for (k, ids) in msaa::by_pixel::<N, _>(chunk_ids).enumerate() {
                if ids.iter().all(|&id| id == ids[0]) {
                    whole[k] = Some(ids[0]);
                } else {
                    if mixed.len + N > MIXED_CAPACITY {
                        mixed.shade_into(&mut shader, &grid, &mut colors);
                    }
                    mixed.add_pixel(k, ids, &grid, px0 + k as i32 * grid.s, py);
                }
            }
            mixed.shade_into(&mut shader, &grid, &mut colors);
            let mut k = 0;
            while let Some(&w) = whole[..count].get(k) {
                let run = whole[k..count].iter().take_while(|&&other| other == w).count();
                if let Some(id) = w.filter(|&id| id != NO_TRIANGLE) {
                    let px = px0 + k as i32 * grid.s;
                    let colors = &mut colors[k..k + run];
                    match run {
                        ..=4 => shader.shade_whole_pixels::<4>(id, px, py, &grid, colors),
                        5..=8 => shader.shade_whole_pixels::<8>(id, px, py, &grid, colors),
                        _ => shader.shade_whole_pixels::<SPAN>(id, px, py, &grid, colors),
                    }
                }
                k += run;
            }
            for (px, encoded) in pixels.iter_mut().zip(resolver.encode_lanes(&colors)) {
                *px = encoded;
            }
        }
    }
}

/// Most fragments [`MixedFragments`] holds: four pixels' worth at 4×4 samples (a row of
/// pixels shades what it has collected whenever the next pixel might not fit).
const MIXED_CAPACITY: usize = 64;

/// The triangles of the pixels whose samples several triangles (or a triangle and the
/// background) share, collected over a run of pixels: each is one fragment, at the centroid
/// of the samples it won, weighing as their share of the pixel. Neighbouring mixed pixels
/// mostly share their triangles (an edge crosses several of them), so the fragments of one
/// triangle are shaded together in lanes like a run of whole pixels.
struct MixedFragments {
    len: usize,
    ids: [u32; MIXED_CAPACITY],
    xs: [f32; MIXED_CAPACITY],
    ys: [f32; MIXED_CAPACITY],
    weights: [f32; MIXED_CAPACITY],
    /// The pixel of the run each fragment colours.
    pixels: [u8; MIXED_CAPACITY],
}

impl MixedFragments {
    fn new() -> MixedFragments {
        MixedFragments {
            len: 0,
            ids: [NO_TRIANGLE; MIXED_CAPACITY],
            xs: [0.0; MIXED_CAPACITY],
            ys: [0.0; MIXED_CAPACITY],
            weights: [0.0; MIXED_CAPACITY],
            pixels: [0; MIXED_CAPACITY],
        }
    }

    /// Adds the fragments of pixel `k` of the run, whose samples have triangles `ids` and whose
    /// first sample is (`px`, `py`): the distinct triangles in order of first sample, with the
    /// centroid and share of their samples (samples of no triangle add nothing: transparent).
    fn add_pixel<const N: usize>(&mut self, k: usize, ids: &[u32; N], grid: &PixelGrid, px: i32, py: i32) {
        // The pixel's triangles in vector lanes, four samples a lane group (lanes past N hold
        // NO_TRIANGLE, which is never shaded).
        let groups = N.div_ceil(4);
        let lanes: [i32x4; LANE_GROUPS] = std::array::from_fn(|g| {
            i32x4::from(std::array::from_fn(|l| ids.get(g * 4 + l).map_or(-1, |&id| id as i32)))
        });
        // Samples not yet assigned to a fragment, one bit each (N ≤ 16).
        let mut remaining = u32::MAX >> (32 - N);
        while remaining != 0 {
            let id = ids[remaining.trailing_zeros() as usize];
            // The samples of `id`, their count and the sums of their offsets, four lanes at a
            // time: a compare per lane group instead of a search per sample.
            let key = i32x4::splat(id as i32);
            let (mut mask, mut count, mut sum_dx, mut sum_dy) = (0u32, i32x4::ZERO, i32x4::ZERO, i32x4::ZERO);
            for (g, ((lane, &dx), &dy)) in lanes.iter().zip(&grid.dx).zip(&grid.dy).enumerate().take(groups) {
                // All ones where the sample is `id`'s.
                let same = lane.simd_eq(key);
                mask |= same.to_bitmask() << (4 * g);
                count -= same;
                sum_dx += same & dx;
                sum_dy += same & dy;
            }
            let (count, sum_dx, sum_dy) = (count.reduce_add(), sum_dx.reduce_add(), sum_dy.reduce_add());
            remaining &= !mask;
            if id == NO_TRIANGLE {
                continue;
            }
            let f = self.len;
            let Some(slot) = self.ids.get_mut(f) else { return };
            *slot = id;
            self.len += 1;
            // The centroid of the samples, as the sum of their coordinates over their count.
            self.xs[f] = (px * count + sum_dx) as f32 / count as f32;
            self.ys[f] = (py * count + sum_dy) as f32 / count as f32;
            self.weights[f] = count as f32 / N as f32;
            self.pixels[f] = k as u8;
        }
    }

    /// Shades the fragments, each triangle's together, adds each weighted colour to its pixel's
    /// in `colors`, and empties the list.
    fn shade_into(&mut self, shader: &mut VisibleShader, grid: &PixelGrid, colors: &mut [[f32; 4]; SPAN]) {
        let by_triangle = by_triangle(&self.ids[..self.len]);
        for fragments in by_triangle.runs() {
            let Some(&first) = fragments.first() else { continue };
            let first = first as usize;
            // Lanes past a span's size hold fragments of the same triangle (the first, or those
            // of the span before): computed and dropped.
            let (id, mut group, mut size) = (self.ids[first], [first; SPAN], 0);
            for &f in fragments {
                group[size] = f as usize;
                size += 1;
                if size == SPAN {
                    self.shade_group(shader, grid, id, &group, size, colors);
                    size = 0;
                }
            }
            if size > 0 {
                self.shade_group(shader, grid, id, &group, size, colors);
            }
        }
        self.len = 0;
    }

    /// Shades the first `size` fragments of `group` (all of triangle `id`) in lanes.
    fn shade_group(
        &self,
        shader: &mut VisibleShader,
        grid: &PixelGrid,
        id: u32,
        group: &[usize; SPAN],
        size: usize,
        colors: &mut [[f32; 4]; SPAN],
    ) {
        if let Some(color) = shader.constant(id) {
            self.add_weighted(&group[..size], &[color; SPAN], colors);
            return;
        }
        // Groups are small where triangles are (a pixel or two of a model's edge): no lanes
        // are computed for nothing there.
        match size {
            ..=1 => self.shade_lanes::<1>(shader, grid, id, group, size, colors),
            2 => self.shade_lanes::<2>(shader, grid, id, group, size, colors),
            3..=4 => self.shade_lanes::<4>(shader, grid, id, group, size, colors),
            5..=8 => self.shade_lanes::<8>(shader, grid, id, group, size, colors),
            _ => self.shade_lanes::<SPAN>(shader, grid, id, group, size, colors),
        }
    }

    #[inline(always)]
    fn shade_lanes<const L: usize>(
        &self,
        shader: &mut VisibleShader,
        grid: &PixelGrid,
        id: u32,
        group: &[usize; SPAN],
        size: usize,
        colors: &mut [[f32; 4]; SPAN],
    ) {
        // Lanes past `size` repeat the group's first fragment: computed and dropped.
        let xs = std::array::from_fn(|l| self.xs[group[l]]);
        let ys = std::array::from_fn(|l| self.ys[group[l]]);
        let shaded = shader.shade_span::<L>(id, xs, ys, grid.derivative_scale, size);
        self.add_weighted(&group[..size], &shaded, colors);
    }

    /// Adds the colours of fragments `group`, each weighted, to their pixels in `colors`.
    #[inline(always)]
    fn add_weighted(&self, group: &[usize], shaded: &[[f32; 4]], colors: &mut [[f32; 4]; SPAN]) {
        for (&f, color) in group.iter().zip(shaded) {
            let (w, pixel) = (self.weights[f], &mut colors[self.pixels[f] as usize]);
            for c in 0..4 {
                pixel[c] += color[c] * w;
            }
        }
    }
}

/// The fragments `ids` lists (at most [`MIXED_CAPACITY`]) ordered by triangle: each
/// triangle's together, the triangles in order of their first fragment, and each triangle's
/// fragments in their order. A counting sort through a small table of the triangles seen, in
/// two passes; finding each triangle's fragments by a scan of those after its first was
/// quadratic in the fragments, 5% of a dense character's sheet.
fn by_triangle(ids: &[u32]) -> ByTriangle {
    // Open addressing, at most half full; NO_TRIANGLE (never a fragment's) marks a free slot.
    const TABLE: usize = 2 * MIXED_CAPACITY;
    let mut keys = [NO_TRIANGLE; TABLE];
    let mut triangle_of_slot = [0u8; TABLE];
    // Each fragment's triangle, numbered in order of first fragment, and their counts.
    let mut triangle = [0u8; MIXED_CAPACITY];
    let mut counts = [0u8; MIXED_CAPACITY];
    let mut triangles = 0u8;
    for (&id, triangle) in ids.iter().zip(&mut triangle) {
        // Fibonacci hashing: neighbouring triangle ids land far apart.
        let mut slot = (id.wrapping_mul(0x9E37_79B9) >> (32 - TABLE.trailing_zeros())) as usize % TABLE;
        while keys[slot] != id && keys[slot] != NO_TRIANGLE {
            slot = (slot + 1) % TABLE;
        }
        if keys[slot] == NO_TRIANGLE {
            keys[slot] = id;
            triangle_of_slot[slot] = triangles;
            triangles += 1;
        }
        *triangle = triangle_of_slot[slot];
        counts[*triangle as usize] += 1;
    }
    // Where each triangle's fragments start, then each fragment in its place.
    let mut next = [0u8; MIXED_CAPACITY];
    let mut start = 0;
    for (next, &count) in next.iter_mut().zip(&counts).take(triangles as usize) {
        *next = start;
        start += count;
    }
    let mut order = [0u8; MIXED_CAPACITY];
    for (f, &triangle) in triangle.iter().enumerate().take(ids.len()) {
        let at = &mut next[triangle as usize];
        order[*at as usize] = f as u8;
        *at += 1;
    }
    ByTriangle { order, counts, triangles: triangles as usize }
}

/// Fragments ordered by triangle ([`by_triangle`]), with how many each triangle has.
struct ByTriangle {
    /// Fragment indices, each triangle's together.
    order: [u8; MIXED_CAPACITY],
    /// Each triangle's count of fragments, in the order's order.
    counts: [u8; MIXED_CAPACITY],
    triangles: usize,
}

impl ByTriangle {
    /// Each triangle's fragments, the triangles in order of their first fragment.
    fn runs(&self) -> impl Iterator<Item = &[u8]> {
        let mut rest = &self.order[..];
        self.counts[..self.triangles].iter().map(move |&count| {
            let (run, tail) = rest.split_at_checked(count as usize).unwrap_or((rest, &[]));
            rest = tail;
            run
        })
    }
}

/// Groups of four vector lanes that hold a pixel's samples.
const LANE_GROUPS: usize = MAX_SSAA * MAX_SSAA / 4;

/// The samples of one pixel when supersampling shades per pixel.
struct PixelGrid {
    /// Samples per pixel side.
    s: i32,
    /// Samples per pixel.
    n: usize,
    /// Sample offsets within the pixel, row-major (no divisions per pixel), x and y apart in
    /// vector lanes.
    dx: [i32x4; LANE_GROUPS],
    dy: [i32x4; LANE_GROUPS],
    /// The sum of the offsets' x over the pixel's samples.
    sum_dx: i32,
    /// The sum of the offsets' y over the pixel's samples.
    sum_dy: i32,
    /// The footprint of half a pixel (one mip level finer than the pixel's): a whole pixel's
    /// level blurs fine texture detail that supersampling keeps.
    derivative_scale: f32,
}

impl PixelGrid {
    fn new(s: i32) -> PixelGrid {
        let n = (s * s) as usize;
        // Sample k's offset in lane k mod 4 of group k div 4; lanes past the pixel's samples
        // add nothing.
        let lanes = |offset: fn(i32, i32) -> i32| -> [i32x4; LANE_GROUPS] {
            std::array::from_fn(|g| {
                i32x4::from(std::array::from_fn(|l| {
                    let k = (g * 4 + l) as i32;
                    if k < n as i32 { offset(k, s) } else { 0 }
                }))
            })
        };
        let (dx, dy) = (lanes(|k, s| k % s), lanes(|k, s| k / s));
        let sum = |v: &[i32x4; LANE_GROUPS]| v.iter().map(|g| g.reduce_add()).sum();
        let (sum_dx, sum_dy) = (sum(&dx), sum(&dy));
        PixelGrid { s, n, dx, dy, sum_dx, sum_dy, derivative_scale: s as f32 * 0.5 }
    }

    /// A coordinate of the centroid of all of a pixel's samples, from its first sample's
    /// coordinate `first` and the sum of the offsets: the same arithmetic as a mixed pixel's
    /// centroid of one triangle's samples when that triangle has all of them.
    #[inline(always)]
    fn centroid(&self, first: i32, sum_offsets: i32) -> f32 {
        (self.n as i32 * first + sum_offsets) as f32 / self.n as f32
    }
}

/// The most samples of one row [`VisibleShader::shade_span`] shades at once.
const SPAN: usize = 16;

/// Shades visible samples, looking the triangle up only when it changes (neighbouring samples
/// mostly belong to the same one).
struct VisibleShader<'a> {
    ctx: &'a DrawContext<'a>,
    current: Option<(u32, &'a Triangle, &'a DrawMaterial, FragmentNeeds)>,
}

impl<'a> VisibleShader<'a> {
    /// The colour of every sample of triangle `id` when it does not vary (no triangle, or an
    /// untextured unlit material).
    #[inline]
    fn constant(&mut self, id: u32) -> Option<[f32; 4]> {
        if id == NO_TRIANGLE {
            return Some([0.0; 4]);
        }
        self.select(id).and_then(|(_, _, needs)| needs.constant)
    }

    /// Looks triangle `id` up unless it is the current one.
    #[inline(always)]
    fn select(&mut self, id: u32) -> Option<(&'a Triangle, &'a DrawMaterial, FragmentNeeds)> {
        if self.current.is_none_or(|c| c.0 != id) {
            let (tri, material, needs) = self.ctx.triangle(id)?;
            self.current = Some((id, tri, material, needs));
        }
        self.current.map(|(_, tri, material, needs)| (tri, material, needs))
    }

    /// Premultiplied linear colour of triangle `id` at sample position (`x`, `y`), with uv
    /// derivatives scaled by `derivative_scale`; transparent for no triangle. The one-lane
    /// case of [`VisibleShader::shade_span`].
    #[inline(always)]
    fn shade(&mut self, id: u32, x: f32, y: f32, derivative_scale: f32) -> [f32; 4] {
        if let Some(c) = self.constant(id) {
            return c;
        }
        let [color] = self.shade_span::<1>(id, [x], [y], derivative_scale, 1);
        color
    }

    /// The colours of the first `count` of `L` samples of triangle `id` at (`xs`, `ys`) in
    /// sample coordinates, with uv derivatives scaled by `derivative_scale` (the other lanes
    /// transparent); each lane's arithmetic is that of the sample shaded alone.
    /// Interpolation, texture coordinates and lighting run on all lanes at once (vector
    /// instructions), texel reads lane by lane in their own loop, so the CPU overlaps the
    /// samples' loads.
    #[inline(always)]
    fn shade_span<const L: usize>(
        &mut self,
        id: u32,
        xs: [f32; L],
        ys: [f32; L],
        derivative_scale: f32,
        count: usize,
    ) -> [[f32; 4]; L] {
        let Some((tri, material, needs)) = self.select(id) else { return [[0.0; 4]; L] };
        let oy = ys.map(|y| y - tri.bbox[1] as f32);
        let ox = xs.map(|x| x - tri.bbox[0] as f32);
        let mut fragments = interpolate_lanes(tri, ox, oy, needs.uv, needs.normals, needs.derivatives);
        let colours = self.ctx.vertex_colours(id, needs).map(|planes| colour_lanes(tri, planes, ox, oy));
        if derivative_scale != 1.0 {
            fragments.scale_derivatives(derivative_scale);
        }
        let shader: &'a Shader = self.ctx.shader_for(material);
        let surfaces = shader.surface(material, &fragments, colours.as_ref(), count);
        let glow = shader.glow(material, &fragments, count);
        shader.finish(&surfaces, glow.as_ref(), &fragments, || clip_z_lanes(tri, ox, oy))
    }

    /// Shades the samples of triangle `id` from (`x`, `y`) rightwards, one per pixel of
    /// `pixels` (at most `L`), and encodes them there.
    #[inline(always)]
    fn shade_and_encode<const L: usize, R: Resolve>(
        &mut self,
        id: u32,
        x: i32,
        y: i32,
        resolver: &R,
        pixels: &mut [R::Pixel],
    ) {
        let xs = std::array::from_fn(|k| (x + k as i32) as f32);
        let colors = self.shade_span::<L>(id, xs, [y as f32; L], 1.0, pixels.len());
        for (px, encoded) in pixels.iter_mut().zip(resolver.encode_lanes(&colors)) {
            *px = encoded;
        }
    }

    /// The colours of `colors.len()` (at most `L`) neighbouring pixels that triangle `id`
    /// covers whole, the first one's first sample at (`px`, `py`): each shaded once at the
    /// centroid of its samples, with all of the pixel's weight.
    #[inline(always)]
    fn shade_whole_pixels<const L: usize>(
        &mut self,
        id: u32,
        px: i32,
        py: i32,
        grid: &PixelGrid,
        colors: &mut [[f32; 4]],
    ) {
        let xs = std::array::from_fn(|k| grid.centroid(px + k as i32 * grid.s, grid.sum_dx));
        let y = grid.centroid(py, grid.sum_dy);
        let shaded = self.shade_span::<L>(id, xs, [y; L], grid.derivative_scale, colors.len());
        colors.copy_from_slice(&shaded[..colors.len()]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::raster::scene::RenderOptions;
    use crate::raster::setup::{ClipVertex, setup_triangle};
    use crate::raster::shade::FragmentOutput;
    use glam::Vec4;

    #[test]
    fn fragments_are_ordered_by_triangle_in_order_of_first_fragment() {
        let mut seed = 0x9e37_79b9_u32;
        for len in [0, 1, 2, 17, MIXED_CAPACITY] {
            for pool in [1, 3, 40, 1000] {
                // Triangle ids from a pool, some far apart (their slots collide in the table).
                let ids: Vec<u32> = (0..len)
                    .map(|_| {
                        seed ^= seed << 13;
                        seed ^= seed >> 17;
                        seed ^= seed << 5;
                        (seed % pool) * if pool == 40 { 128 } else { 1 }
                    })
                    .collect();
                let by_triangle = by_triangle(&ids);
                // One run a triangle, each of one triangle's fragments.
                let runs: Vec<&[u8]> = by_triangle.runs().collect();
                let mut run_ids: Vec<u32> = runs.iter().map(|run| ids[run[0] as usize]).collect();
                assert!(runs.iter().zip(&run_ids).all(|(run, &id)| run.iter().all(|&f| ids[f as usize] == id)));
                run_ids.sort_unstable();
                run_ids.dedup();
                assert_eq!(run_ids.len(), runs.len(), "a triangle in two runs: {ids:?}");
                // A stable sort by the position of each id's first fragment.
                let first = |f: &usize| ids.iter().position(|&id| id == ids[*f]);
                let mut expected: Vec<usize> = (0..len).collect();
                expected.sort_by_key(first);
                let got: Vec<usize> = runs.concat().iter().map(|&f| f as usize).collect();
                assert_eq!(got, expected, "ids {ids:?}");
            }
        }
    }

    #[test]
    fn mixed_pixels_weigh_each_triangle_shaded_once_by_its_share_of_samples() {
        // Three lit triangles whose normals vary across them, so no colour is constant.
        let vertex = |x: f32, y: f32, n: [f32; 3]| ClipVertex {
            pos: Vec4::new(x, y, 0.5, 1.0),
            attrs: [0.0, 0.0, n[0], n[1], n[2], 1.0, 1.0, 1.0, 1.0],
        };
        let mut tris = Vec::new();
        for (k, tilt) in [0.0f32, 0.4, -0.7].into_iter().enumerate() {
            let n = |dx: f32| [tilt + dx, 0.3 - dx, 1.0];
            let x = k as f32 * 0.1;
            let v = [vertex(-1.0 + x, 1.0, n(0.0)), vertex(-0.9, -1.0, n(-0.5)), vertex(1.0, 0.8 - x, n(0.5))];
            setup_triangle(v, (64, 64), 0, false, &mut tris);
        }
        assert_eq!(tris.len(), 3);
        let options = RenderOptions { ssaa: 4, ..RenderOptions::default() };
        let shader = Shader::new(&options, FragmentOutput::Color);
        let material = DrawMaterial::opaque([0.8, 0.5, 0.2, 1.0]);
        let materials = [material];
        let ctx = DrawContext::new(&tris, &[], &materials, &shader, &options);
        let grid = PixelGrid::new(4);
        const E: u32 = NO_TRIANGLE;
        // Pixels of a run: two triangles, a triangle and the background, three triangles,
        // and the first pair again (so one triangle's fragments from several pixels share lanes).
        let pixels: [[u32; 16]; 4] = [
            [0, 0, 0, 1, 0, 0, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1],
            [E, E, 2, 2, E, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2],
            [0, 0, 1, 1, 0, 0, 1, 1, 2, 2, 1, 1, 2, 2, 2, 1],
            [1, 1, 1, 1, 0, 1, 1, 1, 0, 0, 1, 1, 0, 0, 0, 1],
        ];
        let mut mixed = MixedFragments::new();
        let mut shader_state = VisibleShader { ctx: &ctx, current: None };
        let first = |k: usize| (8 + 4 * k as i32, 12);
        for (k, ids) in pixels.iter().enumerate() {
            let (px, py) = first(k);
            mixed.add_pixel(k, ids, &grid, px, py);
        }
        assert_eq!(mixed.len, 2 + 1 + 3 + 2);
        let mut colors = [[0.0f32; 4]; SPAN];
        mixed.shade_into(&mut shader_state, &grid, &mut colors);
        assert_eq!(mixed.len, 0);
        for (k, ids) in pixels.iter().enumerate() {
            let (px, py) = first(k);
            // Each triangle alone, at the centroid of its samples, times its share.
            let mut expected = [0.0f32; 4];
            for id in 0..3u32 {
                let samples: Vec<(i32, i32)> = ids
                    .iter()
                    .enumerate()
                    .filter(|(_, i)| **i == id)
                    .map(|(k, _)| (k as i32 % 4, k as i32 / 4))
                    .collect(); // 4×4 samples
                if samples.is_empty() {
                    continue;
                }
                let count = samples.len() as f32;
                let cx = samples.iter().map(|s| px + s.0).sum::<i32>() as f32 / count;
                let cy = samples.iter().map(|s| py + s.1).sum::<i32>() as f32 / count;
                let color = shader_state.shade(id, cx, cy, grid.derivative_scale);
                for c in 0..4 {
                    expected[c] += color[c] * (count / 16.0);
                }
            }
            for c in 0..4 {
                assert!((colors[k][c] - expected[c]).abs() < 1e-6, "pixel {k}: {:?} != {expected:?}", colors[k]);
            }
            // The background's share stays transparent.
            let covered = ids.iter().filter(|&&id| id != E).count() as f32 / 16.0;
            assert!((colors[k][3] - covered).abs() < 1e-6, "pixel {k} alpha {}", colors[k][3]);
        }
        assert!(colors[0] != colors[3] && colors[2][0] > 0.0, "{colors:?}");
    }
}
