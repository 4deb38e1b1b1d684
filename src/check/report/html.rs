//! [`html_report`]: the self-contained HTML review page of a `check` run and the images it
//! shows, each frame's files named by one scheme ([`frame_files`]).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::context::{ReportContext, bless_command};
use super::status::{counts, needs_review, rank, status};
use crate::bake::Product;
use crate::check::{CaseDetail, CaseResult, FrameResult, Outcome, Tolerance};
use crate::error::Result;
use crate::escape::markup as escape;
use crate::output::{OutputFormat, OutputPlan, Transaction, sanitize_component};

/// The report folder's image files of one frame, relative to the folder (with `/`):
/// `{case}-{name}/{frame}-{kind}.png`, the name through [`sanitize_component`]. A frame
/// identical to its golden has one file, shown as both.
#[derive(Debug, Clone, Default)]
pub(super) struct FrameFiles {
    pub expected: Option<String>,
    pub actual: Option<String>,
    pub diff: Option<String>,
}

fn case_folder(index: usize, name: &str) -> String {
    format!("{index}-{}", sanitize_component(name))
}

pub(super) fn frame_files(index: usize, name: &str, j: usize, frame: &FrameResult) -> FrameFiles {
    let Some(images) = &frame.images else { return FrameFiles::default() };
    let file = |kind: &str| format!("{}/{j}-{kind}.png", case_folder(index, name));
    let actual = file("actual");
    let identical = frame.numbers.is_some_and(|n| n.identical);
    FrameFiles {
        expected: match &images.expected {
            Some(_) => Some(file("expected")),
            // Identical to the golden: the one file is both.
            None if identical => Some(actual.clone()),
            None => None,
        },
        diff: images.diff.as_ref().map(|_| file("diff")),
        actual: Some(actual),
    }
}

/// Every image file of the report: its path relative to `dir` and its bytes.
fn report_images(results: &[CaseResult]) -> Vec<(String, &[u8])> {
    let mut files = Vec::new();
    for (i, r) in results.iter().enumerate() {
        let Some(detail) = &r.detail else { continue };
        for (j, frame) in detail.frames.iter().enumerate() {
            let Some(images) = &frame.images else { continue };
            let names = frame_files(i, &r.name, j, frame);
            if let Some(a) = names.actual {
                files.push((a, images.actual.as_slice()));
            }
            if let (Some(e), Some(bytes)) = (names.expected, &images.expected) {
                files.push((e, bytes.as_slice()));
            }
            if let (Some(d), Some(bytes)) = (names.diff, &images.diff) {
                files.push((d, bytes.as_slice()));
            }
        }
    }
    files
}

/// Adds the report's page, `dir/index.html`, to `plan`, to be checked before any case runs.
/// Its images are named by a fixed scheme under `dir` (`{case}-{name}/{frame}-{kind}.png`)
/// and known only once the cases have run: [`html_report`] checks them, with the page, against
/// every file the run read or wrote before writing any of them.
pub fn plan_html_report(dir: &Path, plan: &mut OutputPlan) {
    plan.add(dir.join("index.html"), OutputFormat::Html);
}

/// Writes the review report: `dir/index.html` and the images it shows, all inside `dir` and
/// linked relatively, so the folder works offline (a CI artifact). Failing cases come first,
/// each with its frames side by side, as a diff and on a slider between expected and actual,
/// nearest-neighbour zoom, a background switch, the numbers of each frame, a strip of every
/// frame with the failing ones marked and a player that steps expected and actual together,
/// a failing sheet's cells outlined, a GIF's delays compared, and the command that blesses
/// only that case. The page's view is chosen by its URL fragment (`#view=side`, `diff`,
/// `slider` or `blink`; `zoom=1|2|4|8`; `bg=checker|black|white`).
///
/// The images are the frames each case compared ([`CaseResult::detail`], with
/// [`crate::check::CheckOptions::report_images`]), written from memory: no file named in a manifest
/// is copied. Before anything is written, every file of the report is checked against
/// `inputs` and every file a case read or wrote ([`CaseResult::files`]); the page and its
/// images are then written together or not at all.
///
/// # Errors
/// A file of the report would overwrite an input or cannot be written.
pub fn html_report(dir: &Path, context: &ReportContext, results: &[CaseResult], inputs: &[PathBuf]) -> Result<()> {
    let images = report_images(results);
    let mut plan = OutputPlan::new();
    plan_html_report(dir, &mut plan);
    for (name, _) in &images {
        plan.add(dir.join(name), OutputFormat::Png);
    }
    let mut read: Vec<PathBuf> = inputs.to_vec();
    read.extend(results.iter().flat_map(|r| r.files.iter().cloned()));
    plan.check(&read)?;
    let mut files = Transaction::new();
    for (name, bytes) in &images {
        files.stage(&dir.join(name), bytes)?;
    }
    files.stage(&dir.join("index.html"), html_page(context, results).as_bytes())?;
    files.commit()
}

/// A relative URL for a report path: every byte but unreserved ASCII and `/` percent-encoded.
fn url(path: &str) -> String {
    let mut out = String::new();
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(b as char);
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// The zoom at which a frame `width` pixels wide fits three panes side by side.
fn auto_zoom(width: u32) -> u32 {
    [8, 4, 2].into_iter().find(|z| width * z <= 320).unwrap_or(1)
}

const PAGE_CSS: &str = include_str!("page.css");
const PAGE_JS: &str = include_str!("page.js");

/// The page of [`html_report`].
fn html_page(context: &ReportContext, results: &[CaseResult]) -> String {
    let c = counts(results);
    let mut order: Vec<usize> = (0..results.len()).collect();
    order.sort_by_key(|&i| rank(&results[i].outcome));
    let mut body = String::new();
    let _ = write!(
        body,
        "<header><div class=\"title\"><h1>{}</h1><span class=\"sub\">spritebake check &middot; {} cases</span></div>\n<nav class=\"counts\" aria-label=\"summary\">",
        escape(&context.suite),
        results.len()
    );
    for (key, n) in
        [("failed", c.failed), ("new", c.new), ("errored", c.errored), ("passed", c.passed), ("blessed", c.blessed)]
    {
        if key == "blessed" && n == 0 {
            continue;
        }
        let _ = write!(
            body,
            "<button type=\"button\" class=\"count {key}\" data-status=\"{key}\" title=\"show only {key} cases\"><b>{n}</b> {key}</button>"
        );
    }
    body.push_str(concat!(
        "</nav>\n<div class=\"toolbar\">",
        "<input type=\"search\" id=\"filter\" placeholder=\"Filter cases by name\" aria-label=\"filter cases by name\">",
        "<span class=\"group\" aria-label=\"view\"><button type=\"button\" data-view=\"side\" title=\"expected, actual and diff side by side\">Side by side</button>",
        "<button type=\"button\" data-view=\"diff\" title=\"the diff: red differs, yellow anti-aliasing\">Diff</button>",
        "<button type=\"button\" data-view=\"slider\" title=\"drag between expected (left) and actual (right)\">Slider</button>",
        "<button type=\"button\" data-view=\"blink\" title=\"expected and actual in turn\">Blink</button></span>",
        "<span class=\"group\" aria-label=\"zoom\"><button type=\"button\" data-zoom=\"auto\" title=\"largest of 1x-8x that fits\">Fit</button>",
        "<button type=\"button\" data-zoom=\"1\">1&times;</button><button type=\"button\" data-zoom=\"2\">2&times;</button>",
        "<button type=\"button\" data-zoom=\"4\">4&times;</button><button type=\"button\" data-zoom=\"8\">8&times;</button></span>",
        "<span class=\"group\" aria-label=\"background\"><button type=\"button\" data-bg=\"checker\" title=\"checkerboard\">Checker</button>",
        "<button type=\"button\" data-bg=\"black\">Black</button><button type=\"button\" data-bg=\"white\">White</button></span>",
        "</div></header>\n<main>\n"
    ));
    let mut passed_rows = String::new();
    for &i in &order {
        let r = &results[i];
        if needs_review(&r.outcome) {
            case_section(&mut body, context, i, r);
        } else {
            let _ = writeln!(
                passed_rows,
                "<tr class=\"case-row\" data-name=\"{}\" data-status=\"{s}\"><td><span class=\"badge {s}\">{s}</span></td><td>{}</td><td class=\"num\">{:.2} s</td></tr>",
                escape(&r.name),
                escape(&r.name),
                r.seconds,
                s = status(&r.outcome)
            );
        }
    }
    if !passed_rows.is_empty() {
        let _ = write!(
            body,
            "<section class=\"passing\"><h2>Passed</h2><table><thead><tr><th>status</th><th>case</th><th>time</th></tr></thead><tbody>\n{passed_rows}</tbody></table></section>\n"
        );
    }
    if results.is_empty() {
        body.push_str("<p class=\"empty\">No cases ran.</p>\n");
    }
    body.push_str("<p class=\"none-shown\" hidden>No case matches the filter.</p>\n</main>\n");
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{} &middot; spritebake check</title>\n<style>\n{PAGE_CSS}</style></head>\n<body class=\"view-side bg-checker\">\n{body}<script>\n{PAGE_JS}</script>\n</body></html>\n",
        escape(&context.suite)
    )
}

/// One failing, new or errored case.
fn case_section(body: &mut String, context: &ReportContext, index: usize, r: &CaseResult) {
    let s = status(&r.outcome);
    let detail = r.detail.as_deref();
    let frames = detail.map_or(0, |d| d.frames.len());
    let kind = detail.map(|d| d.kind.name());
    let _ = write!(
        body,
        "<section class=\"case {s}\" id=\"case-{index}\" data-name=\"{}\" data-status=\"{s}\">\n<h2><span class=\"badge {s}\">{s}</span> <span class=\"name\">{}</span> <small>{}{:.2} s</small></h2>\n",
        escape(&r.name),
        escape(&r.name),
        match detail {
            Some(d) if d.kind == Product::Sheet && !d.cells.is_empty() => format!(
                "sheet &middot; {} cells, {} failing &middot; ",
                d.cells.len(),
                d.cells.iter().filter(|c| c.failing).count()
            ),
            _ => kind
                .map(|k| format!("{k} &middot; {frames} frame{} &middot; ", if frames == 1 { "" } else { "s" }))
                .unwrap_or_default(),
        },
        r.seconds
    );
    match &r.outcome {
        Outcome::Fail { frames } => {
            body.push_str("<ul class=\"failures\">");
            for (what, how) in frames {
                let _ = write!(body, "<li><b>{}</b>: {}</li>", escape(what), escape(how));
            }
            body.push_str("</ul>\n");
        }
        Outcome::New => {
            let _ = writeln!(
                body,
                "<p class=\"note\">No golden yet at <code>{}</code>: this is what the case renders now.</p>",
                escape(&r.golden.display().to_string())
            );
        }
        Outcome::Error(e) => {
            let _ = writeln!(body, "<pre class=\"error\">{}</pre>", escape(e));
        }
        _ => {}
    }
    let command = bless_command(context, &r.name);
    let why = match r.outcome {
        Outcome::Error(_) => "If the golden is what is broken, rewrite it from this render:",
        Outcome::New => "Accept this render as the golden:",
        _ => "Accept the change (rewrites only this case's golden):",
    };
    let _ = writeln!(
        body,
        "<div class=\"bless\"><span>{why}</span><code class=\"command\">{}</code><button type=\"button\" class=\"copy\" title=\"copy the command\">Copy</button></div>",
        escape(&command)
    );
    if let Some(d) = detail {
        detail_view(body, index, r, d);
    }
    body.push_str("</section>\n");
}

fn numbers_table(body: &mut String, j: usize, frame: &FrameResult, tolerance: &Tolerance, selected: bool) {
    let hidden = if selected { "" } else { " hidden" };
    let _ =
        write!(body, "<table class=\"numbers\" data-frame=\"{j}\"{hidden}><caption>{}</caption>", escape(&frame.label));
    let Some(n) = &frame.numbers else {
        let _ = write!(
            body,
            "<tr><td colspan=\"2\">No golden: nothing compared.</td></tr><tr><th>size</th><td>{}&times;{} px</td></tr></table>",
            frame.width, frame.height
        );
        return;
    };
    let verdict = if n.identical {
        "<span class=\"ok\">identical</span>".to_string()
    } else if frame.failing {
        format!("<span class=\"bad\">fails</span> ({} px allowed)", n.allowed_pixels)
    } else {
        format!("<span class=\"ok\">within tolerance</span> ({} px allowed)", n.allowed_pixels)
    };
    let aa = if tolerance.ignore_aa { "ignored" } else { "counted" };
    let max_percent = tolerance.max_percent.map(|p| format!(", max {p}%")).unwrap_or_default();
    let _ = write!(
        body,
        "<tr><th>verdict</th><td>{verdict}</td></tr>\
         <tr><th>differing pixels</th><td class=\"num\"><b>{}</b> of {} ({:.2}%)</td></tr>\
         <tr><th>alpha-only differences</th><td class=\"num\">{} px <small>({} in alpha)</small></td></tr>\
         <tr><th>anti-aliasing pixels</th><td class=\"num\">{} px {aa}</td></tr>\
         <tr><th>max channel delta</th><td class=\"num\">colour {}, alpha {}</td></tr>\
         <tr><th>threshold</th><td class=\"num\">{} YIQ, max {} px{max_percent}</td></tr>\
         <tr><th>size</th><td class=\"num\">{}&times;{} px</td></tr></table>",
        n.differing_pixels,
        n.total_pixels,
        n.differing_percent(),
        n.alpha_only_pixels(),
        n.alpha_pixels,
        n.aa_pixels,
        n.max_color_delta,
        n.max_alpha_delta,
        tolerance.threshold,
        tolerance.max_pixels,
        frame.width,
        frame.height
    );
}

/// The viewer, numbers, player and frame strip of a case with a detail.
fn detail_view(body: &mut String, index: usize, r: &CaseResult, d: &CaseDetail) {
    let new = d.frames.iter().all(|f| f.numbers.is_none());
    if let Some(actual_delays) = (d.kind == Product::Gif).then_some(&d.actual_delays) {
        delays_table(body, d.expected_delays.as_deref(), actual_delays);
    }
    if let Some((file, line, got, want)) = &d.json_difference {
        let _ = writeln!(
            body,
            "<div class=\"json-diff\"><b>{} differs</b> at line {line}:<pre><span class=\"exp\">golden: {}</span>\n<span class=\"act\">actual: {}</span></pre></div>",
            escape(file),
            escape(want),
            escape(got)
        );
    }
    let has_images = d.frames.iter().any(|f| f.images.is_some());
    if !has_images {
        return;
    }
    let selected = d.frames.iter().position(|f| f.failing).unwrap_or(0);
    let files: Vec<FrameFiles> = d.frames.iter().enumerate().map(|(j, f)| frame_files(index, &r.name, j, f)).collect();
    viewer(body, d, &files[selected], selected, new);
    if d.frames.len() > 1 {
        player(body, d, selected);
    }
    frame_strip(body, d, &files, selected, new);
}

/// An image's `src`: its path as a URL, escaped (empty without one).
fn src(path: &Option<String>) -> String {
    path.as_deref().map(|p| escape(&url(p))).unwrap_or_default()
}

/// The selected frame's panes (expected, actual, diff, slider, blink: only actual when there
/// is no golden) beside every frame's numbers.
fn viewer(body: &mut String, d: &CaseDetail, f: &FrameFiles, selected: usize, new: bool) {
    let first = &d.frames[selected];
    let (w, h) = (first.width, first.height);
    let z = auto_zoom(w);
    let cells = cells_overlay(d, selected);
    let _ = write!(
        body,
        "<div class=\"viewer{}\" data-selected=\"{selected}\" style=\"--z:{z};--w:{w};--h:{h}\">\n<div class=\"stage\">\n",
        if new { " no-golden" } else { "" }
    );
    let pane = |body: &mut String, class: &str, caption: &str, img: String, after: &str| {
        let _ = writeln!(
            body,
            "<figure class=\"pane {class}\"><figcaption>{caption}</figcaption><div class=\"pic\">{img}{cells}</div>{after}</figure>"
        );
    };
    let img = |class: &str, path: &Option<String>, alt: &str| {
        if path.is_some() {
            format!("<img class=\"{class}\" src=\"{}\" alt=\"{alt}\">", src(path))
        } else {
            format!("<img class=\"{class}\" alt=\"{alt}\" hidden>")
        }
    };
    if !new {
        pane(body, "expected", "Expected (golden)", img("expected", &f.expected, "expected"), "");
    }
    let actual_caption = if new { "Actual (no golden yet)" } else { "Actual" };
    pane(body, "actual", actual_caption, img("actual", &f.actual, "actual"), "");
    if !new {
        let same = if f.diff.is_none() { "" } else { " hidden" };
        pane(
            body,
            "diff",
            "Diff <span class=\"legend\"><i class=\"red\"></i>differs <i class=\"yellow\"></i>anti-aliasing</span>",
            format!("{}<span class=\"same\"{same}>identical</span>", img("diff", &f.diff, "diff")),
            "",
        );
        pane(
            body,
            "slider",
            "<span>&#9664; Expected</span><span>Actual &#9654;</span>",
            format!(
                "{}{}<div class=\"divider\"></div>",
                img("expected under", &f.expected, "expected"),
                img("actual over", &f.actual, "actual")
            ),
            "<input type=\"range\" class=\"swipe\" min=\"0\" max=\"100\" value=\"50\" aria-label=\"slider position\">",
        );
        pane(
            body,
            "blink",
            "<span class=\"blink-e\">Expected</span><span class=\"blink-a\">Actual</span>",
            format!("{}{}", img("expected under", &f.expected, "expected"), img("actual over", &f.actual, "actual")),
            "",
        );
    }
    body.push_str("</div>\n<div class=\"side\">");
    for (j, frame) in d.frames.iter().enumerate() {
        numbers_table(body, j, frame, &d.tolerance, j == selected);
    }
    body.push_str("</div>\n</div>\n");
}

/// The buttons that step through the frames and play them, expected and actual in sync.
fn player(body: &mut String, d: &CaseDetail, selected: usize) {
    let first = &d.frames[selected];
    let play = if d.kind == Product::Sheet { "Step through the sheet and its failing cells" } else { "Play" };
    let _ = writeln!(
        body,
        "<div class=\"player\"><button type=\"button\" data-step=\"first\" title=\"first frame\">|&#9664;</button><button type=\"button\" data-step=\"-1\" title=\"previous frame\">&#9664;</button><button type=\"button\" class=\"play\" title=\"{play}: expected and actual in sync\">&#9654; Play</button><button type=\"button\" data-step=\"1\" title=\"next frame\">&#9654;</button><button type=\"button\" data-step=\"last\" title=\"last frame\">&#9654;|</button><button type=\"button\" data-step=\"fail\" title=\"next failing frame\">next failing &#9654;</button><label>speed <select class=\"fps\">{}<option value=\"2\">2 fps</option><option value=\"4\">4 fps</option><option value=\"8\"{}>8 fps</option><option value=\"12\">12 fps</option><option value=\"24\">24 fps</option></select></label><span class=\"position\">{} / {}: {}</span></div>",
        if d.kind == Product::Gif { "<option value=\"gif\" selected>GIF delays</option>" } else { "" },
        if d.kind == Product::Gif { "" } else { " selected" },
        selected + 1,
        d.frames.len(),
        escape(&first.label)
    );
}

/// The strip of every frame's thumbnail (a sheet's: the sheet and its failing cells), each
/// carrying its images, size, state and delay for the script.
fn frame_strip(body: &mut String, d: &CaseDetail, files: &[FrameFiles], selected: usize, new: bool) {
    let failing = d.frames.iter().filter(|f| f.failing).count();
    // One frame needs no strip (it stays in the page, hidden, for the script).
    let single = if d.frames.len() == 1 { " hidden" } else { "" };
    let head = if d.kind == Product::Sheet && !d.cells.is_empty() {
        let shown = d.frames.len() - 1;
        let failing_cells = d.cells.iter().filter(|c| c.failing).count();
        let more = if failing_cells > shown { format!(" (the first {shown} shown)") } else { String::new() };
        format!("the sheet and its <b>{failing_cells} failing cells</b>{more}; click an outlined cell to open it")
    } else {
        format!(
            "{} frame{}{}",
            d.frames.len(),
            if d.frames.len() == 1 { "" } else { "s" },
            if new { String::new() } else { format!(", <b>{failing} failing</b>") }
        )
    };
    let _ = write!(body, "<div class=\"strip-head\"{single}>{head}</div><ol class=\"strip\"{single}>");
    let delays = if d.actual_delays.len() == d.frames.len() { Some(&d.actual_delays) } else { None };
    for (j, (frame, files)) in d.frames.iter().zip(files).enumerate() {
        let class = match (frame.failing, j == selected) {
            (true, true) => "frame failing selected",
            (true, false) => "frame failing",
            (false, true) => "frame selected",
            (false, false) => "frame",
        };
        let state = if frame.failing {
            "failing"
        } else if frame.numbers.is_none() {
            "new"
        } else if frame.numbers.is_some_and(|n| n.identical) {
            "identical"
        } else {
            "within tolerance"
        };
        let delay = delays.map(|d| format!(" data-delay=\"{}\"", d[j] as u32 * 10)).unwrap_or_default();
        let _ = write!(
            body,
            "<li><button type=\"button\" class=\"{class}\" data-frame=\"{j}\" data-label=\"{}\" data-state=\"{state}\" data-expected=\"{}\" data-actual=\"{}\" data-diff=\"{}\" data-w=\"{}\" data-h=\"{}\"{delay} title=\"{}: {state}\"><img src=\"{}\" alt=\"\" style=\"--w:{};--h:{}\"><span>{}{}</span></button></li>",
            escape(&frame.label),
            src(&files.expected),
            src(&files.actual),
            src(&files.diff),
            frame.width,
            frame.height,
            escape(&frame.label),
            src(&files.actual),
            frame.width,
            frame.height,
            if frame.failing { "&#10007; " } else { "" },
            escape(&frame.label)
        );
    }
    body.push_str("</ol>\n");
}

/// A failing sheet's cells outlined over the sheet (frame 0), positioned in percent of the
/// sheet so they scale with the zoom. Cells without differences are not drawn.
fn cells_overlay(d: &CaseDetail, selected: usize) -> String {
    if d.cells.is_empty() {
        return String::new();
    }
    let Some(sheet) = d.frames.first() else { return String::new() };
    let (sw, sh) = (sheet.width.max(1) as f64, sheet.height.max(1) as f64);
    let hidden = if selected == 0 { "" } else { " hidden" };
    let mut out = format!("<div class=\"cells\"{hidden}>");
    for cell in d.cells.iter().filter(|c| c.numbers.differing_pixels > 0 || c.numbers.aa_pixels > 0) {
        let [x, y, w, h] = cell.rect;
        let class = if cell.failing { "cell failing" } else { "cell differs" };
        let frame = cell.frame.map(|f| format!(" data-frame=\"{f}\"")).unwrap_or_default();
        let _ = write!(
            out,
            "<span class=\"{class}\"{frame} style=\"left:{:.4}%;top:{:.4}%;width:{:.4}%;height:{:.4}%\" title=\"{}: {} px differ{}\"></span>",
            x as f64 * 100.0 / sw,
            y as f64 * 100.0 / sh,
            w as f64 * 100.0 / sw,
            h as f64 * 100.0 / sh,
            escape(&cell.name),
            cell.numbers.differing_pixels,
            if cell.failing { " (failing)" } else { "" }
        );
    }
    out.push_str("</div>");
    out
}

/// A GIF's delays, golden against render, mismatches marked.
fn delays_table(body: &mut String, expected: Option<&[u16]>, actual: &[u16]) {
    let n = actual.len().max(expected.map_or(0, |e| e.len()));
    let cell = |v: Option<&u16>| v.map_or("&ndash;".to_string(), |v| format!("{}", *v as u32 * 10));
    let mismatched = |i: usize| expected.is_some_and(|e| e.get(i) != actual.get(i));
    let count = (0..n).filter(|&i| mismatched(i)).count();
    let _ = write!(
        body,
        "<div class=\"delays\"><b>GIF delays</b> (ms){}<table><tr><th>frame</th>",
        match (expected, count) {
            (None, _) => String::new(),
            (Some(_), 0) => ": <span class=\"ok\">all equal</span>".to_string(),
            (Some(_), c) => format!(": <span class=\"bad\">{c} differ</span>"),
        }
    );
    for i in 0..n {
        let _ = write!(body, "<th{}>{i}</th>", if mismatched(i) { " class=\"mismatch\"" } else { "" });
    }
    if let Some(e) = expected {
        body.push_str("</tr><tr><th>expected</th>");
        for i in 0..n {
            let _ =
                write!(body, "<td{}>{}</td>", if mismatched(i) { " class=\"mismatch\"" } else { "" }, cell(e.get(i)));
        }
    }
    body.push_str("</tr><tr><th>actual</th>");
    for i in 0..n {
        let _ =
            write!(body, "<td{}>{}</td>", if mismatched(i) { " class=\"mismatch\"" } else { "" }, cell(actual.get(i)));
    }
    body.push_str("</tr></table></div>\n");
}
