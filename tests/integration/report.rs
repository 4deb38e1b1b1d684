//! `check --html DIR` and `--json FILE`: the review report as a reviewer and a machine see it.
//!
//! One manifest holds a passing case, a failing single frame, a failing animation of eight
//! frames (one changed), a sheet with one changed cell, a GIF whose delays changed, a case
//! without a golden and a broken model. The report is made without `--out`, so everything it
//! shows must have been written into its own folder.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;
use spritebake::output::{read_png, write_png};

use crate::common::browser;
use crate::common::cli::{printed, scratch_in};
use crate::common::html::{attributes, percent_decode, unescape};

fn assets() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/assets")
}

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// `spritebake check MANIFEST ARGS --allow-dir examples/assets`.
fn check(manifest: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_spritebake"))
        .arg("check")
        .arg(manifest)
        .args(args)
        .args(["--allow-dir", p(&assets())])
        .output()
        .unwrap()
}

/// The animation's name needs quoting in a shell (a space and a quote) and percent-encoding
/// in a URL.
const WALK: &str = "walk cycle's frames";
/// The frame of the animation whose golden is changed.
const CHANGED: usize = 3;

/// Cases, their statuses once the goldens are altered, in manifest order.
const CASES: [(&str, &str); 7] = [
    ("pass", "passed"),
    ("single", "failed"),
    (WALK, "failed"),
    ("sheet", "failed"),
    ("gif", "failed"),
    ("new", "new"),
    ("broken", "errored"),
];

fn manifest_text(gif_fps: u32) -> String {
    let a = assets();
    format!(
        r#"[defaults]
size = "24x24"
model = "{tower}"

[[case]]
name = "pass"
golden = "g/pass.png"

[[case]]
name = "single"
yaw = 40
golden = "g/single.png"

[[case]]
name = "{WALK}"
model = "{robot}"
anim = ["{walk}"]
frame = [0, 1, 2, 3, 4, 5, 6, 7]
golden = "g/walk/"

[[case]]
name = "sheet"
kind = "sheet"
model = "{robot}"
anim = ["{walk}"]
frames = 4
golden = "g/sheet.png"

[[case]]
name = "gif"
kind = "gif"
model = "{md2}"
anim = ["walk"]
fps = {gif_fps}
golden = "g/walk.gif"

[[case]]
name = "new"
yaw = 90
golden = "g/new.png"

[[case]]
name = "broken"
model = "missing.obj"
golden = "g/broken.png"
"#,
        tower = a.join("tower.obj").display(),
        robot = a.join("robot/robot.md5mesh").display(),
        walk = a.join("robot/walk.md5anim").display(),
        md2 = a.join("robot/robot.md2").display(),
    )
}

/// Paints a `size`² red square at (x, y) of a golden PNG.
fn paint(path: &Path, x: u32, y: u32, size: u32) {
    let mut image = read_png(path).unwrap();
    for dy in 0..size {
        for dx in 0..size {
            image.pixel_mut(x + dx, y + dy).unwrap().copy_from_slice(&[255, 0, 0, 255]);
        }
    }
    write_png(path, &image).unwrap();
}

struct Fixture {
    dir: PathBuf,
    manifest: PathBuf,
    /// The sheet cell whose golden was changed.
    cell: String,
}

/// Blesses every case but `new` and `broken`, then changes one pixel block in `single`, in
/// frame [`CHANGED`] of the animation and in one cell of the sheet, and the GIF's frame rate.
fn fixture(name: &str) -> Fixture {
    let dir = scratch_in("report", name);
    let manifest = dir.join("cases.toml");
    std::fs::write(&manifest, manifest_text(10)).unwrap();
    let mut bless = vec!["--bless"];
    for (case, _) in &CASES[..5] {
        bless.extend(["--case", case]);
    }
    let o = check(&manifest, &bless);
    assert_eq!(o.status.code(), Some(0), "{}", printed(&o));
    paint(&dir.join("g/single.png"), 8, 8, 5);
    paint(&dir.join(format!("g/walk/frame_{CHANGED:03}.png")), 10, 10, 4);
    // The sheet's second cell, from the sheet's own JSON.
    let json: Value = serde_json::from_slice(&std::fs::read(dir.join("g/sheet.json")).unwrap()).unwrap();
    let frames = json["frames"].as_object().unwrap();
    let (cell, rect) = frames.iter().nth(1).unwrap();
    let [x, y, w, h] = ["x", "y", "w", "h"].map(|k| rect["frame"][k].as_u64().unwrap() as u32);
    assert!(w >= 8 && h >= 8, "{cell}: {w}x{h}");
    paint(&dir.join("g/sheet.png"), x + w / 2 - 2, y + h / 2 - 2, 4);
    std::fs::write(&manifest, manifest_text(7)).unwrap();
    Fixture { dir, manifest, cell: cell.clone() }
}

/// The HTML of the case section named `name` (escaped as the page writes it).
fn section<'a>(page: &'a str, name: &str, status: &str) -> &'a str {
    let escaped = name.replace('&', "&amp;").replace('\'', "&#39;").replace('"', "&quot;");
    let open = format!("data-name=\"{escaped}\" data-status=\"{status}\"");
    let start = page.find(&open).unwrap_or_else(|| panic!("no case {name} with status {status}"));
    let end = page[start..].find("</section>").map_or(page.len(), |e| start + e);
    &page[start..end]
}

fn expected_bless(f: &Fixture, quoted_name: &str) -> String {
    format!("spritebake check {} --bless --case {quoted_name} --allow-dir {}", p(&f.manifest), p(&assets()))
}

#[test]
fn html_report_is_self_contained_and_names_every_case_frame_and_bless_command() {
    let f = fixture("html");
    let report = f.dir.join("report");
    let o = check(&f.manifest, &["--html", p(&report)]);
    assert_eq!(o.status.code(), Some(1), "{}", printed(&o));
    let page = std::fs::read_to_string(report.join("index.html")).unwrap();

    // Every image the page shows (or a script switches to) is in the folder, linked relatively.
    let mut linked = BTreeSet::new();
    for attr in ["src", "href", "data-expected", "data-actual", "data-diff"] {
        for value in attributes(&page, attr).into_iter().filter(|v| !v.is_empty()) {
            let path = percent_decode(&unescape(value));
            assert!(!path.contains(':') && !path.starts_with('/'), "{attr}=\"{value}\" is not relative");
            assert!(
                !Path::new(&path).components().any(|c| c.as_os_str() == ".."),
                "{attr}=\"{value}\" leaves the folder"
            );
            assert!(report.join(&path).is_file(), "{attr}=\"{value}\": {path} is missing from the report folder");
            linked.insert(path);
        }
    }
    // Nothing outside the folder: no network, no external script, style or font.
    for outside in ["http:", "https:", "file:", "<link", "@import", "url(", "<script src", "<iframe"] {
        assert!(!page.contains(outside), "the page refers to `{outside}`");
    }
    // The report folder holds exactly the page and the images it links.
    let mut written = BTreeSet::new();
    for entry in std::fs::read_dir(&report).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_dir() {
            for image in std::fs::read_dir(entry.path()).unwrap() {
                let name =
                    format!("{}/{}", entry.file_name().to_string_lossy(), image.unwrap().file_name().to_string_lossy());
                written.insert(name);
            }
        } else {
            assert_eq!(entry.file_name(), "index.html");
        }
    }
    assert_eq!(written, linked, "every written image is shown, every shown image written");

    // Every case is named with its status; failing cases come before passing ones.
    for (name, status) in CASES {
        section(&page, name, status);
    }
    let position = |name: &str| page.find(&format!("data-name=\"{name}\"")).unwrap();
    assert!(position("single") < position("pass") && position("broken") < position("pass"));
    // Summary counts at the top.
    for count in ["<b>1</b> passed", "<b>4</b> failed", "<b>1</b> new", "<b>1</b> errored"] {
        assert!(page.contains(count), "no `{count}`");
    }

    // The animation: eight frames in the strip, only the changed one marked failing, and its
    // images are the expected, actual and diff of that frame.
    let walk = section(&page, WALK, "failed");
    let frames: Vec<&str> = walk.split("<button type=\"button\" class=\"frame").skip(1).collect();
    assert_eq!(frames.len(), 8, "{walk}");
    let failing: Vec<usize> =
        frames.iter().enumerate().filter(|(_, b)| b.starts_with(" failing")).map(|(i, _)| i).collect();
    assert_eq!(failing, [CHANGED], "only the changed frame is marked failing");
    let changed = frames[CHANGED];
    for kind in ["expected", "actual", "diff"] {
        let file = attributes(changed, &format!("data-{kind}"))[0];
        assert!(file.ends_with(&format!("/{CHANGED}-{kind}.png")), "{kind}: {file}");
    }
    assert!(changed.contains("data-state=\"failing\""), "{changed}");
    // The viewer opens on the failing frame, with its numbers.
    assert!(walk.contains(&format!("data-selected=\"{CHANGED}\"")), "{walk}");
    assert!(walk.contains("differing pixels") && walk.contains("max channel delta") && walk.contains("anti-aliasing"));

    // The sheet: the changed cell is outlined as failing, no other.
    let sheet = section(&page, "sheet", "failed");
    let outlined: Vec<&str> = sheet.split("<span class=\"cell failing\"").skip(1).collect();
    assert!(!outlined.is_empty(), "{sheet}");
    assert!(outlined.iter().all(|c| c.contains(&format!("title=\"{}:", f.cell))), "{sheet}");
    // The GIF: delays compared, mismatches marked.
    let gif = section(&page, "gif", "failed");
    assert!(gif.contains("GIF delays") && gif.contains("class=\"mismatch\""), "{gif}");
    // The new case shows what it renders; the broken one its error.
    assert!(section(&page, "new", "new").contains("No golden yet"));
    assert!(section(&page, "broken", "errored").contains("missing.obj"));

    // Each failing case shows the command that blesses just it, quoted for a shell.
    let command = |html: &str| {
        let start = html.find("<code class=\"command\">").unwrap() + "<code class=\"command\">".len();
        unescape(&html[start..start + html[start..].find("</code>").unwrap()])
    };
    assert_eq!(command(section(&page, "single", "failed")), expected_bless(&f, "single"));
    assert_eq!(command(walk), expected_bless(&f, r"'walk cycle'\''s frames'"));
    assert_eq!(command(section(&page, "new", "new")), expected_bless(&f, "new"));

    // The command, run by a shell as copied, blesses only that case.
    let single_before = std::fs::read(f.dir.join("g/single.png")).unwrap();
    let bin = Path::new(env!("CARGO_BIN_EXE_spritebake")).parent().unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let o = Command::new("sh").arg("-c").arg(command(walk)).env("PATH", path).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", printed(&o));
    assert!(printed(&o).contains(&format!("BLESS {WALK}")), "{}", printed(&o));
    assert_eq!(std::fs::read(f.dir.join("g/single.png")).unwrap(), single_before, "another golden changed");
    let o = check(&f.manifest, &["--case", WALK]);
    assert_eq!(o.status.code(), Some(0), "{}", printed(&o));
    std::fs::remove_dir_all(&f.dir).unwrap();
}

#[test]
fn json_report_has_the_same_cases_frames_and_relative_paths() {
    let f = fixture("json");
    let report = f.dir.join("report");
    let json_path = f.dir.join("results.json");
    let o = check(&f.manifest, &["--html", p(&report), "--json", p(&json_path)]);
    assert_eq!(o.status.code(), Some(1), "{}", printed(&o));
    let json: Value = serde_json::from_slice(&std::fs::read(&json_path).unwrap()).unwrap();
    assert_eq!(json["report"], p(&report));
    assert_eq!(json["counts"], serde_json::json!({"passed": 1, "failed": 4, "new": 1, "errored": 1, "blessed": 0}));
    let cases = json["cases"].as_array().unwrap();
    let listed: Vec<(&str, &str)> =
        cases.iter().map(|c| (c["name"].as_str().unwrap(), c["status"].as_str().unwrap())).collect();
    assert_eq!(listed, CASES);
    let case = |name: &str| cases.iter().find(|c| c["name"] == name).unwrap();

    // Every image path is relative to the report folder and there.
    let mut images = 0;
    for c in cases {
        for frame in c["frames"].as_array().into_iter().flatten() {
            for kind in ["expected", "actual", "diff"] {
                if let Some(path) = frame["images"][kind].as_str() {
                    assert!(Path::new(path).is_relative() && !path.contains(".."), "{path}");
                    assert!(report.join(path).is_file(), "{path}");
                    images += 1;
                }
            }
        }
    }
    assert!(images > 0);

    // The animation: eight frames, only the changed one failing, with its numbers.
    let walk = case(WALK);
    let frames = walk["frames"].as_array().unwrap();
    assert_eq!(frames.len(), 8);
    let failing: Vec<bool> = frames.iter().map(|f| f["failing"].as_bool().unwrap()).collect();
    assert_eq!(failing, (0..8).map(|i| i == CHANGED).collect::<Vec<_>>());
    assert_eq!(walk["failing_frames"], serde_json::json!([CHANGED]));
    let numbers = &frames[CHANGED]["numbers"];
    assert!(numbers["differing_pixels"].as_u64().unwrap() > numbers["allowed_pixels"].as_u64().unwrap());
    assert_eq!(numbers["total_pixels"], 24 * 24);
    for frame in frames.iter().filter(|f| f["index"] != CHANGED) {
        assert_eq!(frame["numbers"]["identical"], true, "{frame}");
    }
    assert_eq!(walk["bless_command"], expected_bless(&f, r"'walk cycle'\''s frames'"));
    assert_eq!(walk["failures"][0]["what"], "frame 3");

    // The sheet, cell by cell: only the changed cell fails.
    let sheet = case("sheet");
    let failing_cells: Vec<&str> = sheet["cells"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["failing"] == true)
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(failing_cells, [f.cell.as_str()]);
    // The GIF: every delay differs (7 fps against 10).
    let delays = &case("gif")["delays_cs"];
    assert_eq!(delays["expected"].as_array().unwrap().len(), delays["actual"].as_array().unwrap().len());
    assert!(!delays["mismatched"].as_array().unwrap().is_empty(), "{delays}");
    // New: its frame as rendered, nothing compared. Errored: the message. Passed: no frames.
    let new = case("new");
    assert!(new["frames"][0]["numbers"].is_null() && new["frames"][0]["images"]["actual"].is_string());
    assert!(new["frames"][0]["images"]["expected"].is_null());
    assert!(case("broken")["error"].as_str().unwrap().contains("missing.obj"));
    assert!(case("pass")["frames"].is_null() && case("pass")["bless_command"].is_null());

    // Without --html the same results, with no image paths.
    let o = check(&f.manifest, &["--json", p(&json_path)]);
    assert_eq!(o.status.code(), Some(1), "{}", printed(&o));
    let json: Value = serde_json::from_slice(&std::fs::read(&json_path).unwrap()).unwrap();
    assert!(json["report"].is_null());
    let walk = json["cases"].as_array().unwrap().iter().find(|c| c["name"] == WALK).unwrap();
    assert_eq!(walk["failing_frames"], serde_json::json!([CHANGED]));
    assert!(walk["frames"][CHANGED]["images"]["actual"].is_null());
    std::fs::remove_dir_all(&f.dir).unwrap();
}

/// Distinct colours in a screenshot, and its pixels.
fn screenshot_pixels(path: &Path) -> (usize, Vec<u8>) {
    let image = read_png(path).unwrap();
    let colours: BTreeSet<&[u8]> = image.rgba.chunks_exact(4).collect();
    (colours.len(), image.rgba.clone())
}

#[test]
fn the_page_renders_in_a_headless_browser_and_the_fragment_picks_the_view() {
    let Some(chromium) = browser::chromium() else { return };
    let f = fixture("browser");
    let report = f.dir.join("report");
    let o = check(&f.manifest, &["--html", p(&report)]);
    assert_eq!(o.status.code(), Some(1), "{}", printed(&o));
    let page = std::fs::canonicalize(report.join("index.html")).unwrap();
    let mut shots = Vec::new();
    for view in ["side", "slider"] {
        let png = f.dir.join(format!("{view}.png"));
        browser::screenshot(&chromium, &format!("file://{}#view={view}", page.display()), &png);
        let (colours, pixels) = screenshot_pixels(&png);
        assert!(colours > 50, "{view}: the screenshot has {colours} colours: blank?");
        shots.push(pixels);
    }
    let differing = shots[0].chunks_exact(4).zip(shots[1].chunks_exact(4)).filter(|(a, b)| a != b).count();
    assert!(differing > 1000, "side-by-side and slider screenshots differ in only {differing} pixels");
    std::fs::remove_dir_all(&f.dir).unwrap();
}
