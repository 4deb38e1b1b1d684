//! What a `check` run tells GitHub Actions: an `::error` workflow command per case that did not
//! pass, which GitHub shows as an annotation on the manifest's line of that case, and a
//! Markdown summary for the job's page (`$GITHUB_STEP_SUMMARY`): the counts, then the worst
//! cases with what failed and where their diff images are.
//!
//! Workflow commands are one line each: a message's `%`, CR and LF are escaped (`%25`, `%0D`,
//! `%0A`), and a property's `:` and `,` too, as GitHub's toolkit escapes them.

use std::fmt::Write;

use super::{CaseResult, Outcome};

/// Cases the summary lists one by one, worst first; the rest are counted.
const SUMMARY_CASES: usize = 20;

/// One `::error` line per case that failed, is new (no golden) or could not run, each on the
/// manifest's line that names the case (`manifest` as the run was given it, `text` its
/// contents).
pub fn annotations(manifest: &str, text: &str, results: &[CaseResult]) -> String {
    let mut out = String::new();
    for r in results {
        let Some(message) = problem(r) else { continue };
        let line = case_line(text, &r.name).map(|n| format!(",line={n}")).unwrap_or_default();
        let title = format!("spritebake check: {}", r.name);
        let _ = writeln!(
            out,
            "::error file={}{line},title={}::{}",
            escape_property(manifest),
            escape_property(&title),
            escape_data(&message)
        );
    }
    out
}

/// The Markdown summary of a run of `suite`: counts, then the cases that did not pass, worst
/// first (errors, then failures by differing pixels, then new cases), each with its diff image
/// when one was written.
pub fn step_summary(suite: &str, results: &[CaseResult]) -> String {
    let count = |f: fn(&Outcome) -> bool| results.iter().filter(|r| f(&r.outcome)).count();
    let passed = count(|o| matches!(o, Outcome::Pass | Outcome::Blessed));
    let failed = count(|o| matches!(o, Outcome::Fail { .. }));
    let new = count(|o| matches!(o, Outcome::New));
    let errors = count(|o| matches!(o, Outcome::Error(_)));
    let mut out = format!("## spritebake check: {}\n\n", markdown_text(suite));
    let _ = writeln!(out, "{passed} passed, {failed} failed, {new} new, {errors} errors\n");
    let mut problems: Vec<&CaseResult> = results.iter().filter(|r| problem(r).is_some()).collect();
    if problems.is_empty() {
        return out;
    }
    problems.sort_by_key(|r| std::cmp::Reverse(severity(r)));
    out += "| case | result | what failed | diff |\n|---|---|---|---|\n";
    for r in problems.iter().take(SUMMARY_CASES) {
        let (result, what) = match &r.outcome {
            Outcome::Error(e) => ("error", e.clone()),
            Outcome::New => ("new", format!("no golden at {}", r.golden.display())),
            Outcome::Fail { frames } => {
                let first = frames.first().map(|(frame, how)| format!("{frame}: {how}")).unwrap_or_default();
                let more = frames.len().saturating_sub(1);
                let more = if more > 0 { format!(" (and {more} more)") } else { String::new() };
                ("fail", format!("{first}{more}"))
            }
            Outcome::Pass | Outcome::Blessed => continue,
        };
        let diff = r.diff.as_ref().map(|d| markdown_text(&d.display().to_string())).unwrap_or_default();
        let _ = writeln!(out, "| {} | {result} | {} | {} |", markdown_text(&r.name), markdown_text(&what), diff);
    }
    if problems.len() > SUMMARY_CASES {
        let _ = writeln!(out, "\n{} more cases did not pass.", problems.len() - SUMMARY_CASES);
    }
    out
}

/// What went wrong with a case, or `None` when it passed or was blessed.
fn problem(r: &CaseResult) -> Option<String> {
    match &r.outcome {
        Outcome::Pass | Outcome::Blessed => None,
        Outcome::New => Some(format!("no golden at {} (run check with --bless to create it)", r.golden.display())),
        Outcome::Error(e) => Some(e.clone()),
        Outcome::Fail { frames } => {
            let list: Vec<String> = frames.iter().map(|(frame, how)| format!("{frame}: {how}")).collect();
            Some(list.join("\n"))
        }
    }
}

/// How bad a case is, for the summary's order: errors first, then failures by their differing
/// pixels, then new cases.
fn severity(r: &CaseResult) -> (u8, usize) {
    match &r.outcome {
        Outcome::Error(_) => (3, 0),
        Outcome::Fail { .. } => {
            let frames = r.detail.iter().flat_map(|d| &d.frames);
            (2, frames.filter_map(|f| f.numbers.as_ref()).map(|n| n.differing_pixels).sum())
        }
        Outcome::New => (1, 0),
        Outcome::Pass | Outcome::Blessed => (0, 0),
    }
}

/// The 1-based line of the manifest's `name = "CASE"` (either quote), if it has one.
fn case_line(text: &str, name: &str) -> Option<usize> {
    let quoted = [format!("\"{name}\""), format!("'{name}'")];
    text.lines()
        .position(|line| {
            let line = line.trim_start();
            line.strip_prefix("name").is_some_and(|rest| {
                let value = rest.trim_start().strip_prefix('=').map(str::trim);
                value.is_some_and(|v| quoted.iter().any(|q| v.starts_with(q.as_str())))
            })
        })
        .map(|i| i + 1)
}

/// A workflow command's message, on one line.
fn escape_data(text: &str) -> String {
    text.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

/// A workflow command's property value: as a message, and `:` and `,` too.
fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

/// Text in a Markdown table cell: on one line, its pipes and markup characters escaped.
fn markdown_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' | '\r' => out.push(' '),
            '|' | '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '#' => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn result(name: &str, outcome: Outcome) -> CaseResult {
        CaseResult {
            name: name.into(),
            outcome,
            golden: PathBuf::from(format!("golden/{name}.png")),
            actual: None,
            diff: Some(PathBuf::from(format!("out/{name}.diff.png"))),
            expected: None,
            seconds: 0.1,
            detail: None,
            files: Vec::new(),
        }
    }

    #[test]
    fn each_case_that_did_not_pass_is_one_annotation_on_its_line() {
        let manifest = "[defaults]\nsize = \"64\"\n\n[[case]]\nname = \"walk\"\ngolden = \"w.png\"\n\n[[case]]\nname='idle, 50%'\n";
        let fail = Outcome::Fail {
            frames: vec![("frame 0".into(), "12 pixels differ".into()), ("frame 1".into(), "3".into())],
        };
        let results = [
            result("walk", fail),
            result("idle, 50%", Outcome::New),
            result("run", Outcome::Pass),
            result("jump", Outcome::Error("model.md2: no such file".into())),
        ];
        let lines = annotations("tests/check.toml", manifest, &results);
        let lines: Vec<&str> = lines.lines().collect();
        assert_eq!(lines.len(), 3, "{lines:?}");
        assert_eq!(
            lines[0],
            "::error file=tests/check.toml,line=5,title=spritebake check%3A walk::frame 0: 12 pixels differ%0Aframe 1: 3"
        );
        assert!(
            lines[1]
                .starts_with("::error file=tests/check.toml,line=9,title=spritebake check%3A idle%2C 50%25::no golden")
        );
        // A case the manifest does not name on a line of its own is still annotated, on the file.
        assert_eq!(lines[2], "::error file=tests/check.toml,title=spritebake check%3A jump::model.md2: no such file");
    }

    #[test]
    fn the_summary_counts_and_lists_the_worst_first() {
        let fail = |n: usize| Outcome::Fail { frames: vec![("sheet".into(), format!("{n} pixels differ"))] };
        let results = [
            result("new one", Outcome::New),
            result("a | b", fail(3)),
            result("ok", Outcome::Pass),
            result("broken", Outcome::Error("bad\nmanifest".into())),
        ];
        let summary = step_summary("sprites", &results);
        assert!(
            summary.starts_with("## spritebake check: sprites\n\n1 passed, 1 failed, 1 new, 1 errors\n"),
            "{summary}"
        );
        let rows: Vec<&str> = summary.lines().filter(|l| l.starts_with("| ") && !l.starts_with("| case")).collect();
        assert_eq!(rows.len(), 3, "{summary}");
        assert!(rows[0].starts_with("| broken | error | bad manifest |"), "{}", rows[0]);
        assert!(rows[1].starts_with("| a \\| b | fail | sheet: 3 pixels differ |"), "{}", rows[1]);
        assert!(rows[1].ends_with("| out/a \\| b.diff.png |"), "{}", rows[1]);
        assert!(rows[2].starts_with("| new one | new |"), "{}", rows[2]);
        let all_pass = step_summary("sprites", &[result("ok", Outcome::Pass)]);
        assert!(!all_pass.contains("| case"), "{all_pass}");
    }
}
