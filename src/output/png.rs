//! PNG files: writing (large images in parallel, see [`stripes`]) and reading.

mod stripes;

use std::path::Path;

use image::ImageEncoder;
use image::codecs::png::{CompressionType, FilterType, PngEncoder};

use super::write_atomic;
use crate::budget::{MemoryBudget, bytes_for};
use crate::error::{Error, Result};
use crate::raster::Image;

/// Encodes an image as an 8-bit RGBA PNG.
///
/// # Errors
/// Only if the encoder fails, which for a well-formed [`Image`] does not happen.
pub fn encode_png(image: &Image) -> Result<Vec<u8>> {
    encode_rgba_png(image.width, image.height, &image.rgba)
}

/// Encodes `width`×`height` RGBA8 texels (rows top to bottom, as stored, e.g. a texture's
/// straight alpha) as an 8-bit RGBA PNG.
///
/// # Errors
/// `rgba` does not hold `width * height` texels, or the encoder fails.
pub fn encode_rgba_png(width: u32, height: u32, rgba: &[u8]) -> Result<Vec<u8>> {
    // The png crate asserts this (a panic): report it instead.
    let expected = u128::from(width) * u128::from(height) * 4;
    if rgba.len() as u128 != expected {
        return Err(Error::Image {
            path: "<png>".into(),
            message: format!("{width}x{height} RGBA8 needs {expected} bytes, not {}", rgba.len()),
        });
    }
    if rgba.len() >= PARALLEL_MIN_BYTES {
        // `None`: an fdeflate whose streams the parallel encoder cannot splice.
        if let Some(png) = stripes::encode(width, height, rgba, stripes::rows_per_stripe(width)) {
            return Ok(png);
        }
    }
    encode_serial(width, height, rgba)
}

/// Images with fewer pixel bytes than this are encoded by the png crate on one thread: they
/// take under a millisecond, and keep the bytes they always had.
const PARALLEL_MIN_BYTES: usize = 256 * 1024;

/// [`encode_rgba_png`] by the png crate, on the calling thread.
fn encode_serial(width: u32, height: u32, rgba: &[u8]) -> Result<Vec<u8>> {
    let mut bytes = Vec::new();
    // Fast compression with adaptive filters: sprites are mostly flat areas, which this
    // already compresses well, at a fraction of the time of the best setting. The parallel
    // encoder makes the same choices.
    PngEncoder::new_with_quality(&mut bytes, CompressionType::Fast, FilterType::Adaptive)
        .write_image(rgba, width, height, image::ExtendedColorType::Rgba8)
        .map_err(|e| Error::Image { path: "<png>".into(), message: e.to_string() })?;
    Ok(bytes)
}

/// Writes an image as a PNG file, atomically.
///
/// # Errors
/// The file cannot be written (see [`write_atomic`]).
pub fn write_png(path: &Path, image: &Image) -> Result<()> {
    write_atomic(path, &encode_png(image)?)
}

/// Reads a PNG file into an RGBA image (any PNG colour type is converted), within the default
/// memory budget.
///
/// # Errors
/// The file is missing, unreadable, not a PNG, truncated, or over the budget.
pub fn read_png(path: &Path) -> Result<Image> {
    read_png_within(path, &MemoryBudget::default())
}

/// As [`read_png`], charging the decoded image to `budget` from the size its header declares,
/// before any pixel is decoded (a 15 KB PNG may declare 30000² pixels); the decoder's own
/// buffer is limited to what is left. The file itself is read only up to what is left of the
/// budget (a compressed PNG is smaller than its pixels).
///
/// # Errors
/// As [`read_png`]; [`Error::Budget`] when the file or the image would go over the budget.
pub fn read_png_within(path: &Path, budget: &MemoryBudget) -> Result<Image> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let size = file.metadata().map_err(|e| Error::io(path, e))?.len();
    let most = budget.remaining();
    let over = |needed| Error::Budget {
        what: format!("reading {}", path.display()),
        needed,
        budget: budget.limit(),
        option: crate::budget::MEMORY_OPTION,
    };
    if size > most {
        return Err(over(size));
    }
    // `take` holds the bound even if the file grows after its size was read.
    let mut bytes = Vec::new();
    file.take(most.saturating_add(1)).read_to_end(&mut bytes).map_err(|e| Error::io(path, e))?;
    if bytes.len() as u64 > most {
        return Err(over(bytes.len() as u64));
    }
    decode_png_within(&bytes, path, budget)
}

/// Decodes PNG `bytes` (read from `path`, named in errors) within `budget`, as
/// [`read_png_within`] does.
///
/// # Errors
/// Not a PNG, truncated, or over the budget.
pub fn decode_png_within(bytes: &[u8], path: &Path, budget: &MemoryBudget) -> Result<Image> {
    let unreadable =
        |e: image::ImageError| Error::Image { path: path.to_path_buf(), message: format!("not a readable PNG: {e}") };
    let reader = |max_alloc: u64| {
        let mut reader = image::ImageReader::with_format(std::io::Cursor::new(bytes), image::ImageFormat::Png);
        let mut limits = image::Limits::default();
        limits.max_alloc = Some(max_alloc);
        reader.limits(limits);
        reader
    };
    let (w, h) = reader(budget.remaining()).into_dimensions().map_err(unreadable)?;
    let what = || format!("image {} ({w}x{h})", path.display());
    budget.charge(bytes_for(u64::from(w) * u64::from(h), 4), what)?;
    let decoded = reader(budget.remaining()).decode().map_err(unreadable)?.into_rgba8();
    let (width, height) = decoded.dimensions();
    Image::from_rgba(width, height, decoded.into_raw())
        .ok_or_else(|| Error::Image { path: path.to_path_buf(), message: "inconsistent PNG size".into() })
}
