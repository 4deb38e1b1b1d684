//! A sheet's engine data as written, checked without the engines (those are `engines::`):
//! Godot 4 and Godot 3 `SpriteFrames` resources parsed and cross-checked against the
//! TexturePacker JSON of the same bake, frame names from `--filename-format` in every format,
//! refusals, the data files in the output plan and in `check` goldens.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;
use spritebake::output::read_png;

use crate::common::cli::{assert_refused, names_in, printed, scratch_in};
use crate::common::robot;
use crate::common::tres::{self, Section, Variant};

/// The robot's walk in 4 directions, trimmed, with a transition row (plays once), at 24 px.
const ROBOT: &[&str] = &["--directions", "4", "--trim", "--transition", "walk->walk:0.3", "--size", "24"];

fn sheet(dir: &Path, name: &str, args: &[&str]) -> Output {
    let (mesh, anim) = (robot("robot.md5mesh"), robot("walk.md5anim"));
    Command::new(env!("CARGO_BIN_EXE_spritebake"))
        .args(["sheet", &mesh, "--anim", &anim, "--ssaa", "1", "--quiet", "-o"])
        .arg(dir.join(format!("{name}.png")))
        .args(args)
        .output()
        .unwrap()
}

/// Bakes `name.png` with `args` and returns the path of the PNG.
fn baked(dir: &Path, name: &str, args: &[&str]) -> PathBuf {
    let o = sheet(dir, name, args);
    assert!(o.status.success(), "{}", printed(&o));
    dir.join(format!("{name}.png"))
}

fn json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// A resource id as written: `"AtlasTexture_3"` (Godot 4) or `3` (Godot 3), as text.
fn id(v: &Variant) -> String {
    match v {
        Variant::Number(n) => n.to_string(),
        other => other.str().to_string(),
    }
}

/// The one argument of `SubResource(id)` / `ExtResource(id)`.
fn reference(v: &Variant, kind: &str) -> String {
    let (name, args) = v.call();
    assert_eq!((name, args.len()), (kind, 1), "{v:?}");
    id(&args[0])
}

/// Checks a `SpriteFrames` resource against the TexturePacker JSON of the same bake
/// (`tp`: same placements, names and animations) and the sheet image's size.
fn check_sprite_frames(text: &str, godot4: bool, tp: &Value, image: (u32, u32)) {
    let sections = tres::parse(text);
    let by_tag = |tag: &str| sections.iter().filter(move |s| s.tag == tag).collect::<Vec<&Section>>();
    let header = &sections[0];
    assert_eq!(header.tag, "gd_resource");
    assert_eq!(header.attribute("type").str(), "SpriteFrames");
    assert_eq!(header.attribute("format").number(), if godot4 { 3.0 } else { 2.0 });
    let (exts, subs, resources) = (by_tag("ext_resource"), by_tag("sub_resource"), by_tag("resource"));
    assert_eq!(sections.len(), 1 + exts.len() + subs.len() + resources.len(), "unexpected sections");
    // load_steps: every resource the file loads, and itself.
    assert_eq!(header.attribute("load_steps").number() as usize, exts.len() + subs.len() + 1);

    // One texture: the sheet, by a path relative to the resource.
    assert_eq!(exts.len(), 1);
    assert_eq!(exts[0].attribute("path").str(), "walk.png");
    assert_eq!(exts[0].attribute("type").str(), if godot4 { "Texture2D" } else { "Texture" });
    let ext_id = id(exts[0].attribute("id"));

    // One AtlasTexture per frame, ids unique, each the JSON frame of its name.
    let frames = tp["frames"].as_object().unwrap();
    assert_eq!(subs.len(), frames.len());
    let mut atlas = std::collections::HashMap::new();
    for sub in &subs {
        assert_eq!(sub.attribute("type").str(), "AtlasTexture");
        let name = sub.property("resource_name").str();
        let f = &frames[name];
        assert_eq!(reference(sub.property("atlas"), "ExtResource"), ext_id);
        let [x, y, w, h] = sub.property("region").rect();
        let rect = |v: &Value| [v["x"].as_i64(), v["y"].as_i64(), v["w"].as_i64(), v["h"].as_i64()].map(Option::unwrap);
        assert_eq!([x, y, w, h], rect(&f["frame"]), "{name}");
        assert!(x >= 0 && y >= 0 && w > 0 && h > 0, "{name}");
        assert!(x + w <= i64::from(image.0) && y + h <= i64::from(image.1), "{name} outside the sheet");
        // A trimmed frame keeps its place and the untrimmed size.
        let (sw, sh) = (f["sourceSize"]["w"].as_i64().unwrap(), f["sourceSize"]["h"].as_i64().unwrap());
        let margin = sub.properties.get("margin").map_or([0; 4], Variant::rect);
        let source = &f["spriteSourceSize"];
        assert_eq!([margin[0], margin[1]], [source["x"].as_i64().unwrap(), source["y"].as_i64().unwrap()], "{name}");
        assert_eq!([w + margin[2], h + margin[3]], [sw, sh], "{name}");
        assert_eq!(sub.property("filter_clip"), &Variant::Bool(true));
        assert!(atlas.insert(id(sub.attribute("id")), name.to_string()).is_none(), "id given twice");
    }

    // One animation per JSON animation, its frames in order, every reference resolved.
    let animations = resources[0].property("animations").array();
    let tp_animations = tp["animations"].as_object().unwrap();
    assert_eq!(animations.len(), tp_animations.len());
    let mut used = 0;
    for a in animations {
        let name = a.get("name");
        assert_eq!(matches!(name, Variant::StringName(_)), godot4, "{name:?}");
        let expected: Vec<&str> =
            tp_animations[name.str()].as_array().unwrap().iter().map(|n| n.as_str().unwrap()).collect();
        let frames: Vec<String> = a
            .get("frames")
            .array()
            .iter()
            .map(|f| {
                if godot4 {
                    assert_eq!(f.get("duration").number(), 1.0);
                    reference(f.get("texture"), "SubResource")
                } else {
                    reference(f, "SubResource")
                }
            })
            .collect();
        let names: Vec<&str> = frames.iter().map(|i| atlas[i].as_str()).collect();
        assert_eq!(names, expected, "{}", name.str());
        used += frames.len();
        assert_eq!(a.get("loop"), &Variant::Bool(!name.str().contains("->")), "{}", name.str());
        assert_eq!(a.get("speed").number(), 16.0, "the walk plays at 16 fps");
    }
    assert_eq!(used, subs.len(), "every AtlasTexture is in an animation");
}

#[test]
fn godot_resources_name_every_frame_with_its_region_margin_and_animation() {
    let dir = scratch_in("engine-data", "godot");
    let tp_png = baked(&dir, "tp", ROBOT);
    let tp = json(&tp_png.with_extension("json"));
    let size = spritebake::output::read_png(&tp_png).unwrap();
    for (format, godot4) in [("godot", true), ("godot3", false)] {
        let png = baked(&dir, "walk", &[ROBOT, &["--json-format", format]].concat());
        assert_eq!(
            std::fs::read(&png).unwrap(),
            std::fs::read(&tp_png).unwrap(),
            "the image does not depend on the data"
        );
        assert!(!png.with_extension("json").exists(), "{format} writes no JSON");
        let text = std::fs::read_to_string(png.with_extension("tres")).unwrap();
        check_sprite_frames(&text, godot4, &tp, (size.width, size.height));
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn filename_format_names_the_frames_of_every_format() {
    let dir = scratch_in("engine-data", "names");
    let args =
        ["--directions", "2", "--frames", "3", "--size", "16", "--filename-format", "{title}-{tag}-{tagframe01}"];
    // Two directions are named S and N.
    let expected = |d: &str| (1..=3).map(|f| format!("walk-walk_{d}-{f:02}")).collect::<Vec<_>>();
    let png = baked(&dir, "walk", &[&args[..], &["--json-format", "phaser"]].concat());
    let atlas = json(&png.with_extension("json"));
    assert_eq!(atlas["animations"]["walk_N"], serde_json::json!(expected("N")));
    assert!(atlas["frames"].as_object().unwrap().contains_key("walk-walk_S-01"));
    let anims = json(&png.with_extension("anims.json"));
    let names: Vec<&str> =
        anims["anims"][1]["frames"].as_array().unwrap().iter().map(|f| f["frame"].as_str().unwrap()).collect();
    assert_eq!(names, expected("N"));
    assert_eq!(anims["anims"][1]["frames"][0]["key"], "walk", "the texture key is the sheet's title");

    let png = baked(&dir, "walk", &[&args[..], &["--json-format", "aseprite"]].concat());
    let aseprite = json(&png.with_extension("json"));
    assert_eq!(aseprite["frames"][4]["filename"], "walk-walk_N-02");

    let png = baked(&dir, "walk", &[&args[..], &["--json-format", "godot"]].concat());
    let sections = tres::parse(&std::fs::read_to_string(png.with_extension("tres")).unwrap());
    let names: Vec<&str> =
        sections.iter().filter(|s| s.tag == "sub_resource").map(|s| s.property("resource_name").str()).collect();
    assert_eq!(names, [expected("S"), expected("N")].concat());

    // The defaults: numbers for Aseprite (Phaser's lookup), tag and frame elsewhere.
    let png = baked(&dir, "walk", &["--directions", "2", "--frames", "3", "--size", "16", "--json-format", "aseprite"]);
    let names: Vec<Value> =
        json(&png.with_extension("json"))["frames"].as_array().unwrap().iter().map(|f| f["filename"].clone()).collect();
    assert_eq!(names, (0..6).map(|i| Value::from(i.to_string())).collect::<Vec<_>>());
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn frame_names_that_collide_are_refused_and_nothing_is_written() {
    let dir = scratch_in("engine-data", "collide");
    // 16 directions named by number: walk_1 frame 10 and walk_11 frame 0 are both "walk_110".
    let numbers = (0..16).map(|d| d.to_string()).collect::<Vec<_>>().join(",");
    let args =
        ["--directions", "16", "--direction-names", &numbers, "--size", "8", "--filename-format", "{tag}{tagframe}"];
    let o = sheet(&dir, "walk", &args);
    assert_refused(&o, &["--filename-format \"{tag}{tagframe}\"", "'walk_110'", "unique"]);
    assert!(names_in(&dir).is_empty(), "{:?}", names_in(&dir));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn every_data_file_is_planned_before_anything_renders() {
    let dir = scratch_in("engine-data", "plan");
    let data_files = [
        ("phaser", "walk.anims.json"),
        ("phaser-multiatlas", "walk.json"),
        ("phaser-multiatlas", "walk.anims.json"),
        ("godot", "walk.tres"),
        ("godot3", "walk.tres"),
        ("unity", "walk.png.meta"),
        // Named after the tag (the robot's walk, facing S): planned from the job's clips.
        ("unity", "walk_walk_S.anim"),
    ];
    for (format, data) in data_files {
        // A folder where the data file goes: refused up front, naming it; nothing written.
        std::fs::create_dir_all(dir.join(data).join("keep")).unwrap();
        let o = sheet(&dir, "walk", &["--json-format", format, "--size", "8"]);
        assert_refused(&o, &[data]);
        assert_eq!(names_in(&dir), [data], "{format}");
        std::fs::remove_dir_all(dir.join(data)).unwrap();
    }
    use spritebake::bake::{JsonFormat, Product};
    let plan = Product::Sheet.fixed_plan("out/walk.png", JsonFormat::Phaser, &[]).unwrap();
    let planned: Vec<&Path> = plan.outputs().iter().map(|o| o.path.as_path()).collect();
    assert_eq!(planned, [Path::new("out/walk.png"), Path::new("out/walk.json"), Path::new("out/walk.anims.json")]);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn check_compares_every_data_file_of_a_sheet_golden() {
    let dir = scratch_in("engine-data", "check");
    let manifest = dir.join("cases.toml");
    let case = |name: &str, format: &str| {
        format!(
            "[[case]]\nname = \"{name}\"\nkind = \"sheet\"\nmodel = \"{}\"\nanim = [\"{}\"]\nsize = 16\nframes = 2\n\
             json_format = \"{format}\"\ngolden = \"g/{name}.png\"\n",
            robot("robot.md5mesh"),
            robot("walk.md5anim")
        )
    };
    std::fs::write(&manifest, [case("tres", "godot"), case("anims", "phaser"), case("u", "unity")].concat()).unwrap();
    let assets = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/assets");
    let check = |extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_spritebake"))
            .args(["check", manifest.to_str().unwrap(), "--allow-dir", assets.to_str().unwrap()])
            .args(extra)
            .output()
            .unwrap()
    };
    assert_eq!(check(&["--bless"]).status.code(), Some(0));
    assert_eq!(
        names_in(&dir.join("g")),
        [
            "anims.anims.json",
            "anims.json",
            "anims.png",
            "tres.png",
            "tres.tres",
            "tres.tscn",
            "u.png",
            "u.png.meta",
            "u_walk_S.anim"
        ]
    );
    let o = check(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", printed(&o));
    // A changed resource or animation file fails its case, naming the file and the line.
    for (file, from, to) in [
        ("tres.tres", "\"loop\": true", "\"loop\": false"),
        ("anims.anims.json", "\"repeat\": -1", "\"repeat\": 0"),
        ("u_walk_S.anim", "m_LoopTime: 1", "m_LoopTime: 0"),
        ("u.png.meta", "alignment: 9", "alignment: 7"),
    ] {
        let path = dir.join("g").join(file);
        let golden = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, golden.replacen(from, to, 1)).unwrap();
        let o = check(&[]);
        assert_eq!(o.status.code(), Some(1), "{}", printed(&o));
        let text = printed(&o);
        assert!(text.contains(&format!("failing: {file}")) && text.contains(": line "), "{file}: {text}");
        std::fs::write(&path, golden).unwrap();
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_godot4_resource_pairs_each_page_with_its_normal_map_in_a_canvas_texture() {
    let dir = scratch_in("engine-data", "canvas");
    // Two pages, each with its normal map.
    let args = ["--directions", "4", "--size", "24", "--max-size", "120x240", "--maps", "normal"];
    let png = baked(&dir, "walk", &[&args[..], &["--json-format", "godot"]].concat());
    assert!(!png.exists(), "two pages expected");
    let sections = tres::parse(&std::fs::read_to_string(png.with_extension("tres")).unwrap());
    let of = |tag: &str, kind: &str| -> Vec<&Section> {
        sections.iter().filter(|s| s.tag == tag && s.attribute("type").str() == kind).collect()
    };
    let (textures, canvases, atlases) =
        (of("ext_resource", "Texture2D"), of("sub_resource", "CanvasTexture"), of("sub_resource", "AtlasTexture"));
    assert_eq!(sections[0].attribute("load_steps").number() as usize, sections.len() - 2 + 1);
    let path_of = |ext: &str| {
        let t = textures.iter().find(|t| id(t.attribute("id")) == ext).unwrap_or_else(|| panic!("no texture {ext}"));
        t.attribute("path").str().to_string()
    };
    // Every page and its map, the map beside its page on disk.
    let pairs: Vec<(String, String)> = canvases
        .iter()
        .map(|c| {
            let diffuse = path_of(&reference(c.property("diffuse_texture"), "ExtResource"));
            let normal = path_of(&reference(c.property("normal_texture"), "ExtResource"));
            (diffuse, normal)
        })
        .collect();
    assert_eq!(
        pairs,
        [("walk-0.png", "walk-0_n.png"), ("walk-1.png", "walk-1_n.png")].map(|(a, b)| (a.into(), b.into()))
    );
    for (diffuse, normal) in &pairs {
        assert!(dir.join(diffuse).is_file() && dir.join(normal).is_file(), "{diffuse} {normal}");
    }
    // Every frame is cut from a page's CanvasTexture; both pages have frames.
    let canvas_ids: Vec<String> = canvases.iter().map(|c| id(c.attribute("id"))).collect();
    let used: std::collections::BTreeSet<String> =
        atlases.iter().map(|a| reference(a.property("atlas"), "SubResource")).collect();
    assert_eq!(atlases.len(), 64);
    assert_eq!(used.into_iter().collect::<Vec<_>>(), canvas_ids);
    // Without maps, the frames are cut from the pages themselves.
    let plain = baked(&dir, "plain", &[&args[..6], &["--json-format", "godot"]].concat());
    let text = std::fs::read_to_string(plain.with_extension("tres")).unwrap();
    assert!(!text.contains("CanvasTexture"), "{text}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn premultiplied_alpha_is_each_straight_pixel_times_its_alpha_and_libgdx_says_so() {
    let dir = scratch_in("engine-data", "premultiplied");
    // An outline's soft outer edge gives the partly covered pixels (`--ssaa 1` has none).
    let libgdx = ["--json-format", "libgdx", "--maps", "normal", "--outline", "2", "--outline-color", "#ff8040"];
    let straight = baked(&dir, "straight", &[ROBOT, &libgdx[..]].concat());
    let premultiplied = baked(&dir, "pm", &[ROBOT, &libgdx[..], &["--alpha", "premultiplied"]].concat());
    let (a, b) = (read_png(&straight).unwrap(), read_png(&premultiplied).unwrap());
    assert_eq!((a.width, a.height), (b.width, b.height));
    let mut partly = 0;
    for (s, p) in a.rgba.chunks_exact(4).zip(b.rgba.chunks_exact(4)) {
        let alpha = u32::from(s[3]);
        let times = |c: u8| ((u32::from(c) * alpha + 127) / 255) as u8;
        assert_eq!(p, [times(s[0]), times(s[1]), times(s[2]), s[3]], "straight {s:?}");
        partly += usize::from(alpha > 0 && alpha < 255 && p[..3] != s[..3]);
    }
    assert!(partly > 100, "{partly} edge pixels changed");
    // The atlas tells libGDX and Spine; the normal map is never premultiplied.
    let atlas = |png: &PathBuf| std::fs::read_to_string(png.with_extension("atlas")).unwrap();
    assert!(atlas(&premultiplied).contains("\npma:true\n") && !atlas(&straight).contains("pma"));
    let normal = |png: &PathBuf| std::fs::read(png.with_file_name(format!("{}_n.png", file_stem(png)))).unwrap();
    assert_eq!(normal(&straight), normal(&premultiplied));
    // A GIF has no alpha to premultiply.
    let (mesh, anim) = (robot("robot.md5mesh"), robot("walk.md5anim"));
    let gif = dir.join("w.gif");
    let o = Command::new(env!("CARGO_BIN_EXE_spritebake"))
        .args(["gif", &mesh, "--anim", &anim, "--alpha", "premultiplied", "-o"])
        .arg(&gif)
        .output()
        .unwrap();
    assert_refused(&o, &["--alpha premultiplied", "no alpha to premultiply"]);
    assert!(!gif.exists());
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn points_reach_aseprite_slices_and_godot_metadata() {
    let dir = scratch_in("engine-data", "points-formats");
    let args = [ROBOT, &["--points", "forearm_R,head", "--filename-format", "{tag}_{tagframe000}"]].concat();
    let tp = json(&baked(&dir, "tp", &args).with_extension("json"));
    let in_tp = |frame: &str, point: &str| {
        let p = &tp["frames"][frame]["points"][point];
        (p["x"].as_f64().unwrap(), p["y"].as_f64().unwrap())
    };
    // Aseprite: a slice a point, with a key on every frame on the pixel the point falls in.
    let ase = json(&baked(&dir, "ase", &[&args[..], &["--json-format", "aseprite"]].concat()).with_extension("json"));
    let frames = ase["frames"].as_array().unwrap();
    let slices = ase["meta"]["slices"].as_array().unwrap();
    assert_eq!(slices.iter().map(|s| s["name"].as_str().unwrap()).collect::<Vec<_>>(), ["forearm_R", "head"]);
    for slice in slices {
        let keys = slice["keys"].as_array().unwrap();
        assert_eq!(keys.len(), frames.len(), "a key on every frame");
        for (i, key) in keys.iter().enumerate() {
            let name = frames[i]["filename"].as_str().unwrap();
            let (x, y) = in_tp(name, slice["name"].as_str().unwrap());
            let b = &key["bounds"];
            assert_eq!(key["frame"], i);
            assert_eq!(
                [&b["x"], &b["y"], &b["w"], &b["h"]].map(|v| v.as_f64().unwrap()),
                [x.floor(), y.floor(), 1.0, 1.0]
            );
        }
    }
    // Godot 3 reads each frame's points from its texture's metadata, as written for TexturePacker.
    let Some(godot) = crate::common::engines::godot3() else { return };
    let png = baked(&dir, "g3", &[&args[..], &["--json-format", "godot3"]].concat());
    let seen = crate::common::engines::godot3_inspect(&godot, &dir, "", &png.with_extension("tres"), &[&png]);
    let mut checked = 0;
    for animation in seen["animations"].as_array().unwrap() {
        for frame in animation["frames"].as_array().unwrap() {
            let name = frame["name"].as_str().unwrap();
            for point in ["forearm_R", "head"] {
                let at = &frame["points"][point];
                let (x, y) = in_tp(name, point);
                assert!(
                    (at[0].as_f64().unwrap() - x).abs() < 1e-4 && (at[1].as_f64().unwrap() - y).abs() < 1e-4,
                    "{name} {point}: {at}"
                );
            }
            checked += 1;
        }
    }
    assert_eq!(checked, tp["frames"].as_object().unwrap().len());
    std::fs::remove_dir_all(dir).unwrap();
}

fn file_stem(path: &Path) -> String {
    path.file_stem().unwrap().to_string_lossy().into_owned()
}

#[test]
fn points_name_a_joints_pixel_in_every_frame_of_the_sheet_and_the_frames() {
    let dir = scratch_in("engine-data", "points");
    let png = baked(&dir, "pts", &[ROBOT, &["--points", "forearm_R,head"]].concat());
    let (tp, page) = (json(&png.with_extension("json")), read_png(&png).unwrap());
    let frames = tp["frames"].as_object().unwrap();
    let (mut elbows, mut covered) = (std::collections::BTreeSet::new(), 0);
    for (name, f) in frames {
        let n = |v: &Value, k: &str| v[k].as_f64().unwrap();
        let (elbow, head) = (&f["points"]["forearm_R"], &f["points"]["head"]);
        assert!(n(head, "y") < n(elbow, "y"), "{name}: the head is below the elbow: {f}");
        // Where the elbow is on the page (the points are in the untrimmed frame), the robot is.
        let (frame, trim) = (&f["frame"], &f["spriteSourceSize"]);
        let x = n(frame, "x") + n(elbow, "x") - n(trim, "x");
        let y = n(frame, "y") + n(elbow, "y") - n(trim, "y");
        let near = (-1..=1).flat_map(|dy| (-1..=1).map(move |dx| (dx, dy))).any(|(dx, dy)| {
            let (px, py) = ((x + f64::from(dx)) as u32, (y + f64::from(dy)) as u32);
            page.pixel(px, py).is_some_and(|p| p[3] > 0)
        });
        covered += usize::from(near);
        elbows.insert(format!("{:.1},{:.1}", n(elbow, "x"), n(elbow, "y")));
    }
    assert_eq!(covered, frames.len(), "elbows off the robot");
    assert!(elbows.len() >= 10, "the elbow does not move: {elbows:?}");
    // The frames JSON of the same job says the same.
    let (mesh, anim) = (robot("robot.md5mesh"), robot("walk.md5anim"));
    let pattern = dir.join("f/{clip}_{dir}_{frame:03}.png");
    let o = Command::new(env!("CARGO_BIN_EXE_spritebake"))
        .args(["frames", &mesh, "--anim", &anim, "--ssaa", "1", "--quiet", "-o"])
        .arg(&pattern)
        .args(["--directions", "4", "--size", "24", "--points", "forearm_R,head"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", printed(&o));
    let data = json(&dir.join("f/frames.json"));
    for frame in data["frames"].as_array().unwrap() {
        let name = format!("{}_{:03}", frame["animation"].as_str().unwrap(), frame["frame"].as_u64().unwrap());
        let in_sheet = &frames[&name]["points"];
        for point in ["forearm_R", "head"] {
            for axis in ["x", "y"] {
                let alone = frame["points"][point][axis].as_f64().unwrap();
                assert_eq!((alone * 100.0).round() / 100.0, in_sheet[point][axis].as_f64().unwrap(), "{name} {point}");
            }
        }
    }
    // A name the model does not have: the closest ones.
    let o = sheet(&dir, "bad", &["--points", "forearm_r"]);
    assert_refused(&o, &["--points forearm_r", "no joint, attachment point or tag named 'forearm_r'", "forearm_R"]);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn the_root_point_is_the_pivot_carried_by_the_clips_travel() {
    // The two-root walk carries its body 1 unit forward (+Z) over its second, steadily; posed in
    // place (the default) the sprite stays on the pivot and the root point walks on.
    let dir = scratch_in("engine-data", "root-travel");
    std::fs::write(dir.join("walk.fbx"), crate::common::fbx::two_root_walk(false)).unwrap();
    let pixels_per_unit = 20.0;
    let o = Command::new(env!("CARGO_BIN_EXE_spritebake"))
        .current_dir(&dir)
        .args(["sheet", "walk.fbx", "--frames", "4", "--directions", "4", "--ortho", "--pixels-per-unit", "20"])
        .args(["--size", "auto:96", "--points", "root,Body", "--quiet", "-o", "walk.png"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", printed(&o));
    let sheet = json(&dir.join("walk.json"));
    let at = |frame: &str, point: &str| {
        let p = &sheet["frames"][frame]["points"][point];
        (p["x"].as_f64().unwrap(), p["y"].as_f64().unwrap())
    };
    let pivot = (sheet["meta"]["pivot"]["x"].as_f64().unwrap(), sheet["meta"]["pivot"]["y"].as_f64().unwrap());
    // Frames at 0, 0.25, 0.5 and 0.75 s: the body 0, 0.25, 0.5 and 0.75 units along.
    for f in 0..4 {
        let travel = pixels_per_unit * f as f64 / 4.0;
        // W faces screen-left, E screen-right: the travel is across the screen.
        for (direction, sign) in [("W", -1.0), ("E", 1.0)] {
            let (x, y) = at(&format!("Walk_{direction}_{f:03}"), "root");
            assert!((x - (pivot.0 + sign * travel)).abs() < 0.05, "{direction} {f}: root at x {x}, pivot {pivot:?}");
            assert!((y - pivot.1).abs() < 0.05, "{direction} {f}: root at y {y}, pivot {pivot:?}");
            // The body itself is pinned over the pivot.
            let (body_x, _) = at(&format!("Walk_{direction}_{f:03}"), "Body");
            assert!((body_x - pivot.0).abs() < 0.05, "{direction} {f}: the body is at {body_x}");
        }
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// Every frame of a (possibly multipage) TexturePacker sheet written as `png`, untrimmed: its
/// name, whether it is flipped, and its image in the untrimmed frame.
fn untrimmed_frames(png: &Path) -> Vec<(String, bool, spritebake::Image)> {
    let pages: Vec<PathBuf> = match png.exists() {
        true => vec![png.to_path_buf()],
        false => (0..)
            .map(|i| png.with_file_name(format!("{}-{i}.png", png.file_stem().unwrap().to_string_lossy())))
            .take_while(|p| p.exists())
            .collect(),
    };
    assert!(!pages.is_empty(), "no pages for {}", png.display());
    let mut frames = Vec::new();
    for page in pages {
        let (data, image) = (json(&page.with_extension("json")), read_png(&page).unwrap());
        for (name, f) in data["frames"].as_object().unwrap() {
            let n = |v: &Value, k: &str| v[k].as_u64().unwrap() as u32;
            let (r, s) = (&f["frame"], &f["spriteSourceSize"]);
            let kept = spritebake::internal::bake::post::crop(&image, n(r, "x"), n(r, "y"), n(r, "w"), n(r, "h"));
            let (fw, fh) = (n(&f["sourceSize"], "w"), n(&f["sourceSize"], "h"));
            let mut frame = spritebake::Image::new(fw, fh).unwrap();
            for y in 0..kept.height {
                for x in 0..kept.width {
                    let p = kept.pixel(x, y).unwrap();
                    frame.pixel_mut(n(s, "x") + x, n(s, "y") + y).unwrap().copy_from_slice(&p);
                }
            }
            frames.push((name.clone(), f["flipX"] == true, frame));
        }
    }
    frames
}

#[test]
fn gamemaker_strips_are_the_sheets_frames_untrimmed_in_a_row_named_for_the_ide() {
    let dir = scratch_in("engine-data", "gamemaker");
    // Trimmed, over several pages, with a transition and a mirrored direction (E shows W).
    let args = [ROBOT, &["--mirror", "--max-size", "96"]].concat();
    baked(&dir, "tp", &args);
    let png = baked(&dir, "walk", &[&args[..], &["--json-format", "gamemaker"]].concat());
    let frames = untrimmed_frames(&dir.join("tp.png"));
    let (fw, fh) = (frames[0].2.width, frames[0].2.height);
    // One strip a rendered animation, named as GameMaker's IDE reads it: SPRITE_stripN, N
    // frames of the strip's width over N.
    let mut counts: std::collections::BTreeMap<&str, (u32, bool)> = std::collections::BTreeMap::new();
    for (name, flipped, _) in &frames {
        let count = counts.entry(name.rsplit_once('_').unwrap().0).or_default();
        *count = (count.0 + 1, *flipped);
    }
    let strip_name = |tag: &str| format!("spr_walk_{}_strip{}.png", tag.replace("->", "__"), counts[tag].0);
    let strips: Vec<String> = names_in(&dir).into_iter().filter(|n| n.starts_with("spr_")).collect();
    let mut expected: Vec<String> = counts.iter().filter(|(_, c)| !c.1).map(|(tag, _)| strip_name(tag)).collect();
    expected.sort();
    assert_eq!(strips, expected);
    assert_eq!((strips.len(), counts.len()), (6, 8), "walk and walk->walk in S, W, N; E mirrored");
    for (name, flipped, frame) in &frames {
        let (tag, number) = name.rsplit_once('_').unwrap();
        let strip = dir.join(strip_name(tag));
        if *flipped {
            assert!(!strip.exists(), "{name}: a mirrored direction has no strip of its own");
            continue;
        }
        let strip = read_png(&strip).unwrap();
        assert_eq!((strip.width, strip.height), (counts[tag].0 * fw, fh), "{name}");
        let k: u32 = number.parse().unwrap();
        let cell = spritebake::internal::bake::post::crop(&strip, k * fw, 0, fw, fh);
        assert!(cell.rgba == frame.rgba, "{name}: the strip's frame {k} is not the sheet's frame, untrimmed");
    }
    // The script: each animation's sprite, origin (the pivot in pixels), speed, flip and loop.
    let gml = std::fs::read_to_string(png.with_extension("gml")).unwrap();
    let tp = json(&dir.join("tp-0.json"));
    let first = &tp["frames"]["walk_S_000"];
    let pivot = (
        (first["pivot"]["x"].as_f64().unwrap() * f64::from(fw)).round(),
        (first["pivot"]["y"].as_f64().unwrap() * f64::from(fh)).round(),
    );
    assert!(gml.contains("function spritebake_walk() {"), "{gml}");
    let setup = format!(
        "\ts = asset_get_index(\"spr_walk_walk_S\");\n\tif (s != -1) {{ sprite_set_offset(s, {}, {}); \
         sprite_set_speed(s, 16, spritespeed_framespersecond); }}\n\tanimations[$ \"walk_S\"] = {{ sprite: s, xscale: 1, loop: true }};\n",
        pivot.0, pivot.1
    );
    assert!(gml.contains(&setup), "{setup}\n{gml}");
    let mirrored = "\ts = asset_get_index(\"spr_walk_walk_W\");\n\tanimations[$ \"walk_E\"] = { sprite: s, xscale: -1, loop: true };\n";
    assert!(gml.contains(mirrored), "{gml}");
    assert!(gml.contains("animations[$ \"walk->walk_N\"] = { sprite: s, xscale: 1, loop: false };"), "{gml}");
    // Every strip is planned: a folder where one goes is refused before anything is written.
    let planned = scratch_in("engine-data", "gamemaker-plan");
    std::fs::create_dir_all(planned.join("spr_walk_walk_N_strip16.png/keep")).unwrap();
    let o = sheet(&planned, "walk", &[&args[..], &["--json-format", "gamemaker"]].concat());
    assert!(printed(&o).contains("spr_walk_walk_N_strip16.png: exists and is a folder"), "{}", printed(&o));
    assert_eq!(names_in(&planned), ["spr_walk_walk_N_strip16.png"]);
    std::fs::remove_dir_all(planned).unwrap();
    std::fs::remove_dir_all(dir).unwrap();
}
