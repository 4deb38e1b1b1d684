//! FBX animation stacks as clips, sampled at the scene's frame rate from the stack's start.
//!
//! * **Skeletal** when the stack animates no blend shape weight: every joint's pose per frame,
//!   `round(length × fps)` frames (a loop's last frame leads back into the first).
//! * **Keyed** when it does: the same moments, plus the stack's end (so a clip played once ends
//!   on its last pose), as linear keys of every joint's translation, rotation and scale and of
//!   each morphed mesh instance's target weights. A key at `k / fps` seconds is what
//!   `FrameTime::Frame(k)` reads, so whole frames show exactly the poses the skeletal clip
//!   would, and the weights with them. (ufbx evaluates only at a time, so the joints are
//!   sampled either way; a second clip kind of per-frame poses and weights would save the
//!   times but add a case to every consumer of clips.)

use super::blend::Morphed;
use super::rig::{FORMAT, Joints, MAX_CLIP_FRAMES, pose};
use crate::bounds;
use crate::budget::{MemoryBudget, bytes_for};
use crate::error::{FormatError, Result};
use crate::model::{Channel, ChannelTarget, Clip, ClipFrames, Interpolation, JointPose, KeyedClip};

/// The clip of animation stack `stack`, with the weights of the `morphed` instances' blend
/// shapes keyed when the stack animates them.
pub(super) fn clip(
    scene: &ufbx::Scene,
    stack: &ufbx::AnimStack,
    joints: &Joints,
    morphed: &[Morphed],
    budget: &MemoryBudget,
) -> Result<Clip> {
    // Inside the range every clip is played at (`formats::clamp_clip_rates` warns about the
    // file's own rate): at 1e300 fps a second was "18446744073709551615 frames".
    let fps = match scene.settings.frames_per_second {
        f if f.is_finite() && f > 0.0 => f.clamp(f64::from(bounds::FPS.min), f64::from(bounds::FPS.max)),
        _ => 30.0,
    };
    let length = (stack.time_end - stack.time_begin).max(0.0);
    let frames = ((length * fps).round() as usize).max(1);
    let name = stack.element.name.to_string();
    if frames > MAX_CLIP_FRAMES {
        return Err(FormatError::whole_file(
            FORMAT,
            format!("animation '{name}' is {length} s long: {frames} frames, more than the {MAX_CLIP_FRAMES} allowed"),
        )
        .into());
    }
    let sampling = Sampling { stack, fps, frames, name: &name };
    let animated: Vec<&Morphed> = morphed.iter().filter(|m| m.blends.animated_by(stack)).collect();
    let frames = if animated.is_empty() {
        ClipFrames::Skeletal(skeletal(&sampling, joints, budget)?)
    } else {
        ClipFrames::Keyed(keyed(&sampling, joints, &animated, budget)?)
    };
    Ok(Clip { name, fps: fps as f32, frames, frame_bounds: Vec::new(), retarget: None, plays_once: false })
}

/// Where a stack is sampled: frame `k` is `time_begin + k / fps`.
struct Sampling<'a> {
    stack: &'a ufbx::AnimStack,
    fps: f64,
    frames: usize,
    name: &'a str,
}

impl Sampling<'_> {
    fn time(&self, frame: usize) -> f64 {
        self.stack.time_begin + frame as f64 / self.fps
    }

    /// Every joint's parent-relative pose at frame `frame`.
    fn poses(&self, joints: &Joints, frame: usize) -> impl Iterator<Item = JointPose> {
        let time = self.time(frame);
        joints.nodes.iter().map(move |node| pose(&ufbx::evaluate_transform(&self.stack.anim, node, time)))
    }
}

/// Every joint's pose at every frame.
fn skeletal(s: &Sampling, joints: &Joints, budget: &MemoryBudget) -> Result<Vec<Vec<JointPose>>> {
    let count = joints.nodes.len();
    let bytes = ClipFrames::skeletal_bytes(s.frames as u64, count as u64);
    budget.charge(bytes, || format!("FBX: animation '{}', {} frames x {count} joints", s.name, s.frames))?;
    if is_still(&s.stack.anim) {
        // Mixamo's `Take 001`: a hundred frames of the rest pose, evaluated once.
        let first: Vec<JointPose> = s.poses(joints, 0).collect();
        return Ok(vec![first; s.frames]);
    }
    Ok((0..s.frames).map(|f| s.poses(joints, f).collect()).collect())
}

/// Whether `anim` poses every moment alike: no layer's weight is animated and no curve has a
/// second key. ufbx evaluates a curve of one key as that key's value and a missing curve as
/// the property's own value at any time, so the first frame's poses are every frame's.
fn is_still(anim: &ufbx::Anim) -> bool {
    anim.layers.iter().all(|layer| {
        !layer.weight_is_animated
            && layer.anim_values.iter().all(|value| value.curves.iter().flatten().all(|c| c.keyframes.len() <= 1))
    })
}

/// Linear keys at every frame and at the stack's end: each joint's translation, rotation and
/// scale, and each of `morphed`'s target weights.
fn keyed(s: &Sampling, joints: &Joints, morphed: &[&Morphed], budget: &MemoryBudget) -> Result<KeyedClip> {
    let keys = s.frames + 1;
    let count = joints.nodes.len();
    let targets: usize = morphed.iter().map(|m| m.blends.len()).sum();
    // Per key: a joint's three times and ten values, an instance's time and target weights.
    let per_key = (count as u64).saturating_mul(13).saturating_add((morphed.len() + targets) as u64);
    budget.charge(bytes_for((keys as u64).saturating_mul(per_key), size_of::<f32>()), || {
        format!("FBX: animation '{}', {keys} keys x {count} joints and {targets} blend shapes", s.name)
    })?;
    let fps = s.fps as f32;
    // The division `FrameTime::Frame(k)` makes, so whole frames land exactly on keys.
    let times: Vec<f32> = (0..keys).map(|k| k as f32 / fps).collect();
    let mut tracks: Vec<[Vec<f32>; 3]> = (0..count)
        .map(|_| [Vec::with_capacity(keys * 3), Vec::with_capacity(keys * 4), Vec::with_capacity(keys * 3)])
        .collect();
    let mut weights: Vec<Vec<f32>> = morphed.iter().map(|m| vec![0.0; keys * m.blends.len()]).collect();
    for k in 0..keys {
        for (p, [t, r, sc]) in s.poses(joints, k).zip(&mut tracks) {
            t.extend(p.translation.to_array());
            r.extend(p.rotation.to_array());
            sc.extend(p.scale.to_array());
        }
        let time = s.time(k);
        for (m, values) in morphed.iter().zip(&mut weights) {
            let n = m.blends.len();
            if let Some(key) = values.get_mut(k * n..(k + 1) * n) {
                m.blends.weights_into(|c| ufbx::evaluate_blend_weight(&s.stack.anim, c, time), key);
            }
        }
    }
    let linear = |target, width, values| Channel {
        target,
        interpolation: Interpolation::Linear,
        times: times.clone(),
        width,
        values,
    };
    let mut channels = Vec::with_capacity(3 * count + morphed.len());
    for (j, [t, r, sc]) in tracks.into_iter().enumerate() {
        channels.push(linear(ChannelTarget::Translation(j), 3, t));
        channels.push(linear(ChannelTarget::Rotation(j), 4, r));
        channels.push(linear(ChannelTarget::Scale(j), 3, sc));
    }
    for (m, values) in morphed.iter().zip(weights) {
        channels.push(linear(ChannelTarget::MorphWeights(m.meshes.clone()), m.blends.len(), values));
    }
    Ok(KeyedClip { channels, duration: s.frames as f32 / fps })
}
