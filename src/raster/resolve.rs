//! Resolve: each `ssaa × ssaa` block of samples becomes one output pixel, averaged in linear
//! light with premultiplied alpha (so edges neither darken nor brighten), composited over the
//! background and encoded as straight-alpha sRGB bytes.
//!
//! The encoding is a [`Resolve`] implementation chosen by type: colour bytes
//! ([`PixelResolver`]), normal-map bytes ([`NormalResolver`]) or depths ([`DepthResolver`]).
//! Averaging is the same for all three; the draw is generic over it, so the colour path
//! compiles to the code it would be without the others.

use super::buffers::{PixelRect, TileBuffers};
use super::color::{SrgbEncoder, srgb_to_linear, unorm_to_byte};
use super::image::DepthPixel;

/// Turns an averaged sample (premultiplied, as the fragment stage wrote it) into an output
/// pixel.
pub(super) trait Resolve: Sync {
    /// One output pixel.
    type Pixel: Copy + Send;

    /// The pixels of `L` averaged samples, each as it would be alone.
    fn encode_lanes<const L: usize>(&self, colors: &[[f32; 4]; L]) -> [Self::Pixel; L];

    /// The pixel of one averaged sample; `encode([0.0; 4])` is a pixel nothing covers.
    #[inline]
    fn encode(&self, p: [f32; 4]) -> Self::Pixel {
        let [pixel] = self.encode_lanes(&[p]);
        pixel
    }
}

/// The rows of the output image that one row of tiles resolves into: tiles write their pixels
/// straight into the image, and rows of tiles own disjoint rows, so they run in parallel.
pub(super) struct OutputBand<'a, 'p, P> {
    /// The band's rows of pixels, each as wide as the image.
    pub rows: &'a mut [&'p mut [P]],
    /// Image row of the band's first row.
    pub first_row: usize,
}

impl<P> OutputBand<'_, '_, P> {
    /// Pixels `x0..x0 + count` of image row `y`, if inside the band.
    #[inline]
    pub(super) fn pixels(&mut self, x0: usize, y: usize, count: usize) -> Option<&mut [P]> {
        self.rows.get_mut(y.checked_sub(self.first_row)?)?.get_mut(x0..x0 + count)
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

/// A [`Resolve`] that remembers the last colour it encoded: neighbouring pixels are often
/// identical (empty samples, flat fills), and encoding the same value again is skipped.
pub(super) struct MemoEncoder<'a, R: Resolve> {
    resolver: &'a R,
    last: Option<([u32; 4], R::Pixel)>,
}

impl<'a, R: Resolve> MemoEncoder<'a, R> {
    /// An encoder with nothing remembered.
    pub(super) fn new(resolver: &'a R) -> MemoEncoder<'a, R> {
        MemoEncoder { resolver, last: None }
    }

    /// As [`Resolve::encode`].
    #[inline(always)]
    pub(super) fn encode(&mut self, p: [f32; 4]) -> R::Pixel {
        let key = p.map(f32::to_bits);
        let bytes = match self.last {
            Some((k, b)) if k == key => b,
            _ => self.resolver.encode(p),
        };
        self.last = Some((key, bytes));
        bytes
    }
}

/// Averages the colour samples of the tile's dirty rectangle into output pixels.
pub(super) fn resolve_colors<R: Resolve>(
    buffers: &TileBuffers,
    ssaa: i32,
    resolver: &R,
    out: &mut OutputBand<'_, '_, R::Pixel>,
) {
    let Some(rect) = PixelRect::covering(buffers.dirty, ssaa) else { return };
    let r = buffers.rect;
    let s = ssaa as usize;
    let scale = 1.0 / (s * s) as f32;
    let mut encoder = MemoEncoder::new(resolver);
    for oy in 0..rect.height {
        let Some(row) = out.pixels(rect.x0, rect.y0 + oy, rect.width) else { continue };
        let y = rect.sy0 + oy as i32 * ssaa;
        for (ox, px) in row.iter_mut().enumerate() {
            let x = rect.sx0 + ox as i32 * ssaa;
            let first = r.index(x, y);
            let color = if s == 1 {
                buffers.color.get(first).copied().unwrap_or([0.0; 4])
            } else {
                let rows = (0..s).map(|sy| first + sy * r.w as usize);
                average(rows.flat_map(|row| buffers.color.get(row..row + s).unwrap_or(&[])), scale)
            };
            *px = encoder.encode(color);
        }
    }
}

/// Turns an averaged sample (linear, premultiplied) into output bytes over the background.
pub(super) struct PixelResolver {
    background: Option<[f32; 4]>,
    encoder: SrgbEncoder,
}

impl PixelResolver {
    /// A resolver compositing over `background` (sRGB, straight alpha), if any.
    pub(super) fn new(background: Option<[u8; 4]>) -> PixelResolver {
        PixelResolver { background: background.map(linear_background), encoder: SrgbEncoder::new() }
    }
}

/// A background colour (sRGB, straight alpha) as the resolve composites it: linear,
/// premultiplied.
pub(super) fn linear_background(b: [u8; 4]) -> [f32; 4] {
    let a = b[3] as f32 / 255.0;
    [srgb_to_linear(b[0]) * a, srgb_to_linear(b[1]) * a, srgb_to_linear(b[2]) * a, a]
}

impl Resolve for PixelResolver {
    /// Straight-alpha sRGB bytes of a linear premultiplied colour over the background.
    type Pixel = [u8; 4];

    /// In loops over the lanes that compile to vector instructions (all but the table
    /// lookups).
    #[inline(always)]
    #[allow(clippy::needless_range_loop)] // lane loops index several arrays in step
    fn encode_lanes<const L: usize>(&self, colors: &[[f32; 4]; L]) -> [[u8; 4]; L] {
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
                bytes[k] = [r[k], g[k], b[k], alpha_byte(a[k])];
            }
        }
        bytes
    }
}

/// The alpha byte of a coverage: the same for colour and for the maps, so they share alpha.
#[inline(always)]
fn alpha_byte(a: f32) -> u8 {
    if a == 1.0 { 255 } else { unorm_to_byte(a) }
}

/// Normal-map bytes: the averaged normal renormalised (the average of unit normals is shorter
/// than one) and held to the hemisphere facing the viewer (z ≥ 0), encoded `n · 0.5 + 0.5` per
/// channel in view space (x right, y up, z towards the viewer), alpha as the colour's. Uncovered pixels are the flat normal with alpha 0, so an
/// engine filtering across a sprite's edge blends towards "facing the viewer", not towards an
/// arbitrary direction. No background: a map has none.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct NormalResolver;

impl NormalResolver {
    /// The bytes of a pixel nothing covers.
    pub(super) const EMPTY: [u8; 4] = [128, 128, 255, 0];
}

impl Resolve for NormalResolver {
    type Pixel = [u8; 4];

    #[inline(always)]
    fn encode_lanes<const L: usize>(&self, colors: &[[f32; 4]; L]) -> [[u8; 4]; L] {
        colors.map(|[x, y, z, a]| {
            // Interpolated normals at a silhouette can turn away from the viewer; a 2D light
            // has no back side, so the normal is held to the hemisphere that faces the viewer
            // (blue ≥ 128), as SpriteIlluminator's maps are.
            let z = z.max(0.0);
            let len2 = x * x + y * y + z * z;
            if !(a > 0.0 && len2.is_finite()) {
                return NormalResolver::EMPTY;
            }
            if len2 == 0.0 {
                // Edge-on with no direction in the plane: the flat normal.
                return [128, 128, 255, alpha_byte(a)];
            }
            // Dividing by the length also undoes the premultiplication by alpha.
            let scale = 0.5 / len2.sqrt();
            let byte = |c: f32| unorm_to_byte(c * scale + 0.5);
            [byte(x), byte(y), byte(z), alpha_byte(a)]
        })
    }
}

/// Linear view depths, un-premultiplied (the coverage-weighted mean depth of a pixel's
/// samples), with the colour's alpha.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct DepthResolver;

impl Resolve for DepthResolver {
    type Pixel = DepthPixel;

    #[inline(always)]
    fn encode_lanes<const L: usize>(&self, colors: &[[f32; 4]; L]) -> [DepthPixel; L] {
        colors.map(|[d, _, _, a]| {
            let depth = d / a;
            if a > 0.0 && depth.is_finite() { DepthPixel { depth, alpha: alpha_byte(a) } } else { DepthPixel::EMPTY }
        })
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
