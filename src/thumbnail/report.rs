//! The index of a thumbnail batch: `index.html`, the page a reviewer opens from a downloaded CI
//! artifact, and the `--json` records a script reads.
//!
//! The page is one file with nothing to fetch: inline CSS, no script, no fonts; the only
//! resources are the thumbnails, linked relatively so the folder works anywhere it is unpacked.
//! Failed models come first. Every text that comes from a model or a path is escaped (a model
//! named `<script>.md2` is text on the page), and image links are percent-encoded segment by
//! segment, so names with spaces, `#`, `?`, `%` or non-ASCII letters still load.

use std::fmt::Write as _;
use std::path::{Component, Path, PathBuf};

use crate::escape::markup;

/// What happened to one model of a thumbnail batch.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// The thumbnail was written.
    Ok,
    /// The model could not be loaded, rendered or written.
    Failed,
}

/// One model of a thumbnail batch, as the index page and the JSON records show it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Record {
    /// The model file as the batch found it.
    #[serde(serialize_with = "lossy_path")]
    pub input: PathBuf,
    /// The PNG written (`None` when it failed).
    #[serde(serialize_with = "lossy_optional_path")]
    pub output: Option<PathBuf>,
    /// Whether the thumbnail was written.
    pub status: Status,
    /// Why it failed.
    pub reason: Option<String>,
    /// The model's warnings (a missing texture, an unknown material).
    pub warnings: Vec<String>,
    /// The model's triangle count when it loaded.
    pub triangles: Option<u64>,
    /// Wall time of this model (load, render, encode), seconds.
    pub seconds: f64,
}

impl Record {
    /// An item that gave no thumbnail: `input`, why when known, and the time it took.
    pub(crate) fn failed(input: PathBuf, reason: Option<String>, seconds: f64) -> Record {
        Record { input, output: None, status: Status::Failed, reason, warnings: Vec::new(), triangles: None, seconds }
    }
}

// Paths as JSON strings even when they are not UTF-8 (serde refuses those): a record with a
// replacement character beats no records at all.
fn lossy_path<S: serde::Serializer>(path: &Path, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&path.to_string_lossy())
}

fn lossy_optional_path<S: serde::Serializer>(path: &Option<PathBuf>, s: S) -> Result<S::Ok, S::Error> {
    match path {
        Some(path) => s.serialize_some(&path.to_string_lossy()),
        None => s.serialize_none(),
    }
}

/// The `--json FILE` text: a JSON array, one object per record (input, output, status, reason,
/// warnings, triangles, seconds), paths as strings (lossy UTF-8).
pub(crate) fn json_records(records: &[Record]) -> String {
    // Strings, numbers and arrays of them: serde_json has nothing here it could refuse.
    let mut text = serde_json::to_string_pretty(records).expect("thumbnail records are plain JSON");
    text.push('\n');
    text
}

/// `index.html` for the thumbnails in `folder`: every record (ok ones with their image, failed
/// ones with their reason), and `skipped` (files the scan found but left out, each with a short
/// reason such as "sequence-only SMD (no triangles)" or "described by headcrab.qc") in one
/// collapsed list at the end.
pub(crate) fn index_html(folder: &Path, records: &[Record], skipped: &[(PathBuf, String)]) -> String {
    let failed = records.iter().filter(|r| r.status == Status::Failed).count();
    let summary =
        format!("{}, {failed} failed, {} skipped", count((records.len() - failed) as u64, "thumbnail"), skipped.len());
    let mut body = String::new();
    let _ = write!(
        body,
        "<header><h1>Thumbnails</h1><p class=\"folder\">{}</p><p class=\"counts\">{summary}</p></header>\n<main>\n",
        markup(&folder.to_string_lossy())
    );
    // Failed first, so a reviewer sees them without scrolling; otherwise the batch's order.
    let mut shown: Vec<&Record> = records.iter().collect();
    shown.sort_by_key(|r| r.status != Status::Failed);
    if shown.is_empty() {
        body.push_str("<p class=\"empty\">No models.</p>\n");
    } else {
        body.push_str("<div class=\"grid\">\n");
        for record in shown {
            card(&mut body, folder, record);
        }
        body.push_str("</div>\n");
    }
    if !skipped.is_empty() {
        let _ = writeln!(body, "<details class=\"skipped\"><summary>{} skipped</summary><ul>", skipped.len());
        for (path, reason) in skipped {
            let _ = writeln!(body, "<li><code>{}</code>: {}</li>", markup(&path.to_string_lossy()), markup(reason));
        }
        body.push_str("</ul></details>\n");
    }
    body.push_str("</main>\n");
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>Thumbnails: {summary}</title>\n<style>\n{PAGE_CSS}</style></head>\n<body>\n{body}</body></html>\n"
    )
}

/// One model's card: its image (or a placeholder), names, numbers, reason and warnings.
fn card(out: &mut String, folder: &Path, record: &Record) {
    let failed = record.status == Status::Failed;
    let model = markup(&record.input.to_string_lossy());
    let _ = write!(out, "<figure class=\"card{}\">", if failed { " failed" } else { "" });
    match &record.output {
        Some(output) => {
            let _ = write!(
                out,
                "<div class=\"thumb\"><img src=\"{}\" alt=\"thumbnail of {model}\" loading=\"lazy\"></div>",
                markup(&image_url(folder, output))
            );
        }
        None => out.push_str("<div class=\"thumb none\">no thumbnail</div>"),
    }
    // The thumbnail's path in the folder: its name mirrors the model's place in the tree.
    let name = record.output.as_deref().map(|o| markup(&relative(folder, o).to_string_lossy()));
    let _ = write!(
        out,
        "<figcaption><b class=\"name\">{}</b><code class=\"model\">{model}</code>",
        name.as_deref().unwrap_or("not written")
    );
    let mut facts = Vec::new();
    if let Some(n) = record.triangles {
        facts.push(count(n, "triangle"));
    }
    facts.push(format!("{:.2} s", record.seconds));
    let _ = write!(out, "<span class=\"facts\">{}</span>", facts.join(" &middot; "));
    if failed {
        let _ = write!(out, "<p class=\"reason\">{}</p>", markup(record.reason.as_deref().unwrap_or("failed")));
    }
    if !record.warnings.is_empty() {
        let _ = write!(out, "<details><summary>{}</summary><ul>", count(record.warnings.len() as u64, "warning"));
        for warning in &record.warnings {
            let _ = write!(out, "<li>{}</li>", markup(warning));
        }
        out.push_str("</ul></details>");
    }
    out.push_str("</figcaption></figure>\n");
}

/// `n` and the noun, plural unless `n` is 1.
fn count(n: u64, noun: &str) -> String {
    if n == 1 { format!("1 {noun}") } else { format!("{n} {noun}s") }
}

/// `output` relative to `folder` when it is inside it, else as given.
fn relative(folder: &Path, output: &Path) -> PathBuf {
    // `./thumbs` and `thumbs/a.png` name the same folder: `.` segments say nothing.
    let plain = |p: &Path| -> PathBuf { p.components().filter(|c| *c != Component::CurDir).collect() };
    let output = plain(output);
    output.strip_prefix(plain(folder)).map(Path::to_path_buf).unwrap_or(output)
}

/// The `src` of `output` on a page in `folder`: relative when `output` is inside it, else the
/// path as given; each segment percent-encoded (all but unreserved ASCII) and joined with `/`.
fn image_url(folder: &Path, output: &Path) -> String {
    let segments: Vec<String> = relative(folder, output)
        .components()
        .map(|c| match c {
            Component::RootDir => String::new(), // joined, a leading `/`
            c => percent_encode(c.as_os_str().as_encoded_bytes()),
        })
        .collect();
    segments.join("/")
}

fn percent_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for &b in bytes {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(char::from(b));
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// The page's only style. Thumbnails sit on a checkerboard, so a transparent background shows
/// as transparent and a thumbnail that came out empty is plainly empty.
const PAGE_CSS: &str = r#"
:root { font-family: system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif; color: #1d2330; }
body { margin: 0; background: #eef0f3; font-size: 14px; line-height: 1.4; }
header { background: #1d2330; color: #fff; padding: 10px 20px; }
h1 { font-size: 18px; margin: 0; }
header p { margin: 2px 0 0; }
.folder { color: #aab3c2; font-size: 12px; overflow-wrap: anywhere; }
main { padding: 16px; }
.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(200px, 1fr)); gap: 12px; }
.card {
  margin: 0; background: #fff; border: 1px solid #d5d9e0; border-radius: 6px; overflow: hidden;
  display: flex; flex-direction: column;
}
.card.failed { border: 2px solid #c62828; background: #fdf0f0; }
.thumb {
  aspect-ratio: 1; display: flex; align-items: center; justify-content: center;
  background: repeating-conic-gradient(#d0d4da 0 25%, #fff 0 50%) 0 0 / 16px 16px;
}
.thumb img { max-width: 100%; max-height: 100%; object-fit: contain; }
.thumb.none { background: #f3d6d6; color: #8e1b1b; font-weight: 600; }
figcaption { padding: 8px 10px; display: flex; flex-direction: column; gap: 2px; min-width: 0; }
.name, code { overflow-wrap: anywhere; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12px; color: #5d6675; }
.facts { color: #5d6675; font-size: 12px; }
.reason { margin: 4px 0 0; color: #8e1b1b; white-space: pre-wrap; overflow-wrap: anywhere; }
details { font-size: 12px; }
details ul { margin: 4px 0; padding-left: 18px; }
.skipped { margin-top: 20px; font-size: 14px; }
"#;

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(input: &str, output: &str) -> Record {
        Record {
            input: input.into(),
            output: Some(output.into()),
            status: Status::Ok,
            reason: None,
            warnings: Vec::new(),
            triangles: Some(1234),
            seconds: 0.25,
        }
    }

    fn failed(input: &str, reason: &str) -> Record {
        Record {
            input: input.into(),
            output: None,
            status: Status::Failed,
            reason: Some(reason.into()),
            warnings: Vec::new(),
            triangles: None,
            seconds: 0.5,
        }
    }

    #[test]
    fn hostile_names_are_text_not_markup() {
        let mut bad = failed("models/<script>alert(1)</script>.md2", "line 2: \"<b>bad</b>\" & worse");
        bad.warnings = vec!["texture '<img src=x onerror=alert(1)>' not found".into()];
        let good = ok("models/a\"b'c&d.obj", "thumbs/a\"b'c&d.png");
        let skipped = [(PathBuf::from("models/<i>seq</i>.smd"), "sequence-only SMD (no triangles) <u>".to_string())];
        let html = index_html(Path::new("thumbs"), &[bad, good], &skipped);
        for markup in ["<script", "<b>bad", "<img src=x", "<i>seq", "<u>"] {
            assert!(!html.contains(markup), "{markup} left unescaped in\n{html}");
        }
        assert!(html.contains("models/&lt;script&gt;alert(1)&lt;/script&gt;.md2"), "{html}");
        assert!(html.contains("line 2: &quot;&lt;b&gt;bad&lt;/b&gt;&quot; &amp; worse"), "{html}");
        assert!(html.contains("texture &#39;&lt;img src=x onerror=alert(1)&gt;&#39; not found"), "{html}");
        // In an attribute, a quote would end the value: alt and src stay one attribute each.
        assert!(html.contains("alt=\"thumbnail of models/a&quot;b&#39;c&amp;d.obj\""), "{html}");
        assert!(html.contains("src=\"a%22b%27c%26d.png\""), "{html}");
        assert!(
            html.contains("<code>models/&lt;i&gt;seq&lt;/i&gt;.smd</code>: sequence-only SMD (no triangles) &lt;u&gt;")
        );
    }

    #[test]
    fn image_links_are_relative_and_percent_encoded() {
        let folder = Path::new("out");
        assert_eq!(image_url(folder, Path::new("out/sub dir/a #1?%é.png")), "sub%20dir/a%20%231%3F%25%C3%A9.png");
        assert_eq!(image_url(Path::new("./out"), Path::new("out/x.png")), "x.png");
        assert_eq!(image_url(folder, Path::new("./out/x.png")), "x.png");
        // Not under the folder (should not happen): the path as given, still a valid URL.
        assert_eq!(image_url(folder, Path::new("/elsewhere/x y.png")), "/elsewhere/x%20y.png");
        assert_eq!(image_url(folder, Path::new("other/x.png")), "other/x.png");
        let html = index_html(folder, &[ok("m/tower model.obj", "out/tower model #2.png")], &[]);
        assert!(
            html.contains(
                "<img src=\"tower%20model%20%232.png\" alt=\"thumbnail of m/tower model.obj\" loading=\"lazy\">"
            ),
            "{html}"
        );
    }

    #[test]
    fn failed_models_come_first_in_batch_order() {
        let records =
            [ok("a.obj", "t/a.png"), failed("b.obj", "no faces"), ok("c.obj", "t/c.png"), failed("d.obj", "bad UV")];
        let html = index_html(Path::new("t"), &records, &[]);
        let at = |name: &str| html.find(&format!("<code class=\"model\">{name}</code>")).unwrap();
        assert!(at("b.obj") < at("d.obj") && at("d.obj") < at("a.obj") && at("a.obj") < at("c.obj"), "{html}");
        assert_eq!(html.matches("<figure class=\"card failed\">").count(), 2);
        assert!(html.contains("<p class=\"reason\">bad UV</p>"));
    }

    #[test]
    fn the_header_counts_thumbnails_failures_and_skipped_files() {
        let records = [ok("a.obj", "t/a.png"), ok("b.obj", "t/b.png"), failed("c.obj", "no faces")];
        let skipped = [(PathBuf::from("walk.smd"), "sequence-only SMD (no triangles)".to_string())];
        let html = index_html(Path::new("t"), &records, &skipped);
        assert!(html.contains("<p class=\"counts\">2 thumbnails, 1 failed, 1 skipped</p>"), "{html}");
        assert!(html.contains("<details class=\"skipped\"><summary>1 skipped</summary>"), "{html}");
        let html = index_html(Path::new("t"), &records[..1], &[]);
        assert!(html.contains("1 thumbnail, 0 failed, 0 skipped") && !html.contains("class=\"skipped\""));
    }

    #[test]
    fn cards_show_triangles_and_collapse_warnings() {
        let mut record = ok("a.obj", "t/a.png");
        record.warnings = vec!["texture skin.png not found".into(), "material 'x' unknown".into()];
        let html = index_html(Path::new("t"), &[record], &[]);
        assert!(html.contains("1234 triangles &middot; 0.25 s"), "{html}");
        assert!(
            html.contains("<details><summary>2 warnings</summary><ul><li>texture skin.png not found</li>"),
            "{html}"
        );
        assert!(!html.contains("<details open"));
    }

    #[test]
    fn the_page_needs_nothing_but_its_thumbnails() {
        let html = index_html(Path::new("t"), &[ok("a.obj", "t/a.png"), failed("b.obj", "x")], &[]);
        for external in ["<script", "<link", "@import", "url(", "http:", "https:", "//"] {
            assert!(!html.contains(external), "{external} in\n{html}");
        }
        assert_eq!(html.matches(" src=").count(), 1);
        assert!(html.contains("repeating-conic-gradient"), "transparent thumbnails need the checkerboard");
    }

    #[test]
    fn json_records_round_trip_every_field() {
        let mut warned = ok("models/a b.obj", "t/a b.png");
        warned.warnings = vec!["texture \"skin\" not found".into()];
        let records = [warned, failed("models/b.md2", "line 3: bad frame")];
        let value: serde_json::Value = serde_json::from_str(&json_records(&records)).unwrap();
        let expected = serde_json::json!([
            {
                "input": "models/a b.obj", "output": "t/a b.png", "status": "ok", "reason": null,
                "warnings": ["texture \"skin\" not found"], "triangles": 1234, "seconds": 0.25
            },
            {
                "input": "models/b.md2", "output": null, "status": "failed", "reason": "line 3: bad frame",
                "warnings": [], "triangles": null, "seconds": 0.5
            }
        ]);
        assert_eq!(value, expected);
        assert_eq!(json_records(&[]).trim(), "[]");
    }

    #[cfg(unix)]
    #[test]
    fn json_paths_that_are_not_utf8_are_written_lossily() {
        use std::os::unix::ffi::OsStrExt;
        let name = std::ffi::OsStr::from_bytes(b"bad\xff.md2");
        let record = Record { input: PathBuf::from(name), ..failed("", "unreadable") };
        let value: serde_json::Value = serde_json::from_str(&json_records(&[record])).unwrap();
        assert_eq!(value[0]["input"], "bad\u{FFFD}.md2");
        // In the page, the link keeps the real bytes so the browser finds the file.
        let output = Path::new("t").join(name).with_extension("png");
        assert_eq!(image_url(Path::new("t"), &output), "bad%FF.png");
    }
}
