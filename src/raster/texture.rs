//! Texture sampling: nearest, bilinear and mipmapped trilinear, with wrap or clamp.
//!
//! A [`MipChain`] is built once per texture: texels are converted to **linear light,
//! premultiplied alpha**, stored in 16 bits a channel, so bilinear weights and mip averaging
//! mix light (not sRGB bytes) and transparent texels do not bleed their colour into opaque
//! neighbours. Each level halves the previous one with a 2×2 box filter (odd sizes clamp the
//! last row/column).

use glam::{Vec2, Vec4};
use rayon::prelude::*;

use super::color::srgb_to_linear;
use super::lanes::{floor_lanes, trunc_lanes};
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

/// One mip level: premultiplied linear RGBA in 16-bit fixed point, 65535 for 1.0. Half the
/// memory and bandwidth of `f32` texels, and its step (1/65535) is finer than the smallest step
/// of an 8-bit sRGB source in linear light (about 1/3300 at black), so filtering loses nothing
/// visible.
#[derive(Debug, Clone)]
struct Level {
    width: usize,
    height: usize,
    /// Row-major.
    texels: Vec<[u16; 4]>,
}

/// What one unit of a [`Level`]'s texels is worth; filters work in units and scale once.
const TEXEL_UNIT: f32 = 1.0 / 65535.0;

impl Level {
    /// The texel at (x, y) in units of [`TEXEL_UNIT`], as a `Vec4` so that filtering runs on all
    /// four channels at once.
    #[inline]
    fn texel(&self, x: usize, y: usize) -> Vec4 {
        // Callers pass wrapped or clamped coordinates; the fallback only guards the invariant.
        let t = self.texels.get(y * self.width + x).copied().unwrap_or_default();
        Vec4::new(t[0] as f32, t[1] as f32, t[2] as f32, t[3] as f32)
    }

    /// A level from `f32` texels in 0..=1 (rounded to the nearest unit).
    fn quantize(level: &FloatLevel) -> Level {
        let unit = |c: f32| (c.clamp(0.0, 1.0) * 65535.0 + 0.5) as u16;
        let texels = level.texels.par_iter().with_min_len(TEXELS_PER_TASK).map(|t| t.to_array().map(unit)).collect();
        Level { width: level.width, height: level.height, texels }
    }
}

/// Texels a task of a chain's making takes at least: tasks of about ten microseconds, so
/// that a 256² skin is shared by 16 threads.
const TEXELS_PER_TASK: usize = 4 * 1024;

/// A mip level while the chain is built: levels are averaged from the previous level's `f32`
/// texels, so rounding to 16 bits does not accumulate down the chain.
struct FloatLevel {
    width: usize,
    height: usize,
    texels: Vec<Vec4>,
}

impl FloatLevel {
    #[inline]
    fn texel(&self, x: usize, y: usize) -> Vec4 {
        self.texels.get(y * self.width + x).copied().unwrap_or(Vec4::ZERO)
    }

    fn half(&self) -> FloatLevel {
        let width = (self.width / 2).max(1);
        let height = (self.height / 2).max(1);
        let texels = (0..width * height)
            .into_par_iter()
            .with_min_len(TEXELS_PER_TASK)
            .map(|i| {
                let (x, y) = (i % width, i / width);
                let (x0, y0) = ((2 * x).min(self.width - 1), (2 * y).min(self.height - 1));
                let (x1, y1) = ((2 * x + 1).min(self.width - 1), (2 * y + 1).min(self.height - 1));
                let mut sum = Vec4::ZERO;
                for t in [self.texel(x0, y0), self.texel(x1, y0), self.texel(x0, y1), self.texel(x1, y1)] {
                    sum += t * 0.25;
                }
                sum
            })
            .collect();
        FloatLevel { width, height, texels }
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
        MipChain::build(texture, wrap, true, None)
    }

    /// As [`MipChain::new`], every texel taken as opaque: what an opaque material samples. A
    /// texel stored with alpha 0 shows its stored colour, as GL and Blender draw an opaque
    /// material, not the black its premultiplied colour would be.
    pub fn without_alpha(texture: &Texture, wrap: bool) -> MipChain {
        MipChain::build(texture, wrap, false, None)
    }

    /// The part of `texture` that glows ([`Texture::glow`]): as [`MipChain::new`] (or
    /// [`MipChain::without_alpha`] where `with_alpha` is false), the colour of every texel
    /// that does not glow black, its alpha kept, so that the two chains filter alike and this
    /// one is the glowing share of the other's colour. `None` for a texture without glow.
    pub fn glow(texture: &Texture, wrap: bool, with_alpha: bool) -> Option<MipChain> {
        let glow = texture.glow.as_deref()?;
        Some(MipChain::build(texture, wrap, with_alpha, Some(glow)))
    }

    /// The chain of `texture`, with its alpha or without; with `only`, the colour of every
    /// texel it does not mark black.
    fn build(texture: &Texture, wrap: bool, with_alpha: bool, only: Option<&[bool]>) -> MipChain {
        let (w, h) = (texture.width.max(1) as usize, texture.height.max(1) as usize);
        // Texel by texel, so the same on any pool: a skin of a few megapixels takes
        // milliseconds a job's first draws would otherwise wait for (see
        // `Renderer::prepare_textures`).
        let texels = (0..w * h)
            .into_par_iter()
            .with_min_len(TEXELS_PER_TASK)
            .map(|i| {
                let p = texture.rgba.get(i * 4..i * 4 + 4).unwrap_or(&[255, 0, 255, 255]);
                let a = if with_alpha { p[3] as f32 / 255.0 } else { 1.0 };
                let shown = only.is_none_or(|marked| marked.get(i).copied().unwrap_or(false));
                let lin = |b: u8| match (shown, texture.srgb) {
                    (false, _) => 0.0,
                    (true, true) => srgb_to_linear(b),
                    (true, false) => b as f32 / 255.0,
                };
                Vec4::new(lin(p[0]) * a, lin(p[1]) * a, lin(p[2]) * a, a)
            })
            .collect();
        let mut level = FloatLevel { width: w, height: h, texels };
        let mut levels = vec![Level::quantize(&level)];
        while level.width > 1 || level.height > 1 {
            level = level.half();
            levels.push(Level::quantize(&level));
        }
        MipChain { levels, wrap }
    }

    /// Bytes the levels hold (what [`Texture::prepared_bytes`] budgets for, besides the RGBA8
    /// texels).
    pub fn bytes(&self) -> u64 {
        self.levels.iter().map(|l| (l.texels.len() * std::mem::size_of::<[u16; 4]>()) as u64).sum()
    }

    /// Width and height of the full-size level.
    pub fn size(&self) -> Vec2 {
        let l = &self.levels[0];
        Vec2::new(l.width as f32, l.height as f32)
    }

    /// The texel indices `i` and `i + 1` of a row or column of `n` texels, wrapped or clamped.
    /// Sampling keeps `i` within `-1..n` when wrapping (uv is reduced to its fractional part
    /// first), so selects replace the integer division of `rem_euclid`; the final clamp only
    /// guards that invariant. `i32` (not `usize`) so that lane loops stay vector code.
    #[inline(always)]
    fn coord_pair(&self, i: i32, n: usize) -> (i32, i32) {
        let n = n as i32;
        let (a, b) =
            if self.wrap { (if i < 0 { n - 1 } else { i }, if i + 1 >= n { 0 } else { i + 1 }) } else { (i, i + 1) };
        (a.clamp(0, n - 1), b.clamp(0, n - 1))
    }

    /// Samples' uv as the filters take them: repeated into 0..1 when wrapping, bounded when
    /// clamping, 0 when not finite.
    #[inline(always)]
    fn reduce<const L: usize>(&self, u: &mut [f32; L], v: &mut [f32; L]) {
        for k in 0..L {
            (u[k], v[k]) = if !(u[k].is_finite() && v[k].is_finite()) {
                (0.0, 0.0)
            } else if self.wrap {
                // Huge coordinates saturate; their fractional part is meaningless anyway.
                (u[k].clamp(-1e6, 1e6), v[k].clamp(-1e6, 1e6))
            } else {
                (u[k].clamp(-1.0, 2.0), v[k].clamp(-1.0, 2.0))
            };
        }
        if self.wrap {
            // Repeat: only the fractional part matters, and it keeps integer maths small.
            let (fu, fv) = (floor_lanes(u), floor_lanes(v));
            for k in 0..L {
                u[k] -= fu[k] as f32;
                v[k] -= fv[k] as f32;
            }
        }
    }

    /// The nearest texel of `level` at the first `count` of `L` reduced points.
    #[inline(always)]
    fn nearest<const L: usize>(&self, level: &Level, u: &[f32; L], v: &[f32; L], count: usize) -> [Vec4; L] {
        // uv ∈ [0, 1] when wrapping, so the index is at most one past the end (wrapped to 0).
        let x = floor_lanes(&u.map(|u| u * level.width as f32));
        let y = floor_lanes(&v.map(|v| v * level.height as f32));
        let mut out = [Vec4::ZERO; L];
        for k in 0..count.min(L) {
            let x = self.coord_pair(x[k] - 1, level.width).1;
            let y = self.coord_pair(y[k] - 1, level.height).1;
            out[k] = level.texel(x as usize, y as usize) * TEXEL_UNIT;
        }
        out
    }

    /// Bilinear filtering of `level` at the first `count` of `L` reduced points: texel
    /// coordinates and weights for all lanes in one vector loop, then the texel reads lane by
    /// lane.
    #[inline(always)]
    fn bilinear<const L: usize>(&self, level: &Level, u: &[f32; L], v: &[f32; L], count: usize) -> [Vec4; L] {
        // Texel centres sit at half-integer coordinates.
        let x = u.map(|u| u * level.width as f32 - 0.5);
        let y = v.map(|v| v * level.height as f32 - 0.5);
        let (x0, y0) = (floor_lanes(&x), floor_lanes(&y));
        let (mut xa, mut xb, mut ya, mut yb) = ([0i32; L], [0i32; L], [0i32; L], [0i32; L]);
        let (mut tx, mut ty) = ([0.0f32; L], [0.0f32; L]);
        for k in 0..L {
            (tx[k], ty[k]) = (x[k] - x0[k] as f32, y[k] - y0[k] as f32);
            (xa[k], xb[k]) = self.coord_pair(x0[k], level.width);
            (ya[k], yb[k]) = self.coord_pair(y0[k], level.height);
        }
        let mut out = [Vec4::ZERO; L];
        for k in 0..count.min(L) {
            let (xa, xb, ya, yb) = (xa[k] as usize, xb[k] as usize, ya[k] as usize, yb[k] as usize);
            let (a, b) = (level.texel(xa, ya), level.texel(xb, ya));
            let (c, d) = (level.texel(xa, yb), level.texel(xb, yb));
            let top = a + (b - a) * tx[k];
            let bottom = c + (d - c) * tx[k];
            out[k] = (top + (bottom - top) * ty[k]) * TEXEL_UNIT;
        }
        out
    }

    /// Samples at `uv` ((0,0) = top-left). `footprint_squared` is the square of the larger
    /// screen-space derivative of `uv` in texels of the full-size level (how many texels one
    /// pixel spans); only trilinear filtering uses it. Returns premultiplied linear RGBA.
    #[inline]
    pub fn sample(&self, filter: Filter, uv: Vec2, footprint_squared: f32) -> [f32; 4] {
        let [texel] = self.sample_lanes(filter, [uv.x], [uv.y], [footprint_squared], 1);
        texel
    }

    /// [`MipChain::sample`] at the first `count` of `L` points (`u`, `v`, `footprint_squared`
    /// by lane); the other lanes come back transparent. The same arithmetic per point as one
    /// sample alone, with the coordinate maths of all lanes in vector loops.
    #[inline]
    pub fn sample_lanes<const L: usize>(
        &self,
        filter: Filter,
        u: [f32; L],
        v: [f32; L],
        footprint_squared: [f32; L],
        count: usize,
    ) -> [[f32; 4]; L] {
        let (mut u, mut v) = (u, v);
        self.reduce(&mut u, &mut v);
        let texels = match filter {
            Filter::Nearest => self.nearest(&self.levels[0], &u, &v, count),
            Filter::Bilinear => self.bilinear(&self.levels[0], &u, &v, count),
            Filter::Trilinear => self.trilinear(&u, &v, &footprint_squared, count),
        };
        texels.map(|t| t.to_array())
    }

    /// Trilinear filtering: bilinear on the two mip levels around each point's level of
    /// detail, blended by its fraction. Lanes that share their levels (nearly always: the
    /// footprint changes slowly across a span) are filtered together.
    #[inline(always)]
    #[allow(clippy::needless_range_loop)] // lane loops index several arrays in step
    fn trilinear<const L: usize>(
        &self,
        u: &[f32; L],
        v: &[f32; L],
        footprint_squared: &[f32; L],
        count: usize,
    ) -> [Vec4; L] {
        let count = count.min(L);
        // A footprint of at most one texel is magnified: level 0 alone, as the general path
        // below would find lane by lane (lod 0, no blend). Most pixels of a close-up are.
        if footprint_squared[..count].iter().all(|&f| f <= 1.0) {
            return self.bilinear(&self.levels[0], u, v, count);
        }
        let last = (self.levels.len() - 1) as f32;
        let mut lod = [0.0f32; L];
        for k in 0..count {
            let f = footprint_squared[k];
            // log2 of the footprint, from its square without a square root.
            lod[k] = (if f > 1.0 { 0.5 * f.log2() } else { 0.0 }).min(last);
        }
        // lod ≥ 0 (or NaN, which saturates to level 0): truncation is the floor. In `i32`
        // lanes, which convert in vector instructions (`usize` ones convert one at a time).
        let level = trunc_lanes(&lod);
        let t: [f32; L] = std::array::from_fn(|k| lod[k] - level[k] as f32);
        let first = level[0];
        if level[..count].iter().all(|&l| l == first) {
            return self.two_levels(first as usize, u, v, &t, count);
        }
        // Lanes on different levels: one at a time.
        let mut out = [Vec4::ZERO; L];
        for k in 0..count {
            [out[k]] = self.two_levels(level[k] as usize, &[u[k]], &[v[k]], &[t[k]], 1);
        }
        out
    }

    /// Bilinear on level `i`, blended towards level `i + 1` by `t` where `t` > 0.
    #[inline(always)]
    fn two_levels<const L: usize>(
        &self,
        i: usize,
        u: &[f32; L],
        v: &[f32; L],
        t: &[f32; L],
        count: usize,
    ) -> [Vec4; L] {
        let mut out = self.bilinear(&self.levels[i], u, v, count);
        if i + 1 < self.levels.len() && t[..count].iter().any(|&t| t > 0.0) {
            let coarser = self.bilinear(&self.levels[i + 1], u, v, count);
            for k in 0..count {
                if t[k] > 0.0 {
                    out[k] = out[k] + (coarser[k] - out[k]) * t[k];
                }
            }
        }
        out
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
        let top = chain.levels[3].texel(0, 0) * TEXEL_UNIT;
        assert!((top[0] - 0.5).abs() <= TEXEL_UNIT, "{top:?}");
    }

    #[test]
    fn prepared_bytes_is_what_the_chain_and_texels_hold() {
        for (w, h) in [(1, 1), (8, 8), (13, 6), (1, 300), (640, 480)] {
            let texture = Texture::new(w, h, vec![255; (w * h * 4) as usize], true).unwrap();
            let chain = MipChain::new(&texture, true);
            assert_eq!(chain.bytes() + texture.rgba.len() as u64, Texture::prepared_bytes(w, h), "{w}x{h}");
        }
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
    fn lanes_sample_each_point_as_one_point_alone() {
        // Texels that all differ, so a lane reading its neighbour's texels would show.
        let (w, h) = (13u32, 6u32);
        let rgba = (0..w * h)
            .flat_map(|i| [(i * 37 % 256) as u8, (i * 91 % 256) as u8, (i * 11) as u8, 128 + (i % 128) as u8]);
        let texture = Texture::new(w, h, rgba.collect(), true).unwrap();
        // Inside, outside either side, on texel edges, huge, not finite.
        let u = [0.1, 0.37, -0.2, 1.3, 0.5, 0.0, 1.0, 0.99, 7.25, -3.6, 1e30, f32::NAN, 0.23, 0.61, 0.77, 0.05];
        let v = [0.2, 0.9, 0.4, -0.7, 0.5, 1.0, 0.0, 0.01, 0.3, 2.2, 0.5, 0.5, f32::INFINITY, 0.48, 0.12, 0.66];
        // One level for all lanes (magnified), and lanes on different levels.
        let magnified = [0.25; 16];
        let mixed = [0.5, 1.0, 2.0, 3.7, 9.0, 17.0, 40.0, 150.0, 0.0, 1.5, 5.0, f32::NAN, 1e30, 64.0, 2.5, 0.9];
        for wrap in [true, false] {
            let chain = MipChain::new(&texture, wrap);
            for filter in [Filter::Nearest, Filter::Bilinear, Filter::Trilinear] {
                for footprint in [magnified, mixed] {
                    for count in [16, 11] {
                        let lanes = chain.sample_lanes(filter, u, v, footprint, count);
                        for k in 0..16 {
                            let one = if k < count {
                                chain.sample(filter, Vec2::new(u[k], v[k]), footprint[k])
                            } else {
                                [0.0; 4]
                            };
                            assert_eq!(
                                lanes[k].map(f32::to_bits),
                                one.map(f32::to_bits),
                                "{filter:?} wrap {wrap} lane {k}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn trilinear_where_magnified_is_bilinear_on_the_full_size_level() {
        let (w, h) = (9u32, 7u32);
        let rgba = (0..w * h).flat_map(|i| [(i * 53 % 256) as u8, (i * 17 % 256) as u8, (i * 29) as u8, 255]);
        let chain = MipChain::new(&Texture::new(w, h, rgba.collect(), true).unwrap(), true);
        let u = [0.1, 0.37, 0.52, 0.9, 0.05, 0.66, 0.71, 0.2];
        let v = [0.3, 0.8, 0.12, 0.45, 0.99, 0.5, 0.02, 0.6];
        let bits = |t: [[f32; 4]; 8]| t.map(|t| t.map(f32::to_bits));
        let bilinear = bits(chain.sample_lanes(Filter::Bilinear, u, v, [0.0; 8], 8));
        // Every lane magnified (a footprint of one texel at most), or all but one.
        let magnified = [0.0, 0.25, 1.0, 0.5, 0.9, 1.0, 0.01, 0.75];
        assert_eq!(bits(chain.sample_lanes(Filter::Trilinear, u, v, magnified, 8)), bilinear);
        let mut one_minified = magnified;
        one_minified[3] = 6.0;
        let mixed = bits(chain.sample_lanes(Filter::Trilinear, u, v, one_minified, 8));
        for k in 0..8 {
            assert_eq!(mixed[k] == bilinear[k], k != 3, "lane {k}");
        }
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
