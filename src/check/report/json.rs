//! [`json_report`]: a `check` run for machines, as JSON.

use std::path::{Path, PathBuf};

use super::context::{ReportContext, bless_command};
use super::html::frame_files;
use super::status::{counts, needs_review, status};
use crate::bake::Product;
use crate::check::{CaseResult, FrameNumbers, Outcome};

/// The run's results for machines, as JSON: per case its status, time, failures, the
/// command that blesses it, and (failing and new cases) every frame's numbers and failing flag,
/// a sheet's cells, a GIF's delays. With `html_dir` (the `--html` folder) each frame names
/// its images relative to that folder; `--out` images and goldens are named as written.
pub fn json_report(context: &ReportContext, results: &[CaseResult], html_dir: Option<&Path>) -> String {
    use serde_json::{Value, json};
    let c = counts(results);
    let path = |p: &Option<PathBuf>| p.as_ref().map(|p| Value::from(p.display().to_string()));
    let numbers = |n: &FrameNumbers| {
        json!({
            "identical": n.identical,
            "differing_pixels": n.differing_pixels,
            "differing_percent": n.differing_percent(),
            "alpha_pixels": n.alpha_pixels,
            "alpha_only_pixels": n.alpha_only_pixels(),
            "aa_pixels": n.aa_pixels,
            "max_color_delta": n.max_color_delta,
            "max_alpha_delta": n.max_alpha_delta,
            "total_pixels": n.total_pixels,
            "allowed_pixels": n.allowed_pixels,
        })
    };
    let cases: Vec<Value> = results
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let mut case = json!({
                "name": r.name,
                "status": status(&r.outcome),
                "seconds": r.seconds,
                "golden": r.golden.display().to_string(),
                "out": {"actual": path(&r.actual), "diff": path(&r.diff)},
            });
            match &r.outcome {
                Outcome::Fail { frames } => {
                    case["failures"] = frames.iter().map(|(what, how)| json!({"what": what, "summary": how})).collect();
                }
                Outcome::Error(e) => case["error"] = json!(e),
                _ => {}
            }
            if needs_review(&r.outcome) {
                case["bless_command"] = json!(bless_command(context, &r.name));
            }
            if let Some(d) = &r.detail {
                case["kind"] = json!(d.kind.name());
                case["tolerance"] = json!({
                    "threshold": d.tolerance.threshold,
                    "max_pixels": d.tolerance.max_pixels,
                    "max_percent": d.tolerance.max_percent,
                    "ignore_aa": d.tolerance.ignore_aa,
                });
                case["frames"] = d
                    .frames
                    .iter()
                    .enumerate()
                    .map(|(j, f)| {
                        let files = html_dir.map(|_| frame_files(i, &r.name, j, f)).unwrap_or_default();
                        let mut frame = json!({
                            "index": j,
                            "label": f.label,
                            "failing": f.failing,
                            "width": f.width,
                            "height": f.height,
                            "numbers": f.numbers.as_ref().map(numbers),
                            "images": {"expected": files.expected, "actual": files.actual, "diff": files.diff},
                        });
                        if let Some(cell) = f.cell {
                            frame["cell"] = json!(cell);
                        }
                        frame
                    })
                    .collect();
                case["failing_frames"] = json!(d.failing_frames());
                if !d.cells.is_empty() {
                    case["cells"] = d
                        .cells
                        .iter()
                        .map(|cell| {
                            json!({
                                "name": cell.name,
                                "rect": {"x": cell.rect[0], "y": cell.rect[1], "w": cell.rect[2], "h": cell.rect[3]},
                                "failing": cell.failing,
                                "frame": cell.frame,
                                "numbers": numbers(&cell.numbers),
                            })
                        })
                        .collect();
                }
                if d.kind == Product::Gif {
                    let mismatched: Vec<usize> = match &d.expected_delays {
                        Some(e) => (0..e.len().max(d.actual_delays.len()))
                            .filter(|&i| e.get(i) != d.actual_delays.get(i))
                            .collect(),
                        None => Vec::new(),
                    };
                    case["delays_cs"] =
                        json!({"expected": d.expected_delays, "actual": d.actual_delays, "mismatched": mismatched});
                }
                if let Some((file, line, got, want)) = &d.json_difference {
                    case["json_difference"] = json!({"file": file, "line": line, "actual": got, "golden": want});
                }
            }
            case
        })
        .collect();
    let report = json!({
        "suite": context.suite,
        "report": html_dir.map(|d| d.display().to_string()),
        "counts": {"passed": c.passed, "failed": c.failed, "new": c.new, "errored": c.errored, "blessed": c.blessed},
        "cases": cases,
    });
    let mut text = serde_json::to_string_pretty(&report).unwrap_or_default();
    text.push('\n');
    text
}
