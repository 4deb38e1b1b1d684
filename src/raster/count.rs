//! The coverage-count instrument: how many triangles cover each sample of a tile, ignoring
//! depth and shading. It checks the fill rule with the same walk and row stepper the passes
//! draw with, in a buffer of its own (rendering carries no counter).

use super::context::DrawContext;
use super::coverage::{RowStepper, walk};
use super::tile::TileRect;

/// Coverage counts of the binned triangles over `tile`, row-major.
pub(super) fn count(tile: TileRect, bin: &[u32], ctx: &DrawContext) -> Vec<u16> {
    let mut counts = vec![0u16; (tile.w * tile.h) as usize];
    for &i in bin {
        let Some(tri) = ctx.triangles.get(i as usize) else { continue };
        let Some(bounds) = tile.clip(tri) else { continue };
        walk(tri, bounds, |rect @ [x0, _, x1, _], test| {
            let width = (x1 - x0 + 1) as usize;
            RowStepper::new(tri, rect).rows(|row| {
                let start = tile.index(x0, row.y);
                let Some(counts) = counts.get_mut(start..start + width) else { return };
                let add = |c: &mut u16, inside: bool, _| {
                    if inside {
                        *c = c.saturating_add(1);
                    }
                };
                match test {
                    true => row.step::<true, _>(counts.iter_mut(), add),
                    false => row.step::<false, _>(counts.iter_mut(), add),
                }
            });
        });
    }
    counts
}
