//! The products of a bake — a render, a sprite sheet with its JSON, an animated GIF, a
//! sequence of numbered frames — made from a loaded model and a resolved spec, the same way for
//! the command line, `check` cases and `bake` project entries (so the three give the same bytes).
//!
//! A product is made in three steps that a caller interleaves with its own checks:
//! [`Product::plan`] lists every file it will write (before anything renders), [`bake`]
//! renders it, and [`Baked::files`] encodes the files to stage in one transaction.

use std::path::{Path, PathBuf};

use glam::Vec2;
use serde::{Deserialize, Serialize};

use super::{FrameRequest, Loaded, palette, post, render_posed, world_points};
use crate::budget::{MemoryBudget, bytes_for};
use crate::error::{Error, Result};
use crate::output::gif::encode_gif;
use crate::output::{FramePattern, OutputFormat, OutputPlan, encode_png};
use crate::raster::{Camera, Image, Renderer};
use crate::spec::Resolved;

use super::{Cell, JsonFormat, Sheet, pack, page_bound};

/// What a bake makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Product {
    /// One PNG of one moment (`render`, `thumbnail`).
    Render,
    /// A sprite sheet PNG with its JSON beside it (same stem); a sheet of several pages is
    /// `NAME-0.png`, `NAME-1.png`, ... each with its JSON.
    Sheet,
    /// A looping animated GIF of one motion from one direction.
    Gif,
    /// Numbered PNG frames; the output is a pattern with `{clip}`, `{dir}`, `{frame}`.
    Frames,
}

/// A rendered product, ready to encode.
#[derive(Debug, Clone)]
pub enum Baked {
    /// A render: one image per moment of the spec.
    Images(Vec<Image>),
    /// A packed sheet and the JSON layout to describe it with.
    Sheet {
        /// The sheet.
        sheet: Sheet,
        /// Its JSON layout.
        format: JsonFormat,
    },
    /// An encoded GIF.
    Gif {
        /// The file.
        bytes: Vec<u8>,
        /// Frames dropped because GIF delays cannot be shorter than 2 cs.
        dropped: usize,
        /// Frames rendered.
        frames: usize,
    },
    /// Every cell of a job with the names of its rows.
    Frames {
        /// The cells, in job order.
        cells: Vec<Cell>,
        /// Row names (clips, `A->B` transitions).
        rows: Vec<String>,
    },
}

/// The JSON file written beside a sheet page.
pub fn sheet_json_path(png: &Path) -> PathBuf {
    png.with_extension("json")
}

/// The PNG of page `index` of a sheet of `pages` pages written as `png`: `png` itself when
/// there is one page (what TexturePacker writes for a single page), else `NAME-index.EXT`
/// beside it (`walk.png` → `walk-0.png`, `walk-1.png`, ...).
pub fn sheet_page_path(png: &Path, index: usize, pages: usize) -> PathBuf {
    if pages <= 1 {
        return png.to_path_buf();
    }
    let mut name = png.file_stem().unwrap_or_default().to_os_string();
    name.push(format!("-{index}"));
    if let Some(ext) = png.extension() {
        name.push(".");
        name.push(ext);
    }
    png.with_file_name(name)
}

impl Product {
    /// Every file the product may write for `output` (a file, or a frame pattern), with its
    /// format, for the caller to check against its inputs before anything renders. A sheet's
    /// page count depends on its trimmed frames, known only once rendered: its plan lists the
    /// single-page files and every page up to the count of untrimmed frames
    /// ([`page_bound`]), and it writes some of them.
    ///
    /// # Errors
    /// A frame pattern that does not parse, a job that cannot be built (unknown clips), a
    /// sheet frame larger than a page.
    pub fn plan(self, output: &str, loaded: &Loaded, resolved: &Resolved) -> Result<OutputPlan> {
        let mut plan = self.fixed_plan(output).unwrap_or_default();
        match self {
            Product::Render | Product::Gif => {}
            Product::Sheet => {
                let job = loaded.job(resolved)?;
                let keys: Vec<(usize, u32)> = job.cell_keys().into_iter().map(|(row, dir, _)| (row, dir)).collect();
                let frame = (resolved.options.width, resolved.options.height);
                let pages = page_bound(&keys, frame, &resolved.layout)?;
                let path = PathBuf::from(output);
                for png in (0..pages).filter(|_| pages > 1).map(|i| sheet_page_path(&path, i, pages)) {
                    plan.add(&png, OutputFormat::Png).add(sheet_json_path(&png), OutputFormat::Json);
                }
            }
            Product::Frames => {
                let pattern = FramePattern::parse(output)?;
                let job = loaded.job(resolved)?;
                let rows = job.row_names();
                for (row, dir, frame) in job.cell_keys() {
                    let row = rows.get(row).map_or("rest", String::as_str);
                    plan.add(pattern.path(row, dir, frame), OutputFormat::Png);
                }
            }
        }
        Ok(plan)
    }

    /// The files the product writes for `output` that do not depend on the model: a
    /// render's or a GIF's file, a sheet's single-page PNG and JSON (its pages depend on the
    /// frame count), none of the frames', whose names come from the clips and their frame
    /// counts (`None`).
    pub fn fixed_plan(self, output: &str) -> Option<OutputPlan> {
        let mut plan = OutputPlan::new();
        let path = PathBuf::from(output);
        match self {
            Product::Render => {
                plan.add(path, OutputFormat::Png);
            }
            Product::Sheet => {
                plan.add(&path, OutputFormat::Png).add(sheet_json_path(&path), OutputFormat::Json);
            }
            Product::Gif => {
                plan.add(path, OutputFormat::Gif);
            }
            Product::Frames => return None,
        }
        Some(plan)
    }
}

impl Product {
    /// How many images [`bake`] renders (cells of a sheet or GIF, moments of a render), for a
    /// progress bar.
    ///
    /// # Errors
    /// A job that cannot be built (unknown clips).
    pub fn image_count(self, loaded: &Loaded, resolved: &Resolved) -> Result<usize> {
        Ok(match self {
            Product::Render => resolved.moments.len(),
            Product::Sheet | Product::Frames => loaded.job(resolved)?.cell_count(),
            Product::Gif => loaded.gif_job(resolved)?.cell_count(),
        })
    }
}

/// Renders a product. The finished images are charged to `budget` before anything renders;
/// `progress` is called once per finished image, from any thread.
///
/// # Errors
/// Unknown clip or joint names, invalid render options, the images over the budget.
pub fn bake(
    product: Product,
    loaded: &Loaded,
    resolved: &Resolved,
    budget: &MemoryBudget,
    progress: &(dyn Fn() + Sync),
) -> Result<Baked> {
    match product {
        Product::Render => render_moments(loaded, resolved, budget, progress).map(Baked::Images),
        Product::Sheet => {
            let job = loaded.job(resolved)?;
            let cells = job.render_with_progress(budget, progress)?;
            let sheet = pack(&cells, &job.row_names(), resolved.layout, budget)?;
            Ok(Baked::Sheet { sheet, format: resolved.json_format })
        }
        Product::Gif => {
            let job = loaded.gif_job(resolved)?;
            let cells = job.render_with_progress(budget, progress)?;
            let frames: Vec<Image> = cells.iter().map(|c| c.image.clone()).collect();
            let durations: Vec<f32> = cells.iter().map(|c| c.duration).collect();
            let (bytes, dropped) = encode_gif(&frames, &durations, &resolved.gif)?;
            Ok(Baked::Gif { bytes, dropped, frames: frames.len() })
        }
        Product::Frames => {
            let job = loaded.job(resolved)?;
            let cells = job.render_with_progress(budget, progress)?;
            Ok(Baked::Frames { cells, rows: job.row_names() })
        }
    }
}

/// One image per moment of the spec, each framed on its own posed geometry, with the look
/// applied.
fn render_moments(
    loaded: &Loaded,
    resolved: &Resolved,
    budget: &MemoryBudget,
    progress: &(dyn Fn() + Sync),
) -> Result<Vec<Image>> {
    let animation = loaded.animation(resolved)?;
    let options = resolved.render_options();
    let (w, h) = (options.width, options.height);
    let count = resolved.moments.len();
    let pixels = (count as u64).saturating_mul(u64::from(w) * u64::from(h));
    budget.charge(bytes_for(pixels, 2 * 4), || format!("{count} images of {w}x{h}"))?;
    let fixed = palette::load(&resolved.look)?;
    let renderer = Renderer::new();
    let model = &loaded.model;
    let mut images = resolved
        .moments
        .iter()
        .map(|&time| {
            let request = FrameRequest { animation: animation.clone(), time };
            let posed = request.pose(model);
            let camera = Camera::fit(&resolved.view, &world_points(model, &posed), w as f32 / h as f32);
            let image = render_posed(&renderer, model, &posed, camera, &options)?;
            let joints = || super::joint_pixels(model, &request, &camera, w, h);
            let (image, _) = post::finish(&resolved.look, image, Vec2::ZERO, joints);
            progress();
            Ok(image)
        })
        .collect::<Result<Vec<Image>>>()?;
    // One palette for every moment of the render.
    palette::apply(&resolved.look, fixed.as_ref(), &mut images.iter_mut().collect::<Vec<_>>());
    Ok(images)
}

impl Baked {
    /// The files to write for `output` (as given to [`Product::plan`]), encoded.
    ///
    /// # Errors
    /// Encoding fails; a render of several moments (only `check` renders those, and compares
    /// them instead of writing them).
    pub fn files(&self, output: &str) -> Result<Vec<(PathBuf, Vec<u8>)>> {
        let path = PathBuf::from(output);
        match self {
            Baked::Images(images) => match images.as_slice() {
                [image] => Ok(vec![(path, encode_png(image)?)]),
                _ => Err(Error::bad_option("frame", format!("({} frames)", images.len()), "one image is written")),
            },
            Baked::Sheet { sheet, format } => {
                let count = sheet.pages.len();
                let pngs: Vec<PathBuf> = (0..count).map(|i| sheet_page_path(&path, i, count)).collect();
                let jsons: Vec<PathBuf> = pngs.iter().map(|p| sheet_json_path(p)).collect();
                let mut files = Vec::with_capacity(2 * count);
                for (i, ((page, png), json_path)) in sheet.pages.iter().zip(&pngs).zip(&jsons).enumerate() {
                    let related: Vec<String> =
                        jsons.iter().enumerate().filter(|&(j, _)| j != i).map(|(_, p)| file_name(p)).collect();
                    let json = serde_json::to_string_pretty(&sheet.to_json(page, &file_name(png), &related, *format))
                        .map_err(|e| Error::Invalid(format!("encoding the sheet JSON: {e}")))?;
                    files.push((png.clone(), encode_png(&page.image)?));
                    files.push((json_path.clone(), json.into_bytes()));
                }
                Ok(files)
            }
            Baked::Gif { bytes, .. } => Ok(vec![(path, bytes.clone())]),
            Baked::Frames { cells, rows } => {
                let pattern = FramePattern::parse(output)?;
                cells
                    .iter()
                    .map(|c| {
                        let row = rows.get(c.clip).map_or("rest", String::as_str);
                        Ok((pattern.path(row, c.direction, c.frame), encode_png(&c.image)?))
                    })
                    .collect()
            }
        }
    }

    /// Files beside a sheet written to `output` that an earlier run left and this one did not
    /// write: page files (`NAME-0.png`, `NAME-0.json`, ... up to the first index with neither)
    /// and the single-page pair when this sheet has pages. They are left alone (a reader that
    /// follows the JSON never sees them: it lists exactly the pages written); a caller names
    /// them so nobody takes them for part of this sheet.
    pub fn leftovers(&self, output: &str) -> Vec<PathBuf> {
        let Baked::Sheet { sheet, .. } = self else { return Vec::new() };
        let path = Path::new(output);
        let count = sheet.pages.len();
        let written: Vec<PathBuf> = (0..count).map(|i| sheet_page_path(path, i, count)).collect();
        let mut candidates = vec![path.to_path_buf()];
        for i in 0.. {
            let page = sheet_page_path(path, i, 2);
            if !page.exists() && !sheet_json_path(&page).exists() {
                break;
            }
            candidates.push(page);
        }
        candidates
            .into_iter()
            .filter(|png| !written.contains(png))
            .flat_map(|png| [sheet_json_path(&png), png])
            .filter(|p| p.is_file())
            .collect()
    }

    /// One line saying what was made (`walk.png: 64 frames, 1042x2084`).
    pub fn summary(&self, output: &str) -> String {
        match self {
            Baked::Images(images) => {
                let (w, h) = images.first().map_or((0, 0), |i| (i.width, i.height));
                format!("{output}: {w}x{h}")
            }
            Baked::Sheet { sheet, .. } => {
                let frames: usize = sheet.pages.iter().map(|p| p.placements.len()).sum();
                let shared = match sheet.duplicates {
                    0 => String::new(),
                    d => format!(" ({d} duplicates stored once)"),
                };
                let size = |page: &super::Page| format!("{}x{}", page.image.width, page.image.height);
                match sheet.pages.as_slice() {
                    [page] => format!("{output}: {frames} frames{shared}, {}", size(page)),
                    pages => {
                        let path = Path::new(output);
                        let list: Vec<String> = pages
                            .iter()
                            .enumerate()
                            .map(|(i, p)| format!("{} {}", file_name(&sheet_page_path(path, i, pages.len())), size(p)))
                            .collect();
                        format!("{output}: {frames} frames{shared} on {} pages: {}", pages.len(), list.join(", "))
                    }
                }
            }
            Baked::Gif { frames, dropped, .. } => match dropped {
                0 => format!("{output}: {frames} frames"),
                d => format!(
                    "{output}: {} frames ({d} dropped evenly: GIF delays cannot be shorter than 2 cs, 50 fps)",
                    frames - d
                ),
            },
            Baked::Frames { cells, .. } => format!("{output}: {} frames written", cells.len()),
        }
    }
}

/// A path's file name, as a JSON file names its neighbours.
fn file_name(path: &Path) -> String {
    path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}
