//! The scene's nodes: the hierarchy every joint, mesh instance and animation target hangs on.

use glam::{Affine3A, Quat, Vec3};

use super::error::err;
use crate::formats::FormatError;
use crate::model::{Joint, JointPose, Skeleton};

/// `q` normalised, or the identity for a zero or non-finite quaternion.
fn unit(q: Quat) -> Quat {
    let n = q.length();
    if n > 0.0 && n.is_finite() { q / n } else { Quat::IDENTITY }
}

/// The scene's nodes in depth-first order with their rest transforms.
pub(super) struct Nodes {
    /// Node indices, parents before children.
    pub(super) order: Vec<usize>,
    /// For every node index: its position in `order` (its joint index), if in the scene.
    pub(super) joint_of: Vec<Option<usize>>,
    /// Parent-relative rest pose, per position in `order`.
    pub(super) rest: Vec<JointPose>,
    /// Parent position in `order`.
    pub(super) parent: Vec<Option<usize>>,
    /// Model-space rest transform, per position in `order`.
    pub(super) world: Vec<Affine3A>,
}

impl Nodes {
    /// Walks the default scene (or the first; or every root node when there are no scenes).
    pub(super) fn walk(doc: &gltf::Document) -> Result<Nodes, FormatError> {
        let roots: Vec<gltf::Node> = match doc.default_scene().or_else(|| doc.scenes().next()) {
            Some(scene) => scene.nodes().collect(),
            None => {
                let mut is_child = vec![false; doc.nodes().len()];
                for child in doc.nodes().flat_map(|n| n.children()) {
                    if let Some(c) = is_child.get_mut(child.index()) {
                        *c = true;
                    }
                }
                doc.nodes().filter(|n| !is_child.get(n.index()).copied().unwrap_or(true)).collect()
            }
        };
        let mut nodes = Nodes {
            order: Vec::new(),
            joint_of: vec![None; doc.nodes().len()],
            rest: Vec::new(),
            parent: Vec::new(),
            world: Vec::new(),
        };
        let mut stack: Vec<(gltf::Node, Option<usize>)> = roots.into_iter().rev().map(|n| (n, None)).collect();
        while let Some((node, parent)) = stack.pop() {
            let slot = nodes.joint_of.get_mut(node.index()).ok_or_else(|| err("node index out of range"))?;
            if slot.is_some() {
                return Err(err(format!(
                    "node {} appears twice in the scene hierarchy (a cycle or shared child)",
                    node.index()
                )));
            }
            let me = nodes.order.len();
            *slot = Some(me);
            let (t, r, s) = node.transform().decomposed();
            let pose = JointPose {
                translation: Vec3::from(t),
                // A matrix with zero scale (a hidden node) decomposes into a NaN rotation; any
                // rotation does there, so take the identity rather than reject the file.
                rotation: unit(Quat::from_array(r)),
                scale: Vec3::from(s),
            };
            if !(pose.translation.is_finite() && pose.rotation.is_finite() && pose.scale.is_finite()) {
                return Err(err(format!("node {} has a non-finite transform", node.index())));
            }
            let world =
                parent.and_then(|p| nodes.world.get(p)).copied().unwrap_or(Affine3A::IDENTITY) * pose.to_affine();
            nodes.order.push(node.index());
            nodes.rest.push(pose);
            nodes.parent.push(parent);
            nodes.world.push(world);
            stack.extend(node.children().collect::<Vec<_>>().into_iter().rev().map(|c| (c, Some(me))));
        }
        Ok(nodes)
    }

    pub(super) fn skeleton(&self, doc: &gltf::Document) -> Skeleton {
        let names: Vec<Option<&str>> = doc.nodes().map(|n| n.name()).collect();
        let joints = self
            .order
            .iter()
            .enumerate()
            .map(|(i, &n)| Joint {
                name: names.get(n).copied().flatten().map_or_else(|| format!("node{n}"), str::to_string),
                parent: self.parent.get(i).copied().flatten(),
                rest: self.rest.get(i).copied().unwrap_or_default(),
            })
            .collect();
        Skeleton { joints }
    }
}
