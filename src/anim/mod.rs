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
//! * **Animation control** ([`Animation`], posed by [`animate`]): what plays ([`Motion`]: the
//!   rest pose, a clip or a [`Transition`]) plus [`Layers`] on top — a [`Blend`] with a
//!   second clip, [`BoneOverride`]s and [`Attachment`]s. Skeletal layers compose on the
//!   parent-relative poses from [`local_poses`] in this order: motion (transition mix), blend,
//!   overrides; then the hierarchy is built and the mesh skinned; then attachments are posed
//!   against the finished joints. See `blend.rs`, `overrides.rs` and `attach.rs` for each.
//!   [`pose`] is the plain case (one clip, no layers) and gives the same result as [`animate`].

mod attach;
mod blend;
pub(crate) mod keyed;
mod overrides;
mod sample;
mod skin;

use std::borrow::Cow;

use glam::{Affine3A, Vec3};

pub(crate) use attach::shares_key_shapes;
pub use attach::{Attachment, Mount, to_body_axes};
pub(crate) use blend::blend_poses;
pub use blend::{Blend, Motion, Transition};
pub use overrides::BoneOverride;
pub(crate) use overrides::{apply_overrides, rotation_from_degrees};
pub(crate) use sample::frame_pair;

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

/// What is layered on top of the motion; the same for every row of a sprite job.
#[derive(Debug, Clone, Default)]
pub struct Layers<'a> {
    /// A second clip mixed in, matched by normalised time.
    pub blend: Option<Blend<'a>>,
    /// Extra joint rotations applied on every frame.
    pub bones: Vec<BoneOverride>,
    /// Models drawn with the body.
    pub attachments: Vec<Attachment<'a>>,
}

/// Everything that says how a model moves: motion, layers and posing options.
#[derive(Debug, Clone, Default)]
pub struct Animation<'a> {
    /// What plays.
    pub motion: Motion<'a>,
    /// What is layered on top.
    pub layers: Layers<'a>,
    /// Looping and root-motion lock.
    pub options: PoseOptions,
}

impl<'a> Animation<'a> {
    /// One clip (or the rest pose) with nothing layered on it.
    pub fn clip(clip: Option<&'a Clip>, options: PoseOptions) -> Animation<'a> {
        Animation { motion: clip.map_or(Motion::Rest, Motion::Clip), layers: Layers::default(), options }
    }
}

/// Poses `model` for `animation` at `time` (in the motion's frames or seconds): the body with
/// every layer applied, followed by the attachments' parts (in the body's file axes).
pub fn animate<'a>(model: &'a Model, animation: &Animation<'a>, time: FrameTime) -> PosedMesh<'a> {
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
        keyed::skin_animated(model, animation, time, &joints)
    };
    for attachment in &layers.attachments {
        posed.parts.extend(attach::pose_attachment(model, animation, attachment, time, &joints).parts);
    }
    posed
}

fn is_morph(clip: &Clip) -> bool {
    matches!(clip.frames, ClipFrames::Morph(_))
}

/// Morph models: pose each clip involved and mix the vertices.
fn morph_animated<'a>(model: &'a Model, animation: &Animation<'a>, time: FrameTime) -> PosedMesh<'a> {
    let options = &animation.options;
    let mut posed = match animation.motion {
        Motion::Rest => rest_pose(model),
        Motion::Clip(clip) => pose(model, Some(clip), time, options),
        Motion::Transition(t) => {
            let (ta, tb, w) = t.sample(time);
            let mut a = pose(model, Some(t.from), ta, options);
            if w > 0.0 {
                mix_posed(&mut a, &pose(model, Some(t.to), tb, options), w);
            }
            a
        }
    };
    if let Some(blend) = animation.layers.blend {
        let other = pose(model, Some(blend.clip), animation.motion.map_time(time, blend.clip), options);
        mix_posed(&mut posed, &other, blend.weight);
    }
    posed
}

/// Lerps `a`'s positions and normals towards `b`'s (same model, same parts); exact at 0 and 1.
fn mix_posed<'a>(a: &mut PosedMesh<'a>, b: &PosedMesh<'a>, w: f32) {
    if w.is_nan() || w <= 0.0 {
        return;
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
    let mut locals = match animation.motion {
        Motion::Rest => skeleton.rest_pose(),
        Motion::Clip(clip) => local_poses(model, skeleton, Some(clip), time, options),
        Motion::Transition(t) => {
            let (ta, tb, w) = t.sample(time);
            let a = local_poses(model, skeleton, Some(t.from), ta, options);
            if w > 0.0 { blend_poses(a, &local_poses(model, skeleton, Some(t.to), tb, options), w) } else { a }
        }
    };
    if let Some(blend) = animation.layers.blend {
        let other =
            local_poses(model, skeleton, Some(blend.clip), animation.motion.map_time(time, blend.clip), options);
        locals = blend_poses(locals, &other, blend.weight);
    }
    apply_overrides(&mut locals, &animation.layers.bones);
    locals
}

/// Model-space transforms of every joint for `animation` at `time`, every layer applied.
/// Empty for a model without skeleton.
pub fn animated_joint_transforms(model: &Model, animation: &Animation, time: FrameTime) -> Vec<Affine3A> {
    let Some(skeleton) = &model.skeleton else { return Vec::new() };
    skeleton.to_model_space(&animated_local_poses(model, skeleton, animation, time))
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
