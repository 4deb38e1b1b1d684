//! Resolve: each `ssaa × ssaa` block of samples becomes one output pixel, averaged in linear
//! light with premultiplied alpha (so edges neither darken nor brighten), composited over the
//! background and encoded as straight-alpha sRGB bytes.

use super::color::{SrgbEncoder, srgb_to_linear, unorm_to_byte};
use super::tile::TileBuffers;

/// The rows of the output image that one row of tiles resolves into: tiles write their pixels
/// straight into the image, and rows of tiles own disjoint rows, so they run in parallel.
pub struct OutputBand<'a> {
    /// The band's bytes, straight-alpha sRGB RGBA, `width` pixels a row.
    pub rgba: &'a mut [u8],
    /// Image width in pixels.
    pub width: usize,
    /// Image row of the band's first row.
    pub first_row: usize,
}

impl OutputBand<'_> {
    /// The bytes of pixels `x0..x0 + count` of image row `y`, if inside the band.
    #[inline]
    pub(super) fn pixels(&mut self, x0: usize, y: usize, count: usize) -> Option<&mut [u8]> {
        let start = (y.checked_sub(self.first_row)? * self.width + x0) * 4;
        self.rgba.get_mut(start..start + count * 4)
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

/// The average of `colors`, summed in order and scaled by `scale` (one over their count).
#[inline(always)]
pub(super) fn average<'c>(colors: impl Iterator<Item = &'c [f32; 4]>, scale: f32) -> [f32; 4] {
    let mut p = [0.0f32; 4];
    for color in colors {
        for c in 0..4 {
            p[c] += color[c];
        }
    }
    p.map(|v| v * scale)
}

/// A [`PixelResolver`] that remembers the last colour it encoded: neighbouring pixels are often
/// identical (empty samples, flat fills), and encoding the same value again is skipped.
pub(super) struct MemoEncoder<'a> {
    resolver: &'a PixelResolver,
    last: Option<([u32; 4], [u8; 4])>,
}

impl<'a> MemoEncoder<'a> {
    /// An encoder with nothing remembered.
    pub(super) fn new(resolver: &'a PixelResolver) -> MemoEncoder<'a> {
        MemoEncoder { resolver, last: None }
    }

    /// As [`PixelResolver::encode`].
    #[inline(always)]
    pub(super) fn encode(&mut self, p: [f32; 4]) -> [u8; 4] {
        let key = p.map(f32::to_bits);
        let bytes = match self.last {
            Some((k, b)) if k == key => b,
            _ => self.resolver.encode(p),
        };
        self.last = Some((key, bytes));
        bytes
    }
}

impl TileBuffers {
    /// Averages the colour samples of the dirty rectangle into output pixels.
    pub(super) fn resolve_colors(&self, ssaa: i32, resolver: &PixelResolver, out: &mut OutputBand) {
        let Some(rect) = PixelRect::covering(self.dirty, ssaa) else { return };
        let r = self.rect;
        let s = ssaa as usize;
        let scale = 1.0 / (s * s) as f32;
        let mut encoder = MemoEncoder::new(resolver);
        for oy in 0..rect.height {
            let Some(row) = out.pixels(rect.x0, rect.y0 + oy, rect.width) else { continue };
            let y = rect.sy0 + oy as i32 * ssaa;
            for (ox, px) in row.chunks_exact_mut(4).enumerate() {
                let x = rect.sx0 + ox as i32 * ssaa;
                let first = ((y - r.y0) * r.w + (x - r.x0)) as usize;
                let color = if s == 1 {
                    self.color.get(first).copied().unwrap_or([0.0; 4])
                } else {
                    let rows = (0..s).map(|sy| first + sy * r.w as usize);
                    average(rows.flat_map(|row| self.color.get(row..row + s).unwrap_or(&[])), scale)
                };
                px.copy_from_slice(&encoder.encode(color));
            }
        }
    }
}

/// Turns an averaged sample (linear, premultiplied) into output bytes over the background.
pub struct PixelResolver {
    background: Option<[f32; 4]>,
    encoder: SrgbEncoder,
}

impl PixelResolver {
    /// A resolver compositing over `background` (sRGB, straight alpha), if any.
    pub fn new(background: Option<[u8; 4]>) -> PixelResolver {
        let background = background.map(|b| {
            let a = b[3] as f32 / 255.0;
            [srgb_to_linear(b[0]) * a, srgb_to_linear(b[1]) * a, srgb_to_linear(b[2]) * a, a]
        });
        PixelResolver { background, encoder: SrgbEncoder::new() }
    }

    /// Straight-alpha sRGB bytes of a linear premultiplied colour over the background.
    #[inline]
    pub fn encode(&self, p: [f32; 4]) -> [u8; 4] {
        let [bytes] = self.encode_lanes(&[p]);
        bytes
    }

    /// [`PixelResolver::encode`] for `L` colours, in loops over the lanes that compile to
    /// vector instructions (all but the table lookups).
    #[inline(always)]
    #[allow(clippy::needless_range_loop)] // lane loops index several arrays in step
    pub fn encode_lanes<const L: usize>(&self, colors: &[[f32; 4]; L]) -> [[u8; 4]; L] {
        let (mut r, mut g, mut b, mut a) = ([0.0; L], [0.0; L], [0.0; L], [0.0; L]);
        for k in 0..L {
            let mut p = colors[k];
            if let Some(bg) = self.background {
                let behind = 1.0 - p[3];
                p = [p[0] + bg[0] * behind, p[1] + bg[1] * behind, p[2] + bg[2] * behind, p[3] + bg[3] * behind];
            }
            // Opaque (most pixels): un-premultiplying would divide by one. A transparent
            // colour's channels are computed but not used.
            let inv = if p[3] == 1.0 { 1.0 } else { 1.0 / p[3] };
            (r[k], g[k], b[k], a[k]) = (p[0] * inv, p[1] * inv, p[2] * inv, p[3]);
        }
        let e = self.encoder;
        let (r, g, b) = (e.encode_lanes(&r), e.encode_lanes(&g), e.encode_lanes(&b));
        let mut bytes = [[0; 4]; L];
        for k in 0..L {
            if a[k] > 0.0 {
                let alpha = if a[k] == 1.0 { 255 } else { unorm_to_byte(a[k]) };
                bytes[k] = [r[k], g[k], b[k], alpha];
            }
        }
        bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lanes_encode_each_colour_as_one_colour_alone() {
        // Opaque, translucent, transparent, out of range and NaN, premultiplied linear.
        let colors: [[f32; 4]; 7] = [
            [0.2, 0.5, 0.9, 1.0],
            [0.1, 0.05, 0.2, 0.4],
            [0.0; 4],
            [1.5, -0.2, 0.3, 1.0],
            [f32::NAN, 0.5, 0.5, 1.0],
            [0.3, 0.3, 0.3, 1e-6],
            [0.5, 0.5, 0.5, f32::NAN],
        ];
        for background in [None, Some([40, 90, 200, 255]), Some([255, 0, 0, 100])] {
            let resolver = PixelResolver::new(background);
            let lanes = resolver.encode_lanes(&colors);
            for (k, color) in colors.iter().enumerate() {
                assert_eq!(lanes[k], resolver.encode(*color), "{background:?} colour {k}");
            }
        }
        // The scalar path still gives the bytes one expects of it.
        assert_eq!(PixelResolver::new(None).encode([0.0, 0.0, 1.0, 1.0]), [0, 0, 255, 255]);
        assert_eq!(PixelResolver::new(None).encode([0.0, 0.0, 0.0, 0.0]), [0, 0, 0, 0]);
    }
}
