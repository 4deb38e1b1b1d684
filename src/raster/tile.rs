//! Binning, and which passes draw a bin into a tile's buffers (`buffers.rs`): this module
//! only orchestrates; the passes and the buffers never import it.
//!
//! Every tile owns its colour (linear, premultiplied `f32`), depth and visibility buffers,
//! draws the triangles binned to it, and resolves its own supersamples into output pixels.
//! Tiles share nothing, so rayon can run them on any number of threads and the bytes come out
//! the same. Bins of opaque triangles take the deferred path (visibility, then deferred
//! shading); bins holding alpha-tested or blended triangles are drawn forward (the others in
//! submission order, then the blended back to front), then resolved. The buffers are plain data; each pass is a function over them in its
//! own module, and all of them find their samples through `coverage.rs`.
//!
//! Buffers are kept per worker thread and reused frame after frame (a sprite job renders
//! hundreds of small frames). Each tile tracks the rectangle its triangles touched; only that
//! rectangle is resolved and cleared again, so a model covering a quarter of the frame pays for
//! a quarter of the clear and resolve. Pixels no triangle touched are the background, which the
//! caller fills once.

use super::buffers::{TileBuffers, TileRect};
use super::context::DrawContext;
use super::resolve::{OutputBand, Resolve};
use super::setup::Triangle;
use super::{deferred, forward, msaa, resolve, visibility};
use crate::model::AlphaMode;

/// Fills `bins` with per-tile lists of triangle indices, in submission order (the lists of an
/// earlier frame are emptied and reused).
pub(super) fn bin_into(
    bins: &mut Vec<Vec<u32>>,
    triangles: &[Triangle],
    tile_size: i32,
    tiles_x: usize,
    tiles_y: usize,
) {
    bins.resize_with(tiles_x * tiles_y, Vec::new);
    for bin in bins.iter_mut() {
        bin.clear();
    }
    // Tiles are 64 samples wide but at 3×3 supersampling (63): a shift instead of four integer
    // divisions a triangle, which were half of binning a dense mesh. Boxes lie on the target,
    // so the coordinates are never negative, where the two would differ.
    let shift = tile_size.trailing_zeros();
    let power_of_two = tile_size == 1 << shift;
    let tile_of = |v: i32| (if power_of_two { v >> shift } else { v / tile_size }) as usize;
    for (i, t) in triangles.iter().enumerate() {
        let [x0, y0, x1, y1] = t.bbox;
        let (tx0, ty0) = (tile_of(x0), tile_of(y0));
        let (tx1, ty1) = (tile_of(x1).min(tiles_x - 1), tile_of(y1).min(tiles_y - 1));
        for ty in ty0..=ty1 {
            for tx in tx0..=tx1 {
                bins[ty * tiles_x + tx].push(i as u32);
            }
        }
    }
}

thread_local! {
    /// Each worker thread's tile buffers, clean between uses.
    static SCRATCH: std::cell::RefCell<Option<TileBuffers>> = const { std::cell::RefCell::new(None) };
}

/// Draws `bin` into this thread's reusable buffers placed at `rect` and resolves what was
/// drawn into `out` (pixels nothing was drawn on are left as they are: the background).
pub(super) fn draw_and_resolve<R: Resolve>(
    rect: TileRect,
    bin: &[u32],
    ctx: &DrawContext,
    resolver: &R,
    out: &mut OutputBand<'_, '_, R::Pixel>,
) {
    // The scratch is taken out of its cell while in use, so re-entry (never expected: drawing
    // does not call rayon) would find it empty and use fresh buffers instead of panicking.
    let mut buffers = SCRATCH.with(|cell| cell.borrow_mut().take()).unwrap_or_else(|| TileBuffers::new(rect));
    buffers.place(rect);
    if !all_opaque(bin, ctx) {
        forward::draw(&mut buffers, bin, ctx);
        resolve::resolve_colors(&buffers, ctx.ssaa, resolver, out);
    } else if ctx.shading_block == ctx.ssaa && ctx.ssaa > 1 {
        // Supersampled and shaded per pixel: visibility per pixel, as multisampling.
        match ctx.ssaa {
            2 => draw_pixels::<4, R>(&mut buffers, bin, ctx, resolver, out),
            3 => draw_pixels::<9, R>(&mut buffers, bin, ctx, resolver, out),
            _ => draw_pixels::<16, R>(&mut buffers, bin, ctx, resolver, out),
        }
    } else {
        visibility::draw(&mut buffers, bin, ctx);
        deferred::shade(&mut buffers, ctx, resolver, out);
    }
    buffers.clear_dirty(ctx.ssaa);
    SCRATCH.with(|cell| *cell.borrow_mut() = Some(buffers));
}

/// The pixel visibility pass and per-pixel deferred shading, `N` samples a pixel.
fn draw_pixels<const N: usize, R: Resolve>(
    buffers: &mut TileBuffers,
    bin: &[u32],
    ctx: &DrawContext,
    resolver: &R,
    out: &mut OutputBand<'_, '_, R::Pixel>,
) {
    msaa::draw::<N>(buffers, bin, ctx);
    deferred::shade_pixels::<N, R>(buffers, ctx, resolver, out);
}

/// True when every triangle of the bin is opaque: alpha-tested and blended samples show what
/// lies behind them, which only drawing in order gets right.
fn all_opaque(bin: &[u32], ctx: &DrawContext) -> bool {
    bin.iter().all(|&i| {
        let material = ctx.triangles.get(i as usize).and_then(|t| ctx.materials.get(t.material as usize));
        material.is_some_and(|m| m.alpha == AlphaMode::Opaque)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::raster::setup::{CORNER_ATTRS, ClipVertex, setup_triangle};
    use glam::Vec4;

    #[test]
    fn each_triangle_is_binned_to_the_tiles_its_box_touches_in_order() {
        let vertex = |x: f32, y: f32| ClipVertex { pos: Vec4::new(x, y, 0.5, 1.0), attrs: [0.0; CORNER_ATTRS] };
        let mut set_up = Vec::new();
        setup_triangle([vertex(-0.5, -0.5), vertex(0.5, -0.5), vertex(0.0, 0.5)], (64, 64), 0, false, &mut set_up);
        let template = set_up.pop().expect("the triangle is on screen");
        // Boxes on a 300×200 target: inside one tile, on tile edges, across several, the last
        // sample of each side.
        let boxes = [
            [0, 0, 0, 0],
            [63, 63, 64, 64],
            [62, 0, 126, 10],
            [10, 120, 299, 199],
            [299, 199, 299, 199],
            [0, 0, 299, 199],
        ];
        let triangles: Vec<Triangle> = boxes.iter().map(|&bbox| Triangle { bbox, ..template.clone() }).collect();
        // 64 samples a tile (1, 2 or 4 samples a pixel side) and 63 (3).
        for tile in [64, 63] {
            let (tiles_x, tiles_y) = (300usize.div_ceil(tile), 200usize.div_ceil(tile));
            let mut bins = Vec::new();
            bin_into(&mut bins, &triangles, tile as i32, tiles_x, tiles_y);
            for ty in 0..tiles_y {
                for tx in 0..tiles_x {
                    let (x0, y0) = ((tx * tile) as i32, (ty * tile) as i32);
                    let (x1, y1) = (x0 + tile as i32 - 1, y0 + tile as i32 - 1);
                    let touching: Vec<u32> = (0..boxes.len() as u32)
                        .filter(|&i| {
                            let [bx0, by0, bx1, by1] = boxes[i as usize];
                            bx0 <= x1 && bx1 >= x0 && by0 <= y1 && by1 >= y0
                        })
                        .collect();
                    assert_eq!(bins[ty * tiles_x + tx], touching, "tile ({tx}, {ty}) of {tile}");
                }
            }
        }
    }
}
