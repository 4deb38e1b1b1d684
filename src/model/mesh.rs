use glam::{Vec2, Vec3};

/// One joint's contribution to a skinned vertex.
///
/// The vertex position and normal are stored *in the joint's space* (as MD5 stores weights), so
/// skinning is `Σ weight · joint_to_model · position`, exact for MD5 as well as for bind-pose
/// formats (SMD, glTF), where `position = inverse(bind_joint) · bind_vertex`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Influence {
    /// Index into [`crate::model::Skeleton::joints`].
    pub joint: u32,
    /// Blend weight; the weights of one vertex sum to 1.
    pub weight: f32,
    /// Vertex position in the joint's space.
    pub position: Vec3,
    /// Vertex normal in the joint's space.
    pub normal: Vec3,
}

/// One key shape of a morph-animated mesh (an MD2 frame).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MorphFrame {
    /// Frame name as written in the file (e.g. `run3`).
    pub name: String,
    /// One position per vertex.
    pub positions: Vec<Vec3>,
    /// One unit normal per vertex.
    pub normals: Vec<Vec3>,
}

/// One blend shape of a skinned mesh (a glTF morph target, an FBX shape): offsets added, scaled by the
/// target's weight, to the vertex before skinning.
///
/// There is one offset per entry of [`Mesh::influences`], already in that influence's joint
/// space, so morphing stays a plain addition in the skinning loop.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MorphTarget {
    /// Position offsets, one per influence.
    pub positions: Vec<Vec3>,
    /// Normal offsets, one per influence, or none (read as zeros) when the shape moves no normal.
    pub normals: Vec<Vec3>,
}

/// A triangle mesh drawn with one material, in the file's own axes.
///
/// `positions`, `normals` and `uvs` have one entry per vertex. UV (0,0) is the top-left of the
/// texture image, v grows downwards (parsers of bottom-left formats flip v).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Mesh {
    /// Name as written in the file (may be empty).
    pub name: String,
    /// Index into [`crate::model::Model::materials`].
    pub material: usize,
    /// Rest-pose positions (bind pose for skinned meshes, frame 0 for morph meshes).
    pub positions: Vec<Vec3>,
    /// Rest-pose unit normals.
    pub normals: Vec<Vec3>,
    /// Texture coordinates, (0,0) = top-left of the image.
    pub uvs: Vec<Vec2>,
    /// Vertex colours (glTF `COLOR_0`, OBJ `v x y z r g b`): linear RGB and straight alpha, one
    /// per vertex, multiplying the material's base colour and texture. Empty when the mesh has
    /// none.
    pub colors: Vec<[f32; 4]>,
    /// Triangles as vertex indices, counter-clockwise when seen from the front.
    pub indices: Vec<[u32; 3]>,
    /// Skinning data for skeletal formats: `influence_ranges[v]` is the range of
    /// `influences` that belong to vertex `v`. Empty for rigid and morph meshes.
    pub influence_ranges: Vec<std::ops::Range<u32>>,
    /// All vertices' joint influences, grouped by vertex.
    pub influences: Vec<Influence>,
    /// Key shapes for morph animation (MD2). Empty for other meshes.
    pub morph_frames: Vec<MorphFrame>,
    /// Blend shapes of a skinned mesh (glTF, FBX). Empty for other meshes.
    pub morph_targets: Vec<MorphTarget>,
    /// Weight of each morph target when no clip animates them; the rest-pose `positions`
    /// already include these.
    pub morph_weights: Vec<f32>,
}

impl Mesh {
    /// A vertex-animated mesh of `material`: its key shapes `morph_frames` (one position and
    /// normal per vertex each), shown in the first one when no clip plays.
    pub fn morphed(
        name: String,
        material: usize,
        uvs: Vec<Vec2>,
        indices: Vec<[u32; 3]>,
        morph_frames: Vec<MorphFrame>,
    ) -> Mesh {
        let first = morph_frames.first().cloned().unwrap_or_default();
        Mesh {
            name,
            material,
            positions: first.positions,
            normals: first.normals,
            uvs,
            indices,
            morph_frames,
            ..Mesh::default()
        }
    }

    /// True when the mesh has skinning data.
    pub fn is_skinned(&self) -> bool {
        !self.influence_ranges.is_empty()
    }

    /// Area-weighted vertex normals from the triangles (for formats without normals).
    /// Degenerate or isolated vertices get +Z.
    pub fn compute_normals(positions: &[Vec3], indices: &[[u32; 3]]) -> Vec<Vec3> {
        let mut normals = vec![Vec3::ZERO; positions.len()];
        for tri in indices {
            let [a, b, c] = tri.map(|i| i as usize);
            let (Some(&pa), Some(&pb), Some(&pc)) = (positions.get(a), positions.get(b), positions.get(c)) else {
                continue;
            };
            // The cross product's length is twice the area: larger faces weigh more.
            let n = (pb - pa).cross(pc - pa);
            if !n.is_finite() {
                continue;
            }
            for i in [a, b, c] {
                normals[i] += n;
            }
        }
        normals.into_iter().map(|n| n.try_normalize().unwrap_or(Vec3::Z)).collect()
    }
}
