//! Animation control (issue 8): attachments, bone overrides, blending and transitions, on the
//! example robot and, when present, the shared corpus (skipped with a note otherwise).

use std::path::{Path, PathBuf};

use glam::{Affine3A, Mat3, Quat, Vec3};
use spritebake::MemoryBudget;
use spritebake::anim::{
    self, Animation, Blend, BoneOverride, FrameTime, Layers, Motion, PoseOptions, Transition, animate, pose,
};
use spritebake::bake::Layout;
use spritebake::bake::{self, FrameRequest};
use spritebake::bake::{Directions, Sampling};
use spritebake::formats::LoadOptions;
use spritebake::golden::Tolerance;
use spritebake::internal::bake::Job;
use spritebake::internal::bake::pack;
use spritebake::internal::bake::rig;
use spritebake::model::{Clip, ClipFrames, Model, PosedMesh, TextureStatus};
use spritebake::raster::{OrbitView, RenderOptions, Renderer};
use spritebake::spec::Fit;
use spritebake::spec::{AttachSpec, Controls, Offset};

use crate::common;
use crate::common::golden::assert_golden;

fn asset(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/assets").join(name)
}

fn load(path: &Path, animations: &[PathBuf]) -> Model {
    let options = LoadOptions { animations: animations.to_vec(), ..LoadOptions::default() };
    spritebake::formats::load(path, &options).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn robot() -> Model {
    load(&asset("robot/robot.md5mesh"), &[asset("robot/walk.md5anim")])
}

/// The robot with a second clip made here, `wave` (8 frames against the walk's 16, both at
/// 16 fps): right arm raised, forearm waving.
fn robot_with_wave() -> Model {
    let mut model = robot();
    let skeleton = model.skeleton.as_ref().unwrap();
    let (arm, forearm) = (skeleton.find("arm_R").unwrap(), skeleton.find("forearm_R").unwrap());
    let frames = (0..8)
        .map(|f| {
            let phase = f as f32 / 8.0 * std::f32::consts::TAU;
            let mut poses = skeleton.rest_pose();
            poses[arm].rotation = Quat::from_rotation_x(-110f32.to_radians());
            poses[forearm].rotation = Quat::from_rotation_x((-35.0 * phase.sin()).to_radians());
            poses
        })
        .collect();
    let wave = Clip {
        name: "wave".into(),
        fps: 16.0,
        frames: ClipFrames::Skeletal(frames),
        frame_bounds: Vec::new(),
        retarget: None,
        plays_once: false,
    };
    model.clips.push(wave);
    model
}

/// The MD2 robot with a second morph clip, `back`: every other walk key shape, in reverse, at
/// the walk's rate.
fn md2_robot_with_back() -> Model {
    let mut model = load(&asset("robot/robot.md2"), &[]);
    let walk = model.clips[0].clone();
    let ClipFrames::Morph(keys) = &walk.frames else { panic!("the MD2 walk is a morph clip") };
    let back: Vec<usize> = keys.iter().step_by(2).rev().copied().collect();
    model.clips.push(Clip { name: "back".into(), frames: ClipFrames::Morph(back), ..walk });
    model
}

fn clip<'m>(model: &'m Model, name: &str) -> &'m Clip {
    model.find_clip(name).unwrap()
}

fn positions(posed: &PosedMesh) -> Vec<Vec3> {
    posed.parts.iter().flat_map(|p| p.positions.iter().copied()).collect()
}

fn normals(posed: &PosedMesh) -> Vec<Vec3> {
    posed.parts.iter().flat_map(|p| p.normals.iter().copied()).collect()
}

/// Largest distance any vertex moves between `a` and `b`.
fn largest_move(a: &[Vec3], b: &[Vec3]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).map(|(p, q)| (*p - *q).length()).fold(0.0, f32::max)
}

fn with_layers<'a>(motion: Motion<'a>, layers: Layers<'a>) -> Animation<'a> {
    Animation { motion, layers, options: PoseOptions::default() }
}

#[test]
fn ogro_weapon_is_posed_at_the_body_frame_for_every_frame_of_run_and_salute() {
    let Some(dir) = common::corpus("md2/ogro") else { return };
    let body_path = dir.join("ogro.md2");
    let body = load(&body_path, &[]);
    let controls = Controls { attachments: vec![AttachSpec::new(dir.join("weapon.md2"))], ..Controls::default() };
    let props =
        rig::load_attachments(&controls, &body_path, &body, &LoadOptions::default(), &Default::default()).unwrap();
    let weapon = &props[0];
    // The weapon's own skin, found next to it (the header names players/ogro/weapon.pcx).
    match &weapon.materials[0].texture_status {
        TextureStatus::Found(path) => assert_eq!(path.file_name().unwrap(), "weapon.jpg"),
        other => panic!("weapon skin not found: {other:?}"),
    }
    let body_parts = anim::rest_pose(&body).parts.len();
    // `run` has the same name and key shapes in both files; the weapon's frames for
    // `salute_alt` are named `salutewep`: Quake 2 matches frame numbers, not names.
    assert_eq!(weapon.clip("run").unwrap().frames, clip(&body, "run").frames);
    assert!(weapon.clip("salute_alt").is_none());
    for name in ["run", "salute_alt"] {
        let played = clip(&body, name);
        let animation = rig::animation(&body, &props, &controls, Some(played), PoseOptions::default()).unwrap();
        let mut weapon_frames = Vec::new();
        for f in 0..played.frame_count() {
            for t in [0.0, 0.5] {
                let time = FrameTime::Frame(f as f32 + t);
                let posed = animate(&body, &animation, time);
                let alone_body = pose(&body, Some(played), time, &PoseOptions::default());
                // The weapon alone at the body's frame: the same key-shape indices.
                let alone = pose(weapon, Some(played), time, &PoseOptions::default());
                assert_eq!(posed.parts.len(), body_parts + alone.parts.len());
                let (with_body, with_weapon) = posed.parts.split_at(body_parts);
                let joined = |parts: &[spritebake::model::PosedPart]| -> Vec<Vec3> {
                    parts.iter().flat_map(|p| p.positions.iter().copied()).collect()
                };
                assert_eq!(joined(with_body), positions(&alone_body), "{name}: body at {time:?}");
                assert_eq!(joined(with_weapon), positions(&alone), "{name}: weapon at {time:?}");
                let weapon_normals: Vec<Vec3> = with_weapon.iter().flat_map(|p| p.normals.iter().copied()).collect();
                assert_eq!(weapon_normals, normals(&alone), "{name}: weapon normals at {time:?}");
                weapon_frames.push(joined(with_weapon));
            }
        }
        // The weapon really moves: its key shapes differ from frame to frame.
        assert!(largest_move(&weapon_frames[0], &weapon_frames[6]) > 1.0, "{name}");
    }
}

/// Attaches the example sword to `joint` with an offset and checks every vertex and normal at
/// `frames` against the joint's model-space transform applied to the sword's own vertices.
fn assert_attachment_follows_joint(body_path: &Path, body: &Model, joint: &str, frames: [f32; 3]) {
    let offset: Offset = "t=1.5,-2,3;r=30,90,-45;s=1.25".parse().unwrap();
    let spec = AttachSpec { joint: Some(joint.to_string()), offset, ..AttachSpec::new(asset("sword.obj")) };
    let controls = Controls { attachments: vec![spec], ..Controls::default() };
    let props =
        rig::load_attachments(&controls, body_path, body, &LoadOptions::default(), &Default::default()).unwrap();
    let sword = &props[0];
    let clip = &body.clips[0];
    let animation = rig::animation(body, &props, &controls, Some(clip), PoseOptions::default()).unwrap();
    let j = body.skeleton.as_ref().unwrap().find(joint).unwrap();
    let axes = spritebake::internal::anim::to_body_axes(body, sword);
    let own = anim::rest_pose(sword);
    let body_parts = anim::rest_pose(body).parts.len();
    let mut placed = Vec::new();
    for f in frames {
        let time = FrameTime::Frame(f);
        let joint_to_model =
            spritebake::internal::anim::joint_transforms(body, Some(clip), time, &PoseOptions::default())[j];
        let place = |v: Vec3| joint_to_model.transform_point3(offset.to_affine().transform_point3(axes * v));
        let linear = Mat3::from(joint_to_model.matrix3) * Mat3::from(offset.to_affine().matrix3) * axes;
        let normal_matrix = linear.inverse().transpose();
        let posed = animate(body, &animation, time);
        let attached = &posed.parts[body_parts..];
        assert_eq!(attached.len(), own.parts.len());
        for (part, mine) in attached.iter().zip(&own.parts) {
            for (v, v0) in part.positions.iter().zip(mine.positions.iter()) {
                let expected = place(*v0);
                assert!((*v - expected).length() <= 1e-5, "{joint} frame {f}: {v} vs {expected}");
            }
            for (n, n0) in part.normals.iter().zip(mine.normals.iter()) {
                let expected = (normal_matrix * *n0).normalize();
                assert!((*n - expected).length() <= 1e-5, "{joint} frame {f}: normal {n} vs {expected}");
            }
        }
        placed.push(attached[0].positions[0]);
    }
    // The joint moves between the chosen frames, and the sword with it.
    assert!((placed[0] - placed[1]).length() > 0.1 && (placed[1] - placed[2]).length() > 0.1, "{placed:?}");
}

#[test]
fn joint_attachment_follows_the_joint_on_the_example_robot() {
    let path = asset("robot/robot.md5mesh");
    assert_attachment_follows_joint(&path, &robot(), "forearm_R", [0.0, 5.5, 11.0]);
    // The SMD robot: bind-pose skinning and its own axes (the SMD robot faces −Y).
    let smd = asset("robot/robot.smd");
    assert_attachment_follows_joint(&smd, &load(&smd, &[asset("robot/walk.smd")]), "forearm_R", [1.0, 7.25, 14.0]);
}

#[test]
fn joint_attachment_follows_the_joint_on_corpus_md5() {
    let Some(dir) = common::corpus("md5/bob_lamp") else { return };
    let path = dir.join("boblampclean.md5mesh");
    let bob = load(&path, &[dir.join("boblampclean.md5anim")]);
    assert_attachment_follows_joint(&path, &bob, "wrist.R", [0.0, 37.5, 101.0]);
}

/// Joint of every vertex of a rigidly bound mesh (the robot binds each box to one joint).
fn vertex_joints(model: &Model) -> Vec<usize> {
    model
        .meshes
        .iter()
        .flat_map(|m| {
            m.influence_ranges.iter().map(move |r| {
                let influences = &m.influences[r.start as usize..r.end as usize];
                assert_eq!(influences.len(), 1, "the robot binds each vertex to one joint");
                influences[0].joint as usize
            })
        })
        .collect()
}

#[test]
fn bone_override_turns_exactly_the_joints_subtree() {
    let model = robot();
    let skeleton = model.skeleton.as_ref().unwrap();
    let walk = &model.clips[0];
    let joints_of = vertex_joints(&model);
    let in_subtree = |mut j: usize, root: usize| loop {
        if j == root {
            return true;
        }
        match skeleton.joints[j].parent {
            Some(p) => j = p,
            None => return false,
        }
    };
    for (name, yaw, pitch, roll) in [("head", 90.0, 0.0, 0.0), ("arm_R", 0.0, 0.0, 40.0), ("spine", 20.0, -10.0, 5.0)] {
        let root = skeleton.find(name).unwrap();
        let turn = BoneOverride::from_degrees(root, yaw, pitch, roll);
        let layers = Layers { bones: vec![turn], ..Layers::default() };
        let animation = with_layers(Motion::Clip(walk), layers);
        for f in [0.0, 5.0, 9.5] {
            let time = FrameTime::Frame(f);
            let plain = positions(&pose(&model, Some(walk), time, &PoseOptions::default()));
            let turned = positions(&animate(&model, &animation, time));
            // Predicted: the joint's model-space frame, rotated in its own axes.
            let joint =
                spritebake::internal::anim::joint_transforms(&model, Some(walk), time, &PoseOptions::default())[root];
            let about_joint = joint * Affine3A::from_quat(turn.rotation) * joint.inverse();
            let mut moved = 0.0f32;
            for ((p, q), &j) in plain.iter().zip(&turned).zip(&joints_of) {
                if in_subtree(j, root) {
                    let expected = about_joint.transform_point3(*p);
                    assert!((*q - expected).length() <= 1e-4, "{name} frame {f}: {q} vs {expected}");
                    moved = moved.max((*q - *p).length());
                } else {
                    assert_eq!(p, q, "{name} frame {f}: a vertex of joint {j} outside the subtree moved");
                }
            }
            assert!(moved > 1.0, "{name} frame {f}: the subtree did not move ({moved})");
        }
    }
    // A 90° yaw of the head in the rest pose (head frame = model frame, Z up) turns the
    // visor, 5 units in front (+X) of the head joint, to 5 units on its left (+Y).
    let head = skeleton.find("head").unwrap();
    let layers = Layers { bones: vec![BoneOverride::from_degrees(head, 90.0, 0.0, 0.0)], ..Layers::default() };
    let turned = positions(&animate(&model, &with_layers(Motion::Rest, layers), FrameTime::Frame(0.0)));
    let rest = positions(&anim::rest_pose(&model));
    let head_origin =
        spritebake::internal::anim::joint_transforms(&model, None, FrameTime::Frame(0.0), &PoseOptions::default())
            [head]
            .transform_point3(Vec3::ZERO);
    let front =
        (0..rest.len()).filter(|&v| joints_of[v] == head).max_by(|&a, &b| rest[a].x.total_cmp(&rest[b].x)).unwrap();
    let r = rest[front] - head_origin;
    let expected = head_origin + Vec3::new(-r.y, r.x, r.z);
    assert!((turned[front] - expected).length() <= 1e-4, "{} vs {expected}", turned[front]);
}

#[test]
fn blend_weights_0_and_1_reproduce_each_clip() {
    for model in [robot_with_wave(), md2_robot_with_back()] {
        let (a, b) = (&model.clips[0], &model.clips[1]);
        assert_ne!(a.frame_count(), b.frame_count(), "clips of different lengths");
        let options = PoseOptions::default();
        for f in [0.0, 3.5, 6.0, 10.25, 15.0] {
            let time = FrameTime::Frame(f);
            let blended = |weight: f32| {
                let layers = Layers { blend: Some(Blend { clip: b, weight }), ..Layers::default() };
                positions(&animate(&model, &with_layers(Motion::Clip(a), layers), time))
            };
            let a_alone = positions(&pose(&model, Some(a), time, &options));
            // B at the same fraction of its length.
            let b_time = Motion::Clip(a).map_time(time, b);
            let FrameTime::Seconds(s) = b_time else { panic!("clips of different lengths map by seconds") };
            assert!((s / b.duration() - f / a.frame_count() as f32).abs() < 1e-6, "{s} at frame {f}");
            let b_alone = positions(&pose(&model, Some(b), b_time, &options));
            assert_eq!(blended(0.0), a_alone, "{}: weight 0 at frame {f}", model.name);
            assert_eq!(blended(1.0), b_alone, "{}: weight 1 at frame {f}", model.name);
            let half = blended(0.5);
            assert!(largest_move(&half, &a_alone) > 0.1 && largest_move(&half, &b_alone) > 0.1);
        }
    }
}

#[test]
fn blend_mixes_parent_relative_rotations_on_the_shortest_path() {
    // Blending a pose with itself written as −q (the same rotation) must not swing the long
    // way round: every vertex stays where it was.
    let model = robot_with_wave();
    let mut flipped = model.clips[1].clone();
    let ClipFrames::Skeletal(frames) = &mut flipped.frames else { unreachable!() };
    for pose in frames.iter_mut().flatten() {
        pose.rotation = -pose.rotation;
    }
    flipped.name = "flipped".into();
    let wave = &model.clips[1];
    let layers = Layers { blend: Some(Blend { clip: &flipped, weight: 0.5 }), ..Layers::default() };
    let time = FrameTime::Frame(3.0);
    let mixed = positions(&animate(&model, &with_layers(Motion::Clip(wave), layers), time));
    let alone = positions(&pose(&model, Some(wave), time, &PoseOptions::default()));
    assert!(largest_move(&mixed, &alone) < 1e-3);
}

/// Every frame of `clip` and the step back to its first (the clips loop).
fn largest_step(model: &Model, clip: &Clip, options: &PoseOptions) -> f32 {
    let at = |f: usize| positions(&pose(model, Some(clip), FrameTime::Frame(f as f32), options));
    (0..clip.frame_count()).map(|f| largest_move(&at(f), &at((f + 1) % clip.frame_count()))).fold(0.0, f32::max)
}

#[test]
fn transitions_are_continuous_and_keep_both_clips_outside_the_crossfade() {
    let options = PoseOptions { looping: true, in_place: true };
    for model in [robot_with_wave(), md2_robot_with_back()] {
        let (a, b) = (&model.clips[0], &model.clips[1]);
        // A crossfade of 16 frames: each step moves the weight by 1/16 (a cut would jump).
        let transition = Transition { from: a, to: b, seconds: 1.0 };
        let animation = Animation { motion: Motion::Transition(transition), layers: Layers::default(), options };
        let n = transition.frame_count();
        // B's part lasts the crossfade and one frame more (B loops: it is shorter).
        assert_eq!(n, a.frame_count() + (a.fps * 1.0) as usize + 1);
        let frames: Vec<Vec<Vec3>> =
            (0..n).map(|f| positions(&animate(&model, &animation, FrameTime::Frame(f as f32)))).collect();
        let bound = largest_step(&model, a, &options).max(largest_step(&model, b, &options));
        for (f, pair) in frames.windows(2).enumerate() {
            let step = largest_move(&pair[0], &pair[1]);
            assert!(step <= bound * 1.0001, "{}: step {step} after frame {f} (bound {bound})", model.name);
        }
        // A's frames play unchanged first; B's last frame, after the crossfade, is B alone.
        for (f, frame) in frames.iter().enumerate().take(a.frame_count()) {
            assert_eq!(*frame, positions(&pose(&model, Some(a), FrameTime::Frame(f as f32), &options)));
        }
        let last = FrameTime::Frame((n - 1 - a.frame_count()) as f32);
        assert_eq!(frames[n - 1], positions(&pose(&model, Some(b), last, &options)));
    }
}

#[test]
fn golden_robot_holding_a_sword() {
    let path = asset("robot/robot.md5mesh");
    let model = robot();
    let spec = AttachSpec {
        joint: Some("forearm_R".into()),
        offset: "t=0,0,-11;r=0,90,0".parse().unwrap(),
        ..AttachSpec::new(asset("sword.obj"))
    };
    let controls = Controls { attachments: vec![spec], ..Controls::default() };
    let props = rig::load_attachments(&controls, &path, &model, &LoadOptions::default(), &Default::default()).unwrap();
    let animation = rig::animation(&model, &props, &controls, model.clips.first(), PoseOptions::default()).unwrap();
    let view = OrbitView { yaw_degrees: 60.0, pitch_degrees: 20.0, ..OrbitView::default() };
    let options = RenderOptions { width: 96, height: 96, ssaa: 4, ..RenderOptions::default() };
    let request = FrameRequest { animation, time: FrameTime::Frame(3.0) };
    let image = bake::render_frame(&Renderer::new(), &model, &request, &view, &options).unwrap();
    assert_golden(&image, Tolerance { channel: 1, max_pixels: 8 });
}

/// A walk->wave transition row with the sword in hand and the head turned.
fn transition_job<'a>(model: &'a Model, layers: Layers<'a>) -> Job<'a> {
    let transition = Transition { from: &model.clips[0], to: &model.clips[1], seconds: 0.5 };
    Job {
        model,
        clips: Vec::new(),
        transitions: vec![transition],
        layers,
        directions: Directions::compass(1),
        view: OrbitView { yaw_degrees: 30.0, pitch_degrees: 15.0, ..OrbitView::default() },
        options: RenderOptions { width: 40, height: 48, ssaa: 2, ..RenderOptions::default() },
        fit: Fit::Shared,
        pixels_per_unit: None,
        ground: spritebake::spec::Ground::Auto,
        auto_size: false,
        sampling: Sampling::Count(12),
        looping: Default::default(),
        pose: PoseOptions { looping: true, in_place: true },
        look: Default::default(),
        points: Vec::new(),
    }
}

#[test]
fn golden_transition_sheet() {
    let model = robot_with_wave();
    let job = transition_job(&model, Layers::default());
    let cells = job.render().unwrap();
    assert_eq!(job.row_names(), ["walk->wave"]);
    let sheet = pack(
        &cells,
        &job.info(),
        Layout { padding: 1, extrude: 0, trim: false, ..Layout::default() },
        &MemoryBudget::default(),
    )
    .unwrap();
    assert_golden(&sheet.images[0], Tolerance { channel: 1, max_pixels: 12 });
}

#[test]
fn layered_sprite_jobs_render_alike_on_any_thread_count() {
    let model = robot_with_wave();
    let path = asset("robot/robot.md5mesh");
    let spec = AttachSpec { joint: Some("forearm_R".into()), ..AttachSpec::new(asset("sword.obj")) };
    let controls = Controls { attachments: vec![spec], ..Controls::default() };
    let props = rig::load_attachments(&controls, &path, &model, &LoadOptions::default(), &Default::default()).unwrap();
    let mut layers = rig::layers(&model, &props, &controls, &[]).unwrap();
    layers.bones.push(BoneOverride::from_degrees(
        model.skeleton.as_ref().unwrap().find("head").unwrap(),
        45.0,
        0.0,
        0.0,
    ));
    layers.blend = Some(Blend { clip: &model.clips[1], weight: 0.3 });
    let job = transition_job(&model, layers);
    let render = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| job.render().unwrap()).into_iter().map(|c| c.image.rgba).collect::<Vec<_>>()
    };
    assert!(render(1) == render(3), "cells differ between 1 and 3 threads");
}

#[test]
fn bone_override_leaves_vertices_of_other_joints_alone_on_corpus_md5() {
    let Some(dir) = common::corpus("md5/bob_lamp") else { return };
    let bob = load(&dir.join("boblampclean.md5mesh"), &[dir.join("boblampclean.md5anim")]);
    let skeleton = bob.skeleton.as_ref().unwrap();
    let neck = skeleton.find("neck").unwrap();
    let below = |mut j: usize| loop {
        if j == neck {
            return true;
        }
        match skeleton.joints[j].parent {
            Some(p) => j = p,
            None => return false,
        }
    };
    // Per vertex: does any of its weights belong to the neck's subtree (neck, head)?
    let touched: Vec<bool> = bob
        .meshes
        .iter()
        .flat_map(|m| {
            m.influence_ranges
                .iter()
                .map(|r| m.influences[r.start as usize..r.end as usize].iter().any(|i| below(i.joint as usize)))
        })
        .collect();
    let walk = &bob.clips[0];
    let layers = Layers { bones: vec![BoneOverride::from_degrees(neck, 90.0, 0.0, 0.0)], ..Layers::default() };
    let animation = with_layers(Motion::Clip(walk), layers);
    let time = FrameTime::Frame(20.0);
    let plain = positions(&pose(&bob, Some(walk), time, &PoseOptions::default()));
    let turned = positions(&animate(&bob, &animation, time));
    let mut moved = 0;
    for ((p, q), touched) in plain.iter().zip(&turned).zip(&touched) {
        if *touched {
            moved += usize::from((*p - *q).length() > 1e-3);
        } else {
            assert_eq!(p, q, "a vertex weighted only outside the neck's subtree moved");
        }
    }
    assert!(moved > 50, "only {moved} head vertices moved");
}
