//! `export` round trip: every model of the shared corpus exported as OBJ (Y-up, facing +Z by
//! default) loads back with the same posed vertices in the renderer's world frame, the same
//! silhouette and the same textures (files copied, glTF embedded images written as PNG).
//! Skipped with a note when the corpus is absent.

use std::path::{Path, PathBuf};
use std::process::Command;

use glam::Vec3;
use spritebake::bake;
use spritebake::internal::bake::world_points;
use spritebake::model::{Model, PosedMesh, TextureStatus};
use spritebake::raster::{Camera, Image, OrbitView, RenderOptions, Renderer};
use spritebake::{BakeSpec, anim};

use crate::common::{self, cli::printed, cli::scratch_in};

/// Animation files posed with a model (relative to the corpus), so the export is of a posed
/// frame rather than the rest pose.
const ANIMATIONS: &[(&str, &str)] = &[
    ("md5/bob_lamp/boblampclean.md5mesh", "md5/bob_lamp/boblampclean.md5anim"),
    ("smd/headcrab/reference.smd", "smd/headcrab/walk.smd"),
    (
        "smd/combine_soldier_lod4/combine_soldier_Soldier_reference_lod4.smd",
        "smd/combine_soldier_lod4/body_poses_lean.smd",
    ),
    ("smd/bst_cube/Cube.smd", "smd/bst_cube/anim_X_Axis.smd"),
];

/// The frame every model is exported at: between two frames, so interpolation is exported too.
const FRAME: &str = "1.5";

/// Every model file in the corpus (by extension), relative to it, sorted.
fn corpus_models(root: &Path) -> Vec<String> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else {
                out.push(path);
            }
        }
    }
    let mut files = Vec::new();
    walk(root, &mut files);
    let model = |p: &PathBuf| {
        let ext = p.extension().map(|e| e.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
        ["md2", "md5mesh", "smd", "obj", "gltf", "glb"].contains(&ext.as_str())
    };
    let mut models: Vec<String> = files
        .iter()
        .filter(|p| model(p))
        .map(|p| p.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/"))
        .collect();
    models.sort();
    models
}

/// The spec `export` runs for `file` (with its animation, at [`FRAME`]).
fn spec(root: &Path, file: &str) -> BakeSpec {
    let mut spec = BakeSpec::default();
    spec.model.model = root.join(file);
    spec.anim.anim =
        ANIMATIONS.iter().filter(|(m, _)| *m == file).map(|(_, a)| root.join(a).display().to_string()).collect();
    // A frame past the first on a model with no clips is refused: only animated models get it.
    let options = spritebake::formats::LoadOptions::default();
    if spritebake::formats::load(&spec.model.model, &options).is_ok_and(|m| !m.clips.is_empty()) {
        spec.moment.frame = vec![FRAME.parse().unwrap()];
    }
    spec
}

/// World positions of every triangle corner, in order: what the renderer draws, independent
/// of how a format shares vertices between triangles.
fn corners(model: &Model, posed: &PosedMesh) -> Vec<Vec3> {
    let points = world_points(model, posed);
    let mut out = Vec::new();
    let mut base = 0;
    for part in &posed.parts {
        out.extend(part.indices.iter().flatten().map(|&i| points[base + i as usize]));
        base += part.positions.len();
    }
    out
}

/// Whether each pixel is covered (alpha at least half).
fn mask(image: &Image) -> Vec<bool> {
    image.rgba.chunks_exact(4).map(|p| p[3] >= 128).collect()
}

fn small() -> RenderOptions {
    RenderOptions { width: 48, height: 48, ssaa: 1, ..RenderOptions::default() }
}

#[test]
fn every_corpus_model_exports_as_obj_that_loads_back_in_the_same_place() {
    let Some(root) = common::corpus("") else { return };
    let out_root = scratch_in("export", "corpus");
    let renderer = Renderer::new();
    let mut exported = Vec::new();
    // Textures compared: (copied files, embedded images written as PNG).
    let (mut files, mut embedded) = (0, 0);
    for file in corpus_models(&root) {
        let spec = spec(&root, &file);
        let resolved = spec.resolve().unwrap();
        let loaded = match bake::load(&resolved) {
            Ok(loaded) => loaded,
            // Broken on purpose (the edge folders) or an SMD sequence (no triangles: an
            // animation, posed with its reference above).
            Err(e) if file.contains("edge/") || e.to_string().contains("a reference SMD needs a `triangles` block") => {
                continue;
            }
            Err(e) => panic!("{file}: {e}"),
        };
        let model = &loaded.model;
        let posed = anim::animate(model, &loaded.animation(&resolved).unwrap(), resolved.moments[0]);

        // Export with the command line, as a user would (default axes), into a folder of its own.
        let dir = out_root.join(exported.len().to_string());
        let obj = dir.join("posed.obj");
        let mut args: Vec<String> = vec!["export".into(), root.join(&file).display().to_string()];
        for a in &spec.anim.anim {
            args.extend(["--anim".into(), a.clone()]);
        }
        if !spec.moment.frame.is_empty() {
            args.extend(["--frame".into(), FRAME.into()]);
        }
        args.extend(["-o".into(), obj.display().to_string()]);
        let o = Command::new(env!("CARGO_BIN_EXE_spritebake")).args(&args).output().unwrap();
        assert!(o.status.success(), "{file}: {}", printed(&o));
        let back = spritebake::formats::load(&obj, &Default::default()).unwrap_or_else(|e| panic!("{file}: {e}"));
        let back_posed = anim::animate(&back, &Default::default(), anim::FrameTime::Frame(0.0));

        // The same triangles at the same world positions, to 1e-5 of the model's size.
        let (a, b) = (corners(model, &posed), corners(&back, &back_posed));
        assert_eq!(a.len(), b.len(), "{file}: triangle corners");
        let size = spritebake::model::Aabb::from_points(a.iter().copied()).size().length().max(1e-6);
        let worst = a.iter().zip(&b).map(|(p, q)| p.distance(*q)).fold(0.0f32, f32::max);
        assert!(worst <= 1e-5 * size, "{file}: a vertex moved {worst} (model size {size})");

        // The same silhouette, seen by the same camera.
        let view = OrbitView { yaw_degrees: 30.0, pitch_degrees: 20.0, ..OrbitView::default() };
        let camera = Camera::fit(&view, &world_points(model, &posed), 1.0);
        let original = bake::render_posed(&renderer, model, &posed, camera, &small()).unwrap();
        let reloaded = bake::render_posed(&renderer, &back, &back_posed, camera, &small()).unwrap();
        let (m0, m1) = (mask(&original), mask(&reloaded));
        let covered = m0.iter().filter(|&&c| c).count();
        let differ = m0.iter().zip(&m1).filter(|(x, y)| x != y).count();
        assert!(covered > 20, "{file}: {covered} pixels covered");
        assert!(differ <= 2 + covered / 100, "{file}: {differ} of {covered} silhouette pixels differ");

        // Every texture the model found or holds is beside the OBJ, named by map_Kd, same texels.
        for (i, part) in posed.parts.iter().enumerate() {
            let has_file = matches!(part.material.texture_status, TextureStatus::Found(_) | TextureStatus::Embedded(_));
            let Some(texture) = part.material.texture.as_ref().filter(|_| has_file) else { continue };
            let prefix = format!("m{i}_");
            let material = back.materials.iter().find(|m| m.name.starts_with(&prefix)).unwrap();
            let TextureStatus::Found(path) = &material.texture_status else {
                panic!("{file}: part {i}: {:?}", material.texture_status)
            };
            assert_eq!(path.parent(), Some(dir.as_path()), "{file}: part {i}");
            let copy = material.texture.as_ref().unwrap();
            assert_eq!((copy.width, copy.height), (texture.width, texture.height), "{file}: part {i}");
            assert!(copy.rgba == texture.rgba, "{file}: part {i}: texels differ");
            match part.material.texture_status {
                TextureStatus::Embedded(_) => embedded += 1,
                _ => files += 1,
            }
        }
        exported.push(file);
    }
    // Every format, and every model of the corpus that loads.
    for ext in ["md2", "md5mesh", "smd", "obj", "glb", "gltf"] {
        assert!(exported.iter().any(|f| f.ends_with(ext)), "no .{ext} exported: {exported:?}");
    }
    assert!(exported.len() >= 25, "{exported:?}");
    // Spider's JPEGs, ogro's skins, bob's TGAs, the headcrab's BMPs, the PCX that is a PNG...;
    // CesiumMan's and Fox's embedded images.
    assert!(files >= 20 && embedded >= 2, "{files} texture files, {embedded} embedded images compared");
    eprintln!("exported and loaded back: {exported:?}; textures: {files} files, {embedded} embedded");
    std::fs::remove_dir_all(out_root).unwrap();
}

#[test]
fn embedded_gltf_textures_are_written_as_png_beside_the_obj() {
    let Some(dir) = common::corpus("gltf/fox") else { return };
    let out = scratch_in("export", "fox");
    let obj = out.join("fox.obj");
    let o = Command::new(env!("CARGO_BIN_EXE_spritebake"))
        .args(["export", dir.join("Fox.glb").to_str().unwrap(), "-o", obj.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", printed(&o));
    assert_eq!(common::cli::names_in(&out), ["fox.mtl", "fox.obj", "fox_image0.png"]);
    let mtl = std::fs::read_to_string(out.join("fox.mtl")).unwrap();
    assert!(mtl.lines().any(|l| l == "map_Kd fox_image0.png"), "{mtl}");
    assert!(spritebake::output::read_png(&out.join("fox_image0.png")).is_ok());
    std::fs::remove_dir_all(out).unwrap();
}

#[test]
fn export_keeps_the_file_axes_only_when_asked() {
    let out = scratch_in("export", "axes");
    let md2 = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/assets/robot/robot.md2");
    let bounds = |flags: &[&str]| {
        let obj = out.join("robot.obj");
        let mut args = vec!["export", md2.to_str().unwrap(), "-o", obj.to_str().unwrap()];
        args.extend_from_slice(flags);
        let o = Command::new(env!("CARGO_BIN_EXE_spritebake")).args(&args).output().unwrap();
        assert!(o.status.success(), "{flags:?}: {}", printed(&o));
        spritebake::formats::load(&obj, &Default::default()).unwrap().rest_bounds().size()
    };
    // MD2 is Z-up: the default export stands along Y, --keep-axes along Z.
    let (default, kept) = (bounds(&[]), bounds(&["--keep-axes"]));
    assert!(default.y > default.z * 1.5, "{default}");
    assert!(kept.z > kept.y * 1.5, "{kept}");
    // --up reaches the export: declared Y-up (facing +X still), the file's X becomes the depth
    // and its Z the width.
    let declared = bounds(&["--up", "+y"]);
    let expected = Vec3::new(kept.z, kept.y, kept.x);
    assert!((declared - expected).abs().max_element() < 1e-3, "{declared} vs {expected}");
    std::fs::remove_dir_all(out).unwrap();
}
