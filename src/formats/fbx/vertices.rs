//! A part's vertices made from the corners welding picked, side by side: their influences in
//! their joints' spaces, uvs and colours, then their rest positions and normals.
//!
//! Welding numbers the vertices one corner after another; everything a vertex is made of is
//! its own, so the making runs on every thread. It also writes most of the bytes a mesh is
//! made of (a Mixamo body's influences are 7 MiB), whose pages the kernel maps in as they are
//! first written: done by one thread, that alone took longer than making them.

use std::ops::Range;

use glam::{Affine3A, Vec2, Vec3};
use rayon::prelude::*;

use super::rig::{Rig, vec3};
use crate::model::{Influence, Mesh};

/// Vertices handed to a thread at a time: fewer would cost more to hand out than to make.
const VERTEX_CHUNK: usize = 1024;

/// A mesh's data by triangle corner (an index into its corners), as plain slices: ufbx's own
/// types cannot be shared between threads.
pub(super) struct Corners<'m> {
    /// The control point of each corner.
    points: &'m [u32],
    positions: Attribute<'m, ufbx::Vec3>,
    normals: Option<Attribute<'m, ufbx::Vec3>>,
    uvs: Option<Attribute<'m, ufbx::Vec2>>,
    colours: Option<Attribute<'m, ufbx::Vec4>>,
}

/// One vertex attribute of a mesh: its values and, by corner, which value.
struct Attribute<'m, T> {
    values: &'m [T],
    indices: &'m [u32],
}

impl<T: Copy> Attribute<'_, T> {
    fn at(&self, corner: usize) -> Option<T> {
        self.values.get(*self.indices.get(corner)? as usize).copied()
    }
}

impl<'m> Corners<'m> {
    pub(super) fn of(mesh: &'m ufbx::Mesh) -> Corners<'m> {
        let p = &mesh.vertex_position;
        let (n, t, c) = (&mesh.vertex_normal, &mesh.vertex_uv, &mesh.vertex_color);
        Corners {
            points: &mesh.vertex_indices,
            positions: Attribute { values: &p.values, indices: &p.indices },
            normals: n.exists.then(|| Attribute { values: &n.values, indices: &n.indices }),
            uvs: t.exists.then(|| Attribute { values: &t.values, indices: &t.indices }),
            colours: c.exists.then(|| Attribute { values: &c.values, indices: &c.indices }),
        }
    }

    /// The position and normal (+Y without normals) of `corner`, in the mesh's geometry.
    fn position_and_normal(&self, corner: usize) -> (Vec3, Vec3) {
        let position = self.positions.at(corner).map_or(Vec3::ZERO, vec3);
        let normal = self.normals.as_ref().map_or(Vec3::Y, |n| n.at(corner).map_or(Vec3::ZERO, vec3));
        (position, normal)
    }

    /// The uv of `corner`, flipped to the top-left convention; zero without uvs.
    fn uv(&self, corner: usize) -> Vec2 {
        let uv = self.uvs.as_ref().and_then(|t| t.at(corner));
        uv.map_or(Vec2::ZERO, |t| Vec2::new(t.x as f32, 1.0 - t.y as f32))
    }

    /// The colour of `corner`, written in sRGB (as Blender writes and reads FBX colours).
    fn colour(&self, colours: &Attribute<ufbx::Vec4>, corner: usize) -> [f32; 4] {
        let c = colours.at(corner).map_or([0.0; 4], |c| [c.x, c.y, c.z, c.w].map(|v| v as f32));
        crate::formats::colour::vertex_colour(c, true)
    }
}

/// Makes the vertices of `out`, vertex `v` from triangle corner `sources[v]`: its influences
/// (each in its joint's space, weights summing to 1), uv and colour, each vertex alone.
pub(super) fn make_vertices(out: &mut Mesh, sources: &[u32], corners: &Corners, rig: &Rig) {
    let point = |corner: u32| corners.points.get(corner as usize).copied().unwrap_or(0);
    // How many influences each vertex has, then where each vertex's begin: each vertex's are
    // looked up twice (here and when written), so that they can be written in place side by
    // side instead of gathered into one list afterwards, which would copy them on one thread.
    let counts: Vec<u32> = sources
        .par_iter()
        .with_min_len(VERTEX_CHUNK)
        .map_init(Vec::new, |found, &corner| {
            rig.influences_into(point(corner), found);
            found.len() as u32
        })
        .collect();
    let mut end = 0u32;
    out.influence_ranges = counts
        .iter()
        .map(|&count| {
            let start = end;
            end = end.saturating_add(count);
            start..end
        })
        .collect();
    // Written first side by side, so that their pages are mapped in on every thread.
    let blank = Influence { joint: 0, weight: 0.0, position: Vec3::ZERO, normal: Vec3::ZERO };
    let mut influences = Vec::new();
    influences.par_extend((0..end as usize).into_par_iter().with_min_len(VERTEX_CHUNK).map(|_| blank));
    let bindings = rig.bindings();
    by_vertex_chunks(&mut influences, &out.influence_ranges, VERTEX_CHUNK).into_par_iter().for_each(
        |(vertices, influences)| {
            let mut found = Vec::new();
            let mut slots = influences.iter_mut();
            for &corner in sources.get(vertices).unwrap_or_default() {
                rig.influences_into(point(corner), &mut found);
                let (position, normal) = corners.position_and_normal(corner as usize);
                // The vertex's influences first: a zip that runs out in its second iterator
                // has already taken the next item of its first.
                for (&(binding, weight), slot) in found.iter().zip(slots.by_ref()) {
                    let Some(binding) = bindings.get(binding as usize) else { continue };
                    *slot = Influence {
                        joint: binding.joint as u32,
                        weight,
                        position: binding.to_joint.transform_point3(position),
                        normal: (binding.normal * normal).try_normalize().unwrap_or(Vec3::Y),
                    };
                }
            }
        },
    );
    out.influences = influences;
    out.uvs = sources.par_iter().with_min_len(VERTEX_CHUNK).map(|&c| corners.uv(c as usize)).collect();
    if let Some(colours) = &corners.colours {
        let colour = |&c: &u32| corners.colour(colours, c as usize);
        out.colors = sources.par_iter().with_min_len(VERTEX_CHUNK).map(colour).collect();
    }
}

/// `influences` cut where `ranges` (each vertex's influences, consecutive from 0) cross every
/// `chunk` vertices: each piece with the vertices whose influences it holds.
fn by_vertex_chunks<'a, T>(
    mut influences: &'a mut [T],
    ranges: &[Range<u32>],
    chunk: usize,
) -> Vec<(Range<usize>, &'a mut [T])> {
    let mut pieces = Vec::with_capacity(ranges.len().div_ceil(chunk.max(1)));
    let mut taken = 0;
    for (c, vertices) in ranges.chunks(chunk.max(1)).enumerate() {
        let end = vertices.last().map_or(taken, |r| r.end as usize);
        let len = (end - taken).min(influences.len());
        let (piece, rest) = std::mem::take(&mut influences).split_at_mut(len);
        pieces.push((c * chunk..c * chunk + vertices.len(), piece));
        (influences, taken) = (rest, end);
    }
    pieces
}

/// Sets the rest positions and normals of `out`: its influences skinned by the rest pose's
/// joints `rest_world`, with its morph targets added at their rest weights; each vertex alone,
/// so side by side.
pub(super) fn place_at_rest(out: &mut Mesh, rest_world: &[Affine3A]) {
    let morphs: Vec<_> = out.morph_targets.iter().zip(&out.morph_weights).filter(|(_, w)| **w != 0.0).collect();
    let rest = |range: &Range<u32>| {
        let (mut rest_p, mut rest_n) = (Vec3::ZERO, Vec3::ZERO);
        for i in range.start as usize..range.end as usize {
            let Some(influence) = out.influences.get(i) else { continue };
            let (mut p, mut n) = (influence.position, influence.normal);
            for &(target, &w) in &morphs {
                p += target.positions.get(i).copied().unwrap_or(Vec3::ZERO) * w;
                n += target.normals.get(i).copied().unwrap_or(Vec3::ZERO) * w;
            }
            let world = rest_world.get(influence.joint as usize).copied().unwrap_or(Affine3A::IDENTITY);
            rest_p += world.transform_point3(p) * influence.weight;
            rest_n += world.transform_vector3(n) * influence.weight;
        }
        (rest_p, rest_n.try_normalize().unwrap_or(Vec3::Y))
    };
    let ranges = &out.influence_ranges;
    let (positions, normals) = ranges.par_iter().with_min_len(VERTEX_CHUNK).map(rest).unzip();
    out.positions = positions;
    out.normals = normals;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every piece holds exactly its vertices' influences, the pieces in order and together
    /// all of them, whatever the counts (none included).
    #[test]
    fn pieces_hold_exactly_their_vertices_influences() {
        let counts = [3u32, 0, 1, 4, 0, 0, 2, 5, 1, 0, 3];
        let mut end = 0;
        let ranges: Vec<Range<u32>> = counts
            .iter()
            .map(|&c| {
                end += c;
                end - c..end
            })
            .collect();
        // Each influence names its vertex.
        let mut owner: Vec<usize> = ranges.iter().enumerate().flat_map(|(v, r)| r.clone().map(move |_| v)).collect();
        for chunk in [1, 2, 3, 4, 11, 50] {
            let pieces = by_vertex_chunks(&mut owner, &ranges, chunk);
            let mut next = 0;
            for (vertices, piece) in &pieces {
                assert_eq!(vertices.start, next, "chunk {chunk}");
                next = vertices.end;
                let wanted: Vec<usize> = vertices.clone().flat_map(|v| vec![v; counts[v] as usize]).collect();
                assert_eq!(&piece[..], &wanted[..], "chunk {chunk}, vertices {vertices:?}");
            }
            assert_eq!(next, counts.len(), "chunk {chunk}");
        }
    }
}
