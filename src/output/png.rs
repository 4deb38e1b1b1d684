use std::path::Path;

use image::ImageEncoder;
use image::codecs::png::{CompressionType, FilterType, PngEncoder};

use super::write_atomic;
use crate::error::{Error, Result};
use crate::raster::Image;

/// Encodes an image as an 8-bit RGBA PNG.
///
/// # Errors
/// Only if the encoder fails, which for a well-formed [`Image`] does not happen.
pub fn encode_png(image: &Image) -> Result<Vec<u8>> {
    let mut bytes = Vec::new();
    // Fast compression with adaptive filters: sprites are mostly flat areas, which this
    // already compresses well, at a fraction of the time of the best setting.
    PngEncoder::new_with_quality(&mut bytes, CompressionType::Fast, FilterType::Adaptive)
        .write_image(&image.rgba, image.width, image.height, image::ExtendedColorType::Rgba8)
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

/// Reads a PNG file into an RGBA image (any PNG colour type is converted).
///
/// # Errors
/// The file is missing, unreadable, not a PNG, or truncated.
pub fn read_png(path: &Path) -> Result<Image> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    let decoded = image::load_from_memory_with_format(&bytes, image::ImageFormat::Png)
        .map_err(|e| Error::Image { path: path.to_path_buf(), message: format!("not a readable PNG: {e}") })?
        .into_rgba8();
    let (width, height) = decoded.dimensions();
    Image::from_rgba(width, height, decoded.into_raw())
        .ok_or_else(|| Error::Image { path: path.to_path_buf(), message: "inconsistent PNG size".into() })
}
