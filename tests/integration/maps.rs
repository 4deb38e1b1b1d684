//! Normal and depth maps for 2D lighting (`--maps`): a sphere's normals point out of it in the
//! engines' convention and its depth grows towards the limbs; maps share the colour output's
//! layout and alpha (sheets with trim and extrusion, pixel art, outlines, frames); companion
//! files are planned with the colour files; refusals; a golden normal-map sheet.

use std::path::{Path, PathBuf};

use glam::{Mat4, Vec3};
use spritebake::bake::{self, Sampling};
use spritebake::golden::Tolerance;
use spritebake::internal::bake::{Job, pack};
use spritebake::internal::budget::MemoryBudget;
use spritebake::model::{AlphaMode, Material};
use spritebake::output::{read_png, write_png};
use spritebake::raster::{Camera, Image, OrbitView, Projection, RenderOptions, Renderer, Scene, SceneObject};
use spritebake::spec::{Fit, LookSpec, MapKind};

use super::common;
use super::common::cli::{assert_refused, names_in, printed, run_in};
use super::common::robot;

fn scratch(name: &str) -> PathBuf {
    common::cli::scratch_in("maps", name)
}

fn run_ok(dir: &Path, args: &[&str]) {
    let o = run_in(dir, args);
    assert!(o.status.success(), "{args:?}: {}", printed(&o));
}

fn png(dir: &Path, name: &str) -> Image {
    read_png(&dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Writes a UV sphere of radius 1 at the origin with smooth (per-vertex, radial) normals as an
/// OBJ: `rings × segments` quads, counter-clockwise from outside.
fn write_sphere_obj(path: &Path, rings: u32, segments: u32) {
    let mut obj = String::new();
    for r in 0..=rings {
        let theta = std::f32::consts::PI * r as f32 / rings as f32;
        for s in 0..=segments {
            let phi = std::f32::consts::TAU * s as f32 / segments as f32;
            let p = Vec3::new(theta.sin() * phi.sin(), theta.cos(), theta.sin() * phi.cos());
            obj += &format!("v {} {} {}\nvn {} {} {}\n", p.x, p.y, p.z, p.x, p.y, p.z);
        }
    }
    let row = segments + 1;
    for r in 0..rings {
        for s in 0..segments {
            let (a, b, c, d) = (r * row + s + 1, r * row + s + 2, (r + 1) * row + s + 1, (r + 1) * row + s + 2);
            obj += &format!("f {a}//{a} {c}//{c} {b}//{b}\nf {b}//{b} {c}//{c} {d}//{d}\n");
        }
    }
    std::fs::write(path, obj).unwrap();
}

/// A normal-map pixel as a vector (y as the map's green says).
fn normal(p: [u8; 4]) -> Vec3 {
    Vec3::new(p[0] as f32, p[1] as f32, p[2] as f32) / 127.5 - Vec3::ONE
}

/// The alpha channel of an image.
fn alpha(image: &Image) -> Vec<u8> {
    image.rgba.chunks_exact(4).map(|p| p[3]).collect()
}

/// The sphere seen straight on (orthographic, pitch 0) at 65², so the centre pixel's centre is
/// the sphere's centre; `extra` flags added. Returns the colour, normal and depth images.
fn sphere_render(dir: &Path, extra: &[&str]) -> (Image, Image, Image) {
    write_sphere_obj(&dir.join("sphere.obj"), 32, 64);
    let mut args = vec!["render", "sphere.obj", "--maps", "normal,depth", "--ortho", "--pitch", "0", "--size", "65"];
    args.extend(extra);
    args.extend(["-o", "s.png"]);
    run_ok(dir, &args);
    (png(dir, "s.png"), png(dir, "s_n.png"), png(dir, "s_depth.png"))
}

/// The first and last covered pixel of row `y` and of column `x`.
fn limbs(image: &Image, x: u32, y: u32) -> [(u32, u32); 4] {
    let covered = |px: u32, py: u32| image.pixel(px, py).unwrap()[3] > 0;
    let row: Vec<u32> = (0..image.width).filter(|&px| covered(px, y)).collect();
    let col: Vec<u32> = (0..image.height).filter(|&py| covered(x, py)).collect();
    [(row[0], y), (*row.last().unwrap(), y), (x, col[0]), (x, *col.last().unwrap())]
}

#[test]
fn a_sphere_faces_the_viewer_at_its_centre_and_its_limbs_point_outwards() {
    let dir = scratch("sphere");
    let (colour, normals, depth) = sphere_render(&dir, &[]);
    let (w, h) = (normals.width, normals.height);
    assert_eq!((w, h), (65, 65));
    // Alpha is the colour's, pixel for pixel.
    assert_eq!(alpha(&normals), alpha(&colour));
    assert_eq!(alpha(&depth), alpha(&colour));

    // The centre faces the viewer: (128, 128, 255) within 2/255.
    let centre = normals.pixel(32, 32).unwrap();
    assert!(centre[0].abs_diff(128) <= 2 && centre[1].abs_diff(128) <= 2 && centre[2] >= 253, "centre {centre:?}");
    assert_eq!(centre[3], 255);
    // Limbs point out of the sphere: left is −x, right +x, top +y (green up), bottom −y.
    let [left, right, top, bottom] = limbs(&normals, 32, 32).map(|(x, y)| normal(normals.pixel(x, y).unwrap()));
    assert!(left.x < -0.9 && right.x > 0.9, "left {left}, right {right}");
    assert!(top.y > 0.9 && bottom.y < -0.9, "top {top}, bottom {bottom}");
    assert!(left.y.abs() < 0.15 && right.y.abs() < 0.15 && top.x.abs() < 0.15 && bottom.x.abs() < 0.15);
    // Every covered pixel is a unit normal facing the viewer, pointing away from the centre.
    for y in 0..h {
        for x in 0..w {
            let p = normals.pixel(x, y).unwrap();
            if p[3] < 255 {
                continue;
            }
            let n = normal(p);
            assert!((n.length() - 1.0).abs() < 0.02 && n.z > -0.05, "({x},{y}) {n}");
            let out = Vec3::new(x as f32 - 32.0, 32.0 - y as f32, 0.0);
            assert!(out.length() < 2.0 || n.truncate().dot(out.truncate()) > 0.0, "({x},{y}) {n} against {out}");
        }
    }

    // Depth grows from the centre (nearest: white) to every limb (black at the farthest).
    let grey = |x: u32, y: u32| depth.pixel(x, y).unwrap()[0];
    assert_eq!(grey(32, 32), 255);
    for (x, y) in limbs(&depth, 32, 32) {
        assert!(grey(x, y) < 80, "limb ({x},{y}) grey {}", grey(x, y));
    }
    for run in [(0..=32).rev().collect::<Vec<u32>>(), (32..65).collect()] {
        let opaque = run.iter().filter(|&&x| depth.pixel(x, 32).unwrap()[3] == 255);
        let greys: Vec<u8> = opaque.map(|&x| grey(x, 32)).collect();
        assert!(greys.windows(2).all(|g| g[1] <= g[0]), "not darker outwards: {greys:?}");
    }
    // R = G = B.
    assert!(depth.rgba.chunks_exact(4).all(|p| p[0] == p[1] && p[1] == p[2]));
}

#[test]
fn normal_y_down_mirrors_green_and_nothing_else() {
    let dir = scratch("y-down");
    let (_, up, _) = sphere_render(&dir, &[]);
    let (_, down, _) = sphere_render(&dir, &["--normal-y", "down"]);
    for (u, d) in up.rgba.chunks_exact(4).zip(down.rgba.chunks_exact(4)) {
        assert_eq!((u[0], u[2], u[3]), (d[0], d[2], d[3]));
        if u[3] > 0 {
            assert_eq!(d[1], 255 - u[1]);
        }
    }
    // The top limb's green now says "down".
    let [_, _, top, _] = limbs(&down, 32, 32);
    assert!(normal(down.pixel(top.0, top.1).unwrap()).y < -0.9);
}

/// The meshes of the library-level tests: a unit sphere, and in front of it a half-transparent
/// quad and an alpha-tested one (the paths that draw in order, not deferred).
fn sphere_scene_meshes() -> Vec<common::TestMesh> {
    let sphere = common::uv_sphere(16, 32, common::white());
    let quad = |x0: f32, z: f32, alpha: AlphaMode, a: f32| {
        let positions = vec![
            Vec3::new(x0, -0.4, z),
            Vec3::new(x0 + 0.6, -0.4, z),
            Vec3::new(x0 + 0.6, 0.5, z),
            Vec3::new(x0, 0.5, z),
        ];
        let mut mesh = common::TestMesh::new(positions, vec![[0, 1, 2], [0, 2, 3]]);
        mesh.material = Material { base_color: [0.2, 0.6, 1.0, a], alpha_mode: alpha, ..Material::named("glass") };
        mesh
    };
    vec![sphere, quad(-0.9, 1.2, AlphaMode::Blend, 0.5), quad(0.3, 1.3, AlphaMode::Mask(0.5), 0.8)]
}

fn scene_of<'a>(posed: &'a [spritebake::model::PosedMesh<'a>], camera: Camera) -> Scene<'a> {
    Scene { objects: posed.iter().map(|p| SceneObject { posed: p, model_to_world: Mat4::IDENTITY }).collect(), camera }
}

#[test]
fn maps_have_the_colour_alpha_on_every_drawing_path() {
    let meshes = sphere_scene_meshes();
    let posed: Vec<_> = meshes.iter().map(|m| m.posed()).collect();
    let camera = Camera::look_at(Vec3::new(0.3, 0.4, 5.0), Vec3::ZERO, Projection::Orthographic, 1.0, 1.0, 10.0);
    let scene = scene_of(&posed, camera);
    let renderer = Renderer::new();
    for ssaa in 1..=4 {
        for shading_rate in [spritebake::raster::ShadingRate::Pixel, spritebake::raster::ShadingRate::Sample] {
            let options = RenderOptions { width: 47, height: 40, ssaa, shading_rate, ..RenderOptions::default() };
            let colour = renderer.render(&scene, &options).unwrap();
            let normals = renderer.render_normals(&scene, &options).unwrap();
            let depth = renderer.render_depth(&scene, &options).unwrap();
            assert_eq!(alpha(&normals), alpha(&colour), "ssaa {ssaa} {shading_rate:?}: normal alpha");
            let depth_alpha: Vec<u8> = depth.pixels.iter().map(|p| p.alpha).collect();
            assert_eq!(depth_alpha, alpha(&colour), "ssaa {ssaa} {shading_rate:?}: depth alpha");
            assert!(alpha(&colour).iter().any(|&a| a > 0 && a < 255), "edges are soft");
        }
    }
    // A background colours the image, never the maps.
    let options =
        RenderOptions { width: 47, height: 40, background: Some([9, 9, 9, 255]), ssaa: 1, ..RenderOptions::default() };
    assert!(renderer.render(&scene, &options).unwrap().rgba.chunks_exact(4).all(|p| p[3] == 255));
    let normals = renderer.render_normals(&scene, &options).unwrap();
    assert_eq!(normals.pixel(0, 0), Some([128, 128, 255, 0]));
}

#[test]
fn view_depth_is_the_distance_along_the_camera_axis_for_both_projections() {
    let sphere = common::uv_sphere(32, 64, common::white());
    let posed = [sphere.posed()];
    let renderer = Renderer::new();
    for projection in [Projection::Orthographic, Projection::Perspective { fov_y_degrees: 40.0 }] {
        // The eye 5 units in front of a unit sphere: its front is 4 units away.
        let camera = Camera::look_at(Vec3::new(0.0, 0.0, 5.0), Vec3::ZERO, projection, 1.0, 2.0, 9.0);
        let options = RenderOptions { width: 65, height: 65, ssaa: 2, ..RenderOptions::default() };
        let depth = renderer.render_depth(&scene_of(&posed, camera), &options).unwrap();
        let centre = depth.pixel(32, 32).unwrap();
        assert_eq!(centre.alpha, 255);
        assert!((centre.depth - 4.0).abs() < 0.01, "{projection:?}: centre depth {}", centre.depth);
        // Off centre the sphere is farther: at most its centre's distance, 5.
        for p in depth.pixels.iter().filter(|p| p.alpha == 255) {
            assert!(p.depth > 3.99 && p.depth < 5.0, "{projection:?}: depth {}", p.depth);
        }
    }
}

/// The robot walking, as a sheet through the CLI into `dir`, with `extra` flags.
fn robot_sheet(dir: &Path, extra: &[&str]) {
    let (mesh, anim) = (robot("robot.md5mesh"), robot("walk.md5anim"));
    let mut args = vec!["sheet", &mesh, "--anim", &anim, "--directions", "4", "--frames", "3", "--size", "40"];
    args.extend(extra);
    args.extend(["-o", "walk.png"]);
    run_ok(dir, &args);
}

#[test]
fn maps_share_the_sheet_layout_and_alpha_with_trim_and_extrusion() {
    let dir = scratch("sheet-trim");
    robot_sheet(&dir, &["--trim", "--padding", "3", "--extrude", "2", "--maps", "normal,depth"]);
    assert_eq!(names_in(&dir), ["walk.json", "walk.png", "walk_depth.png", "walk_n.png"]);
    let (colour, normals, depth) = (png(&dir, "walk.png"), png(&dir, "walk_n.png"), png(&dir, "walk_depth.png"));
    assert_eq!((normals.width, normals.height), (colour.width, colour.height));
    assert_eq!(alpha(&normals), alpha(&colour));
    assert_eq!(alpha(&depth), alpha(&colour));
    // Every frame's rectangle holds real maps: normals vary, depth spans a range.
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(dir.join("walk.json")).unwrap()).unwrap();
    let frames = json["frames"].as_object().unwrap();
    assert_eq!(frames.len(), 12);
    let mut greys = std::collections::BTreeSet::new();
    for f in frames.values() {
        assert_eq!(f["trimmed"], true);
        let r = &f["frame"];
        let n = |k: &str| r[k].as_u64().unwrap() as u32;
        let crop = |image: &Image| spritebake::internal::bake::post::crop(image, n("x"), n("y"), n("w"), n("h"));
        let cell_normals = crop(&normals);
        let distinct: std::collections::BTreeSet<[u8; 4]> =
            cell_normals.rgba.chunks_exact(4).filter(|p| p[3] == 255).map(|p| [p[0], p[1], p[2], p[3]]).collect();
        assert!(distinct.len() >= 8, "{} distinct normals", distinct.len());
        greys.extend(crop(&depth).rgba.chunks_exact(4).filter(|p| p[3] > 0).map(|p| p[0]));
    }
    // One depth range for the job: the nearest pixel of all frames is white, the farthest black.
    assert_eq!((greys.first(), greys.last()), (Some(&0), Some(&255)));
    // The padding of the normal map is the flat, transparent normal.
    assert_eq!(normals.pixel(0, 0), Some([128, 128, 255, 0]));
}

#[test]
fn pixel_art_and_outline_maps_keep_the_colour_alpha_and_no_palette() {
    let dir = scratch("pixel-art");
    let look = ["--pixel-art", "3", "--palette", "8", "--outline", "1", "--maps", "normal,depth", "--trim"];
    robot_sheet(&dir, &look);
    let (colour, normals, depth) = (png(&dir, "walk.png"), png(&dir, "walk_n.png"), png(&dir, "walk_depth.png"));
    assert_eq!(alpha(&normals), alpha(&colour));
    assert_eq!(alpha(&depth), alpha(&colour));
    assert!(alpha(&colour).iter().all(|&a| a == 0 || a == 255), "hard edges");
    let opaque = |image: &Image| -> std::collections::BTreeSet<[u8; 3]> {
        image.rgba.chunks_exact(4).filter(|p| p[3] == 255).map(|p| [p[0], p[1], p[2]]).collect()
    };
    // The palette reduces the colour only (8 colours + the outline's).
    assert!(opaque(&colour).len() <= 9, "{} colours", opaque(&colour).len());
    assert!(opaque(&normals).len() > 40, "{} normals", opaque(&normals).len());
    // Outline pixels (the outline colour, black: no sprite pixel of this sheet is black) face
    // the viewer. A sprite pixel is exactly the flat normal only where its block's normals
    // average to the view direction: a few pixels.
    let flat_normal = |i: usize| normals.rgba.get(i * 4..i * 4 + 4) == Some(&[128, 128, 255, 255][..]);
    let black: Vec<usize> =
        (0..colour.rgba.len() / 4).filter(|&i| colour.rgba[i * 4..i * 4 + 4] == [0, 0, 0, 255]).collect();
    assert!(!black.is_empty() && black.iter().all(|&i| flat_normal(i)), "outline pixels that do not face the viewer");
    let flat = (0..normals.rgba.len() / 4).filter(|&i| flat_normal(i)).count();
    assert!(flat - black.len() <= 4, "{flat} flat normals, {} outline pixels", black.len());
    // Every map pixel is a unit normal.
    for p in normals.rgba.chunks_exact(4).filter(|p| p[3] == 255) {
        assert!((normal([p[0], p[1], p[2], p[3]]).length() - 1.0).abs() < 0.02, "{p:?}");
    }
}

#[test]
fn frames_get_map_files_with_the_suffix_before_the_extension_the_same_for_any_thread_count() {
    let dir = scratch("frames");
    let (mesh, anim) = (robot("robot.md5mesh"), robot("walk.md5anim"));
    let base = ["frames", &mesh, "--anim", &anim, "--directions", "2", "--frames", "2", "--size", "24"];
    for threads in ["1", "2"] {
        let out = format!("t{threads}/{{dir}}_{{frame:03}}.png");
        let mut args = base.to_vec();
        args.extend(["--maps", "depth,normal", "--threads", threads, "-o", &out]);
        run_ok(&dir, &args);
    }
    let names = names_in(&dir.join("t1"));
    // 4 frames, each with 2 maps, and the frames' data file.
    assert_eq!(names.len(), 13, "{names:?}");
    for stem in ["0_000", "0_001", "1_000", "1_001"] {
        for suffix in ["", "_n", "_depth"] {
            let name = format!("{stem}{suffix}.png");
            assert!(names.contains(&name), "{name} missing from {names:?}");
            let a = std::fs::read(dir.join("t1").join(&name)).unwrap();
            assert_eq!(a, std::fs::read(dir.join("t2").join(&name)).unwrap(), "{name} differs between thread counts");
        }
        let (colour, depth) =
            (png(&dir.join("t1"), &format!("{stem}.png")), png(&dir.join("t1"), &format!("{stem}_depth.png")));
        assert_eq!(alpha(&depth), alpha(&colour));
    }
}

#[test]
fn map_files_are_planned_so_one_landing_on_an_input_is_refused_before_rendering() {
    let dir = scratch("plan");
    write_sphere_obj(&dir.join("ball.obj"), 8, 16);
    write_png(&dir.join("skin_n.png"), &Image::new(2, 2).unwrap()).unwrap();
    let before = std::fs::read(dir.join("skin_n.png")).unwrap();
    let o = run_in(&dir, &["render", "ball.obj", "--texture", "skin_n.png", "--maps", "normal", "-o", "skin.png"]);
    assert_eq!(o.status.code(), Some(2), "{}", printed(&o));
    assert!(printed(&o).contains("skin_n.png"), "{}", printed(&o));
    assert_eq!(std::fs::read(dir.join("skin_n.png")).unwrap(), before);
    assert_eq!(names_in(&dir), ["ball.obj", "skin_n.png"]);
}

#[test]
fn refusals_name_the_option_and_write_nothing() {
    let dir = scratch("refused");
    write_sphere_obj(&dir.join("ball.obj"), 8, 16);
    let cases: &[(&[&str], &[&str])] = &[
        (&["gif", "ball.obj", "--maps", "normal", "-o", "b.gif"], &["--maps", "sheet, frames and render"]),
        (&["sheet", "ball.obj", "--normal-y", "down", "-o", "b.png"], &["--normal-y", "--maps"]),
        (
            &["sheet", "ball.obj", "--maps", "depth", "--normal-y", "down", "-o", "b.png"],
            &["--normal-y", "--maps to include normal"],
        ),
        (&["render", "ball.obj", "--maps", "normal", "--skeleton", "-o", "b.png"], &["--maps", "--skeleton"]),
    ];
    for (args, words) in cases {
        let o = run_in(&dir, args);
        assert_refused(&o, words);
        assert_eq!(names_in(&dir), ["ball.obj"], "{args:?} wrote something");
    }
    // An unknown map name: clap lists the names it takes.
    let o = run_in(&dir, &["sheet", "ball.obj", "--maps", "normal,height", "-o", "b.png"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("'height'") && err.contains("normal") && err.contains("depth"), "{err}");
    assert_eq!(names_in(&dir), ["ball.obj"]);
}

#[test]
fn project_and_manifest_entries_refuse_maps_where_they_make_no_sense() {
    let dir = scratch("refused-files");
    write_sphere_obj(&dir.join("ball.obj"), 8, 16);
    // A manifest spells an unknown map as a bad value of its key.
    let e = spritebake::spec::BakeSpec::from_table(&"maps = [\"normal\", \"heights\"]".parse().unwrap(), &[])
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("`maps` = [\"normal\", \"heights\"]: unknown variant `heights`"), "{e}");
    // A project's GIF with maps fails its entry before anything is written.
    std::fs::write(
        dir.join("bake.toml"),
        "[[gif]]\nname = \"g\"\nmodel = \"ball.obj\"\nmaps = \"normal\"\noutput = \"g.gif\"\n",
    )
    .unwrap();
    let o = run_in(&dir, &["bake", "bake.toml"]);
    assert!(!o.status.success());
    assert!(printed(&o).contains("sheet, frames and render"), "{}", printed(&o));
    assert!(!dir.join("g.gif").exists() && !dir.join("g_n.gif").exists());
    // `check` compares colour images and says so.
    std::fs::write(
        dir.join("cases.toml"),
        "[[case]]\nname = \"c\"\nmodel = \"ball.obj\"\nmaps = [\"depth\"]\ngolden = \"c.png\"\n",
    )
    .unwrap();
    let o = run_in(&dir, &["check", "cases.toml", "--bless"]);
    assert!(!o.status.success());
    assert!(printed(&o).contains("not compared by check"), "{}", printed(&o));
    assert!(!dir.join("c.png").exists());
}

#[test]
fn maps_are_charged_to_the_memory_budget_before_rendering() {
    let model = {
        let options = spritebake::formats::LoadOptions {
            animations: vec![PathBuf::from(robot("walk.md5anim"))],
            ..Default::default()
        };
        spritebake::formats::load(Path::new(&robot("robot.md5mesh")), &options).unwrap()
    };
    let mut job = golden_job(&model);
    job.options.width = 256;
    job.options.height = 256;
    // 16 cells of 256² at 8 bytes a pixel is 8 MiB; the maps add 24 bytes a pixel.
    let budget = || MemoryBudget::new(12 << 20);
    job.look.maps = Vec::new();
    job.prepare(&budget()).unwrap().charge_held(&budget()).unwrap();
    job.look.maps = vec![MapKind::Normal, MapKind::Depth];
    let e = job.prepare(&budget()).unwrap().charge_held(&budget()).unwrap_err().to_string();
    assert!(e.contains("16 frames of 256x256"), "{e}");
}

/// The robot walking in 4 directions, 4 frames each, 40² cells: the golden normal-map sheet's
/// job.
fn golden_job(model: &spritebake::model::Model) -> Job<'_> {
    Job {
        model,
        clips: vec![model.clips.first()],
        transitions: Vec::new(),
        layers: Default::default(),
        directions: spritebake::bake::Directions::compass(4),
        view: OrbitView { pitch_degrees: 20.0, ..OrbitView::default() },
        options: RenderOptions { width: 40, height: 40, ssaa: 4, ..RenderOptions::default() },
        fit: Fit::Shared,
        pixels_per_unit: None,
        ground: spritebake::spec::Ground::Auto,
        auto_size: false,
        sampling: Sampling::Count(4),
        looping: Default::default(),
        pose: spritebake::anim::PoseOptions { looping: true, in_place: true },
        look: LookSpec { maps: vec![MapKind::Normal], ..LookSpec::default() },
        points: Vec::new(),
    }
}

#[test]
fn golden_robot_walk_normal_map_sheet() {
    let options = spritebake::formats::LoadOptions {
        animations: vec![PathBuf::from(robot("walk.md5anim"))],
        ..Default::default()
    };
    let model = spritebake::formats::load(Path::new(&robot("robot.md5mesh")), &options).unwrap();
    let job = golden_job(&model);
    let cells = job.render().unwrap();
    let layout = bake::Layout { padding: 2, extrude: 0, trim: false, ..bake::Layout::default() };
    let packed = pack(&cells, &job.info(), layout, &MemoryBudget::default()).unwrap();
    let [maps] = packed.maps.try_into().unwrap();
    let normals = maps.normal.expect("a normal map");
    assert_eq!(alpha(&normals), alpha(&packed.images[0]));
    assert!(maps.depth.is_none());
    common::golden::assert_golden(&normals, Tolerance { channel: 2, max_pixels: 20 });
}

#[test]
fn normal_maps_face_the_viewer_even_where_interpolated_normals_turn_away() {
    let dir = scratch("hemisphere");
    // The ogro's smooth normals turn away from the viewer along its silhouette; the example
    // robot stands in where the corpus is absent.
    let ogro = common::corpus("md2/ogro").map(|d| d.join("ogro.md2").display().to_string());
    let (model, anim) = match &ogro {
        Some(ogro) => (ogro.clone(), String::from("stand")),
        None => (robot("robot.md5mesh"), robot("walk.md5anim")),
    };
    run_ok(
        &dir,
        &["sheet", &model, "--anim", &anim, "--directions", "8", "--size", "96", "--maps", "normal", "-o", "s.png"],
    );
    let map = png(&dir, "s_n.png");
    let opaque: Vec<&[u8]> = map.rgba.chunks_exact(4).filter(|p| p[3] > 0).collect();
    assert!(opaque.len() > 10_000, "{} covered pixels", opaque.len());
    let away = opaque.iter().filter(|p| p[2] < 128).count();
    assert_eq!(away, 0, "{away} of {} normals face away from the viewer", opaque.len());
    // Edge-on normals (blue 128) exist where the mesh turns away: the silhouette is kept.
    assert!(opaque.iter().any(|p| p[2] < 140), "no normal near edge-on");
    std::fs::remove_dir_all(dir).unwrap();
}
