//! Texture sampling: nearest, bilinear and mipmapped trilinear, with wrap or clamp.
//!
//! A [`MipChain`] is built once per texture: texels are converted to **linear light,
//! premultiplied alpha** `f32`, so bilinear weights and mip averaging mix light (not sRGB bytes)
//! and transparent texels do not bleed their colour into opaque neighbours. Each level halves
//! the previous one with a 2×2 box filter (odd sizes clamp the last row/column).

use glam::{Vec2, Vec4};

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

/// `floor(x)` as an integer without the libm call (`f32::floor` is one on baseline x86-64):
/// truncate, then step down when truncation rounded a negative value up. Saturates like `as`.
#[inline(always)]
fn floor_to_i32(x: f32) -> i32 {
    let t = x as i32;
    t - ((t as f32) > x) as i32
}

/// One mip level: premultiplied linear RGBA.
#[derive(Debug, Clone)]
struct Level {
    width: usize,
    height: usize,
    /// Row-major; `Vec4` so that filtering runs on all four channels at once.
    texels: Vec<Vec4>,
}

impl Level {
    #[inline]
    fn texel(&self, x: usize, y: usize) -> Vec4 {
        // Callers pass wrapped or clamped coordinates; the fallback only guards the invariant.
        self.texels.get(y * self.width + x).copied().unwrap_or(Vec4::ZERO)
    }

    fn half(&self) -> Level {
        let width = (self.width / 2).max(1);
        let height = (self.height / 2).max(1);
        let mut texels = Vec::with_capacity(width * height);
        for y in 0..height {
            for x in 0..width {
                let (x0, y0) = ((2 * x).min(self.width - 1), (2 * y).min(self.height - 1));
                let (x1, y1) = ((2 * x + 1).min(self.width - 1), (2 * y + 1).min(self.height - 1));
                let mut sum = Vec4::ZERO;
                for t in [self.texel(x0, y0), self.texel(x1, y0), self.texel(x0, y1), self.texel(x1, y1)] {
                    sum += t * 0.25;
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
                Vec4::new(lin(p[0]) * a, lin(p[1]) * a, lin(p[2]) * a, a)
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

    /// The texel indices `i` and `i + 1` of a row or column of `n` texels, wrapped or clamped.
    /// Sampling keeps `i` within `-1..n` when wrapping (uv is reduced to its fractional part
    /// first), so selects replace the integer division of `rem_euclid`; the final clamp only
    /// guards that invariant.
    #[inline(always)]
    fn coord_pair(&self, i: i32, n: usize) -> (usize, usize) {
        let n = n as i32;
        let (a, b) =
            if self.wrap { (if i < 0 { n - 1 } else { i }, if i + 1 >= n { 0 } else { i + 1 }) } else { (i, i + 1) };
        (a.clamp(0, n - 1) as usize, b.clamp(0, n - 1) as usize)
    }

    #[inline(always)]
    fn nearest(&self, level: &Level, uv: Vec2) -> Vec4 {
        // uv ∈ [0, 1] when wrapping, so the index is at most one past the end (wrapped to 0).
        let x = self.coord_pair(floor_to_i32(uv.x * level.width as f32) - 1, level.width).1;
        let y = self.coord_pair(floor_to_i32(uv.y * level.height as f32) - 1, level.height).1;
        level.texel(x, y)
    }

    #[inline(always)]
    fn bilinear(&self, level: &Level, uv: Vec2) -> Vec4 {
        // Texel centres sit at half-integer coordinates.
        let x = uv.x * level.width as f32 - 0.5;
        let y = uv.y * level.height as f32 - 0.5;
        let (x0, y0) = (floor_to_i32(x), floor_to_i32(y));
        let (tx, ty) = (x - x0 as f32, y - y0 as f32);
        let (xa, xb) = self.coord_pair(x0, level.width);
        let (ya, yb) = self.coord_pair(y0, level.height);
        let (a, b) = (level.texel(xa, ya), level.texel(xb, ya));
        let (c, d) = (level.texel(xa, yb), level.texel(xb, yb));
        let top = a + (b - a) * tx;
        let bottom = c + (d - c) * tx;
        top + (bottom - top) * ty
    }

    /// Samples at `uv` ((0,0) = top-left). `footprint_squared` is the square of the larger
    /// screen-space derivative of `uv` in texels of the full-size level (how many texels one
    /// pixel spans); only trilinear filtering uses it. Returns premultiplied linear RGBA.
    #[inline]
    pub fn sample(&self, filter: Filter, uv: Vec2, footprint_squared: f32) -> [f32; 4] {
        let uv = if !uv.is_finite() {
            Vec2::ZERO
        } else if self.wrap {
            // Repeat: only the fractional part matters, and it keeps integer maths small. Huge
            // coordinates saturate; their fractional part is meaningless anyway.
            let u = uv.clamp(Vec2::splat(-1e6), Vec2::splat(1e6));
            u - Vec2::new(floor_to_i32(u.x) as f32, floor_to_i32(u.y) as f32)
        } else {
            uv.clamp(Vec2::splat(-1.0), Vec2::splat(2.0))
        };
        match filter {
            Filter::Nearest => self.nearest(&self.levels[0], uv).to_array(),
            Filter::Bilinear => self.bilinear(&self.levels[0], uv).to_array(),
            Filter::Trilinear => {
                // log2 of the footprint, from its square without a square root.
                let lod = if footprint_squared > 1.0 { 0.5 * footprint_squared.log2() } else { 0.0 };
                let max = (self.levels.len() - 1) as f32;
                let lod = lod.min(max);
                // lod ≥ 0 (or NaN, which saturates to level 0): truncation is the floor.
                let base = (lod as usize) as f32;
                let t = lod - base;
                let i = lod as usize;
                let a = self.bilinear(&self.levels[i], uv);
                if t <= 0.0 || i + 1 >= self.levels.len() {
                    return a.to_array();
                }
                let b = self.bilinear(&self.levels[i + 1], uv);
                (a + (b - a) * t).to_array()
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
