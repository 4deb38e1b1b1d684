//! IQM: a hand-built file, hostile headers, truncation, the corpus model and assimp's view of it.

use glam::{Affine3A, Vec2, Vec3};
use spritebake::anim::{FrameTime, PoseOptions, pose};
use spritebake::internal::formats::iqm;
use spritebake::model::{Model, TextureStatus};

use crate::common::{self, assimp};

/// Where [`tiny`] puts its tables (byte offsets), for the tests that patch them.
pub struct Layout {
    pub meshes: usize,
    pub arrays: usize,
    pub blend_indexes: usize,
    pub triangles: usize,
    pub joints: usize,
    pub anims: usize,
}

fn u32s(out: &mut Vec<u8>, values: &[u32]) {
    values.iter().for_each(|v| out.extend_from_slice(&v.to_le_bytes()));
}

fn f32s(out: &mut Vec<u8>, values: &[f32]) {
    values.iter().for_each(|v| out.extend_from_slice(&v.to_le_bytes()));
}

/// A 3-vertex, 1-triangle IQM written byte by byte: joints `root` at the origin and `tip` at
/// (0,0,1) under it; vertices (0,0,0) and (1,0,0) on `root`, (0,1,1) on `tip`; material
/// `skin.png`; anim `wave` of 2 frames at 12 fps (looping when `looping`) moving `tip`'s Z
/// channel from 1 to 2 (offset 1, scale 0.01, values 0 and 100).
pub fn tiny_with(looping: bool) -> (Vec<u8>, Layout) {
    let mut b = vec![0u8; 124];
    let text = b"\0mesh\0skin.png\0root\0tip\0wave\0\0\0\0";
    let ofs_text = b.len();
    b.extend_from_slice(text);
    let meshes = b.len();
    u32s(&mut b, &[1, 6, 0, 3, 0, 1]);
    let arrays = b.len();
    let data = arrays + 5 * 20;
    // (type, format, size, bytes per vertex)
    let kinds = [(0u32, 7u32, 3u32, 12usize), (1, 7, 2, 8), (2, 7, 3, 12), (4, 1, 4, 4), (5, 1, 4, 4)];
    let mut at = data;
    let mut blend_indexes = 0;
    for (kind, format, size, per) in kinds {
        if kind == 4 {
            blend_indexes = at;
        }
        u32s(&mut b, &[kind, 0, format, size, at as u32]);
        at += 3 * per;
    }
    f32s(&mut b, &[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0]);
    f32s(&mut b, &[0.0, 0.0, 1.0, 0.0, 0.0, 1.0]);
    f32s(&mut b, &[0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0]);
    b.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0]);
    b.extend_from_slice(&[255, 0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0]);
    let triangles = b.len();
    u32s(&mut b, &[0, 1, 2]);
    let joints = b.len();
    for (name, parent, z) in [(15u32, -1i32, 0.0f32), (20, 0, 1.0)] {
        u32s(&mut b, &[name, parent as u32]);
        f32s(&mut b, &[0.0, 0.0, z, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]);
    }
    let poses = b.len();
    for (parent, mask, z, z_scale) in [(-1i32, 0u32, 0.0f32, 0.0f32), (0, 1 << 2, 1.0, 0.01)] {
        u32s(&mut b, &[parent as u32, mask]);
        f32s(&mut b, &[0.0, 0.0, z, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]);
        f32s(&mut b, &[0.0, 0.0, z_scale, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
    }
    let anims = b.len();
    u32s(&mut b, &[24, 0, 2]);
    f32s(&mut b, &[12.0]);
    u32s(&mut b, &[u32::from(looping)]);
    let frames = b.len();
    for v in [0u16, 100] {
        b.extend_from_slice(&v.to_le_bytes());
    }
    let header = [
        2,
        b.len(),
        0,
        text.len(),
        ofs_text,
        1,
        meshes,
        5,
        3,
        arrays,
        1,
        triangles,
        0,
        2,
        joints,
        2,
        poses,
        1,
        anims,
        2,
        1,
        frames,
        0,
        0,
        0,
        0,
        0,
    ];
    b[..16].copy_from_slice(b"INTERQUAKEMODEL\0");
    for (i, v) in header.iter().enumerate() {
        b[16 + 4 * i..20 + 4 * i].copy_from_slice(&(*v as u32).to_le_bytes());
    }
    (b, Layout { meshes, arrays, blend_indexes, triangles, joints, anims })
}

pub fn tiny() -> Vec<u8> {
    tiny_with(true).0
}

fn positions_at(model: &Model, frame: f32) -> Vec<Vec3> {
    pose(model, model.clips.first(), FrameTime::Frame(frame), &PoseOptions::default()).parts[0].positions.to_vec()
}

#[test]
fn hand_built_file_skins_and_animates_its_joints() {
    let model = iqm::parse(&tiny()).unwrap();
    let mesh = &model.meshes[0];
    assert_eq!(mesh.name, "mesh");
    // The triangle (0,1,2) is stored clockwise: the model holds it as (0,2,1).
    assert_eq!(mesh.indices, vec![[0, 2, 1]]);
    assert_eq!(mesh.uvs, vec![Vec2::new(0.0, 0.0), Vec2::new(1.0, 0.0), Vec2::new(0.0, 1.0)]);
    assert_eq!(model.materials[0].texture_name.as_deref(), Some("skin.png"));
    let skeleton = model.skeleton.as_ref().unwrap();
    let names: Vec<&str> = skeleton.joints.iter().map(|j| j.name.as_str()).collect();
    assert_eq!(names, ["root", "tip"]);
    assert_eq!(skeleton.joints[1].parent, Some(0));
    // The influence keeps the vertex in its joint's bind space: (0,1,1) - (0,0,1).
    assert_eq!(mesh.influences[2].position, Vec3::new(0.0, 1.0, 0.0));
    assert_eq!(mesh.influences[2].weight, 1.0);
    let clip = &model.clips[0];
    assert_eq!((clip.name.as_str(), clip.fps, clip.frame_count(), clip.plays_once), ("wave", 12.0, 2, false));
    let rest = vec![Vec3::ZERO, Vec3::X, Vec3::new(0.0, 1.0, 1.0)];
    assert_eq!(positions_at(&model, 0.0), rest);
    // Frame 1: tip's Z channel is 1 + 100 · 0.01 = 2, carrying its vertex up by 1.
    let moved = positions_at(&model, 1.0);
    assert!((moved[2] - Vec3::new(0.0, 1.0, 2.0)).length() < 1e-5, "{moved:?}");
    assert_eq!(moved[..2], rest[..2]);
    assert!((positions_at(&model, 0.5)[2].z - 1.5).abs() < 1e-5);
}

#[test]
fn the_loop_flag_decides_whether_a_clip_plays_once() {
    let model = iqm::parse(&tiny_with(false).0).unwrap();
    assert!(model.clips[0].plays_once);
}

#[test]
fn every_truncation_is_an_error() {
    let bytes = tiny();
    for end in 0..bytes.len() {
        assert!(iqm::parse(&bytes[..end]).is_err(), "prefix of {end} bytes parsed");
    }
}

#[test]
fn hostile_headers_fail_fast_with_the_offset() {
    let (_, l) = tiny_with(true);
    let patch = |at: usize, v: u32| {
        let mut b = tiny();
        b[at..at + 4].copy_from_slice(&v.to_le_bytes());
        iqm::parse(&b).unwrap_err().to_string()
    };
    let expect = |at: usize, v: u32, offset: usize, words: &str| {
        let e = patch(at, v);
        assert!(e.contains(&format!("IQM byte offset {offset}:")) && e.contains(words), "{e}");
    };
    expect(16, 1, 16, "expected version 2");
    expect(20, 1 << 30, 20, "the header gives");
    expect(36, 100_000, 36, "mesh count");
    expect(48, 0x7fff_ffff, l.arrays + 16, "run past the end");
    expect(56, 1 << 30, 60, "run past the end");
    expect(68, 1 << 30, 68, "joint count");
    // A joint whose parent comes after it, a position array of bytes, a mesh material name
    // outside the text, a vertex on a joint that does not exist, anim frames past the file's.
    expect(l.joints + 48 + 4, 5, l.joints + 48 + 4, "parent before it");
    expect(l.arrays + 8, 1, l.arrays + 8, "float, half or double");
    expect(l.meshes + 4, 9999, l.meshes + 4, "name offset");
    expect(l.blend_indexes + 8, 7, l.blend_indexes + 8, "joint 7 out of range");
    expect(l.anims + 8, 1000, l.anims + 4, "past the 2 in the file");
    expect(l.triangles + 4, 3, l.triangles + 4, "outside mesh 0's 0..3");
    let mut b = tiny();
    b[0] = b'X';
    assert!(iqm::parse(&b).unwrap_err().to_string().contains("INTERQUAKEMODEL"));
}

#[test]
fn the_committed_fuzz_seed_is_the_hand_built_file() {
    common::assert_fixture("iqm/tiny.iqm", &tiny());
}

fn mrfixit() -> Option<(std::path::PathBuf, Model)> {
    common::corpus_model("iqm/mrfixit", "mrfixit.iqm")
}

#[test]
fn corpus_mrfixit_resolves_its_textures_and_its_idle_moves_vertices() {
    let Some((_, model)) = mrfixit() else { return };
    assert_eq!((model.meshes.len(), model.vertex_count(), model.triangle_count()), (2, 1861, 2988));
    for (material, file) in model.materials.iter().zip(["Body.jpg", "Head.jpg"]) {
        let TextureStatus::Found(path) = &material.texture_status else { panic!("{material:?}") };
        assert!(path.ends_with(file), "{path:?}");
    }
    assert!(model.warnings.is_empty(), "{:?}", model.warnings);
    assert_eq!(model.skeleton.as_ref().unwrap().joints.len(), 75);
    let idle = model.clip("idle").unwrap();
    assert_eq!((idle.frame_count(), idle.fps, idle.plays_once), (101, 24.0, true));
    // Frame 50 of the idle differs from frame 0 by a visible amount somewhere, not everywhere.
    let (a, b) = (positions_at(&model, 0.0), positions_at(&model, 50.0));
    let moved = a.iter().zip(&b).map(|(p, q)| p.distance(*q)).fold(0.0, f32::max);
    assert!(moved > 0.05 && moved < 2.0, "largest move {moved}");
}

#[test]
fn corpus_mrfixit_renders_textured() {
    let Some((_, model)) = mrfixit() else { return };
    let image = common::render_model_unlit(&model, 96);
    // Skin, clothes and metal: many distinct colours from the two images, none of them the
    // missing-texture magenta.
    let opaque: Vec<&[u8]> = image.rgba.chunks_exact(4).filter(|p| p[3] == 255).collect();
    assert!(opaque.len() > 1000, "{} opaque pixels", opaque.len());
    assert!(!opaque.iter().any(|p| p[0] > 200 && p[1] < 40 && p[2] > 200), "magenta fallback shows");
    let distinct: std::collections::HashSet<&[u8]> = opaque.iter().copied().collect();
    assert!(distinct.len() > 200, "{} distinct colours", distinct.len());
    let greenish = opaque.iter().filter(|p| p[1] > p[0] + 10 && p[1] > p[2] + 10).count();
    assert!(greenish > 10, "{greenish} of {} pixels green (Mr. Fixit's skin)", opaque.len());
}

#[test]
fn corpus_mrfixit_bind_pose_agrees_with_assimp() {
    let Some((path, model)) = mrfixit() else { return };
    // Skinned with the rest pose: every influence's bind-space point taken back to the model.
    let skeleton = model.skeleton.as_ref().unwrap();
    let joints = skeleton.to_model_space(&skeleton.rest_pose());
    let ours: Vec<Vec3> = model
        .meshes
        .iter()
        .flat_map(|m| {
            m.influence_ranges.iter().map(|r| {
                m.influences[r.start as usize..r.end as usize]
                    .iter()
                    .map(|i| {
                        joints.get(i.joint as usize).unwrap_or(&Affine3A::IDENTITY).transform_point3(i.position)
                            * i.weight
                    })
                    .sum::<Vec3>()
            })
        })
        .collect();
    assert_eq!(ours.len(), 1861);
    assimp::assert_agrees(&path, &ours);
}
