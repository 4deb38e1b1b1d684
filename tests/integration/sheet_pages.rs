//! Sheet layout: pages within `--max-size` (TexturePacker multipack, as PixiJS and Phaser load
//! it), `--pot`, `--pack rows|tight`, `--dedupe`, and the refusals, all through the command.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;
use spritebake::Image;
use spritebake::golden::Tolerance;
use spritebake::internal::bake::post;
use spritebake::output::read_png;

use crate::common::cli::{assert_refused, names_in, printed, scratch_in};
use crate::common::engines;
use crate::common::golden::Goldens;
use crate::common::robot;

/// `spritebake sheet` of the robot's walk (`anim`: an animation file), 24-pixel cells, in `dir`
/// as `s.png`, with `args`.
fn sheet_of(dir: &Path, anim: &str, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_spritebake"))
        .args(["sheet", &robot("robot.md5mesh"), "--anim", anim, "--size", "24", "--ssaa", "1", "-o", "s.png"])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

fn sheet(dir: &Path, args: &[&str]) -> Output {
    let o = sheet_of(dir, &robot("walk.md5anim"), args);
    assert!(o.status.success(), "{}", printed(&o));
    o
}

/// One page as written: its JSON file and contents, and its image.
struct Page {
    json_path: PathBuf,
    json: Value,
    image: Image,
}

/// The pages of the sheet `s` in `dir` as an engine finds them: `s.json`, else `s-0.json` and
/// the files its `meta.related_multi_packs` names.
fn pages(dir: &Path) -> Vec<Page> {
    let read = |name: &str| {
        let json_path = dir.join(name);
        let json: Value = serde_json::from_slice(&std::fs::read(&json_path).unwrap()).unwrap();
        let image = read_png(&dir.join(json["meta"]["image"].as_str().unwrap())).unwrap();
        assert_eq!(
            (json["meta"]["size"]["w"].as_u64(), json["meta"]["size"]["h"].as_u64()),
            (Some(image.width as u64), Some(image.height as u64)),
            "{name}: meta.size is not the image's"
        );
        Page { json_path, json, image }
    };
    if dir.join("s.json").is_file() {
        let single = read("s.json");
        assert!(single.json["meta"].get("related_multi_packs").is_none(), "a single page names other pages");
        return vec![single];
    }
    let first = read("s-0.json");
    let related: Vec<String> = first.json["meta"]["related_multi_packs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().into())
        .collect();
    let mut all = vec![first];
    all.extend(related.iter().map(|name| read(name)));
    // Every page names exactly the others.
    let names: Vec<String> = (0..all.len()).map(|i| format!("s-{i}.json")).collect();
    for (i, page) in all.iter().enumerate() {
        let listed: Vec<&str> =
            page.json["meta"]["related_multi_packs"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
        let others: Vec<&str> = names.iter().enumerate().filter(|&(j, _)| j != i).map(|(_, n)| n.as_str()).collect();
        assert_eq!(listed, others, "page {i}");
        assert_eq!(page.json["meta"]["image"], format!("s-{i}.png"));
    }
    all
}

/// A frame's rectangle on its page: x, y, w, h.
fn rect(frame: &Value) -> [u32; 4] {
    ["x", "y", "w", "h"].map(|k| frame["frame"][k].as_u64().unwrap() as u32)
}

/// Every frame name of every page.
fn names(pages: &[Page]) -> Vec<String> {
    pages.iter().flat_map(|p| p.json["frames"].as_object().unwrap().keys().cloned()).collect()
}

/// The distinct rectangles of each page (shared ones once).
fn rects(page: &Page) -> BTreeSet<[u32; 4]> {
    page.json["frames"].as_object().unwrap().values().map(rect).collect()
}

/// Frames' pixels over the pages' pixels.
fn fill(pages: &[Page]) -> f64 {
    let frames: u64 = pages.iter().flat_map(rects).map(|[_, _, w, h]| u64::from(w) * u64::from(h)).sum();
    let sheet: u64 = pages.iter().map(|p| u64::from(p.image.width) * u64::from(p.image.height)).sum();
    frames as f64 / sheet as f64
}

/// Every rectangle inside its page and apart from the others by at least the padding.
fn assert_apart(pages: &[Page], padding: u32) {
    for (i, page) in pages.iter().enumerate() {
        let all: Vec<[u32; 4]> = rects(page).into_iter().collect();
        for (a, &[x, y, w, h]) in all.iter().enumerate() {
            assert!(x >= padding && y >= padding, "page {i}: {:?} in the border", all[a]);
            assert!(
                x + w + padding <= page.image.width && y + h + padding <= page.image.height,
                "page {i}: {:?} outside",
                all[a]
            );
            for &[x2, y2, w2, h2] in &all[a + 1..] {
                let apart =
                    x + w + padding <= x2 || x2 + w2 + padding <= x || y + h + padding <= y2 || y2 + h2 + padding <= y;
                assert!(apart, "page {i}: {:?} and {:?} overlap", all[a], [x2, y2, w2, h2]);
            }
        }
    }
}

#[test]
fn a_sheet_over_the_page_size_is_split_into_pages_that_pixi_and_phaser_load_with_every_frame() {
    let dir = scratch_in("sheet-pages", "multipack");
    // 4 directions x 16 frames of 24x24 (26 with padding): 64 frames, 4 a line, a row of 16
    // is 4 lines (104 px), two rows to a page.
    sheet(&dir, &["--directions", "4", "--max-size", "120x240", "--quiet"]);
    let pages = pages(&dir);
    assert_eq!(pages.len(), 2);
    assert!(!dir.join("s.png").exists() && !dir.join("s.json").exists(), "{:?}", names_in(&dir));
    for page in &pages {
        assert!(page.image.width <= 120 && page.image.height <= 240, "{}x{}", page.image.width, page.image.height);
    }
    // Each frame once, over all pages; rows stay whole.
    let all = names(&pages);
    assert_eq!(all.len(), 64);
    assert_eq!(all.iter().collect::<BTreeSet<_>>().len(), 64);
    for page in &pages {
        for list in page.json["animations"].as_object().unwrap().values() {
            assert_eq!(list.as_array().unwrap().len(), 16, "a row was split over pages");
        }
    }
    assert_apart(&pages, 2);

    let Some(node) = engines::node() else { return };
    let (mut pixi_frames, mut phaser_frames) = (0, 0);
    for page in &pages {
        let frames = page.json["frames"].as_object().unwrap().len();
        let (ok, pixi) = node.check("pixi_check.mjs", &page.json_path);
        assert!(ok, "PixiJS on {}: {pixi}", page.json_path.display());
        assert_eq!(pixi["frames"], frames, "PixiJS: {pixi}");
        pixi_frames += pixi["frames"].as_u64().unwrap();
        let (ok, phaser) = node.check("phaser_check.cjs", &page.json_path);
        assert!(ok, "Phaser on {}: {phaser}", page.json_path.display());
        phaser_frames += phaser["frames"].as_u64().unwrap();
    }
    assert_eq!((pixi_frames, phaser_frames), (64, 64));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_sheet_that_fits_one_page_keeps_its_name_and_names_no_other_pages() {
    let dir = scratch_in("sheet-pages", "single");
    sheet(&dir, &["--directions", "2", "--quiet"]);
    assert_eq!(names_in(&dir), ["s.json", "s.png"]);
    let pages = pages(&dir);
    assert_eq!(names(&pages).len(), 32);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn pot_pages_are_powers_of_two_within_the_limit() {
    let dir = scratch_in("sheet-pages", "pot");
    // Pages stay within 128x128, the largest powers of two within 200x150.
    sheet(&dir, &["--directions", "4", "--trim", "--max-size", "200x150", "--pot", "--quiet"]);
    let pages = pages(&dir);
    assert!(pages.len() >= 2, "{} pages", pages.len());
    for page in &pages {
        let (w, h) = (page.image.width, page.image.height);
        assert!(w.is_power_of_two() && h.is_power_of_two() && w <= 128 && h <= 128, "{w}x{h}");
    }
    assert_eq!(names(&pages).len(), 64);
    assert_apart(&pages, 2);
    std::fs::remove_dir_all(dir).unwrap();
}

/// The robot's walk cut to its first `frames` frames, as `NAME.md5anim` in `dir`.
fn cut_walk(dir: &Path, name: &str, frames: usize) -> String {
    let text = std::fs::read_to_string(robot("walk.md5anim")).unwrap();
    let mut out = Vec::new();
    let (mut in_bounds, mut bound, mut skipping) = (false, 0, false);
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with("numFrames") {
            out.push(format!("numFrames {frames}"));
            continue;
        }
        if t.starts_with("bounds") {
            in_bounds = true;
        } else if in_bounds && t == "}" {
            in_bounds = false;
        } else if in_bounds {
            bound += 1;
            if bound > frames {
                continue;
            }
        }
        if let Some(n) = t.strip_prefix("frame ").and_then(|r| r.trim_end_matches('{').trim().parse::<usize>().ok()) {
            skipping = n >= frames;
        }
        if !skipping {
            out.push(line.to_string());
        }
        if skipping && t == "}" {
            skipping = false;
        }
    }
    let path = dir.join(format!("{name}.md5anim"));
    std::fs::write(&path, out.join("\n")).unwrap();
    path.to_string_lossy().into_owned()
}

#[test]
fn tight_packing_has_no_overlaps_and_fills_a_trimmed_sheet_better_than_rows() {
    // Two clips of 16 and 3 frames: a short clip's rows end early.
    let dir = scratch_in("sheet-pages", "pack");
    let anims = format!("{},{}", robot("walk.md5anim"), cut_walk(&dir, "step", 3));
    let mut fills = Vec::new();
    for pack in ["rows", "tight"] {
        let sub = dir.join(pack);
        std::fs::create_dir_all(&sub).unwrap();
        let args = ["--directions", "8", "--trim", "--pack", pack, "--quiet"];
        let o = sheet_of(&sub, &anims, &args);
        assert!(o.status.success(), "{}", printed(&o));
        let pages = pages(&sub);
        assert_eq!(names(&pages).len(), 8 * (16 + 3), "{pack}");
        assert_apart(&pages, 2);
        // The rectangles show the frames: trimmed frames have opaque pixels on every edge.
        for page in &pages {
            for [x, y, w, h] in rects(page) {
                let crop = post::crop(&page.image, x, y, w, h);
                assert!(crop.opaque_bounds() == Some((0, 0, w, h)), "{pack}: {x},{y} {w}x{h} is not a trimmed frame");
            }
        }
        fills.push((pages.len(), fill(&pages)));
    }
    let [(rows_pages, rows), (tight_pages, tight)] = [fills[0], fills[1]];
    let shown = format!("fill: rows {rows:.3} ({rows_pages} pages), tight {tight:.3} ({tight_pages})");
    assert!(tight > rows * 1.3 && tight_pages <= rows_pages, "{shown}");
    eprintln!("{shown}");
    std::fs::remove_dir_all(dir).unwrap();
}

/// The robot's walk with every odd frame a copy of the frame before it (a held pose).
fn held_walk(dir: &Path) -> String {
    let text = std::fs::read_to_string(robot("walk.md5anim")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let mut frames: Vec<Vec<&str>> = Vec::new();
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].starts_with("frame ") {
            let end = i + lines[i..].iter().position(|l| l.trim() == "}").unwrap();
            frames.push(lines[i + 1..end].to_vec());
            let n = frames.len() - 1;
            out.push(lines[i].to_string());
            out.extend(frames[n - n % 2].iter().map(|l| l.to_string()));
            out.push("}".into());
            i = end + 1;
        } else {
            out.push(lines[i].to_string());
            i += 1;
        }
    }
    let path = dir.join("held.md5anim");
    std::fs::write(&path, out.join("\n")).unwrap();
    path.to_string_lossy().into_owned()
}

#[test]
fn dedupe_stores_repeated_frames_once_and_keeps_every_name() {
    let dir = scratch_in("sheet-pages", "dedupe");
    let held = held_walk(&dir);
    let run = |name: &str, args: &[&str]| {
        let sub = dir.join(name);
        std::fs::create_dir_all(&sub).unwrap();
        let o = sheet_of(&sub, &held, &[&["--directions", "2", "--trim"], args].concat());
        assert!(o.status.success(), "{}", printed(&o));
        (pages(&sub), String::from_utf8_lossy(&o.stderr).into_owned())
    };
    let (plain, _) = run("plain", &[]);
    let (deduped, summary) = run("deduped", &["--dedupe"]);
    // 2 directions x 16 frames, every second one a repeat.
    assert!(summary.contains("32 frames (16 duplicates stored once)"), "{summary}");
    assert_eq!(names(&deduped), names(&plain));
    assert_eq!(rects(&plain[0]).len(), 32);
    assert_eq!(rects(&deduped[0]).len(), 16);
    // Every name shows the same pixels as without --dedupe, at the same offset in the frame.
    let page = (&plain[0], &deduped[0]);
    for (name, frame) in page.0.json["frames"].as_object().unwrap() {
        let shared = &page.1.json["frames"][name];
        assert_eq!(frame["spriteSourceSize"], shared["spriteSourceSize"], "{name}");
        let [x, y, w, h] = rect(frame);
        let [x2, y2, ..] = rect(shared);
        assert_eq!(post::crop(&page.0.image, x, y, w, h), post::crop(&page.1.image, x2, y2, w, h), "{name}");
    }
    // Frame 1 shares frame 0's rectangle; frame 2 (a new pose) does not.
    let at = |n: &str| rect(&page.1.json["frames"][n]);
    assert_eq!(at("held_S_001"), at("held_S_000"));
    assert_ne!(at("held_S_002"), at("held_S_000"));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_frame_larger_than_a_page_and_bad_layout_values_are_refused_before_anything_is_written() {
    let cases: &[(&[&str], &[&str])] = &[
        (&["--max-size", "20"], &["--max-size 20x20", "24x24", "28x28"]),
        (&["--max-size", "100x20"], &["--max-size 100x20", "28x28"]),
        (&["--max-size", "31", "--pot"], &["--max-size 31x31", "at most 16x16"]),
        (&["--max-size", "0"], &["--max-size", "1 to 16384"]),
        (&["--max-size", "20000"], &["--max-size", "1 to 16384"]),
        (&["--max-size", "64x"], &["--max-size", "WxH"]),
    ];
    for (args, words) in cases {
        let dir = scratch_in("sheet-pages", "refused");
        let o = sheet_of(&dir, &robot("walk.md5anim"), args);
        assert_refused(&o, words);
        assert!(names_in(&dir).is_empty(), "{args:?} wrote {:?}", names_in(&dir));
        std::fs::remove_dir_all(dir).unwrap();
    }
    let dir = scratch_in("sheet-pages", "refused-pack");
    let o = sheet_of(&dir, &robot("walk.md5anim"), &["--pack", "grid"]);
    assert_eq!(o.status.code(), Some(2), "{}", printed(&o));
    assert!(printed(&o).contains("'grid' for '--pack") && printed(&o).contains("rows, tight"), "{}", printed(&o));
    assert!(names_in(&dir).is_empty());
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn every_page_the_sheet_may_write_is_planned_and_stale_pages_are_named_not_used() {
    let dir = scratch_in("sheet-pages", "planned");
    // A page name that is an input is refused before rendering, although the trimmed frames
    // would fit one page: whole frames take two.
    std::fs::copy(robot("robot.png"), dir.join("s-1.png")).unwrap();
    let args = ["--directions", "4", "--texture", "s-1.png", "--trim", "--max-size", "120x240"];
    let o = sheet_of(&dir, &robot("walk.md5anim"), &args);
    assert_eq!(o.status.code(), Some(2), "{}", printed(&o));
    assert!(printed(&o).contains("s-1.png"), "{}", printed(&o));
    assert_eq!(names_in(&dir), ["s-1.png"]);
    std::fs::rename(dir.join("s-1.png"), dir.join("skin.png")).unwrap();
    let o = sheet_of(
        &dir,
        &robot("walk.md5anim"),
        &["--directions", "4", "--texture", "skin.png", "--trim", "--max-size", "120x240", "--quiet"],
    );
    assert!(o.status.success(), "{}", printed(&o));
    assert_eq!(names_in(&dir), ["s.json", "s.png", "skin.png"]);
    std::fs::remove_dir_all(&dir).unwrap();
    std::fs::create_dir_all(&dir).unwrap();

    // Two pages, then one: the old pages stay, are named, and no JSON lists them.
    sheet(&dir, &["--directions", "4", "--max-size", "120x240", "--quiet"]);
    let before = names_in(&dir);
    assert_eq!(before, ["s-0.json", "s-0.png", "s-1.json", "s-1.png"]);
    let o = sheet(&dir, &["--directions", "4"]);
    let err = String::from_utf8_lossy(&o.stderr);
    let note = "note: not part of this sheet, left from an earlier run: s-0.json, s-0.png, s-1.json, s-1.png";
    assert!(err.contains(note), "{err}");
    assert_eq!(pages(&dir).len(), 1);
    let after = names_in(&dir);
    assert_eq!(after.len(), before.len() + 2, "{after:?}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn golden_multi_page_sheet() {
    let dir = scratch_in("sheet-pages", "golden");
    // 4 rows of 6 frames, wrapping at 4 a line: two rows to a page.
    sheet(&dir, &["--directions", "4", "--frames", "6", "--max-size", "110", "--quiet"]);
    let pages = pages(&dir);
    assert_eq!(pages.len(), 2);
    let mut goldens = Goldens::new();
    for (i, page) in pages.iter().enumerate() {
        goldens.check(&format!("page-{i}"), &page.image, Tolerance { channel: 1, max_pixels: 8 });
    }
    goldens.finish();
    std::fs::remove_dir_all(dir).unwrap();
}

/// `spritebake ARGS` in `dir`, reads allowed in the robot's folder.
fn run_in(dir: &Path, args: &[&str]) -> Output {
    let robot = robot("");
    Command::new(env!("CARGO_BIN_EXE_spritebake"))
        .args(args)
        .args(["--allow-dir", &robot])
        .current_dir(dir)
        .output()
        .unwrap()
}

#[test]
fn check_cases_and_project_entries_bake_compare_and_report_every_page() {
    let dir = scratch_in("sheet-pages", "check-bake");
    let keys = format!(
        "model = {:?}\nanim = [{:?}]\nsize = 24\nssaa = 1\ndirections = 4\nframes = 6\nmax_size = 110\n",
        robot("robot.md5mesh"),
        robot("walk.md5anim")
    );
    // A check case blesses and then passes on every page.
    std::fs::write(
        dir.join("cases.toml"),
        format!("[[case]]\nname = \"paged\"\nkind = \"sheet\"\ngolden = \"g/walk.png\"\n{keys}"),
    )
    .unwrap();
    let o = run_in(&dir, &["check", "cases.toml", "--bless"]);
    assert!(o.status.success() && printed(&o).contains("BLESS paged"), "{}", printed(&o));
    assert_eq!(names_in(&dir.join("g")), ["walk-0.json", "walk-0.png", "walk-1.json", "walk-1.png"]);
    let o = run_in(&dir, &["check", "cases.toml"]);
    assert!(o.status.success() && printed(&o).contains("PASS  paged"), "{}", printed(&o));
    // A changed second page fails the case, naming the page.
    let page = dir.join("g/walk-1.png");
    let mut image = read_png(&page).unwrap();
    image.rgba.chunks_exact_mut(4).for_each(|p| p.copy_from_slice(&[255, 0, 0, 255]));
    spritebake::output::write_png(&page, &image).unwrap();
    let o = run_in(&dir, &["check", "cases.toml"]);
    assert_eq!(o.status.code(), Some(1), "{}", printed(&o));
    assert!(printed(&o).contains("page 1"), "{}", printed(&o));

    // A project entry writes the pages and reports the files it wrote.
    std::fs::write(
        dir.join("spritebake.toml"),
        format!("[[sheet]]\nname = \"paged\"\noutput = \"out/walk.png\"\n{keys}"),
    )
    .unwrap();
    let o = run_in(&dir, &["bake", "spritebake.toml", "--json", "summary.json"]);
    assert!(o.status.success(), "{}", printed(&o));
    let summary: Value = serde_json::from_slice(&std::fs::read(dir.join("summary.json")).unwrap()).unwrap();
    let outputs: Vec<&str> =
        summary["entries"][0]["outputs"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    assert_eq!(outputs, ["out/walk-0.png", "out/walk-0.json", "out/walk-1.png", "out/walk-1.json"]);
    assert_eq!(names_in(&dir.join("out")), ["walk-0.json", "walk-0.png", "walk-1.json", "walk-1.png"]);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn pages_carry_their_engine_data_and_maps_and_tight_pages_keep_every_tag_whole() {
    let dir = scratch_in("sheet-pages", "page-data");
    // Tight packing over pages of 60x60 (four 24x24 frames with padding): the 64 frames of 4
    // directions scatter over many pages, largest first, not in clip order.
    let layout = ["--directions", "4", "--max-size", "60", "--pack", "tight", "--quiet"];
    let bake = |name: &str, format: &str, extra: &[&str]| {
        let sub = dir.join(name);
        std::fs::create_dir_all(&sub).unwrap();
        sheet(&sub, &[&layout[..], &["--json-format", format], extra].concat());
        sub
    };
    let tp = bake("tp", "texturepacker", &["--maps", "normal"]);
    let tp_pages = pages(&tp);
    assert!(tp_pages.len() >= 16, "{} pages", tp_pages.len());
    assert_eq!(names(&tp_pages).len(), 64);
    // Every page has its normal map, with the page's alpha.
    for (i, page) in tp_pages.iter().enumerate() {
        let normal = read_png(&tp.join(format!("s-{i}_n.png"))).unwrap();
        let alpha = |image: &Image| image.rgba.chunks_exact(4).map(|p| p[3]).collect::<Vec<_>>();
        assert_eq!(alpha(&normal), alpha(&page.image), "page {i}");
    }

    // Phaser: one animation file; each frame under the key of the page it is on.
    let phaser = bake("phaser", "phaser", &[]);
    let anims: Value = serde_json::from_slice(&std::fs::read(phaser.join("s.anims.json")).unwrap()).unwrap();
    let page_of: std::collections::BTreeMap<String, String> = pages(&phaser)
        .iter()
        .flat_map(|p| {
            let key = p.json["meta"]["image"].as_str().unwrap().trim_end_matches(".png").to_string();
            p.json["frames"].as_object().unwrap().keys().map(move |n| (n.clone(), key.clone())).collect::<Vec<_>>()
        })
        .collect();
    let anims = anims["anims"].as_array().unwrap();
    assert_eq!(anims.len(), 4);
    for anim in anims {
        let frames = anim["frames"].as_array().unwrap();
        assert_eq!(frames.len(), 16, "{}: a tag split by tight packing", anim["key"]);
        for f in frames {
            assert_eq!(f["key"].as_str(), page_of.get(f["frame"].as_str().unwrap()).map(String::as_str), "{f}");
        }
    }

    // Godot: one resource naming every page; Godot 3 itself loads it with every frame.
    let godot = bake("godot", "godot3", &[]);
    let tres = godot.join("s.tres");
    let text = std::fs::read_to_string(&tres).unwrap();
    let page_files: Vec<PathBuf> = (0..tp_pages.len()).map(|i| godot.join(format!("s-{i}.png"))).collect();
    for png in &page_files {
        let name = png.file_name().unwrap().to_str().unwrap();
        assert!(text.contains(&format!("path=\"{name}\"")), "{name} is not in the resource");
    }
    if let Some(godot3) = engines::godot3() {
        let seen = engines::godot3_load(&godot3, &godot, &tres, &page_files).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((seen.animations, seen.frames), (4, 64));
    }

    // Aseprite's layout is one image: refused over pages, with nothing written.
    let sub = dir.join("aseprite");
    std::fs::create_dir_all(&sub).unwrap();
    let o = sheet_of(&sub, &robot("walk.md5anim"), &[&layout[..], &["--json-format", "aseprite"]].concat());
    assert_refused(&o, &["--json-format aseprite", "describes one image", "pages"]);
    assert!(names_in(&sub).is_empty(), "{:?}", names_in(&sub));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_phaser_multiatlas_over_pages_is_one_json_naming_every_page_in_sheets_checks_and_projects() {
    let dir = scratch_in("sheet-pages", "multiatlas");
    let layout = ["--directions", "4", "--max-size", "120x240", "--json-format", "phaser-multiatlas", "--quiet"];
    sheet(&dir, &layout);
    assert_eq!(names_in(&dir), ["s-0.png", "s-1.png", "s.anims.json", "s.json"]);
    let json: Value = serde_json::from_slice(&std::fs::read(dir.join("s.json")).unwrap()).unwrap();
    let textures = json["textures"].as_array().unwrap();
    let mut all = BTreeSet::new();
    for (i, texture) in textures.iter().enumerate() {
        assert_eq!(texture["image"], format!("s-{i}.png"));
        let image = read_png(&dir.join(format!("s-{i}.png"))).unwrap();
        assert_eq!(texture["size"], serde_json::json!({"w": image.width, "h": image.height}), "page {i}");
        for frame in texture["frames"].as_array().unwrap() {
            assert!(all.insert(frame["filename"].as_str().unwrap().to_string()), "{frame}");
        }
    }
    assert_eq!((textures.len(), all.len()), (2, 64));
    // Every animation frame is under the sheet's one key.
    let anims: Value = serde_json::from_slice(&std::fs::read(dir.join("s.anims.json")).unwrap()).unwrap();
    for anim in anims["anims"].as_array().unwrap() {
        assert!(anim["frames"].as_array().unwrap().iter().all(|f| f["key"] == "s"), "{anim}");
    }

    // A check case and a project entry plan, write, compare and record the same files.
    let keys = format!(
        "model = {:?}\nanim = [{:?}]\nsize = 24\nssaa = 1\ndirections = 4\nframes = 6\nmax_size = 110\n\
         json_format = \"phaser-multiatlas\"\n",
        robot("robot.md5mesh"),
        robot("walk.md5anim")
    );
    let case = format!("[[case]]\nname = \"atlas\"\nkind = \"sheet\"\ngolden = \"g/walk.png\"\n{keys}");
    std::fs::write(dir.join("cases.toml"), case).unwrap();
    let o = run_in(&dir, &["check", "cases.toml", "--bless"]);
    assert!(o.status.success(), "{}", printed(&o));
    assert_eq!(names_in(&dir.join("g")), ["walk-0.png", "walk-1.png", "walk.anims.json", "walk.json"]);
    let o = run_in(&dir, &["check", "cases.toml"]);
    assert!(o.status.success() && printed(&o).contains("PASS  atlas"), "{}", printed(&o));
    std::fs::write(
        dir.join("spritebake.toml"),
        format!("[[sheet]]\nname = \"atlas\"\noutput = \"out/walk.png\"\n{keys}"),
    )
    .unwrap();
    for _ in 0..2 {
        let o = run_in(&dir, &["bake", "spritebake.toml", "--json", "summary.json"]);
        assert!(o.status.success(), "{}", printed(&o));
        assert_eq!(names_in(&dir.join("out")), ["walk-0.png", "walk-1.png", "walk.anims.json", "walk.json"]);
    }
    let summary: Value = serde_json::from_slice(&std::fs::read(dir.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["entries"][0]["status"], "up-to-date", "{summary}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn rows_packing_fills_pages_with_whole_animations_of_a_many_clip_character() {
    let Some(fox) = crate::common::corpus("gltf/fox") else { return };
    let dir = scratch_in("sheet-pages", "fox-rows");
    let o = Command::new(env!("CARGO_BIN_EXE_spritebake"))
        .arg("sheet")
        .arg(fox.join("Fox.glb"))
        .args(["--anim", "Survey,Walk,Run", "--directions", "16", "--size", "192", "--max-size", "2048"])
        .args(["--ssaa", "1", "--quiet", "-o", "s.png"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", printed(&o));
    let pages = pages(&dir);
    // 2,544 frames of 194 px, 100 a page: rows of 103, 22 and 35 frames leave a part-line
    // each; strictly in job order they took 31 pages.
    assert_eq!(names(&pages).len(), 2544);
    assert!(pages.len() <= 30, "{} pages", pages.len());
    // Every animation that fits a page (Walk's and Run's) is on one page; Survey's, of 11
    // lines, continue page after page.
    let mut on_pages: std::collections::BTreeMap<String, usize> = Default::default();
    for page in &pages {
        for name in page.json["animations"].as_object().unwrap().keys() {
            *on_pages.entry(name.clone()).or_default() += 1;
        }
    }
    assert_eq!(on_pages.len(), 48);
    for (name, count) in &on_pages {
        assert!(name.starts_with("Survey_") || *count == 1, "{name} is split over {count} pages");
    }
    std::fs::remove_dir_all(dir).unwrap();
}
