//! The pixel-art downscale: a render `factor` times larger becomes one pixel per
//! `factor`×`factor` block, with hard edges (alpha 0 or 255: opaque when at least half the
//! block is covered).
//!
//! * **By area** (the default): the block's mean colour in linear light, each sample weighted
//!   by its alpha (premultiplied, so uncovered samples add nothing), divided by the block's
//!   coverage and encoded to sRGB. A textured model keeps its colours from frame to frame:
//!   a block no longer shows whichever texel its most frequent colour happens to be.
//! * **By mode**: the block's most frequent colour. On a texture every sample differs, so it
//!   is in effect the block's first sample, which flickers as the model moves; it stays for
//!   untextured, flat- or toon-shaded models, whose exact colours it keeps.
//!
//! Each block is computed on its own, its samples in a fixed order, so the image is the same
//! for any thread count. The palette ([`crate::bake::look::palette`]) comes after, over every image of
//! the output.
//!
//! Rejected alternative: averaging the sRGB bytes. Every mix would come out too dark (black
//! and white give 128 instead of the 188 that is half the light), as in any filter that
//! ignores the transfer curve.

use crate::raster::{Image, linear_to_srgb, srgb_to_linear};
use crate::spec::PixelArtFilter;

/// Downscales by an integer `factor` with hard edges for pixel art: each `factor`×`factor`
/// block becomes one pixel, opaque when at least half the block is covered, else transparent;
/// `filter` picks its colour (the block's mean in linear light, or its most frequent colour).
/// Alpha stays 0 or 255. Each block is computed on its own, its samples in a fixed order, so
/// the result does not depend on the thread count.
pub fn pixelate(image: &Image, factor: u32, filter: PixelArtFilter) -> Image {
    let f = factor.max(1);
    let (w, h) = (image.width / f, image.height / f);
    let mut rgba = Vec::with_capacity((w * h * 4) as usize);
    for by in 0..h {
        for bx in 0..w {
            let samples = block(bx, by, f).map(|(x, y)| image.pixel(x, y).unwrap_or([0; 4]));
            rgba.extend_from_slice(&match filter {
                PixelArtFilter::Area => area_pixel(samples, f),
                PixelArtFilter::Mode => mode_pixel(samples, f),
            });
        }
    }
    Image { width: w, height: h, rgba }
}

/// The pixels (x, y) of block (`bx`, `by`) of a render `f` times larger, row by row.
pub(in crate::bake) fn block(bx: u32, by: u32, f: u32) -> impl Iterator<Item = (u32, u32)> {
    (by * f..(by + 1) * f).flat_map(move |y| (bx * f..(bx + 1) * f).map(move |x| (x, y)))
}

/// One pixel-art pixel from the `f`×`f` `samples` of its block, by area: the mean colour in
/// linear light, each sample weighted by its alpha (premultiplied, so uncovered samples add
/// nothing and do not darken it), divided by the block's coverage and encoded to sRGB.
/// Opaque when the alphas add up to at least half the block.
fn area_pixel(samples: impl Iterator<Item = [u8; 4]>, f: u32) -> [u8; 4] {
    let (mut premultiplied, mut alpha_sum) = ([0.0f32; 3], 0u32);
    for p in samples {
        let a = f32::from(p[3]) / 255.0;
        for (sum, &c) in premultiplied.iter_mut().zip(&p) {
            *sum += srgb_to_linear(c) * a;
        }
        alpha_sum += u32::from(p[3]);
    }
    // Integer test, so exactly half a block is opaque on every platform.
    if 2 * alpha_sum < 255 * f * f {
        return [0; 4];
    }
    let coverage = alpha_sum as f32 / 255.0;
    let [r, g, b] = premultiplied.map(|sum| linear_to_srgb(sum / coverage));
    [r, g, b, 255]
}

/// One pixel-art pixel from the `f`×`f` `samples` of its block, by mode: the most frequent
/// colour among the samples with alpha ≥ 128, opaque when they are at least half the block.
/// Keeps a flat-shaded model's colours exactly; on a texture it is in effect one sample.
fn mode_pixel(samples: impl Iterator<Item = [u8; 4]>, f: u32) -> [u8; 4] {
    let mut colours: Vec<([u8; 4], u32)> = Vec::new();
    let mut opaque = 0;
    for p in samples.filter(|p| p[3] >= 128) {
        opaque += 1;
        let key = [p[0], p[1], p[2], 255];
        match colours.iter_mut().find(|c| c.0 == key) {
            Some(c) => c.1 += 1,
            None => colours.push((key, 1)),
        }
    }
    // Ties go to the first colour met, so the result is deterministic.
    let best = colours.iter().fold(None::<&([u8; 4], u32)>, |b, c| match b {
        Some(b) if b.1 >= c.1 => Some(b),
        _ => Some(c),
    });
    match best {
        Some((c, _)) if opaque * 2 >= f * f => *c,
        _ => [0; 4],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `w`×`h` image whose pixel (x, y) is `pixel(x, y)`.
    fn image_of(w: u32, h: u32, pixel: impl Fn(u32, u32) -> [u8; 4]) -> Image {
        let rgba = (0..h).flat_map(|y| (0..w).map(move |x| (x, y))).flat_map(|(x, y)| pixel(x, y)).collect();
        Image::from_rgba(w, h, rgba).unwrap()
    }

    #[test]
    fn pixelate_keeps_hard_edges() {
        // Three opaque columns of four: the second block is half opaque, so it is kept.
        let img = image_of(4, 4, |x, _| if x < 3 { [10, 20, 30, 255] } else { [0; 4] });
        for filter in [PixelArtFilter::Area, PixelArtFilter::Mode] {
            let small = pixelate(&img, 2, filter);
            assert_eq!(small.pixel(0, 0).unwrap(), [10, 20, 30, 255], "{filter:?}");
            assert_eq!(small.pixel(1, 0).unwrap(), [10, 20, 30, 255], "{filter:?}: half opaque is kept");
            assert!(small.rgba.chunks_exact(4).all(|p| p[3] == 0 || p[3] == 255), "{filter:?}");
        }
    }

    #[test]
    fn area_averages_in_linear_light() {
        // Half black, half white: 50% linear light is sRGB 188; averaging bytes would give 128,
        // and the mode would give one of the two (0 or 255).
        let img = image_of(2, 2, |x, _| if x == 0 { [0, 0, 0, 255] } else { [255, 255, 255, 255] });
        assert_eq!(pixelate(&img, 2, PixelArtFilter::Area).rgba, [188, 188, 188, 255]);
        let mode = pixelate(&img, 2, PixelArtFilter::Mode).rgba;
        assert!(mode == [0, 0, 0, 255] || mode == [255; 4], "{mode:?}");
        // Each channel on its own: red and blue give half of each, not purple at 128.
        let img = image_of(2, 2, |x, _| if x == 0 { [255, 0, 0, 255] } else { [0, 0, 255, 255] });
        assert_eq!(pixelate(&img, 2, PixelArtFilter::Area).rgba, [188, 0, 188, 255]);
    }

    #[test]
    fn area_ignores_uncovered_samples_and_weighs_partial_ones_by_alpha() {
        // Three white samples and one transparent black one: still pure white, not darkened.
        let img = image_of(2, 2, |x, y| if (x, y) == (1, 1) { [0, 0, 0, 0] } else { [255; 4] });
        assert_eq!(pixelate(&img, 2, PixelArtFilter::Area).rgba, [255; 4]);
        // A half-transparent black sample counts half: white ×3 + black at alpha 128 is
        // 3 / 3.5 of white in linear light.
        let img = image_of(2, 2, |x, y| if (x, y) == (1, 1) { [0, 0, 0, 128] } else { [255; 4] });
        let expected = linear_to_srgb(3.0 / (3.0 + 128.0 / 255.0));
        assert_eq!(pixelate(&img, 2, PixelArtFilter::Area).rgba, [expected, expected, expected, 255]);
    }

    #[test]
    fn a_pixel_is_opaque_when_half_its_block_is_covered() {
        // 4×4 blocks with n opaque samples: opaque from 8 of 16 on, under either filter.
        for n in 0..=16u32 {
            let img = image_of(4, 4, |x, y| if y * 4 + x < n { [90, 60, 30, 255] } else { [0; 4] });
            for filter in [PixelArtFilter::Area, PixelArtFilter::Mode] {
                let expected = if n >= 8 { [90, 60, 30, 255] } else { [0; 4] };
                assert_eq!(pixelate(&img, 4, filter).rgba, expected, "{n} of 16 covered, {filter:?}");
            }
        }
        // By area, coverage is the sum of alphas: 16 samples at alpha 128 cover just over half,
        // at 127 just under.
        let half = |a: u8| pixelate(&image_of(4, 4, |_, _| [90, 60, 30, a]), 4, PixelArtFilter::Area).rgba;
        assert_eq!(half(128), [90, 60, 30, 255]);
        assert_eq!(half(127), [0; 4]);
    }
}
