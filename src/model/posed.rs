use std::borrow::Cow;

use foldhash::HashMapExt;
use glam::{Vec2, Vec3};
use rayon::prelude::*;

use super::{Material, Mesh};

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
    /// The vertices that share a position with another in every pose, when the caller knows
    /// them ([`SharedPositions::of`] the mesh the part was posed from): the renderer then
    /// projects each position once. `None` projects every vertex.
    pub shared: Option<&'a SharedPositions>,
}

/// Which vertices of a mesh are posed to the same position in every pose: those whose position
/// data (rest position, joint influences, key shapes, blend shapes) is the same bit for bit.
/// A character's mesh is split wherever a normal or texture coordinate changes (a Mixamo rig
/// has 2.8 vertices for each position), and a renderer that projects each position once does
/// a third of the work.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SharedPositions {
    /// One vertex for each distinct position, the first of those that share it, ascending.
    pub representatives: Vec<u32>,
    /// The mesh's triangles with each corner given as its position's index in
    /// `representatives`.
    pub triangles: Vec<[u32; 3]>,
}

impl SharedPositions {
    /// The positions of `mesh`'s vertices, shared where their position data is the same; `None`
    /// when fewer than one vertex in eight shares its position (the indirection would cost
    /// more than it saves). Vertices past the mesh's data or triangle corners past its
    /// vertices keep positions of their own, as the renderer reads them.
    pub fn of(mesh: &Mesh) -> Option<SharedPositions> {
        let vertices = mesh.positions.len();
        // Candidates by rest position, the first in the table and each one's next in `next`
        // (no list allocated per position); the rest of their data is compared in full.
        const NONE: u32 = u32::MAX;
        let mut first_at_rest = foldhash::HashMap::<[u32; 3], u32>::with_capacity(vertices);
        let mut next = vec![NONE; vertices];
        let mut position_of: Vec<u32> = Vec::with_capacity(vertices);
        let mut representatives = Vec::new();
        for (v, rest) in mesh.positions.iter().enumerate() {
            let first = *first_at_rest.entry(rest.to_array().map(f32::to_bits)).or_insert(v as u32) as usize;
            // The candidate with the same data, else the last one (to chain `v` to).
            let (mut last, mut same) = (first, None);
            while last != v {
                if same_position_data(mesh, last, v) {
                    same = Some(last);
                    break;
                }
                match next.get(last) {
                    Some(&after) if after != NONE => last = after as usize,
                    _ => break,
                }
            }
            match same.and_then(|c| position_of.get(c).copied()) {
                Some(position) => position_of.push(position),
                None => {
                    if let Some(link) = next.get_mut(last).filter(|_| last != v) {
                        *link = v as u32;
                    }
                    position_of.push(representatives.len() as u32);
                    representatives.push(v as u32);
                }
            }
        }
        if representatives.len() * 8 > vertices * 7 {
            return None;
        }
        // A corner past the vertices reads as no position at all, as it would unshared.
        let outside = u32::MAX;
        let triangles =
            mesh.indices.iter().map(|t| t.map(|i| position_of.get(i as usize).copied().unwrap_or(outside))).collect();
        Some(SharedPositions { representatives, triangles })
    }

    /// [`SharedPositions::of`] each of `meshes`, side by side: the table
    /// [`PosedMesh::share_positions`] takes.
    pub fn of_each(meshes: &[Mesh]) -> Vec<Option<SharedPositions>> {
        meshes.par_iter().map(SharedPositions::of).collect()
    }

    /// Bytes the tables hold.
    pub fn bytes(&self) -> u64 {
        (self.representatives.len() * 4 + self.triangles.len() * 12) as u64
    }
}

/// Whether vertices `a` and `b` have the same data for everything posing reads to place one
/// (as `anim`'s skinning and key shapes read it), bit for bit: then every pose places them at
/// the same position, being the same arithmetic on the same numbers.
fn same_position_data(mesh: &Mesh, a: usize, b: usize) -> bool {
    let bits = |p: &Vec3| p.to_array().map(f32::to_bits);
    let same = |p: Option<&Vec3>, q: Option<&Vec3>| p.map(bits) == q.map(bits);
    if !same(mesh.positions.get(a), mesh.positions.get(b)) {
        return false;
    }
    if !mesh.morph_frames.iter().all(|f| same(f.positions.get(a), f.positions.get(b))) {
        return false;
    }
    // Skinning reads a vertex's influences as one slice, none where its range is not valid.
    let influences = |v: usize| {
        let range = mesh.influence_ranges.get(v).map_or(0..0, |r| r.start as usize..r.end as usize);
        let valid = mesh.influences.get(range.clone()).is_some();
        if valid { range } else { 0..0 }
    };
    let (ia, ib) = (influences(a), influences(b));
    ia.len() == ib.len()
        && ia.zip(ib).all(|(i, j)| {
            let (p, q) = (&mesh.influences[i], &mesh.influences[j]);
            p.joint == q.joint
                && p.weight.to_bits() == q.weight.to_bits()
                && bits(&p.position) == bits(&q.position)
                && mesh.morph_targets.iter().all(|t| {
                    // Blend shapes add their offsets to the influences, none where missing.
                    let offset = |k: usize| t.positions.get(k).copied().unwrap_or(Vec3::ZERO);
                    bits(&offset(i)) == bits(&offset(j))
                })
        })
}

/// A whole model after posing.
#[derive(Debug, Clone, Default)]
pub struct PosedMesh<'a> {
    /// One entry per drawn mesh.
    pub parts: Vec<PosedPart<'a>>,
}

impl<'a> PosedMesh<'a> {
    /// Bounds of all posed positions.
    pub fn bounds(&self) -> super::Aabb {
        super::Aabb::from_points(self.parts.iter().flat_map(|p| p.positions.iter().copied()))
    }

    /// Gives each part posed from one of `meshes` (drawing that mesh's triangles, one
    /// position a vertex) that mesh's entry of `shared` (one entry a mesh, from
    /// [`SharedPositions::of`]).
    pub fn share_positions(&mut self, meshes: &[Mesh], shared: &'a [Option<SharedPositions>]) {
        for part in &mut self.parts {
            let mesh = meshes.iter().position(|m| {
                std::ptr::eq(part.indices, m.indices.as_slice()) && part.positions.len() == m.positions.len()
            });
            if let Some(Some(positions)) = mesh.and_then(|m| shared.get(m)) {
                part.shared = Some(positions);
            }
        }
    }

    /// Total triangle count.
    pub fn triangle_count(&self) -> usize {
        self.parts.iter().map(|p| p.indices.len()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Influence, MorphFrame, MorphTarget};

    fn influence(joint: u32, weight: f32, position: Vec3) -> Influence {
        Influence { joint, weight, position, normal: Vec3::Z }
    }

    /// Eight vertices split from four positions by texture coordinates, as a character's seams
    /// split them.
    fn split_quad() -> Mesh {
        let corners = [Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::ONE];
        Mesh {
            positions: corners.iter().chain(&corners).copied().collect(),
            indices: vec![[0, 1, 2], [5, 7, 6], [4, 1, 3]],
            ..Mesh::default()
        }
    }

    #[test]
    fn vertices_share_a_position_only_when_everything_posing_reads_is_the_same() {
        let mesh = split_quad();
        let shared = SharedPositions::of(&mesh).expect("half the vertices share");
        assert_eq!(shared.representatives, [0, 1, 2, 3]);
        assert_eq!(shared.triangles, [[0, 1, 2], [1, 3, 2], [0, 1, 3]]);

        // Skinned: the same rest position with another weight, joint or joint-space position
        // is posed elsewhere; the same influences are not.
        let mut skinned = split_quad();
        let one = |v: usize| influence(0, 1.0, skinned.positions[v]);
        skinned.influences = (0..8).map(one).collect();
        skinned.influences[5].weight = 0.5;
        skinned.influences[6].joint = 1;
        skinned.influences[7].position.x += 1e-7;
        skinned.influence_ranges = (0..8).map(|v| v..v + 1).collect();
        assert_eq!(SharedPositions::of(&skinned).unwrap().representatives, [0, 1, 2, 3, 5, 6, 7]);
        // A blend shape that moves one copy and not the other keeps them apart.
        skinned.morph_targets = vec![MorphTarget { positions: vec![Vec3::ZERO; 4], normals: Vec::new() }];
        assert_eq!(
            SharedPositions::of(&skinned).unwrap().representatives,
            [0, 1, 2, 3, 5, 6, 7],
            "a zero offset and none are the same"
        );
        skinned.morph_targets[0].positions = vec![Vec3::X];
        assert_eq!(SharedPositions::of(&skinned), None, "vertex 0 moves and vertex 4 does not: none shares");

        // Key shapes: the same first frame, apart in a later one.
        let mut morphed = split_quad();
        let mut later = morphed.positions.clone();
        later[4] = Vec3::NEG_ONE;
        morphed.morph_frames = vec![
            MorphFrame { positions: morphed.positions.clone(), ..MorphFrame::default() },
            MorphFrame { positions: later, ..MorphFrame::default() },
        ];
        assert_eq!(SharedPositions::of(&morphed).unwrap().representatives, [0, 1, 2, 3, 4]);

        // Three copies of each position, the second and third of the first alike: the third
        // finds the second past the first.
        let corners = [Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::ONE];
        let positions: Vec<Vec3> = corners.iter().cycle().take(12).copied().collect();
        let mut thrice = Mesh { indices: vec![[0, 1, 2], [4, 5, 6], [8, 9, 10]], ..Mesh::default() };
        thrice.influences = positions.iter().map(|&p| influence(0, 1.0, p)).collect();
        thrice.influences[4].weight = 0.5;
        thrice.influences[8].weight = 0.5;
        thrice.influence_ranges = (0..12).map(|v| v..v + 1).collect();
        thrice.positions = positions;
        let shared = SharedPositions::of(&thrice).unwrap();
        assert_eq!(shared.representatives, [0, 1, 2, 3, 4]);
        assert_eq!(shared.triangles, [[0, 1, 2], [4, 1, 2], [4, 1, 2]]);
    }

    #[test]
    fn a_corner_past_the_vertices_has_no_position() {
        let mut mesh = split_quad();
        mesh.indices.push([0, 8, u32::MAX]);
        let shared = SharedPositions::of(&mesh).unwrap();
        assert_eq!(shared.triangles.last(), Some(&[0, u32::MAX, u32::MAX]));
    }

    #[test]
    fn parts_get_the_table_of_the_mesh_they_were_posed_from() {
        let (a, b) = (split_quad(), split_quad());
        let material = Material::named("m");
        fn part<'a>(mesh: &'a Mesh, material: &'a Material) -> PosedPart<'a> {
            PosedPart {
                positions: Cow::Owned(mesh.positions.clone()),
                normals: Cow::Borrowed(&[]),
                uvs: &[],
                colors: &[],
                indices: &mesh.indices,
                material,
                shared: None,
            }
        }
        let (meshes, stranger) = ([a, b], split_quad());
        let tables = [None, SharedPositions::of(&meshes[1])];
        let mut posed = PosedMesh {
            parts: vec![part(&meshes[0], &material), part(&meshes[1], &material), part(&stranger, &material)],
        };
        posed.share_positions(&meshes, &tables);
        let got: Vec<bool> = posed.parts.iter().map(|p| p.shared.is_some()).collect();
        assert_eq!(got, [false, true, false], "equal triangles of another mesh are not the same triangles");
    }
}
