//! glTF animations → keyed clips, one per animation, channels kept as stored keys.

use gltf::accessor::Dimensions;
use gltf::animation::{Interpolation as GltfInterpolation, Property};

use super::buffers::Buffers;
use super::mesh::Instances;
use super::{Nodes, err};
use crate::formats::FormatError;
use crate::model::{Channel, ChannelTarget, Clip, ClipFrames, Interpolation, KeyedClip};

/// Cap on key times and values over all animations, checked on the accessors' declared counts:
/// channels naming the same large accessor again and again must not allocate without bound.
pub(super) const MAX_KEY_VALUES: usize = 1 << 24;

/// Latest key time accepted, in seconds (one hour). Keyed clips are rendered at a frame rate,
/// so the last key sets the frame count: a key at 1e38 s asked every multi-frame command for
/// more frames than memory can index. Real clips last seconds; cutscenes minutes.
pub(super) const MAX_KEY_SECONDS: f32 = 3600.0;

/// Frame spacing of keyed clips for sheets and GIFs (`--fps` replaces it).
pub(super) const KEYED_FPS: f32 = 30.0;

/// Builds the clip of one animation; unnamed animations are called `anim<N>` by file order.
/// `budget` is what is left of [`MAX_KEY_VALUES`].
pub(super) fn build(
    root: &gltf::json::Root,
    animation: &gltf::Animation,
    buffers: &Buffers,
    nodes: &Nodes,
    instances: &Instances,
    budget: &mut usize,
    warnings: &mut Vec<String>,
) -> Result<Clip, FormatError> {
    let a = animation.index();
    let name = animation.name().filter(|n| !n.is_empty()).map_or_else(|| format!("anim{a}"), str::to_string);
    let mut keyed = KeyedClip::default();
    for (c, channel) in animation.channels().enumerate() {
        let what = format!("animation {a} '{name}' channel {c}");
        // The `gltf` crate's validation skips channel targets and its accessors unwrap them:
        // check the node index and the path in the raw JSON first.
        let raw = root.animations.get(a).and_then(|x| x.channels.get(c)).map(|x| &x.target);
        let (node, property) = match raw {
            Some(t) if t.node.value() < root.nodes.len() => match t.path {
                gltf::json::validation::Checked::Valid(p) => (t.node.value(), p),
                gltf::json::validation::Checked::Invalid => {
                    return Err(err(format!(
                        "{what}: unknown target path (expected translation, rotation, scale or weights)"
                    )));
                }
            },
            _ => return Err(err(format!("{what}: target node does not exist"))),
        };
        let Some(joint) = nodes.joint_of.get(node).copied().flatten() else {
            warnings.push(format!("{what}: node {node} is not in the scene; channel ignored"));
            continue;
        };
        let sampler = channel.sampler();
        let cost = sampler.input().count().saturating_add(sampler.output().count().saturating_mul(4));
        *budget = budget
            .checked_sub(cost)
            .ok_or_else(|| err(format!("{what}: more than {MAX_KEY_VALUES} key values over all animations")))?;
        let times = buffers.floats(&sampler.input(), &[Dimensions::Scalar], &format!("key times of {what}"))?;
        if times.is_empty() {
            return Err(err(format!("{what}: no keys")));
        }
        if times.iter().any(|t| !t.is_finite() || *t < 0.0) || times.windows(2).any(|w| w[1] < w[0]) {
            return Err(err(format!("{what}: key times must be finite, non-negative and increasing")));
        }
        if let Some(&last) = times.last().filter(|&&t| t > MAX_KEY_SECONDS) {
            // 1e38 reads better than its 39 digits.
            let shown = if last < 1e6 { format!("{last}") } else { format!("{last:e}") };
            return Err(err(format!(
                "{what}: key time {shown} s is past the {MAX_KEY_SECONDS} s (1 hour) a clip may last"
            )));
        }
        let (target, dims) = match property {
            Property::Translation => (ChannelTarget::Translation(joint), Dimensions::Vec3),
            Property::Rotation => (ChannelTarget::Rotation(joint), Dimensions::Vec4),
            Property::Scale => (ChannelTarget::Scale(joint), Dimensions::Vec3),
            Property::MorphTargetWeights => {
                (ChannelTarget::MorphWeights(instances.get(node).cloned().unwrap_or_default()), Dimensions::Scalar)
            }
        };
        let values = buffers.floats(&sampler.output(), &[dims], &format!("key values of {what}"))?;
        let interpolation = match sampler.interpolation() {
            GltfInterpolation::Step => Interpolation::Step,
            GltfInterpolation::Linear => Interpolation::Linear,
            GltfInterpolation::CubicSpline => Interpolation::CubicSpline,
        };
        let elements = times.len() * if interpolation == Interpolation::CubicSpline { 3 } else { 1 };
        let width = match dims {
            Dimensions::Vec3 => 3,
            Dimensions::Vec4 => 4,
            // Weights: one scalar per morph target per element.
            _ => values.len() / elements,
        };
        if width == 0 || values.len() != elements * width || values.iter().any(|v| !v.is_finite()) {
            return Err(err(format!(
                "{what}: {} output values for {} keys ({interpolation:?}) do not make whole {width}-value elements of finite numbers",
                values.len(),
                times.len()
            )));
        }
        keyed.duration = keyed.duration.max(times.last().copied().unwrap_or(0.0));
        keyed.channels.push(Channel { target, interpolation, times, width, values });
    }
    Ok(Clip {
        name,
        fps: KEYED_FPS,
        frames: ClipFrames::Keyed(keyed),
        frame_bounds: Vec::new(),
        retarget: None,
        plays_once: false,
    })
}
