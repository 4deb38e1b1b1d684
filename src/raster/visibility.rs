//! The visibility pass of opaque bins: every triangle depth-tested in submission order, and per
//! sample the triangle the test keeps recorded — the first of equal depths, exactly as drawing
//! in order would (both find their samples through the same [`RowStepper`]).

use super::buffers::TileBuffers;
use super::context::DrawContext;
use super::coverage::{BLOCK, RowStepper, walk};
use super::setup::Triangle;

/// Fills the tile's depth and visibility buffers with the binned triangles.
pub(super) fn draw(buffers: &mut TileBuffers, bin: &[u32], ctx: &DrawContext) {
    for &i in bin {
        let Some(tri) = ctx.triangles.get(i as usize) else { continue };
        let Some(bounds) = buffers.touch(tri) else { continue };
        walk(tri, bounds, BLOCK, |rect, test| match test {
            true => visibility_rect::<true>(buffers, tri, i, ctx.ssaa, rect),
            false => visibility_rect::<false>(buffers, tri, i, ctx.ssaa, rect),
        });
    }
}

/// Depth-tests the samples of an inclusive rectangle (with `TEST`, only those inside all
/// edges) and records the triangle `id` where it is nearest so far.
#[inline(always)]
fn visibility_rect<const TEST: bool>(
    buffers: &mut TileBuffers,
    tri: &Triangle,
    id: u32,
    ssaa: i32,
    [x0, y0, x1, y1]: [i32; 4],
) {
    let r = buffers.rect;
    let stepper = RowStepper::new(tri, x0, ssaa);
    let width = (x1 - x0 + 1) as usize;
    for y in y0..=y1 {
        let row = r.index(x0, y);
        let (Some(depths), Some(ids)) =
            (buffers.depth.get_mut(row..row + width), buffers.ids.get_mut(row..row + width))
        else {
            continue;
        };
        stepper.visible::<TEST, _>(y, depths, ids.iter_mut(), |z, depth, sample_id| {
            *depth = z;
            *sample_id = id;
        });
    }
}
