//! Sprite-sheet layout: where every frame goes.
//!
//! Layout: each frame is kept whole, or with trimming cropped to its opaque pixels; with
//! `dedupe`, identical frames ([`dedupe`]) are stored once. The kept rectangles are placed on
//! pages no larger than `max_size` ([`pack`]: rows per clip and direction, or tight). `padding`
//! pixels separate cells and surround each page; `extrude` repeats each frame's edge pixels
//! into the padding so engines' bilinear filtering never bleeds neighbours in.
//!
//! The data files that describe a sheet to engines (JSON, Godot resources) are written from
//! its pages' placements by [`super::engines`].

mod dedupe;
mod pack;

pub use pack::page_bound;

use rayon::prelude::*;

use super::post::Blit;
use super::{Cell, JobInfo};
use crate::budget::{MemoryBudget, bytes_for};
use crate::error::{Error, Result};
use crate::raster::Image;

/// The default largest page, pixels per side: every WebGL, GLES 3 and desktop GPU takes 4096²
/// textures, and TexturePacker, Phaser and PixiJS users keep atlases within it for phones.
pub const DEFAULT_MAX_PAGE: u32 = 4096;

/// How frames are placed on pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Packing {
    /// One row per (clip, direction), frames left to right, wrapping at the page width; a row
    /// that does not fit below the last one starts the next page (the default).
    #[default]
    Rows,
    /// MaxRects over every page, largest frames first.
    Tight,
}

/// Layout settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    /// Transparent pixels between cells and around each page.
    pub padding: u32,
    /// Edge pixels repeated outward into the padding (at most `padding`).
    pub extrude: u32,
    /// Crop each frame to its opaque pixels.
    pub trim: bool,
    /// Largest page, width and height.
    pub max_size: (u32, u32),
    /// Round page sides up to powers of two.
    pub pot: bool,
    /// Frame placement.
    pub packing: Packing,
    /// Store identical frames once.
    pub dedupe: bool,
}

impl Default for Layout {
    /// 2 pixels of padding, no trimming, rows, pages of at most [`DEFAULT_MAX_PAGE`].
    fn default() -> Self {
        Layout {
            padding: 2,
            extrude: 0,
            trim: false,
            max_size: (DEFAULT_MAX_PAGE, DEFAULT_MAX_PAGE),
            pot: false,
            packing: Packing::Rows,
            dedupe: false,
        }
    }
}

/// One placed frame.
#[derive(Debug, Clone, PartialEq)]
pub struct Placement {
    /// Frame name, e.g. `walk_SW_007` (clip, direction, frame).
    pub name: String,
    /// Animation (clip and direction) the frame belongs to, e.g. `walk_SW`.
    pub animation: String,
    /// The frame's index in the job's cells.
    pub cell: usize,
    /// Rectangle in the page.
    pub x: u32,
    /// Rectangle in the page.
    pub y: u32,
    /// Rectangle in the page.
    pub w: u32,
    /// Rectangle in the page.
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

/// One page of a sheet: its image and the frames on it.
#[derive(Debug, Clone)]
pub struct Page {
    /// The page image.
    pub image: Image,
    /// Frames on this page, in cell order (duplicates share a rectangle).
    pub placements: Vec<Placement>,
}

/// A packed sheet: its pages and where every frame went.
#[derive(Debug, Clone)]
pub struct Sheet {
    /// The pages, at least one.
    pub pages: Vec<Page>,
    /// Untrimmed frame size.
    pub frame_size: (u32, u32),
    /// Frames that share another frame's rectangle (`dedupe`).
    pub duplicates: usize,
    /// The job's names and scale.
    pub job: JobInfo,
    /// The first frame's pivot, pixels (with a fixed scale, every frame's).
    pub pivot: glam::Vec2,
}

/// Packs `cells` (in job order: clip, direction, frame) into a sheet, naming them after
/// `job`'s rows and directions. The pages beyond the cells' own size are charged to `budget` before they exist.
///
/// # Errors
/// No cells, a frame larger than a page ([`Error::BadOption`] `max_size`), pages over the
/// budget.
pub fn pack(cells: &[Cell], job: &JobInfo, layout: Layout, budget: &MemoryBudget) -> Result<Sheet> {
    let first = cells.first().ok_or_else(|| Error::Invalid("no frames to put in a sheet".into()))?;
    let frame = (first.image.width, first.image.height);
    let (fw, fh) = frame;
    // The kept rectangle of each cell.
    let rects: Vec<(u32, u32, u32, u32)> = cells
        .iter()
        .map(|c| if layout.trim { c.image.opaque_bounds().unwrap_or((0, 0, 1, 1)) } else { (0, 0, fw, fh) })
        .collect();
    // The cell whose pixels each cell shows: itself, or an earlier identical one.
    let stored: Vec<usize> = if layout.dedupe { dedupe::originals(cells, &rects) } else { (0..cells.len()).collect() };
    let rows = pack::row_ids(cells.iter().map(|c| (c.clip, c.direction)));
    let items: Vec<pack::Item> = (0..cells.len())
        .filter(|&i| stored[i] == i)
        .map(|cell| pack::Item { cell, w: rects[cell].2, h: rects[cell].3, row: rows[cell] })
        .collect();
    let arranged = pack::arrange(&items, &rows, frame, &layout)?;
    // The cells were charged with a sheet as large as themselves; pages may be larger
    // (padding, rows that end short, powers of two).
    let page_pixels: u64 = arranged.sizes.iter().map(|&(w, h)| u64::from(w) * u64::from(h)).sum();
    let cell_pixels = (cells.len() as u64).saturating_mul(u64::from(fw) * u64::from(fh));
    budget.charge(bytes_for(page_pixels.saturating_sub(cell_pixels), 4), || {
        format!("{} sheet pages ({page_pixels} pixels)", arranged.sizes.len())
    })?;
    let mut spot_of = vec![None; cells.len()];
    for (item, spot) in items.iter().zip(&arranged.spots) {
        spot_of[item.cell] = Some(*spot);
    }
    let mut pages: Vec<Page> =
        arranged.sizes.iter().map(|_| Page { image: Image::default(), placements: Vec::new() }).collect();
    // What each page shows, in cell order.
    let mut blits: Vec<Vec<Blit>> = vec![Vec::new(); pages.len()];
    for (i, cell) in cells.iter().enumerate() {
        let (rx, ry, rw, rh) = rects[i];
        let spot = spot_of[stored[i]].ok_or_else(|| Error::Invalid(format!("sheet frame {i} was not placed")))?;
        let (Some(page), Some(blits)) = (pages.get_mut(spot.page), blits.get_mut(spot.page)) else {
            return Err(Error::Invalid(format!("sheet page {} missing", spot.page)));
        };
        if stored[i] == i {
            blits.push(Blit { src: &cell.image, rect: rects[i], at: (spot.x, spot.y) });
        }
        let clip = job.rows.get(cell.clip).cloned().unwrap_or_else(|| format!("clip{}", cell.clip));
        let animation = format!("{clip}_{}", job.directions.name(cell.direction));
        page.placements.push(Placement {
            name: format!("{animation}_{:03}", cell.frame),
            animation,
            cell: i,
            x: spot.x,
            y: spot.y,
            w: rw,
            h: rh,
            source_x: rx,
            source_y: ry,
            pivot: (cell.pivot.x / fw as f32, cell.pivot.y / fh as f32),
            duration: cell.duration,
            looping: cell.looping,
        });
    }
    for ((page, &size), blits) in pages.iter_mut().zip(&arranged.sizes).zip(&blits) {
        page.image = compose(size, blits, layout)?;
    }
    let duplicates = cells.len() - items.len();
    Ok(Sheet { pages, frame_size: frame, duplicates, job: job.clone(), pivot: first.pivot })
}

impl Sheet {
    /// A companion of page `page` (a normal or depth map): `images` are every cell's map (the
    /// untrimmed frame size, in cell order), placed exactly as the page's frames are — the same
    /// rectangles, trim offsets and extrusion (`layout` as given to [`pack`]) — so it lines up
    /// with the page pixel for pixel.
    ///
    /// # Errors
    /// A page too large to allocate; fewer images than cells.
    pub fn blit_like(&self, page: &Page, images: &[&Image], layout: Layout) -> Result<Image> {
        // Duplicates share their original's rectangle, and the original's map is the one drawn.
        let mut drawn = std::collections::HashSet::new();
        let blits = page
            .placements
            .iter()
            .filter(|p| drawn.insert((p.x, p.y)))
            .map(|p| {
                let src =
                    images.get(p.cell).ok_or_else(|| Error::Invalid(format!("no map for sheet frame {}", p.cell)))?;
                Ok(Blit { src, rect: (p.source_x, p.source_y, p.w, p.h), at: (p.x, p.y) })
            })
            .collect::<Result<Vec<Blit>>>()?;
        compose((page.image.width, page.image.height), &blits, layout)
    }
}

/// Rows of a page drawn by one parallel job: enough to amortise walking every blit.
const COMPOSE_BAND_ROWS: usize = 64;

/// A transparent page of `size` with `blits` drawn on it in order, their edges extruded as
/// `layout` says. Bands of rows are drawn in parallel, each band every blit in order, so the
/// bytes are those of drawing the blits one after another on one thread.
///
/// # Errors
/// A page too large to allocate.
fn compose(size: (u32, u32), blits: &[Blit], layout: Layout) -> Result<Image> {
    let mut image = Image::new(size.0, size.1)?;
    let extrude = layout.extrude.min(layout.padding);
    let row_bytes = size.0 as usize * 4;
    image.rgba.par_chunks_mut((row_bytes * COMPOSE_BAND_ROWS).max(1)).enumerate().for_each(|(band, rows)| {
        let first_row = (band * COMPOSE_BAND_ROWS) as u32;
        for blit in blits {
            blit.draw_rows(rows, size.0, first_row, extrude);
        }
    });
    Ok(image)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The drawing this module did before it drew in bands of rows: pixel by pixel, each
    /// destination pixel taking the source pixel nearest inside the rectangle.
    fn reference(size: (u32, u32), blits: &[Blit], extrude: u32) -> Image {
        let mut page = Image::new(size.0, size.1).unwrap();
        let e = i64::from(extrude);
        for b in blits {
            let (rx, ry, rw, rh) = b.rect;
            for dy in -e..i64::from(rh) + e {
                for dx in -e..i64::from(rw) + e {
                    let sx = rx + dx.clamp(0, i64::from(rw) - 1) as u32;
                    let sy = ry + dy.clamp(0, i64::from(rh) - 1) as u32;
                    let (tx, ty) = (i64::from(b.at.0) + dx, i64::from(b.at.1) + dy);
                    if tx < 0 || ty < 0 {
                        continue;
                    }
                    if let (Some(p), Some(d)) = (b.src.pixel(sx, sy), page.pixel_mut(tx as u32, ty as u32)) {
                        d.copy_from_slice(&p);
                    }
                }
            }
        }
        page
    }

    #[test]
    fn pages_drawn_in_bands_equal_drawing_each_frame_pixel_by_pixel() {
        let mut seed = 7u32;
        let mut random = |n: u32| {
            seed = seed.wrapping_mul(1664525).wrapping_add(1013904223);
            (seed >> 8) % n.max(1)
        };
        // Noise images, so every misplaced byte shows.
        let sources: Vec<Image> = (0..6)
            .map(|_| {
                let (w, h) = (1 + random(40), 1 + random(90));
                let rgba = (0..w * h * 4).map(|_| random(256) as u8).collect();
                Image { width: w, height: h, rgba }
            })
            .collect();
        let size = (97, 211);
        for extrude in [0, 1, 3] {
            for round in 0..40 {
                // Rectangles anywhere in their source, placed anywhere, some past the page's
                // right and bottom edges and touching its left and top, overlapping in order.
                let blits: Vec<Blit> = (0..1 + round % 9)
                    .map(|_| {
                        let src = &sources[random(sources.len() as u32) as usize];
                        let (x, y) = (random(src.width), random(src.height));
                        let rect = (x, y, 1 + random(src.width - x), 1 + random(src.height - y));
                        Blit { src, rect, at: (random(size.0 + 10), random(size.1 + 10)) }
                    })
                    .collect();
                let layout = Layout { extrude, padding: extrude, ..Layout::default() };
                let page = compose(size, &blits, layout).unwrap();
                assert!(page.rgba == reference(size, &blits, extrude).rgba, "extrude {extrude}, round {round}");
            }
        }
        // More rows than one band, so bands meet inside frames.
        assert!(size.1 as usize > 2 * COMPOSE_BAND_ROWS);
    }
}
