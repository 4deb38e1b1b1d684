//! GIF frames as a viewer shows them, for comparing a rendered GIF with its golden: every frame
//! composed onto the canvas (honouring each frame's disposal), with its delay.

use std::path::Path;

use crate::budget::{MemoryBudget, bytes_for};
use crate::error::{Error, Result};
use crate::raster::Image;

/// The frames and delays (centiseconds) of a GIF spritebake wrote.
///
/// # Errors
/// Not a GIF, or a GIF that does not decode.
pub(super) fn decode(bytes: &[u8], path: &Path) -> Result<(Vec<Image>, Vec<u16>)> {
    decode_within(bytes, path, &MemoryBudget::default())
}

/// As [`decode`], every frame charged to `budget` before it is decoded (a small golden may
/// declare a huge canvas or thousands of frames).
///
/// # Errors
/// As [`decode`]; [`Error::Budget`] when the frames would go over the budget.
pub(super) fn decode_within(bytes: &[u8], path: &Path, budget: &MemoryBudget) -> Result<(Vec<Image>, Vec<u16>)> {
    let bad = |e: gif::DecodingError| Error::Image { path: path.to_path_buf(), message: format!("GIF: {e}") };
    let mut options = gif::DecodeOptions::new();
    options.set_color_output(gif::ColorOutput::RGBA);
    if let Some(most) = std::num::NonZeroU64::new(budget.remaining()) {
        options.set_memory_limit(gif::MemoryLimit::Bytes(most));
    }
    let mut decoder = options.read_info(bytes).map_err(bad)?;
    let (w, h) = (u32::from(decoder.width()), u32::from(decoder.height()));
    // The canvas first: a 43-byte GIF may declare 65535², 16 GiB before its first frame.
    let canvas_bytes = bytes_for(u64::from(w.max(1)) * u64::from(h.max(1)), 4);
    budget.charge(canvas_bytes, || format!("{}: a GIF canvas of {w}x{h}", path.display()))?;
    let mut canvas = Image::new(w.max(1), h.max(1))?;
    let (mut frames, mut delays) = (Vec::new(), Vec::new());
    let mut clear: Option<(u32, u32, u32, u32)> = None;
    while let Some(frame) = decoder.read_next_frame().map_err(bad)? {
        budget.charge(bytes_for(u64::from(w) * u64::from(h), 4), || format!("{}: GIF frame", path.display()))?;
        if let Some((x, y, fw, fh)) = clear.take() {
            for row in y..(y + fh).min(h) {
                for col in x..(x + fw).min(w) {
                    if let Some(p) = canvas.pixel_mut(col, row) {
                        p.copy_from_slice(&[0; 4]);
                    }
                }
            }
        }
        let (fx, fy, fw, fh) =
            (u32::from(frame.left), u32::from(frame.top), u32::from(frame.width), u32::from(frame.height));
        for (i, px) in frame.buffer.chunks_exact(4).enumerate() {
            let (col, row) = (fx + i as u32 % fw.max(1), fy + i as u32 / fw.max(1));
            if px[3] > 0
                && let Some(p) = canvas.pixel_mut(col, row)
            {
                p.copy_from_slice(px);
            }
        }
        frames.push(canvas.clone());
        delays.push(frame.delay);
        if frame.dispose == gif::DisposalMethod::Background {
            clear = Some((fx, fy, fw, fh));
        }
    }
    Ok((frames, delays))
}
