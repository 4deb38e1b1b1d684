//! Sheets as the game engines read them: the JSON a `sheet` writes goes through PixiJS's and
//! Phaser's own parsers (node) and Godot's resource loader (headless), and every frame and
//! animation must come out (see [`common::engines`] for when these skip).

use std::path::{Path, PathBuf};

use crate::common::cli::{printed, scratch_in};
use crate::common::engines;
use crate::common::robot;

/// `spritebake sheet` of the robot's walk in `dir` with `args` (at 24 px): the JSON's path
/// and contents.
fn robot_sheet(dir: &Path, name: &str, args: &[&str]) -> (PathBuf, serde_json::Value) {
    let png = dir.join(format!("{name}.png"));
    let (mesh, anim) = (robot("robot.md5mesh"), robot("walk.md5anim"));
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_spritebake"))
        .args(["sheet", &mesh, "--anim", &anim, "--size", "24", "--ssaa", "1", "--quiet", "-o"])
        .arg(&png)
        .args(args)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", printed(&o));
    let json = png.with_extension("json");
    let value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    (json, value)
}

#[test]
fn a_texturepacker_sheet_loads_in_pixi_and_phaser_with_every_frame_and_animation() {
    let Some(node) = engines::node() else { return };
    let dir = scratch_in("engines", "texturepacker");
    let (json, sheet) = robot_sheet(&dir, "walk", &["--directions", "4", "--trim"]);
    let frames = sheet["frames"].as_object().unwrap().len();
    let animations = sheet["animations"].as_object().unwrap().len();
    assert!(frames > 4 && animations == 4, "{frames} frames, {animations} animations");

    let (ok, pixi) = node.check("pixi_check.mjs", &json);
    assert!(ok, "PixiJS: {pixi}");
    assert_eq!(pixi["frames"], frames, "PixiJS: {pixi}");
    assert_eq!(pixi["animations"], animations, "PixiJS: {pixi}");
    assert_eq!(pixi["firstAnimLength"], frames / 4, "PixiJS: {pixi}");

    let (ok, phaser) = node.check("phaser_check.cjs", &json);
    assert!(ok, "Phaser: {phaser}");
    assert_eq!(phaser["frames"], frames, "Phaser: {phaser}");
    // Trimmed frames are trimmed in Phaser too (a robot never fills its whole cell).
    assert_eq!(phaser["trimmed"], frames, "Phaser: {phaser}");
    std::fs::remove_dir_all(dir).unwrap();
}

/// Every frame number of an Aseprite-format sheet's tags, as `from..=to`.
fn tag_ranges(sheet: &serde_json::Value) -> Vec<(String, usize, usize)> {
    let tags = sheet["meta"]["frameTags"].as_array().unwrap();
    let at = |t: &serde_json::Value, k: &str| t[k].as_u64().unwrap() as usize;
    tags.iter().map(|t| (t["name"].as_str().unwrap().to_string(), at(t, "from"), at(t, "to"))).collect()
}

#[test]
fn an_aseprite_sheet_builds_every_tag_with_all_its_frames_in_phaser() {
    let Some(node) = engines::node() else { return };
    let dir = scratch_in("engines", "aseprite");
    let (json, sheet) = robot_sheet(&dir, "walk", &["--directions", "4", "--trim", "--json-format", "aseprite"]);
    let tags = tag_ranges(&sheet);
    assert_eq!(tags.len(), 4);

    // The shared script: Phaser's load.aseprite + createFromAseprite path.
    let (ok, phaser) = node.check("phaser_ase.cjs", &json);
    assert!(ok, "Phaser: {phaser}");
    assert_eq!(phaser["anims"], tags.len(), "Phaser: {phaser}");
    assert_eq!(phaser["first"]["frames"], tags[0].2 - tags[0].1 + 1, "Phaser: {phaser}");

    // Every tag, with each frame's name and duration (ours: tests/engines/phaser_data.cjs).
    let (ok, built) =
        node.run_script(&engines::own_script("phaser_data.cjs"), &["aseprite".as_ref(), json.as_os_str()]);
    assert!(ok, "Phaser: {built}");
    assert_eq!(built["missing"], 0, "frames Phaser could not find: {built}");
    let anims = built["anims"].as_array().unwrap();
    assert_eq!(anims.len(), tags.len());
    for (anim, (name, from, to)) in anims.iter().zip(&tags) {
        assert_eq!(anim["key"], name.as_str());
        let numbers: Vec<String> = (*from..=*to).map(|i| i.to_string()).collect();
        assert_eq!(anim["frameNames"], serde_json::json!(numbers), "{name}");
        // 1/16 s a frame in whole milliseconds, adding up to the walk's second.
        let durations = anim["frameDurations"].as_array().unwrap();
        assert!(durations.iter().all(|d| d == 63 || d == 62), "{name}: {anim}");
        assert_eq!(durations.iter().map(|d| d.as_u64().unwrap()).sum::<u64>(), 1000, "{name}: {anim}");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn phaser_builds_every_animation_of_the_anims_json_from_the_atlas() {
    let Some(node) = engines::node() else { return };
    let dir = scratch_in("engines", "phaser-anims");
    let args = ["--directions", "4", "--trim", "--transition", "walk->walk:0.3", "--json-format", "phaser"];
    let (json, atlas) = robot_sheet(&dir, "walk", &args);
    let anims = json.with_extension("anims.json");
    // The atlas is the TexturePacker hash: Phaser's atlas parser takes every frame.
    let (ok, parsed) = node.check("phaser_check.cjs", &json);
    assert!(ok && parsed["frames"] == atlas["frames"].as_object().unwrap().len(), "Phaser: {parsed}");

    let (ok, built) = node
        .run_script(&engines::own_script("phaser_data.cjs"), &["anims".as_ref(), json.as_os_str(), anims.as_os_str()]);
    assert!(ok, "Phaser: {built}");
    assert_eq!(built["missing"], 0, "frames Phaser could not find: {built}");
    let expected = atlas["animations"].as_object().unwrap();
    let built = built["anims"].as_array().unwrap();
    assert_eq!(built.len(), expected.len());
    assert_eq!(built.len(), 8, "4 walk directions and 4 of the transition");
    for anim in built {
        let key = anim["key"].as_str().unwrap();
        assert_eq!(&anim["frameNames"], &expected[key], "{key}");
        assert_eq!(anim["frameRate"], 16.0, "{key}");
        // Clips loop forever; a transition plays once.
        assert_eq!(anim["repeat"], if key.contains("->") { 0 } else { -1 }, "{key}");
        assert!(anim["frameDurations"].as_array().unwrap().iter().all(|d| d == 62.5), "{key}: {anim}");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn godot3_loads_the_godot3_resource_with_every_animation_and_frame() {
    let Some(godot) = engines::godot3() else { return };
    let dir = scratch_in("engines", "godot3");
    let args = ["--directions", "4", "--trim", "--transition", "walk->walk:0.3"];
    // The same bake as a TexturePacker JSON: what every frame should be.
    let (_, atlas) = robot_sheet(&dir, "tp", &args);
    let png = dir.join("walk.png");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_spritebake"))
        .args(["sheet", &robot("robot.md5mesh"), "--anim", &robot("walk.md5anim"), "--size", "24", "--ssaa", "1"])
        .args(args)
        .args(["--json-format", "godot3", "--quiet", "-o"])
        .arg(&png)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", printed(&o));
    let tres = png.with_extension("tres");
    let animations = atlas["animations"].as_object().unwrap();
    let frames = atlas["frames"].as_object().unwrap();

    // The shared check: Godot's own loader, every animation and frame counted.
    let seen = engines::godot3_load(&godot, &dir, &tres, std::slice::from_ref(&png)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(seen.animations, animations.len());
    assert_eq!(seen.frames, frames.len());
    assert_eq!(seen.first, "walk->walk_E", "Godot sorts the names");

    // Every frame as the game sees it, from a folder deeper than the project's root (the
    // sheet is named relative to the resource), with the sheet imported as the editor does.
    let godot_frames = engines::godot3_inspect(&godot, &dir, "sprites/robot", &tres, &[&png]);
    let size = spritebake::output::read_png(&png).unwrap();
    let seen = godot_frames["animations"].as_array().unwrap();
    assert_eq!(seen.len(), animations.len());
    for anim in seen {
        let name = anim["name"].as_str().unwrap();
        assert_eq!(anim["loop"], !name.contains("->"), "{name}");
        assert_eq!(anim["speed"], 16.0, "{name}");
        let names: Vec<&serde_json::Value> = anim["frames"].as_array().unwrap().iter().map(|f| &f["name"]).collect();
        assert_eq!(serde_json::json!(names), animations[name], "{name}");
        for f in anim["frames"].as_array().unwrap() {
            let tp = &frames[f["name"].as_str().unwrap()];
            let r = &tp["frame"];
            assert_eq!(f["region"], serde_json::json!([r["x"], r["y"], r["w"], r["h"]]), "{f}");
            // Trimmed, yet the untrimmed size, and drawn at its place in it.
            assert_eq!(f["size"], serde_json::json!([24, 24]), "{f}");
            let s = &tp["spriteSourceSize"];
            assert_eq!(f["margin"][0], s["x"], "{f}");
            assert_eq!(f["margin"][1], s["y"], "{f}");
            assert_eq!(f["atlas"], "res://sprites/robot/walk.png");
            assert_eq!(f["atlas_size"], serde_json::json!([size.width, size.height]), "the sheet loads as itself");
        }
    }
    std::fs::remove_dir_all(dir).unwrap();
}
