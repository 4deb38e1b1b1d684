//! Texture sampling: nearest, bilinear and mipmapped trilinear, with wrap or clamp.
//!
//! A [`MipChain`] is built once per texture: texels are converted to **linear light,
//! premultiplied alpha** `f32`, so bilinear weights and mip averaging mix light (not sRGB bytes)
//! and transparent texels do not bleed their colour into opaque neighbours. Each level halves
//! the previous one with a 2×2 box filter (odd sizes clamp the last row/column).

use glam::Vec2;

use super::color::srgb_to_linear;
use crate::model::Texture;

/// Texture filtering.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Filter {
    /// The nearest texel of the full-size image (crisp, aliases when minified).
    Nearest,
    /// Bilinear on the full-size image.
    Bilinear,
    /// Bilinear on the two nearest mip levels, blended by level of detail (the default).
    #[default]
    Trilinear,
}

/// One mip level: premultiplied linear RGBA.
#[derive(Debug, Clone)]
struct Level {
    width: usize,
    height: usize,
    texels: Vec<[f32; 4]>,
}

impl Level {
    #[inline]
    fn texel(&self, x: usize, y: usize) -> [f32; 4] {
        // Callers pass wrapped or clamped coordinates; the fallback only guards the invariant.
        self.texels.get(y * self.width + x).copied().unwrap_or([0.0; 4])
    }

    fn half(&self) -> Level {
        let width = (self.width / 2).max(1);
        let height = (self.height / 2).max(1);
        let mut texels = Vec::with_capacity(width * height);
        for y in 0..height {
            for x in 0..width {
                let (x0, y0) = ((2 * x).min(self.width - 1), (2 * y).min(self.height - 1));
                let (x1, y1) = ((2 * x + 1).min(self.width - 1), (2 * y + 1).min(self.height - 1));
                let mut sum = [0.0f32; 4];
                for t in [self.texel(x0, y0), self.texel(x1, y0), self.texel(x0, y1), self.texel(x1, y1)] {
                    for c in 0..4 {
                        sum[c] += t[c] * 0.25;
                    }
                }
                texels.push(sum);
            }
        }
        Level { width, height, texels }
    }
}

/// A texture prepared for sampling: linear premultiplied levels, full size first.
#[derive(Debug, Clone)]
pub struct MipChain {
    levels: Vec<Level>,
    wrap: bool,
}

impl MipChain {
    /// Prepares `texture`; `wrap` repeats it outside 0..1, otherwise edges are clamped.
    pub fn new(texture: &Texture, wrap: bool) -> MipChain {
        let (w, h) = (texture.width.max(1) as usize, texture.height.max(1) as usize);
        let texels = (0..w * h)
            .map(|i| {
                let p = texture.rgba.get(i * 4..i * 4 + 4).unwrap_or(&[255, 0, 255, 255]);
                let a = p[3] as f32 / 255.0;
                let lin = |b: u8| if texture.srgb { srgb_to_linear(b) } else { b as f32 / 255.0 };
                [lin(p[0]) * a, lin(p[1]) * a, lin(p[2]) * a, a]
            })
            .collect();
        let mut levels = vec![Level { width: w, height: h, texels }];
        while let Some(last) = levels.last().filter(|l| l.width > 1 || l.height > 1) {
            let next = last.half();
            levels.push(next);
        }
        MipChain { levels, wrap }
    }

    /// Width and height of the full-size level.
    pub fn size(&self) -> Vec2 {
        let l = &self.levels[0];
        Vec2::new(l.width as f32, l.height as f32)
    }

    #[inline]
    fn coord(&self, i: i64, n: usize) -> usize {
        let n = n as i64;
        (if self.wrap { i.rem_euclid(n) } else { i.clamp(0, n - 1) }) as usize
    }

    fn nearest(&self, level: &Level, uv: Vec2) -> [f32; 4] {
        let x = (uv.x * level.width as f32).floor();
        let y = (uv.y * level.height as f32).floor();
        // Saturating casts turn huge or NaN coordinates into finite indices.
        level.texel(self.coord(x as i64, level.width), self.coord(y as i64, level.height))
    }

    fn bilinear(&self, level: &Level, uv: Vec2) -> [f32; 4] {
        // Texel centres sit at half-integer coordinates.
        let x = uv.x * level.width as f32 - 0.5;
        let y = uv.y * level.height as f32 - 0.5;
        let (fx, fy) = (x.floor(), y.floor());
        let (tx, ty) = (x - fx, y - fy);
        let (x0, y0) = (fx as i64, fy as i64);
        let (x0w, x1w) = (self.coord(x0, level.width), self.coord(x0 + 1, level.width));
        let (y0w, y1w) = (self.coord(y0, level.height), self.coord(y0 + 1, level.height));
        let (a, b) = (level.texel(x0w, y0w), level.texel(x1w, y0w));
        let (c, d) = (level.texel(x0w, y1w), level.texel(x1w, y1w));
        let mut out = [0.0; 4];
        for i in 0..4 {
            let top = a[i] + (b[i] - a[i]) * tx;
            let bottom = c[i] + (d[i] - c[i]) * tx;
            out[i] = top + (bottom - top) * ty;
        }
        out
    }

    /// Samples at `uv` ((0,0) = top-left). `footprint` is the larger screen-space derivative of
    /// `uv` in texels of the full-size level (how many texels one pixel spans); only trilinear
    /// filtering uses it. Returns premultiplied linear RGBA.
    pub fn sample(&self, filter: Filter, uv: Vec2, footprint: f32) -> [f32; 4] {
        let uv = if !uv.is_finite() {
            Vec2::ZERO
        } else if self.wrap {
            // Repeat: only the fractional part matters, and it keeps integer maths small.
            uv - uv.floor()
        } else {
            uv.clamp(Vec2::splat(-1.0), Vec2::splat(2.0))
        };
        match filter {
            Filter::Nearest => self.nearest(&self.levels[0], uv),
            Filter::Bilinear => self.bilinear(&self.levels[0], uv),
            Filter::Trilinear => {
                let lod = if footprint > 1.0 { footprint.log2() } else { 0.0 };
                let max = (self.levels.len() - 1) as f32;
                let lod = lod.min(max);
                let base = lod.floor();
                let t = lod - base;
                let i = base as usize;
                let a = self.bilinear(&self.levels[i], uv);
                if t <= 0.0 || i + 1 >= self.levels.len() {
                    return a;
                }
                let b = self.bilinear(&self.levels[i + 1], uv);
                [0, 1, 2, 3].map(|c| a[c] + (b[c] - a[c]) * t)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn checker(n: u32) -> Texture {
        let mut rgba = Vec::new();
        for y in 0..n {
            for x in 0..n {
                let v = if (x + y) % 2 == 0 { 255 } else { 0 };
                rgba.extend_from_slice(&[v, v, v, 255]);
            }
        }
        Texture::new(n, n, rgba, true).unwrap()
    }

    #[test]
    fn mip_levels_average_in_linear_light() {
        let chain = MipChain::new(&checker(8), true);
        assert_eq!(chain.levels.len(), 4);
        // Black and white average to 0.5 linear (sRGB ~188), not sRGB 128.
        let top = chain.levels[3].texel(0, 0);
        assert!((top[0] - 0.5).abs() < 1e-6, "{top:?}");
    }

    #[test]
    fn bilinear_hits_texel_centres_exactly_and_wraps() {
        let chain = MipChain::new(&checker(4), true);
        let at = |u: f32, v: f32| chain.sample(Filter::Bilinear, Vec2::new(u, v), 1.0)[0];
        assert_eq!(at(0.125, 0.125), 1.0);
        assert_eq!(at(0.375, 0.125), 0.0);
        // Halfway between texel 3 and (wrapped) texel 0 of row 0: black and white → 0.5.
        assert!((at(1.0, 0.125) - 0.5).abs() < 1e-6);
        let clamped = MipChain::new(&checker(4), false);
        assert_eq!(clamped.sample(Filter::Bilinear, Vec2::new(1.0, 0.125), 1.0)[0], 0.0);
    }

    #[test]
    fn nan_coordinates_do_not_panic() {
        let chain = MipChain::new(&checker(4), false);
        for f in [Filter::Nearest, Filter::Bilinear, Filter::Trilinear] {
            let _ = chain.sample(f, Vec2::new(f32::NAN, f32::INFINITY), f32::NAN);
            let _ = chain.sample(f, Vec2::new(1e30, -1e30), 1e30);
        }
    }
}
