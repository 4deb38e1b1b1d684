//! Posing: evaluate a clip at a time and produce the posed mesh.
//!
//! * **Time → frames.** A time maps to two neighbouring frames and a fraction. Looping clips
//!   wrap and interpolate the last frame back into frame 0; clamped clips hold the last frame.
//!   A whole frame number returns that frame's stored data untouched (bit-exact), so a sprite
//!   of frame 3 is exactly frame 3.
//! * **Skeletal clips** interpolate the *parent-relative* joint poses (lerp translation and
//!   scale, shortest-path slerp rotation) and only then build the hierarchy. This is what Doom 3,
//!   assimp and Blender do; interpolating finished model-space joints instead shortens limbs
//!   mid-frame (a rotating arm cuts the corner of its arc).
//! * **Skinning** is linear blend skinning with joint-space influence positions (see
//!   [`crate::model::Influence`]), parallel over vertices for large meshes. Each vertex is
//!   computed independently in the same order of operations, so the result is bit-identical
//!   for any thread count.
//! * **Morph clips** (MD2) lerp positions and normals between key shapes.

pub mod keyed;
mod sample;
mod skin;

use std::borrow::Cow;

use glam::{Affine3A, Vec3};

pub use sample::{FramePair, frame_pair};

use crate::model::{Clip, ClipFrames, JointPose, Mesh, Model, PosedMesh, PosedPart, Skeleton};

/// When to sample a clip.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FrameTime {
    /// A frame index within the clip; fractions interpolate between neighbouring frames.
    Frame(f32),
    /// Seconds from the clip's start at its own rate.
    Seconds(f32),
}

/// How to pose.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PoseOptions {
    /// Wrap times past the end back to the start (true, the default) or hold the last frame.
    pub looping: bool,
    /// Remove the root joints' horizontal translation (relative to frame 0) so walk cycles
    /// stay in place; vertical motion (bobbing) is kept. The default is false.
    pub in_place: bool,
}

impl Default for PoseOptions {
    fn default() -> Self {
        PoseOptions { looping: true, in_place: false }
    }
}

/// Poses `model` at `time` of `clip` (rest pose when `clip` is `None`).
pub fn pose<'a>(model: &'a Model, clip: Option<&Clip>, time: FrameTime, options: &PoseOptions) -> PosedMesh<'a> {
    let Some(clip) = clip else { return rest_pose(model) };
    match &clip.frames {
        ClipFrames::Skeletal(_) => {
            let joints = joint_transforms(model, Some(clip), time, options);
            posed_from(model, |mesh| skin::skin_mesh(mesh, &joints))
        }
        ClipFrames::Morph(frames) => {
            let pair = frame_pair(clip, time, options.looping);
            let key = |i: usize| frames.get(i).copied();
            posed_from(model, |mesh| morph_mesh(mesh, key(pair.from), key(pair.to), pair.t))
        }
        ClipFrames::Keyed(keyed) => keyed::pose(model, clip, keyed, time, options),
    }
}

/// The model's rest pose: positions and normals as stored, borrowed.
pub fn rest_pose(model: &Model) -> PosedMesh<'_> {
    posed_from(model, |_| None)
}

/// Builds the posed mesh; `deform` returns new positions and normals for a mesh, or `None` to
/// borrow the stored ones (static meshes cost nothing).
fn posed_from<'a>(model: &'a Model, deform: impl Fn(&Mesh) -> Option<(Vec<Vec3>, Vec<Vec3>)>) -> PosedMesh<'a> {
    let parts = model
        .meshes
        .iter()
        .filter_map(|mesh| {
            let material = model.materials.get(mesh.material)?;
            let (positions, normals) = match deform(mesh) {
                Some((p, n)) => (Cow::Owned(p), Cow::Owned(n)),
                None => (Cow::Borrowed(mesh.positions.as_slice()), Cow::Borrowed(mesh.normals.as_slice())),
            };
            Some(PosedPart { positions, normals, uvs: &mesh.uvs, indices: &mesh.indices, material })
        })
        .collect();
    PosedMesh { parts }
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
    if options.in_place {
        let up = model.orientation.up.to_vec3().abs();
        for (j, joint) in skeleton.joints.iter().enumerate() {
            if joint.parent.is_none() {
                // Keep the vertical component, pin the horizontal ones to frame 0's.
                let start = joint_at(0, j).translation;
                let t = locals[j].translation;
                locals[j].translation = t * up + start * (Vec3::ONE - up);
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
