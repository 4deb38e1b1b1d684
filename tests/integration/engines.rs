//! Sheets as the game engines read them: the JSON a `sheet` writes goes through PixiJS's and
//! Phaser's own parsers (node) and Godot's resource loader (headless), and every frame and
//! animation must come out (see [`common::engines`] for when these skip).

use std::path::{Path, PathBuf};

use crate::common::cli::{printed, scratch_in};
use crate::common::engines;

fn robot(file: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/assets/robot").join(file).to_string_lossy().into_owned()
}

/// `spritebake sheet` of the robot's walk in `dir` with `args`: the JSON's path and contents.
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
