//! The accepted range of every numeric option, shared by the command line (clap value
//! parsers) and `check` manifests, so a value is refused the same way wherever it is written.
//!
//! Why every option has an upper bound: options multiply work and memory (frames × directions
//! × clips, pixels × samples, outline width, padding around every cell). An unbounded value is
//! a way to make a run take hours or abort on allocation from a one-line command or manifest;
//! a bound turns that into one error line that names the option and its range. Each bound is
//! far above what any real job uses (a 4096-pixel sheet of 16 directions × 21 clips fits).
//! Memory for what passes these checks is budgeted separately (`formats::Limits`).

use std::fmt::Display;
use std::str::FromStr;

/// An inclusive range a numeric option must lie in.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bound<T> {
    /// Smallest accepted value.
    pub min: T,
    /// Largest accepted value.
    pub max: T,
}

impl<T: PartialOrd + Copy + Display + FromStr + Send + Sync + 'static> Bound<T> {
    /// `"from MIN to MAX"`, as the help text and errors say it.
    pub fn describe(&self) -> String {
        format!("from {} to {}", self.min, self.max)
    }

    /// The value, or a message saying the range (NaN is outside every range).
    ///
    /// # Errors
    /// `"must be from MIN to MAX"`; the caller adds the option's name and the value.
    pub fn check(&self, value: T) -> Result<T, String> {
        if value >= self.min && value <= self.max { Ok(value) } else { Err(format!("must be {}", self.describe())) }
    }

    /// Parses text and checks the range.
    ///
    /// # Errors
    /// Not a number of this kind, or out of range.
    pub fn parse(&self, text: &str) -> Result<T, String> {
        let value = text.trim().parse::<T>().map_err(|_| format!("expected a number {}", self.describe()))?;
        self.check(value)
    }

    /// A clap value parser enforcing this bound.
    pub fn parser(self) -> impl Fn(&str) -> Result<T, String> + Clone + Send + Sync + 'static {
        move |text: &str| self.parse(text)
    }
}

/// Output width or height, pixels (`--size`, thumbnail `--size`, manifest `size`).
pub const SIDE: Bound<u32> = Bound { min: 1, max: 8192 };
/// Supersampling factor per axis (`--ssaa`, manifest `ssaa`).
pub const SSAA: Bound<u32> = Bound { min: 1, max: 4 };
/// Toon brightness bands (`--bands`, manifest `bands`).
pub const BANDS: Bound<u32> = Bound { min: 2, max: 64 };
/// Directions of a sprite job (`--directions`): hexagonal games use 6, vehicles 32.
pub const DIRECTIONS: Bound<u32> = Bound { min: 1, max: 64 };
/// Frames a clip is resampled to (`--frames`; also the cap of `--sample-fps` resampling).
pub const FRAMES: Bound<usize> = Bound { min: 1, max: 10_000 };
/// Cells a sprite job renders (rows × directions × frames): checked before the job lists them.
/// A million 16 px cells fill 64 pages of 4096²; a job past it is a mistake, not a sprite.
pub const CELLS: usize = 1_000_000;
/// The largest height `--ground` takes, either way, in model units.
pub const GROUND_HEIGHT: f32 = 1.0e6;
/// Resampling rate, frames per second (`--sample-fps`).
pub const SAMPLE_FPS: Bound<f32> = Bound { min: 0.01, max: 1000.0 };
/// Playback rate override, frames per second (`--fps`).
pub const FPS: Bound<f32> = Bound { min: 0.01, max: 1000.0 };
/// Empty pixels between sheet cells (`--padding`).
pub const PADDING: Bound<u32> = Bound { min: 0, max: 256 };
/// Sheet page width or height, pixels (`--max-size`): 16384 is the largest texture of
/// current desktop GPUs and Godot's import limit.
pub const PAGE_SIDE: Bound<u32> = Bound { min: 1, max: 16_384 };
/// Edge pixels repeated around each sheet cell (`--extrude`).
pub const EXTRUDE: Bound<u32> = Bound { min: 0, max: 64 };
/// Outline width, pixels (`--outline`).
pub const OUTLINE: Bound<u32> = Bound { min: 0, max: 256 };
/// Fixed scale, pixels per model unit (`--pixels-per-unit`): models come in metres, inches,
/// Quake units and millimetres, so the range is wide; what a scale makes of a model is
/// bounded by the cell size.
pub const PIXELS_PER_UNIT: Bound<f32> = Bound { min: 0.0001, max: 100_000.0 };
/// Pixel-art downscale factor (`--pixel-art`).
pub const PIXEL_ART: Bound<u32> = Bound { min: 1, max: 16 };
/// Colours of a pixel-art palette (`--palette`).
pub const PALETTE: Bound<usize> = Bound { min: 2, max: 256 };
/// Worker threads (`--threads`).
pub const THREADS: Bound<usize> = Bound { min: 1, max: 1024 };
/// Largest input file, MiB (`--max-file-mib`).
pub const MAX_FILE_MIB: Bound<u64> = Bound { min: 1, max: 16_384 };
/// Memory budget, MiB (`--max-memory-mib`).
pub const MAX_MEMORY_MIB: Bound<u64> = Bound { min: 1, max: 1 << 20 };
/// Largest texture side, texels (`--max-texture-side`).
pub const MAX_TEXTURE_SIDE: Bound<u32> = Bound { min: 1, max: 32_768 };
/// Frame position within a clip (`--frame`, manifest `frame` and `frames` entries).
pub const FRAME: Bound<f32> = Bound { min: 0.0, max: 1_000_000.0 };
/// Time within a clip, seconds (`--time`, manifest `time`).
pub const TIME: Bound<f32> = Bound { min: 0.0, max: 100_000.0 };
/// Camera yaw, degrees (`--yaw`, manifest `yaw`).
pub const YAW: Bound<f32> = Bound { min: -360.0, max: 360.0 };
/// Camera pitch, degrees (`--pitch`, manifest `pitch`).
pub const PITCH: Bound<f32> = Bound { min: -90.0, max: 90.0 };
/// Vertical field of view, degrees (`--fov`, manifest `fov`).
pub const FOV: Bound<f32> = Bound { min: 1.0, max: 179.0 };
/// Border around the model, fraction of the image (`--margin`, manifest `margin`).
pub const MARGIN: Bound<f32> = Bound { min: 0.0, max: 1.0 };
/// Ambient light level (`--ambient`, manifest `ambient`).
pub const AMBIENT: Bound<f32> = Bound { min: 0.0, max: 1.0 };
/// Sheet columns of a multi-frame golden (manifest `columns`).
pub const COLUMNS: Bound<u32> = Bound { min: 1, max: 4096 };
/// Perceptual colour threshold (`compare --threshold`, manifest `threshold`).
pub const THRESHOLD: Bound<f64> = Bound { min: 0.0, max: 1.0 };
/// Differing pixels allowed, percent (`compare --max-percent`, manifest `max_percent`).
pub const MAX_PERCENT: Bound<f64> = Bound { min: 0.0, max: 100.0 };
/// Frames a benchmark renders (`bench --frames`).
pub const BENCH_FRAMES: Bound<usize> = Bound { min: 1, max: 100_000 };
/// Warm-up frames of a benchmark (`bench --warmup`).
pub const BENCH_WARMUP: Bound<usize> = Bound { min: 0, max: 10_000 };

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_outside_the_range_are_refused_with_the_range() {
        assert_eq!(SSAA.parse("4"), Ok(4));
        assert_eq!(SSAA.parse("5"), Err("must be from 1 to 4".into()));
        assert_eq!(SIDE.parse("100000"), Err("must be from 1 to 8192".into()));
        assert_eq!(SIDE.parse("-1"), Err("expected a number from 1 to 8192".into()));
        assert_eq!(SAMPLE_FPS.parse("0"), Err("must be from 0.01 to 1000".into()));
        assert!(SAMPLE_FPS.parse("NaN").is_err() && SAMPLE_FPS.parse("inf").is_err());
        assert_eq!(YAW.parse("-45"), Ok(-45.0));
        assert_eq!(PADDING.check(0), Ok(0));
    }
}
