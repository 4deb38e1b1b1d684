//! The products of a bake — a render, a sprite sheet with its engine data, an animated GIF, a
//! sequence of numbered frames — made from a loaded model and a resolved spec, the same way for
//! the command line, `check` cases and `bake` project entries (so the three give the same bytes).
//!
//! A product is made in two steps that a caller interleaves with its own checks:
//! [`Product::plan`] lists every file it will write (before anything renders), and
//! [`crate::bake::product::pipeline::write`], the one road from a resolved spec to files, renders it and
//! stages its files (a `check` case collects them to compare instead).
//!
//! Surface maps (the look's `maps`) are companion files of a render, a sheet or each frame,
//! named by [`maps::output_of`] (`walk.png` → `walk_n.png`, `walk_depth.png`) and listed in the
//! plan with the colour files. A GIF refuses them.

use std::path::{Path, PathBuf};

use glam::Vec2;
use serde::{Deserialize, Serialize};

use crate::bake::look::maps::{self, MapKind, Maps, SurfaceMaps};
use crate::bake::{FrameRequest, Loaded, look::palette, look::post, render_posed, scene, world_points};
use crate::budget::{MemoryBudget, bytes_for};
use crate::error::{Error, Result};
use crate::output::{FramePattern, OutputFormat, OutputPlan, encode_png};
use crate::raster::{Camera, Image, RenderOptions, Renderer};
use crate::spec::{AlphaName, Resolved};

use crate::bake::product::engines::{self, JsonFormat, file_name, page_path};
use crate::bake::{Cell, Directions, Sheet, frame::framing, page_bound, product::frames_data};

/// What a bake makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Product {
    /// One PNG of one moment (`render`, `thumbnail`).
    Render,
    /// A sprite sheet PNG with its engine data beside it (same stem: JSON, or a Godot `.tres`);
    /// a sheet of several pages is `NAME-0.png`, `NAME-1.png`, ... each with its JSON.
    Sheet,
    /// A looping animated GIF of one motion from one direction.
    Gif,
    /// Numbered PNG frames; the output is a pattern with `{clip}`, `{dir}` (index), `{dirname}`
    /// and `{frame}`; a JSON beside them says each frame's animation, pivot and duration
    /// (`frames_data`).
    Frames,
}

impl Product {
    /// The product's name as commands and manifests say it (`sheet`).
    pub fn name(self) -> &'static str {
        match self {
            Product::Render => "render",
            Product::Sheet => "sheet",
            Product::Gif => "gif",
            Product::Frames => "frames",
        }
    }

    /// Every file the product may write for `output` (a file, or a frame pattern), with its
    /// format, for the caller to check against its inputs before anything renders. A sheet's
    /// page count depends on its trimmed frames, known only once rendered: its plan lists the
    /// single-page files and every page up to the count of untrimmed frames
    /// ([`page_bound`]), and it writes some of them.
    ///
    /// # Errors
    /// A frame pattern that does not parse, a job that cannot be built (unknown clips), a
    /// sheet frame larger than a page; maps asked of a GIF ([`Product::maps`]).
    pub fn plan(self, output: &str, loaded: &Loaded, resolved: &Resolved) -> Result<OutputPlan> {
        let maps = self.maps(resolved)?;
        if self == Product::Sheet {
            // `-o walk.json`: the image and its data would be one file.
            let data = resolved.json_format.files(Path::new(output));
            if data.iter().any(|(path, _)| path == Path::new(output)) {
                let expected = "names the sheet image (.png); its data file is written beside it, named after it";
                return Err(Error::bad_option("output", output, expected));
            }
        }
        let mut plan = self.fixed_plan(output, resolved.json_format, maps).unwrap_or_default();
        match self {
            Product::Render | Product::Gif => {}
            Product::Sheet => {
                let job = loaded.job(resolved)?;
                let keys: Vec<(usize, u32)> = job.cell_keys()?.into_iter().map(|(row, dir, _)| (row, dir)).collect();
                let frame = (resolved.options.width, resolved.options.height);
                let pages = page_bound(&keys, frame, &resolved.layout)?;
                let path = PathBuf::from(output);
                for png in (0..pages).filter(|_| pages > 1).map(|i| page_path(&path, i, pages)) {
                    plan.add(&png, OutputFormat::Png);
                    for (data, format) in resolved.json_format.page_files(&png) {
                        plan.add(data, format);
                    }
                    for map in companions(&png.to_string_lossy(), maps).skip(1) {
                        plan.add(map, OutputFormat::Png);
                    }
                }
                // Files named after the animations (Unity's clips), mirrored ones included,
                // named as the sheet's tags are.
                let tags = job.tags();
                let names: Vec<String> = tags.iter().map(|t| t.name.clone()).collect();
                for (data, format) in resolved.json_format.job_files(&path, &names, !job.points.is_empty()) {
                    plan.add(data, format);
                }
                // GameMaker's strips, drawn from the pages as they are written.
                if resolved.json_format == JsonFormat::GameMaker {
                    for strip in engines::strip_paths(&path, &engines::strip_tags(&tags))? {
                        plan.add(strip, OutputFormat::Png);
                    }
                }
            }
            Product::Frames => {
                let job = loaded.job(resolved)?;
                let rows = job.row_names();
                if let Some(missing) = FramePattern::parse(output)?.missing_for(rows.len(), job.directions.count()) {
                    let (clips, directions) = (rows.len(), job.directions.count());
                    let expected = format!(
                        "the pattern needs {missing}: the job has {clips} clip(s) in {directions} direction(s), \
                         and every frame needs a file of its own"
                    );
                    return Err(Error::bad_option("output", output, expected));
                }
                // The colour frames, then each map's frames, then the data file.
                for output in companions(output, maps) {
                    let pattern = FramePattern::parse(&output)?;
                    for &(row, dir, frame) in &job.cell_keys()? {
                        let row = rows.get(row).map_or("rest", String::as_str);
                        plan.add(pattern.path(row, dir, &job.directions.name(dir), frame), OutputFormat::Png);
                    }
                }
                plan.add(frames_data::data_path(output), OutputFormat::Json);
            }
        }
        Ok(plan)
    }

    /// The files the product writes for `output` with `maps` that do not depend on the model: a
    /// render's or a GIF's file, a sheet's single-page PNG with its engine data in `format`
    /// (its pages depend on the frame count), none of the frames', whose names come from the
    /// clips and their frame counts (`None`).
    pub fn fixed_plan(self, output: &str, format: JsonFormat, maps: &[MapKind]) -> Option<OutputPlan> {
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
            // Maps are refused by `maps` before anything is planned.
            Product::Gif => {
                plan.add(path, OutputFormat::Gif);
                return Some(plan);
            }
            Product::Frames => return None,
        }
        for output in companions(output, maps).skip(1) {
            plan.add(output, OutputFormat::Png);
        }
        Some(plan)
    }

    /// The maps the product writes for `resolved`: the look's.
    ///
    /// # Errors
    /// [`Error::BadOption`] for maps, premultiplied alpha or points asked of a GIF: maps are
    /// companion images of a sheet, frames or a render, a GIF's pixels are opaque or
    /// transparent, and it has no data to write points in; `mirror` asked of numbered frames.
    pub fn maps(self, resolved: &Resolved) -> Result<&[MapKind]> {
        if self == Product::Frames && resolved.directions.mirrors() {
            let expected = "shows a direction as another's rectangle of a sheet drawn flipped, and numbered frames \
                            have no rectangle to share: bake a sheet, or leave `mirror` off";
            return Err(Error::bad_option("mirror", true, expected));
        }
        if self == Product::Gif && !resolved.spec.sprite.points.is_empty() {
            let expected = "a GIF has no data to write points in: the sheet and frames commands write them";
            return Err(Error::bad_option("points", resolved.spec.sprite.points.join(","), expected));
        }
        if self == Product::Gif && resolved.look.alpha == AlphaName::Premultiplied {
            let expected = "a GIF's pixels are opaque or transparent, with no alpha to premultiply";
            return Err(Error::bad_option("alpha", "premultiplied", expected));
        }
        let maps = resolved.look.maps.as_slice();
        if self == Product::Gif && !maps.is_empty() {
            let names: Vec<&str> = maps.iter().map(|&m| crate::spec::map_name(m)).collect();
            return Err(Error::bad_option(
                "maps",
                names.join(","),
                "a GIF has no maps: the sheet, frames and render commands make the maps of 2D lighting",
            ));
        }
        Ok(maps)
    }
}

/// `output` and then each map's output beside it ([`maps::output_of`]), normal first, each once.
fn companions<'a>(output: &'a str, maps: &'a [MapKind]) -> impl Iterator<Item = String> + 'a {
    let kinds = [MapKind::Normal, MapKind::Depth].into_iter().filter(|k| maps.contains(k));
    std::iter::once(output.to_string()).chain(kinds.map(|m| maps::output_of(output, m)))
}

impl Product {
    /// How many images the product renders (cells of a sheet or GIF, moments of a render), for a
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

/// One image per moment of the spec, each framed on its own posed geometry (with an auto size,
/// cut to it), with the look applied, and the maps of each, charged to `budget` first: a
/// render's images (`check` compares every moment of a case; a render writes one).
///
/// # Errors
/// Unknown clip or joint names, invalid render options, the images over the budget.
pub fn render_moments(
    loaded: &Loaded,
    resolved: &Resolved,
    budget: &MemoryBudget,
    progress: &(dyn Fn() + Sync),
) -> Result<(Vec<Image>, Vec<Maps>)> {
    let animation = loaded.animation(resolved)?;
    let options = resolved.render_options();
    let (w, h) = (options.width, options.height);
    let count = resolved.moments.len();
    let pixels = (count as u64).saturating_mul(u64::from(w) * u64::from(h));
    let bytes = bytes_for(pixels, 2 * 4).saturating_add(maps::bytes_for_images(&resolved.look.maps, pixels));
    budget.charge(bytes, || format!("{count} images of {w}x{h}"))?;
    let fixed = palette::load(&resolved.look)?;
    let renderer = Renderer::new();
    let model = &loaded.model;
    let (mut images, surfaces): (Vec<Image>, Vec<SurfaceMaps>) = resolved
        .moments
        .iter()
        .map(|&time| {
            let request = FrameRequest { animation: animation.clone(), time };
            let posed = request.pose(model);
            let points = world_points(model, &posed);
            let camera = Camera::fit(&resolved.view, &points, w as f32 / h as f32);
            let (camera, (w, h)) = if resolved.auto_size {
                let rule = framing::Rule::of(&resolved.look, resolved.view.margin);
                let (cameras, size) = framing::cut(&[camera], &framing::PosedFrames::one(&points), (w, h), &rule);
                (cameras.first().copied().unwrap_or(camera), size)
            } else {
                (camera, (w, h))
            };
            let options = RenderOptions { width: w, height: h, ..options.clone() };
            let image = render_posed(&renderer, model, &posed, camera, &options)?;
            let scene = scene(model, &posed, camera);
            let mut surfaces = SurfaceMaps::render(&renderer, &scene, &options, &resolved.look.maps)?;
            let joints = || crate::bake::joint_pixels(model, &request, &camera, w, h);
            let (image, _) = post::finish(&resolved.look, image, Vec2::ZERO, joints, &mut surfaces);
            progress();
            Ok((image, surfaces))
        })
        .collect::<Result<Vec<_>>>()?
        .into_iter()
        .unzip();
    // One palette and one depth range for every moment of the render.
    let maps =
        post::finish_output(&resolved.look, fixed.as_ref(), &mut images.iter_mut().collect::<Vec<_>>(), surfaces);
    Ok((images, maps))
}

/// The files of one image's maps beside `output`.
pub(in crate::bake) fn map_files(output: &str, maps: &Maps) -> Result<Vec<(PathBuf, Vec<u8>)>> {
    maps.iter().map(|(kind, map)| Ok((PathBuf::from(maps::output_of(output, kind)), encode_png(map)?))).collect()
}

/// `walk.png: 256x256`, with its maps: what a render wrote.
pub(in crate::bake) fn render_summary(output: &str, image: &Image, maps: &Maps) -> String {
    let kinds: Vec<MapKind> = maps.iter().map(|(k, _)| k).collect();
    format!("{output}: {}x{}{}", image.width, image.height, maps_note(output, &kinds))
}

/// ` (+ walk_n.png, walk_depth.png)` for a summary line; empty without maps.
fn maps_note(output: &str, kinds: &[MapKind]) -> String {
    let names: Vec<String> = kinds.iter().map(|&kind| maps::output_of(output, kind)).collect();
    if names.is_empty() { String::new() } else { format!(" (+ {})", names.join(", ")) }
}

/// The files of page `index` of `count` of a sheet written as `png`: its image and its maps,
/// encoded.
///
/// # Errors
/// Encoding fails.
pub(in crate::bake) fn page_files(
    png: &Path,
    index: usize,
    count: usize,
    image: &Image,
    maps: &Maps,
) -> Result<Vec<(PathBuf, Vec<u8>)>> {
    let path = page_path(png, index, count);
    let mut files = vec![(path.clone(), encode_png(image)?)];
    files.extend(map_files(&path.to_string_lossy(), maps)?);
    Ok(files)
}

/// The files of one cell of a frames product written to the pattern `output`: its image and
/// its maps, encoded, named by its row (`rows`), direction and frame.
///
/// # Errors
/// A pattern that does not parse; encoding fails.
pub(in crate::bake) fn frame_files(
    output: &str,
    cell: &Cell,
    rows: &[String],
    directions: &Directions,
) -> Result<Vec<(PathBuf, Vec<u8>)>> {
    let row = rows.get(cell.clip).map_or("rest", String::as_str);
    let direction = directions.name(cell.direction);
    let pattern = FramePattern::parse(output)?;
    let mut files = vec![(pattern.path(row, cell.direction, &direction, cell.frame), encode_png(&cell.image)?)];
    for (kind, map) in cell.maps.iter() {
        let pattern = FramePattern::parse(&maps::output_of(output, kind))?;
        files.push((pattern.path(row, cell.direction, &direction, cell.frame), encode_png(map)?));
    }
    Ok(files)
}

/// `walk.gif: 16 frames`, with the frames dropped because GIF delays cannot be shorter than 2 cs.
pub(in crate::bake) fn gif_summary(output: &str, frames: usize, dropped: usize) -> String {
    match dropped {
        0 => format!("{output}: {frames} frames"),
        d => format!(
            "{output}: {} frames ({d} dropped evenly: GIF delays cannot be shorter than 2 cs, 50 fps)",
            frames - d
        ),
    }
}

/// `walk_*.png: 64 frames written (+ ...)`.
pub(in crate::bake) fn frames_summary(output: &str, frames: usize, kinds: &[MapKind]) -> String {
    format!("{output}: {frames} frames written{}", maps_note(output, kinds))
}

/// One line saying what a sheet written to `output` holds, its pages with the maps of `kinds`
/// (`walk.png: 64 frames, 1042x2084`).
pub(in crate::bake) fn sheet_summary(output: &str, sheet: &Sheet, kinds: &[MapKind]) -> String {
    let frames: usize = sheet.pages.iter().map(|p| p.placements.len()).sum();
    let flipped = sheet.pages.iter().flat_map(|p| &p.placements).filter(|p| p.flipped).count();
    let shared = match (sheet.duplicates, flipped) {
        (0, 0) => String::new(),
        (d, 0) => format!(" ({d} duplicates stored once)"),
        (0, f) => format!(" ({f} mirrored)"),
        (d, f) => format!(" ({f} mirrored, {d} duplicates stored once)"),
    };
    let path = Path::new(output);
    let count = sheet.pages.len();
    let pages: Vec<String> = sheet
        .pages
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let png = page_path(path, i, count).to_string_lossy().into_owned();
            let name = if count > 1 { format!("{} ", file_name(Path::new(&png))) } else { String::new() };
            format!("{name}{}x{}{}", p.size.0, p.size.1, maps_note(&png, kinds))
        })
        .collect();
    match count {
        1 => format!("{output}: {frames} frames{shared}, {}", pages.join("")),
        _ => format!("{output}: {frames} frames{shared} on {count} pages: {}", pages.join(", ")),
    }
}

/// Files beside a sheet of `count` pages written to `output` that an earlier run left and this
/// one did not write: page files (`NAME-0.png`, `NAME-0.json`, ... up to the first index with
/// neither) and the single-page pair when this sheet has pages. They are left alone (a reader
/// that follows the JSON never sees them: it lists exactly the pages written); a caller names
/// them so nobody takes them for part of this sheet.
pub fn sheet_leftovers(output: &str, format: JsonFormat, count: usize) -> Vec<PathBuf> {
    let path = Path::new(output);
    let written: Vec<PathBuf> = (0..count).map(|i| page_path(path, i, count)).collect();
    let beside = |png: &Path| {
        let data = format.page_files(png).into_iter().map(|(p, _)| p);
        let maps = [MapKind::Normal, MapKind::Depth].map(|m| PathBuf::from(maps::output_of(&png.to_string_lossy(), m)));
        data.chain(maps).collect::<Vec<_>>()
    };
    let mut candidates = vec![path.to_path_buf()];
    for i in 0.. {
        let page = page_path(path, i, 2);
        if !page.exists() && !beside(&page).iter().any(|p| p.exists()) {
            break;
        }
        candidates.push(page);
    }
    candidates
        .into_iter()
        .filter(|png| !written.contains(png))
        .flat_map(|png| {
            let mut files = beside(&png);
            files.push(png);
            files
        })
        .filter(|p| p.is_file())
        .collect()
}
