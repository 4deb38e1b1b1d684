//! Reports of a `check` run: JUnit XML for CI systems and a static HTML page.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::{CaseResult, Outcome};
use crate::error::Result;
use crate::output::{OutputFormat, OutputPlan, Transaction};

fn escape(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '&' => "&amp;".into(),
            '<' => "&lt;".into(),
            '>' => "&gt;".into(),
            '"' => "&quot;".into(),
            '\'' => "&apos;".into(),
            c if (c as u32) < 0x20 && !matches!(c, '\n' | '\t') => " ".into(),
            c => c.to_string(),
        })
        .collect()
}

/// JUnit XML with one `<testcase>` per case; `suite` is the manifest's name (the class name).
/// New goldens without `--bless` count as failures.
pub fn junit_xml(suite: &str, results: &[CaseResult]) -> String {
    let failures = results.iter().filter(|r| matches!(r.outcome, Outcome::Fail { .. } | Outcome::New)).count();
    let errors = results.iter().filter(|r| matches!(r.outcome, Outcome::Error(_))).count();
    let time: f64 = results.iter().map(|r| r.seconds).sum();
    let mut x = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        x,
        "<testsuites><testsuite name=\"{}\" tests=\"{}\" failures=\"{failures}\" errors=\"{errors}\" time=\"{time:.3}\">",
        escape(suite),
        results.len()
    );
    for r in results {
        let _ = write!(
            x,
            "  <testcase classname=\"{}\" name=\"{}\" time=\"{:.3}\"",
            escape(suite),
            escape(&r.name),
            r.seconds
        );
        match &r.outcome {
            Outcome::Pass | Outcome::Blessed => x.push_str("/>\n"),
            Outcome::Fail { frames } => {
                let detail: Vec<String> = frames.iter().map(|(f, s)| format!("frame {f}: {s}")).collect();
                let _ = writeln!(
                    x,
                    "><failure message=\"{}\">{}</failure></testcase>",
                    escape(frames.first().map(|(_, s)| s.as_str()).unwrap_or("different")),
                    escape(&detail.join("\n"))
                );
            }
            Outcome::New => {
                let _ = writeln!(
                    x,
                    "><failure message=\"no golden at {}\"/></testcase>",
                    escape(&r.golden.display().to_string())
                );
            }
            Outcome::Error(e) => {
                let _ = writeln!(x, "><error message=\"{}\"/></testcase>", escape(e));
            }
        }
    }
    x.push_str("</testsuite></testsuites>\n");
    x
}

/// The name of a case's image in an HTML report folder: `{index}-{kind}.png`.
fn report_image(index: usize, kind: &str) -> String {
    format!("{index}-{kind}.png")
}

const IMAGE_KINDS: [&str; 3] = ["expected", "actual", "diff"];

/// Adds every file [`html_report`] may write into `dir` for `cases` cases to `plan`.
pub fn plan_html_report(dir: &Path, cases: usize, plan: &mut OutputPlan) {
    plan.add(dir.join("index.html"), OutputFormat::Html);
    for i in 0..cases {
        for kind in IMAGE_KINDS {
            plan.add(dir.join(report_image(i, kind)), OutputFormat::Png);
        }
    }
}

/// Writes `dir/index.html`: for each failing or new case, expected, actual and diff side by
/// side, with the images copied into `dir` so the page is self-contained. Only the golden a
/// case actually read and compared ([`CaseResult::expected`]) is copied, and the actual and
/// diff images `check` wrote: a path named in a manifest is never copied on its own say-so.
/// The page and its images are written together or not at all.
///
/// # Errors
/// A file cannot be read or written.
pub fn html_report(dir: &Path, suite: &str, results: &[CaseResult]) -> Result<()> {
    let mut files = Transaction::new();
    let mut copy = |src: Option<&PathBuf>, name: String| -> Result<Option<String>> {
        let Some(src) = src.filter(|p| p.is_file()) else { return Ok(None) };
        // Read again as any named file is: a regular file, bounded before the read.
        let bytes = crate::formats::read_file(src, crate::formats::Limits::default().max_file_bytes)?;
        files.stage(&dir.join(&name), &bytes)?;
        Ok(Some(name))
    };
    let mut body = String::new();
    let passed = results.iter().filter(|r| matches!(r.outcome, Outcome::Pass | Outcome::Blessed)).count();
    let _ = writeln!(body, "<h1>{}</h1><p>{passed} of {} cases passed</p>", escape(suite), results.len());
    for (i, r) in results.iter().enumerate() {
        if matches!(r.outcome, Outcome::Pass | Outcome::Blessed) {
            continue;
        }
        let _ = writeln!(
            body,
            "<section><h2>{}</h2><p>{}</p><div class=\"row\">",
            escape(&r.name),
            escape(&super::summary_line(r))
        );
        let images = [
            ("expected", copy(r.expected.as_ref(), report_image(i, IMAGE_KINDS[0]))?),
            ("actual", copy(r.actual.as_ref(), report_image(i, IMAGE_KINDS[1]))?),
            ("diff", copy(r.diff.as_ref(), report_image(i, IMAGE_KINDS[2]))?),
        ];
        for (title, file) in images {
            if let Some(file) = file {
                let _ = writeln!(
                    body,
                    "<figure><a href=\"{file}\"><img src=\"{file}\" alt=\"{title}\"></a><figcaption>{title}</figcaption></figure>"
                );
            }
        }
        body.push_str("</div></section>\n");
    }
    let page = format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>{} check report</title><style>body{{font-family:sans-serif}} .row{{display:flex;gap:1em}} img{{image-rendering:pixelated;background:repeating-conic-gradient(#ccc 0 25%,#fff 0 50%) 0 0/16px 16px;max-width:30vw}}</style></head><body>\n{body}</body></html>\n",
        escape(suite)
    );
    files.stage(&dir.join("index.html"), page.as_bytes())?;
    files.commit()
}
