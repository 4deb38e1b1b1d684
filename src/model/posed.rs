use std::borrow::Cow;

use glam::{Vec2, Vec3};

use super::Material;

/// One mesh after posing: what the rasterizer draws.
#[derive(Debug, Clone)]
pub struct PosedPart<'a> {
    /// Posed positions in the model file's axes.
    pub positions: Cow<'a, [Vec3]>,
    /// Posed unit normals.
    pub normals: Cow<'a, [Vec3]>,
    /// Texture coordinates, (0,0) = top-left.
    pub uvs: &'a [Vec2],
    /// Vertex colours (see [`super::Mesh::colors`]); empty when the mesh has none.
    pub colors: &'a [[f32; 4]],
    /// Triangles, counter-clockwise from the front.
    pub indices: &'a [[u32; 3]],
    /// Material to draw with.
    pub material: &'a Material,
}

/// A whole model after posing.
#[derive(Debug, Clone, Default)]
pub struct PosedMesh<'a> {
    /// One entry per drawn mesh.
    pub parts: Vec<PosedPart<'a>>,
}

impl PosedMesh<'_> {
    /// Bounds of all posed positions.
    pub fn bounds(&self) -> super::Aabb {
        super::Aabb::from_points(self.parts.iter().flat_map(|p| p.positions.iter().copied()))
    }

    /// Total triangle count.
    pub fn triangle_count(&self) -> usize {
        self.parts.iter().map(|p| p.indices.len()).sum()
    }
}
