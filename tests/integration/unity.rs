//! `--json-format unity` (issue 47, item 1): each page's `.meta` and each tag's `.anim`,
//! parsed as YAML and checked against real files the Unity editor wrote
//! (`tests/fixtures/unity/`, sources in its README) for their fields, and against the
//! TexturePacker JSON of the same bake for every frame's rectangle, pivot, timing and
//! looping; multipage sheets, points, ids that survive a re-bake, and a bake project.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use yaml_rust2::{Yaml, YamlLoader};

use crate::common::cli::{names_in, printed, scratch_in};
use crate::common::robot;

/// The robot's walk in 4 directions, trimmed, with a transition row (plays once), at 24 px.
const ROBOT: &[&str] = &["--directions", "4", "--trim", "--transition", "walk->walk:0.3", "--size", "24"];

/// Bakes the robot's walk as `png` with `args`.
fn bake(png: &Path, args: &[&str]) {
    let (mesh, anim) = (robot("robot.md5mesh"), robot("walk.md5anim"));
    let o = Command::new(env!("CARGO_BIN_EXE_spritebake"))
        .args(["sheet", &mesh, "--anim", &anim, "--ssaa", "1", "--quiet", "-o"])
        .arg(png)
        .args(args)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", printed(&o));
}

fn json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// A Unity YAML file's one document. Unity's `%TAG !u!` directive and `--- !u!74 &7400000`
/// header are read as they are: a YAML 1.1 tag and anchor on the document's mapping.
fn yaml(path: &Path) -> Yaml {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut docs = YamlLoader::load_from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(docs.len(), 1, "{}", path.display());
    docs.remove(0)
}

fn fixture(name: &str) -> Yaml {
    yaml(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/unity").join(name))
}

/// A mapping key or scalar as text (`213`, `walk_S_000`).
fn text(v: &Yaml) -> String {
    match v {
        Yaml::String(s) | Yaml::Real(s) => s.clone(),
        Yaml::Integer(i) => i.to_string(),
        other => panic!("not a scalar: {other:?}"),
    }
}

fn number(v: &Yaml) -> f64 {
    v.as_f64().or_else(|| v.as_i64().map(|i| i as f64)).unwrap_or_else(|| panic!("not a number: {v:?}"))
}

fn int(v: &Yaml) -> i64 {
    v.as_i64().unwrap_or_else(|| panic!("not an integer: {v:?}"))
}

/// Checks that `ours` has the fields of `reference` at every level: the same keys in each
/// mapping (except the mappings at `data`, keyed by names), a mapping, a list or a value where
/// the reference has one, and every list entry shaped as the reference's first.
fn same_fields(ours: &Yaml, reference: &Yaml, at: &str, data: &[&str]) {
    match (ours, reference) {
        (Yaml::Hash(a), Yaml::Hash(b)) => {
            if data.iter().any(|d| at.ends_with(d)) {
                return;
            }
            let keys = |h: &yaml_rust2::yaml::Hash| h.keys().map(text).collect::<BTreeSet<String>>();
            assert_eq!(keys(a), keys(b), "the fields of {at}");
            for (key, value) in b {
                same_fields(&a[key], value, &format!("{at}.{}", text(key)), data);
            }
        }
        (Yaml::Array(a), Yaml::Array(b)) => {
            if let Some(first) = b.first() {
                for (i, entry) in a.iter().enumerate() {
                    same_fields(entry, first, &format!("{at}[{i}]"), data);
                }
            }
        }
        (Yaml::Hash(_) | Yaml::Array(_), _) | (_, Yaml::Hash(_) | Yaml::Array(_)) => {
            panic!("{at}: {ours:?} where Unity writes {reference:?}")
        }
        _ => {}
    }
}

/// An object reference `{fileID: N, guid: G, type: 3}`: (N, G).
fn object(v: &Yaml) -> (i64, String) {
    assert_eq!(int(&v["type"]), 3, "an asset's sub-object: {v:?}");
    (int(&v["fileID"]), text(&v["guid"]))
}

/// What a page's `.meta` says of its sprites: its guid, and each sprite by name.
struct Meta {
    guid: String,
    sprites: BTreeMap<String, Sprite>,
}

/// A sprite of a `.meta`: its `internalID`, `rect` (x, y, width, height) and `pivot`.
struct Sprite {
    id: i64,
    rect: [i64; 4],
    pivot: (f64, f64),
}

/// Reads a page's `.meta`, checking it has the fields of Unity 2021.3's and that its three
/// lists of sprites agree.
fn read_meta(path: &Path) -> Meta {
    let meta = yaml(path);
    // Every field of Unity 2021.3's, in every sprite; the tables keyed by name excepted.
    same_fields(&meta, &fixture("spritesheet.png.meta"), "meta", &["nameFileIdTable"]);
    // The table of ids as Unity 2022.3 and 6 fill it.
    let table = meta["TextureImporter"]["internalIDToNameTable"].as_vec().unwrap();
    same_fields(
        &meta["TextureImporter"]["internalIDToNameTable"],
        &fixture("bullet-pieces.png.meta")["TextureImporter"]["internalIDToNameTable"],
        "internalIDToNameTable",
        &[],
    );
    let importer = &meta["TextureImporter"];
    assert_eq!((int(&importer["spriteMode"]), int(&importer["textureType"])), (2, 8), "Multiple sprites");
    let guid = text(&meta["guid"]);
    assert!(guid.len() == 32 && guid.chars().all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()), "{guid}");
    let mut sprites = BTreeMap::new();
    for s in importer["spriteSheet"]["sprites"].as_vec().unwrap() {
        let (name, id) = (text(&s["name"]), int(&s["internalID"]));
        assert_ne!(id, 0, "{name}");
        assert_eq!(int(&s["alignment"]), 9, "{name}: a custom pivot");
        let border = &s["border"];
        assert_eq!(["x", "y", "z", "w"].map(|k| int(&border[k])), [0; 4], "{name}");
        let r = &s["rect"];
        let rect = ["x", "y", "width", "height"].map(|k| int(&r[k]));
        let pivot = (number(&s["pivot"]["x"]), number(&s["pivot"]["y"]));
        assert!(sprites.insert(name.clone(), Sprite { id, rect, pivot }).is_none(), "{name} twice");
    }
    // nameFileIdTable and internalIDToNameTable name the same sprites with the same ids.
    let by_name: BTreeMap<String, i64> =
        importer["spriteSheet"]["nameFileIdTable"].as_hash().unwrap().iter().map(|(k, v)| (text(k), int(v))).collect();
    let by_table: BTreeMap<String, i64> =
        table.iter().map(|e| (text(&e["second"]), int(&e["first"].as_hash().unwrap()[&Yaml::Integer(213)]))).collect();
    let ids: BTreeMap<String, i64> = sprites.iter().map(|(n, s)| (n.clone(), s.id)).collect();
    assert_eq!(by_name, ids);
    assert_eq!(by_table, ids);
    assert_eq!(ids.values().collect::<BTreeSet<_>>().len(), ids.len(), "internalIDs are unique");
    Meta { guid, sprites }
}

/// Checks every sprite of `metas` (one per page, with each page's height) against the
/// TexturePacker JSON `tp` of the same layout: y from the page's bottom, the pivot the same
/// point of the untrimmed frame.
fn check_sprites(metas: &[(Meta, u32)], tp_frames: &serde_json::Map<String, Value>) {
    let mut seen = 0;
    for (meta, page_h) in metas {
        for (name, Sprite { rect: [x, y, w, h], pivot: (px, py), .. }) in &meta.sprites {
            let f = &tp_frames[name];
            let n = |v: &Value, k: &str| v[k].as_f64().unwrap();
            let (frame, source, size) = (&f["frame"], &f["spriteSourceSize"], &f["sourceSize"]);
            assert_eq!([*x, *w, *h], [n(frame, "x"), n(frame, "w"), n(frame, "h")].map(|v| v as i64), "{name}");
            assert_eq!(*y as f64, f64::from(*page_h) - n(frame, "y") - n(frame, "h"), "{name}: y from the bottom");
            // The pivot in pixels of the untrimmed frame (TexturePacker's, from the top-left),
            // then of the kept rectangle from its bottom-left.
            let pivot_x = (n(&f["pivot"], "x") * n(size, "w") * 100.0).round() / 100.0;
            let pivot_top = (n(&f["pivot"], "y") * n(size, "h") * 100.0).round() / 100.0;
            let expected =
                ((pivot_x - n(source, "x")) / *w as f64, (n(source, "y") + *h as f64 - pivot_top) / *h as f64);
            assert!(
                (px - expected.0).abs() < 1e-5 && (py - expected.1).abs() < 1e-5,
                "{name}: {px},{py} vs {expected:?}"
            );
            seen += 1;
        }
    }
    assert_eq!(seen, tp_frames.len(), "every frame is a sprite");
}

/// Checks the clips beside `png` (one per TexturePacker animation of `tp`, named after it):
/// their fields are Unity's, every key is at its frame's start and names its sprite in the
/// texture of the page it is on, and the clip's rate, length and looping are the sheet's.
fn check_clips(png: &Path, tp: &Value, metas: &[(Meta, u32)]) {
    let reference = fixture("playerIdle.anim");
    // Where each frame's sprite is: its internalID and its page's guid.
    let sprites: HashMap<&str, (i64, &str)> =
        metas.iter().flat_map(|(m, _)| m.sprites.iter().map(|(n, s)| (n.as_str(), (s.id, m.guid.as_str())))).collect();
    let stem = png.file_stem().unwrap().to_string_lossy();
    for (tag, names) in tp["animations"].as_object().unwrap() {
        let file = png.with_file_name(format!("{stem}_{}.anim", tag.replace("->", "-to-")));
        let clip = yaml(&file);
        same_fields(&clip, &reference, "anim", &[]);
        let clip = &clip["AnimationClip"];
        assert_eq!(text(&clip["m_Name"]), file.file_stem().unwrap().to_string_lossy(), "named after its file");
        let curves = clip["m_PPtrCurves"].as_vec().unwrap();
        assert_eq!(curves.len(), 1, "{tag}");
        let curve = &curves[0];
        assert_eq!(
            (text(&curve["attribute"]), int(&curve["classID"]), curve["path"].is_null()),
            ("m_Sprite".to_string(), 212, true),
            "{tag}: a SpriteRenderer's sprite on the clip's own object"
        );
        let keys = curve["curve"].as_vec().unwrap();
        let names: Vec<&str> = names.as_array().unwrap().iter().map(|n| n.as_str().unwrap()).collect();
        assert_eq!(keys.len(), names.len(), "{tag}");
        let mut start_ms = 0.0;
        for (key, name) in keys.iter().zip(&names) {
            let (id, guid) = sprites[name];
            assert_eq!(object(&key["value"]), (id, guid.to_string()), "{tag}: {name} resolves to its sprite");
            // TexturePacker's whole milliseconds are rounded where each frame ends.
            assert!((number(&key["time"]) * 1000.0 - start_ms).abs() <= 0.51, "{tag}: {name} starts at {start_ms} ms");
            start_ms += tp["frames"][name]["duration"].as_f64().unwrap();
        }
        let mapping: Vec<(i64, String)> =
            clip["m_ClipBindingConstant"]["pptrCurveMapping"].as_vec().unwrap().iter().map(object).collect();
        assert_eq!(mapping, keys.iter().map(|k| object(&k["value"])).collect::<Vec<_>>(), "{tag}");
        let binding = &clip["m_ClipBindingConstant"]["genericBindings"][0];
        assert_eq!((int(&binding["typeID"]), int(&binding["isPPtrCurve"])), (212, 1), "{tag}");
        let playback = &tp["meta"]["playback"][tag];
        assert!((number(&clip["m_SampleRate"]) - playback["fps"].as_f64().unwrap()).abs() < 1e-3, "{tag}");
        let settings = &clip["m_AnimationClipSettings"];
        assert!((number(&settings["m_StopTime"]) * 1000.0 - playback["ms"].as_f64().unwrap()).abs() <= 0.51, "{tag}");
        assert_eq!(int(&settings["m_LoopTime"]) == 1, playback["loop"].as_bool().unwrap(), "{tag}");
        assert_eq!(int(&settings["m_LoopTime"]) == 1, !tag.contains("->"), "{tag}: transitions play once");
    }
}

#[test]
fn unity_meta_and_clips_have_unitys_fields_and_match_the_sheet_frame_for_frame() {
    let dir = scratch_in("unity", "sheet");
    let tp_png = dir.join("tp.png");
    bake(&tp_png, ROBOT);
    let tp = json(&tp_png.with_extension("json"));
    let png = dir.join("walk.png");
    bake(&png, &[ROBOT, &["--json-format", "unity"]].concat());
    assert_eq!(std::fs::read(&png).unwrap(), std::fs::read(&tp_png).unwrap(), "the image does not depend on the data");
    let clips = ["walk_walk-to-walk_E", "walk_walk-to-walk_N", "walk_walk-to-walk_S", "walk_walk-to-walk_W"];
    let clips = clips.iter().chain(&["walk_walk_E", "walk_walk_N", "walk_walk_S", "walk_walk_W"]);
    let mut expected: Vec<String> = clips.map(|c| format!("{c}.anim")).collect();
    expected.extend(["tp.json", "tp.png", "walk.png", "walk.png.meta"].map(String::from));
    expected.sort();
    assert_eq!(names_in(&dir), expected);
    let page_h = tp["meta"]["size"]["h"].as_u64().unwrap() as u32;
    let metas = vec![(read_meta(&dir.join("walk.png.meta")), page_h)];
    let importer = &yaml(&dir.join("walk.png.meta"))["TextureImporter"];
    assert_eq!(number(&importer["spritePixelsToUnits"]), 100.0, "Unity's default without a fixed scale");
    assert_eq!(int(&importer["textureSettings"]["filterMode"]), 1, "bilinear, not pixel art");
    check_sprites(&metas, tp["frames"].as_object().unwrap());
    check_clips(&png, &tp, &metas);
    // A rerun writes the same bytes.
    let before: Vec<Vec<u8>> = names_in(&dir).iter().map(|n| std::fs::read(dir.join(n)).unwrap()).collect();
    bake(&png, &[ROBOT, &["--json-format", "unity"]].concat());
    let after: Vec<Vec<u8>> = names_in(&dir).iter().map(|n| std::fs::read(dir.join(n)).unwrap()).collect();
    assert!(before == after, "a rerun changed a file");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn each_page_has_its_own_meta_and_guid_and_each_key_names_its_pages_texture() {
    let dir = scratch_in("unity", "pages");
    let args = ["--directions", "4", "--size", "24", "--max-size", "120x240"];
    let tp_png = dir.join("tp.png");
    bake(&tp_png, &args);
    let png = dir.join("walk.png");
    bake(&png, &[&args[..], &["--json-format", "unity"]].concat());
    assert!(!png.exists() && !dir.join("walk.png.meta").exists(), "two pages expected");
    let mut metas = Vec::new();
    let mut frames = serde_json::Map::new();
    let mut animations = serde_json::Map::new();
    let mut playback = serde_json::Map::new();
    for page in 0.. {
        let (image, tp_page) = (dir.join(format!("walk-{page}.png")), dir.join(format!("tp-{page}.json")));
        if !image.exists() {
            break;
        }
        let tp = json(&tp_page);
        frames.extend(tp["frames"].as_object().unwrap().clone());
        playback.extend(tp["meta"]["playback"].as_object().unwrap().clone());
        // An animation spread over pages is listed in part on each.
        for (tag, names) in tp["animations"].as_object().unwrap() {
            let all = animations.entry(tag.clone()).or_insert_with(|| Value::Array(Vec::new()));
            all.as_array_mut().unwrap().extend(names.as_array().unwrap().iter().cloned());
        }
        let h = tp["meta"]["size"]["h"].as_u64().unwrap() as u32;
        metas.push((read_meta(&PathBuf::from(format!("{}.meta", image.display()))), h));
    }
    assert!(metas.len() >= 2, "{} pages", metas.len());
    let guids: BTreeSet<&str> = metas.iter().map(|(m, _)| m.guid.as_str()).collect();
    assert_eq!(guids.len(), metas.len(), "a guid per page");
    check_sprites(&metas, &frames);
    // Every animation's frames, in sheet order, against the keys of its clip.
    for names in animations.values_mut() {
        names.as_array_mut().unwrap().sort_by_key(|n| n.as_str().unwrap().to_string());
    }
    let tp = serde_json::json!({"frames": frames, "animations": animations, "meta": {"playback": playback}});
    check_clips(&png, &tp, &metas);
    // Some clip refers to a second page's texture.
    let later = &metas[1].0.guid;
    let any = names_in(&dir)
        .iter()
        .filter(|n| n.ends_with(".anim"))
        .any(|n| std::fs::read_to_string(dir.join(n)).unwrap().contains(later.as_str()));
    assert!(any, "no clip plays a frame of the second page");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn points_for_unity_are_in_the_sprites_local_units_from_its_pivot() {
    let dir = scratch_in("unity", "points");
    let args = [ROBOT, &["--view", "iso", "--pixels-per-unit", "0.3", "--points", "forearm_R,head"]].concat();
    let tp_png = dir.join("tp.png");
    bake(&tp_png, &args);
    let tp = json(&tp_png.with_extension("json"));
    let png = dir.join("walk.png");
    bake(&png, &[&args[..], &["--json-format", "unity"]].concat());
    let importer = &yaml(&dir.join("walk.png.meta"))["TextureImporter"];
    assert_eq!(number(&importer["spritePixelsToUnits"]), 0.3, "the job's scale");
    let points = json(&dir.join("walk.points.json"));
    assert_eq!(points["pixelsPerUnit"], 0.3);
    assert_eq!(points["points"], serde_json::json!(["forearm_R", "head"]));
    let frames = points["frames"].as_array().unwrap();
    assert_eq!(frames.len(), tp["frames"].as_object().unwrap().len());
    for frame in frames {
        let name = frame["name"].as_str().unwrap();
        let f = &tp["frames"][name];
        let n = |v: &Value, k: &str| v[k].as_f64().unwrap();
        let pivot = (
            (n(&f["pivot"], "x") * n(&f["sourceSize"], "w") * 100.0).round() / 100.0,
            (n(&f["pivot"], "y") * n(&f["sourceSize"], "h") * 100.0).round() / 100.0,
        );
        for (i, point) in ["forearm_R", "head"].iter().enumerate() {
            let at = &frame["points"][i];
            let px = &f["points"][point];
            let expected = ((n(px, "x") - pivot.0) / 0.3, (pivot.1 - n(px, "y")) / 0.3);
            assert!((n(at, "x") - expected.0).abs() < 1e-6 && (n(at, "y") - expected.1).abs() < 1e-6, "{name} {point}");
        }
        // The head is above the pivot (the feet), in units y up.
        assert!(frame["points"][1]["y"].as_f64().unwrap() > 1.0, "{name}");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn inside_a_unity_projects_assets_a_rebake_keeps_every_id_a_scene_refers_to() {
    let dir = scratch_in("unity", "ids");
    let ids = |png: &Path| {
        let meta = read_meta(&PathBuf::from(format!("{}.meta", png.display())));
        let ids: BTreeMap<String, i64> = meta.sprites.iter().map(|(n, s)| (n.clone(), s.id)).collect();
        (meta.guid, ids)
    };
    let small = ["--directions", "2", "--frames", "3", "--json-format", "unity", "--size", "16"];
    let hero = dir.join("Assets/Sprites/Hero/walk.png");
    bake(&hero, &small);
    let first = ids(&hero);
    // Other art (larger, pixel art, trimmed), the same asset: every reference holds.
    bake(&hero, &[&small[..6], &["--size", "32", "--pixel-art", "2", "--trim"]].concat());
    assert_eq!(ids(&hero), first);
    let importer = &yaml(&PathBuf::from(format!("{}.meta", hero.display())))["TextureImporter"];
    assert_eq!(int(&importer["textureSettings"]["filterMode"]), 0, "pixel art is sampled nearest");
    // Another asset of the same name, another guid; the same frames, the same sprite ids.
    let orc = dir.join("Assets/Sprites/Orc/walk.png");
    bake(&orc, &small);
    let other = ids(&orc);
    assert_ne!(other.0, first.0);
    assert_eq!(other.1, first.1);
    // Outside a project the guid comes from the file name and the frames.
    let loose = dir.join("out/walk.png");
    bake(&loose, &small);
    let loose_guid = ids(&loose).0;
    assert_ne!(loose_guid, first.0);
    bake(&loose, &[&small[2..], &["--directions", "4"]].concat());
    assert_ne!(ids(&loose).0, loose_guid, "other frames, another guid");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_bake_project_records_the_clips_and_removes_those_it_no_longer_writes() {
    use crate::project::{bake, project, removed, statuses};
    // Unity's clips, and GameMaker's strips: files named after the tags.
    let cases = [
        ("unity", vec!["walk.png.meta", "walk_walk_N.anim", "walk_walk_S.anim"], "walk_walk_N.anim"),
        (
            "gamemaker",
            vec!["spr_walk_walk_N_strip2.png", "spr_walk_walk_S_strip2.png", "walk.gml"],
            "spr_walk_walk_N_strip2.png",
        ),
    ];
    for (format, files, north) in cases {
        let entry = |directions: u32| {
            format!(
                "[defaults]\nsize = 16\nssaa = 1\n[[sheet]]\nname = \"walk\"\nmodel = \"assets/robot/robot.md5mesh\"\n\
                 anim = [\"assets/robot/walk.md5anim\"]\nframes = 2\ndirections = {directions}\njson_format = \"{format}\"\n\
                 output = \"out/walk.png\"\n"
            )
        };
        let dir = project(format, &entry(2));
        let o = bake(&dir, &["spritebake.toml"]);
        assert_eq!(o.status.code(), Some(0), "{}", printed(&o));
        let mut all: Vec<&str> = files.iter().copied().chain(["walk.png"]).collect();
        all.sort();
        assert_eq!(names_in(&dir.join("out")), all, "{format}");
        // Its record is believed: the next run has nothing to do, and says nothing of it.
        let o = bake(&dir, &["spritebake.toml", "--json", "-"]);
        let (summary, text) = (serde_json::from_slice::<Value>(&o.stdout).unwrap(), printed(&o));
        assert!(statuses(&summary).values().all(|s| s == "up-to-date") && !text.contains("warning:"), "{text}");
        // One direction: the north one goes.
        std::fs::write(dir.join("spritebake.toml"), entry(1)).unwrap();
        let o = bake(&dir, &["spritebake.toml", "--json", "-"]);
        let summary: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", printed(&o)));
        assert_eq!(removed(&summary, "walk"), BTreeSet::from([format!("out/{north}")]), "{format}");
        all.retain(|f| *f != north);
        assert_eq!(names_in(&dir.join("out")), all, "{format}");
        std::fs::remove_dir_all(dir).unwrap();
    }
}

#[test]
fn a_mirrored_directions_clip_keys_its_source_sprites_and_flips_the_renderer() {
    let dir = scratch_in("unity", "mirror");
    let png = dir.join("walk.png");
    let args = ["--directions", "8", "--mirror", "--frames", "4", "--size", "24", "--json-format", "unity"];
    // A mirrored direction's clip is planned with the others: a folder in its place is refused
    // before anything is written.
    std::fs::create_dir_all(dir.join("walk_walk_SE.anim/keep")).unwrap();
    let (mesh, anim) = (robot("robot.md5mesh"), robot("walk.md5anim"));
    let o = Command::new(env!("CARGO_BIN_EXE_spritebake"))
        .args(["sheet", &mesh, "--anim", &anim, "-o"])
        .arg(&png)
        .args(args)
        .output()
        .unwrap();
    assert!(printed(&o).contains("walk_walk_SE.anim: exists and is a folder"), "{}", printed(&o));
    assert_eq!(names_in(&dir), ["walk_walk_SE.anim"]);
    std::fs::remove_dir_all(dir.join("walk_walk_SE.anim")).unwrap();
    bake(&png, &args);
    let meta = read_meta(&dir.join("walk.png.meta"));
    let id_of: HashMap<i64, &Sprite> = meta.sprites.values().map(|s| (s.id, s)).collect();
    for (shown, source, flipped) in [("NE", "NW", 1), ("E", "W", 1), ("SE", "SW", 1), ("NW", "NW", 0), ("S", "S", 0)] {
        let clip = yaml(&dir.join(format!("walk_walk_{shown}.anim")));
        let clip = &clip["AnimationClip"];
        // One float curve, m_FlipX on the SpriteRenderer, constant for the clip; the same in
        // the editor's curves; bound beside the sprite curve.
        for curves in ["m_FloatCurves", "m_EditorCurves"] {
            let curve = &clip[curves].as_vec().unwrap()[0];
            assert_eq!((text(&curve["attribute"]), int(&curve["classID"])), ("m_FlipX".into(), 212), "{shown}");
            let keys = curve["curve"]["m_Curve"].as_vec().unwrap();
            assert_eq!((keys.len(), number(&keys[0]["value"])), (1, f64::from(flipped)), "{shown} {curves}");
        }
        let bindings = clip["m_ClipBindingConstant"]["genericBindings"].as_vec().unwrap();
        let attributes: Vec<i64> = bindings.iter().map(|b| int(&b["attribute"])).collect();
        assert_eq!(attributes, [555744692, 0], "{shown}: CRC-32 of m_FlipX, then the sprite");
        // Each key's sprite has its source direction's frame's rectangle and pivot.
        let keys = clip["m_PPtrCurves"][0]["curve"].as_vec().unwrap();
        assert_eq!(keys.len(), 4, "{shown}");
        for (f, key) in keys.iter().enumerate() {
            let (id, guid) = object(&key["value"]);
            assert_eq!(guid, meta.guid);
            let (sprite, own) = (id_of[&id], &meta.sprites[&format!("walk_{source}_{f:03}")]);
            assert_eq!((sprite.rect, sprite.pivot), (own.rect, own.pivot), "{shown} {f}");
        }
    }
    std::fs::remove_dir_all(dir).unwrap();
}
