//! Binning, the per-tile buffers, and which passes draw a bin into them.
//!
//! Every tile owns its colour (linear, premultiplied `f32`), depth and visibility buffers,
//! draws the triangles binned to it, and resolves its own supersamples into output pixels.
//! Tiles share nothing, so rayon can run them on any number of threads and the bytes come out
//! the same. Bins of opaque triangles take the deferred path (visibility, then deferred
//! shading); bins holding alpha-tested or blended triangles are drawn forward, in submission
//! order, then resolved. The buffers are plain data; each pass is a function over them in its
//! own module, and all of them find their samples through `coverage.rs`.
//!
//! Buffers are kept per worker thread and reused frame after frame (a sprite job renders
//! hundreds of small frames). Each tile tracks the rectangle its triangles touched; only that
//! rectangle is resolved and cleared again, so a model covering a quarter of the frame pays for
//! a quarter of the clear and resolve. Pixels no triangle touched are the background, which the
//! caller fills once.

use super::context::DrawContext;
use super::resolve::{OutputBand, PixelRect, Resolve};
use super::setup::Triangle;
use super::{deferred, forward, msaa, resolve, visibility};
use crate::model::AlphaMode;

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

impl TileRect {
    /// Index in the tile's row-major buffers of the sample at column `x`, row `y` (both
    /// inside the tile).
    #[inline(always)]
    pub(super) fn index(&self, x: i32, y: i32) -> usize {
        ((y - self.y0) * self.w + (x - self.x0)) as usize
    }

    /// The part of `tri`'s bounding box inside the tile, or `None` when they do not meet.
    #[inline]
    pub(super) fn clip(&self, tri: &Triangle) -> Option<[i32; 4]> {
        let x0 = tri.bbox[0].max(self.x0);
        let y0 = tri.bbox[1].max(self.y0);
        let x1 = tri.bbox[2].min(self.x0 + self.w - 1);
        let y1 = tri.bbox[3].min(self.y0 + self.h - 1);
        (x0 <= x1 && y0 <= y1).then_some([x0, y0, x1, y1])
    }
}

/// Fills `bins` with per-tile lists of triangle indices, in submission order (the lists of an
/// earlier frame are emptied and reused).
pub fn bin_into(bins: &mut Vec<Vec<u32>>, triangles: &[Triangle], tile_size: i32, tiles_x: usize, tiles_y: usize) {
    bins.resize_with(tiles_x * tiles_y, Vec::new);
    for bin in bins.iter_mut() {
        bin.clear();
    }
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
}

/// How a tile's sample buffers are laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum SampleOrder {
    /// Rows of samples: sample (x, y) at [`TileRect::index`].
    Rows,
    /// Pixel after pixel, each pixel's samples together (the pixel visibility pass, `msaa.rs`).
    Pixels,
}

/// A tile's sample buffers: plain data that the passes read and write.
///
/// Between uses, depth is infinite and the visibility buffer empty everywhere, the depth
/// bounds infinite, and colour is transparent black everywhere (the deferred path reads colour
/// only where it wrote it).
pub struct TileBuffers {
    pub(super) rect: TileRect,
    /// The layout of `depth` and `ids` since the buffers were last clean (colour is always in
    /// rows).
    pub(super) order: SampleOrder,
    pub(super) color: Vec<[f32; 4]>,
    pub(super) depth: Vec<f32>,
    /// Visibility buffer of the deferred path: the triangle kept at each sample.
    pub(super) ids: Vec<u32>,
    /// Per pixel, the nearest and farthest depth its samples may hold (`SampleOrder::Pixels`).
    pub(super) depth_bounds: Vec<[f32; 2]>,
    /// Inclusive sample rectangle `[x0, y0, x1, y1]` that triangles may have drawn into since
    /// the buffers were last clean; `None` while untouched.
    pub(super) dirty: Option<[i32; 4]>,
    /// Whether colour was written inside `dirty` (the deferred path mostly shades straight
    /// into output pixels and leaves it clean).
    pub(super) color_dirty: bool,
}

thread_local! {
    /// Each worker thread's tile buffers, clean between uses.
    static SCRATCH: std::cell::RefCell<Option<TileBuffers>> = const { std::cell::RefCell::new(None) };
}

impl TileBuffers {
    /// Cleared buffers: transparent black, depth at infinity.
    pub(super) fn new(rect: TileRect) -> TileBuffers {
        let n = (rect.w * rect.h) as usize;
        TileBuffers {
            rect,
            order: SampleOrder::Rows,
            color: vec![[0.0; 4]; n],
            depth: vec![f32::INFINITY; n],
            ids: vec![NO_TRIANGLE; n],
            // A pixel has at least one sample.
            depth_bounds: vec![[f32::INFINITY; 2]; n],
            dirty: None,
            color_dirty: false,
        }
    }

    /// Moves clean buffers to `rect`, growing them if needed (contents stay cleared).
    fn place(&mut self, rect: TileRect) {
        let n = (rect.w * rect.h) as usize;
        if self.color.len() < n {
            self.color.resize(n, [0.0; 4]);
            self.depth.resize(n, f32::INFINITY);
            self.ids.resize(n, NO_TRIANGLE);
            self.depth_bounds.resize(n, [f32::INFINITY; 2]);
        }
        self.rect = rect;
    }

    /// Restores the dirty rectangle to the clean state.
    pub(super) fn clear_dirty(&mut self, ssaa: i32) {
        if self.order == SampleOrder::Pixels {
            self.clear_dirty_pixels(ssaa);
            return;
        }
        let Some([x0, y0, x1, y1]) = self.dirty.take() else { return };
        let width = (x1 - x0 + 1) as usize;
        for y in y0..=y1 {
            let start = self.rect.index(x0, y);
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

    /// As [`TileBuffers::clear_dirty`] in pixel-major order: each row of dirty pixels is one
    /// run of each buffer.
    fn clear_dirty_pixels(&mut self, ssaa: i32) {
        self.order = SampleOrder::Rows;
        let Some(pixels) = PixelRect::covering(self.dirty.take(), ssaa) else { return };
        let r = self.rect;
        let (n, wide) = ((ssaa * ssaa) as usize, (r.w / ssaa) as usize);
        let (x0, y0) = (pixels.x0 - (r.x0 / ssaa) as usize, pixels.y0 - (r.y0 / ssaa) as usize);
        for y in y0..y0 + pixels.height {
            let first = y * wide + x0;
            let run = first..first + pixels.width;
            if let Some(d) = self.depth.get_mut(run.start * n..run.end * n) {
                d.fill(f32::INFINITY);
            }
            if let Some(ids) = self.ids.get_mut(run.start * n..run.end * n) {
                ids.fill(NO_TRIANGLE);
            }
            if let Some(bounds) = self.depth_bounds.get_mut(run) {
                bounds.fill([f32::INFINITY; 2]);
            }
        }
    }

    /// The triangle's bounding box within the tile, marked dirty; `None` when they do not meet.
    pub(super) fn touch(&mut self, tri: &Triangle) -> Option<[i32; 4]> {
        let [x0, y0, x1, y1] = self.rect.clip(tri)?;
        let dirty = self.dirty.get_or_insert([x0, y0, x1, y1]);
        *dirty = [dirty[0].min(x0), dirty[1].min(y0), dirty[2].max(x1), dirty[3].max(y1)];
        Some([x0, y0, x1, y1])
    }
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
    out: &mut OutputBand<R::Pixel>,
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
