//! Sheets as the game engines read them: the JSON a `sheet` writes goes through PixiJS's and
//! Phaser's own parsers and loaders (node: Pixi's `Assets.load` of a multipack, Phaser's
//! `load.multiatlas`) and Godot's resource loader (headless), and every frame and animation
//! must come out (see [`common::engines`] for when these skip; the ogro tests also skip without
//! the corpus).

use std::path::{Path, PathBuf};

use crate::common::cli::{printed, scratch_in};
use crate::common::engines;
use crate::common::robot;

/// `spritebake sheet` of the robot's walk in `dir` with `args` (at 24 px): the JSON's path
/// and contents.
fn robot_sheet(dir: &Path, name: &str, args: &[&str]) -> (PathBuf, serde_json::Value) {
    let json = bake_robot_sheet(dir, name, args).with_extension("json");
    let value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    (json, value)
}

/// `spritebake sheet` of the robot's walk as `dir/NAME.png` with `args` (at 24 px): the PNG's
/// path.
fn bake_robot_sheet(dir: &Path, name: &str, args: &[&str]) -> PathBuf {
    let png = dir.join(format!("{name}.png"));
    let (mesh, anim) = (robot("robot.md5mesh"), robot("walk.md5anim"));
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_spritebake"))
        .args(["sheet", &mesh, "--anim", &anim, "--size", "24", "--ssaa", "1", "--quiet", "-o"])
        .arg(&png)
        .args(args)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", printed(&o));
    png
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

/// Every clip of ogro.md2 (as `spritebake info` lists them).
const OGRO_CLIPS: &str = "stand,run,attack,paina,painb,painc,jump,flip,salute_alt,bumflop,wavealt,sniffsniff,\
                          cstand,cwalk,crattack,crpain,crdeath,deatha,deathb,deathc,boom";

/// Frames of ogro's clips: 168 animations (21 clips, 8 directions).
const OGRO_FRAMES: usize = 1592;

/// `spritebake sheet` of ogro with every clip in 8 directions (256-pixel cells) on pages of at
/// most 1024x1024, in `dir` as `ogro.png`, with `args`; `None` (skip) without the corpus.
fn ogro_sheet(dir: &Path, args: &[&str]) -> Option<PathBuf> {
    let model = crate::common::corpus("md2/ogro")?.join("ogro.md2");
    let png = dir.join("ogro.png");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_spritebake"))
        .arg("sheet")
        .arg(&model)
        .args(["--anim", OGRO_CLIPS, "--directions", "8", "--max-size", "1024", "--ssaa", "1", "--quiet", "-o"])
        .arg(&png)
        .args(args)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", printed(&o));
    Some(png)
}

/// The JSON at `path`.
fn read_json(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Asserts that `frames` are the frames of animation `name` in order, as the default frame
/// names number them (`run_S_000`, `run_S_001`, ...).
fn assert_in_order(name: &str, frames: &[String]) {
    let numbered: Vec<String> = (0..frames.len()).map(|i| format!("{name}_{i:03}")).collect();
    assert_eq!(frames, numbered, "{name}: frames missing or out of order");
}

#[test]
fn pixi_loads_every_animation_of_a_multipage_sheet_whole_from_its_first_page() {
    use std::collections::BTreeMap;
    let dir = scratch_in("engines", "pixi-multipage");
    for pack in ["rows", "tight"] {
        let sub = dir.join(pack);
        std::fs::create_dir_all(&sub).unwrap();
        let Some(png) = ogro_sheet(&sub, &["--pack", pack]) else { return };
        let first = png.with_file_name("ogro-0.json");
        // What our JSON implies: the first page, then the pages its related_multi_packs name,
        // each animation the parts of it on them, page after page.
        let mut page_jsons = vec![read_json(&first)];
        let related = page_jsons[0]["meta"]["related_multi_packs"].as_array().unwrap().clone();
        page_jsons.extend(related.iter().map(|name| read_json(&sub.join(name.as_str().unwrap()))));
        let mut expected: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for page in &page_jsons {
            for (name, frames) in page["animations"].as_object().unwrap() {
                let frames = frames.as_array().unwrap().iter().map(|f| f.as_str().unwrap().to_string());
                expected.entry(name.clone()).or_default().extend(frames);
            }
        }
        assert_eq!(expected.len(), 168, "{pack}");
        assert_eq!(expected.values().map(Vec::len).sum::<usize>(), OGRO_FRAMES, "{pack}");
        for (name, frames) in &expected {
            assert_in_order(name, frames);
        }

        // PixiJS's Assets.load on the first page: the sheet and its linkedSheets.
        let Some(node) = engines::node() else { return };
        let (ok, pixi) = node.run_script(&engines::own_script("pixi_multipack.cjs"), &[first.as_os_str()]);
        assert!(ok, "PixiJS: {pixi}");
        let sheets = pixi["sheets"].as_array().unwrap();
        assert_eq!(sheets.len(), page_jsons.len(), "{pack}: every page loads");
        assert_eq!(pixi["cached"], OGRO_FRAMES, "{pack}: Assets.get finds every frame");
        // Each animation: where Pixi has its parts (sheet index and frames), in load order.
        let mut found: BTreeMap<String, Vec<(usize, Vec<String>)>> = BTreeMap::new();
        for (i, (sheet, page)) in sheets.iter().zip(&page_jsons).enumerate() {
            assert_eq!(sheet["image"], page["meta"]["image"], "{pack}: sheet {i} is not page {i}");
            for (name, textures) in sheet["animations"].as_object().unwrap() {
                let frames: Vec<String> = textures
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|t| {
                        t.as_str().unwrap_or_else(|| panic!("{pack}: {name} has a frame Pixi did not find")).into()
                    })
                    .collect();
                found.entry(name.clone()).or_default().push((i, frames));
            }
        }
        // A page holds 3x3 cells of 256 px (258 with padding in 1022): an animation of up
        // to 9 frames is whole in one sheet; a longer one is its parts sheet after sheet.
        let mut whole = 0;
        for (name, frames) in &expected {
            let parts = &found[name];
            let joined: Vec<String> = parts.iter().flat_map(|(_, f)| f.clone()).collect();
            assert_eq!(&joined, frames, "{pack}: {name} as Pixi has it, sheet after sheet");
            assert_eq!(pixi["joined"][name], serde_json::json!(frames), "{pack}: {name} as the sheet guide joins it");
            // The first page's data says how every animation plays, wherever its frames are.
            let playback = &pixi["playback"][name];
            assert!(playback["fps"].as_f64().is_some_and(|f| f > 0.0), "{pack}: {name} plays as {playback}");
            assert_eq!(playback["loop"], true, "{pack}: {name} plays as {playback}");
            if frames.len() <= 9 {
                assert_eq!(parts.len(), 1, "{pack}: {name} ({} frames) is split over sheets {parts:?}", frames.len());
                whole += 1;
            }
        }
        assert_eq!(whole, 112, "{pack}: 14 clips of at most 9 frames, 8 directions");
        assert_eq!(pixi["joined"].as_object().unwrap().len(), 168, "{pack}");
        eprintln!("{pack}: {} pages; PixiJS has {} of 168 animations whole in one sheet", sheets.len(), whole);
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn phaser_loads_a_multipage_multiatlas_and_builds_every_animation_from_the_one_key() {
    let dir = scratch_in("engines", "phaser-multiatlas");
    let args = ["--pack", "tight", "--trim", "--maps", "normal", "--json-format", "phaser-multiatlas"];
    let Some(png) = ogro_sheet(&dir, &args) else { return };
    let (atlas_path, anims_path) = (png.with_extension("json"), png.with_extension("anims.json"));
    let atlas = read_json(&atlas_path);
    let textures = atlas["textures"].as_array().unwrap();
    assert!(textures.len() > 1, "{} pages", textures.len());
    // One JSON for the sheet: no page has a JSON of its own.
    let names = crate::common::cli::names_in(&dir);
    assert!(!names.iter().any(|n| n.starts_with("ogro-") && n.ends_with(".json")), "{names:?}");
    // Each frame's own duration, from the multi-atlas.
    let durations: std::collections::BTreeMap<&str, f64> = textures
        .iter()
        .flat_map(|t| t["frames"].as_array().unwrap())
        .map(|f| (f["filename"].as_str().unwrap(), f["duration"].as_f64().unwrap()))
        .collect();
    assert_eq!(durations.len(), OGRO_FRAMES);

    let Some(node) = engines::node() else { return };
    let script = engines::own_script("phaser_data.cjs");
    let (ok, built) =
        node.run_script(&script, &["multiatlas".as_ref(), atlas_path.as_os_str(), anims_path.as_os_str()]);
    assert!(ok, "Phaser: {built}");
    assert_eq!(built["textureKey"], "ogro");
    assert_eq!(
        (built["sources"].as_u64(), built["normalMaps"].as_u64()),
        (Some(textures.len() as u64), Some(textures.len() as u64))
    );
    assert_eq!(built["textureFrames"], OGRO_FRAMES);
    assert_eq!(built["missing"], 0, "frames Phaser could not find: {built}");
    let anims = built["anims"].as_array().unwrap();
    assert_eq!(anims.len(), 168);
    let mut used = 0;
    for anim in anims {
        let key = anim["key"].as_str().unwrap();
        let frames: Vec<String> =
            anim["frameNames"].as_array().unwrap().iter().map(|f| f.as_str().unwrap().into()).collect();
        assert_in_order(key, &frames);
        let own: Vec<f64> = frames.iter().map(|f| durations[f.as_str()]).collect();
        let played: Vec<f64> = anim["frameDurations"].as_array().unwrap().iter().map(|d| d.as_f64().unwrap()).collect();
        assert_eq!(played, own, "{key}: durations");
        assert!(played.iter().all(|&d| d == 100.0), "{key}: ogro plays at 10 fps");
        assert_eq!(anim["repeat"], -1, "{key}");
        used += frames.len();
    }
    assert_eq!(used, OGRO_FRAMES, "every frame is in one animation");
    eprintln!(
        "Phaser multiatlas: {} pages under one key, {} animations, 0 frames missing",
        textures.len(),
        anims.len()
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_one_page_phaser_multiatlas_is_one_texture_that_phaser_loads_whole() {
    let Some(node) = engines::node() else { return };
    let dir = scratch_in("engines", "phaser-multiatlas-one");
    let (json, atlas) =
        robot_sheet(&dir, "walk", &["--directions", "4", "--trim", "--json-format", "phaser-multiatlas"]);
    let textures = atlas["textures"].as_array().unwrap();
    assert_eq!(textures.len(), 1);
    assert_eq!(textures[0]["image"], "walk.png");
    assert_eq!(crate::common::cli::names_in(&dir), ["walk.anims.json", "walk.json", "walk.png"]);
    let anims = json.with_extension("anims.json");
    let (ok, built) = node.run_script(
        &engines::own_script("phaser_data.cjs"),
        &["multiatlas".as_ref(), json.as_os_str(), anims.as_os_str()],
    );
    assert!(ok, "Phaser: {built}");
    assert_eq!((built["sources"].as_u64(), built["textureFrames"].as_u64()), (Some(1), Some(64)));
    assert_eq!(built["missing"], 0, "{built}");
    assert_eq!(built["anims"].as_array().unwrap().len(), 4);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn spines_atlas_reader_reads_every_region_of_a_multipage_libgdx_atlas() {
    use std::collections::BTreeMap;
    let Some(spine) = engines::spine() else { return };
    let dir = scratch_in("engines", "libgdx");
    // Trimmed, a transition that plays once, small pages so that the sheet spans several.
    let args = ["--directions", "4", "--trim", "--transition", "walk->walk:0.3", "--max-size", "64"];
    let first = bake_robot_sheet(&dir, "tp", &[&args[..], &["--json-format", "texturepacker"]].concat());
    let first = first.with_file_name("tp-0.json");
    bake_robot_sheet(&dir, "gdx", &[&args[..], &["--json-format", "libgdx"]].concat());
    // The TexturePacker JSON of the same bake, page after page: each frame's page, rectangle,
    // trim and duration, by (animation, number in it) from its default name (`walk_S_003`).
    let mut pages = vec![read_json(&first)];
    let related = pages[0]["meta"]["related_multi_packs"].as_array().cloned().unwrap_or_default();
    pages.extend(related.iter().map(|name| read_json(&dir.join(name.as_str().unwrap()))));
    assert!(pages.len() >= 3, "{} pages", pages.len());
    let mut expected = BTreeMap::new();
    for (i, page) in pages.iter().enumerate() {
        let image = page["meta"]["image"].as_str().unwrap().replacen("tp", "gdx", 1);
        for (name, f) in page["frames"].as_object().unwrap() {
            let (tag, number) = name.rsplit_once('_').unwrap();
            let (frame, trim, source) = (&f["frame"], &f["spriteSourceSize"], &f["sourceSize"]);
            let n = |v: &serde_json::Value, k: &str| v[k].as_i64().unwrap();
            let region = serde_json::json!({
                "name": tag, "page": image, "x": n(frame, "x"), "y": n(frame, "y"),
                "width": n(frame, "w"), "height": n(frame, "h"),
                // libGDX measures from the bottom: the transparent rows trimmed below.
                "offsetX": n(trim, "x"), "offsetY": n(source, "h") - n(trim, "y") - n(trim, "h"),
                "originalWidth": n(source, "w"), "originalHeight": n(source, "h"),
                "index": number.parse::<i64>().unwrap(), "degrees": 0, "duration": f["duration"],
            });
            expected.insert((tag.to_string(), number.parse::<usize>().unwrap()), (i, region));
        }
    }
    let (ok, read) = spine.check_own("libgdx_atlas.mjs", &dir.join("gdx.atlas"));
    assert!(ok, "spine-core: {read}");
    let read_pages = read["pages"].as_array().unwrap();
    assert_eq!(read_pages.len(), pages.len());
    for (page, tp) in read_pages.iter().zip(&pages) {
        assert_eq!(page["name"].as_str().unwrap(), tp["meta"]["image"].as_str().unwrap().replacen("tp", "gdx", 1));
        assert_eq!((&page["width"], &page["height"]), (&tp["meta"]["size"]["w"], &tp["meta"]["size"]["h"]));
        assert!(dir.join(page["name"].as_str().unwrap()).is_file(), "{page}");
    }
    let regions = read["regions"].as_array().unwrap();
    assert_eq!(regions.len(), expected.len());
    let mut trimmed = 0;
    for region in regions {
        let key = (region["name"].as_str().unwrap().to_string(), region["index"].as_u64().unwrap() as usize);
        let (_, want) = &expected[&key];
        let mut got = region.clone();
        let values = got.as_object_mut().unwrap().remove("values").unwrap();
        got["duration"] = values["duration"][0].clone();
        assert_eq!(&got, want, "{key:?}");
        assert_eq!(values["pivot"].as_array().map(Vec::len), Some(2), "{region}");
        trimmed += usize::from(got["width"] != got["originalWidth"]);
    }
    assert!(trimmed > 0, "no trimmed frame was tested");
    std::fs::remove_dir_all(dir).unwrap();
}
