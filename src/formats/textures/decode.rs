//! Texture decoding: PNG, JPEG, BMP, TGA and PCX bytes into a [`Texture`], charged to the
//! memory budget from the declared size before any texel is decoded.

use std::io::Cursor;
use std::path::Path;

use crate::budget::MemoryBudget;
use crate::model::Texture;

/// Largest texture side accepted by default, in texels.
pub const MAX_TEXTURE_SIDE: u32 = 8192;

/// Why a texture could not be decoded.
#[derive(Debug)]
pub enum DecodeError {
    /// Not an image, corrupt, or wider or higher than the side limit: the material gets the
    /// fallback texture and the model a warning.
    Unusable(String),
    /// Decoding would go over the model's memory budget ([`crate::Error::Budget`]): the model
    /// fails, since rendering it without the texture would hide that the budget needs raising.
    Budget(crate::Error),
}

impl From<String> for DecodeError {
    fn from(reason: String) -> DecodeError {
        DecodeError::Unusable(reason)
    }
}

/// Splits a decode result into the model's failure (`Err`: over budget) and the texture's own
/// (`Ok(Err)`: the fallback and a warning).
///
/// # Errors
/// The [`DecodeError::Budget`] error.
pub fn split_budget<T>(result: Result<T, DecodeError>) -> crate::Result<Result<T, String>> {
    match result {
        Ok(t) => Ok(Ok(t)),
        Err(DecodeError::Unusable(reason)) => Ok(Err(reason)),
        Err(DecodeError::Budget(e)) => Err(e),
    }
}

/// Decodes PNG, JPEG, BMP, TGA or PCX bytes, recognised by content (TGA, which has no
/// signature, by the file extension), within the default memory budget.
///
/// # Errors
/// Unknown or corrupt data, an image larger than [`MAX_TEXTURE_SIDE`], or one over the default
/// budget.
pub fn decode_image(bytes: &[u8], path: &Path) -> Result<Texture, String> {
    decode_image_within(bytes, path, MAX_TEXTURE_SIDE, &MemoryBudget::default()).map_err(|e| match e {
        DecodeError::Unusable(reason) => reason,
        DecodeError::Budget(e) => e.to_string(),
    })
}

/// As [`decode_image`] with a chosen side limit, charging the texture's prepared size
/// ([`Texture::prepared_bytes`]) to `budget` from the declared size in the header, before any
/// texel is decoded; the decoder's own allocation limit is set to what is left, so it refuses
/// a declared size by itself too.
///
/// # Errors
/// Unknown or corrupt data, an image wider or higher than `max_side`, or one over the budget.
pub fn decode_image_within(
    bytes: &[u8],
    path: &Path,
    max_side: u32,
    budget: &MemoryBudget,
) -> Result<Texture, DecodeError> {
    if bytes.first() == Some(&0x0A) && bytes.len() >= 128 {
        return decode_pcx(bytes, path, max_side, budget);
    }
    let format = image::guess_format(bytes).ok().or_else(|| {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        (ext == "tga").then_some(image::ImageFormat::Tga)
    });
    let Some(format) = format else {
        return Err("is not a PNG, JPEG, BMP, TGA or PCX image".to_string().into());
    };
    let reader = |max_alloc: u64| {
        let mut reader = image::ImageReader::with_format(Cursor::new(bytes), format);
        let mut limits = image::Limits::default();
        limits.max_image_width = Some(max_side);
        limits.max_image_height = Some(max_side);
        limits.max_alloc = Some(max_alloc);
        reader.limits(limits);
        reader
    };
    // The header alone gives the declared size (the side limits apply to it already).
    let (w, h) = reader(budget.remaining()).into_dimensions().map_err(|e| format!("could not be decoded: {e}"))?;
    charge_texture(budget, path, w, h)?;
    // The decoder's buffers (at most 8 bytes a texel, then the 4-byte RGBA copy) fit in what
    // was just charged; the mip chain is built only after they are freed.
    let decoded =
        reader(Texture::prepared_bytes(w, h)).decode().map_err(|e| format!("could not be decoded: {e}"))?.into_rgba8();
    let (w, h) = decoded.dimensions();
    let mut texture = Texture::new(w, h, decoded.into_raw(), true).ok_or_else(|| "has no pixels".to_string())?;
    texture.mask_colour = bmp_mask_colour(bytes);
    Ok(texture)
}

/// The colour of palette entry 255 of an 8-bit paletted BMP — GoldSrc's mask colour, which its
/// masked textures draw transparent — read from the headers the decoder has already accepted;
/// `None` for any other image, or a palette of fewer than 256 colours.
fn bmp_mask_colour(bytes: &[u8]) -> Option<[u8; 3]> {
    let u16_at = |at: usize| Some(u16::from_le_bytes(bytes.get(at..at + 2)?.try_into().ok()?));
    let u32_at = |at: usize| Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?));
    if bytes.get(..2)? != b"BM" {
        return None;
    }
    let header = u32_at(14)? as usize;
    // OS/2's 12-byte header has 3-byte palette entries; the others 4 (B, G, R, unused).
    let (bits, entry, colours) = match header {
        12 => (u16_at(24)?, 3, 256),
        _ => (u16_at(28)?, 4, u32_at(46).filter(|&n| n != 0).unwrap_or(256)),
    };
    if bits != 8 || colours < 256 {
        return None;
    }
    let at = 14usize.checked_add(header)?.checked_add(255 * entry)?;
    let bgr = bytes.get(at..at.checked_add(3)?)?;
    Some([bgr[2], bgr[1], bgr[0]])
}

/// Charges a `w`×`h` texture's prepared size to `budget`.
fn charge_texture(budget: &MemoryBudget, path: &Path, w: u32, h: u32) -> Result<(), DecodeError> {
    let what = || format!("texture {} ({w}x{h})", path.display());
    budget.charge(Texture::prepared_bytes(w, h), what).map_err(DecodeError::Budget)
}

/// Quake 2 skins: 8-bit paletted PCX (or 24-bit), via the `pcx` crate.
fn decode_pcx(bytes: &[u8], path: &Path, max_side: u32, budget: &MemoryBudget) -> Result<Texture, DecodeError> {
    let bad = |e: std::io::Error| format!("is not a readable PCX image: {e}");
    let mut reader = pcx::Reader::new(Cursor::new(bytes)).map_err(bad)?;
    let (w, h) = (reader.width() as u32, reader.height() as u32);
    if w == 0 || h == 0 || w > max_side || h > max_side {
        return Err(format!("has an unsupported size {w}x{h} (limit {max_side}, see --max-texture-side)").into());
    }
    // RLE can expand, but never beyond 64× the input: refuse headers that claim more pixels.
    if (w as u64 * h as u64) > bytes.len() as u64 * 64 {
        return Err(format!("claims {w}x{h} pixels in {} bytes", bytes.len()).into());
    }
    charge_texture(budget, path, w, h)?;
    let mut rgb = vec![0u8; (w * h * 3) as usize];
    // The pcx crate may panic on malformed run lengths; contain that as an error.
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| reader.read_rgb_pixels(&mut rgb)))
        .map_err(|_| "is a corrupt PCX image".to_string())?
        .map_err(bad)?;
    let rgba = rgb.chunks_exact(3).flat_map(|p| [p[0], p[1], p[2], 255]).collect();
    Ok(Texture::new(w, h, rgba, true).ok_or_else(|| "has no pixels".to_string())?)
}

#[cfg(test)]
mod tests {
    use super::super::tests::{png, scratch};
    use super::*;

    #[test]
    fn textures_are_charged_their_prepared_size_before_decoding() {
        let dir = scratch("budget");
        let path = dir.join("t.png");
        let img = crate::raster::Image { width: 64, height: 32, rgba: [9, 8, 7, 255].repeat(64 * 32) };
        crate::output::write_png(&path, &img).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        let cost = Texture::prepared_bytes(64, 32);
        // A budget that holds exactly the texture decodes it, however little is left after.
        let exact = MemoryBudget::new(cost);
        let t = decode_image_within(&bytes, &path, MAX_TEXTURE_SIDE, &exact).unwrap();
        assert_eq!((t.width, t.height, exact.remaining()), (64, 32, 0));
        // One byte less is refused with the file, its size and the flag; nothing is charged.
        let short = MemoryBudget::new(cost - 1);
        let Err(DecodeError::Budget(e)) = decode_image_within(&bytes, &path, MAX_TEXTURE_SIDE, &short) else {
            panic!("expected a budget error")
        };
        let message = e.to_string();
        assert!(message.contains("t.png (64x32)") && message.contains("`max_memory_mib`"), "{message}");
        assert_eq!(short.used(), 0);
        // The same for PCX, from its header.
        let pcx_path = dir.join("t.pcx");
        let mut w = pcx::WriterPaletted::create_file(&pcx_path, (16, 16), (72, 72)).unwrap();
        for _ in 0..16 {
            w.write_row(&[0; 16]).unwrap();
        }
        w.write_palette(&[0; 768]).unwrap();
        let pcx = std::fs::read(&pcx_path).unwrap();
        let tight = MemoryBudget::new(Texture::prepared_bytes(16, 16) - 1);
        assert!(matches!(decode_image_within(&pcx, &pcx_path, 64, &tight), Err(DecodeError::Budget(_))));
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn decodes_by_content_and_paletted_pcx() {
        let dir = scratch("pcx");
        // A PNG wearing a .pcx name.
        png(&dir.join("fake.pcx"), [0, 255, 0, 255]);
        let t = decode_image(&std::fs::read(dir.join("fake.pcx")).unwrap(), &dir.join("fake.pcx")).unwrap();
        assert_eq!(&t.rgba[..4], &[0, 255, 0, 255]);
        // A real 8-bit paletted PCX.
        let path = dir.join("real.pcx");
        let mut w = pcx::WriterPaletted::create_file(&path, (3, 2), (72, 72)).unwrap();
        for row in [[0u8, 1, 2], [2, 1, 0]] {
            w.write_row(&row).unwrap();
        }
        let mut palette = vec![0u8; 256 * 3];
        palette[..9].copy_from_slice(&[255, 0, 0, 0, 255, 0, 0, 0, 255]);
        w.write_palette(&palette).unwrap();
        let t = decode_image(&std::fs::read(&path).unwrap(), &path).unwrap();
        assert_eq!((t.width, t.height), (3, 2));
        assert_eq!(&t.rgba[..12], &[255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255]);
        assert!(decode_image(b"\x0a\x05\x01\x08garbage", &path).is_err());
        std::fs::remove_dir_all(dir).unwrap();
    }
}
