//! The glTF models of the shared corpus: every clip poses at every key time and halfway
//! between, renders non-empty; the Fox's clips and a jitter-free sheet of its walk; goldens of
//! CesiumMan walking. Skipped with a note when the corpus is absent.

use std::path::{Path, PathBuf};

use spritebake::anim::{FrameTime, PoseOptions, pose};
use spritebake::bake::{self, FrameRequest};
use spritebake::bake::{Directions, Sampling};
use spritebake::golden::Tolerance;
use spritebake::internal::bake::Job;
use spritebake::model::{ClipFrames, Model, TextureStatus};
use spritebake::raster::{OrbitView, Projection, RenderOptions, Renderer};
use spritebake::spec::Fit;

use crate::common;
use crate::common::golden::Goldens;

const MODELS: &[&str] =
    &["cesiumman/CesiumMan.glb", "fox/Fox.glb", "riggedsimple_blender/RiggedSimple.glb", "simpleskin/SimpleSkin.gltf"];

fn load(path: &Path) -> Model {
    spritebake::formats::load(path, &Default::default()).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every key time of a keyed clip and the midpoints between consecutive ones.
fn key_times_and_midpoints(frames: &ClipFrames) -> Vec<f32> {
    let ClipFrames::Keyed(k) = frames else { panic!("glTF clips are keyed") };
    let mut times: Vec<f32> = k.channels.iter().flat_map(|c| c.times.iter().copied()).collect();
    times.sort_by(f32::total_cmp);
    times.dedup();
    let mids: Vec<f32> = times.windows(2).map(|w| 0.5 * (w[0] + w[1])).collect();
    times.extend(mids);
    times
}

#[test]
fn every_corpus_gltf_model_poses_at_every_key_and_renders() {
    let Some(dir) = common::corpus("gltf") else { return };
    let renderer = Renderer::new();
    for file in MODELS {
        let mut model = load(&dir.join(file));
        assert!(!model.clips.is_empty(), "{file}: no clips");
        spritebake::internal::bake::add_all_clip(&mut model).unwrap();
        let clamped = PoseOptions { looping: false, in_place: false };
        for clip in &model.clips {
            for t in key_times_and_midpoints(&clip.frames) {
                let posed = pose(&model, Some(clip), FrameTime::Seconds(t), &clamped);
                let finite =
                    posed.parts.iter().flat_map(|p| p.positions.iter().chain(p.normals.iter())).all(|v| v.is_finite());
                assert!(finite, "{file} clip {} at {t} s", clip.name);
            }
        }
        for m in &model.materials {
            assert!(!matches!(m.texture_status, TextureStatus::Missing { .. }), "{file}: {:?}", m.texture_status);
        }
        for clip in [None, model.clips.first(), model.clip("all")] {
            let request = FrameRequest::clip(clip, FrameTime::Seconds(0.3), PoseOptions::default());
            let options = RenderOptions { width: 48, height: 48, ssaa: 1, ..RenderOptions::default() };
            let image = bake::render_frame(
                &renderer,
                &model,
                &request,
                &OrbitView { pitch_degrees: 0.0, ..OrbitView::default() },
                &options,
            )
            .unwrap();
            assert!(image.covered_pixels() > 50, "{file}: {} pixels", image.covered_pixels());
        }
    }
}

#[test]
fn gltf_models_stand_upright() {
    // Taller than wide or deep in the canonical frame (Y up), like the other formats.
    let Some(dir) = common::corpus("gltf") else { return };
    for file in ["cesiumman/CesiumMan.glb", "riggedsimple_blender/RiggedSimple.glb"] {
        let model = load(&dir.join(file));
        let posed = spritebake::anim::rest_pose(&model);
        let points = spritebake::internal::bake::world_points(&model, &posed);
        let b = spritebake::model::Aabb::from_points(points.iter().copied());
        let size = b.max - b.min;
        assert!(size.y > size.x && size.y > size.z, "{file}: {size}");
    }
}

fn fox() -> Option<PathBuf> {
    common::corpus("gltf").map(|d| d.join("fox/Fox.glb"))
}

#[test]
fn info_lists_the_fox_clips_with_durations() {
    let Some(fox) = fox() else { return };
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_spritebake")).arg("info").arg(&fox).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for line in [
        "'Survey': 103 frames at 30 fps, 3.417 s",
        "'Walk': 22 frames at 30 fps, 0.708 s",
        "'Run': 35 frames at 30 fps, 1.158 s",
    ] {
        assert!(text.contains(line), "missing {line}:\n{text}");
    }
}

#[test]
fn fox_walk_sheet_in_8_directions_is_jitter_free() {
    let Some(fox) = fox() else { return };
    let model = load(&fox);
    let job = Job {
        model: &model,
        clips: vec![Some(model.clip("Walk").unwrap())],
        transitions: Vec::new(),
        layers: Default::default(),
        directions: Directions::compass(8),
        view: OrbitView { pitch_degrees: 0.0, projection: Projection::Orthographic, ..OrbitView::default() },
        options: RenderOptions { width: 96, height: 96, ssaa: 1, ..RenderOptions::default() },
        fit: Fit::Shared,
        pixels_per_unit: None,
        ground: spritebake::spec::Ground::Auto,
        auto_size: false,
        sampling: Sampling::ClipFrames,
        looping: Default::default(),
        pose: PoseOptions { looping: true, in_place: true },
        look: Default::default(),
        points: Vec::new(),
    };
    let cells = job.render().unwrap();
    // The Walk lasts 0.7083 s: 21 frames at 30 fps, none repeating the first at the seam.
    assert_eq!(cells.len(), 8 * 21);
    common::assert_jitter_free(&cells, 8);
}

#[test]
fn cesium_man_walking_goldens() {
    let Some(dir) = common::corpus("gltf") else { return };
    let mut model = load(&dir.join("cesiumman/CesiumMan.glb"));
    spritebake::internal::bake::add_all_clip(&mut model).unwrap();
    let view = OrbitView { yaw_degrees: 30.0, pitch_degrees: 15.0, ..OrbitView::default() };
    let options = RenderOptions {
        width: 96,
        height: 128,
        ssaa: 2,
        lights: vec![spritebake::raster::Light::KEY],
        ..RenderOptions::default()
    };
    let mut goldens = Goldens::new();
    for frame in [0.0, 15.0] {
        let request = FrameRequest::clip(model.clip("all"), FrameTime::Frame(frame), PoseOptions::default());
        let image = bake::render_frame(&Renderer::new(), &model, &request, &view, &options).unwrap();
        // Same tolerance as the other goldens: last-bit libm differences on edge pixels.
        goldens.check(&format!("frame-{frame}"), &image, Tolerance { channel: 1, max_pixels: 8 });
    }
    goldens.finish();
}

#[test]
fn anim_all_works_on_the_command_line_and_is_refused_for_other_formats() {
    let run = |args: &[&std::ffi::OsStr]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_spritebake")).args(args).output().unwrap()
    };
    let out = std::env::temp_dir().join(format!("spritebake-gltf-cli-{}", std::process::id()));
    std::fs::create_dir_all(&out).unwrap();
    let robot = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/assets/robot/robot.md2");
    let png = out.join("robot.png");
    let o =
        run(&["render".as_ref(), robot.as_os_str(), "--anim".as_ref(), "all".as_ref(), "-o".as_ref(), png.as_os_str()]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && stderr.contains("clips play one at a time: walk"), "{stderr}");
    let Some(dir) = common::corpus("gltf") else { return };
    let gif = out.join("cesium.gif");
    let model = dir.join("cesiumman/CesiumMan.glb");
    let o = run(&[
        "gif".as_ref(),
        model.as_os_str(),
        "--anim".as_ref(),
        "all".as_ref(),
        "--size".as_ref(),
        "48".as_ref(),
        "-o".as_ref(),
        gif.as_os_str(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(std::fs::metadata(&gif).unwrap().len() > 1000);
}
