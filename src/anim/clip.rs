//! Posing one clip at a time: frames interpolated, root motion removed, the mesh skinned or
//! morphed.

use glam::{Affine3A, Vec3};

use super::skin::{Placing, posed_from};
use super::{FrameTime, Motion, PoseOptions, frame_pair, keyed, travel};
use crate::model::{Clip, ClipFrames, JointPose, Mesh, Model, PosedMesh, Skeleton};

/// Poses `model` at `time` of `clip` (rest pose when `clip` is `None`), each cycling material
/// showing its turn at that time.
pub fn pose<'a>(model: &'a Model, clip: Option<&Clip>, time: FrameTime, options: &PoseOptions) -> PosedMesh<'a> {
    let mut posed = pose_shape(model, clip, time, options);
    show_turns(model, &mut posed, clip.map_or(Motion::Rest, Motion::Clip).seconds(time));
    posed
}

/// Shows, on every part drawn with a material of one of `model`'s cycles (a Quake 1 skin
/// group), the cycle's turn `seconds` into the animation.
pub(super) fn show_turns<'a>(model: &'a Model, posed: &mut PosedMesh<'a>, seconds: f32) {
    for cycle in &model.material_cycles {
        let (Some(named), Some(turn)) = (model.materials.get(cycle.material), model.materials.get(cycle.at(seconds)))
        else {
            continue;
        };
        // By address: an attachment's parts carry materials of their own model.
        for part in posed.parts.iter_mut().filter(|p| std::ptr::eq(p.material, named)) {
            part.material = turn;
        }
    }
}

/// [`pose`]'s vertices, every part with the material its mesh names.
pub(super) fn pose_shape<'a>(
    model: &'a Model,
    clip: Option<&Clip>,
    time: FrameTime,
    options: &PoseOptions,
) -> PosedMesh<'a> {
    let Some(clip) = clip else { return rest_pose(model) };
    match &clip.frames {
        ClipFrames::Skeletal(_) => {
            let joints = joint_transforms(model, Some(clip), time, options);
            // Blend shapes (FBX) stay at their rest weights, as `animate` keeps them.
            keyed::skin_morphed(model, &keyed::morph_weights(model, clip, time, options), &joints, Placing::Vertices)
        }
        ClipFrames::Morph(frames) => {
            let pair = frame_pair(clip, time, options.looping);
            let key = |i: usize| frames.get(i).copied();
            posed_from(model, |_, mesh| morph_mesh(mesh, key(pair.from), key(pair.to), pair.t))
        }
        ClipFrames::Keyed(keyed) => keyed::pose(model, clip, keyed, time, options),
    }
}

/// The model's rest pose: positions and normals as stored, borrowed.
pub fn rest_pose(model: &Model) -> PosedMesh<'_> {
    posed_from(model, |_, _| None)
}

/// Model-space transforms of every joint at `time` of `clip` (the rest pose without a clip or
/// for a morph clip). Empty for a model without skeleton.
pub fn joint_transforms(model: &Model, clip: Option<&Clip>, time: FrameTime, options: &PoseOptions) -> Vec<Affine3A> {
    let Some(skeleton) = &model.skeleton else { return Vec::new() };
    let locals = local_poses(model, skeleton, clip, time, options);
    skeleton.to_model_space(&locals)
}

/// Parent-relative joint poses at `time`, interpolated, with root motion removed if asked.
pub fn local_poses(
    model: &Model,
    skeleton: &Skeleton,
    clip: Option<&Clip>,
    time: FrameTime,
    options: &PoseOptions,
) -> Vec<JointPose> {
    if let Some((clip, ClipFrames::Keyed(keyed))) = clip.map(|c| (c, &c.frames)) {
        return keyed::local_poses(model, skeleton, clip, keyed, time, options);
    }
    let Some((clip, frames)) = clip.and_then(|c| match &c.frames {
        ClipFrames::Skeletal(f) if !f.is_empty() => Some((c, f)),
        _ => None,
    }) else {
        return skeleton.rest_pose();
    };
    let pair = frame_pair(clip, time, options.looping);
    let joint_at = |frame: usize, j: usize| {
        frames.get(frame).and_then(|f| f.get(j)).copied().unwrap_or_else(|| skeleton.joints[j].rest)
    };
    let mut locals: Vec<JointPose> = (0..skeleton.joints.len())
        .map(|j| {
            let a = joint_at(pair.from, j);
            // A whole frame returns the stored pose untouched.
            if pair.t == 0.0 { a } else { a.lerp(joint_at(pair.to, j), pair.t) }
        })
        .collect();
    if let (true, Some(axes)) = (options.in_place, model.marked_axes(&clip.name)) {
        // Marked travel (studiomdl LX/LY/LZ): the first root's offset from the first to the
        // last frame, spread evenly over the frames, taken off every root on those axes.
        let last = frames.len().saturating_sub(1);
        let first_root = skeleton.joints.iter().position(|j| j.parent.is_none());
        if let (true, Some(r)) = (last > 0, first_root) {
            let mask = Vec3::from(axes.map(|a| if a { 1.0 } else { 0.0 }));
            let travel = (joint_at(last, r).translation - joint_at(0, r).translation) * mask;
            let ramp = |frame: usize| travel * (frame as f32 / last as f32);
            let shift = ramp(pair.from).lerp(ramp(pair.to), pair.t);
            for (j, joint) in skeleton.joints.iter().enumerate() {
                if joint.parent.is_none() {
                    locals[j].translation -= shift;
                }
            }
        }
    } else if options.in_place {
        // A root's local translation is in model space: the principal root is pinned to its
        // horizontal place at frame 0 (vertical kept), every other root moves by the same
        // vector, so the whole model shifts as one piece (see `travel`).
        let roots: Vec<usize> = (0..skeleton.joints.len()).filter(|&j| skeleton.joints[j].parent.is_none()).collect();
        if let Some(principal) = travel::principal(skeleton, &roots) {
            let up = model.orientation.up.to_vec3().abs();
            let now = locals[principal].translation;
            let pinned = travel::pinned(up, now, joint_at(0, principal).translation);
            let shift = now - pinned;
            locals[principal].translation = pinned;
            // Without travel the other roots keep their poses bit for bit.
            if shift != Vec3::ZERO {
                roots.iter().filter(|&&r| r != principal).for_each(|&r| locals[r].translation -= shift);
            }
        }
    }
    locals
}

/// Lerps between two key shapes of a morph mesh; `None` for a mesh without them.
fn morph_mesh(mesh: &Mesh, from: Option<usize>, to: Option<usize>, t: f32) -> Option<(Vec<Vec3>, Vec<Vec3>)> {
    let a = mesh.morph_frames.get(from?)?;
    let b = mesh.morph_frames.get(to?).unwrap_or(a);
    if t == 0.0 || std::ptr::eq(a, b) {
        return Some((a.positions.clone(), a.normals.clone()));
    }
    let positions = a.positions.iter().zip(&b.positions).map(|(p, q)| p.lerp(*q, t)).collect();
    let normals = a.normals.iter().zip(&b.normals).map(|(n, m)| n.lerp(*m, t).try_normalize().unwrap_or(*n)).collect();
    Some((positions, normals))
}
