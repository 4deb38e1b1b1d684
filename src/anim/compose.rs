//! Posing an [`Animation`]: the motion, then every layer on it, then the attachments.
//!
//! Attachments are posed here with the body: a lockstep attachment plays the body's motion
//! through [`animate`] itself (see `attach.rs` for how attachments hang).

use std::borrow::Cow;

use glam::{Affine3A, Mat3, Vec3};

use super::skin::Placing;
use super::{
    Animation, Attachment, Blend, FrameTime, Layers, Motion, Mount, Transition, apply_overrides, blend_poses,
    frame_pair, keyed, local_poses, pose_shape, rest_pose, shares_key_shapes, show_turns, to_body_axes,
};
use crate::model::{Clip, ClipFrames, JointPose, Model, PosedMesh, SharedPositions, Skeleton, Tag};

/// Poses `model` for `animation` at `time` (in the motion's frames or seconds): the body with
/// every layer applied, followed by the attachments' parts (in the body's file axes).
pub fn animate<'a>(model: &'a Model, animation: &Animation<'a>, time: FrameTime) -> PosedMesh<'a> {
    pose_with(model, animation, time, Placing::Vertices)
}

/// The points of [`animate`]'s pose, in the body's file axes, for a reader of where the model
/// reaches (framing): every position the pose places, the same to the bit, but of a skinned
/// mesh with an entry in `shared` (one a model mesh, from [`SharedPositions::of`]) each
/// shared position once, and no normals skinned. A Mixamo rig has 2.8 vertices a position.
pub(crate) fn animate_points(
    model: &Model,
    animation: &Animation,
    time: FrameTime,
    shared: &[Option<SharedPositions>],
) -> Vec<Vec3> {
    let posed = pose_with(model, animation, time, Placing::Points(shared));
    posed.parts.iter().flat_map(|p| p.positions.iter().copied()).collect()
}

fn pose_with<'a>(model: &'a Model, animation: &Animation<'a>, time: FrameTime, placing: Placing) -> PosedMesh<'a> {
    let layers = &animation.layers;
    let morph = animation.motion.clips().iter().chain(layers.blend.as_ref().map(|b| &b.clip)).any(|c| is_morph(c));
    // One set of joints serves both skinning and the joint attachments.
    let joints = if morph { Vec::new() } else { animated_joint_transforms(model, animation, time) };
    let still = matches!(animation.motion, Motion::Rest) && layers.blend.is_none() && layers.bones.is_empty();
    let mut posed = if morph {
        morph_animated(model, animation, time)
    } else if joints.is_empty() || still {
        // No skeleton, or nothing moves it: the stored vertices, borrowed.
        rest_pose(model)
    } else {
        keyed::skin_animated(model, animation, time, &joints, placing)
    };
    show_turns(model, &mut posed, animation.motion.seconds(time));
    for attachment in &layers.attachments {
        posed.parts.extend(pose_attachment(model, animation, attachment, time, &joints).parts);
    }
    posed
}

fn is_morph(clip: &Clip) -> bool {
    matches!(clip.frames, ClipFrames::Morph(_))
}

/// Morph models: pose each clip involved and mix the vertices.
fn morph_animated<'a>(model: &'a Model, animation: &Animation<'a>, time: FrameTime) -> PosedMesh<'a> {
    let options = &animation.options;
    animation.mixed(time, |clip, t| pose_shape(model, clip, t, options), mix_posed)
}

/// Lerps `a`'s positions and normals towards `b`'s (same model, same parts); exact at 0 and 1.
fn mix_posed<'a>(mut a: PosedMesh<'a>, b: &PosedMesh<'a>, w: f32) -> PosedMesh<'a> {
    if w.is_nan() || w <= 0.0 {
        return a;
    }
    for (p, q) in a.parts.iter_mut().zip(&b.parts) {
        if w >= 1.0 {
            p.positions = q.positions.clone();
            p.normals = q.normals.clone();
            continue;
        }
        let positions = p.positions.iter().zip(q.positions.iter()).map(|(x, y)| x.lerp(*y, w)).collect();
        let normals =
            p.normals.iter().zip(q.normals.iter()).map(|(x, y)| x.lerp(*y, w).try_normalize().unwrap_or(*x)).collect();
        p.positions = Cow::Owned(positions);
        p.normals = Cow::Owned(normals);
    }
    a
}

/// Parent-relative joint poses of `animation` at `time`: the motion (a transition mixes its
/// two clips), then the blend, then the bone overrides. The rest pose for morph clips.
pub fn animated_local_poses(
    model: &Model,
    skeleton: &Skeleton,
    animation: &Animation,
    time: FrameTime,
) -> Vec<JointPose> {
    let options = &animation.options;
    let at = |clip: Option<&Clip>, t: FrameTime| local_poses(model, skeleton, clip, t, options);
    let mut locals = animation.mixed(time, at, |a, b, w| blend_poses(a, b, w));
    apply_overrides(&mut locals, &animation.layers.bones);
    locals
}

/// Model-space transforms of every joint for `animation` at `time`, every layer applied.
/// Empty for a model without skeleton.
pub fn animated_joint_transforms(model: &Model, animation: &Animation, time: FrameTime) -> Vec<Affine3A> {
    let Some(skeleton) = &model.skeleton else { return Vec::new() };
    skeleton.to_model_space(&animated_local_poses(model, skeleton, animation, time))
}

/// How far `animation` has carried the model horizontally at `time` since its start, in model
/// space: the shift that posing in place takes off the whole model (`travel.rs`), whether or
/// not `animation` is posed in place. Zero for a model without a skeleton and for a motion
/// that does not travel.
pub fn root_travel(model: &Model, animation: &Animation, time: FrameTime) -> Vec3 {
    let posed = |in_place: bool| {
        let options = super::PoseOptions { in_place, ..animation.options };
        animated_joint_transforms(model, &Animation { options, ..animation.clone() }, time)
    };
    // Posing in place moves every travelling joint by the same shift and leaves the still
    // containers above them alone: the joint that moved furthest moved by exactly the shift.
    let (travelling, in_place) = (posed(false), posed(true));
    travelling
        .iter()
        .zip(&in_place)
        .map(|(t, p)| Vec3::from(t.translation - p.translation))
        .filter(|d| d.is_finite())
        .max_by(|a, b| a.length_squared().total_cmp(&b.length_squared()))
        .unwrap_or(Vec3::ZERO)
}

/// The attachment's parts posed for `animation` of the body at `time`; `joints` are the body's
/// animated model-space joint transforms (used by joint mounts).
fn pose_attachment<'a>(
    body: &Model,
    animation: &Animation<'a>,
    attachment: &Attachment<'a>,
    time: super::FrameTime,
    joints: &[Affine3A],
) -> PosedMesh<'a> {
    let placement = attachment.offset * Affine3A::from_mat3(to_body_axes(body, attachment.model));
    match attachment.mount {
        Mount::Lockstep => {
            let follow = followed(body, attachment.model, animation);
            transformed(animate(attachment.model, &follow, time), placement)
        }
        rigid => {
            let mount = mount_placement(body, rigid, animation, time, joints);
            transformed(rest_pose(attachment.model), mount * placement)
        }
    }
}

/// Where a joint or tag of `body` is (model space) for `animation` at `time`; `joints` are
/// the body's animated model-space joint transforms. A lockstep mount, a missing joint or tag,
/// reads as the identity.
pub fn mount_placement(
    body: &Model,
    mount: Mount,
    animation: &Animation,
    time: FrameTime,
    joints: &[Affine3A],
) -> Affine3A {
    match mount {
        Mount::Lockstep => Affine3A::IDENTITY,
        Mount::Joint(j) => joints.get(j).copied().unwrap_or(Affine3A::IDENTITY),
        Mount::Tag(t) => tag_placement(body, t, animation, time),
    }
}

/// What a lockstep attachment plays: the body's motion and blend, on the attachment's key
/// shapes by index or on its clips of the same names (none of the body's other layers).
fn followed<'a>(body: &Model, attachment: &'a Model, animation: &Animation<'a>) -> Animation<'a> {
    let (motion, blend) = if shares_key_shapes(body, attachment) {
        (animation.motion, animation.layers.blend)
    } else {
        let by_name = |name: &str| attachment.clip(name);
        let motion = match animation.motion {
            Motion::Rest => Motion::Rest,
            Motion::Clip(c) => by_name(&c.name).map_or(Motion::Rest, Motion::Clip),
            Motion::Transition(t) => match (by_name(&t.from.name), by_name(&t.to.name)) {
                (Some(from), Some(to)) => Motion::Transition(Transition { from, to, seconds: t.seconds }),
                _ => Motion::Rest,
            },
        };
        let blend =
            animation.layers.blend.and_then(|b| by_name(&b.clip.name).map(|clip| Blend { clip, weight: b.weight }));
        (motion, blend)
    };
    Animation { motion, layers: Layers { blend, ..Layers::default() }, options: animation.options }
}

/// Applies `m` to positions and normals (nothing to do, and nothing copied, for the identity).
fn transformed(mut posed: PosedMesh<'_>, m: Affine3A) -> PosedMesh<'_> {
    if m == Affine3A::IDENTITY {
        return posed;
    }
    let normal_matrix = Mat3::from(m.matrix3).inverse().transpose();
    let normal_matrix = if normal_matrix.is_finite() { normal_matrix } else { Mat3::from(m.matrix3) };
    for part in &mut posed.parts {
        let positions: Vec<Vec3> = part.positions.iter().map(|p| m.transform_point3(*p)).collect();
        let normals: Vec<Vec3> =
            part.normals.iter().map(|n| (normal_matrix * *n).try_normalize().unwrap_or(*n)).collect();
        part.positions = Cow::Owned(positions);
        part.normals = Cow::Owned(normals);
    }
    posed
}

/// Where tag `tag` of `body` is for `animation` at `time`: on the key shapes its morph clips
/// show, mixed like their vertices; the first key shape at rest or under a skeletal clip.
fn tag_placement(body: &Model, tag: usize, animation: &Animation, time: FrameTime) -> Affine3A {
    let Some(tag) = body.tags.get(tag) else { return Affine3A::IDENTITY };
    let looping = animation.options.looping;
    let at = |clip: Option<&Clip>, time: FrameTime| match clip.map(|c| (c, &c.frames)) {
        Some((clip, ClipFrames::Morph(frames))) => {
            let pair = frame_pair(clip, time, looping);
            let key = |i: usize| frames.get(i).copied().unwrap_or(0);
            tag.between(key(pair.from), key(pair.to), pair.t)
        }
        _ => tag.between(0, 0, 0.0),
    };
    animation.mixed(time, at, |a, b, w| Tag::mix(a, *b, w))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anim::PoseOptions;
    use crate::formats::LoadOptions;

    #[test]
    fn posed_points_are_the_posed_positions_each_shared_one_once() {
        let robot = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/assets/robot");
        let options = LoadOptions { animations: vec![robot.join("walk.md5anim")], ..LoadOptions::default() };
        let model = crate::formats::load(&robot.join("robot.md5mesh"), &options).unwrap();
        let shared = SharedPositions::of_each(&model.meshes);
        let distinct: usize = shared
            .iter()
            .zip(&model.meshes)
            .map(|(s, m)| s.as_ref().map_or(m.positions.len(), |s| s.representatives.len()))
            .sum();
        let vertices: usize = model.meshes.iter().map(|m| m.positions.len()).sum();
        assert!(distinct < vertices, "the robot's meshes share positions");
        let animation = Animation::clip(model.clips.first(), PoseOptions::default());
        let bits = |p: &[glam::Vec3]| {
            let mut bits: Vec<_> = p.iter().map(|v| v.to_array().map(f32::to_bits)).collect();
            bits.sort_unstable();
            bits
        };
        for frame in [0.0, 3.5, 11.0] {
            let full = animate(&model, &animation, FrameTime::Frame(frame));
            let every: Vec<_> = full.parts.iter().flat_map(|p| p.positions.iter().copied()).collect();
            let points = animate_points(&model, &animation, FrameTime::Frame(frame), &shared);
            assert_eq!(points.len(), distinct, "one point a shared position, frame {frame}");
            let (mut every, mut points) = (bits(&every), bits(&points));
            every.dedup();
            points.dedup();
            assert_eq!(every, points, "the same positions to the bit, frame {frame}");
            // Without the table every vertex's position comes back.
            assert_eq!(animate_points(&model, &animation, FrameTime::Frame(frame), &[]).len(), vertices);
        }
    }
}
