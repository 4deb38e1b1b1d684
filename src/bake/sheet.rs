//! Sprite-sheet layout and the JSON that engines read.
//!
//! Layout: one row per (clip, direction), frames left to right. Cells are the render size, or
//! with trimming the opaque bounds of each frame (shelf-packed in the same rows). `padding`
//! pixels separate cells and surround the sheet; `extrude` repeats each frame's edge pixels
//! into the padding so engines' bilinear filtering never bleeds neighbours in.
//!
//! JSON: TexturePacker's JSON-Hash layout (`frames` keyed by name with `frame`, `rotated`
//! (always false: Godot cannot read rotated frames), `trimmed`, `spriteSourceSize`,
//! `sourceSize`, `pivot` as 0..1 fractions, Pixi's `anchor` and a `duration` in ms) plus
//! `animations` (frame names per clip and direction, as PixiJS reads them) and `meta`.
//! Aseprite's layout (its "Array" form) lists the same frames in order, each with its
//! `filename`, and adds `meta.frameTags` whose `from`/`to` index that array.

use serde_json::{Value, json};

use super::Cell;
use super::post::{blit_extruded, crop};
use crate::error::{Error, Result};
use crate::raster::Image;

/// Which JSON layout to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum JsonFormat {
    /// TexturePacker JSON-Hash + PixiJS `animations` (the default).
    #[default]
    TexturePacker,
    /// Aseprite's JSON (Array form: `frames` in order with `filename`) with `meta.frameTags`.
    Aseprite,
}

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
    /// Frame name, e.g. `walk_3_007` (clip, direction, frame).
    pub name: String,
    /// Animation (clip and direction) the frame belongs to, e.g. `walk_3`.
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
    /// Display time in milliseconds.
    pub duration_ms: u32,
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
}

/// Packs `cells` (in job order: clip, direction, frame) into a sheet. `clip_names[c]` names
/// clip `c`.
///
/// # Errors
/// No cells, or a sheet too large to allocate.
pub fn pack(cells: &[Cell], clip_names: &[String], layout: Layout) -> Result<Sheet> {
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
        let clip = clip_names.get(cell.clip).cloned().unwrap_or_else(|| format!("clip{}", cell.clip));
        let animation = format!("{clip}_{}", cell.direction);
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
            duration_ms: (cell.duration * 1000.0).round() as u32,
        });
        x += rw + pad;
        width = width.max(x);
        row_h = row_h.max(rh);
    }
    let height = y + row_h + pad;
    let image = blit((width, height), &placements, cells.iter().map(|c| &c.image), extrude)?;
    Ok(Sheet { image, placements, frame_size: (fw, fh) })
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

    /// The sheet's JSON description; `image_name` is the PNG's file name as the JSON names it.
    pub fn to_json(&self, image_name: &str, format: JsonFormat) -> Value {
        let (fw, fh) = self.frame_size;
        let frame_json = |p: &Placement| {
            json!({
                "frame": {"x": p.x, "y": p.y, "w": p.w, "h": p.h},
                "rotated": false,
                "trimmed": (p.w, p.h) != (fw, fh),
                "spriteSourceSize": {"x": p.source_x, "y": p.source_y, "w": p.w, "h": p.h},
                "sourceSize": {"w": fw, "h": fh},
                "pivot": {"x": p.pivot.0, "y": p.pivot.1},
                "anchor": {"x": p.pivot.0, "y": p.pivot.1},
                "duration": p.duration_ms,
            })
        };
        let frames: serde_json::Map<String, Value> =
            self.placements.iter().map(|p| (p.name.clone(), frame_json(p))).collect();
        let mut animations: Vec<(String, Vec<String>)> = Vec::new();
        for p in &self.placements {
            match animations.last_mut() {
                Some((name, list)) if *name == p.animation => list.push(p.name.clone()),
                _ => animations.push((p.animation.clone(), vec![p.name.clone()])),
            }
        }
        let mut meta = json!({
            "app": "spritebake",
            "version": env!("CARGO_PKG_VERSION"),
            "image": image_name,
            "format": "RGBA8888",
            "size": {"w": self.image.width, "h": self.image.height},
            "scale": "1",
        });
        match format {
            JsonFormat::TexturePacker => {
                let animations: serde_json::Map<String, Value> =
                    animations.into_iter().map(|(n, l)| (n, json!(l))).collect();
                json!({"frames": frames, "animations": animations, "meta": meta})
            }
            JsonFormat::Aseprite => {
                let mut index = 0usize;
                let tags: Vec<Value> = animations
                    .iter()
                    .map(|(name, list)| {
                        let tag =
                            json!({"name": name, "from": index, "to": index + list.len() - 1, "direction": "forward"});
                        index += list.len();
                        tag
                    })
                    .collect();
                meta["frameTags"] = json!(tags);
                // An array, not a hash: `from`/`to` index frames in order, and a JSON object's
                // key order is not kept (serde_json sorts keys: `walk_10_000` < `walk_2_000`).
                let frames: Vec<Value> = self
                    .placements
                    .iter()
                    .map(|p| {
                        let mut f = frame_json(p);
                        f["filename"] = json!(p.name);
                        f
                    })
                    .collect();
                json!({"frames": frames, "meta": meta})
            }
        }
    }
}
