//! Generates the example character under `examples/assets/robot/`: a jointed robot with a
//! 16-frame walk cycle, written as MD5 (mesh + anim), SMD (reference + sequence) and MD2
//! (frames baked), all from the one definition in `robot.rs`, plus its PNG texture.
//!
//! Run with `cargo run --example make_character`. The output is deterministic.

mod robot;

use std::path::Path;

use glam::Quat;
use spritebake::anim::{self, FrameTime, PoseOptions};
use spritebake::internal::formats::{md2, md5, smd};
use spritebake::model::{Aabb, ClipFrames, Model};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/assets/robot");
    std::fs::create_dir_all(&dir)?;
    let model = robot::robot();
    let clip = &model.clips[0];
    let skeleton = model.skeleton.as_ref().ok_or("robot has a skeleton")?;
    let poses: Vec<_> = (0..clip.frame_count())
        .map(|f| anim::pose(&model, Some(clip), FrameTime::Frame(f as f32), &PoseOptions::default()))
        .collect();

    // MD5: per-frame bounds come from the posed mesh.
    let bounds: Vec<Aabb> = poses.iter().map(|p| p.bounds()).collect();
    std::fs::write(dir.join("robot.md5mesh"), md5::write_mesh(&model))?;
    std::fs::write(dir.join("walk.md5anim"), md5::write_anim(skeleton, clip, &bounds))?;

    // SMD sources face −Y (studiomdl turns them to +X when compiling): turn the robot −90°.
    let turned = turn(&model, Quat::from_rotation_z(-std::f32::consts::FRAC_PI_2));
    std::fs::write(dir.join("robot.smd"), smd::write_reference(&turned))?;
    let turned_skeleton = turned.skeleton.as_ref().ok_or("robot has a skeleton")?;
    std::fs::write(dir.join("walk.smd"), smd::write_sequence(turned_skeleton, &turned.clips[0]))?;

    // MD2: every walk frame baked into a key shape named walk1..walk16.
    let mesh = &model.meshes[0];
    let frames: Vec<_> = poses
        .iter()
        .enumerate()
        .map(|(f, p)| (format!("walk{}", f + 1), p.parts[0].positions.to_vec(), p.parts[0].normals.to_vec()))
        .collect();
    let source = md2::Md2Source {
        skin: "robot.png",
        skin_size: (128, 128),
        uvs: &mesh.uvs,
        indices: &mesh.indices,
        frames: &frames,
    };
    std::fs::write(dir.join("robot.md2"), md2::write(&source))?;

    spritebake::output::write_png(&dir.join("robot.png"), &robot::robot_texture())?;
    println!("wrote {}", dir.display());
    Ok(())
}

/// The model rotated about its origin: root joints (rest and every frame) and bind geometry.
/// Influences are in joint space and need no change.
fn turn(model: &Model, rotation: Quat) -> Model {
    let mut out = model.clone();
    let roots: Vec<usize> = out
        .skeleton
        .iter()
        .flat_map(|s| s.joints.iter().enumerate().filter(|(_, j)| j.parent.is_none()).map(|(i, _)| i))
        .collect();
    let spin = |p: &mut spritebake::model::JointPose| {
        p.translation = rotation * p.translation;
        p.rotation = (rotation * p.rotation).normalize();
    };
    if let Some(skeleton) = &mut out.skeleton {
        for &r in &roots {
            spin(&mut skeleton.joints[r].rest);
        }
    }
    for clip in &mut out.clips {
        if let ClipFrames::Skeletal(frames) = &mut clip.frames {
            for frame in frames {
                for &r in &roots {
                    spin(&mut frame[r]);
                }
            }
        }
    }
    for mesh in &mut out.meshes {
        mesh.positions.iter_mut().for_each(|p| *p = rotation * *p);
        mesh.normals.iter_mut().for_each(|n| *n = rotation * *n);
    }
    out
}
