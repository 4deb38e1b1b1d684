//! How different an image may be from its golden.

/// How different an image may be from its reference: a `check` case's keys and `compare`'s
/// flags, with one set of defaults (exact but for YIQ differences up to 0.1).
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct Tolerance {
    /// Perceptual colour threshold, from 0 to 1 (pixelmatch's YIQ scale).
    #[cfg_attr(
        feature = "cli",
        arg(long, default_value_t = Tolerance::default().threshold, value_parser = crate::bounds::THRESHOLD.parser())
    )]
    pub threshold: f64,
    /// Allowed differing pixels (per frame).
    #[cfg_attr(feature = "cli", arg(long, default_value_t = Tolerance::default().max_pixels, conflicts_with = "max_percent"))]
    pub max_pixels: usize,
    /// Allowed differing pixels, as a percentage of the image, from 0 to 100.
    #[cfg_attr(feature = "cli", arg(long, value_parser = crate::bounds::MAX_PERCENT.parser()))]
    pub max_percent: Option<f64>,
    /// Do not count pixels that differ only by anti-aliasing.
    #[cfg_attr(feature = "cli", arg(long))]
    pub ignore_aa: bool,
}

impl Default for Tolerance {
    fn default() -> Self {
        Tolerance { threshold: 0.1, max_pixels: 0, max_percent: None, ignore_aa: false }
    }
}

impl Tolerance {
    /// The comparison these limits judge.
    pub fn perceptual(&self) -> crate::golden::PerceptualOptions {
        crate::golden::PerceptualOptions { threshold: self.threshold, alpha_threshold: 0, ignore_aa: self.ignore_aa }
    }

    /// Pixels allowed to differ in a frame of `total` pixels: the larger of both limits.
    pub fn allowed(&self, total: usize) -> usize {
        let by_percent = self.max_percent.map_or(0, |p| (p / 100.0 * total as f64).floor() as usize);
        self.max_pixels.max(by_percent)
    }
}
