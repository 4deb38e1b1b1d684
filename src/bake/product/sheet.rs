//! Sprite-sheet layout: where every frame goes.
//!
//! Layout: each frame is kept whole, or with trimming cropped to its opaque pixels; with
//! `dedupe`, identical frames ([`dedupe`]) are stored once. The kept rectangles are placed on
//! pages no larger than `max_size` ([`pack`]: rows per clip and direction, or tight). `padding`
//! pixels separate cells and surround each page; `extrude` repeats each frame's edge pixels
//! into the padding so engines' bilinear filtering never bleeds neighbours in.
//!
//! The data files that describe a sheet to engines (JSON, Godot resources) are written from
//! its pages' placements by [`crate::bake::product::engines`].

mod dedupe;
mod pack;

pub use pack::page_bound;

use rayon::prelude::*;

use crate::bake::look::maps::{self, MapKind, Maps};
use crate::bake::look::post::{Blit, crop};
use crate::bake::{Cell, JobInfo};
use crate::budget::{MemoryBudget, bytes_for};
use crate::error::{Error, Result};
use crate::raster::{Image, PixelRows};
use crate::sprite::Layout;

/// One placed frame.
#[derive(Debug, Clone, PartialEq)]
pub struct Placement {
    /// Frame name, e.g. `walk_SW_007` (clip, direction, frame).
    pub name: String,
    /// Animation (clip and direction) the frame belongs to, e.g. `walk_SW`.
    pub animation: String,
    /// The frame's row, direction and frame index in the job: frames sort by it into job
    /// order (clip, direction, frame), mirrored directions in their place.
    pub key: (usize, u32, usize),
    /// Whether the frame is its rectangle drawn flipped left to right about the pivot (a
    /// mirrored direction, [`crate::sprite::Directions::source_of`]): its rectangle, trim
    /// offsets, pivot and points are its source frame's, as the flip's transform needs them.
    pub flipped: bool,
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
    /// The job's points ([`JobInfo::points`]) in pixels of the untrimmed frame.
    pub points: Vec<(f32, f32)>,
}

/// One page of a sheet: its size and the frames on it (its image is drawn and handed on by a
/// [`SheetBuilder`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Page {
    /// Width and height in pixels.
    pub size: (u32, u32),
    /// Frames on this page, in cell order (duplicates share a rectangle).
    pub placements: Vec<Placement>,
}

/// A packed sheet: its pages and where every frame went.
#[derive(Debug, Clone, PartialEq)]
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

/// A sheet with its page images and their maps, held together (see `pack`).
#[derive(Debug, Clone)]
pub struct Packed {
    /// The layout and the frames' data.
    pub sheet: Sheet,
    /// Each page's image.
    pub images: Vec<Image>,
    /// Each page's maps, in the page's layout.
    pub maps: Vec<Maps>,
}

/// Packs `cells` (in job order: clip, direction, frame; every one of them held, whole) into a
/// sheet, naming them after `job`'s rows and directions, and draws its pages and their maps.
/// The pages beyond the cells' own size are charged to `budget` before they exist.
///
/// # Errors
/// No cells, a frame larger than a page ([`Error::BadOption`] `max_size`), pages over the
/// budget.
pub fn pack(cells: &[Cell], job: &JobInfo, layout: Layout, budget: &MemoryBudget) -> Result<Packed> {
    let first = cells.first().ok_or_else(|| Error::Invalid("no frames to put in a sheet".into()))?;
    let frame = (first.image.width, first.image.height);
    let rects: Vec<(u32, u32, u32, u32)> = cells.iter().map(|c| kept_rect(c, layout)).collect();
    let cropped: Vec<Cell>;
    let kept = if layout.trim {
        cropped = cells.iter().zip(&rects).map(|(c, &rect)| crop_cell(c.clone(), rect)).collect();
        &cropped
    } else {
        cells
    };
    // The cells were charged with a sheet as large as themselves; pages may be larger
    // (padding, rows that end short, powers of two).
    let cell_pixels = (cells.len() as u64).saturating_mul(u64::from(frame.0) * u64::from(frame.1));
    let charge = |sizes: &[(u32, u32)]| {
        let pixels: u64 = sizes.iter().map(|&(w, h)| u64::from(w) * u64::from(h)).sum();
        let count = sizes.len();
        budget.charge(bytes_for(pixels.saturating_sub(cell_pixels), 4), || {
            format!("{count} sheet pages ({pixels} pixels)")
        })
    };
    let mut pages: Vec<FinishedPage> = Vec::new();
    let sheet = pack_kept(kept, &rects, frame, job, layout, charge, &mut |page| {
        pages.push(page);
        Ok(())
    })?;
    pages.sort_by_key(|p| p.index);
    let (images, maps) = pages.into_iter().map(|p| (p.image, p.maps)).unzip();
    Ok(Packed { sheet, images, maps })
}

/// The rectangle of a cell a sheet keeps: with `trim` its opaque pixels (one transparent pixel
/// of an empty frame), else the whole frame.
pub(in crate::bake) fn kept_rect(cell: &Cell, layout: Layout) -> (u32, u32, u32, u32) {
    let whole = (0, 0, cell.image.width, cell.image.height);
    if layout.trim { cell.image.opaque_bounds().unwrap_or((0, 0, 1, 1)) } else { whole }
}

/// `cell` with its image and maps cut to `rect` (what a trimmed sheet keeps of it).
pub(in crate::bake) fn crop_cell(mut cell: Cell, (x, y, w, h): (u32, u32, u32, u32)) -> Cell {
    cell.image = crop(&cell.image, x, y, w, h);
    cell.maps.normal = cell.maps.normal.map(|m| crop(&m, x, y, w, h));
    cell.maps.depth = cell.maps.depth.map(|m| crop(&m, x, y, w, h));
    cell
}

/// Packs cells whose images (and maps) are their kept rectangles, `rects[i]` where cell `i`'s
/// lies in its `frame`: stores identical ones once with `dedupe`, lays the sheet out, calls
/// `charge` with the pages' sizes before any is drawn, and hands each page to `done` as it is
/// finished (pages are drawn one after another).
///
/// # Errors
/// No cells, a frame larger than a page, what `charge` or `done` return.
pub(in crate::bake) fn pack_kept(
    kept: &[Cell],
    rects: &[(u32, u32, u32, u32)],
    frame: (u32, u32),
    job: &JobInfo,
    layout: Layout,
    charge: impl FnOnce(&[(u32, u32)]) -> Result<()>,
    done: &mut dyn FnMut(FinishedPage) -> Result<()>,
) -> Result<Sheet> {
    let first = kept.first().ok_or_else(|| Error::Invalid("no frames to put in a sheet".into()))?;
    // The cell whose pixels each cell shows: itself, or an earlier identical one.
    let stored: Vec<usize> = if layout.dedupe { dedupe::originals(kept, rects) } else { (0..kept.len()).collect() };
    let keys: Vec<(usize, u32)> = kept.iter().map(|c| (c.clip, c.direction)).collect();
    let kinds: Vec<MapKind> = first.maps.iter().map(|(kind, _)| kind).collect();
    let mut builder = SheetBuilder::new(frame, rects, &stored, &keys, job.clone(), layout, &kinds)?;
    charge(&builder.page_sizes())?;
    builder.add(kept, done)?;
    builder.finish()
}

/// A page whose every frame is drawn: its image and its maps.
#[derive(Debug)]
pub struct FinishedPage {
    /// Its index in the sheet.
    pub index: usize,
    /// How many pages the sheet has.
    pub count: usize,
    /// The page.
    pub image: Image,
    /// Its maps, in its layout.
    pub maps: Maps,
    /// Its frames (those of mirrored directions aside: they are drawn from these).
    pub placements: Vec<Placement>,
}

/// Where one cell goes: its page, its corner there, the rectangle of it kept, and whether it
/// is drawn (a duplicate shows an earlier cell's pixels).
#[derive(Debug, Clone, Copy)]
struct Target {
    page: usize,
    at: (u32, u32),
    rect: (u32, u32, u32, u32),
    drawn: bool,
}

/// A page being drawn: allocated when its first frame arrives, handed on when its last does.
#[derive(Debug)]
struct Drawing {
    size: (u32, u32),
    image: Option<Image>,
    normal: Option<Image>,
    depth: Option<Image>,
    placements: Vec<Placement>,
    /// Frames still to come.
    waiting: usize,
}

/// A sheet drawn as its cells arrive, in job order: the layout is fixed up front from each
/// cell's kept rectangle, every cell is drawn into its page (and its maps into the page's
/// maps) when it arrives, and a page is handed on the moment its last frame is on it. With
/// whole frames and no deduplication the rectangles are known before anything renders, so
/// cells stream: a sheet then holds the pages in progress, never every cell, and a cell can
/// be rendered straight into its rectangle of its page ([`SheetBuilder::places`]) instead of
/// being copied there when it arrives.
#[derive(Debug)]
pub struct SheetBuilder {
    frame: (u32, u32),
    job: JobInfo,
    layout: Layout,
    kinds: Vec<MapKind>,
    targets: Vec<Target>,
    pages: Vec<Drawing>,
    duplicates: usize,
    /// Cells placed so far (the next one's index).
    arrived: usize,
    /// Per cell, whether it was drawn straight into its page ([`SheetBuilder::places`]).
    in_place: Vec<bool>,
    pivot: Option<glam::Vec2>,
}

impl SheetBuilder {
    /// Lays out cells of `frame` size whose kept rectangles are `rects`, each showing the
    /// pixels of cell `stored[i]` (itself, or an earlier duplicate's, which it shares only on
    /// its animation's page), in rows by their (clip, direction) `keys`; pages get the maps of
    /// `kinds`.
    ///
    /// # Errors
    /// A frame larger than a page ([`Error::BadOption`] `max_size`).
    pub fn new(
        frame: (u32, u32),
        rects: &[(u32, u32, u32, u32)],
        stored: &[usize],
        keys: &[(usize, u32)],
        job: JobInfo,
        layout: Layout,
        kinds: &[MapKind],
    ) -> Result<SheetBuilder> {
        let rows = pack::row_ids(keys.iter().copied());
        let pack::Shared { stored, items, arranged } = pack::arrange_shared(rects, stored, &rows, frame, &layout)?;
        let mut spot_of = vec![None; rects.len()];
        for (item, spot) in items.iter().zip(&arranged.spots) {
            spot_of[item.cell] = Some(*spot);
        }
        let mut pages: Vec<Drawing> = arranged
            .sizes
            .iter()
            .map(|&size| Drawing { size, image: None, normal: None, depth: None, placements: Vec::new(), waiting: 0 })
            .collect();
        let mut targets = Vec::with_capacity(rects.len());
        for (i, &rect) in rects.iter().enumerate() {
            let original = stored.get(i).copied().unwrap_or(i);
            let spot = spot_of
                .get(original)
                .copied()
                .flatten()
                .ok_or_else(|| Error::internal(format!("sheet frame {i} was not placed")))?;
            let page =
                pages.get_mut(spot.page).ok_or_else(|| Error::internal(format!("sheet page {} missing", spot.page)))?;
            page.waiting += 1;
            targets.push(Target { page: spot.page, at: (spot.x, spot.y), rect, drawn: original == i });
        }
        let duplicates = rects.len() - items.len();
        let kinds = kinds.to_vec();
        let in_place = vec![false; targets.len()];
        Ok(SheetBuilder { frame, job, layout, kinds, targets, pages, duplicates, arrived: 0, in_place, pivot: None })
    }

    /// Pages, in order, with their sizes.
    pub fn page_sizes(&self) -> Vec<(u32, u32)> {
        self.pages.iter().map(|p| p.size).collect()
    }

    /// The most bytes the pages in progress hold at once (images and maps) when cells arrive
    /// `wave` at a time: a page is allocated when a wave brings its first frame and handed on
    /// after the wave that brings its last.
    pub fn live_page_bytes(&self, wave: usize) -> u64 {
        let per_pixel = 4 * (1 + self.kinds.len() as u64);
        let bytes =
            |page: usize| self.pages.get(page).map_or(0, |p| u64::from(p.size.0) * u64::from(p.size.1) * per_pixel);
        let (mut first, mut last) = (vec![usize::MAX; self.pages.len()], vec![0; self.pages.len()]);
        for (i, t) in self.targets.iter().enumerate() {
            let w = i / wave.max(1);
            first[t.page] = first[t.page].min(w);
            last[t.page] = last[t.page].max(w);
        }
        // Each page adds its bytes from its first wave to its last: summed over a difference
        // array, linear in cells, waves and pages.
        let waves = self.targets.len().div_ceil(wave.max(1));
        let mut change = vec![0i128; waves + 1];
        for p in (0..self.pages.len()).filter(|&p| first[p] <= last[p]) {
            change[first[p]] += i128::from(bytes(p));
            change[last[p] + 1] -= i128::from(bytes(p));
        }
        let live = change.iter().scan(0i128, |sum, d| {
            *sum += d;
            Some(*sum)
        });
        u64::try_from(live.max().unwrap_or(0)).unwrap_or(u64::MAX)
    }

    /// Places the next `cells` (in job order, continuing where the last call stopped; each
    /// image and map is the cell's kept rectangle: the whole frame unless trimmed) and draws
    /// them; every page that is now complete goes to `done`, finished (an empty normal pixel
    /// is the flat normal).
    ///
    /// # Errors
    /// More cells than planned; a page too large to allocate; whatever `done` returns.
    pub fn add(&mut self, cells: &[Cell], done: &mut dyn FnMut(FinishedPage) -> Result<()>) -> Result<()> {
        let (fw, fh) = self.frame;
        let mut touched: Vec<usize> = Vec::new();
        let mut blits: Vec<(usize, usize)> = Vec::new(); // (page, cell in `cells`)
        for (k, cell) in cells.iter().enumerate() {
            let index = self.arrived + k;
            let target = *self
                .targets
                .get(index)
                .ok_or_else(|| Error::internal(format!("sheet frame {index} was not planned")))?;
            self.pivot.get_or_insert(cell.pivot);
            let key = (cell.clip, cell.direction, cell.frame);
            let (name, animation) = self.job.frame_names(key);
            let (rx, ry, rw, rh) = target.rect;
            let page = &mut self.pages[target.page];
            page.placements.push(Placement {
                name,
                animation,
                key,
                flipped: false,
                x: target.at.0,
                y: target.at.1,
                w: rw,
                h: rh,
                source_x: rx,
                source_y: ry,
                pivot: (cell.pivot.x / fw as f32, cell.pivot.y / fh as f32),
                duration: cell.duration,
                looping: cell.looping,
                points: cell.points.iter().map(|p| (p.x, p.y)).collect(),
            });
            page.waiting = page.waiting.saturating_sub(1);
            if !touched.contains(&target.page) {
                touched.push(target.page);
            }
            if target.drawn {
                blits.push((target.page, k));
            }
        }
        let in_place = self.in_place.get(self.arrived..self.arrived + cells.len()).unwrap_or_default();
        self.arrived += cells.len();
        let extrude = self.extrude();
        for &p in &touched {
            let target_of = |k: usize| self.targets[self.arrived - cells.len() + k];
            let on_page: Vec<usize> = blits.iter().filter(|(page, _)| *page == p).map(|&(_, k)| k).collect();
            let page = &mut self.pages[p];
            // Each image is its kept rectangle, drawn whole (unless it was drawn in place; its
            // maps never are).
            let kept = |k: usize| (0, 0, target_of(k).rect.2, target_of(k).rect.3);
            let colour: Vec<Blit> = on_page
                .iter()
                .filter(|&&k| in_place.get(k) != Some(&true))
                .map(|&k| Blit { src: &cells[k].image, rect: kept(k), at: target_of(k).at })
                .collect();
            draw(&mut page.image, page.size, &colour, extrude)?;
            for &kind in &self.kinds {
                let maps: Vec<Blit> = on_page
                    .iter()
                    .filter_map(|&k| {
                        cells[k].maps.get(kind).map(|src| Blit { src, rect: kept(k), at: target_of(k).at })
                    })
                    .collect();
                let image = match kind {
                    MapKind::Normal => &mut page.normal,
                    MapKind::Depth => &mut page.depth,
                };
                draw(image, page.size, &maps, extrude)?;
            }
            if page.waiting == 0 {
                let image = page.image.take().unwrap_or_default();
                let mut normal = page.normal.take();
                if let Some(normal) = &mut normal {
                    maps::fill_empty_normals(normal);
                }
                let maps = Maps { normal, depth: page.depth.take() };
                let placements = page.placements.clone();
                done(FinishedPage { index: p, count: self.pages.len(), image, maps, placements })?;
            }
        }
        Ok(())
    }

    /// Where cells `first..first + count` (the next ones to arrive) can be drawn straight into
    /// their pages, one entry a cell: the rows of its rectangle there, for each whole frame
    /// drawn (not a duplicate) on a sheet without extruded edges (which repeat the cell's own
    /// edges), else `None`. A cell given a place is not drawn again when it arrives, so its
    /// image may be left empty; its maps still arrive with it.
    ///
    /// # Errors
    /// A page too large to allocate; places that overlap or leave their page (a layout that
    /// cannot be).
    pub fn places(&mut self, first: usize, count: usize) -> Result<Vec<Option<PixelRows<'_>>>> {
        let mut places: Vec<Option<PixelRows>> = (0..count).map(|_| None).collect();
        if self.extrude() > 0 {
            return Ok(places);
        }
        let (fw, fh) = self.frame;
        // The cells placed, page by page: (entry in `places`, corner).
        let mut on_page: Vec<Vec<(usize, (u32, u32))>> = vec![Vec::new(); self.pages.len()];
        for k in 0..count {
            let Some(target) = self.targets.get(first + k) else { break };
            if target.drawn && target.rect == (0, 0, fw, fh) {
                on_page[target.page].push((k, target.at));
                self.in_place[first + k] = true;
            }
        }
        for (page, cells) in self.pages.iter_mut().zip(&on_page).filter(|(_, cells)| !cells.is_empty()) {
            if page.image.is_none() {
                page.image = Some(Image::new(page.size.0, page.size.1)?);
            }
            let Some(image) = &mut page.image else { continue };
            for (k, rows) in split_rects(image, cells.iter().map(|&(_, at)| at), (fw, fh))?.into_iter().enumerate() {
                places[cells[k].0] = PixelRows::new(fw, rows);
            }
        }
        Ok(places)
    }

    /// Edge pixels repeated into the padding: at most the padding.
    fn extrude(&self) -> u32 {
        self.layout.extrude.min(self.layout.padding)
    }

    /// Whether every cell has arrived.
    pub fn complete(&self) -> bool {
        self.arrived == self.targets.len()
    }

    /// The sheet's data once every cell has arrived.
    ///
    /// # Errors
    /// Cells still missing.
    pub fn finish(self) -> Result<Sheet> {
        if !self.complete() {
            return Err(Error::internal(format!("{} of {} sheet frames arrived", self.arrived, self.targets.len())));
        }
        let job = &self.job;
        let pages = self
            .pages
            .into_iter()
            .map(|p| Page { size: p.size, placements: with_mirrored(job, p.placements) })
            .collect();
        let pivot = self.pivot.unwrap_or_default();
        Ok(Sheet { pages, frame_size: self.frame, duplicates: self.duplicates, job: self.job, pivot })
    }
}

/// A page's `placements` with, after each frame of a direction that a mirrored one shows
/// flipped ([`crate::sprite::Directions::source_of`]), that mirrored frame: the same
/// rectangle, named for its own direction, `flipped`.
fn with_mirrored(job: &JobInfo, placements: Vec<Placement>) -> Vec<Placement> {
    let directions = &job.directions;
    let n = directions.count();
    let mirror_of = |d: u32| n.checked_sub(d).filter(|&m| directions.source_of(m) == Some(d));
    let mut all = Vec::with_capacity(placements.len());
    for placement in placements {
        let (row, direction, frame) = placement.key;
        let mirrored = mirror_of(direction).map(|m| {
            let key = (row, m, frame);
            let (name, animation) = job.frame_names(key);
            Placement { name, animation, key, flipped: true, ..placement.clone() }
        });
        all.push(placement);
        all.extend(mirrored);
    }
    all
}

/// Draws `blits` on `image`, a transparent page of `size` allocated on its first use.
///
/// # Errors
/// A page too large to allocate.
fn draw(image: &mut Option<Image>, size: (u32, u32), blits: &[Blit], extrude: u32) -> Result<()> {
    let image = match image {
        Some(image) => image,
        None => image.insert(Image::new(size.0, size.1)?),
    };
    compose_onto(image, blits, extrude);
    Ok(())
}

/// The rows of `image` under rectangles of `size` at `corners`, one list of rows a rectangle:
/// each row of the image split at the rectangles that cross it, left to right, so that every
/// rectangle owns its pixels alone.
///
/// # Errors
/// Rectangles that overlap or leave the image.
fn split_rects(
    image: &mut Image,
    corners: impl ExactSizeIterator<Item = (u32, u32)>,
    (w, h): (u32, u32),
) -> Result<Vec<Vec<&mut [u8]>>> {
    let corners: Vec<(usize, usize)> = corners.map(|(x, y)| (x as usize, y as usize)).collect();
    let (w, h, width) = (w as usize, h as usize, image.width as usize);
    let invalid = || Error::internal(format!("sheet cells of {w}x{h} at {corners:?} overlap or leave their page"));
    let mut rows: Vec<Vec<&mut [u8]>> = corners.iter().map(|_| Vec::with_capacity(h)).collect();
    // Rectangles by top row; those crossing the current row, left to right.
    let mut by_top: Vec<usize> = (0..corners.len()).collect();
    by_top.sort_by_key(|&k| corners[k].1);
    let (mut next, mut crossing) = (0, Vec::<usize>::new());
    for (y, row) in image.rgba.chunks_exact_mut(width * 4).enumerate() {
        crossing.retain(|&k| corners[k].1 + h > y);
        while let Some(&k) = by_top.get(next).filter(|&&k| corners[k].1 == y) {
            let at = crossing.partition_point(|&j| corners[j].0 < corners[k].0);
            crossing.insert(at, k);
            next += 1;
        }
        let (mut rest, mut x) = (row, 0);
        for &k in &crossing {
            let skip = corners[k].0.checked_sub(x).ok_or_else(invalid)?;
            let (piece, tail) = rest
                .split_at_mut_checked(skip * 4)
                .and_then(|(_, r)| r.split_at_mut_checked(w * 4))
                .ok_or_else(invalid)?;
            rows[k].push(piece);
            (rest, x) = (tail, corners[k].0 + w);
        }
    }
    if rows.iter().any(|r| r.len() != h) {
        return Err(invalid());
    }
    Ok(rows)
}

/// Rows of a page drawn by one parallel job: enough to amortise walking every blit.
const COMPOSE_BAND_ROWS: usize = 64;

/// Draws `blits` on `image` in order, their edges extruded by `extrude` pixels. Bands of rows
/// are drawn in parallel, each band every blit in order, so the bytes are those of drawing the
/// blits one after another on one thread.
fn compose_onto(image: &mut Image, blits: &[Blit], extrude: u32) {
    let width = image.width;
    let row_bytes = width as usize * 4;
    image.rgba.par_chunks_mut((row_bytes * COMPOSE_BAND_ROWS).max(1)).enumerate().for_each(|(band, rows)| {
        let first_row = (band * COMPOSE_BAND_ROWS) as u32;
        for blit in blits {
            blit.draw_rows(rows, width, first_row, extrude);
        }
    });
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
    fn each_rectangle_owns_its_rows_of_the_page() {
        // Rectangles in rows of a page (a rows layout), and packed tightly at odd corners.
        for corners in [vec![(1, 1), (5, 1), (9, 1), (1, 6), (5, 6)], vec![(7, 0), (0, 3), (3, 3), (10, 9), (0, 8)]] {
            let mut page = Image::new(13, 13).unwrap();
            let rows = split_rects(&mut page, corners.iter().copied(), (3, 4)).unwrap();
            for (k, rows) in rows.into_iter().enumerate() {
                assert_eq!(rows.len(), 4);
                for row in rows {
                    row.fill(k as u8 + 1);
                }
            }
            for y in 0..13 {
                for x in 0..13 {
                    let owner =
                        corners.iter().position(|&(cx, cy)| (cx..cx + 3).contains(&x) && (cy..cy + 4).contains(&y));
                    let expected = owner.map_or(0, |k| k as u8 + 1);
                    assert_eq!(page.pixel(x, y), Some([expected; 4]), "{corners:?}: ({x}, {y})");
                }
            }
        }
        // Overlapping, or past the page's right or bottom edge.
        for corners in [vec![(0, 0), (2, 3)], vec![(11, 0)], vec![(0, 10)]] {
            let mut page = Image::new(13, 13).unwrap();
            let err = split_rects(&mut page, corners.iter().copied(), (3, 4)).unwrap_err().to_string();
            assert!(err.contains("overlap or leave their page"), "{corners:?}: {err}");
        }
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
                let mut page = Image::new(size.0, size.1).unwrap();
                compose_onto(&mut page, &blits, extrude);
                assert!(page.rgba == reference(size, &blits, extrude).rgba, "extrude {extrude}, round {round}");
            }
        }
        // More rows than one band, so bands meet inside frames.
        assert!(size.1 as usize > 2 * COMPOSE_BAND_ROWS);
    }
}
