//! Posing: interpolation, hierarchy, skinning and morphs against values computed by hand.

use glam::{Quat, Vec3};
use spritebake::anim::{FrameTime, PoseOptions, pose};
use spritebake::model::{
    Clip, ClipFrames, Influence, Joint, JointPose, Material, Mesh, Model, MorphFrame, Orientation, Skeleton,
};

fn joint(name: &str, parent: Option<usize>, x: f32) -> Joint {
    Joint { name: name.into(), parent, rest: JointPose { translation: Vec3::new(x, 0.0, 0.0), ..JointPose::IDENTITY } }
}

fn influence(joint: u32, weight: f32, position: Vec3) -> Influence {
    Influence { joint, weight, position, normal: Vec3::Y }
}

/// Three joints along +X one unit apart; vertices at x = 0.5, 1.5, 2.5 bound to joints 0, 1, 2,
/// and one at x = 2 split 50/50 between joints 1 and 2. The clip rotates joint 1 about Z by
/// the given angles (degrees), one per frame, at 2 fps.
fn limb(angles: &[f32]) -> Model {
    let skeleton =
        Skeleton { joints: vec![joint("root", None, 0.0), joint("mid", Some(0), 1.0), joint("tip", Some(1), 1.0)] };
    let influences = vec![
        influence(0, 1.0, Vec3::new(0.5, 0.0, 0.0)),
        influence(1, 1.0, Vec3::new(0.5, 0.0, 0.0)),
        influence(2, 1.0, Vec3::new(0.5, 0.0, 0.0)),
        influence(1, 0.5, Vec3::new(1.0, 0.0, 0.0)),
        influence(2, 0.5, Vec3::ZERO),
    ];
    let mesh = Mesh {
        positions: vec![
            Vec3::new(0.5, 0.0, 0.0),
            Vec3::new(1.5, 0.0, 0.0),
            Vec3::new(2.5, 0.0, 0.0),
            Vec3::new(2.0, 0.0, 0.0),
        ],
        normals: vec![Vec3::Y; 4],
        uvs: vec![Default::default(); 4],
        indices: vec![[0, 1, 2], [1, 2, 3]],
        influence_ranges: vec![0..1, 1..2, 2..3, 3..5],
        influences,
        ..Mesh::default()
    };
    let frames = angles
        .iter()
        .map(|a| {
            let mut p = skeleton.rest_pose();
            p[1].rotation = Quat::from_rotation_z(a.to_radians());
            p
        })
        .collect();
    let clip = Clip {
        name: "bend".into(),
        fps: 2.0,
        frames: ClipFrames::Skeletal(frames),
        frame_bounds: Vec::new(),
        retarget: None,
        plays_once: false,
    };
    Model {
        meshes: vec![mesh],
        materials: vec![Material::named("m")],
        skeleton: Some(skeleton),
        clips: vec![clip],
        orientation: Orientation::Z_UP_FACING_X,
        ..Model::default()
    }
}

fn posed_positions(model: &Model, time: FrameTime, options: PoseOptions) -> Vec<Vec3> {
    pose(model, model.clips.first(), time, &options).parts[0].positions.to_vec()
}

fn assert_near(got: &[Vec3], want: &[Vec3]) {
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!((*g - *w).length() < 1e-5, "vertex {i}: got {g}, want {w}");
    }
}

#[test]
fn skeletal_frames_and_halfway_match_hand_computed_positions() {
    let model = limb(&[0.0, 90.0, 180.0]);
    let at = |f: f32| posed_positions(&model, FrameTime::Frame(f), PoseOptions::default());
    assert_near(&at(0.0), &model.meshes[0].positions);
    // 90°: the mid joint stays at (1,0,0) and points +Y; the tip joint sits at (1,1,0).
    assert_near(
        &at(1.0),
        &[Vec3::new(0.5, 0.0, 0.0), Vec3::new(1.0, 0.5, 0.0), Vec3::new(1.0, 1.5, 0.0), Vec3::new(1.0, 1.0, 0.0)],
    );
    assert_near(
        &at(2.0),
        &[Vec3::new(0.5, 0.0, 0.0), Vec3::new(0.5, 0.0, 0.0), Vec3::new(-0.5, 0.0, 0.0), Vec3::new(0.0, 0.0, 0.0)],
    );
    // Halfway between 0° and 90° is a 45° slerp of the local rotation.
    let (s, c) = 45f32.to_radians().sin_cos();
    assert_near(
        &at(0.5),
        &[
            Vec3::new(0.5, 0.0, 0.0),
            Vec3::new(1.0 + 0.5 * c, 0.5 * s, 0.0),
            Vec3::new(1.0 + 1.5 * c, 1.5 * s, 0.0),
            Vec3::new(1.0 + c, s, 0.0),
        ],
    );
    // Seconds at 2 fps: 0.5 s is frame 1.
    assert_eq!(posed_positions(&model, FrameTime::Seconds(0.5), PoseOptions::default()), at(1.0));
    // Normals rotate with their joint.
    let posed = pose(&model, model.clips.first(), FrameTime::Frame(1.0), &PoseOptions::default());
    assert!((posed.parts[0].normals[1] - Vec3::NEG_X).length() < 1e-5, "{}", posed.parts[0].normals[1]);
}

#[test]
fn loops_wrap_into_frame_zero_and_clamped_clips_hold() {
    let model = limb(&[0.0, 60.0, 120.0]);
    let (s, c) = 60f32.to_radians().sin_cos();
    // Frame 2.5 of a loop is halfway from 120° back to 0°: 60° along the short arc.
    let looped = posed_positions(&model, FrameTime::Frame(2.5), PoseOptions::default());
    assert_near(&looped[1..2], &[Vec3::new(1.0 + 0.5 * c, 0.5 * s, 0.0)]);
    let held = posed_positions(&model, FrameTime::Frame(7.0), PoseOptions { looping: false, in_place: false });
    assert_eq!(held, posed_positions(&model, FrameTime::Frame(2.0), PoseOptions::default()));
}

#[test]
fn whole_frames_are_bit_exact_and_slerp_takes_the_short_path() {
    // Frame 1 stores the 20° rotation as −q: the same rotation, the far side of the sphere.
    let mut model = limb(&[0.0, 20.0]);
    if let ClipFrames::Skeletal(frames) = &mut model.clips[0].frames {
        frames[1][1].rotation = -frames[1][1].rotation;
    }
    let half = posed_positions(&model, FrameTime::Frame(0.5), PoseOptions::default());
    let (s, c) = 10f32.to_radians().sin_cos();
    assert_near(&half[1..2], &[Vec3::new(1.0 + 0.5 * c, 0.5 * s, 0.0)]);
    // A whole frame reproduces the frame exactly, not via a lerp with t = 0.
    let direct = pose(&model, model.clips.first(), FrameTime::Frame(1.0), &PoseOptions::default());
    let joints = spritebake::internal::anim::joint_transforms(
        &model,
        model.clips.first(),
        FrameTime::Frame(1.0),
        &PoseOptions::default(),
    );
    let expected = joints[1].transform_point3(Vec3::new(0.5, 0.0, 0.0));
    assert_eq!(direct.parts[0].positions[1], expected);
}

#[test]
fn in_place_removes_horizontal_root_motion_only() {
    let mut model = limb(&[0.0, 0.0]);
    if let ClipFrames::Skeletal(frames) = &mut model.clips[0].frames {
        frames[1][0].translation = Vec3::new(3.0, 2.0, 0.5); // Z is up for this model
    }
    let moving = posed_positions(&model, FrameTime::Frame(1.0), PoseOptions::default());
    assert_near(&moving[..1], &[Vec3::new(3.5, 2.0, 0.5)]);
    let pinned = posed_positions(&model, FrameTime::Frame(1.0), PoseOptions { in_place: true, looping: true });
    assert_near(&pinned[..1], &[Vec3::new(0.5, 0.0, 0.5)]);
}

#[test]
fn morph_frames_lerp_and_renormalise() {
    let shape =
        |x: f32, n: Vec3| MorphFrame { name: "k".into(), positions: vec![Vec3::new(x, 0.0, 0.0)], normals: vec![n] };
    let mesh = Mesh {
        positions: vec![Vec3::ZERO],
        normals: vec![Vec3::X],
        uvs: vec![Default::default()],
        indices: vec![],
        morph_frames: vec![shape(0.0, Vec3::X), shape(4.0, Vec3::Y)],
        ..Mesh::default()
    };
    let clip = Clip {
        name: "m".into(),
        fps: 10.0,
        frames: ClipFrames::Morph(vec![0, 1]),
        frame_bounds: vec![],
        retarget: None,
        plays_once: false,
    };
    let model =
        Model { meshes: vec![mesh], materials: vec![Material::named("m")], clips: vec![clip], ..Model::default() };
    let posed =
        pose(&model, model.clips.first(), FrameTime::Frame(0.25), &PoseOptions { looping: false, in_place: false });
    assert_near(&posed.parts[0].positions, &[Vec3::new(1.0, 0.0, 0.0)]);
    let n = posed.parts[0].normals[0];
    assert!((n.length() - 1.0).abs() < 1e-6 && (n - Vec3::new(0.75, 0.25, 0.0).normalize()).length() < 1e-6);
}

#[test]
fn parallel_skinning_equals_sequential_bit_for_bit() {
    // A 20k-vertex mesh: above the parallel threshold. Vertices spread over the three joints.
    let mut model = limb(&[0.0, 33.0, 71.0]);
    let mesh = &mut model.meshes[0];
    mesh.positions.clear();
    mesh.influences.clear();
    mesh.influence_ranges.clear();
    for i in 0..20_000u32 {
        let x = i as f32 * 1e-4;
        let start = mesh.influences.len() as u32;
        mesh.influences.push(influence(i % 3, 0.7, Vec3::new(x, 0.1, 0.2)));
        mesh.influences.push(influence((i + 1) % 3, 0.3, Vec3::new(0.2, x, 0.1)));
        mesh.influence_ranges.push(start..start + 2);
        mesh.positions.push(Vec3::new(x, 0.0, 0.0));
    }
    mesh.normals = vec![Vec3::Y; 20_000];
    mesh.uvs = vec![Default::default(); 20_000];
    let run = |threads| {
        rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap().install(|| {
            let p = pose(&model, model.clips.first(), FrameTime::Frame(1.3), &PoseOptions::default());
            (p.parts[0].positions.to_vec(), p.parts[0].normals.to_vec())
        })
    };
    assert_eq!(run(1), run(2));
}
