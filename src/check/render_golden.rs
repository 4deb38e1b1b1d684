//! A render case's golden: one PNG, the frames side by side in a grid `columns` wide, or a
//! folder of one `frame_NNN.png` per frame.

use std::path::{Path, PathBuf};

use crate::bake;
use crate::error::{Error, Result};
use crate::output::encode_png;
use crate::raster::Image;

/// A render golden path ending in `/`, or naming a folder, holds one `frame_NNN.png` per frame.
pub(super) fn is_golden_folder(golden: &Path) -> bool {
    golden.to_string_lossy().ends_with('/') || golden.is_dir()
}

/// The files of a render golden of `count` frames: one PNG, or one per frame in a folder.
pub(super) fn render_golden_paths(golden: &Path, folder: bool, count: usize) -> Vec<PathBuf> {
    if folder {
        (0..count).map(|i| golden.join(format!("frame_{i:03}.png"))).collect()
    } else {
        vec![golden.to_path_buf()]
    }
}

/// A render golden's files for these frames: each frame in a folder, or all in one PNG grid.
pub(super) fn render_golden_files(
    golden: &Path,
    frames: &[Image],
    folder: bool,
    columns: usize,
) -> Result<Vec<(PathBuf, Vec<u8>)>> {
    if folder {
        let paths = render_golden_paths(golden, true, frames.len());
        return paths.into_iter().zip(frames).map(|(p, f)| Ok((p, encode_png(f)?))).collect();
    }
    Ok(vec![(golden.to_path_buf(), encode_png(&sheet_of(frames, columns)?)?)])
}

/// A golden PNG holding `count` frames of `size` in a grid `columns` wide, split into them.
pub(super) fn split_sheet(
    sheet: Image,
    path: &Path,
    count: usize,
    columns: usize,
    (w, h): (u32, u32),
) -> Result<Vec<Image>> {
    if count <= 1 {
        return Ok(vec![sheet]);
    }
    let cols = columns.min(count);
    let rows = count.div_ceil(cols);
    if (sheet.width, sheet.height) != (w * cols as u32, h * rows as u32) {
        return Err(Error::in_file(
            path,
            format!(
                "golden sheet is {}x{}, expected {}x{} ({count} frames of {w}x{h} in {cols} columns)",
                sheet.width,
                sheet.height,
                w * cols as u32,
                h * rows as u32
            ),
        ));
    }
    Ok((0..count).map(|i| bake::look::post::crop(&sheet, (i % cols) as u32 * w, (i / cols) as u32 * h, w, h)).collect())
}

pub(super) fn sheet_of(frames: &[Image], columns: usize) -> Result<Image> {
    let Some(first) = frames.first() else { return Image::new(1, 1) };
    if frames.len() == 1 {
        return Ok(first.clone());
    }
    let cols = columns.min(frames.len());
    let rows = frames.len().div_ceil(cols);
    let mut sheet = Image::new(first.width * cols as u32, first.height * rows as u32)?;
    for (i, f) in frames.iter().enumerate() {
        bake::look::post::blit_extruded(
            &mut sheet,
            f,
            (i % cols) as u32 * first.width,
            (i / cols) as u32 * first.height,
            0,
        );
    }
    Ok(sheet)
}
