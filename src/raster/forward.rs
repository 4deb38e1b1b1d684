//! The forward pass: bins holding alpha-tested or blended triangles, drawn into the tile's
//! colour and depth, each sample shaded as its triangle reaches it.
//!
//! **Order.** Opaque and alpha-tested triangles first, in submission order, writing depth;
//! then blended ones back to front — sorted by their centroid's depth, farthest first, ties in
//! submission order — each blended "over" what is behind it and tested against (not writing)
//! depth. So glass in front of an opaque surface tints it whatever the file order, and two
//! panes in front of each other compose in depth order. Every tile sorts the same triangles by
//! the same keys, so tiles agree and any thread count gives the same bytes. Sorting whole
//! triangles is what real-time engines do; it is exact unless blended triangles interpenetrate
//! or overlap in depth so that neither is wholly behind the other (a per-pixel fragment list
//! would resolve those, at a cost every blended pixel would pay). Additive surfaces (glows) and
//! multiplying ones (filters) sort with the blended ones; the surface maps leave them out, as
//! a glow or a filter has no surface of its own.

use super::buffers::TileBuffers;
use super::context::{DrawContext, FragmentNeeds};
use super::coverage::{BLOCK, RowStepper, walk};
use super::interpolate::{clip_z_lanes, colour_lanes, interpolate};
use super::setup::ColourPlanes;
use super::setup::Triangle;
use super::shade::{DrawMaterial, Shader};
use crate::model::AlphaMode;

/// Draws the binned triangles into the colour buffer: the others in submission order, then the
/// blended ones back to front.
pub(super) fn draw(buffers: &mut TileBuffers, bin: &[u32], ctx: &DrawContext) {
    buffers.color_dirty = true;
    let blended = |i: u32| ctx.triangle(i).is_some_and(|(_, m, _)| m.alpha.is_blended());
    let mut back_to_front: Vec<(f32, u32)> = bin
        .iter()
        .filter(|&&i| blended(i))
        .filter_map(|&i| ctx.triangle(i).map(|(tri, ..)| (tri.centroid_depth, i)))
        .collect();
    back_to_front.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let order = bin.iter().copied().filter(|&i| !blended(i)).chain(back_to_front.into_iter().map(|(_, i)| i));
    for i in order {
        let Some((tri, material, needs)) = ctx.triangle(i) else { continue };
        if matches!(material.alpha, AlphaMode::Additive | AlphaMode::Multiply) && !ctx.shader.draws_color() {
            continue;
        }
        let Some(bounds) = buffers.touch(tri) else { continue };
        let shading = (material, needs, ctx.vertex_colours(i, needs), ctx.shader_for(material));
        walk(tri, bounds, BLOCK, |rect, test| match test {
            true => fill_rect::<true>(buffers, tri, shading, ctx, rect),
            false => fill_rect::<false>(buffers, tri, shading, ctx, rect),
        });
    }
}

/// Shades the samples of an inclusive rectangle that pass the depth test; with `TEST` only
/// those inside all edges (`ssaa` samples per pixel side).
#[inline(always)]
fn fill_rect<const TEST: bool>(
    buffers: &mut TileBuffers,
    tri: &Triangle,
    (material, needs, colour_planes, shader): (&DrawMaterial, FragmentNeeds, Option<&ColourPlanes>, &Shader),
    ctx: &DrawContext,
    [x0, y0, x1, y1]: [i32; 4],
) {
    let r = buffers.rect;
    let alpha = material.alpha;
    let stepper = RowStepper::new(tri, x0, ctx.ssaa);
    let width = (x1 - x0 + 1) as usize;
    for y in y0..=y1 {
        let oy = (y - tri.bbox[1]) as f32;
        let row = r.index(x0, y);
        let (Some(depths), Some(colors)) =
            (buffers.depth.get_mut(row..row + width), buffers.color.get_mut(row..row + width))
        else {
            continue;
        };
        stepper.visible::<TEST, _>(y, depths, colors.iter_mut().enumerate(), |z, depth, (i, dst)| {
            let src = match needs.constant {
                Some(c) => c,
                None => {
                    let ox = stepper.ox(i);
                    let fragment = interpolate(tri, ox, oy, needs.uv, needs.normals, needs.derivatives);
                    let colour = colour_planes.map(|planes| colour_lanes(tri, planes, [ox], [oy]));
                    let clip_z = || clip_z_lanes(tri, [ox], [oy]);
                    let Some(src) = shader.shade(material, &fragment, colour.as_ref(), clip_z) else { return };
                    src
                }
            };
            // Blended surfaces do not occlude what comes later.
            match alpha {
                AlphaMode::Blend => *dst = over(src, *dst),
                AlphaMode::Additive => *dst = onto(*dst, ctx.background, |behind| add(src, behind)),
                AlphaMode::Multiply => *dst = onto(*dst, ctx.background, |behind| multiply(src, behind)),
                AlphaMode::Opaque | AlphaMode::Mask(_) => {
                    *dst = src;
                    *depth = z;
                }
            }
        });
    }
}

/// Premultiplied `src` over `dst`.
#[inline(always)]
fn over(src: [f32; 4], dst: [f32; 4]) -> [f32; 4] {
    let k = 1.0 - src[3];
    [src[0] + dst[0] * k, src[1] + dst[1] * k, src[2] + dst[2] * k, src[3] + dst[3] * k]
}

/// `blend` (a glow's add, a filter's multiply) of `dst` in front of `background`
/// (premultiplied), which the resolve composites every pixel over afterwards: the glow adds to
/// the background too and the filter darkens it, as they would a wall. Returned as what the
/// resolve turns into the result: the colour `p` with `p + background · (1 − p.alpha)` =
/// `blend`(`dst` over the background). Without a background, `blend`(`dst`).
#[inline(always)]
fn onto(dst: [f32; 4], background: Option<[f32; 4]>, blend: impl Fn([f32; 4]) -> [f32; 4]) -> [f32; 4] {
    let Some(background) = background else { return blend(dst) };
    let sum = blend(over(dst, background));
    let behind = background[3];
    if behind >= 1.0 {
        return sum;
    }
    // The resolve adds `background · (1 − p.alpha)`; the sum's alpha is at least the
    // background's (neither blend uncovers anything), so this alpha is in 0..=1.
    let alpha = ((sum[3] - behind) / (1.0 - behind)).clamp(0.0, 1.0);
    let k = 1.0 - alpha;
    [sum[0] - background[0] * k, sum[1] - background[1] * k, sum[2] - background[2] * k, alpha]
}

/// Premultiplied `src` added to `dst`: the colours add (capped at the coverage, as a GPU's
/// framebuffer caps them at white), and the light covers what was uncovered by its brightest
/// channel — over an opaque surface alpha stays 1, over nothing black stays transparent.
#[inline(always)]
fn add(src: [f32; 4], dst: [f32; 4]) -> [f32; 4] {
    let light = src[0].max(src[1]).max(src[2]).clamp(0.0, 1.0);
    let a = dst[3] + light * (1.0 - dst[3]);
    [(dst[0] + src[0]).min(a), (dst[1] + src[1]).min(a), (dst[2] + src[2]).min(a), a]
}

/// `dst` multiplied by premultiplied `src` (Quake 3's `blendFunc filter`): by its colour where
/// it covers, by white where it does not, so a filter's anti-aliased edge fades into what is
/// behind; never brighter. Alpha is kept: a filter covers nothing of its own.
#[inline(always)]
fn multiply(src: [f32; 4], dst: [f32; 4]) -> [f32; 4] {
    let m = |c: f32| (c + 1.0 - src[3]).clamp(0.0, 1.0);
    [dst[0] * m(src[0]), dst[1] * m(src[1]), dst[2] * m(src[2]), dst[3]]
}
