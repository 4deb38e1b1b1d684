//! Named directions: direction 0 faces the camera in every view, the compass names say where
//! the model faces on screen (S down, W left, N away, E right), and the names reach frame
//! names, animations, the JSON's directions table, frame files and `gif --direction`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use spritebake::Image;
use spritebake::golden::Tolerance;

use crate::common::boxes::{Box3, write_boxes};
use crate::common::cli::{WrittenSheet, assert_refused, names_in, printed, scratch_in};
use crate::common::golden::assert_golden;
use crate::common::robot;

fn scratch(name: &str) -> PathBuf {
    scratch_in("directions", name)
}

fn spritebake(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_spritebake")).args(args).current_dir(dir).output().unwrap()
}

/// A grey block 1 wide, 2 tall and 1 deep with a red nose sticking out of its front (+Z, the
/// way an OBJ faces) at chest height: the nose shows which way the model faces.
fn nosed_block(dir: &Path) -> PathBuf {
    let body = Box3 { min: [-0.5, 0.0, -0.5], max: [0.5, 2.0, 0.5], color: [0.5, 0.5, 0.5] };
    let nose = Box3 { min: [-0.15, 1.0, 0.5], max: [0.15, 1.3, 1.1], color: [1.0, 0.0, 0.0] };
    write_boxes(dir, "nosed", &[body, nose])
}

/// Mean x of the pixels that pass `pick`, and how many there are.
fn mean_x(image: &Image, pick: impl Fn([u8; 4]) -> bool) -> (f32, usize) {
    let (mut sum, mut n) = (0.0, 0);
    for y in 0..image.height {
        for x in 0..image.width {
            if pick(image.pixel(x, y).unwrap()) {
                sum += x as f32 + 0.5;
                n += 1;
            }
        }
    }
    (if n > 0 { sum / n as f32 } else { f32::NAN }, n)
}

fn red(p: [u8; 4]) -> bool {
    p[3] == 255 && p[0] > 200 && p[1] < 80 && p[2] < 80
}

fn grey(p: [u8; 4]) -> bool {
    p[3] == 255 && p[0].abs_diff(p[1]) < 10 && p[0] > 60
}

#[test]
fn compass_names_say_where_the_model_faces_on_screen_in_every_view() {
    let dir = scratch("compass");
    let model = nosed_block(&dir);
    let model = model.to_str().unwrap();
    let views: [(&str, &[&str]); 3] =
        [("default", &[]), ("iso", &["--view", "iso"]), ("ortho-side", &["--ortho", "--pitch", "0"])];
    for (view, flags) in views {
        let out = dir.join(format!("{view}.png"));
        let mut args = vec!["sheet", model, "--directions", "8", "--size", "64", "--shading", "unlit", "--ssaa", "1"];
        args.extend(flags);
        args.extend(["-o", out.to_str().unwrap()]);
        let o = spritebake(&dir, &args);
        assert!(o.status.success(), "{view}: {}", printed(&o));
        let sheet = WrittenSheet::read(&out);
        let names: Vec<&str> =
            sheet.json["meta"]["directions"].as_array().unwrap().iter().map(|d| d["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["S", "SW", "W", "NW", "N", "NE", "E", "SE"], "{view}");
        // Where the nose is, left or right of the body's middle, in each direction's cell.
        let nose = |name: &str| {
            let cell = sheet.frame(&format!("rest_{name}_000"));
            let ((nose_x, nose_n), (body_x, _)) = (mean_x(&cell, red), mean_x(&cell, grey));
            (nose_x - body_x, nose_n)
        };
        // S faces the viewer: the nose is in front of the body's middle.
        let (offset, seen) = nose("S");
        assert!(seen > 20 && offset.abs() < 1.5, "{view} S: nose {offset:+.1} px from the middle, {seen} px");
        // N faces away: the body hides the nose.
        assert_eq!(nose("N").1, 0, "{view} N: the nose shows");
        // W, SW and NW face screen-left; E, SE and NE screen-right.
        for name in ["W", "SW", "NW"] {
            let (offset, seen) = nose(name);
            assert!(seen > 0 && offset < -3.0, "{view} {name}: nose {offset:+.1} px from the middle");
        }
        for name in ["E", "SE", "NE"] {
            let (offset, seen) = nose(name);
            assert!(seen > 0 && offset > 3.0, "{view} {name}: nose {offset:+.1} px from the middle");
        }
        // W is the profile: its nose sticks out furthest.
        assert!(nose("W").0 < nose("SW").0 && nose("E").0 > nose("SE").0, "{view}: W/E are not the profiles");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn golden_iso_walk_in_eight_named_directions() {
    let dir = scratch("golden");
    let out = dir.join("walk.png");
    let (mesh, anim) = (robot("robot.md5mesh"), robot("walk.md5anim"));
    let o = spritebake(
        &dir,
        &[
            "sheet",
            &mesh,
            "--anim",
            &anim,
            "--view",
            "iso",
            "--directions",
            "8",
            "--frames",
            "4",
            "--size",
            "28",
            "--ssaa",
            "2",
            "-o",
            out.to_str().unwrap(),
        ],
    );
    assert!(o.status.success(), "{}", printed(&o));
    let sheet = WrittenSheet::read(&out);
    let compass = ["S", "SW", "W", "NW", "N", "NE", "E", "SE"];
    let expected: Vec<String> = compass.iter().flat_map(|d| (0..4).map(move |f| format!("walk_{d}_{f:03}"))).collect();
    // In the JSON's order: frames are listed as they play, directions in turning order.
    assert_eq!(sheet.names(), expected);
    // Rows in turning order, each its own animation, and the table of names and angles.
    let top = |name: &str| sheet.json["frames"][name]["frame"]["y"].as_u64().unwrap();
    assert!(compass.windows(2).all(|w| top(&format!("walk_{}_000", w[0])) < top(&format!("walk_{}_000", w[1]))));
    for (d, name) in compass.iter().enumerate() {
        let list: Vec<&str> = sheet.json["animations"][format!("walk_{name}")]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n.as_str().unwrap())
            .collect();
        assert_eq!(list, expected[d * 4..d * 4 + 4]);
        let entry = &sheet.json["meta"]["directions"][d];
        assert_eq!((entry["index"].as_u64(), entry["name"].as_str()), (Some(d as u64), Some(*name)));
        assert_eq!(entry["angle"].as_f64(), Some(45.0 * d as f64));
    }
    assert_golden(&sheet.image, Tolerance { channel: 1, max_pixels: 16 });
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn direction_names_reach_frames_animations_files_and_the_gif() {
    let dir = scratch("names");
    let (mesh, anim) = (robot("robot.md5mesh"), robot("walk.md5anim"));
    let job = ["--anim", &anim, "--directions", "4", "--direction-names", "front,left,back,right", "--frames", "2"];
    let job = [&[mesh.as_str()][..], &job, &["--size", "24", "--ssaa", "1"]].concat();
    let run = |command: &str, extra: &[&str]| {
        let o = spritebake(&dir, &[&[command][..], &job, extra].concat());
        assert!(o.status.success(), "{command} {extra:?}: {}", printed(&o));
    };
    run("sheet", &["--json-format", "aseprite", "--filename-format", "{tag}_{tagframe000}", "-o", "s.png"]);
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(dir.join("s.json")).unwrap()).unwrap();
    let tags: Vec<&str> =
        json["meta"]["frameTags"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(tags, ["walk_front", "walk_left", "walk_back", "walk_right"]);
    assert_eq!(json["frames"][3]["filename"], "walk_left_001");
    assert_eq!(json["meta"]["directions"][3], serde_json::json!({"index": 3, "name": "right", "angle": 270.0}));
    // {dirname} names the files; {dir} stays the index.
    run("frames", &["-o", "f/{clip}_{dirname}_{dir}_{frame}.png"]);
    let files: Vec<String> = ["front_0", "left_1", "back_2", "right_3"]
        .iter()
        .flat_map(|d| (0..2).map(move |f| format!("walk_{d}_{f}.png")))
        .collect();
    let mut files = files;
    files.push("frames.json".into());
    files.sort();
    assert_eq!(names_in(&dir.join("f")), files);
    // The GIF of the direction named `left` is the GIF of direction 1, and not of direction 0.
    run("gif", &["--direction", "left", "-o", "by-name.gif"]);
    run("gif", &["--direction", "1", "-o", "by-index.gif"]);
    run("gif", &["--direction", "0", "-o", "front.gif"]);
    let gif = |name: &str| std::fs::read(dir.join(name)).unwrap();
    assert!(gif("by-name.gif") == gif("by-index.gif") && gif("by-name.gif") != gif("front.gif"));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn direction_names_that_would_break_files_or_keys_and_mirrors_with_nothing_to_share_are_refused() {
    let mesh = robot("robot.md5mesh");
    let m = mesh.as_str();
    let cases: &[(&[&str], &[&str])] = &[
        (
            &["sheet", m, "--directions", "4", "--direction-names", "S,W,N", "-o", "s.png"],
            &["--direction-names S,W,N", "4 names for --directions = 4 (3 given)"],
        ),
        (
            &["sheet", m, "--directions", "2", "--direction-names", "up,UP", "-o", "s.png"],
            &["'up' and 'UP' are the same name"],
        ),
        (&["sheet", m, "--directions", "2", "--direction-names", "a/b,c", "-o", "s.png"], &["'a/b' has '/'"]),
        (&["frames", m, "--directions", "2", "--direction-names", "x,", "-o", "f{frame}.png"], &["name 2 is 0 bytes"]),
        (
            &["gif", m, "--directions", "8", "--direction", "WSW", "-o", "g.gif"],
            &["--direction WSW", "one of the job's directions (S, SW, W, NW, N, NE, E, SE)"],
        ),
        (&["gif", m, "--directions", "4", "--direction", "4", "-o", "g.gif"], &["--direction 4", "from 0 to 3"]),
        // Mirroring needs directions past the back, and a sheet's rectangles to share.
        (&["sheet", m, "--directions", "2", "--mirror", "-o", "s.png"], &["mirror", "2 direction(s)"]),
        (&["frames", m, "--directions", "8", "--mirror", "-o", "f_{dirname}.png"], &["mirror", "bake a sheet"]),
    ];
    for (args, words) in cases {
        let dir = scratch("refused");
        let o = spritebake(&dir, args);
        assert_refused(&o, words);
        assert!(names_in(&dir).is_empty(), "{args:?} wrote {:?}", names_in(&dir));
        std::fs::remove_dir_all(dir).unwrap();
    }
}

#[test]
fn any_count_of_directions_is_evenly_spaced_and_named_by_angle() {
    let dir = scratch("any_count");
    let model = nosed_block(&dir);
    let model = model.to_str().unwrap();
    // The same fixed scale and pivot in both jobs, so a shared angle renders the same cell.
    let sheet_of = |count: &str| {
        let out = dir.join(format!("d{count}.png"));
        let args = [
            "sheet",
            model,
            "--directions",
            count,
            "--size",
            "48",
            "--ortho",
            "--pixels-per-unit",
            "12",
            "--ssaa",
            "1",
        ];
        let o = spritebake(&dir, &[&args[..], &["-o", out.to_str().unwrap()]].concat());
        assert!(o.status.success(), "{count}: {}", printed(&o));
        WrittenSheet::read(&out)
    };
    let (six, twelve, thirty_two) = (sheet_of("6"), sheet_of("12"), sheet_of("32"));
    let table = |sheet: &WrittenSheet| -> Vec<(String, f64)> {
        let directions = sheet.json["meta"]["directions"].as_array().unwrap();
        directions.iter().map(|d| (d["name"].as_str().unwrap().to_string(), d["angle"].as_f64().unwrap())).collect()
    };
    let expected: Vec<(String, f64)> = (0..6).map(|d| ((d * 60).to_string(), f64::from(d * 60))).collect();
    assert_eq!(table(&six), expected);
    let vehicle = table(&thirty_two);
    assert_eq!(vehicle.len(), 32);
    assert_eq!(vehicle[1], ("11_25".to_string(), 11.25));
    assert_eq!(vehicle[31], ("348_75".to_string(), 348.75));
    // Direction d of 6 is direction 2d of 12: the same angle, the same pixels.
    for d in 0..6 {
        let name = (d * 60).to_string();
        let (a, b) = (six.frame(&format!("rest_{name}_000")), twelve.frame(&format!("rest_{name}_000")));
        assert_eq!(a.rgba, b.rgba, "{name} degrees");
    }
    // 60 degrees turns the nose to screen-left, 300 to screen-right, 180 hides it.
    let nose = |name: &str| {
        let cell = six.frame(&format!("rest_{name}_000"));
        (mean_x(&cell, red).0 - mean_x(&cell, grey).0, mean_x(&cell, red).1)
    };
    assert!(nose("60").0 < -2.0 && nose("300").0 > 2.0, "{:?} {:?}", nose("60"), nose("300"));
    assert_eq!(nose("180").1, 0);
    // The GIF of one of them, by its angle; past 64 is refused.
    let gif = dir.join("d6.gif");
    let o = spritebake(
        &dir,
        &["gif", model, "--directions", "6", "--direction", "120", "--size", "32", "-o", gif.to_str().unwrap()],
    );
    assert!(o.status.success(), "{}", printed(&o));
    assert_refused(
        &spritebake(&dir, &["sheet", model, "--directions", "65", "-o", "x.png"]),
        &["must be from 1 to 64"],
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// `image` flipped left to right about the vertical line `x` pixels from its left edge (a
/// whole pixel: column `c` shows column `2x − 1 − c`); what falls outside is transparent.
fn flipped_about(image: &Image, x: u32) -> Image {
    let mut out = Image::new(image.width, image.height).unwrap();
    for y in 0..image.height {
        for c in 0..image.width {
            let from = (2 * i64::from(x) - 1 - i64::from(c)).try_into().ok().and_then(|f| image.pixel(f, y));
            if let Some(p) = from {
                out.pixel_mut(c, y).unwrap().copy_from_slice(&p);
            }
        }
    }
    out
}

#[test]
fn mirrored_directions_are_their_sources_frames_flipped_about_the_pivot() {
    let dir = scratch("mirror");
    // Symmetric left to right (the nose is in the middle of the front), unlit: its flipped
    // image from one side is its image from the other.
    let model = nosed_block(&dir);
    let model = model.to_str().unwrap();
    for (count, mirrored_names) in [(8, "NE E SE"), (6, "240 300"), (16, "NNE NE ENE E ESE SE SSE")] {
        let names: Vec<&str> = mirrored_names.split(' ').collect();
        let n = count.to_string();
        let bake = |name: &str, extra: &[&str]| {
            let out = dir.join(format!("{name}{count}.png"));
            let mut args = vec!["sheet", model, "--directions", &n, "--size", "48", "--shading", "unlit"];
            args.extend(extra);
            args.extend(["-o", out.to_str().unwrap()]);
            let o = spritebake(&dir, &args);
            assert!(o.status.success(), "{count}: {}", printed(&o));
            (WrittenSheet::read(&out), printed(&o))
        };
        let (full, _) = bake("full", &[]);
        let (mirrored, said) = bake("mirrored", &["--mirror"]);
        let rendered = count / 2 + 1;
        assert!(said.contains(&format!("{count} frames ({} mirrored)", count - rendered)), "{said}");
        // Fewer cells on the page: one row a rendered direction.
        assert!(mirrored.image.height < full.image.height, "{count}");
        let table = mirrored.json["meta"]["directions"].as_array().unwrap().clone();
        for entry in &table {
            let name = entry["name"].as_str().unwrap();
            let frame = |sheet: &WrittenSheet, name: &str| sheet.json["frames"][format!("rest_{name}_000")].clone();
            let Some(source) = entry["flippedFrom"].as_str() else {
                assert!(frame(&mirrored, name).get("flipX").is_none(), "{count} {name}");
                continue;
            };
            assert!(names.contains(&name), "{count}: {name} is mirrored");
            // The same rectangle as its source, drawn flipped about the same pivot.
            let (this, that) = (frame(&mirrored, name), frame(&mirrored, source));
            assert_eq!(
                (&this["frame"], &this["pivot"], &this["flipX"]),
                (&that["frame"], &that["pivot"], &true.into())
            );
            let pivot_x = (this["pivot"]["x"].as_f64().unwrap() * 48.0).round() as u32;
            let shown = flipped_about(&mirrored.frame(&format!("rest_{source}_000")), pivot_x);
            let rendered = full.frame(&format!("rest_{name}_000"));
            // Equal but for the anti-aliasing of edges, which is not symmetric left to right.
            let (mut differ, mut covered) = (0, 0);
            for (a, b) in shown.rgba.chunks_exact(4).zip(rendered.rgba.chunks_exact(4)) {
                covered += usize::from(a[3] > 0 || b[3] > 0);
                differ += usize::from(a.iter().zip(b).any(|(x, y)| x.abs_diff(*y) > 48));
            }
            assert!(covered > 200 && differ * 50 < covered, "{count} {name}: {differ} of {covered} pixels differ");
        }
        let flipped = table.iter().filter(|d| d.get("flippedFrom").is_some()).count();
        assert_eq!(flipped, names.len(), "{count}");
    }
    std::fs::remove_dir_all(dir).unwrap();
}
