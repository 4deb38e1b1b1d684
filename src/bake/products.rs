//! The products of a bake — a render, a sprite sheet with its engine data, an animated GIF, a
//! sequence of numbered frames — made from a loaded model and a resolved spec, the same way for
//! the command line, `check` cases and `bake` project entries (so the three give the same bytes).
//!
//! A product is made in three steps that a caller interleaves with its own checks:
//! [`Product::plan`] lists every file it will write (before anything renders), [`bake`]
//! renders it, and [`Baked::files`] encodes the files to stage in one transaction.

use std::path::PathBuf;

use glam::Vec2;
use serde::{Deserialize, Serialize};

use super::{FrameRequest, Loaded, palette, post, render_posed, world_points};
use crate::budget::{MemoryBudget, bytes_for};
use crate::error::{Error, Result};
use crate::output::gif::encode_gif;
use crate::output::{FramePattern, OutputFormat, OutputPlan, encode_png};
use crate::raster::{Camera, Image, RenderOptions, Renderer};
use crate::spec::Resolved;

use super::engines::{self, FrameNames, JsonFormat, sheet_files};
use super::{Cell, Directions, Sheet, framing, pack};

/// What a bake makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Product {
    /// One PNG of one moment (`render`, `thumbnail`).
    Render,
    /// A sprite sheet PNG with its engine data beside it (same stem: JSON, or a Godot `.tres`).
    Sheet,
    /// A looping animated GIF of one motion from one direction.
    Gif,
    /// Numbered PNG frames; the output is a pattern with `{clip}`, `{dir}` (index), `{dirname}`
    /// and `{frame}`.
    Frames,
}

/// A rendered product, ready to encode.
#[derive(Debug, Clone)]
pub enum Baked {
    /// A render: one image per moment of the spec.
    Images(Vec<Image>),
    /// A packed sheet and the engine data to describe it with.
    Sheet {
        /// The sheet.
        sheet: Sheet,
        /// Its engine data.
        format: JsonFormat,
        /// Its frames' names.
        names: FrameNames,
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
    /// Every cell of a job with the names of its rows and directions.
    Frames {
        /// The cells, in job order.
        cells: Vec<Cell>,
        /// Row names (clips, `A->B` transitions).
        rows: Vec<String>,
        /// The job's directions.
        directions: Directions,
    },
}

impl Product {
    /// Every file the product writes for `output` (a file, or a frame pattern), with its
    /// format, for the caller to check against its inputs before anything renders.
    ///
    /// # Errors
    /// A frame pattern that does not parse, or a job that cannot be built (unknown clips).
    pub fn plan(self, output: &str, loaded: &Loaded, resolved: &Resolved) -> Result<OutputPlan> {
        if let Some(plan) = self.fixed_plan(output, resolved.json_format) {
            return Ok(plan);
        }
        let mut plan = OutputPlan::new();
        let pattern = FramePattern::parse(output)?;
        let job = loaded.job(resolved)?;
        let rows = job.row_names();
        for (row, dir, frame) in job.cell_keys() {
            let row = rows.get(row).map_or("rest", String::as_str);
            plan.add(pattern.path(row, dir, &job.directions.name(dir), frame), OutputFormat::Png);
        }
        Ok(plan)
    }

    /// The files the product writes for `output` when they do not depend on the model: every
    /// product's but the frames', whose names come from the clips and their frame counts
    /// (`None`). A sheet writes its engine data in `format` beside it.
    pub fn fixed_plan(self, output: &str, format: JsonFormat) -> Option<OutputPlan> {
        let mut plan = OutputPlan::new();
        let path = PathBuf::from(output);
        match self {
            Product::Render => {
                plan.add(path, OutputFormat::Png);
            }
            Product::Sheet => {
                plan.add(&path, OutputFormat::Png);
                for (data, format) in format.files(&path) {
                    plan.add(data, format);
                }
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
            // The engine data is held while it is written: charged before it is made (after
            // the cells, whose charge is the larger and refuses a huge job before it renders).
            let info = job.info();
            let longest_tag = info.rows.iter().map(String::len).max().unwrap_or(0) + engines::DIRECTION_TAG_BYTES;
            let data = engines::data_bytes(cells.len(), longest_tag, &resolved.frame_names);
            budget.charge(data, || format!("the sheet data of {} frames", cells.len()))?;
            let sheet = pack(&cells, &info, resolved.layout)?;
            Ok(Baked::Sheet { sheet, format: resolved.json_format, names: resolved.frame_names.clone() })
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
            Ok(Baked::Frames { cells, rows: job.row_names(), directions: job.directions.clone() })
        }
    }
}

/// One image per moment of the spec, each framed on its own posed geometry (with an auto size,
/// cut to it), with the look applied.
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
            let points = world_points(model, &posed);
            let camera = Camera::fit(&resolved.view, &points, w as f32 / h as f32);
            let (camera, (w, h)) = if resolved.auto_size {
                let rule = framing::Rule::of(&resolved.look, resolved.view.margin);
                let (cameras, size) = framing::cut(&[camera], &points, (w, h), &rule);
                (cameras.first().copied().unwrap_or(camera), size)
            } else {
                (camera, (w, h))
            };
            let options = RenderOptions { width: w, height: h, ..options.clone() };
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
    /// them instead of writing them); sheet frame names that collide.
    pub fn files(&self, output: &str) -> Result<Vec<(PathBuf, Vec<u8>)>> {
        let path = PathBuf::from(output);
        match self {
            Baked::Images(images) => match images.as_slice() {
                [image] => Ok(vec![(path, encode_png(image)?)]),
                _ => Err(Error::bad_option("frame", format!("({} frames)", images.len()), "one image is written")),
            },
            Baked::Sheet { sheet, format, names } => sheet_files(sheet, &path, *format, names),
            Baked::Gif { bytes, .. } => Ok(vec![(path, bytes.clone())]),
            Baked::Frames { cells, rows, directions } => {
                let pattern = FramePattern::parse(output)?;
                cells
                    .iter()
                    .map(|c| {
                        let row = rows.get(c.clip).map_or("rest", String::as_str);
                        let path = pattern.path(row, c.direction, &directions.name(c.direction), c.frame);
                        Ok((path, encode_png(&c.image)?))
                    })
                    .collect()
            }
        }
    }

    /// One line saying what was made (`walk.png: 64 frames, 1042x2084`).
    pub fn summary(&self, output: &str) -> String {
        match self {
            Baked::Images(images) => {
                let (w, h) = images.first().map_or((0, 0), |i| (i.width, i.height));
                format!("{output}: {w}x{h}")
            }
            Baked::Sheet { sheet, .. } => {
                format!("{output}: {} frames, {}x{}", sheet.placements.len(), sheet.image.width, sheet.image.height)
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
