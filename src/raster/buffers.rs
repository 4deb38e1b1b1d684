//! A tile's sample buffers and the rectangles that address them: plain data, which the
//! passes (`forward`, `visibility`, `msaa`, `deferred`, `resolve`, `count`) read and write
//! and `tile.rs` hands them. Nothing here knows a pass, so every pass can import it.

use super::setup::Triangle;

/// Visibility-buffer entry of a sample no triangle covers.
pub(super) const NO_TRIANGLE: u32 = u32::MAX;

/// A tile's place in the sample grid.
#[derive(Debug, Clone, Copy)]
pub(super) struct TileRect {
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
pub(super) struct TileBuffers {
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
    pub(super) fn place(&mut self, rect: TileRect) {
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

/// The output pixels covering an inclusive sample rectangle, widened to whole pixels.
pub(super) struct PixelRect {
    /// Sample column of the first pixel's first sample.
    pub(super) sx0: i32,
    /// Sample row of the first pixel's first sample.
    pub(super) sy0: i32,
    /// Image column of the first pixel.
    pub(super) x0: usize,
    /// Image row of the first pixel.
    pub(super) y0: usize,
    /// Pixels a row.
    pub(super) width: usize,
    /// Rows.
    pub(super) height: usize,
}

impl PixelRect {
    /// The pixels covering `dirty` at `ssaa` samples per pixel side; `None` when clean.
    pub(super) fn covering(dirty: Option<[i32; 4]>, ssaa: i32) -> Option<PixelRect> {
        let [x0, y0, x1, y1] = dirty?;
        // Tiles start on pixel boundaries, so rounding to multiples of `ssaa` in sample
        // coordinates stays inside the tile.
        let (sx0, sy0) = (x0 - x0.rem_euclid(ssaa), y0 - y0.rem_euclid(ssaa));
        let (sx1, sy1) = (x1 - x1.rem_euclid(ssaa) + ssaa - 1, y1 - y1.rem_euclid(ssaa) + ssaa - 1);
        Some(PixelRect {
            sx0,
            sy0,
            x0: (sx0 / ssaa) as usize,
            y0: (sy0 / ssaa) as usize,
            width: ((sx1 - sx0 + 1) / ssaa) as usize,
            height: ((sy1 - sy0 + 1) / ssaa) as usize,
        })
    }
}
