//! Golden-image comparison: is a render the same as the stored reference, and if not, where.
//!
//! Renders are deterministic, so the common case is an exact byte match, checked first. Beyond
//! that the comparison counts pixels whose largest channel difference exceeds a per-pixel
//! threshold, and measures alpha on its own: metrics that blend over white cannot tell a
//! transparent pixel from a white one, which is exactly the mistake a sprite renderer can make.

pub(crate) mod perceptual;

pub(crate) use perceptual::{MAX_DELTA, antialiased, color_delta};

use crate::raster::Image;

/// How much difference is acceptable.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tolerance {
    /// A pixel counts as different when any channel (R, G, B or A) differs by more than this.
    pub channel: u8,
    /// How many different pixels are allowed.
    pub max_pixels: usize,
}

impl Tolerance {
    /// Byte-for-byte identical.
    pub const EXACT: Tolerance = Tolerance { channel: 0, max_pixels: 0 };
}

/// The outcome of a comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// True when the two images are byte-for-byte identical.
    pub identical: bool,
    /// Largest difference of any colour channel (R, G, B) over all pixels.
    pub max_color_delta: u8,
    /// Largest alpha difference over all pixels.
    pub max_alpha_delta: u8,
    /// Pixels whose largest channel difference exceeds the tolerance's threshold.
    pub differing_pixels: usize,
    /// Pixels whose alpha differs at all.
    pub alpha_differing_pixels: usize,
    /// Total pixels compared.
    pub total_pixels: usize,
}

impl Comparison {
    /// True when the difference is within `tolerance`.
    pub fn passes(&self, tolerance: Tolerance) -> bool {
        self.identical || self.differing_pixels <= tolerance.max_pixels
    }

    /// Differing pixels as a percentage of all pixels.
    pub fn differing_percent(&self) -> f64 {
        if self.total_pixels == 0 { 0.0 } else { 100.0 * self.differing_pixels as f64 / self.total_pixels as f64 }
    }
}

/// Why two images cannot be compared.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("image sizes differ: actual {actual_width}x{actual_height}, expected {expected_width}x{expected_height}")]
pub struct SizeMismatch {
    /// Actual width.
    pub actual_width: u32,
    /// Actual height.
    pub actual_height: u32,
    /// Expected width.
    pub expected_width: u32,
    /// Expected height.
    pub expected_height: u32,
}

/// Compares `actual` with `expected`; `threshold` is the per-pixel channel difference above
/// which a pixel counts as different.
///
/// # Errors
/// The images have different sizes.
pub fn compare(actual: &Image, expected: &Image, threshold: u8) -> Result<Comparison, SizeMismatch> {
    if (actual.width, actual.height) != (expected.width, expected.height) {
        return Err(SizeMismatch {
            actual_width: actual.width,
            actual_height: actual.height,
            expected_width: expected.width,
            expected_height: expected.height,
        });
    }
    let total_pixels = actual.width as usize * actual.height as usize;
    let mut c = Comparison {
        identical: actual.rgba == expected.rgba,
        max_color_delta: 0,
        max_alpha_delta: 0,
        differing_pixels: 0,
        alpha_differing_pixels: 0,
        total_pixels,
    };
    if c.identical {
        return Ok(c);
    }
    for (a, e) in actual.rgba.chunks_exact(4).zip(expected.rgba.chunks_exact(4)) {
        let d: [u8; 4] = std::array::from_fn(|i| a[i].abs_diff(e[i]));
        let color = d[0].max(d[1]).max(d[2]);
        c.max_color_delta = c.max_color_delta.max(color);
        c.max_alpha_delta = c.max_alpha_delta.max(d[3]);
        c.alpha_differing_pixels += usize::from(d[3] > 0);
        c.differing_pixels += usize::from(color.max(d[3]) > threshold);
    }
    Ok(c)
}

/// A picture of the differences: the expected image faded to a light grey, with pixels over
/// `threshold` in red (brighter for larger differences). Same size as the inputs.
///
/// # Errors
/// The images have different sizes.
pub fn diff_image(actual: &Image, expected: &Image, threshold: u8) -> Result<Image, SizeMismatch> {
    compare(actual, expected, threshold)?;
    let mut rgba = Vec::with_capacity(actual.rgba.len());
    for (a, e) in actual.rgba.chunks_exact(4).zip(expected.rgba.chunks_exact(4)) {
        let delta = (0..4).map(|i| a[i].abs_diff(e[i])).max().unwrap_or(0);
        if delta > threshold {
            rgba.extend_from_slice(&[128 + delta / 2, 0, 0, 255]);
        } else {
            // Luma of the expected pixel over white, faded so red differences stand out.
            let alpha = e[3] as u32;
            let luma = (e[0] as u32 * 77 + e[1] as u32 * 150 + e[2] as u32 * 29) >> 8;
            let over_white = (luma * alpha + 255 * (255 - alpha)) / 255;
            let faded = (192 + over_white / 4) as u8;
            rgba.extend_from_slice(&[faded, faded, faded, 255]);
        }
    }
    Ok(Image { width: actual.width, height: actual.height, rgba })
}

/// Settings of the perceptual comparison (pixelmatch's, plus alpha).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PerceptualOptions {
    /// YIQ colour threshold, 0..1 (pixelmatch's scale). The default is 0.1.
    pub threshold: f64,
    /// Alpha differences larger than this count as different pixels. The default is 0.
    pub alpha_threshold: u8,
    /// Do not count pixels that differ only by anti-aliasing. The default is false.
    pub ignore_aa: bool,
}

impl Default for PerceptualOptions {
    fn default() -> Self {
        PerceptualOptions { threshold: 0.1, alpha_threshold: 0, ignore_aa: false }
    }
}

/// The outcome of a perceptual comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct PerceptualReport {
    /// Byte-for-byte identical.
    pub identical: bool,
    /// Largest R, G or B difference.
    pub max_color_delta: u8,
    /// Largest alpha difference.
    pub max_alpha_delta: u8,
    /// Pixels whose colour differs perceptibly (YIQ over the threshold), AA excluded if asked.
    pub color_pixels: usize,
    /// Pixels whose alpha differs by more than the alpha threshold.
    pub alpha_pixels: usize,
    /// Pixels that differ in either way: the number held against the tolerance.
    pub differing_pixels: usize,
    /// Pixels that differ (in colour or alpha) classified as anti-aliasing (ignored, colour and
    /// alpha alike, with `ignore_aa`).
    pub aa_pixels: usize,
    /// Total pixels.
    pub total_pixels: usize,
    /// Per-pixel classification, row-major: 0 same, 1 different, 2 anti-aliasing.
    pub mask: Vec<u8>,
}

impl PerceptualReport {
    /// Differing pixels as a percentage of all pixels.
    pub fn differing_percent(&self) -> f64 {
        if self.total_pixels == 0 { 0.0 } else { 100.0 * self.differing_pixels as f64 / self.total_pixels as f64 }
    }
}

/// Compares two images the way pixelmatch does (YIQ colour distance over white, optional
/// anti-aliasing detection) and measures alpha on its own, which pixelmatch cannot see.
///
/// # Errors
/// The images have different sizes.
pub fn compare_perceptual(
    actual: &Image,
    expected: &Image,
    options: &PerceptualOptions,
) -> Result<PerceptualReport, SizeMismatch> {
    let channels = compare(actual, expected, 0)?;
    let total_pixels = channels.total_pixels;
    let mut r = PerceptualReport {
        identical: channels.identical,
        max_color_delta: channels.max_color_delta,
        max_alpha_delta: channels.max_alpha_delta,
        color_pixels: 0,
        alpha_pixels: 0,
        differing_pixels: 0,
        aa_pixels: 0,
        total_pixels,
        mask: vec![0; total_pixels],
    };
    if r.identical {
        return Ok(r);
    }
    let max_delta = MAX_DELTA * options.threshold * options.threshold;
    let w = actual.width as i64;
    for (i, m) in r.mask.iter_mut().enumerate() {
        let (x, y) = (i as i64 % w, i as i64 / w);
        let alpha = actual.rgba[i * 4 + 3].abs_diff(expected.rgba[i * 4 + 3]) > options.alpha_threshold;
        let color = color_delta(actual, expected, x, y, false).abs() > max_delta;
        // A silhouette's edge differs in coverage, so in alpha as much as in colour: either
        // kind of difference at an anti-aliased pixel is anti-aliasing. Besides pixelmatch's
        // test (made for opaque images: an edge pixel beside transparent ones fails it), a
        // pixel partly covered in either image is one.
        let partly = |image: &Image| (1..255).contains(&image.rgba[i * 4 + 3]);
        let aa = (color || alpha)
            && (partly(actual)
                || partly(expected)
                || antialiased(actual, expected, x, y)
                || antialiased(expected, actual, x, y));
        r.alpha_pixels += usize::from(alpha);
        r.aa_pixels += usize::from(aa);
        let ignored = aa && options.ignore_aa;
        let (counted_color, counted_alpha) = (color && !ignored, alpha && !ignored);
        r.color_pixels += usize::from(counted_color);
        *m = if counted_color || counted_alpha {
            1
        } else if aa {
            2
        } else {
            0
        };
        r.differing_pixels += usize::from(*m == 1);
    }
    Ok(r)
}

/// A picture of a perceptual comparison: the expected image faded to grey, differences in red,
/// anti-aliasing differences in yellow.
pub fn perceptual_diff_image(expected: &Image, report: &PerceptualReport) -> Image {
    let mut rgba = Vec::with_capacity(expected.rgba.len());
    for (e, m) in expected.rgba.chunks_exact(4).zip(&report.mask) {
        match m {
            1 => rgba.extend_from_slice(&[230, 0, 0, 255]),
            2 => rgba.extend_from_slice(&[250, 200, 0, 255]),
            _ => {
                let alpha = e[3] as u32;
                let luma = (e[0] as u32 * 77 + e[1] as u32 * 150 + e[2] as u32 * 29) >> 8;
                let faded = (192 + (luma * alpha + 255 * (255 - alpha)) / 255 / 4) as u8;
                rgba.extend_from_slice(&[faded, faded, faded, 255]);
            }
        }
    }
    Image { width: expected.width, height: expected.height, rgba }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn image(pixels: &[[u8; 4]]) -> Image {
        Image::from_rgba(pixels.len() as u32, 1, pixels.concat()).unwrap()
    }

    #[test]
    fn counts_pixels_over_threshold_and_alpha_separately() {
        let a = image(&[[10, 10, 10, 255], [0, 0, 0, 0], [255, 255, 255, 255]]);
        let b = image(&[[13, 10, 10, 255], [255, 255, 255, 0], [255, 255, 255, 200]]);
        let c = compare(&a, &b, 2).unwrap();
        assert!(!c.identical);
        assert_eq!(c.max_color_delta, 255);
        assert_eq!(c.max_alpha_delta, 55);
        assert_eq!(c.differing_pixels, 3);
        assert_eq!(c.alpha_differing_pixels, 1);
        assert!(!c.passes(Tolerance { channel: 2, max_pixels: 2 }));
        assert!(compare(&a, &a, 0).unwrap().identical);
    }

    #[test]
    fn perceptual_catches_colour_and_alpha_and_tolerates_aa_on_request() {
        let a = image(&[[10, 10, 10, 255], [255, 255, 255, 255], [0, 0, 0, 255]]);
        let mut b = a.clone();
        b.rgba[7] = 0; // white opaque → white transparent: invisible over white, caught by alpha
        let r = compare_perceptual(&a, &b, &PerceptualOptions::default()).unwrap();
        assert_eq!((r.color_pixels, r.alpha_pixels, r.differing_pixels), (0, 1, 1));
        let mut c = a.clone();
        c.rgba[0] = 200;
        let r = compare_perceptual(&a, &c, &PerceptualOptions::default()).unwrap();
        assert_eq!((r.color_pixels, r.differing_pixels), (1, 1));
    }

    #[test]
    fn size_mismatch_is_an_error() {
        let a = image(&[[0; 4]]);
        let b = image(&[[0; 4], [0; 4]]);
        assert!(compare(&a, &b, 0).is_err());
    }
}
