//! Sprites that play right in engines, measured from what a sheet writes: the character turns
//! about its feet from one direction to the next whatever other clip shares the sheet; clips
//! that play once say so in every format (Godot 3 reads it with its own loader); a loop lasts
//! its authored length; a sheet without `--anim` has every clip.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::common::cli::{printed, scratch_in};
use crate::common::tres::{self, Variant};
use crate::common::{corpus, engines, robot};

/// Runs `spritebake COMMAND MODEL ARGS --quiet -o OUTPUT`, which must succeed.
fn run_ok(command: &str, model: &Path, args: &[&str], output: &Path) {
    let o = Command::new(env!("CARGO_BIN_EXE_spritebake"))
        .arg(command)
        .arg(model)
        .args(args)
        .args(["--quiet", "-o"])
        .arg(output)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", printed(&o));
}

/// Runs `sheet MODEL ARGS -o dir/NAME.png` and returns the PNG's path.
fn sheet(dir: &Path, name: &str, model: &Path, args: &[&str]) -> PathBuf {
    let png = dir.join(format!("{name}.png"));
    run_ok("sheet", model, args, &png);
    png
}

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))).unwrap()
}

/// Bakes a TexturePacker sheet and returns the JSON and the PNG.
fn bake(dir: &Path, name: &str, model: &Path, args: &[&str]) -> (Value, image::RgbaImage) {
    let png = sheet(dir, name, model, args);
    (read_json(&png.with_extension("json")), image::open(&png).unwrap().into_rgba8())
}

/// The alpha-weighted centroid of frame `name` minus its pivot, in pixels of the untrimmed
/// frame (x right, y down).
fn centroid_from_pivot(json: &Value, page: &image::RgbaImage, name: &str) -> (f64, f64) {
    let f = &json["frames"][name];
    let at = |v: &Value, k: &str| v[k].as_f64().unwrap_or_else(|| panic!("{name}: no {k} in {v}"));
    let (x, y, w, h) = (at(&f["frame"], "x"), at(&f["frame"], "y"), at(&f["frame"], "w"), at(&f["frame"], "h"));
    let (sx, sy) = (at(&f["spriteSourceSize"], "x"), at(&f["spriteSourceSize"], "y"));
    let pivot = (at(&f["pivot"], "x") * at(&f["sourceSize"], "w"), at(&f["pivot"], "y") * at(&f["sourceSize"], "h"));
    let (mut sum, mut cx, mut cy) = (0.0, 0.0, 0.0);
    for j in 0..h as u32 {
        for i in 0..w as u32 {
            let a = f64::from(page.get_pixel(x as u32 + i, y as u32 + j)[3]);
            sum += a;
            cx += a * (sx + f64::from(i) + 0.5);
            cy += a * (sy + f64::from(j) + 0.5);
        }
    }
    assert!(sum > 0.0, "{name} is empty");
    (cx / sum - pivot.0, cy / sum - pivot.1)
}

/// The largest distance between two of `points`.
fn spread(points: &[(f64, f64)]) -> f64 {
    let d = |a: &(f64, f64), b: &(f64, f64)| ((a.0 - b.0).powi(2) + (a.1 - b.1).powi(2)).sqrt();
    points.iter().flat_map(|a| points.iter().map(move |b| d(a, b))).fold(0.0, f64::max)
}

fn ogro() -> Option<PathBuf> {
    corpus("md2/ogro").map(|dir| dir.join("ogro.md2"))
}

#[test]
fn a_character_turns_about_its_feet_beside_a_clip_that_falls_away() {
    let Some(model) = ogro() else { return };
    let dir = scratch_in("engine_play", "turning");
    // The ogro's `deathb` falls a body length backwards: framed about the centre of both
    // clips' bounds, the run's first frame circled the pivot from one direction to the next.
    let args = ["--anim", "run,deathb", "--view", "iso", "--directions", "8", "--size", "128", "--trim"];
    let (json, page) = bake(&dir, "ogro", &model, &args);
    let directions: Vec<String> = json["meta"]["directions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(directions.len(), 8);
    let offsets: Vec<(f64, f64)> =
        directions.iter().map(|d| centroid_from_pivot(&json, &page, &format!("run_{d}_000"))).collect();
    let run = spread(&offsets);
    assert!(run <= 6.0, "the run's first frame spreads {run:.1} px about the pivot over 8 directions: {offsets:?}");
    // Every frame's pivot is one whole pixel of the untrimmed frame.
    for (name, f) in json["frames"].as_object().unwrap() {
        let px = f["pivot"]["x"].as_f64().unwrap() * f["sourceSize"]["w"].as_f64().unwrap();
        let py = f["pivot"]["y"].as_f64().unwrap() * f["sourceSize"]["h"].as_f64().unwrap();
        assert!((px - px.round()).abs() < 1e-3 && (py - py.round()).abs() < 1e-3, "{name}: pivot {px}, {py}");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn pixel_art_pivots_are_whole_pixels() {
    let dir = scratch_in("engine_play", "pixel-art");
    let args = ["--directions", "8", "--view", "iso", "--size", "40", "--pixel-art", "4", "--trim"];
    let (json, _) = bake(&dir, "robot", Path::new(&robot("robot.md2")), &args);
    for (name, f) in json["frames"].as_object().unwrap() {
        for (axis, side) in [("x", "w"), ("y", "h")] {
            let px = f["pivot"][axis].as_f64().unwrap() * f["sourceSize"][side].as_f64().unwrap();
            assert!((px - px.round()).abs() < 1e-3, "{name}: pivot {axis} {px}");
        }
    }
    std::fs::remove_dir_all(dir).unwrap();
}

fn headcrab() -> Option<PathBuf> {
    corpus("smd/headcrab").map(|dir| dir.join("headcrab.qc"))
}

/// Whether each animation of the headcrab's `jump`, `dieback`, `idle1`, `walk` loops, in that
/// order, by what each engine's data says, for a sheet baked with `args`.
fn headcrab_loops(dir: &Path, model: &Path, args: &[&str]) -> Vec<(&'static str, [bool; 4])> {
    let clips = ["jump", "dieback", "idle1", "walk"];
    let bake_as = |format: &str| {
        let mut all = vec!["--anim", "jump,dieback,idle1,walk", "--directions", "1", "--size", "24"];
        all.extend(["--ssaa", "1", "--json-format", format]);
        all.extend(args);
        sheet(dir, format, model, &all)
    };
    let mut seen = Vec::new();
    // TexturePacker (PixiJS): `meta.playback`.
    let json = read_json(&bake_as("texturepacker").with_extension("json"));
    seen.push(("texturepacker", clips.map(|c| json["meta"]["playback"][format!("{c}_S")]["loop"] == true)));
    // Aseprite: a tag that plays once repeats once.
    let json = read_json(&bake_as("aseprite").with_extension("json"));
    let tags = json["meta"]["frameTags"].as_array().unwrap();
    let tag = |c: &str| tags.iter().find(|t| t["name"] == format!("{c}_S")).unwrap().clone();
    seen.push(("aseprite", clips.map(|c| tag(c).get("repeat").is_none())));
    // Phaser's animation JSON: `repeat` -1 forever, 0 once.
    let anims = read_json(&bake_as("phaser").with_extension("anims.json"));
    let anim =
        |c: &str| anims["anims"].as_array().unwrap().iter().find(|a| a["key"] == format!("{c}_S")).unwrap().clone();
    seen.push(("phaser", clips.map(|c| anim(c)["repeat"] == -1)));
    // Godot 4 and 3: each animation's `loop`.
    for format in ["godot", "godot3"] {
        let text = std::fs::read_to_string(bake_as(format).with_extension("tres")).unwrap();
        let sections = tres::parse(&text);
        let resource = sections.iter().find(|s| s.tag == "resource").unwrap();
        let animations = resource.property("animations").array();
        let loops = |c: &str| {
            let a = animations.iter().find(|a| a.get("name").str() == format!("{c}_S")).unwrap();
            a.get("loop") == &Variant::Bool(true)
        };
        seen.push((if format == "godot" { "godot4" } else { "godot3" }, clips.map(loops)));
    }
    seen
}

#[test]
fn a_qc_sequence_without_loop_plays_once_in_every_engines_data() {
    let Some(model) = headcrab() else { return };
    let dir = scratch_in("engine_play", "loops");
    // `jump` and `dieback` have no `loop` in the QC; `idle1` and `walk` do. `info` says so.
    let info = Command::new(env!("CARGO_BIN_EXE_spritebake")).arg("info").arg(&model).output().unwrap();
    let info = String::from_utf8_lossy(&info.stdout).into_owned();
    let clip_line = |name: &str| info.lines().find(|l| l.starts_with(&format!("  '{name}'"))).unwrap().to_string();
    assert!(clip_line("jump").ends_with(", plays once)") && !clip_line("walk").contains("once"), "{info}");
    for (format, loops) in headcrab_loops(&dir, &model, &[]) {
        assert_eq!(loops, [false, false, true, true], "{format}");
    }
    // Overridden by name, both ways.
    for (format, loops) in headcrab_loops(&dir, &model, &["--loop", "jump", "--once", "walk"]) {
        assert_eq!(loops, [true, false, true, false], "{format}");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_misspelt_once_or_loop_clip_is_refused_not_ignored() {
    let dir = scratch_in("engine_play", "typo");
    for (key, name) in [("--once", "wlak"), ("--loop", "walk2")] {
        let o = Command::new(env!("CARGO_BIN_EXE_spritebake"))
            .args(["sheet", &robot("robot.md5mesh"), "--anim", &robot("walk.md5anim"), key, name, "-o"])
            .arg(dir.join("typo.png"))
            .output()
            .unwrap();
        crate::common::cli::assert_refused(&o, &[&format!("{key} {name}"), "did you mean 'walk'"]);
    }
    let o = Command::new(env!("CARGO_BIN_EXE_spritebake"))
        .args(["sheet", &robot("robot.md2"), "--once", "run", "--loop", "run", "-o"])
        .arg(dir.join("both.png"))
        .output()
        .unwrap();
    crate::common::cli::assert_refused(&o, &["--once run", "also given to --loop"]);
    assert!(crate::common::cli::names_in(&dir).is_empty());
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn godot3_plays_the_qc_death_once_and_the_walk_forever() {
    let (Some(model), Some(godot)) = (headcrab(), engines::godot3()) else { return };
    let dir = scratch_in("engine_play", "godot3-loops");
    let args =
        ["--anim", "dieback,walk", "--directions", "1", "--size", "24", "--ssaa", "1", "--json-format", "godot3"];
    let png = sheet(&dir, "crab", &model, &args);
    let seen = engines::godot3_inspect(&godot, &dir, "", &png.with_extension("tres"), &[&png]);
    let loops: Vec<(String, bool)> = seen["animations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| (a["name"].as_str().unwrap().to_string(), a["loop"].as_bool().unwrap()))
        .collect();
    assert_eq!(loops, [("dieback_S".to_string(), false), ("walk_S".to_string(), true)]);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn the_fox_walk_lasts_its_authored_length_in_every_format() {
    let Some(fox) = corpus("gltf/fox").map(|d| d.join("Fox.glb")) else { return };
    let dir = scratch_in("engine_play", "fox-walk");
    let args = |format| ["--anim", "Walk", "--directions", "1", "--size", "24", "--ssaa", "1", "--json-format", format];
    // The Walk is authored 0.7083 s long: 708 ms, give or take the rounding of the last one.
    let near = |ms: f64, what: &str| assert!((ms - 708.33).abs() <= 1.0, "{what}: the Walk lasts {ms} ms");
    let json = read_json(&sheet(&dir, "tp", &fox, &args("texturepacker")).with_extension("json"));
    let frames = json["animations"]["Walk_S"].as_array().unwrap();
    assert_eq!(frames.len(), 21, "21 frames at 30 fps, no seam frame");
    let sum: u64 = frames.iter().map(|n| json["frames"][n.as_str().unwrap()]["duration"].as_u64().unwrap()).sum();
    near(sum as f64, "TexturePacker frame durations");
    assert_eq!(json["meta"]["playback"]["Walk_S"]["ms"], sum);
    near(21_000.0 / json["meta"]["playback"]["Walk_S"]["fps"].as_f64().unwrap(), "meta.playback fps");
    let ase = read_json(&sheet(&dir, "ase", &fox, &args("aseprite")).with_extension("json"));
    near(ase["frames"].as_array().unwrap().iter().map(|f| f["duration"].as_f64().unwrap()).sum(), "Aseprite");
    let anims = read_json(&sheet(&dir, "ph", &fox, &args("phaser")).with_extension("anims.json"));
    let walk = &anims["anims"][0];
    near(walk["frames"].as_array().unwrap().iter().map(|f| f["duration"].as_f64().unwrap()).sum(), "Phaser");
    // Godot 3 keeps only a rate: 21 frames at it last the Walk's length, and it is written
    // without float noise.
    let text = std::fs::read_to_string(sheet(&dir, "g3", &fox, &args("godot3")).with_extension("tres")).unwrap();
    let sections = tres::parse(&text);
    let resource = sections.iter().find(|s| s.tag == "resource").unwrap();
    let speed = resource.property("animations").array()[0].get("speed").number();
    near(21_000.0 / speed, "Godot 3 speed");
    assert!(text.contains("\"speed\": 29.647\n"), "{text}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_sheet_without_anim_has_every_clip_in_file_order() {
    let Some(model) = headcrab() else { return };
    let dir = scratch_in("engine_play", "every-clip");
    let args = ["--directions", "1", "--size", "16", "--ssaa", "1", "--sample-fps", "5"];
    let json = read_json(&sheet(&dir, "crab", &model, &args).with_extension("json"));
    let qc = std::fs::read_to_string(&model).unwrap();
    // Every `$sequence "NAME" "FILE"` of the QC whose file the corpus has, in the QC's order
    // (the corpus keeps 6 of its 21 sequences' files).
    let sequences: Vec<String> = qc
        .lines()
        .filter_map(|l| l.trim().strip_prefix("$sequence "))
        .map(|rest| rest.split('"').collect::<Vec<_>>())
        .filter(|quoted| model.with_file_name(format!("{}.smd", quoted[3])).exists())
        .map(|quoted| quoted[1].to_string())
        .collect();
    assert_eq!(sequences.len(), 6, "{sequences:?}");
    let animations: Vec<String> = json["animations"].as_object().unwrap().keys().cloned().collect();
    let expected: Vec<String> = sequences.iter().map(|s| format!("{s}_S")).collect();
    assert_eq!(animations, expected);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn godot3_loads_the_scene_and_its_sprite_stands_on_the_pivot() {
    let Some(godot) = engines::godot3() else { return };
    let dir = scratch_in("engine_play", "godot3-scene");
    let args = ["--anim", &robot("walk.md5anim"), "--directions", "4", "--view", "iso", "--size", "40", "--trim"];
    let model = PathBuf::from(robot("robot.md5mesh"));
    let png = sheet(&dir, "walk", &model, &[&args[..], &["--json-format", "godot3"]].concat());
    let (tres, tscn) = (png.with_extension("tres"), png.with_extension("tscn"));
    let scene = engines::godot3_scene(&godot, &dir, &tscn, &[&tres, &png], None);
    assert_eq!(scene["type"], "AnimatedSprite");
    assert_eq!((scene["animation"].as_str(), scene["playing"].as_bool()), (Some("walk_S"), Some(true)));
    // The same sheet's TexturePacker JSON gives the pivot: the node's offset takes it to the
    // origin (the sprite is not centred), and Godot's frame is the whole untrimmed frame.
    let (json, _) = bake(&dir, "walk-tp", &model, &args);
    let first = &json["frames"]["walk_S_000"];
    let size = [first["sourceSize"]["w"].as_f64().unwrap(), first["sourceSize"]["h"].as_f64().unwrap()];
    let pivot = [first["pivot"]["x"].as_f64().unwrap() * size[0], first["pivot"]["y"].as_f64().unwrap() * size[1]];
    let pair = |v: &Value| [v[0].as_f64().unwrap(), v[1].as_f64().unwrap()];
    assert_eq!(scene["centered"], false);
    assert_eq!(pair(&scene["frame_size"]), size);
    assert_eq!(pair(&scene["offset"]), [-pivot[0], -pivot[1]], "pivot {pivot:?}");
    // Godot 4's scene: an AnimatedSprite2D with the same offset.
    let png = sheet(&dir, "walk4", &model, &[&args[..], &["--json-format", "godot"]].concat());
    let text = std::fs::read_to_string(png.with_extension("tscn")).unwrap();
    let sections = tres::parse(&text);
    let node = sections.iter().find(|s| s.tag == "node").unwrap();
    assert_eq!(node.attribute("type").str(), "AnimatedSprite2D");
    let (call, offset) = node.property("offset").call();
    assert_eq!(call, "Vector2");
    assert_eq!([offset[0].number(), offset[1].number()], [-pivot[0], -pivot[1]]);
    assert_eq!(node.property("sprite_frames").call().0, "ExtResource");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn frames_get_a_json_with_each_frames_pivot_and_duration() {
    let dir = scratch_in("engine_play", "frames-data");
    let (mesh, anim) = (robot("robot.md5mesh"), robot("walk.md5anim"));
    let args = ["--anim", anim.as_str(), "--directions", "4", "--size", "32", "--ssaa", "1"];
    run_ok("frames", Path::new(&mesh), &args, &dir.join("out/walk_{dirname}_{frame:02}.png"));
    let data = read_json(&dir.join("out/walk.json"));
    let frames = data["frames"].as_array().unwrap();
    assert_eq!(frames.len(), 4 * 16);
    // The same job as a sheet: the same pivots, durations and grouping.
    let (sheet, _) = bake(&dir, "sheet", Path::new(&mesh), &args);
    for f in frames {
        assert!(dir.join("out").join(f["file"].as_str().unwrap()).is_file(), "{f}");
        let name = format!("{}_{:03}", f["animation"].as_str().unwrap(), f["frame"].as_u64().unwrap());
        let s = &sheet["frames"][&name];
        let pivot = [s["pivot"]["x"].as_f64().unwrap() * 32.0, s["pivot"]["y"].as_f64().unwrap() * 32.0];
        assert!((f["pivot"]["x"].as_f64().unwrap() - pivot[0]).abs() < 1e-3, "{name}: {f} {s}");
        assert!((f["pivot"]["y"].as_f64().unwrap() - pivot[1]).abs() < 1e-3, "{name}: {f} {s}");
        assert_eq!(f["duration"], s["duration"], "{name}");
        assert_eq!(f["size"], serde_json::json!({"w": 32, "h": 32}));
    }
    let walk = &data["animations"]["walk_S"];
    assert_eq!(
        (walk["loop"].as_bool(), walk["ms"].as_u64(), walk["fps"].as_f64()),
        (Some(true), Some(1000), Some(16.0))
    );
    let indices: Vec<u64> = walk["frames"].as_array().unwrap().iter().map(|i| i.as_u64().unwrap()).collect();
    assert_eq!(indices, (0..16).collect::<Vec<u64>>());
    assert_eq!(data["meta"]["directions"], sheet["meta"]["directions"]);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn pixi_phaser_and_godot3_draw_mirrored_directions_as_their_sources_flipped() {
    let dir = scratch_in("engine_play", "mirror");
    let model = PathBuf::from(robot("robot.md5mesh"));
    let anim = robot("walk.md5anim");
    let args = ["--anim", anim.as_str(), "--directions", "8", "--mirror", "--size", "32", "--frames", "4", "--trim"];
    let mirrored = [("NE", "NW"), ("E", "W"), ("SE", "SW")];
    if let Some(node) = engines::node() {
        let png = sheet(&dir, "walk", &model, &[&args[..], &["--json-format", "phaser"]].concat());
        let json = png.with_extension("json");
        // PixiJS: each mirrored frame is its source's rectangle and anchor, and says flipX.
        let (ok, pixi) = node.run_script(&engines::own_script("pixi_multipack.cjs"), &[json.as_os_str()]);
        assert!(ok, "PixiJS: {pixi}");
        assert_eq!(pixi["cached"], 8 * 4, "every direction's frames are in Pixi's cache");
        for (shown, source) in mirrored {
            assert_eq!(pixi["joined"][format!("walk_{shown}")].as_array().map(Vec::len), Some(4), "{shown}");
            // The engine guide's snippet says which animations to flip.
            assert_eq!(
                (&pixi["flipped"][format!("walk_{shown}")], &pixi["flipped"][format!("walk_{source}")]),
                (&true.into(), &false.into())
            );
            for f in 0..4 {
                let (this, that) =
                    (&pixi["frames"][format!("walk_{shown}_{f:03}")], &pixi["frames"][format!("walk_{source}_{f:03}")]);
                assert_eq!(
                    (&this["page"], &this["frame"], &this["anchor"]),
                    (&that["page"], &that["frame"], &that["anchor"])
                );
                assert_eq!((&this["flipX"], &that["flipX"]), (&true.into(), &false.into()), "{shown} {f}");
            }
        }
        // Phaser: the atlas parser keeps flipX with each frame, whose own pivot makes setFlipX
        // flip it about the pivot; the animations of the mirrored directions are all flipped.
        let anims = json.with_extension("anims.json");
        let script = engines::own_script("phaser_data.cjs");
        let (ok, built) = node.run_script(&script, &["anims".as_ref(), json.as_os_str(), anims.as_os_str()]);
        assert!(ok && built["missing"] == 0, "Phaser: {built}");
        for anim in built["anims"].as_array().unwrap() {
            let key = anim["key"].as_str().unwrap();
            let flipped = mirrored.iter().any(|(shown, _)| key == format!("walk_{shown}"));
            assert_eq!(anim["flipX"], if flipped { 4 } else { 0 }, "{key}");
            assert_eq!(anim["customPivot"], 4, "{key}");
        }
    }
    if let Some(godot) = engines::godot3() {
        // Godot 3: the scene's node flips the mirrored animations and turns its offset over, so
        // the pivot stays at its origin; it flips back for a rendered one.
        let png = sheet(&dir, "walk3", &model, &[&args[..], &["--json-format", "godot3"]].concat());
        let (tres, tscn) = (png.with_extension("tres"), png.with_extension("tscn"));
        let pair = |v: &Value| [v[0].as_f64().unwrap(), v[1].as_f64().unwrap()];
        let rendered = engines::godot3_scene(&godot, &dir, &tscn, &[&tres, &png], Some("walk_NW"));
        let shown = engines::godot3_scene(&godot, &dir, &tscn, &[&tres, &png], Some("walk_NE"));
        assert_eq!((&rendered["animation"], &rendered["flip_h"]), (&"walk_NW".into(), &false.into()), "{rendered}");
        assert_eq!((&shown["animation"], &shown["flip_h"]), (&"walk_NE".into(), &true.into()), "{shown}");
        let (offset, flipped_offset) = (pair(&rendered["offset"]), pair(&shown["offset"]));
        assert!(offset[0] < 0.0 && flipped_offset == [-offset[0], offset[1]], "{offset:?} {flipped_offset:?}");
    }
    std::fs::remove_dir_all(dir).unwrap();
}
