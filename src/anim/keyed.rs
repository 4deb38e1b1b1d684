//! Keyed clips (glTF, FBX blend shape animation): every channel sampled exactly at the
//! requested time.
//!
//! * **Time.** `FrameTime::Frame(f)` is `f / fps` seconds, so sheets and GIFs step through a
//!   keyed clip at its `fps` like any other clip. Looping clips wrap at the clip's duration
//!   (the latest key); clamped clips hold the ends. Before a channel's first key and after its
//!   last, the channel holds that key's value (glTF semantics).
//! * **Interpolation.** STEP holds the earlier key; LINEAR lerps, with shortest-path slerp for
//!   rotations; CUBICSPLINE is the glTF Hermite spline whose tangents are scaled by the key
//!   interval. A time exactly on a key returns that key's stored value untouched.
//! * **Rest.** Joints and morph weights that no channel animates keep their rest values, so a
//!   clip can move only some joints (and `all` can merge animations of one joint each).
//! * **Morph targets** are added to the joint-space influence positions before skinning.

use glam::{Affine3A, Quat, Vec3};

use super::skin::{self, Placing};
use super::{Animation, FrameTime, PoseOptions, travel};
use crate::model::{
    Channel, ChannelTarget, Clip, ClipFrames, Influence, Interpolation, JointPose, KeyedClip, Model, PosedMesh,
    Skeleton,
};

/// Seconds into a keyed clip for `time`, wrapped or clamped. Non-finite times count as 0.
pub(crate) fn clip_seconds(clip: &Clip, keyed: &KeyedClip, time: FrameTime, looping: bool) -> f32 {
    let s = match time {
        FrameTime::Frame(f) if clip.fps > 0.0 => f / clip.fps,
        FrameTime::Frame(_) => 0.0,
        FrameTime::Seconds(s) => s,
    };
    let s = if s.is_finite() { s } else { 0.0 };
    let d = keyed.duration;
    if d.is_nan() || d <= 0.0 {
        0.0
    } else if looping {
        s.rem_euclid(d)
    } else {
        s.clamp(0.0, d)
    }
}

/// Samples `channel` at `seconds` into `out` (`channel.width` values).
pub(crate) fn sample(channel: &Channel, seconds: f32, out: &mut [f32]) {
    // A channel without keys (or short of values) reads as zeros, never as stale data.
    out.fill(0.0);
    let w = channel.width;
    let keys = channel.times.len();
    let cubic = channel.interpolation == Interpolation::CubicSpline;
    // Element `e` of key `k`: the value itself, or (cubic) 0 in-tangent, 1 value, 2 out-tangent.
    let element = |k: usize, e: usize| {
        let i = if cubic { 3 * k + e } else { k };
        channel.values.get(i * w..(i + 1) * w).unwrap_or(&[])
    };
    let copy = |src: &[f32], out: &mut [f32]| out.iter_mut().zip(src).for_each(|(o, s)| *o = *s);
    let next = channel.times.partition_point(|&t| t <= seconds);
    if next == 0 || next >= keys {
        copy(element(next.saturating_sub(1).min(keys.saturating_sub(1)), 1), out);
        return;
    }
    let (k, t0, t1) = (next - 1, channel.times[next - 1], channel.times[next]);
    let dt = t1 - t0;
    let u = if dt > 0.0 { (seconds - t0) / dt } else { 0.0 };
    if u <= 0.0 || channel.interpolation == Interpolation::Step {
        copy(element(k, 1), out);
        return;
    }
    let rotation = matches!(channel.target, ChannelTarget::Rotation(_));
    match channel.interpolation {
        Interpolation::Step => {}
        Interpolation::Linear if rotation => {
            let q = |s: &[f32]| quat(s);
            let (a, b) = (q(element(k, 1)), q(element(next, 1)));
            let b = if a.dot(b) < 0.0 { -b } else { b };
            copy(&a.slerp(b, u).normalize().to_array(), out);
        }
        Interpolation::Linear => {
            let (a, b) = (element(k, 1), element(next, 1));
            out.iter_mut().zip(a.iter().zip(b)).for_each(|(o, (a, b))| *o = a + (b - a) * u);
        }
        Interpolation::CubicSpline => {
            // glTF 2.0 appendix C: p(u) = h00·v0 + h10·dt·out0 + h01·v1 + h11·dt·in1.
            let (u2, u3) = (u * u, u * u * u);
            let h00 = 2.0 * u3 - 3.0 * u2 + 1.0;
            let h10 = u3 - 2.0 * u2 + u;
            let h01 = -2.0 * u3 + 3.0 * u2;
            let h11 = u3 - u2;
            let (v0, b0, a1, v1) = (element(k, 1), element(k, 2), element(next, 0), element(next, 1));
            for (i, o) in out.iter_mut().enumerate() {
                let g = |s: &[f32]| s.get(i).copied().unwrap_or(0.0);
                *o = h00 * g(v0) + h10 * dt * g(b0) + h01 * g(v1) + h11 * dt * g(a1);
            }
            if rotation {
                let q = unit(quat(out));
                copy(&q.to_array(), out);
            }
        }
    }
}

/// A quaternion from x, y, z, w values (identity if malformed).
fn quat(v: &[f32]) -> Quat {
    match v {
        [x, y, z, w, ..] => Quat::from_xyzw(*x, *y, *z, *w),
        _ => Quat::IDENTITY,
    }
}

/// `q` normalised; identity for a zero or non-finite quaternion.
fn unit(q: Quat) -> Quat {
    let n = q.length();
    if n > 0.0 && n.is_finite() { q / n } else { Quat::IDENTITY }
}

/// Parent-relative joint poses at `time` of a keyed clip, root motion removed if asked.
pub(crate) fn local_poses(
    model: &Model,
    skeleton: &Skeleton,
    clip: &Clip,
    keyed: &KeyedClip,
    time: FrameTime,
    options: &PoseOptions,
) -> Vec<JointPose> {
    let seconds = clip_seconds(clip, keyed, time, options.looping);
    let mut locals = poses_at(skeleton, keyed, seconds);
    if options.in_place {
        remove_root_motion(model, skeleton, keyed, &mut locals);
    }
    locals
}

/// Rest poses overwritten by every joint channel at `seconds`.
fn poses_at(skeleton: &Skeleton, keyed: &KeyedClip, seconds: f32) -> Vec<JointPose> {
    let mut locals = skeleton.rest_pose();
    let mut v = [0.0f32; 4];
    for channel in &keyed.channels {
        let joint = match channel.target {
            ChannelTarget::Translation(j) | ChannelTarget::Rotation(j) | ChannelTarget::Scale(j) => j,
            ChannelTarget::MorphWeights(_) => continue,
        };
        let Some(pose) = locals.get_mut(joint) else { continue };
        sample(channel, seconds, &mut v);
        match channel.target {
            ChannelTarget::Translation(_) => pose.translation = Vec3::new(v[0], v[1], v[2]),
            ChannelTarget::Rotation(_) => pose.rotation = unit(quat(&v)),
            ChannelTarget::Scale(_) => pose.scale = Vec3::new(v[0], v[1], v[2]),
            ChannelTarget::MorphWeights(_) => {}
        }
    }
    locals
}

/// Takes the clip's horizontal travel off the whole model, keeping vertical motion (bobbing):
/// the principal mover is pinned to its horizontal model-space position at time 0, and every
/// other anchor moves by the same model-space vector, so the model shifts as one piece (see
/// `travel`).
///
/// glTF rigs usually hang the moving hips under a static, often rotated armature node, so a
/// "mover" is one of the highest joints with a translation channel, and the shift is made in
/// model space, not in the joint's parent space. The anchors are the highest joints that carry
/// no mover (the movers themselves, and the roots and branches beside them): shifting each
/// once moves every joint except the still containers above the movers.
fn remove_root_motion(model: &Model, skeleton: &Skeleton, keyed: &KeyedClip, locals: &mut [JointPose]) {
    let translated: Vec<bool> = (0..skeleton.joints.len())
        .map(|j| keyed.channels.iter().any(|c| c.target == ChannelTarget::Translation(j)))
        .collect();
    let has_translated_ancestor = |mut j: usize| {
        while let Some(p) = skeleton.joints.get(j).and_then(|joint| joint.parent) {
            if translated.get(p).copied().unwrap_or(false) {
                return true;
            }
            j = p;
        }
        false
    };
    let movers: Vec<usize> =
        (0..skeleton.joints.len()).filter(|&j| translated[j] && !has_translated_ancestor(j)).collect();
    let Some(principal) = travel::principal(skeleton, &movers) else { return };
    let up = model.orientation.up.to_vec3().abs();
    let world = skeleton.to_model_space(locals);
    let start = skeleton.to_model_space(&poses_at(skeleton, keyed, 0.0));
    // Anchors hang below still containers or nothing, so `world` still holds their parents.
    let parent = |j: usize| skeleton.joints[j].parent.and_then(|p| world.get(p)).copied().unwrap_or(Affine3A::IDENTITY);
    let Some(origin) = start.get(principal) else { return };
    let now = parent(principal).transform_point3(locals[principal].translation);
    let pinned = travel::pinned(up, now, Vec3::from(origin.translation));
    let back = parent(principal).inverse().transform_point3(pinned);
    if !back.is_finite() {
        return;
    }
    locals[principal].translation = back;
    let shift = now - pinned;
    // Without travel the other anchors keep their poses bit for bit, as a rig with one mover
    // always did. With it, each moves by the shift taken into its parent's axes (rather than
    // through its model-space place and back, which would add rounding of its own).
    if shift != Vec3::ZERO {
        for j in anchors(skeleton, &movers).into_iter().filter(|&j| j != principal) {
            let step = parent(j).inverse().transform_vector3(shift);
            if step.is_finite() {
                locals[j].translation -= step;
            }
        }
    }
}

/// The highest joints that are not above a mover: the movers, and every root or branch that
/// carries none. Each joint except the containers above the movers hangs below exactly one.
fn anchors(skeleton: &Skeleton, movers: &[usize]) -> Vec<usize> {
    let joints = &skeleton.joints;
    let mut is_mover = vec![false; joints.len()];
    movers.iter().for_each(|&m| is_mover[m] = true);
    // Whether each joint is a strict ancestor of a mover; children come after their parents.
    let mut above = vec![false; joints.len()];
    for (j, joint) in joints.iter().enumerate().rev() {
        if let (true, Some(p)) = (is_mover[j] || above[j], joint.parent.and_then(|p| above.get_mut(p))) {
            *p = true;
        }
    }
    let below_container = |j: usize| joints[j].parent.is_none_or(|p| above.get(p) == Some(&true));
    (0..joints.len()).filter(|&j| !above[j] && below_container(j)).collect()
}

/// Morph weights of every mesh at `time` of `clip`: animated ones from a keyed clip's weight
/// channels, the rest (and all of them for other clips) as stored.
pub(crate) fn morph_weights(model: &Model, clip: &Clip, time: FrameTime, options: &PoseOptions) -> Vec<Vec<f32>> {
    let mut weights: Vec<Vec<f32>> = model.meshes.iter().map(|m| m.morph_weights.clone()).collect();
    let ClipFrames::Keyed(keyed) = &clip.frames else { return weights };
    let seconds = clip_seconds(clip, keyed, time, options.looping);
    for channel in &keyed.channels {
        let ChannelTarget::MorphWeights(meshes) = &channel.target else { continue };
        let mut v = vec![0.0; channel.width];
        sample(channel, seconds, &mut v);
        for &m in meshes {
            if let Some(w) = weights.get_mut(m) {
                w.clone_from(&v);
            }
        }
    }
    weights
}

/// Lerps every mesh's weights `a` towards `b` by `t` (the crossfade and blend of two clips).
fn mix_weights(a: Vec<Vec<f32>>, b: &[Vec<f32>], t: f32) -> Vec<Vec<f32>> {
    a.into_iter().zip(b).map(|(x, y)| x.iter().zip(y).map(|(p, q)| p + (q - p) * t).collect()).collect()
}

/// Influences with the weighted morph-target offsets added; `None` when nothing moves.
fn morphed_influences(mesh: &crate::model::Mesh, weights: &[f32]) -> Option<Vec<Influence>> {
    let active: Vec<_> = mesh.morph_targets.iter().zip(weights).filter(|(_, w)| **w != 0.0).collect();
    if active.is_empty() {
        return None;
    }
    let mut influences = mesh.influences.clone();
    for (target, &w) in active {
        for (i, inf) in influences.iter_mut().enumerate() {
            inf.position += target.positions.get(i).copied().unwrap_or(Vec3::ZERO) * w;
            inf.normal += target.normals.get(i).copied().unwrap_or(Vec3::ZERO) * w;
        }
    }
    Some(influences)
}

/// Skins every mesh with `joints`, morph targets added at `weights` (one list per mesh); plain
/// skinning when no mesh has morph targets.
pub(super) fn skin_morphed<'a>(
    model: &'a Model,
    weights: &[Vec<f32>],
    joints: &[Affine3A],
    placing: Placing,
) -> PosedMesh<'a> {
    skin::posed_from(model, |index, mesh| {
        let skinning = placing.of_mesh(index);
        let w = weights.get(index).map_or(&[][..], Vec::as_slice);
        match morphed_influences(mesh, w) {
            Some(influences) => skin::skin_influences(mesh, &influences, joints, skinning),
            None => skin::skin_influences(mesh, &mesh.influences, joints, skinning),
        }
    })
}

/// Skins the model for a layered animation: as [`skin::skin_influences`], plus morph targets at the
/// weights of the motion's clip (crossfaded by a transition, mixed by a blend).
pub(super) fn skin_animated<'a>(
    model: &'a Model,
    animation: &Animation,
    time: FrameTime,
    joints: &[Affine3A],
    placing: Placing,
) -> PosedMesh<'a> {
    let options = &animation.options;
    let at = |clip: Option<&Clip>, t: FrameTime| match clip {
        Some(clip) => morph_weights(model, clip, t, options),
        None => model.meshes.iter().map(|m| m.morph_weights.clone()).collect(),
    };
    let weights = animation.mixed(time, at, |a, b, w| mix_weights(a, b, w));
    skin_morphed(model, &weights, joints, placing)
}

/// Poses a model with a keyed clip: joints, morph weights, skinning.
pub(super) fn pose<'a>(
    model: &'a Model,
    clip: &Clip,
    keyed: &KeyedClip,
    time: FrameTime,
    options: &PoseOptions,
) -> PosedMesh<'a> {
    let joints = match &model.skeleton {
        Some(skeleton) => skeleton.to_model_space(&local_poses(model, skeleton, clip, keyed, time, options)),
        None => Vec::new(),
    };
    skin_morphed(model, &morph_weights(model, clip, time, options), &joints, Placing::Vertices)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn channel(interpolation: Interpolation, values: Vec<f32>) -> Channel {
        Channel { target: ChannelTarget::Translation(0), interpolation, times: vec![1.0, 3.0], width: 1, values }
    }

    fn at(c: &Channel, s: f32) -> f32 {
        let mut v = [0.0];
        sample(c, s, &mut v);
        v[0]
    }

    #[test]
    fn anchors_are_the_movers_and_what_hangs_beside_them() {
        use crate::model::Joint;
        // 0 armature → 1 hips (mover) → 5, 0 → 2 prop → 3; 4 a second root; 6 → 7 (mover).
        let parents = [None, Some(0), Some(0), Some(2), None, Some(1), None, Some(6)];
        let joint = |(i, &parent)| Joint { name: format!("j{i}"), parent, rest: JointPose::IDENTITY };
        let skeleton = Skeleton { joints: parents.iter().enumerate().map(joint).collect() };
        assert_eq!(anchors(&skeleton, &[1, 7]), [1, 2, 4, 7]);
        assert_eq!(anchors(&skeleton, &[]), [0, 4, 6]);
    }

    #[test]
    fn linear_step_and_cubic_hit_keys_and_hold_the_ends() {
        let linear = channel(Interpolation::Linear, vec![10.0, 20.0]);
        assert_eq!(
            [at(&linear, 0.0), at(&linear, 1.0), at(&linear, 2.0), at(&linear, 3.0), at(&linear, 9.0)],
            [10.0, 10.0, 15.0, 20.0, 20.0]
        );
        let step = channel(Interpolation::Step, vec![10.0, 20.0]);
        assert_eq!([at(&step, 2.9), at(&step, 3.0)], [10.0, 20.0]);
        // Zero tangents: a smoothstep from 10 to 20, exactly half way at the midpoint.
        let cubic = channel(Interpolation::CubicSpline, vec![0.0, 10.0, 0.0, 0.0, 20.0, 0.0]);
        assert_eq!([at(&cubic, 1.0), at(&cubic, 2.0), at(&cubic, 3.0)], [10.0, 15.0, 20.0]);
        // Out-tangent 5/s over a 2 s interval: slope at the start is 5.
        let sloped = channel(Interpolation::CubicSpline, vec![0.0, 10.0, 5.0, 0.0, 10.0, 0.0]);
        assert!((at(&sloped, 1.01) - 10.05).abs() < 1e-2);
    }
}
