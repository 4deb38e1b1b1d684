//! FBX through ufbx (issue 32): every FBX of the shared corpus loads, poses and renders; the
//! Mixamo dancer's frames agree with Blender's own FBX import vertex for vertex and in
//! silhouette; a sheet of it stands upright, facing S; hostile files end in an error, never a
//! panic, and ufbx's memory is held to the model's budget. Corpus tests skip with a note when
//! the corpus is absent, Blender's when Blender is.

use std::path::Path;

use glam::Vec3;
use spritebake::anim::{FrameTime, PoseOptions, pose, rest_pose};
use spritebake::bake::{self, FrameRequest};
use spritebake::formats::{Limits, LoadOptions, load};
use spritebake::model::{Aabb, Model};
use spritebake::raster::{Camera, Image, OrbitView, RenderOptions, Renderer, Shading};

use crate::common;
use crate::common::cli::{printed, run_in, scratch_in};
use crate::common::points;

const FILES: [&str; 4] = [
    "flair/Flair.fbx",
    "huesitos/huesitos.fbx",
    "animation_with_skeleton/animation_with_skeleton.fbx",
    "spider/spider.fbx",
];

fn load_ok(path: &Path) -> Model {
    load(path, &LoadOptions::default()).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The posed world-space vertices of `model` at `frame` of `clip`, root motion kept.
fn posed_points(model: &Model, clip: &str, frame: f32) -> Vec<Vec3> {
    let clip = model.clip(clip).unwrap_or_else(|| panic!("no clip '{clip}'"));
    let options = PoseOptions { looping: false, in_place: false };
    spritebake::internal::bake::world_points(model, &pose(model, Some(clip), FrameTime::Frame(frame), &options))
}

fn silhouette(image: &Image) -> Vec<bool> {
    image.rgba.chunks_exact(4).map(|p| p[3] > 0).collect()
}

#[test]
fn every_corpus_fbx_loads_poses_and_renders() {
    let Some(dir) = common::corpus("fbx") else { return };
    let renderer = Renderer::new();
    for file in FILES {
        let model = load_ok(&dir.join(file));
        assert!(!model.meshes.is_empty() && model.skeleton.is_some(), "{file}");
        let view = OrbitView::default();
        let options = RenderOptions { width: 64, height: 64, ssaa: 1, ..RenderOptions::default() };
        for clip in std::iter::once(None).chain(model.clips.iter().map(Some)) {
            let request = FrameRequest::clip(clip, FrameTime::Frame(1.5), PoseOptions::default());
            let image = bake::render_frame(&renderer, &model, &request, &view, &options).unwrap();
            assert!(
                image.covered_pixels() > 50,
                "{file} {:?}: {} pixels",
                clip.map(|c| &c.name),
                image.covered_pixels()
            );
        }
    }
    // Mixamo's stacks: the dance, one second at 30 fps, first as the file's active stack,
    // then the bind pose's `Take 001` (listed first in the file).
    let flair = load_ok(&dir.join("flair/Flair.fbx"));
    let clips: Vec<(&str, usize, f32)> =
        flair.clips.iter().map(|c| (c.name.as_str(), c.frame_count(), c.fps)).collect();
    assert_eq!(clips, [("mixamo.com", 30, 30.0), ("Take 001", 100, 30.0)]);
}

/// Mesh instances are converted side by side: the model is the same on any number of threads,
/// its meshes, materials and warnings in the file's order (the spider has 19 instances).
#[test]
fn every_corpus_fbx_loads_the_same_on_any_number_of_threads() {
    let Some(dir) = common::corpus("fbx") else { return };
    for file in FILES {
        let on = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            pool.install(|| load_ok(&dir.join(file)))
        };
        let (one, three) = (on(1), on(3));
        assert_eq!(one.meshes, three.meshes, "{file}");
        let names = |m: &Model| m.materials.iter().map(|m| m.name.clone()).collect::<Vec<_>>();
        assert_eq!(names(&one), names(&three), "{file}");
        assert_eq!(one.warnings, three.warnings, "{file}");
    }
}

#[test]
fn corpus_fbx_first_frames_agree_with_assimp() {
    let Some(dir) = common::corpus("fbx") else { return };
    let scratch = scratch_in("fbx", "assimp");
    for file in &FILES {
        let path = dir.join(file);
        let Some(theirs) = common::assimp::exported_points(&path, &scratch) else { return };
        // assimp shows the meshes as bound (the clusters' bind pose), which these files'
        // first frames are, and the dancer's still `Take 001` (its T-pose); the node
        // transforms saved with the scene may be another pose.
        let model = load_ok(&path);
        let still = model.clips.iter().find(|c| c.is_static(&model.meshes));
        let ours = match still.or(model.clips.first()) {
            Some(clip) => posed_points(&model, &clip.name, 0.0),
            None => spritebake::internal::bake::world_points(&model, &rest_pose(&model)),
        };
        let a = common::assimp::agreement(&ours, &theirs);
        eprintln!("{file} frame 0 vs assimp: {a:?}");
        // assimp keeps the file's units (centimetres here), spritebake converts to metres.
        let units = a.scale.log10();
        assert!(a.max_error < 2e-3 && (units - units.round()).abs() < 1e-4, "{file}: {a:?}");
    }
    std::fs::remove_dir_all(scratch).unwrap();
}

#[test]
fn the_mixamo_dancer_agrees_with_blenders_fbx_import() {
    let Some(dir) = common::corpus("fbx") else { return };
    let scratch = scratch_in("fbx", "blender");
    let fbx = dir.join("flair/Flair.fbx");
    let frames = [0, 9, 17, 26];
    let Some(objs) = common::blender::posed_fbx(&fbx, "mixamo.com", &frames, &scratch) else { return };
    let model = load_ok(&fbx);
    let renderer = Renderer::new();
    let options =
        RenderOptions { width: 256, height: 256, ssaa: 1, shading: Shading::Unlit, ..RenderOptions::default() };
    for (&frame, obj) in frames.iter().zip(&objs) {
        let ours = posed_points(&model, "mixamo.com", frame as f32);
        let blender = load_ok(obj);
        let theirs = spritebake::internal::bake::world_points(&blender, &rest_pose(&blender));
        let size = Aabb::from_points(theirs.iter().copied()).size().length();
        let cell = size * 0.01;
        let error =
            points::farthest_nearest(&ours, &theirs, cell).max(points::farthest_nearest(&theirs, &ours, cell)) / size;
        assert!(error < 2e-3, "frame {frame}: vertices up to {error:.2e} of the model's size apart");
        // Silhouettes through one camera, fitted to Blender's pose.
        let camera = Camera::fit(&OrbitView::default(), &theirs, 1.0);
        let request = FrameRequest::clip(
            model.clip("mixamo.com"),
            FrameTime::Frame(frame as f32),
            PoseOptions { looping: false, in_place: false },
        );
        let mine = bake::render_posed(&renderer, &model, &request.pose(&model), camera, &options).unwrap();
        let peer = bake::render_posed(&renderer, &blender, &rest_pose(&blender), camera, &options).unwrap();
        let (a, b) = (silhouette(&mine), silhouette(&peer));
        let both = a.iter().zip(&b).filter(|(a, b)| **a && **b).count();
        let either = a.iter().zip(&b).filter(|(a, b)| **a || **b).count();
        let iou = both as f64 / either as f64;
        assert!(either > 2000 && iou >= 0.99, "frame {frame}: IoU {iou:.4} over {either} pixels");
        eprintln!("frame {frame}: vertices within {error:.2e} of the size, silhouette IoU {iou:.5}");
    }
    std::fs::remove_dir_all(scratch).unwrap();
}

#[test]
fn a_mixamo_dance_sheet_stands_upright_facing_south() {
    let Some(dir) = common::corpus("fbx") else { return };
    let fbx = dir.join("flair/Flair.fbx");
    // Standing on the ground with the toes forward (+Z, the front every format turns to S).
    let model = load_ok(&fbx);
    let rest = posed_points(&model, "Take 001", 0.0);
    let b = Aabb::from_points(rest.iter().copied());
    assert!(b.size().y > 1.7 && b.size().y < 1.9 && b.min.y.abs() < 0.01, "{b:?}");
    let feet: Vec<Vec3> = rest.iter().copied().filter(|p| p.y < 0.05).collect();
    let toes = feet.iter().map(|p| p.z).sum::<f32>() / feet.len() as f32;
    assert!(toes > 0.02, "the feet's mean z {toes}");
    // The bind pose's T seen from S spans its arms; from E it is a narrow side view.
    let scratch = scratch_in("fbx", "sheet");
    let run = run_in(
        &scratch,
        &[
            "sheet",
            fbx.to_str().unwrap(),
            "--anim",
            "Take 001,mixamo.com",
            "--directions",
            "8",
            "--frames",
            "3",
            "--size",
            "96",
            "-o",
            "flair.png",
        ],
    );
    assert!(run.status.success(), "{}", printed(&run));
    let sheet = common::cli::WrittenSheet::read(&scratch.join("flair.png"));
    let width = |name: &str| {
        let frame = sheet.frame(name);
        let columns: Vec<u32> =
            (0..frame.width).filter(|&x| (0..frame.height).any(|y| frame.pixel(x, y).unwrap()[3] > 0)).collect();
        columns.last().unwrap() - columns.first().unwrap() + 1
    };
    let (south, east) = (width("Take 001_S_000"), width("Take 001_E_000"));
    assert!(south > 3 * east, "arm span from S {south} px, from E {east} px");
    for name in sheet.names().iter().filter(|n| n.starts_with("mixamo.com")) {
        assert!(sheet.frame(name).covered_pixels() > 50, "{name} is empty");
    }
    // Textured: the corpus file carries UVs but no image, so the dance is given one, a red
    // and blue checker of 8 x 8 squares, and every direction shows both colours.
    let checker = image::RgbaImage::from_fn(64, 64, |x, y| {
        if (x / 8 + y / 8) % 2 == 0 { image::Rgba([220, 30, 30, 255]) } else { image::Rgba([30, 30, 220, 255]) }
    });
    checker.save(scratch.join("checker.png")).unwrap();
    let fbx = fbx.to_str().unwrap();
    let args = ["sheet", fbx, "--anim", "mixamo.com", "--directions", "8", "--frames", "2", "--size", "96"];
    let run = run_in(&scratch, &[&args[..], &["--texture", "checker.png", "-o", "textured.png"]].concat());
    assert!(run.status.success(), "{}", printed(&run));
    let textured = common::cli::WrittenSheet::read(&scratch.join("textured.png"));
    for name in textured.names() {
        let frame = textured.frame(&name);
        let (mut red, mut blue) = (0, 0);
        for (x, y) in (0..frame.width).flat_map(|x| (0..frame.height).map(move |y| (x, y))) {
            let p = frame.pixel(x, y).unwrap();
            if p[3] == 255 && u32::from(p[0]) > 2 * u32::from(p[2]) {
                red += 1;
            } else if p[3] == 255 && u32::from(p[2]) > 2 * u32::from(p[0]) {
                blue += 1;
            }
        }
        assert!(red > 40 && blue > 40, "{name}: {red} red and {blue} blue pixels");
    }
    std::fs::remove_dir_all(scratch).unwrap();
}

/// Runs `spritebake` in `dir` and asserts it succeeded; what it printed.
fn succeeds(dir: &Path, args: &[&str]) -> String {
    let run = run_in(dir, args);
    assert!(run.status.success(), "{args:?}: {}", printed(&run));
    printed(&run)
}

#[test]
fn a_mixamo_file_plays_its_dance_not_the_still_take_before_it() {
    let Some(dir) = common::corpus("fbx") else { return };
    let fbx = dir.join("flair/Flair.fbx");
    let model = load_ok(&fbx);
    let clips: Vec<(&str, bool)> = model.clips.iter().map(|c| (c.name.as_str(), c.is_static(&model.meshes))).collect();
    assert_eq!(clips, [("mixamo.com", false), ("Take 001", true)]);
    let scratch = scratch_in("fbx", "mixamo_default");
    let fbx = fbx.to_str().unwrap();
    // A sheet of every clip: the dance alone, and a warning naming the take it left out.
    let said = succeeds(&scratch, &["sheet", fbx, "--frames", "2", "--size", "48", "-o", "every.png"]);
    assert!(said.contains("'Take 001'") && said.contains("left out"), "{said}");
    let names = common::cli::WrittenSheet::read(&scratch.join("every.png")).names();
    assert!(!names.is_empty() && names.iter().all(|n| n.starts_with("mixamo.com")), "{names:?}");
    // A render without `--anim` is the dance's first frame, not the T-pose the take holds;
    // named, the take still renders, without the warning.
    let render = |out: &str, anim: &[&str]| {
        let said = succeeds(&scratch, &[&["render", fbx, "--size", "64"][..], anim, &["-o", out]].concat());
        (image::open(scratch.join(out)).unwrap().to_rgba8(), said)
    };
    let (default, _) = render("default.png", &[]);
    let (dance, _) = render("dance.png", &["--anim", "mixamo.com"]);
    let (take, said) = render("take.png", &["--anim", "Take 001"]);
    assert!(default == dance, "the default render is not the dance's first frame");
    assert!(default != take && take.pixels().any(|p| p[3] > 0), "the default render is the T-pose");
    assert!(!said.contains("left out"), "{said}");
    std::fs::remove_dir_all(scratch).unwrap();
}

#[test]
fn a_still_take_before_the_active_stack_is_left_out_of_sheets_unless_named() {
    // As Mixamo writes it: `Take 001`, still, listed first; the document names `Walk` active.
    let scratch = scratch_in("fbx", "still_take");
    std::fs::write(scratch.join("walk.fbx"), common::fbx::two_root_walk(true)).unwrap();
    let model = load_ok(&scratch.join("walk.fbx"));
    let clips: Vec<(&str, bool)> = model.clips.iter().map(|c| (c.name.as_str(), c.is_static(&model.meshes))).collect();
    assert_eq!(clips, [("Walk", false), ("Take 001", true)]);
    let sheet = |anim: &[&str], out: &str| {
        let said = succeeds(
            &scratch,
            &[&["sheet", "walk.fbx", "--frames", "2", "--size", "32"][..], anim, &["-o", out]].concat(),
        );
        (common::cli::WrittenSheet::read(&scratch.join(out)).names(), said)
    };
    let (names, said) = sheet(&[], "every.png");
    assert!(said.contains("'Take 001'") && said.contains("--anim \"Take 001\""), "{said}");
    assert!(!names.is_empty() && names.iter().all(|n| n.starts_with("Walk")), "{names:?}");
    let (names, said) = sheet(&["--anim", "Take 001"], "take.png");
    assert!(!names.is_empty() && names.iter().all(|n| n.starts_with("Take 001")), "{names:?}");
    assert!(!said.contains("left out"), "{said}");
    std::fs::remove_dir_all(scratch).unwrap();
}

#[test]
fn hostile_fbx_files_end_in_an_error_and_ufbx_keeps_to_the_budget() {
    let Some(dir) = common::corpus("fbx") else { return };
    let scratch = scratch_in("fbx", "hostile");
    let bytes = std::fs::read(dir.join("huesitos/huesitos.fbx")).unwrap();
    // Cut anywhere, or a header and nothing else: an error naming the file, no panic.
    for cut in (0..20).map(|k| 23 + k * (bytes.len() - 23) / 20) {
        let path = scratch.join("cut.fbx");
        std::fs::write(&path, &bytes[..cut]).unwrap();
        if let Err(e) = load(&path, &LoadOptions::default()) {
            assert!(e.to_string().contains("cut.fbx"), "cut at {cut}: {e}");
        }
    }
    let header = scratch.join("header.fbx");
    std::fs::write(&header, b"Kaydara FBX Binary  \x00\x1a\x00\xe8\x1c\x00\x00").unwrap();
    let e = load(&header, &LoadOptions::default()).unwrap_err().to_string();
    assert!(e.contains("header.fbx") && e.contains("FBX"), "{e}");
    // The 1.8 MB dancer in 4 MiB: ufbx's own allocations are held to the budget.
    let limits = Limits { max_memory_bytes: 4 << 20, ..Limits::default() };
    let e = load(&dir.join("flair/Flair.fbx"), &LoadOptions { limits, ..LoadOptions::default() }).unwrap_err();
    assert!(matches!(e, spritebake::Error::Budget { .. }) && e.to_string().contains("FBX"), "{e}");
    std::fs::remove_dir_all(scratch).unwrap();
}

#[test]
fn a_cut_fbx_names_how_far_ufbx_had_read() {
    let scratch = scratch_in("fbx", "cut_offset");
    let bytes =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fbx/blend_shapes.fbx")).unwrap();
    let path = scratch.join("cut.fbx");
    let cut = bytes.len() / 2;
    std::fs::write(&path, &bytes[..cut]).unwrap();
    let e = load(&path, &LoadOptions::default()).unwrap_err().to_string();
    let offset: usize = e
        .split("byte offset ")
        .nth(1)
        .and_then(|rest| rest.split(':').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no byte offset in: {e}"));
    assert!(offset > 0 && offset <= cut && e.contains("cut.fbx"), "cut at {cut}: {e}");
    std::fs::remove_dir_all(scratch).unwrap();
}

#[test]
fn fbx_textures_embedded_and_external_map_the_right_way_up() {
    // Blender writes a quad with a 2x2 texture (top row red, green; bottom row blue, white),
    // once embedded in the FBX and once naming the PNG beside it.
    let scratch = scratch_in("fbx", "textures");
    if !common::blender::run("textured_fbx.py", &[scratch.as_os_str()], &scratch) {
        return;
    }
    for (file, embedded) in [("embedded.fbx", true), ("external.fbx", false)] {
        let model = load_ok(&scratch.join(file));
        let material = &model.materials[0];
        match &material.texture_status {
            spritebake::model::TextureStatus::Embedded(_) => assert!(embedded, "{file}"),
            spritebake::model::TextureStatus::Found(path) => {
                assert!(!embedded && path.ends_with("quad_skin.png"), "{file}: {path:?}")
            }
            other => panic!("{file}: {other:?}"),
        }
        let texture = material.texture.as_ref().unwrap();
        let texel = |u: f32, v: f32| {
            let (x, y) = ((u * 2.0).min(1.0) as usize, (v * 2.0).min(1.0) as usize);
            let i = 4 * (y * 2 + x);
            [texture.rgba[i], texture.rgba[i + 1], texture.rgba[i + 2]]
        };
        // Blender's plane corner (-1, +1) (Y-up: x -1, z -1) wears the red texel, (+1, -1)
        // (x +1, z +1) the white one.
        let mesh = &model.meshes[0];
        let corner = |x: f32, z: f32| {
            let i = mesh.positions.iter().position(|p| (p.x - x).abs() < 1e-3 && (p.z - z).abs() < 1e-3).unwrap();
            let uv = mesh.uvs[i];
            texel(uv.x.clamp(0.0, 0.999), uv.y.clamp(0.0, 0.999))
        };
        assert_eq!(corner(-1.0, -1.0), [255, 0, 0], "{file}");
        assert_eq!(corner(1.0, -1.0), [0, 255, 0], "{file}");
        assert_eq!(corner(-1.0, 1.0), [0, 0, 255], "{file}");
        assert_eq!(corner(1.0, 1.0), [255, 255, 255], "{file}");
    }
    std::fs::remove_dir_all(scratch).unwrap();
}

/// The points of a JSON array of `[x, y, z]`.
fn json_points(value: &serde_json::Value) -> Vec<Vec3> {
    let coordinate = |p: &serde_json::Value, i: usize| p[i].as_f64().unwrap() as f32;
    value.as_array().unwrap().iter().map(|p| Vec3::new(coordinate(p, 0), coordinate(p, 1), coordinate(p, 2))).collect()
}

/// How far apart two point clouds are, over the size of `theirs`: the farthest any point is
/// from the other cloud's nearest, either way, counted up to `cap` of the size.
fn apart(ours: &[Vec3], theirs: &[Vec3], cap: f32) -> f32 {
    let size = Aabb::from_points(theirs.iter().copied()).size().length();
    let cell = size * cap;
    points::farthest_nearest(ours, theirs, cell).max(points::farthest_nearest(theirs, ours, cell)) / size
}

#[test]
fn fbx_blend_shapes_on_a_skinned_mesh_agree_with_blenders_import() {
    // Blender bends a skinned column while shape keys Bulge and Pinch animate, Lean holds at
    // 0.35 and Pinch is masked by vertex weights, exports it, and poses its own import of the
    // file (tests/blender/blend_shape_fbx.py).
    let scratch = scratch_in("fbx", "blend_shapes");
    let frames = [0, 5, 10, 15, 20];
    let list = frames.map(|f| f.to_string()).join(",");
    if !common::blender::run("blend_shape_fbx.py", &[scratch.as_os_str(), list.as_ref()], &scratch) {
        return;
    }
    let json = std::fs::read_to_string(scratch.join("column.json")).unwrap();
    let blender: serde_json::Value = serde_json::from_str(&json).unwrap();
    let model = load_ok(&scratch.join("column.fbx"));
    assert!(model.warnings.is_empty(), "{:?}", model.warnings);
    // Three targets at the values Blender saved, in its order.
    let saved: Vec<f32> =
        ["Bulge", "Lean", "Pinch"].iter().map(|k| blender["weights"][k].as_f64().unwrap() as f32).collect();
    for mesh in &model.meshes {
        assert_eq!(mesh.morph_targets.len(), 3, "{}", mesh.name);
        let close = mesh.morph_weights.iter().zip(&saved).all(|(a, b)| (a - b).abs() < 1e-6);
        assert!(close && saved[1] == 0.35, "{:?} saved as {saved:?}", mesh.morph_weights);
    }
    // The stack keys the weights at its 20 frames (24 fps) and its end.
    let clip = &model.clips[0];
    assert!(matches!(clip.frames, spritebake::model::ClipFrames::Keyed(_)), "{}", clip.name);
    assert_eq!((clip.frame_count(), clip.fps), (20, 24.0));
    // At rest (the bind pose, the saved weights) and at each frame: Blender's vertices, and
    // far from where they would be without the shapes.
    let rest = spritebake::internal::bake::world_points(&model, &rest_pose(&model));
    let error = apart(&rest, &json_points(&blender["rest"]), 0.01);
    eprintln!("rest: vertices within {error:.2e} of the size");
    assert!(error < 2e-3, "rest: vertices up to {error:.2e} of the model's size apart");
    for frame in frames {
        let ours = posed_points(&model, &clip.name, frame as f32);
        let key = frame.to_string();
        let error = apart(&ours, &json_points(&blender["posed"][&key]), 0.01);
        let unshaped = apart(&ours, &json_points(&blender["plain"][&key]), 0.5);
        eprintln!("frame {frame}: vertices within {error:.2e} of the size, {unshaped:.2e} from the unshaped mesh");
        assert!(error < 2e-3, "frame {frame}: vertices up to {error:.2e} of the model's size apart");
        assert!(unshaped > 1e-2, "frame {frame}: the shapes move vertices only {unshaped:.2e} of the size");
    }
    std::fs::remove_dir_all(scratch).unwrap();
}

#[test]
fn a_scene_rate_outside_the_playable_range_is_clamped_with_a_warning() {
    let scratch = scratch_in("fbx", "rates");
    // TimeMode 14 is "custom": the scene's rate is its CustomFrameRate.
    let default_rate = "P: \"TimeMode\", \"enum\", \"\", \"\",6";
    for (rate, played) in [("1e300", 1000.0), ("1e-30", 0.01)] {
        let custom = format!(
            "P: \"TimeMode\", \"enum\", \"\", \"\",14\n\t\tP: \"CustomFrameRate\", \"double\", \"Number\", \"\",{rate}"
        );
        let text = common::fbx::two_root_walk(false);
        assert!(text.contains(default_rate));
        let path = scratch.join("rate.fbx");
        std::fs::write(&path, text.replace(default_rate, &custom)).unwrap();
        let model = load_ok(&path);
        let warned = model
            .warnings
            .iter()
            .any(|w| w.contains("outside 0.01 to 1000 fps") && w.contains(&format!("played at {played} fps")));
        assert!(warned, "{rate} fps: {:?}", model.warnings);
        for clip in &model.clips {
            // Played at the range's end: a one-second walk is 1,000 frames or one, never a
            // count that overflows.
            assert_eq!(clip.fps, played, "{rate} fps, {}", clip.name);
            assert!((1..=1000).contains(&clip.frame_count()), "{rate} fps: {} frames", clip.frame_count());
        }
    }
    std::fs::remove_dir_all(scratch).unwrap();
}

#[test]
fn two_travelling_roots_walk_in_place_as_one_piece() {
    // Sibling roots at the top of the file: each pinned to its own start (as before), the
    // feet trailed up to 0.4 behind the legs.
    let scratch = scratch_in("fbx", "two_roots");
    let path = scratch.join("walk.fbx");
    std::fs::write(&path, common::fbx::two_root_walk(false)).unwrap();
    let model = load_ok(&path);
    assert!(model.warnings.is_empty(), "{:?}", model.warnings);
    let rest: Vec<Vec3> = model.meshes.iter().flat_map(|m| m.positions.iter().copied()).collect();
    let drawn: Vec<Vec3> = common::walk::VERTICES.iter().map(|&p| Vec3::from(p)).collect();
    assert!(apart(&rest, &drawn, 0.01) < 1e-5, "{rest:?}");
    assert!(matches!(model.clips[0].frames, spritebake::model::ClipFrames::Skeletal(_)));
    common::walk::assert_walks_in_place_rigidly(&model, "Walk");
    std::fs::remove_dir_all(scratch).unwrap();
}

/// A unit quad whose corner (1, 1, 0) one channel raises: 0.4 at full effect at weight 50%,
/// 1.0 at 100%; saved at 25%; `stack` plays it. A second channel, at 100% and not animated,
/// raises the corner (0, 0, 0) by 0.3.
fn raised_quad(stack: common::fbx::Stack) -> String {
    use common::fbx::{Channel, Shape};
    let shape = |corner, full, height| Shape { full, offsets: vec![(corner, [0.0, 0.0, height])] };
    let channels = [
        Channel { percent: 25.0, shapes: vec![shape(2, 50.0, 0.4), shape(2, 100.0, 1.0)] },
        Channel { percent: 100.0, shapes: vec![shape(0, 100.0, 0.3)] },
    ];
    let vertices = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0]];
    common::fbx::blend_shapes(&vertices, &[vec![0, 1, 2, 3]], &channels, Some(stack))
}

#[test]
fn the_committed_fuzz_seed_is_the_hand_built_file() {
    let stack = common::fbx::Stack { seconds: 1.0, weight: Some((0.0, 100.0)) };
    common::assert_fixture("fbx/blend_shapes.fbx", raised_quad(stack).as_bytes());
}

#[test]
fn fbx_in_between_shapes_blend_piecewise_linearly_in_the_channel_weight() {
    // A one-second stack at 30 fps takes the first channel from 0% to 100%.
    use common::fbx::Stack;
    let scratch = scratch_in("fbx", "in_between");
    let load_quad = |name: &str, stack| {
        let path = scratch.join(name);
        std::fs::write(&path, raised_quad(stack)).unwrap();
        let model = load_ok(&path);
        assert!(model.warnings.is_empty(), "{name}: {:?}", model.warnings);
        model
    };
    // The heights of the two corners.
    let heights = |points: &[Vec3]| {
        let corner =
            |x: f32, y: f32| points.iter().find(|p| (p.x - x).abs() < 1e-4 && (p.y - y).abs() < 1e-4).unwrap().z;
        (corner(1.0, 1.0), corner(0.0, 0.0))
    };
    let model = load_quad("raise.fbx", Stack { seconds: 1.0, weight: Some((0.0, 100.0)) });
    let mesh = &model.meshes[0];
    // Each shape is a target; at 25% the first is at half effect.
    assert_eq!(mesh.morph_weights, [0.5, 0.0, 1.0]);
    let (raised, lifted) = heights(&mesh.positions);
    assert!((raised - 0.2).abs() < 1e-5 && (lifted - 0.3).abs() < 1e-5, "{:?}", mesh.positions);
    let clip = &model.clips[0];
    assert!(matches!(clip.frames, spritebake::model::ClipFrames::Keyed(_)));
    assert_eq!((clip.name.as_str(), clip.frame_count(), clip.fps), ("Raise", 30, 30.0));
    // Weight w = frame / 30: 0.8 w up to 50%, then 0.4 (1 - w) / 0.5 + 1.0 (w - 0.5) / 0.5.
    for (frame, expected) in [(0.0, 0.0), (6.0, 0.16), (15.0, 0.4), (24.0, 0.76), (30.0, 1.0)] {
        let (raised, lifted) = heights(&posed_points(&model, "Raise", frame));
        assert!((raised - expected).abs() < 1e-4, "frame {frame}: corner at {raised}, not {expected}");
        assert!((lifted - 0.3).abs() < 1e-5, "frame {frame}: the still channel's corner at {lifted}");
    }
    // A stack that animates no weight is skeletal and keeps the saved weights.
    let model = load_quad("still.fbx", Stack { seconds: 1.0, weight: None });
    let clip = &model.clips[0];
    assert!(matches!(clip.frames, spritebake::model::ClipFrames::Skeletal(_)));
    let (raised, lifted) = heights(&posed_points(&model, "Raise", 5.0));
    assert!((raised - 0.2).abs() < 1e-5 && (lifted - 0.3).abs() < 1e-5, "{raised} {lifted}");
    std::fs::remove_dir_all(scratch).unwrap();
}

#[test]
fn a_face_of_thousands_of_corners_is_fanned_in_linear_time_with_a_warning() {
    // Issue 46, R4-09: ufbx's ear clipping is quadratic; a face of 400,000 corners took 108 s.
    let dir = scratch_in("fbx", "star");
    for (corners, fanned) in [(4000, true), (100, false)] {
        let path = dir.join(format!("star{corners}.fbx"));
        std::fs::write(&path, common::fbx::star_polygon(corners)).unwrap();
        let model = load_ok(&path);
        let triangles: usize = model.meshes.iter().map(|m| m.indices.len()).sum();
        assert_eq!(triangles, corners - 2, "{corners} corners");
        let warned = model.warnings.iter().any(|w| w.contains("triangulated as fans"));
        assert_eq!(warned, fanned, "{corners} corners: {:?}", model.warnings);
    }
    std::fs::remove_dir_all(dir).unwrap();
}
