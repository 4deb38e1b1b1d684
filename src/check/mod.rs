//! `check`: bake the cases of a manifest, compare them with their goldens, report.
//!
//! A case is a [`crate::BakeSpec`] plus golden-test keys ([`manifest::CASE_KEYS`]), and bakes
//! through the same path as the command line (`crate::bake::product::products`), so a case and the
//! command with the same options make the same images. What a case compares depends on its
//! `kind`:
//!
//! | kind | golden | compared |
//! |---|---|---|
//! | `render` (default) | a PNG; several `frame`s: one PNG in a grid `columns` wide, or a folder (`golden` ending in `/`) of `frame_NNN.png` | each frame |
//! | `sheet` | the sheet PNG, its JSON beside it (same stem) | the image, then the JSON text |
//! | `gif` | a GIF | frame count, every frame's delay, every frame |
//! | `frames` | a folder of `{clip}_{dir}_{frame:03}.png` | every frame |
//!
//! Frames are compared one by one under the case's tolerance, so a failure names every frame
//! that regressed. Cases run in parallel; a case that cannot run (missing model, unreadable
//! golden) fails alone with its reason.
//!
//! Every path a case names (`model`, `anim`, `attach`, `texture`, `texture_root`, `golden`) is
//! relative to the manifest's folder and must lead inside it, or inside a folder allowed with
//! [`Manifest::allowing`] (`check --allow-dir`), symbolic links followed first; anything else
//! is that case's error, naming the key and the rule (see `crate::confine`).

mod case;
pub(crate) mod detail;
mod gif_frames;
pub(crate) mod github;
pub(crate) mod manifest;
mod options;
mod outcome;
pub(crate) mod plan;
mod render_golden;
pub(crate) mod report;
mod tolerance;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use case::{Actual, Case, Expected, data_difference};
pub(crate) use detail::{CaseDetail, FrameNumbers, FrameResult};
pub use manifest::{CaseKeys, CaseSpec, Manifest};
pub use options::CheckOptions;
pub use outcome::{CaseResult, Outcome};
use plan::{add_out_files, confined_golden, fixed_golden_files, frames_pattern, out_files, resolve, selected};
use render_golden::{is_golden_folder, render_golden_files, render_golden_paths, sheet_of, split_sheet};
pub use report::{ReportContext, html_report, json_report, junit_xml};
pub use tolerance::Tolerance;

use crate::bake::product::engines::page_path;
use crate::bake::product::pipeline::{self, Collected};
use crate::bake::{self, Product};
use crate::budget::{BATCH_BYTES, MemoryBudget, is_pool_spent, run_pooled};
use crate::error::{Error, Result};
use crate::golden::{compare_perceptual, perceptual_diff_image};
use crate::output::{OutputPlan, Transaction, decode_png_within, encode_png, read_png_within};
use crate::raster::Image;

/// Runs the manifest's selected cases in parallel, the results in manifest order, every case's
/// model and frames drawing on one pool of [`crate::budget::BATCH_BYTES`]; a case the pool
/// cannot take runs again after the others, alone. Each case writes its files (actual, diff,
/// blessed golden) all together when it ends, or none of them.
pub fn run(manifest: &Manifest, options: &CheckOptions) -> Vec<CaseResult> {
    let cases = selected(manifest, options);
    let run = |spec: &&CaseSpec, pool: Option<&Arc<MemoryBudget>>| run_one(spec, manifest, options, pool);
    run_pooled(&cases, BATCH_BYTES, run, |spec, e| errored(blank_result(spec, manifest), &e))
}

/// A case's result before it runs: passing, with nothing made.
fn blank_result(spec: &CaseSpec, manifest: &Manifest) -> CaseResult {
    // A refused golden is left out of the result, so no report can copy it.
    let golden = confined_golden(&spec.keys, &manifest.scope).unwrap_or_default();
    CaseResult {
        name: spec.keys.name.clone(),
        outcome: Outcome::Pass,
        golden,
        actual: None,
        diff: None,
        expected: None,
        seconds: 0.0,
        detail: None,
        files: Vec::new(),
    }
}

/// `result` failed with `e`: nothing the case staged was written.
fn errored(mut result: CaseResult, e: &Error) -> CaseResult {
    (result.actual, result.diff, result.detail) = (None, None, None);
    result.outcome = Outcome::Error(e.to_string());
    result
}

/// One case, timed; `Err` only when `pool` could not take it.
fn run_one(
    spec: &CaseSpec,
    manifest: &Manifest,
    options: &CheckOptions,
    pool: Option<&Arc<MemoryBudget>>,
) -> Result<CaseResult> {
    let start = std::time::Instant::now();
    let mut result = blank_result(spec, manifest);
    let case = resolve(spec, &manifest.scope, options);
    match case.and_then(|case| run_case(&case, options, pool, &mut result)) {
        Ok(outcome) => result.outcome = outcome,
        Err(e) if is_pool_spent(&e) => return Err(e),
        Err(e) => result = errored(result, &e),
    }
    if !matches!(result.outcome, Outcome::Fail { .. } | Outcome::New) {
        result.detail = None;
    }
    result.seconds = start.elapsed().as_secs_f64();
    Ok(result)
}

fn run_case(
    case: &Case,
    options: &CheckOptions,
    pool: Option<&Arc<MemoryBudget>>,
    result: &mut CaseResult,
) -> Result<Outcome> {
    let resolved = &case.resolved;
    // The model and its attachments each get a budget, as `bake::load` gives them, held
    // (drawing on the pool) while the case runs.
    let model_budget = || MemoryBudget::in_pool(resolved.load.limits.max_memory_bytes, pool);
    let (body, attachments) = (model_budget(), model_budget());
    let loaded = bake::load_within(resolved, &body, &attachments)?;
    let golden = case.golden.to_string_lossy().into_owned();
    // This case's outputs, checked against every file its model read before rendering.
    let mut plan = OutputPlan::new();
    add_out_files(case, options, &mut plan);
    let mut inputs = loaded.inputs.clone();
    let goldens = match case.keys.kind {
        Product::Frames => case.keys.kind.plan(&frames_pattern(&case.golden), &loaded, resolved)?,
        // A sheet's pages depend on its frames: every page it may have.
        Product::Sheet => case.keys.kind.plan(&golden, &loaded, resolved)?,
        _ => {
            let mut p = OutputPlan::new();
            for (path, format) in fixed_golden_files(case) {
                p.add(path, format);
            }
            p
        }
    };
    if options.bless {
        for o in goldens.outputs() {
            plan.add(&o.path, o.format);
        }
    } else {
        inputs.extend(goldens.outputs().iter().map(|o| o.path.clone()));
    }
    plan.check(&inputs)?;
    result.files = inputs.clone();
    result.files.extend(plan.outputs().iter().map(|o| o.path.clone()));
    // Rendered frames and goldens are held together: each charged before it exists.
    let budget = MemoryBudget::in_pool(resolved.limits.max_memory_bytes, pool);
    let actual = match case.keys.kind {
        Product::Render => rendered_moments(case, &loaded, &budget)?,
        kind => {
            // The files the product writes, made as the command makes them, kept in memory.
            let output = if kind == Product::Frames { frames_pattern(&case.golden) } else { golden };
            let mut collected = Collected::default();
            let written = pipeline::write(kind, &loaded, resolved, &output, &budget, &|| {}, &mut collected)?;
            collected_actual(case, collected.0, &written, &budget)?
        }
    };
    let mut files = Transaction::new();
    let outcome = judge(case, &actual, &budget, options, result, &mut files)?;
    files.commit()?;
    Ok(outcome)
}

/// A render case's moments, each a frame, and the golden files they make.
fn rendered_moments(case: &Case, loaded: &bake::Loaded, budget: &MemoryBudget) -> Result<Actual> {
    let (frames, _) = bake::render_moments(loaded, &case.resolved, budget, &|| {})?;
    let labels = case.resolved.moments.iter().map(|t| moment_label(*t)).collect();
    let columns = case.keys.columns.max(1) as usize;
    let golden_files = render_golden_files(&case.golden, &frames, is_golden_folder(&case.golden), columns)?;
    Ok(Actual { frames, labels, golden_files, delays: Vec::new(), data: Vec::new(), cells: Vec::new() })
}

/// What a case of a sheet, frames or a GIF made, from the `files` its product staged (as
/// [`pipeline::write`] stages them for the golden's name) and what it `written`: every image
/// a frame compared (pages, frames, maps, strips; a GIF's frames), in the order written, and
/// the data files.
fn collected_actual(
    case: &Case,
    files: Vec<(PathBuf, Vec<u8>)>,
    written: &pipeline::Written,
    budget: &MemoryBudget,
) -> Result<Actual> {
    let mut actual = Actual {
        frames: Vec::new(),
        labels: Vec::new(),
        golden_files: Vec::new(),
        delays: Vec::new(),
        data: data_files(&files),
        cells: Vec::new(),
    };
    if case.keys.kind == Product::Gif {
        let bytes = files.first().map_or(&[][..], |(_, b)| b.as_slice());
        let (frames, delays) = gif_frames::decode(bytes, Path::new("(rendered GIF)"))?;
        actual.labels = (0..frames.len()).map(|i| format!("frame {i}")).collect();
        (actual.frames, actual.delays) = (frames, delays);
    } else {
        let pages: Vec<PathBuf> = (0..written.pages).map(|i| page_path(&case.golden, i, written.pages)).collect();
        for (path, bytes) in files.iter().filter(|(p, _)| is_image(p)) {
            actual.frames.push(decode_png_within(bytes, path, budget)?);
            actual.labels.push(match pages.iter().position(|p| p == path) {
                Some(_) if pages.len() == 1 => "sheet".into(),
                Some(i) => format!("page {i}"),
                None => path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default(),
            });
        }
    }
    // The report outlines a sheet's cells on its first page.
    let first = written.sheet.as_ref().and_then(|s| s.pages.first()).map_or(&[][..], |p| &p.placements);
    actual.cells = first.iter().map(|p| (p.name.clone(), [p.x, p.y, p.w, p.h])).collect();
    actual.golden_files = files;
    Ok(actual)
}

/// A sheet's page image or a frame (the others are data files: JSON, `.tres`, `.tscn`).
fn is_image(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "png")
}

/// The data files among `files`, each by its name with its text.
fn data_files(files: &[(PathBuf, Vec<u8>)]) -> Vec<(String, String)> {
    files
        .iter()
        .filter(|(p, _)| !is_image(p))
        .map(|(p, b)| (file_name(p), String::from_utf8_lossy(b).into_owned()))
        .collect()
}

/// `frame 4.5` or `time 1.2s`.
fn moment_label(t: crate::anim::FrameTime) -> String {
    match t {
        crate::anim::FrameTime::Frame(f) => format!("frame {f}"),
        crate::anim::FrameTime::Seconds(s) => format!("time {s}s"),
    }
}

/// Whether the golden exists at all (a case without one is new).
fn golden_exists(case: &Case, actual: &Actual) -> bool {
    match case.keys.kind {
        Product::Render if is_golden_folder(&case.golden) => case.golden.join("frame_000.png").is_file(),
        Product::Frames | Product::Sheet => actual.golden_files.first().is_some_and(|(p, _)| p.is_file()),
        _ => case.golden.is_file(),
    }
}

/// Reads a golden file: it passes the case's confinement first (a frame in a golden folder
/// may be a link) and is decoded within `budget`.
fn read_golden_png(case: &Case, file: &Path, budget: &MemoryBudget) -> Result<Image> {
    case.scope.file(file).map_err(|d| d.into_error(file, format!("golden '{}'", file.display())))?;
    read_png_within(file, budget)
}

fn read_expected(case: &Case, actual: &Actual, budget: &MemoryBudget) -> Result<Expected> {
    let golden = &case.golden;
    let mut expected = Expected { frames: Vec::new(), delays: Vec::new(), data: Vec::new() };
    match case.keys.kind {
        Product::Render => {
            let folder = is_golden_folder(golden);
            let (w, h) = (case.resolved.options.width, case.resolved.options.height);
            let count = actual.frames.len();
            expected.frames = if folder {
                render_golden_paths(golden, true, count)
                    .iter()
                    .map(|p| read_golden_png(case, p, budget))
                    .collect::<Result<_>>()?
            } else {
                let sheet = read_golden_png(case, golden, budget)?;
                split_sheet(sheet, golden, count, case.keys.columns.max(1) as usize, (w, h))?
            };
        }
        Product::Sheet | Product::Frames => {
            // The pages (frames) the render has, by the same names: a golden with other pages
            // differs in its data (each page's JSON names the others) or lacks a page.
            for (path, _) in &actual.golden_files {
                if is_image(path) {
                    expected.frames.push(read_golden_png(case, path, budget)?);
                } else {
                    // A golden made before its product wrote this data file (a frames golden
                    // before the frames' JSON) lacks it: say how to make it.
                    case.scope.file(path).map_err(|d| match d {
                        crate::confine::Denied::Missing(_) => Error::Invalid(format!(
                            "golden data file {} is missing (goldens made before it was written lack it): \
                             `--bless` writes it",
                            path.display()
                        )),
                        d => d.into_error(path, format!("golden '{}'", path.display())),
                    })?;
                    let bytes = crate::confine::read_file(path, budget.remaining())?;
                    expected.data.push(String::from_utf8_lossy(&bytes).into_owned());
                }
            }
        }
        Product::Gif => {
            case.scope.file(golden).map_err(|d| d.into_error(golden, format!("golden '{}'", golden.display())))?;
            let bytes = crate::confine::read_file(golden, budget.remaining())?;
            let (frames, delays) = gif_frames::decode_within(&bytes, golden, budget)?;
            (expected.frames, expected.delays) = (frames, delays);
        }
    }
    Ok(expected)
}

/// Compares a case's frames with its golden, staging the files the outcome calls for.
fn judge(
    case: &Case,
    actual: &Actual,
    budget: &MemoryBudget,
    options: &CheckOptions,
    result: &mut CaseResult,
    files: &mut Transaction,
) -> Result<Outcome> {
    let columns = case.keys.columns.max(1) as usize;
    let bless = |files: &mut Transaction| -> Result<Outcome> {
        for (path, bytes) in &actual.golden_files {
            files.stage(path, bytes)?;
        }
        Ok(Outcome::Blessed)
    };
    // The golden files read, or written by a bless: a report must not land on them.
    result.files.extend(actual.golden_files.iter().map(|(p, _)| p.clone()));
    if !golden_exists(case, actual) {
        write_outputs(case, &actual.frames, None, columns, options, result, files)?;
        if options.bless {
            return bless(files);
        }
        result.detail = Some(Box::new(detail::new_case(case, actual, options.report_images)?));
        return Ok(Outcome::New);
    }
    // A golden that cannot be used (corrupt, wrong size) is an error, unless blessing.
    let sizes_match = |e: &Expected| {
        e.frames.len() == actual.frames.len()
            && e.frames.iter().zip(&actual.frames).all(|(g, a)| (g.width, g.height) == (a.width, a.height))
    };
    let expected = match read_expected(case, actual, budget) {
        Ok(e) if sizes_match(&e) => e,
        // A golden the pool of a batch could not take is no unusable golden: the case runs again.
        Err(e) if is_pool_spent(&e) => return Err(e),
        _ if options.bless => return bless(files),
        Ok(e) => {
            let size = |f: &[Image]| f.first().map_or("none".to_string(), |i| format!("{}x{}", i.width, i.height));
            return Err(Error::in_file(
                &case.golden,
                format!(
                    "golden sizes differ from the render: the golden has {} frames of {}, the render {} of {}",
                    e.frames.len(),
                    size(&e.frames),
                    actual.frames.len(),
                    size(&actual.frames)
                ),
            ));
        }
        Err(e) => return Err(e),
    };
    result.expected = (!is_golden_folder(&case.golden)).then(|| case.golden.clone());
    let tolerance = detail::tolerance_of(&case.keys);
    let mut failed = Vec::new();
    if actual.delays != expected.delays {
        failed
            .push(("delays".to_string(), format!("GIF delays {:?}, golden {:?} (cs)", actual.delays, expected.delays)));
    }
    if let Some((file, line, got, want)) = data_difference(actual, &expected) {
        failed.push((file, format!("line {line}: `{got}`, golden `{want}`")));
    }
    let mut reports = Vec::new();
    for ((frame, golden), label) in actual.frames.iter().zip(&expected.frames).zip(&actual.labels) {
        let report = compare_perceptual(frame, golden, &case.compare).map_err(|e| Error::Size(e.to_string()))?;
        if report.differing_pixels > tolerance.allowed(report.total_pixels) {
            failed.push((
                label.clone(),
                format!(
                    "{} px ({:.2}%) differ, max channel delta {}, alpha {} px, anti-aliasing {} px",
                    report.differing_pixels,
                    report.differing_percent(),
                    report.max_color_delta.max(report.max_alpha_delta),
                    report.alpha_pixels,
                    report.aa_pixels
                ),
            ));
        }
        reports.push(report);
    }
    if failed.is_empty() {
        return Ok(Outcome::Pass);
    }
    let diffs: Vec<Image> = expected.frames.iter().zip(&reports).map(|(e, r)| perceptual_diff_image(e, r)).collect();
    write_outputs(case, &actual.frames, Some(&diffs), columns, options, result, files)?;
    drop(diffs);
    if options.bless {
        return bless(files);
    }
    let detail = detail::failed_case(case, actual, &expected, &reports, options.report_images)?;
    result.detail = Some(Box::new(detail));
    Ok(Outcome::Fail { frames: failed })
}

/// A path's file name, for labels.
fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned())
}

fn write_outputs(
    case: &Case,
    frames: &[Image],
    diffs: Option<&[Image]>,
    columns: usize,
    options: &CheckOptions,
    result: &mut CaseResult,
    files: &mut Transaction,
) -> Result<()> {
    let Some((actual, diff)) = out_files(case, options) else { return Ok(()) };
    files.stage(&actual, &encode_png(&sheet_of(frames, columns)?)?)?;
    result.actual = Some(actual);
    if let Some(diffs) = diffs {
        files.stage(&diff, &encode_png(&sheet_of(diffs, columns)?)?)?;
        result.diff = Some(diff);
    }
    Ok(())
}
