//! FBX blend shapes (`BlendShape` deformers) as the model's morph targets.
//!
//! * **Targets.** Every shape of every channel of a mesh's blend deformers is one morph
//!   target: channel after channel, a channel's shapes in the order of the channel weight at
//!   which each is at full effect (ufbx sorts them). Every material part of the mesh carries
//!   them all, so one list of weights drives the whole mesh.
//! * **Space.** A shape's offsets are differences of positions in the mesh's geometry space,
//!   which ufbx's axis and unit conversion scaled and mirrored as it did the vertices. Each
//!   influence takes them through the linear part of its binding (geometry to joint), never its
//!   translation, so they add to the joint-space influence positions before skinning, as
//!   glTF's do; normal offsets go through the binding's normal matrix.
//! * **In-betweens.** A channel of several shapes blends, at a channel weight, the two shapes
//!   whose full weights bracket it (an empty shape at weight 0 counting as one), linearly, and
//!   extrapolates past the first and the last: the FBX SDK's rule, which ufbx follows. A
//!   channel weight thus maps to one weight per target ([`Blends::weights_into`]); a clip keys
//!   those per frame, so between frames the targets' weights are lerped, which departs from the
//!   rule only in a frame that crosses a full weight.
//! * **Weights.** The rest weights are the channels' `DeformPercent` as saved. Blender writes a
//!   shape's vertex-group weights as its `FullWeights`, which ufbx reads as per-offset weights:
//!   they scale the offsets here, as Blender applies them.
//! * **Normals.** Shapes with normal offsets move the normals; shapes without (Blender writes
//!   none, or zeros) keep the rest normals, rather than recomputing normals every frame.

use glam::Vec3;

use super::rig::{Rig, vec3};
use crate::budget::MemoryBudget;
use crate::error::Result;
use crate::model::{Mesh, MorphTarget};

/// The property of a blend channel that holds its weight, in percent.
const WEIGHT_PROPERTY: &str = "DeformPercent";

/// A mesh's blend shapes, as morph targets.
pub(super) struct Blends<'a> {
    /// The channels that have shapes.
    channels: Vec<Channel<'a>>,
    /// Every target's shape, in target order.
    shapes: Vec<&'a ufbx::BlendShape>,
}

/// A blend channel with shapes.
struct Channel<'a> {
    channel: &'a ufbx::BlendChannel,
    /// The index of its first shape's target.
    first: usize,
    /// The channel weight at which each of its shapes is at full effect, ascending.
    full: Vec<f64>,
}

/// The model meshes made of one mesh instance with blend shapes, and those shapes: what a clip
/// keys the weights of.
pub(super) struct Morphed<'a> {
    pub(super) blends: Blends<'a>,
    /// Indices into the model's meshes.
    pub(super) meshes: Vec<usize>,
}

impl<'a> Blends<'a> {
    pub(super) fn of(mesh: &'a ufbx::Mesh) -> Blends<'a> {
        let mut blends = Blends { channels: Vec::new(), shapes: Vec::new() };
        for deformer in mesh.blend_deformers.iter() {
            for channel in deformer.channels.iter().filter(|c| !c.keyframes.is_empty()) {
                let full = channel.keyframes.iter().map(|k| k.target_weight).collect();
                blends.channels.push(Channel { channel, first: blends.shapes.len(), full });
                blends.shapes.extend(channel.keyframes.iter().map(|k| &*k.shape));
            }
        }
        blends
    }

    /// The number of targets.
    pub(super) fn len(&self) -> usize {
        self.shapes.len()
    }

    pub(super) fn is_empty(&self) -> bool {
        self.shapes.is_empty()
    }

    /// Whether a layer of `stack` animates the weight of any channel.
    pub(super) fn animated_by(&self, stack: &ufbx::AnimStack) -> bool {
        self.channels.iter().any(|c| {
            stack.layers.iter().any(|layer| layer.find_anim_prop(&c.channel.element, WEIGHT_PROPERTY).is_some())
        })
    }

    /// Writes each target's weight to `out` (one per target) for the channel weights `weight`
    /// gives (1 = 100%).
    pub(super) fn weights_into(&self, weight: impl Fn(&ufbx::BlendChannel) -> f64, out: &mut [f32]) {
        for c in &self.channels {
            if let Some(shapes) = out.get_mut(c.first..c.first + c.full.len()) {
                inbetween(&c.full, weight(c.channel), shapes);
            }
        }
    }

    /// Each target's weight as saved.
    fn rest_weights(&self) -> Vec<f32> {
        let mut weights = vec![0.0; self.len()];
        self.weights_into(|channel| channel.weight, &mut weights);
        weights
    }

    /// Gives `out`, a part of `mesh` whose vertex `v` is the triangle corner `corners[v]`, one
    /// morph target per shape, with one offset per influence in that influence's joint space,
    /// and the rest weights.
    ///
    /// # Errors
    /// The budget, charged for the offsets first.
    pub(super) fn add_targets(
        &self,
        out: &mut Mesh,
        mesh: &ufbx::Mesh,
        corners: &[u32],
        rig: &Rig,
        budget: &MemoryBudget,
    ) -> Result<()> {
        // Normals only for the shapes that move them: the others' stay empty, read as zeros.
        let moves_normals: Vec<bool> =
            self.shapes.iter().map(|s| s.normal_offsets.iter().any(|n| vec3(*n) != Vec3::ZERO)).collect();
        let arrays = self.len() + moves_normals.iter().filter(|&&n| n).count();
        let influences = out.influences.len();
        let bytes = crate::budget::bytes_for((arrays as u64).saturating_mul(influences as u64), size_of::<Vec3>());
        budget.charge(bytes, || {
            format!("FBX: mesh '{}', {} blend shapes x {influences} vertex influences", out.name, self.len())
        })?;
        let mut targets: Vec<MorphTarget> = moves_normals
            .iter()
            .map(|&normals| MorphTarget {
                positions: Vec::with_capacity(influences),
                normals: if normals { Vec::with_capacity(influences) } else { Vec::new() },
            })
            .collect();
        let mut bindings = Vec::new();
        for &corner in corners {
            let ix = corner as usize;
            let vertex = mesh.vertex_indices.get(ix).copied().unwrap_or(0);
            let normal = if mesh.vertex_normal.exists { vec3(mesh.vertex_normal[ix]) } else { Vec3::Y };
            // The same influences, in the same order, as the part's own for this vertex.
            rig.influences_into(vertex, &mut bindings);
            for ((target, shape), &normals) in targets.iter_mut().zip(&self.shapes).zip(&moves_normals) {
                let (dp, dn) = offset(shape, vertex);
                for binding in bindings.iter().filter_map(|&(b, _)| rig.bindings().get(b as usize)) {
                    target.positions.push(binding.to_joint.transform_vector3(dp));
                    if normals {
                        // The influence's normal was normalised in joint space: scale its
                        // offset alike.
                        let length = (binding.normal * normal).length();
                        let scale = if length > 0.0 && length.is_finite() { length.recip() } else { 0.0 };
                        target.normals.push(binding.normal * dn * scale);
                    }
                }
            }
        }
        out.morph_targets = targets;
        out.morph_weights = self.rest_weights();
        Ok(())
    }
}

/// The offset `shape` gives vertex `vertex` (position, normal), scaled by the vertex's weight in
/// the shape; zero where the shape leaves the vertex, or its offset is not finite.
fn offset(shape: &ufbx::BlendShape, vertex: u32) -> (Vec3, Vec3) {
    let finite = |v: Option<&ufbx::Vec3>| v.map(|&v| vec3(v)).filter(|v| v.is_finite()).unwrap_or(Vec3::ZERO);
    let listed = &shape.offset_vertices;
    let first = listed.partition_point(|&v| v < vertex);
    let (mut position, mut normal) = (Vec3::ZERO, Vec3::ZERO);
    // ufbx sorts the offsets by vertex; a vertex listed twice takes both, as ufbx adds them.
    for i in (first..listed.len()).take_while(|&i| listed.get(i) == Some(&vertex)) {
        let weight = shape.offset_weights.get(i).map_or(1.0, |&w| w as f32);
        position += finite(shape.position_offsets.get(i)) * weight;
        normal += finite(shape.normal_offsets.get(i)) * weight;
    }
    (position, normal)
}

/// Writes to `out` the weight of each of a channel's shapes, at full effect at the ascending
/// channel weights `full`, at channel weight `weight`: the two shapes whose full weights bracket `weight`, with an empty
/// shape at 0 as a bracket too, blended linearly, and extrapolated past the ends. This is
/// ufbx's `ufbxi_update_blend_channel`, which keeps the FBX SDK's rule: a positive weight
/// interpolates from the empty shape through the positive full weights, a negative one
/// through the negative ones.
fn inbetween(full: &[f64], weight: f64, out: &mut [f32]) {
    out.fill(0.0);
    let at = |shape: Option<usize>| shape.and_then(|k| full.get(k)).copied().unwrap_or(0.0);
    // The first shape at a non-negative full weight.
    let split = full.iter().rposition(|&w| w < 0.0).map_or(0, |k| k + 1);
    // The bracketing shapes; `None` is the empty shape at 0. A positive weight starts from the
    // empty shape (the last negative one brackets only when there is no positive one), a
    // negative one from the first positive shape, towards the negative ones.
    let mut next = None;
    let mut prev = if weight > 0.0 { split.checked_sub(1) } else { (split < full.len()).then_some(split) };
    if weight > 0.0 {
        for k in split..full.len() {
            (prev, next) = (next, Some(k));
            if at(next) > weight {
                break;
            }
        }
    } else {
        for k in (0..split).rev() {
            (prev, next) = (next, Some(k));
            if at(next) < weight {
                break;
            }
        }
    }
    let span = at(next) - at(prev);
    if span == 0.0 {
        return;
    }
    let t = (weight - at(prev)) / span;
    if let Some(slot) = prev.and_then(|k| out.get_mut(k)) {
        *slot = (1.0 - t) as f32;
    }
    if let Some(slot) = next.and_then(|k| out.get_mut(k)) {
        *slot = t as f32;
    }
}

#[cfg(test)]
mod tests {
    use super::inbetween;

    fn weights(full: &[f64], weight: f64) -> Vec<f32> {
        let mut out = vec![f32::NAN; full.len()];
        inbetween(full, weight, &mut out);
        out
    }

    #[test]
    fn one_shape_takes_the_channel_weight() {
        for w in [0.0, 0.25, 1.0, 1.5, -0.5] {
            assert_eq!(weights(&[1.0], w), [w as f32]);
        }
    }

    #[test]
    fn in_betweens_blend_the_bracketing_shapes_from_an_empty_one_at_zero() {
        let full = [0.5, 1.0];
        assert_eq!(weights(&full, 0.0), [0.0, 0.0]);
        assert_eq!(weights(&full, 0.25), [0.5, 0.0]);
        assert_eq!(weights(&full, 0.5), [1.0, 0.0]);
        assert_eq!(weights(&full, 0.75), [0.5, 0.5]);
        assert_eq!(weights(&full, 1.0), [0.0, 1.0]);
        // Past the last full weight the last segment extrapolates, as below zero the first.
        assert_eq!(weights(&full, 1.5), [-1.0, 2.0]);
        assert_eq!(weights(&full, -0.25), [-0.5, 0.0]);
        // Negative full weights bracket negative channel weights, from the empty shape.
        let full = [-1.0, -0.5, 1.0];
        assert_eq!(weights(&full, -0.75), [0.5, 0.5, 0.0]);
        assert_eq!(weights(&full, -0.25), [0.0, 0.5, 0.0]);
        assert_eq!(weights(&full, 0.5), [0.0, 0.0, 0.5]);
    }
}
