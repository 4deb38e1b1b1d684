//! [`junit_xml`]: a `check` run for CI systems, as JUnit XML.

use std::fmt::Write as _;

use crate::check::{CaseResult, Outcome};
use crate::escape::markup as escape;

/// JUnit XML with one `<testcase>` per case; `suite` is the manifest's name (the class name).
/// New goldens without `--bless` count as failures. A case's actual and diff images, when
/// `check --out` wrote them ([`CaseResult::actual`], [`CaseResult::diff`]), are named in its
/// failure message and listed in its `<system-out>` as `[[ATTACHMENT|path]]` lines, the form
/// Jenkins and GitLab show as attachments.
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
        // The images `check --out` wrote for this case, named in the failure message and as
        // `[[ATTACHMENT|path]]` lines in `<system-out>` (which Jenkins and GitLab show as links).
        let images: Vec<(&str, String)> = [("actual", &r.actual), ("diff", &r.diff)]
            .into_iter()
            .filter_map(|(kind, path)| Some((kind, path.as_ref()?.display().to_string())))
            .collect();
        let named = images.iter().map(|(kind, path)| format!("; {kind}: {path}")).collect::<String>();
        let named_lines = images.iter().map(|(kind, path)| format!("\n{kind}: {path}")).collect::<String>();
        let attachments =
            images.iter().map(|(_, path)| format!("[[ATTACHMENT|{}]]\n", escape(path))).collect::<String>();
        let system_out =
            if attachments.is_empty() { String::new() } else { format!("<system-out>\n{attachments}</system-out>") };
        match &r.outcome {
            Outcome::Pass | Outcome::Blessed => x.push_str("/>\n"),
            Outcome::Fail { frames } => {
                let detail: Vec<String> = frames.iter().map(|(f, s)| format!("{f}: {s}")).collect();
                let first = frames.first().map(|(_, s)| s.as_str()).unwrap_or("different");
                let _ = writeln!(
                    x,
                    "><failure message=\"{}\">{}</failure>{system_out}</testcase>",
                    escape(&format!("{first}{named}")),
                    escape(&format!("{}{named_lines}", detail.join("\n")))
                );
            }
            Outcome::New => {
                let _ = writeln!(
                    x,
                    "><failure message=\"{}\"/>{system_out}</testcase>",
                    escape(&format!("no golden at {}{named}", r.golden.display()))
                );
            }
            Outcome::Error(e) => {
                let _ = writeln!(x, "><error message=\"{}\"/>{system_out}</testcase>", escape(e));
            }
        }
    }
    x.push_str("</testsuite></testsuites>\n");
    x
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    fn case(name: &str, outcome: Outcome, actual: Option<&str>, diff: Option<&str>) -> CaseResult {
        CaseResult {
            name: name.into(),
            outcome,
            golden: PathBuf::from(format!("golden/{name}.png")),
            actual: actual.map(PathBuf::from),
            diff: diff.map(PathBuf::from),
            expected: None,
            seconds: 0.0,
            detail: None,
            files: Vec::new(),
        }
    }

    /// (message attribute, text of `<system-out>`) of each `<testcase>`, unescaped.
    fn cases(xml: &str) -> Vec<(Option<String>, Option<String>)> {
        use quick_xml::events::Event;
        let mut reader = quick_xml::Reader::from_str(xml);
        let mut out: Vec<(Option<String>, Option<String>)> = Vec::new();
        let mut in_system_out = false;
        loop {
            match reader.read_event().unwrap() {
                Event::Start(e) | Event::Empty(e) if e.name().as_ref() == b"testcase" => out.push((None, None)),
                Event::Start(e) | Event::Empty(e) if matches!(e.name().as_ref(), b"failure" | b"error") => {
                    let message = e.try_get_attribute("message").unwrap().unwrap();
                    let message = message.normalized_value(quick_xml::XmlVersion::Implicit1_0).unwrap();
                    out.last_mut().unwrap().0 = Some(message.into_owned());
                }
                Event::Start(e) if e.name().as_ref() == b"system-out" => in_system_out = true,
                Event::End(e) if e.name().as_ref() == b"system-out" => in_system_out = false,
                Event::Text(t) if in_system_out => {
                    let text = t.decode().unwrap();
                    let text = quick_xml::escape::unescape(&text).unwrap().into_owned();
                    out.last_mut().unwrap().1.get_or_insert_default().push_str(&text);
                }
                Event::GeneralRef(r) if in_system_out => {
                    let name = r.decode().unwrap();
                    let text = quick_xml::escape::unescape(&format!("&{name};")).unwrap().into_owned();
                    out.last_mut().unwrap().1.get_or_insert_default().push_str(&text);
                }
                Event::Eof => break,
                _ => {}
            }
        }
        out
    }

    #[test]
    fn names_with_characters_xml_forbids_still_make_a_well_formed_file() {
        let fail = Outcome::Fail { frames: vec![("clip \u{FFFF}".into(), "differs".into())] };
        let results = [case("walk\u{FFFE}", Outcome::Pass, None, None), case("run", fail, None, None)];
        let xml = junit_xml("suite\u{FFFF}", &results);
        assert!(!xml.contains(['\u{FFFE}', '\u{FFFF}']), "{xml}");
        assert!(xml.contains("walk\u{FFFD}") && xml.contains("clip \u{FFFD}"), "{xml}");
        assert_eq!(cases(&xml).len(), 2, "{xml}");
    }

    #[test]
    fn junit_failures_name_and_attach_the_actual_and_diff_images() {
        let fail =
            Outcome::Fail { frames: vec![("frame 2".into(), "3 px (1.2%) differ; max channel delta 40".into())] };
        let results = [
            case("pass", Outcome::Pass, None, None),
            case("fail", fail, Some("out/a&b <\"x\">.actual.png"), Some("out/a&b <\"x\">.diff.png")),
            case("new", Outcome::New, Some("out/new.actual.png"), None),
            case("error", Outcome::Error("no such model".into()), None, None),
        ];
        let xml = junit_xml("suite", &results);
        let cases = cases(&xml);
        assert_eq!(cases.len(), 4, "{xml}");
        assert_eq!(cases[0], (None, None));
        let (message, system_out) = &cases[1];
        assert_eq!(
            message.as_deref(),
            Some(
                "3 px (1.2%) differ; max channel delta 40; actual: out/a&b <\"x\">.actual.png; diff: out/a&b <\"x\">.diff.png"
            ),
            "{xml}"
        );
        assert_eq!(
            system_out.as_deref(),
            Some("\n[[ATTACHMENT|out/a&b <\"x\">.actual.png]]\n[[ATTACHMENT|out/a&b <\"x\">.diff.png]]\n"),
            "{xml}"
        );
        let (message, system_out) = &cases[2];
        assert_eq!(message.as_deref(), Some("no golden at golden/new.png; actual: out/new.actual.png"), "{xml}");
        assert_eq!(system_out.as_deref(), Some("\n[[ATTACHMENT|out/new.actual.png]]\n"), "{xml}");
        assert_eq!(cases[3], (Some("no such model".into()), None));
    }
}
