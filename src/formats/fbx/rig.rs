//! The scene's nodes as joints and how a mesh's vertices follow them: what the mesh, blend
//! shape and clip code of the FBX loader share.

use std::collections::HashMap;

use glam::{Affine3A, Mat3, Quat, Vec3};

use crate::error::{FormatError, Result};
use crate::model::{Joint, JointPose, Skeleton};

pub(super) const FORMAT: &str = "FBX";
/// Most joints (scene nodes) a model may have.
pub const MAX_JOINTS: usize = 16_384;
/// Most frames one clip is sampled to (an hour at 30 fps).
pub const MAX_CLIP_FRAMES: usize = 108_000;

/// The scene's nodes as joints: depth first from the root's children, so parents come first.
pub(super) struct Joints<'a> {
    /// The nodes in joint order.
    pub(super) nodes: Vec<&'a ufbx::Node>,
    by_node: JointTable,
}

/// Joint index by node `typed_id`: what meshes converted side by side look their bones up in
/// (ufbx's nodes cannot be shared between threads; their ids can).
pub(super) struct JointTable(HashMap<u32, usize>);

impl JointTable {
    pub(super) fn index(&self, node: &ufbx::Node) -> Option<usize> {
        self.0.get(&node.element.typed_id).copied()
    }
}

impl<'a> Joints<'a> {
    pub(super) fn of(scene: &'a ufbx::Scene) -> Result<Joints<'a>> {
        if scene.nodes.len() > MAX_JOINTS + 1 {
            return Err(FormatError::whole_file(
                FORMAT,
                format!("{} nodes, more than the {MAX_JOINTS} joints allowed", scene.nodes.len()),
            )
            .into());
        }
        let mut nodes = Vec::with_capacity(scene.nodes.len());
        let mut stack: Vec<&ufbx::Node> = scene.root_node.children.iter().rev().map(|n| &**n).collect();
        while let Some(node) = stack.pop() {
            nodes.push(node);
            stack.extend(node.children.iter().rev().map(|n| &**n));
        }
        let by_node = JointTable(nodes.iter().enumerate().map(|(i, n)| (n.element.typed_id, i)).collect());
        Ok(Joints { nodes, by_node })
    }

    pub(super) fn index(&self, node: &ufbx::Node) -> Option<usize> {
        self.by_node.index(node)
    }

    pub(super) fn table(&self) -> &JointTable {
        &self.by_node
    }

    pub(super) fn skeleton(&self) -> Skeleton {
        let joints = self
            .nodes
            .iter()
            .map(|node| Joint {
                name: match &*node.element.name {
                    "" => format!("node{}", node.element.typed_id),
                    name => name.to_string(),
                },
                parent: node.parent.as_ref().filter(|p| !p.is_root).and_then(|p| self.index(p)),
                rest: pose(&node.local_transform),
            })
            .collect();
        Skeleton { joints }
    }
}

pub(super) fn vec3(v: ufbx::Vec3) -> Vec3 {
    Vec3::new(v.x as f32, v.y as f32, v.z as f32)
}

pub(super) fn pose(t: &ufbx::Transform) -> JointPose {
    let r = t.rotation;
    let rotation = Quat::from_xyzw(r.x as f32, r.y as f32, r.z as f32, r.w as f32);
    JointPose {
        translation: vec3(t.translation),
        rotation: if rotation.is_finite() { rotation.normalize() } else { Quat::IDENTITY },
        scale: vec3(t.scale),
    }
}

fn affine(m: &ufbx::Matrix) -> Affine3A {
    let col = |x: f64, y: f64, z: f64| Vec3::new(x as f32, y as f32, z as f32);
    Affine3A::from_cols(
        col(m.m00, m.m10, m.m20).into(),
        col(m.m01, m.m11, m.m21).into(),
        col(m.m02, m.m12, m.m22).into(),
        col(m.m03, m.m13, m.m23).into(),
    )
}

/// How a vertex follows a joint: the joint, and the transforms from the mesh's geometry into
/// the joint's space for positions and normals.
#[derive(Debug, Clone, Copy)]
pub(super) struct Binding {
    pub(super) joint: usize,
    pub(super) to_joint: Affine3A,
    /// The inverse transpose of `to_joint`'s linear part.
    pub(super) normal: Mat3,
}

impl Binding {
    pub(super) fn new(joint: usize, to_joint: Affine3A) -> Binding {
        Binding { joint, to_joint, normal: Mat3::from(to_joint.matrix3).inverse().transpose() }
    }
}

/// How the vertices of a mesh instance follow joints: the bindings they use (the instance's
/// node's first, then its skin's clusters' with a bone, each worked out once for all its
/// vertices) and, per cluster, its binding (`None` for a cluster without a bone).
pub(super) struct Rig<'a> {
    skin: Option<Skin<'a>>,
    bindings: Vec<Binding>,
}

/// A skin's weights by control point, as plain slices (which threads can share, where ufbx's
/// deformer cannot be), and each cluster's binding.
struct Skin<'a> {
    vertices: &'a [ufbx::SkinVertex],
    weights: &'a [ufbx::SkinWeight],
    clusters: Vec<Option<u32>>,
}

/// The node's binding: where a vertex no cluster weighs goes.
const NODE_BINDING: u32 = 0;

impl<'a> Rig<'a> {
    pub(super) fn of(mesh: &'a ufbx::Mesh, node_joint: usize, node: &ufbx::Node, joints: &JointTable) -> Rig<'a> {
        let mut bindings = vec![Binding::new(node_joint, affine(&node.geometry_to_node))];
        let skin = mesh.skin_deformers.first().map(|skin| {
            let clusters = skin
                .clusters
                .iter()
                .map(|c| {
                    let joint = joints.index(c.bone_node.as_ref()?)?;
                    bindings.push(Binding::new(joint, affine(&c.geometry_to_bone)));
                    Some(bindings.len() as u32 - 1)
                })
                .collect();
            Skin { vertices: &skin.vertices, weights: &skin.weights, clusters }
        });
        Rig { skin, bindings }
    }

    /// Every binding, by the indices [`Rig::influences_into`] gives.
    pub(super) fn bindings(&self) -> &[Binding] {
        &self.bindings
    }

    /// The bindings (indices into [`Rig::bindings`]) of vertex `vertex` (an index into the
    /// mesh's vertices) with weights that sum to 1, into `influences` (emptied first: one
    /// buffer serves every vertex): its skin's weights over the clusters with bones, or all of
    /// it on the node.
    pub(super) fn influences_into(&self, vertex: u32, influences: &mut Vec<(u32, f32)>) {
        influences.clear();
        if let Some(skin) = &self.skin
            && let Some(v) = skin.vertices.get(vertex as usize)
        {
            let range = v.weight_begin as usize..(v.weight_begin as usize).saturating_add(v.num_weights as usize);
            for w in skin.weights.get(range).unwrap_or_default() {
                let Some(&Some(binding)) = skin.clusters.get(w.cluster_index as usize) else { continue };
                let weight = w.weight as f32;
                if weight.is_finite() && weight > 0.0 {
                    influences.push((binding, weight));
                }
            }
        }
        // Weights are positive and finite, so only an empty list (or one whose sum overflows)
        // leaves the vertex to its node.
        let total: f32 = influences.iter().map(|i| i.1).sum();
        if influences.is_empty() || !total.is_finite() {
            influences.clear();
            influences.push((NODE_BINDING, 1.0));
            return;
        }
        influences.iter_mut().for_each(|i| i.1 /= total);
    }
}
