//! `check`: render the cases of a manifest, compare them with their goldens, report.
//!
//! A case renders one frame, a list of frames or a whole clip. A multi-frame golden is either
//! one sprite-sheet PNG (frames in a grid, row-major, `columns` wide) or a folder of
//! `frame_NNN.png` files (a `golden` path ending in `/`). Frames are compared one by one, so a
//! failure names the frames that regressed. Cases run in parallel; a case that cannot run
//! (missing model, unreadable golden) fails alone with its reason.
//!
//! Every path a case names (`model`, `anim`, `attach`, `textures`, `golden`) is relative to the
//! manifest's folder and must lead inside it, or inside a folder allowed with
//! [`Manifest::allowing`] (`check --allow-dir`), symbolic links followed first; anything else
//! is that case's error, naming the key and the rule (see [`crate::formats::confine`]).
//!
//! Animation controls use the command line's text forms (see [`crate::rig`]): `attach`
//! (list, paths relative to the manifest), `attach_offset` (list, i-th goes with the i-th
//! attachment), `bone` (list), `blend` and `transition` (a transition replaces the clip: the
//! case's frames index the `A->B` sequence).

mod manifest;
mod ranges;
mod report;

use std::path::{Path, PathBuf};

use rayon::prelude::*;

pub use manifest::{CaseSpec, FramesSpec, MAX_MANIFEST_BYTES, Manifest};
pub use report::{html_report, junit_xml, plan_html_report};

use crate::anim::{FrameTime, Motion, PoseOptions};
use crate::bake::{self, FrameRequest};
use crate::budget::{MemoryBudget, bytes_for};
use crate::error::{Error, Result};
use crate::formats::confine::Denied;
use crate::formats::{Confinement, Limits, LoadOptions, TextureOverride};
use crate::golden::{PerceptualOptions, PerceptualReport, compare_perceptual, perceptual_diff_image};
use crate::output::{OutputFormat, OutputPlan, Transaction, encode_png, read_png_within, sanitize_component};
use crate::parse;
use crate::raster::{Image, Light, OrbitView, Projection, RenderOptions, Renderer};
use crate::rig::{self, AttachSpec, Controls, Offset};
use crate::sprite::post::{blit_extruded, crop};

/// How a case ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Every frame within tolerance.
    Pass,
    /// Some frames differ beyond tolerance.
    Fail {
        /// The regressed frames (frame positions in the clip) and their reports' summaries.
        frames: Vec<(f32, String)>,
    },
    /// No golden yet (written with `bless`).
    New,
    /// The golden was (re)written.
    Blessed,
    /// The case could not run.
    Error(String),
}

/// One case's result.
#[derive(Debug, Clone)]
pub struct CaseResult {
    /// Case name.
    pub name: String,
    /// What happened.
    pub outcome: Outcome,
    /// The golden file or folder.
    pub golden: PathBuf,
    /// Where the actual render and diff were written (with `out`), if any.
    pub actual: Option<PathBuf>,
    /// The diff image (with `out`), if any.
    pub diff: Option<PathBuf>,
    /// The golden file that was read and compared, if any (a report copies only this one,
    /// never a file the case merely named).
    pub expected: Option<PathBuf>,
    /// Seconds spent.
    pub seconds: f64,
}

/// What `check` does besides comparing.
#[derive(Debug, Clone, Default)]
pub struct CheckOptions {
    /// Write goldens for new and failing cases.
    pub bless: bool,
    /// Folder for actual and diff images of failing and new cases.
    pub out: Option<PathBuf>,
    /// Run only cases `i` with `i % count == index` (0-based index).
    pub shard: Option<(usize, usize)>,
    /// Limits for every case: each case's model gets its own memory budget, and its rendered
    /// frames and goldens another.
    pub limits: Limits,
}

/// A case made concrete: model, frames, view, options, golden, tolerance.
struct Case {
    name: String,
    model: PathBuf,
    load: LoadOptions,
    clip: Option<String>,
    frames: Option<FramesSpec>,
    time: Option<f32>,
    frame: Option<f32>,
    in_place: bool,
    view: OrbitView,
    options: RenderOptions,
    golden: PathBuf,
    compare: PerceptualOptions,
    max_pixels: usize,
    max_percent: Option<f64>,
    columns: Option<u32>,
    controls: Controls,
    /// Where the golden's frames may be read from.
    scope: Confinement,
}

/// Parses every entry of a list key, an error naming the key.
fn parse_all<T: std::str::FromStr<Err = String>>(key: &str, values: &Option<Vec<String>>) -> Result<Vec<T>> {
    values.iter().flatten().map(|v| v.parse().map_err(|e| Error::Invalid(format!("{key}: {e}")))).collect()
}

fn controls(spec: &CaseSpec, scope: &Confinement) -> Result<Controls> {
    let one = |value: &Option<String>| value.clone().map(|v| vec![v]);
    let attachments: Vec<AttachSpec> = parse_all("attach", &spec.attach)?;
    let attachments = attachments
        .into_iter()
        .map(|a| Ok(AttachSpec { path: confined_file(scope, "attach", &a.path)?, ..a }))
        .collect::<Result<_>>()?;
    let mut controls = Controls {
        attachments,
        bones: parse_all("bone", &spec.bone)?,
        blend: parse_all("blend", &one(&spec.blend))?.pop(),
        transitions: parse_all("transition", &one(&spec.transition))?,
    };
    controls.set_offsets(&parse_all::<Offset>("attach_offset", &spec.attach_offset)?)?;
    Ok(controls)
}

/// A path a manifest names under `key`: relative to the manifest's folder, and refused (naming
/// the key and the rule) unless `rule` accepts where it leads. The path is returned as written
/// (joined to the folder), so clip names from file stems stay as the manifest shows them.
fn confined(
    scope: &Confinement,
    key: &str,
    value: &Path,
    rule: fn(&Confinement, &Path) -> Result<PathBuf, Denied>,
) -> Result<PathBuf> {
    let path = scope.home().join(value);
    rule(scope, &path).map_err(|d| d.into_error(&path, format!("`{key}` = '{}'", value.display())))?;
    Ok(path)
}

/// A regular file inside the manifest's folder or an allowed one.
fn confined_file(scope: &Confinement, key: &str, value: &Path) -> Result<PathBuf> {
    confined(scope, key, value, Confinement::file)
}

/// The case's golden file or folder, which may not exist yet: reading it (and copying it into
/// an HTML report) or blessing it stays inside the allowed folders.
fn confined_golden(spec: &CaseSpec, scope: &Confinement) -> Result<PathBuf> {
    confined(scope, "golden", &spec.golden.clone().unwrap_or_default(), Confinement::place)
}

fn resolve(spec: &CaseSpec, scope: &Confinement) -> Result<Case> {
    ranges::check_numbers(spec)?;
    let invalid = |e: String| Error::Invalid(e);
    let dir = scope.home();
    let (width, height) = parse::size(spec.size.as_deref().unwrap_or("128x128")).map_err(invalid)?;
    let mut animations = Vec::new();
    let mut clip = spec.clip.clone();
    for a in spec.anim.iter().flatten() {
        let path = dir.join(a);
        // An entry is an animation file when something (but a folder) has that name, else a
        // clip name; a file must pass the confinement.
        if path.symlink_metadata().is_ok() && !path.is_dir() {
            let path = confined_file(scope, "anim", Path::new(a))?;
            clip = clip.or_else(|| path.file_stem().map(|s| s.to_string_lossy().into_owned()));
            animations.push(path);
        } else {
            clip = clip.or_else(|| Some(a.clone()));
        }
    }
    let texture_overrides = spec
        .textures
        .iter()
        .flatten()
        .map(|t| {
            let (material, file) = match t.split_once('=') {
                Some((m, p)) => (Some(m.to_string()), p),
                None => (None, t.as_str()),
            };
            Ok(TextureOverride { material, path: confined_file(scope, "textures", Path::new(file))? })
        })
        .collect::<Result<_>>()?;
    let facing = spec.facing.as_deref().map(parse::axis).transpose().map_err(invalid)?;
    let projection = if spec.ortho.unwrap_or(false) {
        Projection::Orthographic
    } else {
        Projection::Perspective { fov_y_degrees: spec.fov.unwrap_or(30.0) }
    };
    let lights = match &spec.lights {
        Some(l) if !l.is_empty() => {
            l.iter().map(|&d| Light { direction: d.into(), intensity: 1.0 / l.len() as f32 }).collect()
        }
        _ => vec![Light::KEY],
    };
    let options = RenderOptions {
        width,
        height,
        ssaa: spec.ssaa.unwrap_or(1),
        shading_rate: parse::shading_rate(spec.shading_rate.as_deref().unwrap_or("pixel")).map_err(invalid)?,
        filter: parse::filter(spec.filter.as_deref().unwrap_or("trilinear")).map_err(invalid)?,
        shading: parse::shading(spec.shading.as_deref().unwrap_or("lambert"), spec.bands.unwrap_or(3))
            .map_err(invalid)?,
        lights,
        ambient: spec.ambient.unwrap_or(0.3),
        background: spec.background.as_deref().map(parse::color).transpose().map_err(invalid)?,
        cull_back_faces: !spec.two_sided.unwrap_or(false),
    };
    Ok(Case {
        name: spec.name.clone().unwrap_or_default(),
        model: confined_file(scope, "model", &spec.model.clone().unwrap_or_default())?,
        load: LoadOptions { animations, texture_overrides, facing, ..LoadOptions::default() },
        clip,
        frames: spec.frames.clone(),
        time: spec.time,
        frame: spec.frame,
        in_place: spec.in_place.unwrap_or(false),
        view: OrbitView {
            yaw_degrees: spec.yaw.unwrap_or(0.0),
            pitch_degrees: spec.pitch.unwrap_or(15.0),
            projection,
            margin: spec.margin.unwrap_or(0.05),
        },
        options,
        golden: confined_golden(spec, scope)?,
        compare: PerceptualOptions {
            threshold: spec.threshold.unwrap_or(0.1),
            alpha_threshold: 0,
            ignore_aa: spec.ignore_aa.unwrap_or(false),
        },
        max_pixels: spec.max_pixels.unwrap_or(0),
        max_percent: spec.max_percent,
        columns: spec.columns,
        controls: controls(spec, scope)?,
        scope: scope.clone(),
    })
}

/// The cases of the shard `options` selects, in manifest order.
fn selected<'m>(manifest: &'m Manifest, options: &CheckOptions) -> Vec<&'m CaseSpec> {
    let in_shard = |i: usize| options.shard.is_none_or(|(k, n)| i % n == k);
    manifest.cases.iter().enumerate().filter(|(i, _)| in_shard(*i)).map(|(_, c)| c).collect()
}

/// What a run of `manifest` will write (actual and diff images with `out`, goldens with
/// `bless`, except the frames of folder goldens, whose count is known only once a case has
/// loaded) and every file its cases name (models, animations, attachments, textures, and the
/// goldens when they are only read), for checking before any case runs. Cases whose settings
/// are invalid are left out: they fail on their own when run. Each case checks its own outputs
/// again against everything its model actually read.
pub fn planned_outputs(manifest: &Manifest, options: &CheckOptions) -> (OutputPlan, Vec<PathBuf>) {
    let mut plan = OutputPlan::new();
    let mut inputs = Vec::new();
    for case in selected(manifest, options).into_iter().filter_map(|spec| resolve(spec, &manifest.scope).ok()) {
        add_out_files(&case, options, &mut plan);
        let folder = is_golden_folder(&case.golden);
        match (options.bless, folder) {
            (true, false) => {
                plan.add(&case.golden, OutputFormat::Png);
            }
            (true, true) => {}
            (false, _) => inputs.push(case.golden.clone()),
        }
        inputs.extend(case_inputs(&case));
    }
    (plan, inputs)
}

/// The files a case names itself (the loader records what the model names in turn).
fn case_inputs(case: &Case) -> Vec<PathBuf> {
    let mut inputs = vec![case.model.clone()];
    inputs.extend(case.load.animations.iter().cloned());
    inputs.extend(case.load.texture_overrides.iter().map(|t| t.path.clone()));
    inputs.extend(case.controls.attachments.iter().map(|a| a.path.clone()));
    inputs
}

/// The actual and diff images of a case, with `out`.
fn out_files(case: &Case, options: &CheckOptions) -> Option<(PathBuf, PathBuf)> {
    let out = options.out.as_ref()?;
    let safe = sanitize_component(&case.name);
    Some((out.join(format!("{safe}.actual.png")), out.join(format!("{safe}.diff.png"))))
}

fn add_out_files(case: &Case, options: &CheckOptions, plan: &mut OutputPlan) {
    if let Some((actual, diff)) = out_files(case, options) {
        plan.add(actual, OutputFormat::Png).add(diff, OutputFormat::Png);
    }
}

/// A golden path ending in `/`, or naming a folder, holds one `frame_NNN.png` per frame.
fn is_golden_folder(golden: &Path) -> bool {
    golden.to_string_lossy().ends_with('/') || golden.is_dir()
}

/// The files of a golden of `count` frames.
fn golden_files(golden: &Path, folder: bool, count: usize) -> Vec<PathBuf> {
    if folder {
        (0..count).map(|i| golden.join(format!("frame_{i:03}.png"))).collect()
    } else {
        vec![golden.to_path_buf()]
    }
}

/// Runs the manifest's cases (or one shard of them) in parallel, in manifest order, at most
/// [`crate::budget::models_in_flight`] at once (a case counts twice: its model, its frames).
/// Each case writes its files (actual, diff, blessed golden) all together when it ends, or
/// none of them.
pub fn run(manifest: &Manifest, options: &CheckOptions) -> Vec<CaseResult> {
    let renderer = Renderer::new();
    let cases = selected(manifest, options);
    // A case holds its model and, on a budget as large again, its frames and goldens.
    let at_once = crate::budget::models_in_flight(options.limits.max_memory_bytes.saturating_mul(2));
    cases.chunks(at_once).flat_map(|chunk| run_cases(chunk, manifest, &renderer, options)).collect()
}

/// Runs `cases` in parallel.
fn run_cases(cases: &[&CaseSpec], manifest: &Manifest, renderer: &Renderer, options: &CheckOptions) -> Vec<CaseResult> {
    cases
        .par_iter()
        .map(|spec| {
            let start = std::time::Instant::now();
            let name = spec.name.clone().unwrap_or_default();
            // A refused golden is left out of the result, so no report can copy it.
            let golden = confined_golden(spec, &manifest.scope).unwrap_or_default();
            let mut result = CaseResult {
                name,
                outcome: Outcome::Pass,
                golden,
                actual: None,
                diff: None,
                expected: None,
                seconds: 0.0,
            };
            let case = resolve(spec, &manifest.scope)
                .map(|case| Case { load: LoadOptions { limits: options.limits, ..case.load }, ..case });
            match case.and_then(|case| run_case(&case, renderer, options, &mut result)) {
                Ok(outcome) => result.outcome = outcome,
                Err(e) => {
                    // Nothing the case staged was written.
                    (result.actual, result.diff) = (None, None);
                    result.outcome = Outcome::Error(e.to_string());
                }
            }
            result.seconds = start.elapsed().as_secs_f64();
            result
        })
        .collect()
}

fn frame_positions(case: &Case, motion: &Motion) -> Vec<FrameTime> {
    match &case.frames {
        Some(FramesSpec::All(_)) => (0..motion.frame_count().max(1)).map(|f| FrameTime::Frame(f as f32)).collect(),
        Some(FramesSpec::List(l)) => l.iter().map(|&f| FrameTime::Frame(f)).collect(),
        None => vec![match (case.time, case.frame) {
            (Some(t), _) => FrameTime::Seconds(t),
            (None, f) => FrameTime::Frame(f.unwrap_or(0.0)),
        }],
    }
}

fn label(t: FrameTime) -> f32 {
    match t {
        FrameTime::Frame(f) | FrameTime::Seconds(f) => f,
    }
}

fn run_case(case: &Case, renderer: &Renderer, options: &CheckOptions, result: &mut CaseResult) -> Result<Outcome> {
    if let Some(FramesSpec::All(s)) = &case.frames {
        if s != "all" {
            return Err(Error::Invalid(format!("frames = \"{s}\": expected \"all\" or a list of frames")));
        }
    }
    let mut model = crate::formats::load(&case.model, &case.load)?;
    if case.clip.as_deref() == Some(bake::ALL_CLIPS) {
        bake::add_all_clip(&mut model)?;
    }
    let clip = case.clip.as_deref().map(|n| bake::find_clip(&model, n)).transpose()?;
    let props = rig::load_attachments(&case.controls, &case.model, &model, &case.load)?;
    let pose = PoseOptions { looping: true, in_place: case.in_place };
    let animation = rig::animation(&model, &props, &case.controls, clip, pose)?;
    let times = frame_positions(case, &animation.motion);
    let folder = is_golden_folder(&case.golden);
    // This case's outputs, checked against every file its model read before rendering.
    let mut plan = OutputPlan::new();
    add_out_files(case, options, &mut plan);
    let goldens = golden_files(&case.golden, folder, times.len());
    let mut inputs = case_inputs(case);
    inputs.extend(model.sources.iter().chain(props.iter().flat_map(|p| &p.sources)).cloned());
    if options.bless {
        for golden in &goldens {
            plan.add(golden, OutputFormat::Png);
        }
    } else {
        inputs.extend(goldens);
    }
    plan.check(&inputs)?;
    // Rendered frames and goldens are held together: charged before either exists.
    let budget = MemoryBudget::new(case.load.limits.max_memory_bytes);
    let (w, h) = (case.options.width, case.options.height);
    let pixels = (times.len() as u64).saturating_mul(u64::from(w) * u64::from(h));
    budget.charge(bytes_for(pixels, 4), || format!("case '{}': {} frames of {w}x{h}", case.name, times.len()))?;
    let frames: Vec<Image> = times
        .iter()
        .map(|&time| {
            let request = FrameRequest { animation: animation.clone(), time };
            bake::render_frame(renderer, &model, &request, &case.view, &case.options)
        })
        .collect::<Result<_>>()?;
    let mut files = Transaction::new();
    let rendered = Rendered { frames: &frames, times: &times, budget: &budget };
    let outcome = judge(case, &rendered, folder, options, result, &mut files)?;
    files.commit()?;
    Ok(outcome)
}

/// A case's rendered frames, the moments they show, and the budget its goldens are read within.
struct Rendered<'a> {
    frames: &'a [Image],
    times: &'a [FrameTime],
    budget: &'a MemoryBudget,
}

/// Compares a case's frames with its golden, staging the files the outcome calls for.
fn judge(
    case: &Case,
    rendered: &Rendered,
    folder: bool,
    options: &CheckOptions,
    result: &mut CaseResult,
    files: &mut Transaction,
) -> Result<Outcome> {
    let Rendered { frames, times, budget } = *rendered;
    let columns = case.columns.unwrap_or(8).max(1) as usize;
    let exists = if folder { case.golden.join("frame_000.png").is_file() } else { case.golden.is_file() };
    if !exists {
        write_outputs(case, frames, None, columns, options, result, files)?;
        if options.bless {
            write_golden(&case.golden, frames, folder, columns, files)?;
            return Ok(Outcome::Blessed);
        }
        return Ok(Outcome::New);
    }
    // A golden that cannot be used (corrupt, wrong size) is an error, unless blessing.
    let bless = |frames: &[Image], files: &mut Transaction| -> Result<Outcome> {
        write_golden(&case.golden, frames, folder, columns, files)?;
        Ok(Outcome::Blessed)
    };
    let expected = match read_golden(&case.golden, folder, frames.len(), columns, case, budget) {
        Ok(e) if e.iter().zip(frames).all(|(g, a)| (g.width, g.height) == (a.width, a.height)) => e,
        _ if options.bless => return bless(frames, files),
        Ok(_) => {
            return Err(Error::Invalid(format!(
                "{}: golden sizes differ from the {}x{} render",
                case.golden.display(),
                case.options.width,
                case.options.height
            )));
        }
        Err(e) => return Err(e),
    };
    result.expected = (!folder).then(|| case.golden.clone());
    let allowed = |r: &PerceptualReport| {
        let by_percent = case.max_percent.map_or(0, |p| (p / 100.0 * r.total_pixels as f64).floor() as usize);
        case.max_pixels.max(by_percent)
    };
    let mut failed = Vec::new();
    let mut reports = Vec::new();
    for ((actual, golden), time) in frames.iter().zip(&expected).zip(times) {
        let report = compare_perceptual(actual, golden, &case.compare).map_err(|e| Error::Invalid(e.to_string()))?;
        if report.differing_pixels > allowed(&report) {
            failed.push((
                label(*time),
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
    let diffs: Vec<Image> = expected.iter().zip(&reports).map(|(e, r)| perceptual_diff_image(e, r)).collect();
    write_outputs(case, frames, Some(&diffs), columns, options, result, files)?;
    if options.bless {
        return bless(frames, files);
    }
    Ok(Outcome::Fail { frames: failed })
}

/// The golden as frames: a single PNG, a sheet split into cells, or a folder of frames. Each
/// file read passes the case's confinement first (a frame in a golden folder may be a link) and
/// is decoded within `budget`.
fn read_golden(
    path: &Path,
    folder: bool,
    count: usize,
    columns: usize,
    case: &Case,
    budget: &MemoryBudget,
) -> Result<Vec<Image>> {
    let o = &case.options;
    let read = |file: &Path| {
        case.scope.file(file).map_err(|d| d.into_error(file, format!("golden '{}'", file.display())))?;
        read_png_within(file, budget)
    };
    if folder {
        return golden_files(path, folder, count).iter().map(|p| read(p)).collect();
    }
    let sheet = read(path)?;
    if count == 1 {
        return Ok(vec![sheet]);
    }
    let cols = columns.min(count);
    let (w, h) = (o.width, o.height);
    let rows = count.div_ceil(cols);
    if (sheet.width, sheet.height) != (w * cols as u32, h * rows as u32) {
        return Err(Error::Invalid(format!(
            "{}: golden sheet is {}x{}, expected {}x{} ({count} frames of {w}x{h} in {cols} columns)",
            path.display(),
            sheet.width,
            sheet.height,
            w * cols as u32,
            h * rows as u32
        )));
    }
    Ok((0..count).map(|i| crop(&sheet, (i % cols) as u32 * w, (i / cols) as u32 * h, w, h)).collect())
}

fn sheet_of(frames: &[Image], columns: usize) -> Result<Image> {
    let Some(first) = frames.first() else { return Image::new(1, 1) };
    if frames.len() == 1 {
        return Ok(first.clone());
    }
    let cols = columns.min(frames.len());
    let rows = frames.len().div_ceil(cols);
    let mut sheet = Image::new(first.width * cols as u32, first.height * rows as u32)?;
    for (i, f) in frames.iter().enumerate() {
        blit_extruded(&mut sheet, f, (i % cols) as u32 * first.width, (i / cols) as u32 * first.height, 0);
    }
    Ok(sheet)
}

fn write_golden(path: &Path, frames: &[Image], folder: bool, columns: usize, files: &mut Transaction) -> Result<()> {
    if folder {
        for (file, frame) in golden_files(path, folder, frames.len()).iter().zip(frames) {
            files.stage(file, &encode_png(frame)?)?;
        }
        return Ok(());
    }
    files.stage(path, &encode_png(&sheet_of(frames, columns)?)?)
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

/// One line per case, as `check` prints it.
pub fn summary_line(r: &CaseResult) -> String {
    // Case names, paths and error messages (model text) are escaped: one line per case.
    let line = match &r.outcome {
        Outcome::Pass => format!("PASS  {}", r.name),
        Outcome::Blessed => format!("BLESS {} -> {}", r.name, r.golden.display()),
        Outcome::New => {
            format!("NEW   {}: no golden at {} (run with --bless to create it)", r.name, r.golden.display())
        }
        Outcome::Error(e) => format!("ERROR {}: {e}", r.name),
        Outcome::Fail { frames } => {
            let list: Vec<String> = frames.iter().map(|(f, _)| f.to_string()).collect();
            let first = frames.first().map(|(_, s)| s.as_str()).unwrap_or("");
            format!("FAIL  {}: {first}; frames {}", r.name, list.join(", "))
        }
    };
    crate::text::escape_control(&line).into_owned()
}
