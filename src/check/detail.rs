//! What a report shows of a failing or new case: every frame's numbers, and its images as PNG.
//!
//! A case builds its [`CaseDetail`] when it ends, only when it failed or has no golden yet;
//! passing cases keep only their name, outcome and time. Images are encoded as PNG right away
//! (and only with [`super::CheckOptions::report_images`]), so a run holds compressed bytes for
//! the failing cases, never their decoded frames.

use crate::bake::{Product, look::post::crop};
use crate::error::{Error, Result};
use crate::golden::{PerceptualReport, compare_perceptual, perceptual_diff_image};
use crate::output::encode_png;
use crate::raster::Image;

use super::{Actual, Case, Expected, Tolerance};

/// At most this many failing cells of a sheet get their own cropped images (every failing
/// cell is outlined on the sheet regardless).
pub(super) const MAX_CELL_FRAMES: usize = 64;

/// The numbers of one frame (or sheet cell) compared with its golden.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FrameNumbers {
    /// Byte-for-byte identical.
    pub identical: bool,
    /// Pixels that differ in colour or alpha: the number held against the tolerance.
    pub differing_pixels: usize,
    /// Pixels whose colour differs perceptibly (anti-aliasing excluded with `ignore_aa`).
    pub color_pixels: usize,
    /// Pixels whose alpha differs.
    pub alpha_pixels: usize,
    /// Pixels that differ only by anti-aliasing (not counted with `ignore_aa`).
    pub aa_pixels: usize,
    /// Largest R, G or B difference.
    pub max_color_delta: u8,
    /// Largest alpha difference.
    pub max_alpha_delta: u8,
    /// All pixels of the frame.
    pub total_pixels: usize,
    /// Pixels allowed to differ ([`Tolerance::allowed`]).
    pub allowed_pixels: usize,
}

impl FrameNumbers {
    /// The numbers of `report` under `tolerance`.
    pub fn of(report: &PerceptualReport, tolerance: &Tolerance) -> FrameNumbers {
        FrameNumbers {
            identical: report.identical,
            differing_pixels: report.differing_pixels,
            color_pixels: report.color_pixels,
            alpha_pixels: report.alpha_pixels,
            aa_pixels: report.aa_pixels,
            max_color_delta: report.max_color_delta,
            max_alpha_delta: report.max_alpha_delta,
            total_pixels: report.total_pixels,
            allowed_pixels: tolerance.allowed(report.total_pixels),
        }
    }

    /// More pixels differ than allowed.
    pub fn failing(&self) -> bool {
        self.differing_pixels > self.allowed_pixels
    }

    /// Differing pixels as a percentage of all pixels.
    pub fn differing_percent(&self) -> f64 {
        if self.total_pixels == 0 { 0.0 } else { 100.0 * self.differing_pixels as f64 / self.total_pixels as f64 }
    }

    /// Pixels that differ only in alpha (their colour, blended over white, does not).
    pub fn alpha_only_pixels(&self) -> usize {
        self.differing_pixels.saturating_sub(self.color_pixels)
    }
}

/// A frame's images, PNG-encoded.
#[derive(Debug, Clone, PartialEq)]
pub struct FrameImages {
    /// The golden frame; `None` when there is no golden, or when the frame is identical to it
    /// (then [`FrameImages::actual`] is both).
    pub expected: Option<Vec<u8>>,
    /// The rendered frame.
    pub actual: Vec<u8>,
    /// The diff picture (differences red, anti-aliasing yellow, the rest faded grey); `None`
    /// when there is nothing to compare or nothing differs.
    pub diff: Option<Vec<u8>>,
}

/// One compared frame of a case: an animation frame, a GIF frame, a whole sheet, or a cropped
/// sheet cell.
#[derive(Debug, Clone, PartialEq)]
pub struct FrameResult {
    /// `frame 3`, `walk_SW_005`, `sheet`, or a cell's name.
    pub label: String,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// The comparison's numbers; `None` when there is no golden.
    pub numbers: Option<FrameNumbers>,
    /// This frame regressed beyond the tolerance.
    pub failing: bool,
    /// For a cropped sheet cell: its index in [`CaseDetail::cells`].
    pub cell: Option<usize>,
    /// The images, with [`super::CheckOptions::report_images`].
    pub images: Option<FrameImages>,
}

/// One cell of a sheet (its rectangle from the sheet's layout) compared on its own.
#[derive(Debug, Clone, PartialEq)]
pub struct CellResult {
    /// The cell's name in the sheet JSON (`walk_SW_005`).
    pub name: String,
    /// x, y, width, height on the sheet.
    pub rect: [u32; 4],
    /// The cell's numbers.
    pub numbers: FrameNumbers,
    /// More pixels differ in the cell than the tolerance allows for a frame of its size.
    pub failing: bool,
    /// Index in [`CaseDetail::frames`] of the cell's cropped images, if it has them.
    pub frame: Option<usize>,
}

/// What a report shows of a failing or new case.
#[derive(Debug, Clone, PartialEq)]
pub struct CaseDetail {
    /// What the case bakes.
    pub kind: Product,
    /// Its tolerance.
    pub tolerance: Tolerance,
    /// Every compared frame, in order (a sheet: the whole sheet, then its failing cells).
    pub frames: Vec<FrameResult>,
    /// A failing sheet's cells, in layout order.
    pub cells: Vec<CellResult>,
    /// A GIF's delays in centiseconds: the golden's (`None` without a golden).
    pub expected_delays: Option<Vec<u16>>,
    /// A GIF's delays in centiseconds, as rendered (empty for other kinds).
    pub actual_delays: Vec<u16>,
    /// A sheet's engine data: the first differing file's name, its first differing line's
    /// number, the actual line and the golden's.
    pub json_difference: Option<(String, usize, String, String)>,
}

impl CaseDetail {
    /// Indices of the failing frames.
    pub fn failing_frames(&self) -> Vec<usize> {
        self.frames.iter().enumerate().filter(|(_, f)| f.failing).map(|(i, _)| i).collect()
    }
}

/// The tolerance a case's keys set.
pub(super) fn tolerance_of(keys: &super::CaseKeys) -> Tolerance {
    Tolerance {
        threshold: keys.threshold,
        max_pixels: keys.max_pixels,
        max_percent: keys.max_percent,
        ignore_aa: keys.ignore_aa,
    }
}

fn png(image: &Image) -> Result<Vec<u8>> {
    encode_png(image)
}

/// The detail of a case without a golden: its frames as rendered.
pub(super) fn new_case(case: &Case, actual: &Actual, images: bool) -> Result<CaseDetail> {
    let frames = actual
        .frames
        .iter()
        .zip(&actual.labels)
        .map(|(frame, label)| {
            Ok(FrameResult {
                label: label.clone(),
                width: frame.width,
                height: frame.height,
                numbers: None,
                failing: false,
                cell: None,
                images: if images {
                    Some(FrameImages { expected: None, actual: png(frame)?, diff: None })
                } else {
                    None
                },
            })
        })
        .collect::<Result<_>>()?;
    Ok(CaseDetail {
        kind: case.keys.kind,
        tolerance: tolerance_of(&case.keys),
        frames,
        cells: Vec::new(),
        expected_delays: None,
        actual_delays: actual.delays.clone(),
        json_difference: None,
    })
}

/// One compared frame's result, with its images encoded when `images`.
fn frame_result(
    label: &str,
    actual: &Image,
    expected: &Image,
    report: &PerceptualReport,
    tolerance: &Tolerance,
    images: bool,
) -> Result<FrameResult> {
    let numbers = FrameNumbers::of(report, tolerance);
    let images = if images {
        let (expected, diff) = if report.identical {
            (None, None)
        } else {
            (Some(png(expected)?), Some(png(&perceptual_diff_image(expected, report))?))
        };
        Some(FrameImages { expected, actual: png(actual)?, diff })
    } else {
        None
    };
    Ok(FrameResult {
        label: label.to_string(),
        width: actual.width,
        height: actual.height,
        failing: numbers.failing(),
        numbers: Some(numbers),
        cell: None,
        images,
    })
}

/// The detail of a failing case: every frame's numbers (`reports`, in frame order) and images.
pub(super) fn failed_case(
    case: &Case,
    actual: &Actual,
    expected: &Expected,
    reports: &[PerceptualReport],
    images: bool,
) -> Result<CaseDetail> {
    let tolerance = tolerance_of(&case.keys);
    let mut frames = Vec::with_capacity(actual.frames.len());
    for (((a, e), report), label) in actual.frames.iter().zip(&expected.frames).zip(reports).zip(&actual.labels) {
        frames.push(frame_result(label, a, e, report, &tolerance, images)?);
    }
    let mut cells = Vec::new();
    if let (Some(sheet), Some(golden)) = (actual.frames.first(), expected.frames.first()) {
        let mut cropped = 0;
        for (name, [x, y, w, h]) in &actual.cells {
            let inside = x.checked_add(*w).is_some_and(|r| r <= sheet.width)
                && y.checked_add(*h).is_some_and(|b| b <= sheet.height);
            if !inside || *w == 0 || *h == 0 {
                continue;
            }
            let (a, e) = (crop(sheet, *x, *y, *w, *h), crop(golden, *x, *y, *w, *h));
            let report = compare_perceptual(&a, &e, &case.compare).map_err(|e| Error::Size(e.to_string()))?;
            let numbers = FrameNumbers::of(&report, &tolerance);
            let mut cell = CellResult {
                name: name.clone(),
                rect: [*x, *y, *w, *h],
                numbers,
                failing: numbers.failing(),
                frame: None,
            };
            if cell.failing && cropped < MAX_CELL_FRAMES {
                cropped += 1;
                let mut frame = frame_result(name, &a, &e, &report, &tolerance, images)?;
                frame.cell = Some(cells.len());
                cell.frame = Some(frames.len());
                frames.push(frame);
            }
            cells.push(cell);
        }
    }
    let json_difference = super::case::data_difference(actual, expected);
    let gif = case.keys.kind == Product::Gif;
    Ok(CaseDetail {
        kind: case.keys.kind,
        tolerance,
        frames,
        cells,
        expected_delays: gif.then(|| expected.delays.clone()),
        actual_delays: actual.delays.clone(),
        json_difference,
    })
}
