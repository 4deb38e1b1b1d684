//! The one road from a resolved spec to files: plan → render → stage. Every command that
//! writes a product (`render`, `sheet`, `gif`, `frames`, `thumbnail`, the entries of `bake`)
//! calls [`write()`] with a loaded model, and commits what it staged (a [`Transaction`]).
//!
//! **Cells stream.** A sprite job renders in waves ([`crate::bake::Prepared::render_waves`]) and
//! each wave leaves memory as soon as it is in its page or on disk:
//!
//! * frames: each cell is encoded and staged as its wave finishes;
//! * a sheet whose layout is known before rendering (whole frames, no `dedupe`): every cell is
//!   rendered straight into its rectangle of its page ([`SheetBuilder::places`]; copied in as
//!   it arrives where the look changes a cell after its render, or edges are extruded), and a
//!   page is encoded and staged the moment its last frame is on it, so memory holds the pages
//!   in progress and one wave;
//! * a trimmed or deduplicated sheet holds each cell cut to what it keeps; a GIF (one palette
//!   learned from every frame) holds each frame PNG-compressed; an output whose look decides
//!   over every cell (a built palette, depth maps) renders them all in one wave.
//!
//! It is the only road: `check` stages a case's files in memory ([`Collected`]) and compares
//! them with its golden. Cells render alone, so the bytes do not depend on the waves: a sheet
//! drawn wave by wave is the one `crate::bake::pack` makes of every cell at once (the integration
//! tests compare them).
//!
//! [`Transaction`]: crate::output::Transaction

use std::path::{Path, PathBuf};

use std::borrow::Cow;

use rayon::prelude::*;

use crate::bake::product::engines::{self, JsonFormat, Strips, check_pages, sheet_data_files, strip_tags};
use crate::bake::product::frames_data;
use crate::bake::product::products::{
    self, Product, frame_files, frames_summary, gif_summary, page_files, sheet_summary,
};
use crate::bake::product::sheet::{crop_cell, kept_rect, pack_kept};
use crate::bake::{Cell, FinishedPage, Job, Loaded, MapKind, Prepared, Sheet, SheetBuilder, WaveSink};
use crate::budget::{MemoryBudget, bytes_for};
use crate::error::{Error, Result};
use crate::output::gif::encode_gif_from;
use crate::output::{Transaction, decode_png_within, encode_png};
use crate::raster::{Image, PixelRows};
use crate::spec::Resolved;

/// Where a bake's files go as they are made. A [`Transaction`] writes each to a temporary
/// file at once (its bytes leave memory) and renames them all into place on commit. `Send`:
/// a sheet's last pages are staged on a worker thread while its engine data is made.
pub trait Stage: Send {
    /// Takes the file `path` with its content.
    ///
    /// # Errors
    /// The file cannot be staged (a folder cannot be created, the disk is full).
    fn stage(&mut self, path: &Path, bytes: &[u8]) -> Result<()>;
}

impl Stage for Transaction {
    fn stage(&mut self, path: &Path, bytes: &[u8]) -> Result<()> {
        Transaction::stage(self, path, bytes)
    }
}

/// A [`Stage`] that keeps every file in memory, in the order staged: what `check` compares
/// with a golden (and blesses into it).
#[derive(Debug, Default)]
pub struct Collected(pub Vec<(PathBuf, Vec<u8>)>);

impl Stage for Collected {
    fn stage(&mut self, path: &Path, bytes: &[u8]) -> Result<()> {
        self.0.push((path.to_path_buf(), bytes.to_vec()));
        Ok(())
    }
}

/// What [`write()`] staged.
#[derive(Debug, Clone, PartialEq)]
pub struct Written {
    /// Every file staged, in the order staged.
    pub files: Vec<PathBuf>,
    /// One line saying what was made (`walk.png: 64 frames, 1042x2084`).
    pub summary: String,
    /// The pages of a sheet (0 for other products): what a caller needs to find the pages an
    /// earlier run left beside it ([`crate::bake::product::products::sheet_leftovers`]).
    pub pages: usize,
    /// A sheet's layout: its pages and every frame's place on them.
    pub sheet: Option<Sheet>,
}

/// Renders `product` of `loaded` as `resolved` says and stages every file for `output` (a
/// file, or a frame pattern) in `stage`, cells streaming where the product allows (see the
/// module notes). The caller has checked the product's plan ([`Product::plan`]) against its
/// inputs; what streams and what is held is charged to `budget` before anything renders.
/// `progress` is called once per finished image, from any thread.
///
/// # Errors
/// Unknown clip or joint names, invalid render options, the images over the budget; a
/// render of several moments (only `check` renders those); a file that cannot be staged.
pub fn write(
    product: Product,
    loaded: &Loaded,
    resolved: &Resolved,
    output: &str,
    budget: &MemoryBudget,
    progress: &(dyn Fn() + Sync),
    stage: &mut dyn Stage,
) -> Result<Written> {
    product.maps(resolved)?;
    let mut staged = Staged { stage, files: Vec::new(), pages: 0, strips: None, sheet: None };
    match product {
        Product::Frames | Product::Sheet | Product::Gif => {
            let job = if product == Product::Gif { loaded.gif_job(resolved)? } else { loaded.job(resolved)? };
            let prepared = job.prepare(budget)?;
            // One wave of cells is held at a time; a streaming sheet draws them in its pages.
            let wave = prepared.wave_len();
            prepared.charge_wave(wave, product == Product::Sheet && streams(resolved), budget)?;
            let run = Streamed { job: &job, prepared: &prepared, wave, resolved, output, budget, progress };
            if product != Product::Sheet {
                let summary = if product == Product::Gif { run.gif(&mut staged)? } else { run.frames(&mut staged)? };
                return Ok(staged.written(summary));
            }
            let summary = if streams(resolved) { run.sheet(&mut staged)? } else { run.kept_sheet(&mut staged)? };
            Ok(staged.written(summary))
        }
        Product::Render => {
            let (images, maps) = products::render_moments(loaded, resolved, budget, progress)?;
            let ([image], [maps]) = (images.as_slice(), maps.as_slice()) else {
                let frames = format!("({} frames)", images.len());
                return Err(Error::bad_option("frame", frames, "one image is written"));
            };
            staged.stage(Path::new(output), &encode_png(image)?)?;
            staged.stage_all(products::map_files(output, maps)?)?;
            Ok(staged.written(products::render_summary(output, image, maps)))
        }
    }
}

/// Whether a sheet's layout is known before its cells render: whole frames (no `trim`), each
/// stored (no `dedupe`).
fn streams(resolved: &Resolved) -> bool {
    !resolved.layout.trim && !resolved.layout.dedupe
}

/// A [`Stage`] that remembers what it staged (and, for a sheet, its page count), and draws
/// GameMaker's strips from a sheet's pages as they are staged.
struct Staged<'s> {
    stage: &'s mut dyn Stage,
    files: Vec<PathBuf>,
    pages: usize,
    strips: Option<Strips>,
    sheet: Option<Sheet>,
}

impl Staged<'_> {
    fn stage(&mut self, path: &Path, bytes: &[u8]) -> Result<()> {
        self.stage.stage(path, bytes)?;
        self.files.push(path.to_path_buf());
        Ok(())
    }

    /// Stages a finished page of a sheet written as `png`, with its maps, and the strips it
    /// finishes.
    fn stage_page(&mut self, png: &Path, page: FinishedPage) -> Result<()> {
        let strips = self.strip_files(&page)?;
        let files = encode_page(png, page)?;
        self.stage_all(files)?;
        self.stage_all(strips)
    }

    /// The strips `page` finishes, encoded (none without strips).
    fn strip_files(&mut self, page: &FinishedPage) -> Result<Vec<(PathBuf, Vec<u8>)>> {
        match &mut self.strips {
            Some(strips) => strips.add_page(&page.image, &page.placements),
            None => Ok(Vec::new()),
        }
    }

    fn stage_all(&mut self, files: Vec<(PathBuf, Vec<u8>)>) -> Result<()> {
        for (path, bytes) in files {
            self.stage(&path, &bytes)?;
        }
        Ok(())
    }

    fn written(self, summary: String) -> Written {
        Written { files: self.files, summary, pages: self.pages, sheet: self.sheet }
    }
}

/// A sprite job framed, one wave of its cells charged: what frames and sheets stream from.
struct Streamed<'r, 'j, 'a> {
    job: &'r Job<'a>,
    prepared: &'r Prepared<'j, 'a>,
    /// Cells a wave renders.
    wave: usize,
    resolved: &'r Resolved,
    output: &'r str,
    budget: &'r MemoryBudget,
    progress: &'r (dyn Fn() + Sync),
}

impl Streamed<'_, '_, '_> {
    /// Frames: each wave's cells encoded in parallel, then staged in job order, each recorded
    /// for the data file staged after them ([`frames_data`]).
    fn frames(&self, staged: &mut Staged) -> Result<String> {
        let info = self.job.info();
        let count = self.prepared.cell_count();
        let longest = info.rows.iter().map(String::len).max().unwrap_or(0) as u64;
        let record = frames_data::FRAME_RECORD_BYTES + 2 * (self.output.len() as u64 + longest);
        self.budget
            .charge_part((count as u64).saturating_mul(record), || format!("the frame data of {count} frames"))?;
        let mut data = frames_data::FramesData::default();
        let mut kinds: Vec<MapKind> = Vec::new();
        self.prepared.render_waves(self.wave, self.progress, &mut |cells: Vec<Cell>| {
            if let Some(first) = cells.first() {
                kinds = first.maps.iter().map(|(kind, _)| kind).collect();
            }
            let encoded = cells
                .par_iter()
                .map(|cell| frame_files(self.output, cell, &info.rows, &info.directions))
                .collect::<Result<Vec<_>>>()?;
            for (cell, files) in cells.iter().zip(&encoded) {
                data.add(files, cell, &info);
            }
            for (path, bytes) in encoded.iter().flatten() {
                staged.stage(path, bytes)?;
            }
            Ok(())
        })?;
        staged.stage(&frames_data::data_path(self.output), &data.to_json(self.output, &info)?)?;
        Ok(frames_summary(self.output, count, &kinds))
    }

    /// A GIF: one palette is learned from every frame before the first is written, so each
    /// frame is held as it arrives, compressed (a sprite frame's PNG is a fraction of its
    /// pixels), and decoded again to learn the palette and to be encoded.
    fn gif(&self, staged: &mut Staged) -> Result<String> {
        let (w, h) = self.prepared.cell_size();
        let mut held: Vec<Vec<u8>> = Vec::with_capacity(self.prepared.cell_count());
        let mut durations: Vec<f32> = Vec::with_capacity(self.prepared.cell_count());
        self.prepared.render_waves(self.wave, self.progress, &mut |cells: Vec<Cell>| {
            let encoded = cells.par_iter().map(|cell| encode_png(&cell.image)).collect::<Result<Vec<_>>>()?;
            let bytes: u64 = encoded.iter().map(|png| png.len() as u64).sum();
            let count = held.len() + encoded.len();
            self.budget.charge(bytes, || format!("{count} GIF frames of {w}x{h}, compressed"))?;
            held.extend(encoded);
            durations.extend(cells.iter().map(|c| c.duration));
            Ok(())
        })?;
        // Our own PNGs, each decoded within its own known size.
        let decoded = bytes_for(u64::from(w) * u64::from(h), 4).saturating_mul(2);
        self.budget.charge(decoded, || format!("a GIF frame of {w}x{h} while it is encoded"))?;
        let frame = |i: usize| -> Result<Cow<'_, Image>> {
            let png = held.get(i).ok_or_else(|| Error::internal(format!("no GIF frame {i}")))?;
            decode_png_within(png, Path::new(self.output), &MemoryBudget::new(decoded)).map(Cow::Owned)
        };
        let (bytes, dropped) = encode_gif_from(held.len(), &frame, &durations, &self.resolved.gif)?;
        staged.stage(Path::new(self.output), &bytes)?;
        Ok(gif_summary(self.output, held.len(), dropped))
    }

    /// A sheet whose layout is fixed before rendering: pages drawn as cells arrive, each
    /// staged when complete, then the engine data.
    fn sheet(&self, staged: &mut Staged) -> Result<String> {
        let (fw, fh) = self.prepared.cell_size();
        let keys: Vec<(usize, u32)> = self.job.cell_keys()?.into_iter().map(|(row, dir, _)| (row, dir)).collect();
        let whole = vec![(0, 0, fw, fh); keys.len()];
        let stored: Vec<usize> = (0..keys.len()).collect();
        let (layout, kinds) = (self.resolved.layout, &self.resolved.look.maps);
        let mut builder = SheetBuilder::new((fw, fh), &whole, &stored, &keys, self.job.info(), layout, kinds)?;
        check_pages(self.resolved.json_format, builder.page_sizes().len())?;
        // Held besides the wave: the pages in progress, and the engine data.
        let frames = keys.len();
        let live = builder.live_page_bytes(self.wave);
        self.budget.charge_part(live, || format!("the sheet pages of {frames} frames in progress"))?;
        self.charge_sheet_data()?;
        staged.strips = self.strips()?;
        let png = PathBuf::from(self.output);
        let mut sink = SheetSink { builder: &mut builder, staged: &mut *staged, png: &png, last: Vec::new() };
        self.prepared.render_waves(self.wave, self.progress, &mut sink)?;
        let last = sink.last;
        let sheet = builder.finish()?;
        // The last pages are encoded and staged while the engine data is made.
        let (pages, data) = rayon::join(
            || -> Result<()> {
                let strips = last.iter().map(|page| staged.strip_files(page)).collect::<Result<Vec<_>>>()?;
                for files in last.into_par_iter().map(|page| encode_page(&png, page)).collect::<Result<Vec<_>>>()? {
                    staged.stage_all(files)?;
                }
                strips.into_iter().try_for_each(|files| staged.stage_all(files))
            },
            || sheet_data(&sheet, self.resolved, self.output),
        );
        pages?;
        staged.stage_all(data?)?;
        Ok(sheet_written(&sheet, self.resolved, self.output, staged))
    }

    /// A sheet whose layout needs every frame first (`trim`, `dedupe`): each cell is cut to
    /// what the sheet keeps of it as it arrives (with `trim`, its opaque pixels) and held so,
    /// charged as it comes; then the pages are laid out and drawn one at a time, each staged
    /// and let go.
    fn kept_sheet(&self, staged: &mut Staged) -> Result<String> {
        let (frame, layout, count) = (self.prepared.cell_size(), self.resolved.layout, self.prepared.cell_count());
        self.charge_sheet_data()?;
        staged.strips = self.strips()?;
        let (mut kept, mut rects) = (Vec::with_capacity(count), Vec::with_capacity(count));
        self.prepared.render_waves(self.wave, self.progress, &mut |cells: Vec<Cell>| {
            for cell in cells {
                let rect = kept_rect(&cell, layout);
                let cell = if layout.trim { crop_cell(cell, rect) } else { cell };
                let bytes = (cell.image.rgba.len() as u64).saturating_mul(1 + cell.maps.iter().count() as u64);
                self.budget
                    .charge(bytes, || format!("{count} frames of {}x{}, as the sheet keeps them", frame.0, frame.1))?;
                kept.push(cell);
                rects.push(rect);
            }
            Ok(())
        })?;
        let charge = |sizes: &[(u32, u32)]| {
            check_pages(self.resolved.json_format, sizes.len())?;
            // One page (and its maps) is drawn at a time.
            let largest = sizes.iter().map(|&(w, h)| u64::from(w) * u64::from(h)).max().unwrap_or(0);
            let maps = self.resolved.look.maps.len() as u64;
            self.budget.charge(largest.saturating_mul(4 * (1 + maps)), || format!("a sheet page of {largest} pixels"))
        };
        let png = PathBuf::from(self.output);
        let mut done = |page| staged.stage_page(&png, page);
        let sheet = pack_kept(&kept, &rects, frame, &self.job.info(), layout, charge, &mut done)?;
        finish_sheet(&sheet, self.resolved, self.output, staged)
    }

    /// GameMaker's strips of the sheet (`None` for the other formats), charged: see
    /// [`Strips::bytes`].
    fn strips(&self) -> Result<Option<Strips>> {
        if self.resolved.json_format != JsonFormat::GameMaker {
            return Ok(None);
        }
        let tags = strip_tags(&self.job.tags());
        let strips = Strips::new(Path::new(self.output), self.prepared.cell_size(), &tags);
        let count = tags.len();
        self.budget.charge_part(strips.bytes(), || format!("the GameMaker strips of {count} animations"))?;
        Ok(Some(strips))
    }

    /// Charges the sheet's engine data, held while it is written.
    fn charge_sheet_data(&self) -> Result<()> {
        let info = self.job.info();
        let longest_tag = info.rows.iter().map(String::len).max().unwrap_or(0) + engines::DIRECTION_TAG_BYTES;
        let frames = self.job.sheet_frame_count();
        let title = engines::file_stem(Path::new(self.output)).len();
        let bytes = engines::data_bytes(frames, title, longest_tag, &self.resolved.frame_names);
        self.budget.charge_part(bytes, || format!("the sheet data of {frames} frames"))
    }
}

/// Where a streaming sheet's waves go: cells are drawn straight into their pages where the
/// builder has places for them, each page is staged as its last cell arrives, and the pages the
/// last wave finishes are kept to be encoded while the engine data is made (it needs every
/// placement, so it waits for the last cell too).
struct SheetSink<'b, 's, 'p> {
    builder: &'b mut SheetBuilder,
    staged: &'b mut Staged<'s>,
    png: &'p Path,
    last: Vec<FinishedPage>,
}

impl WaveSink for SheetSink<'_, '_, '_> {
    fn places(&mut self, first: usize, count: usize) -> Result<Vec<Option<PixelRows<'_>>>> {
        self.builder.places(first, count)
    }

    fn take(&mut self, cells: Vec<Cell>) -> Result<()> {
        let mut finished = Vec::new();
        self.builder.add(&cells, &mut |page| {
            finished.push(page);
            Ok(())
        })?;
        if self.builder.complete() {
            self.last = finished;
            return Ok(());
        }
        finished.into_iter().try_for_each(|page| self.staged.stage_page(self.png, page))
    }
}

/// Stages a sheet's engine data once its pages are staged, and says what was made.
fn finish_sheet(sheet: &Sheet, resolved: &Resolved, output: &str, staged: &mut Staged) -> Result<String> {
    staged.stage_all(sheet_data(sheet, resolved, output)?)?;
    Ok(sheet_written(sheet, resolved, output, staged))
}

/// A sheet's engine data files.
fn sheet_data(sheet: &Sheet, resolved: &Resolved, output: &str) -> Result<Vec<(PathBuf, Vec<u8>)>> {
    let normal_maps = resolved.look.maps.contains(&MapKind::Normal);
    sheet_data_files(sheet, Path::new(output), resolved.json_format, &resolved.frame_names, normal_maps)
}

/// Records a staged sheet's page count and says what was made.
fn sheet_written(sheet: &Sheet, resolved: &Resolved, output: &str, staged: &mut Staged) -> String {
    staged.pages = sheet.pages.len();
    staged.sheet = Some(sheet.clone());
    // Maps in the order a summary names them: normal, then depth.
    let kinds = &resolved.look.maps;
    let kinds: Vec<MapKind> = [MapKind::Normal, MapKind::Depth].into_iter().filter(|k| kinds.contains(k)).collect();
    sheet_summary(output, sheet, &kinds)
}

/// A finished page encoded (with its maps) as the files of a sheet written as `png`. The page
/// itself is let go on a worker thread: unmapping a page of tens of megabytes takes
/// milliseconds the main thread has better uses for.
fn encode_page(png: &Path, page: FinishedPage) -> Result<Vec<(PathBuf, Vec<u8>)>> {
    let files = page_files(png, page.index, page.count, &page.image, &page.maps);
    rayon::spawn(move || drop(page));
    files
}
