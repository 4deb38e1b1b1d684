//! Deferred shading of opaque bins: after the visibility pass (`visibility.rs`) has kept one
//! triangle per sample, each visible sample is shaded once (or, with
//! [`ShadingRate::Pixel`](super::ShadingRate::Pixel) and supersampling, each triangle once per
//! pixel) and resolved to output bytes without going through the colour buffer. The colours
//! are those of drawing in order, without shading samples a later triangle covers.
//!
//! Rejected alternative: sorting triangles front to back before drawing in order. It saves
//! shading too, but changes which of two equally deep triangles wins, so renders would depend
//! on the sort.

use super::context::{DrawContext, FragmentNeeds};
use super::interpolate::{clip_z_lanes, interpolate_lanes};
use super::resolve::{MemoEncoder, OutputBand, PixelRect, Resolve, average, resolve_colors};
use super::setup::Triangle;
use super::shade::{DrawMaterial, Shader};
use super::tile::{NO_TRIANGLE, TileBuffers};

/// The largest supersampling factor (samples per pixel side).
const MAX_SSAA: usize = 4;

/// Shades and resolves the samples the visibility pass kept.
pub(super) fn shade<R: Resolve>(
    buffers: &mut TileBuffers,
    ctx: &DrawContext,
    resolver: &R,
    out: &mut OutputBand<R::Pixel>,
) {
    match (ctx.ssaa, ctx.shading_block) {
        (1, _) => shade_samples_to_pixels(buffers, ctx, resolver, out),
        (s, block) if block == s => shade_pixels(buffers, ctx, resolver, out),
        (s, _) => {
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
    out: &mut OutputBand<R::Pixel>,
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

/// Supersampling shaded per pixel: each triangle that won samples of a pixel is shaded once,
/// at the centroid of those samples — always inside the triangle, so textures are never
/// read beyond its uv island — and counts for the samples it won. Runs of pixels one
/// triangle covers whole (most pixels) are shaded together in lanes.
fn shade_pixels<R: Resolve>(buffers: &TileBuffers, ctx: &DrawContext, resolver: &R, out: &mut OutputBand<R::Pixel>) {
    let Some(rect) = PixelRect::covering(buffers.dirty, ctx.ssaa) else { return };
    let grid = PixelGrid::new(ctx.ssaa);
    let mut shader = VisibleShader { ctx, current: None };
    for oy in 0..rect.height {
        let Some(row) = out.pixels(rect.x0, rect.y0 + oy, rect.width) else { continue };
        let py = rect.sy0 + oy as i32 * grid.s;
        for (chunk, pixels) in row.chunks_mut(SPAN).enumerate() {
            let count = pixels.len();
            let px0 = rect.sx0 + (chunk * SPAN) as i32 * grid.s;
            // The triangle covering each pixel whole (NO_TRIANGLE: none covers any of it),
            // and the colours of the pixels whose samples differ.
            let mut whole = [None; SPAN];
            let mut colors = [[0.0f32; 4]; SPAN];
            for k in 0..count {
                let px = px0 + k as i32 * grid.s;
                let ids = pixel_ids(buffers, &grid, px, py);
                if ids[1..grid.n].iter().all(|&id| id == ids[0]) {
                    whole[k] = Some(ids[0]);
                } else {
                    colors[k] = shade_mixed_pixel(&mut shader, &grid, &ids, px, py);
                }
            }
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

/// The triangles kept at the samples of the pixel whose first sample is (`px`, `py`), in
/// the grid's order.
#[inline(always)]
fn pixel_ids(buffers: &TileBuffers, grid: &PixelGrid, px: i32, py: i32) -> [u32; MAX_SSAA * MAX_SSAA] {
    let r = buffers.rect;
    let mut ids = [NO_TRIANGLE; MAX_SSAA * MAX_SSAA];
    for (id, &(dx, dy)) in ids.iter_mut().zip(&grid.offsets).take(grid.n) {
        let (x, y) = (px + dx, py + dy);
        *id = buffers.ids.get(r.index(x, y)).copied().unwrap_or(NO_TRIANGLE);
    }
    ids
}

/// The colour of a pixel whose samples several triangles (or a triangle and the
/// background) share.
fn shade_mixed_pixel(
    shader: &mut VisibleShader,
    grid: &PixelGrid,
    ids: &[u32; MAX_SSAA * MAX_SSAA],
    px: i32,
    py: i32,
) -> [f32; 4] {
    let n = grid.n;
    // The distinct triangles of the pixel in order of first sample, each with the sums
    // of its samples' coordinates and their count; which one each sample has.
    let mut triangles = [(NO_TRIANGLE, 0i32, 0i32, 0i32); MAX_SSAA * MAX_SSAA];
    let mut distinct = 0;
    let mut slots = [usize::MAX; MAX_SSAA * MAX_SSAA];
    for (j, (&id, &(dx, dy))) in ids.iter().zip(&grid.offsets).enumerate().take(n) {
        if id == NO_TRIANGLE {
            continue;
        }
        let t = match triangles[..distinct].iter().position(|t| t.0 == id) {
            Some(t) => t,
            None => {
                triangles[distinct].0 = id;
                distinct += 1;
                distinct - 1
            }
        };
        let (_, sum_x, sum_y, count) = &mut triangles[t];
        (*sum_x, *sum_y, *count) = (*sum_x + px + dx, *sum_y + py + dy, *count + 1);
        slots[j] = t;
    }
    // Each triangle shaded once, at the centroid of its samples in the pixel.
    let mut shaded = [[0.0f32; 4]; MAX_SSAA * MAX_SSAA];
    for (color, &(id, sum_x, sum_y, count)) in shaded.iter_mut().zip(&triangles[..distinct]) {
        *color = shader.shade(id, sum_x as f32 / count as f32, sum_y as f32 / count as f32, grid.derivative_scale);
    }
    const TRANSPARENT: [f32; 4] = [0.0; 4];
    let colors = slots[..n].iter().map(|&t| shaded.get(t).unwrap_or(&TRANSPARENT));
    average(colors, grid.scale)
}

/// The samples of one pixel when supersampling shades per pixel.
struct PixelGrid {
    /// Samples per pixel side.
    s: i32,
    /// Samples per pixel.
    n: usize,
    /// One over `n`.
    scale: f32,
    /// Sample offsets within the pixel, row-major (no divisions per pixel).
    offsets: [(i32, i32); MAX_SSAA * MAX_SSAA],
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
        let offsets: [(i32, i32); MAX_SSAA * MAX_SSAA] = std::array::from_fn(|k| (k as i32 % s, k as i32 / s));
        let (sum_dx, sum_dy) = offsets[..n].iter().fold((0, 0), |(sx, sy), (dx, dy)| (sx + dx, sy + dy));
        PixelGrid { s, n, scale: 1.0 / n as f32, offsets, sum_dx, sum_dy, derivative_scale: s as f32 * 0.5 }
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
        let [color] = self.shade_span::<1>(id, [x], y, derivative_scale, 1);
        color
    }

    /// The colours of the first `count` of `L` samples of triangle `id` in one sample row `y`,
    /// at columns `xs`, with uv derivatives scaled by `derivative_scale` (the other lanes
    /// transparent); each lane's arithmetic is that of the sample shaded alone. Interpolation, texture coordinates and lighting run on all lanes at once (vector
    /// instructions), texel reads lane by lane in their own loop, so the CPU overlaps the
    /// samples' loads.
    #[inline(always)]
    fn shade_span<const L: usize>(
        &mut self,
        id: u32,
        xs: [f32; L],
        y: f32,
        derivative_scale: f32,
        count: usize,
    ) -> [[f32; 4]; L] {
        let Some((tri, material, needs)) = self.select(id) else { return [[0.0; 4]; L] };
        let oy = y - tri.bbox[1] as f32;
        let ox = xs.map(|x| x - tri.bbox[0] as f32);
        let mut fragments = interpolate_lanes(tri, ox, oy, needs.uv, needs.normals, needs.derivatives);
        if derivative_scale != 1.0 {
            fragments.scale_derivatives(derivative_scale);
        }
        let shader: &'a Shader = self.ctx.shader;
        let surfaces = shader.surface(material, &fragments, count);
        shader.finish(&surfaces, &fragments, || clip_z_lanes(tri, ox, oy))
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
        let colors = self.shade_span::<L>(id, xs, y as f32, 1.0, pixels.len());
        for (px, encoded) in pixels.iter_mut().zip(resolver.encode_lanes(&colors)) {
            *px = encoded;
        }
    }

    /// The colours of `colors.len()` (at most `L`) neighbouring pixels that triangle `id`
    /// covers whole, the first one's first sample at (`px`, `py`): each shaded once at the
    /// centroid of its samples and counted for all of them, as a pixel with mixed samples
    /// counts each triangle.
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
        let shaded = self.shade_span::<L>(id, xs, y, grid.derivative_scale, colors.len());
        for (color, one) in colors.iter_mut().zip(&shaded) {
            *color = average(std::iter::repeat_n(one, grid.n), grid.scale);
        }
    }
}
