//! Fixed scale and cells sized to the job: `--pixels-per-unit` gives every model one scale and
//! its pivot one pixel in every cell, `--size auto` cuts cells to what the job covers, and
//! what cannot hold is refused.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::boxes::{Box3, write_boxes};
use crate::common::cli::{WrittenSheet, assert_refused, names_in, printed, scratch_in};
use crate::common::robot;

fn scratch(name: &str) -> PathBuf {
    scratch_in("scale", name)
}

fn spritebake(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_spritebake")).args(args).current_dir(dir).output().unwrap()
}

/// Bakes a sheet in `dir` and reads it back.
fn sheet(dir: &Path, args: &[&str]) -> WrittenSheet {
    let out = dir.join("sheet.png");
    let o = spritebake(dir, &[&["sheet"][..], args, &["-o", out.to_str().unwrap()]].concat());
    assert!(o.status.success(), "{args:?}: {}", printed(&o));
    WrittenSheet::read(&out)
}

/// What a test reads of one frame of a sheet.
struct Frame {
    /// Opaque bounds `(x, y, w, h)`.
    bounds: (u32, u32, u32, u32),
    /// The pivot in pixels, from the JSON's fractions.
    pivot: (f64, f64),
}

/// Every frame of a sheet, in name order.
fn frames(sheet: &WrittenSheet) -> Vec<Frame> {
    sheet
        .names()
        .iter()
        .map(|name| {
            let f = &sheet.json["frames"][name];
            let size = (f["sourceSize"]["w"].as_f64().unwrap(), f["sourceSize"]["h"].as_f64().unwrap());
            let pivot = (f["pivot"]["x"].as_f64().unwrap() * size.0, f["pivot"]["y"].as_f64().unwrap() * size.1);
            Frame { bounds: sheet.frame(name).opaque_bounds().unwrap_or_else(|| panic!("{name} is empty")), pivot }
        })
        .collect()
}

#[test]
fn models_at_one_scale_have_heights_in_the_ratio_of_their_units_and_one_pivot() {
    let dir = scratch("ratio");
    // A box 1 unit tall standing on its origin, and one 2.5 units tall around its origin (its
    // feet at -1.25): the pivot is the ground under the origin either way.
    let short = Box3 { min: [-0.3, 0.0, -0.3], max: [0.3, 1.0, 0.3], color: [0.8, 0.3, 0.2] };
    let tall = Box3 { min: [-0.3, -1.25, -0.3], max: [0.3, 1.25, 0.3], color: [0.2, 0.4, 0.8] };
    let mut heights = Vec::new();
    for (stem, model) in [("short", short), ("tall", tall)] {
        let obj = write_boxes(&dir, stem, &[model]);
        let flags = ["--ortho", "--pitch", "0", "--directions", "8", "--pixels-per-unit", "40", "--size", "auto"];
        let s = sheet(&dir, &[&[obj.to_str().unwrap()][..], &flags, &["--ssaa", "1"]].concat());
        let meta = &s.json["meta"];
        assert_eq!(meta["pixelsPerUnit"], 40.0);
        let pivot = (meta["pivot"]["x"].as_f64().unwrap(), meta["pivot"]["y"].as_f64().unwrap());
        assert_eq!((pivot.0.fract(), pivot.1.fract()), (0.0, 0.0), "{stem}: pivot {pivot:?} is not a whole pixel");
        let cells = frames(&s);
        assert_eq!(cells.len(), 8);
        for (name, Frame { bounds: (x, y, w, h), pivot: p }) in s.names().iter().zip(&cells) {
            // The same pivot in every frame, and it is where the model stands: the ground line
            // (below the lowest opaque row) and the middle of the box in every direction.
            assert!((p.0 - pivot.0).abs() < 1e-4 && (p.1 - pivot.1).abs() < 1e-4, "{stem} {name}: pivot {p:?}");
            assert_eq!(f64::from(y + h), pivot.1, "{stem} {name}: ground line");
            assert!((f64::from(*x) + f64::from(*w) / 2.0 - pivot.0).abs() <= 0.5, "{stem} {name}: centre column");
        }
        heights.push(cells.iter().map(|c| c.bounds.3).max().unwrap());
    }
    // 40 and 100 pixels: the ratio of 1 to 2.5 units, to one pixel.
    assert!(heights[0].abs_diff(40) <= 1 && heights[1].abs_diff(100) <= 1, "heights {heights:?}");
    assert!((f64::from(heights[1]) - 2.5 * f64::from(heights[0])).abs() <= 1.0, "heights {heights:?}");
    std::fs::remove_dir_all(dir).unwrap();
}

/// How many pixels the union of every frame's opaque bounds leaves empty across and down.
fn empty_border(sheet: &WrittenSheet) -> (u32, u32, (u32, u32)) {
    let cells = frames(sheet);
    let (x0, y0) = (cells.iter().map(|c| c.bounds.0).min().unwrap(), cells.iter().map(|c| c.bounds.1).min().unwrap());
    let x1 = cells.iter().map(|c| c.bounds.0 + c.bounds.2).max().unwrap();
    let y1 = cells.iter().map(|c| c.bounds.1 + c.bounds.3).max().unwrap();
    let name = &sheet.names()[0];
    let size = &sheet.json["frames"][name]["sourceSize"];
    let (w, h) = (size["w"].as_u64().unwrap() as u32, size["h"].as_u64().unwrap() as u32);
    (w - (x1 - x0), h - (y1 - y0), (w, h))
}

#[test]
fn auto_size_cuts_cells_to_what_the_whole_job_covers() {
    let dir = scratch("auto");
    let (mesh, anim) = (robot("robot.md5mesh"), robot("walk.md5anim"));
    let job = [mesh.as_str(), "--anim", &anim, "--view", "iso", "--directions", "8", "--frames", "4", "--ssaa", "2"];
    // A fixed 96x96 cell: the walk fills its height, and most of its width stays empty.
    let (fixed_x, fixed_y, _) = empty_border(&sheet(&dir, &[&job[..], &["--size", "96"]].concat()));
    // auto:96 zooms the walk to fill 96 rows and cuts the width to it; with no margin nothing
    // is left over.
    let auto = sheet(&dir, &[&job[..], &["--size", "auto:96", "--margin", "0"]].concat());
    let (auto_x, auto_y, (w, h)) = empty_border(&auto);
    eprintln!("96x96: {fixed_x}x{fixed_y} px empty; auto:96 cells {w}x{h}, {auto_x}x{auto_y} px empty");
    assert!(fixed_x > 40, "the fixed cell is not mostly empty across: {fixed_x} px");
    assert_eq!(h, 96);
    assert!(auto_x <= 2 && auto_y <= 2, "auto:96 leaves {auto_x}x{auto_y} px of {w}x{h} empty");
    // The default margin (5% a side) is kept around the content.
    let (margin_x, _, (mw, _)) = empty_border(&sheet(&dir, &[&job[..], &["--size", "auto:96"]].concat()));
    assert!(margin_x as f32 >= 0.08 * mw as f32 && margin_x as f32 <= 0.12 * mw as f32 + 2.0, "{margin_x} of {mw}");
    // At a fixed scale, in pixel art with an outline: cut to whole pixel-art pixels, the
    // outline kept inside.
    let flags = ["--pixels-per-unit", "0.5", "--size", "auto", "--margin", "0", "--pixel-art", "2", "--outline", "1"];
    let level = [mesh.as_str(), "--anim", &anim, "--ortho", "--pitch", "0", "--directions", "8", "--frames", "4"];
    let fixed = sheet(&dir, &[&level[..], &flags].concat());
    let (x, y, (w, h)) = empty_border(&fixed);
    eprintln!("0.5 px/unit, pixel art, outline: cells {w}x{h}, {x}x{y} px empty");
    assert!(x <= 2 && y <= 2, "{x}x{y} px of {w}x{h} empty");
    // Seen level, the robot's 64.5 units are 32.25 px, plus
    // the outline's pixel above and below; its pivot is on the ground line.
    assert!((34..=36).contains(&h), "{w}x{h}");
    let pivot_y = fixed.json["meta"]["pivot"]["y"].as_f64().unwrap();
    let ground = frames(&fixed).iter().map(|c| c.bounds.1 + c.bounds.3).max().unwrap();
    assert_eq!(f64::from(ground), pivot_y + 1.0, "the outline is one pixel below the ground line");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_render_with_an_auto_size_is_cut_to_its_model() {
    let dir = scratch("render");
    let o = spritebake(&dir, &["render", &robot("robot.md5mesh"), "--size", "auto:80", "--margin", "0", "-o", "r.png"]);
    assert!(o.status.success(), "{}", printed(&o));
    let image = spritebake::output::read_png(&dir.join("r.png")).unwrap();
    let (x, y, w, h) = image.opaque_bounds().unwrap();
    // The robot is taller than wide: 80 rows, as few columns as it covers.
    assert_eq!(image.height, 80);
    assert!(image.width < 50, "{}x{}", image.width, image.height);
    assert!(
        image.width - w <= 2 && image.height - h <= 2 && x <= 1 && y <= 1,
        "{:?} in {}x{}",
        (x, y, w, h),
        image.width,
        image.height
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_project_entry_bakes_the_same_fixed_scale_sheet_as_the_command() {
    // A project entry and the command line give the same bytes at a fixed scale and auto size.
    let dir = scratch("front-ends");
    let (mesh, anim) = (robot("robot.md5mesh"), robot("walk.md5anim"));
    let flags = ["--view", "iso", "--directions", "4", "--frames", "3", "--pixels-per-unit", "0.75", "--size", "auto"];
    let cli = sheet(&dir, &[&[mesh.as_str(), "--anim", &anim][..], &flags].concat());
    let project = format!(
        "[[sheet]]\nname = \"walk\"\noutput = \"p.png\"\nmodel = {mesh:?}\nanim = [{anim:?}]\nview = \"iso\"\ndirections = 4\n\
         frames = 3\npixels_per_unit = 0.75\nsize = \"auto\"\n"
    );
    std::fs::write(dir.join("project.toml"), project).unwrap();
    let assets = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/assets");
    let o = spritebake(&dir, &["bake", "project.toml", "--allow-dir", assets.to_str().unwrap()]);
    assert!(o.status.success(), "{}", printed(&o));
    let baked = WrittenSheet::read(&dir.join("p.png"));
    assert!(baked.image == cli.image, "the project entry baked a different sheet");
    assert_eq!(baked.json["meta"]["pivot"], cli.json["meta"]["pivot"]);
    assert_eq!(cli.json["meta"]["pixelsPerUnit"], 0.75);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn scales_and_sizes_that_cannot_hold_are_refused_and_write_nothing() {
    let mesh = robot("robot.md5mesh");
    let m = mesh.as_str();
    let cases: &[(&[&str], &[&str])] = &[
        (
            &["sheet", m, "--pixels-per-unit", "8", "-o", "s.png"],
            &["--pixels-per-unit 8", "needs an orthographic view"],
        ),
        (&["sheet", m, "--ortho", "--pixels-per-unit", "0", "-o", "s.png"], &["--pixels-per-unit", "0.0001 to 100000"]),
        (&["sheet", m, "--ortho", "--pixels-per-unit=-2", "-o", "s.png"], &["--pixels-per-unit", "0.0001 to 100000"]),
        (
            &["sheet", m, "--ortho", "--pixels-per-unit", "NaN", "-o", "s.png"],
            &["--pixels-per-unit", "0.0001 to 100000"],
        ),
        (
            &["sheet", m, "--view", "iso", "--pixels-per-unit", "1", "--fit", "per-frame", "-o", "s.png"],
            &["--pixels-per-unit 1", "per-frame"],
        ),
        (
            &["frames", m, "--size", "auto", "--fit", "per-frame", "-o", "f{frame}.png"],
            &["--size auto:256x256", "per-frame"],
        ),
        (&["sheet", m, "--size", "auto:9000", "-o", "s.png"], &["auto:9000", "1 to 8192"]),
        // The robot is 64 units tall: 640 px at 10 px a unit, more than the cell or the maximum.
        (
            &["sheet", m, "--view", "iso", "--pixels-per-unit", "10", "--size", "256", "-o", "s.png"],
            &["--pixels-per-unit 10", "need", "more than --size (256x256)"],
        ),
        (
            &["gif", m, "--view", "iso", "--pixels-per-unit", "10", "--size", "auto", "-o", "g.gif"],
            &["--pixels-per-unit 10", "the auto size's maximum (256x256)"],
        ),
    ];
    for (args, words) in cases {
        let dir = scratch("refused");
        let o = spritebake(&dir, args);
        assert_refused(&o, words);
        assert!(names_in(&dir).is_empty(), "{args:?} wrote {:?}", names_in(&dir));
        std::fs::remove_dir_all(dir).unwrap();
    }
}
