//! The coverage-count instrument: how many triangles cover each sample of a tile, ignoring
//! depth and shading. It checks the fill rule with the same walk and row stepper the passes
//! draw with, in a buffer of its own (rendering carries no counter).

use super::buffers::TileRect;
use super::context::DrawContext;
use super::coverage::{BLOCK, RowStepper, walk};

/// Coverage counts of the binned triangles over `tile`, row-major.
pub(super) fn count(tile: TileRect, bin: &[u32], ctx: &DrawContext) -> Vec<u16> {
    let mut counts = vec![0u16; (tile.w * tile.h) as usize];
    for &i in bin {
        let Some(tri) = ctx.triangles.get(i as usize) else { continue };
        let Some(bounds) = tile.clip(tri) else { continue };
        walk(tri, bounds, BLOCK, |[x0, y0, x1, y1], test| {
            let stepper = RowStepper::new(tri, x0, ctx.ssaa);
            let width = (x1 - x0 + 1) as usize;
            for y in y0..=y1 {
                let row = tile.index(x0, y);
                let Some(row) = counts.get_mut(row..row + width) else { continue };
                let add = |c: &mut u16, inside: bool, _| {
                    if inside {
                        *c = c.saturating_add(1);
                    }
                };
                match test {
                    true => stepper.step::<true, _>(y, row.iter_mut(), add),
                    false => stepper.step::<false, _>(y, row.iter_mut(), add),
                }
            }
        });
    }
    counts
}
