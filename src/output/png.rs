//! PNG files: writing (large images in parallel, see [`stripes`]) and reading.

mod stripes;

use std::path::Path;

use image::ImageEncoder;
use image::codecs::png::{CompressionType, FilterType, PngEncoder};

use super::write_atomic;
use crate::budget::{MemoryBudget, bytes_for};
use crate::error::{Error, Result};
use crate::raster::Image;

/// Encodes an image as a PNG: indexed (PNG-8, with its alpha in `tRNS`) when it has at most
/// 256 colours, as a palette look's outputs do, else 8-bit RGBA. Either way the file decodes
/// to exactly the image's pixels.
///
/// # Errors
/// Only if the encoder fails, which for a well-formed [`Image`] does not happen.
pub fn encode_png(image: &Image) -> Result<Vec<u8>> {
    encode_rgba_png(image.width, image.height, &image.rgba)
}

/// Encodes `width`×`height` RGBA8 texels (rows top to bottom, as stored, e.g. a texture's
/// straight alpha) as a PNG, indexed where that holds every colour (see [`encode_png`]).
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
    if let Some(indexed) = Indexed::of(rgba) {
        return indexed.encode(width, height);
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

/// An image of at most 256 colours as a palette and one index a pixel.
struct Indexed {
    /// The colours as RGBA, the translucent ones first (so `tRNS` stops at the last of them).
    colors: Vec<[u8; 4]>,
    indices: Vec<u8>,
}

impl Indexed {
    /// The image's palette and indices, or `None` past 256 colours (found early in a typical
    /// render, whose anti-aliased edges hold hundreds).
    fn of(rgba: &[u8]) -> Option<Indexed> {
        let colors = || rgba.chunks_exact(4).map(|p| u32::from_le_bytes([p[0], p[1], p[2], p[3]]));
        // First the colours alone: an image of more gives up early, before any index is kept.
        let mut table = ColorTable::default();
        let mut last = None;
        for color in colors() {
            // Runs of one colour are the rule in sprites: one compare each.
            if last != Some(color) {
                table.index_of(color)?;
                last = Some(color);
            }
        }
        // Translucent colours first, each side in order of first appearance.
        let mut order: Vec<usize> = (0..table.colors.len()).collect();
        order.sort_by_key(|&i| table.colors[i][3] == 255);
        let mut remap = [0u8; 256];
        for (new, &old) in order.iter().enumerate() {
            remap[old] = new as u8;
        }
        let mut indices = Vec::with_capacity(rgba.len() / 4);
        let mut last: Option<(u32, u8)> = None;
        for color in colors() {
            let index = match last {
                Some((c, i)) if c == color => i,
                _ => remap[usize::from(table.index_of(color)?)],
            };
            last = Some((color, index));
            indices.push(index);
        }
        Some(Indexed { colors: order.iter().map(|&i| table.colors[i]).collect(), indices })
    }

    fn encode(&self, width: u32, height: u32) -> Result<Vec<u8>> {
        let fail = |e: png::EncodingError| Error::Image { path: "<png>".into(), message: e.to_string() };
        let palette: Vec<u8> = self.colors.iter().flat_map(|c| [c[0], c[1], c[2]]).collect();
        let translucent = self.colors.iter().take_while(|c| c[3] < 255).count();
        let alpha: Vec<u8> = self.colors[..translucent].iter().map(|c| c[3]).collect();
        let mut bytes = Vec::new();
        let mut encoder = png::Encoder::new(&mut bytes, width, height);
        encoder.set_color(png::ColorType::Indexed);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_palette(palette);
        if !alpha.is_empty() {
            encoder.set_trns(alpha);
        }
        // As the RGBA files: fast deflate; palette indices compress best unfiltered.
        encoder.set_compression(png::Compression::Fast);
        encoder.set_filter(png::Filter::NoFilter);
        let mut writer = encoder.write_header().map_err(fail)?;
        writer.write_image_data(&self.indices).map_err(fail)?;
        writer.finish().map_err(fail)?;
        Ok(bytes)
    }
}

/// Up to 256 colours, found by open addressing over 512 slots.
struct ColorTable {
    /// Per slot, a colour's index + 1 (0: empty).
    slots: [u16; 512],
    colors: Vec<[u8; 4]>,
}

impl Default for ColorTable {
    fn default() -> Self {
        ColorTable { slots: [0; 512], colors: Vec::with_capacity(256) }
    }
}

impl ColorTable {
    /// The colour's index, added if new; `None` when it would be the 257th.
    fn index_of(&mut self, color: u32) -> Option<u8> {
        let mut slot = (color.wrapping_mul(0x9E37_79B1) >> 23) as usize;
        loop {
            match self.slots[slot] {
                0 => {
                    if self.colors.len() == 256 {
                        return None;
                    }
                    self.colors.push(color.to_le_bytes());
                    self.slots[slot] = self.colors.len() as u16;
                    return Some((self.colors.len() - 1) as u8);
                }
                n if self.colors[usize::from(n) - 1] == color.to_le_bytes() => return Some((n - 1) as u8),
                _ => slot = (slot + 1) % self.slots.len(),
            }
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The colour type byte of a PNG's header.
    fn color_type(png: &[u8]) -> u8 {
        png[25]
    }

    fn decoded(png: &[u8]) -> Image {
        decode_png_within(png, Path::new("t.png"), &MemoryBudget::new(1 << 30)).unwrap()
    }

    #[test]
    fn an_image_of_few_colours_is_indexed_and_decodes_to_the_same_pixels() {
        // 16 colours, translucent and transparent ones among them, in runs and scattered.
        let (w, h) = (97, 61);
        let colors: Vec<[u8; 4]> = (0..16u8)
            .map(|i| [i * 16, 255 - i * 9, i.wrapping_mul(37), [0, 128, 255, 255][usize::from(i % 4)]])
            .collect();
        let rgba: Vec<u8> = (0..w * h).flat_map(|p| colors[(p / 7 + p % 5) % 16]).collect();
        let image = Image::from_rgba(w as u32, h as u32, rgba.clone()).unwrap();
        let png = encode_png(&image).unwrap();
        assert_eq!(color_type(&png), 3, "indexed");
        assert_eq!(decoded(&png).rgba, rgba);
        // Smaller than the same pixels as RGBA.
        let rgba_png = encode_serial(w as u32, h as u32, &rgba).unwrap();
        assert!(png.len() < rgba_png.len(), "{} against {} bytes", png.len(), rgba_png.len());
    }

    #[test]
    fn exactly_256_colours_are_indexed_and_257_are_not() {
        let image = |n: u32| {
            let rgba: Vec<u8> = (0..n * 3).flat_map(|p| [(p % n) as u8, ((p % n) >> 8) as u8, 7, 255]).collect();
            Image::from_rgba(n, 3, rgba).unwrap()
        };
        for (n, kind) in [(256, 3), (257, 6)] {
            let png = encode_png(&image(n)).unwrap();
            assert_eq!(color_type(&png), kind, "{n} colours");
            assert_eq!(decoded(&png).rgba, image(n).rgba, "{n} colours");
        }
    }
}
