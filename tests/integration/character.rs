//! The example robot, written as MD5, SMD and MD2 from one definition: the three files must
//! agree, and their renders are goldens.

use std::path::{Path, PathBuf};

use glam::Vec3;
use spritebake::anim::{FrameTime, PoseOptions, pose};
use spritebake::bake::{self, FrameRequest};
use spritebake::formats::LoadOptions;
use spritebake::golden::Tolerance;
use spritebake::model::Model;
use spritebake::raster::{OrbitView, RenderOptions, Renderer};

use crate::common::golden::Goldens;

fn asset(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/assets/robot").join(name)
}

fn load(model: &str, anim: Option<&str>) -> Model {
    let options = LoadOptions { animations: anim.map(asset).into_iter().collect(), ..Default::default() };
    spritebake::formats::load(&asset(model), &options).unwrap()
}

/// World-space (canonical) corner positions of every triangle at a frame.
fn corners(model: &Model, frame: f32) -> Vec<Vec3> {
    let posed = pose(model, model.clips.first(), FrameTime::Frame(frame), &PoseOptions::default());
    let world = spritebake::internal::bake::model_to_world(model);
    posed
        .parts
        .iter()
        .flat_map(|p| p.indices.iter().flat_map(|t| t.map(|i| world.transform_point3(p.positions[i as usize]))))
        .collect()
}

#[test]
fn md5_smd_and_md2_versions_pose_alike_at_every_frame() {
    let md5 = load("robot.md5mesh", Some("walk.md5anim"));
    let smd = load("robot.smd", Some("walk.smd"));
    let md2 = load("robot.md2", None);
    assert_eq!(md2.clips[0].name, "walk");
    let size = md5.rest_bounds().size().length();
    for clip in [&md5.clips[0], &smd.clips[0], &md2.clips[0]] {
        assert_eq!(clip.frame_count(), 16, "{}", clip.name);
    }
    assert_eq!(md5.clips[0].fps, 16.0);
    for f in 0..16 {
        for t in [0.0, 0.5] {
            let (a, b) = (corners(&md5, f as f32 + t), corners(&smd, f as f32 + t));
            assert_eq!(a.len(), b.len());
            let worst = a.iter().zip(&b).map(|(p, q)| (*p - *q).length()).fold(0.0, f32::max);
            assert!(worst <= 1e-4 * size, "frame {}: MD5 and SMD differ by {worst}", f as f32 + t);
        }
        // MD2 stores each frame in bytes over the frame's box: error ≤ half a step per axis.
        let (a, c) = (corners(&md5, f as f32), corners(&md2, f as f32));
        let lo = a.iter().fold(Vec3::INFINITY, |m, p| m.min(*p));
        let hi = a.iter().fold(Vec3::NEG_INFINITY, |m, p| m.max(*p));
        let step = ((hi - lo) / 255.0).length();
        let worst = a.iter().zip(&c).map(|(p, q)| (*p - *q).length()).fold(0.0, f32::max);
        assert!(worst <= step * 0.5 + 1e-3, "frame {f}: MD2 off by {worst} (step {step})");
    }
}

#[test]
fn the_robot_faces_the_camera_and_stands_upright() {
    // At yaw 0 the visor (cyan, on the front of the head) is visible and near the top.
    let model = load("robot.md5mesh", None);
    let image = bake::render_frame(
        &Renderer::new(),
        &model,
        &FrameRequest::default(),
        &OrbitView { pitch_degrees: 0.0, ..OrbitView::default() },
        &RenderOptions { width: 64, height: 64, ssaa: 1, ..RenderOptions::default() },
    )
    .unwrap();
    let visor_rows: Vec<u32> = (0..64)
        .filter(|&y| {
            (0..64).any(|x| {
                let p = image.pixel(x, y).unwrap();
                p[3] == 255 && p[2] > 150 && p[1] > 150 && p[0] < 90
            })
        })
        .collect();
    assert!(!visor_rows.is_empty() && visor_rows.iter().all(|&y| y < 20), "visor rows {visor_rows:?}");
}

#[test]
fn robot_goldens_per_format() {
    let view = OrbitView { yaw_degrees: 35.0, pitch_degrees: 20.0, ..OrbitView::default() };
    let options = RenderOptions { width: 64, height: 96, ssaa: 4, ..RenderOptions::default() };
    let tolerance = Tolerance { channel: 1, max_pixels: 8 };
    let mut goldens = Goldens::new();
    for (file, anim, name) in [
        ("robot.md5mesh", Some("walk.md5anim"), "md5"),
        ("robot.smd", Some("walk.smd"), "smd"),
        ("robot.md2", None, "md2"),
    ] {
        let model = load(file, anim);
        for frame in [0.0, 4.0, 10.5] {
            let request = FrameRequest::clip(model.clips.first(), FrameTime::Frame(frame), PoseOptions::default());
            let image = bake::render_frame(&Renderer::new(), &model, &request, &view, &options).unwrap();
            goldens.check(&format!("{name}-frame-{}", frame.to_string().replace('.', "_")), &image, tolerance);
        }
    }
    goldens.finish();
}
