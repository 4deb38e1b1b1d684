//! Sprite-sheet layout: where every frame goes.
//!
//! Layout: one row per (clip, direction), frames left to right. Cells are the render size, or
//! with trimming the opaque bounds of each frame (shelf-packed in the same rows). `padding`
//! pixels separate cells and surround the sheet; `extrude` repeats each frame's edge pixels
//! into the padding so engines' bilinear filtering never bleeds neighbours in.
//!
//! The data files that describe a sheet to engines (JSON, Godot resources) are written from
//! its placements by [`super::engines`].

use super::post::{blit_extruded, crop};
use super::{Cell, JobInfo};
use crate::error::{Error, Result};
use crate::raster::Image;

/// Layout settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Layout {
    /// Transparent pixels between cells and around the sheet.
    pub padding: u32,
    /// Edge pixels repeated outward into the padding (at most `padding`).
    pub extrude: u32,
    /// Crop each frame to its opaque pixels.
    pub trim: bool,
}

/// One placed frame.
#[derive(Debug, Clone, PartialEq)]
pub struct Placement {
    /// Frame name, e.g. `walk_SW_007` (clip, direction, frame).
    pub name: String,
    /// Animation (clip and direction) the frame belongs to, e.g. `walk_SW`.
    pub animation: String,
    /// Rectangle in the sheet.
    pub x: u32,
    /// Rectangle in the sheet.
    pub y: u32,
    /// Rectangle in the sheet.
    pub w: u32,
    /// Rectangle in the sheet.
    pub h: u32,
    /// Offset of the kept rectangle inside the untrimmed frame.
    pub source_x: u32,
    /// Offset of the kept rectangle inside the untrimmed frame.
    pub source_y: u32,
    /// Pivot as fractions of the untrimmed frame.
    pub pivot: (f32, f32),
    /// Display time in seconds.
    pub duration: f32,
    /// Whether its animation loops (clips) or plays once (transitions).
    pub looping: bool,
}

/// A packed sheet: the image and where every frame went.
#[derive(Debug, Clone)]
pub struct Sheet {
    /// The sheet image.
    pub image: Image,
    /// Frames in cell order.
    pub placements: Vec<Placement>,
    /// Untrimmed frame size.
    pub frame_size: (u32, u32),
    /// The job's names and scale.
    pub job: JobInfo,
    /// The first frame's pivot, pixels (with a fixed scale, every frame's).
    pub pivot: glam::Vec2,
}

/// Packs `cells` (in job order: clip, direction, frame) into a sheet, naming them after
/// `job`'s rows and directions.
///
/// # Errors
/// No cells, or a sheet too large to allocate.
pub fn pack(cells: &[Cell], job: &JobInfo, layout: Layout) -> Result<Sheet> {
    let first = cells.first().ok_or_else(|| Error::Invalid("no frames to put in a sheet".into()))?;
    let (fw, fh) = (first.image.width, first.image.height);
    let (pad, extrude) = (layout.padding, layout.extrude.min(layout.padding));
    // The kept rectangle of each cell.
    let rects: Vec<(u32, u32, u32, u32)> = cells
        .iter()
        .map(|c| if layout.trim { c.image.opaque_bounds().unwrap_or((0, 0, 1, 1)) } else { (0, 0, fw, fh) })
        .collect();
    // Rows: consecutive cells with the same (clip, direction).
    let mut placements = Vec::with_capacity(cells.len());
    let (mut x, mut y, mut row_h, mut width) = (pad, pad, 0u32, 0u32);
    let mut row_key = None;
    for (cell, &(rx, ry, rw, rh)) in cells.iter().zip(&rects) {
        let key = (cell.clip, cell.direction);
        if row_key.is_some_and(|k| k != key) {
            x = pad;
            y += row_h + pad;
            row_h = 0;
        }
        row_key = Some(key);
        let clip = job.rows.get(cell.clip).cloned().unwrap_or_else(|| format!("clip{}", cell.clip));
        let animation = format!("{clip}_{}", job.directions.name(cell.direction));
        placements.push(Placement {
            name: format!("{animation}_{:03}", cell.frame),
            animation,
            x,
            y,
            w: rw,
            h: rh,
            source_x: rx,
            source_y: ry,
            pivot: (cell.pivot.x / fw as f32, cell.pivot.y / fh as f32),
            duration: cell.duration,
            looping: cell.looping,
        });
        x += rw + pad;
        width = width.max(x);
        row_h = row_h.max(rh);
    }
    let height = y + row_h + pad;
    let image = blit((width, height), &placements, cells.iter().map(|c| &c.image), extrude)?;
    Ok(Sheet { image, placements, frame_size: (fw, fh), job: job.clone(), pivot: first.pivot })
}

/// A `size` image with each of `images` (untrimmed frames, one per placement, in order) cropped
/// to its placement's source rectangle and put at its rectangle, edges extruded.
fn blit<'a>(
    (width, height): (u32, u32),
    placements: &[Placement],
    images: impl IntoIterator<Item = &'a Image>,
    extrude: u32,
) -> Result<Image> {
    let mut image = Image::new(width, height)?;
    for (p, src) in placements.iter().zip(images) {
        blit_extruded(&mut image, &crop(src, p.source_x, p.source_y, p.w, p.h), p.x, p.y, extrude);
    }
    Ok(image)
}

impl Sheet {
    /// A companion of the sheet (a normal or depth map): `images`, one per frame in placement
    /// order, each the untrimmed frame size, placed exactly as the frames are — the same
    /// rectangles, trim offsets and extrusion (`layout` as given to [`pack`]) — so it lines up
    /// with the sheet pixel for pixel.
    ///
    /// # Errors
    /// A sheet too large to allocate.
    pub fn blit_like<'a>(&self, images: impl IntoIterator<Item = &'a Image>, layout: Layout) -> Result<Image> {
        let size = (self.image.width, self.image.height);
        blit(size, &self.placements, images, layout.extrude.min(layout.padding))
    }
}
