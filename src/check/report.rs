//! Reports of a `check` run: JUnit XML for CI systems and a static HTML page.

use std::fmt::Write as _;
use std::path::Path;

use super::{CaseResult, Outcome};
use crate::error::{Error, Result};

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

/// Writes `dir/index.html`: for each failing or new case, expected, actual and diff side by
/// side, with the images copied into `dir` so the page is self-contained.
///
/// # Errors
/// The folder or a file cannot be written.
pub fn html_report(dir: &Path, suite: &str, results: &[CaseResult]) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let copy = |src: &Path, name: String| -> Result<Option<String>> {
        if !src.is_file() {
            return Ok(None);
        }
        std::fs::copy(src, dir.join(&name)).map_err(|e| Error::io(src, e))?;
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
            ("expected", if r.golden.is_file() { copy(&r.golden, format!("{i}-expected.png"))? } else { None }),
            (
                "actual",
                match &r.actual {
                    Some(p) => copy(p, format!("{i}-actual.png"))?,
                    None => None,
                },
            ),
            (
                "diff",
                match &r.diff {
                    Some(p) => copy(p, format!("{i}-diff.png"))?,
                    None => None,
                },
            ),
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
    crate::output::write_atomic(&dir.join("index.html"), page.as_bytes())
}
