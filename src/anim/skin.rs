use std::borrow::Cow;

use glam::{Affine3A, Vec3};
use rayon::prelude::*;

use crate::model::{Influence, Mesh, Model, PosedMesh, PosedPart, SharedPositions};

/// What posing places: every vertex, to draw, or the points that say where the model reaches.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Placing<'s> {
    /// Every vertex's position and normal.
    Vertices,
    /// Positions only, no normals; of a skinned mesh with an entry in the table (one a model
    /// mesh, from [`SharedPositions::of`]) one position for each that its vertices share, so a
    /// part's positions are a set of points, not one a vertex.
    Points(&'s [Option<SharedPositions>]),
}

impl<'s> Placing<'s> {
    /// What skinning places of model mesh `mesh`.
    pub(super) fn of_mesh(self, mesh: usize) -> Skinning<'s> {
        match self {
            Placing::Vertices => Skinning::Vertices,
            Placing::Points(shared) => {
                Skinning::Positions(shared.get(mesh).and_then(Option::as_ref).map(|s| s.representatives.as_slice()))
            }
        }
    }
}

/// What skinning places of one mesh.
#[derive(Debug, Clone, Copy)]
pub(super) enum Skinning<'s> {
    /// Every vertex's position and normal.
    Vertices,
    /// The positions of these vertices, in this order (every vertex's for `None`), and no
    /// normals.
    Positions(Option<&'s [u32]>),
}

/// Builds the posed mesh; `deform` returns new positions and normals for a mesh (given with
/// its index in the model), or `None` to borrow the stored ones (static meshes cost nothing).
pub(super) fn posed_from<'a>(
    model: &'a Model,
    deform: impl Fn(usize, &Mesh) -> Option<(Vec<Vec3>, Vec<Vec3>)>,
) -> PosedMesh<'a> {
    let parts = model
        .meshes
        .iter()
        .enumerate()
        .filter_map(|(index, mesh)| {
            let material = model.materials.get(mesh.material)?;
            let (positions, normals) = match deform(index, mesh) {
                Some((p, n)) => (Cow::Owned(p), Cow::Owned(n)),
                None => (Cow::Borrowed(mesh.positions.as_slice()), Cow::Borrowed(mesh.normals.as_slice())),
            };
            Some(PosedPart {
                positions,
                normals,
                uvs: &mesh.uvs,
                colors: &mesh.colors,
                indices: &mesh.indices,
                material,
                shared: None,
            })
        })
        .collect();
    PosedMesh { parts }
}

/// Meshes with more vertices than this are skinned in parallel; below it the scheduling costs
/// more than it saves.
const PARALLEL_VERTICES: usize = 4096;

/// Linear blend skinning of one mesh with model-space joint transforms and `all` standing in
/// for its influences (the same layout: its own, or with morph-target offsets added), placing
/// what `skinning` asks for; `None` for a mesh without skinning data.
pub(super) fn skin_influences(
    mesh: &Mesh,
    all: &[Influence],
    joints: &[Affine3A],
    skinning: Skinning,
) -> Option<(Vec<Vec3>, Vec<Vec3>)> {
    if !mesh.is_skinned() {
        return None;
    }
    let n = mesh.positions.len();
    if let Skinning::Positions(only) = skinning {
        let position = |v: usize| skin_vertex::<false>(mesh, all, joints, v).0;
        let positions = match only {
            Some(vertices) if vertices.len() > PARALLEL_VERTICES => {
                vertices.par_iter().map(|&v| position(v as usize)).collect()
            }
            Some(vertices) => vertices.iter().map(|&v| position(v as usize)).collect(),
            None if n > PARALLEL_VERTICES => (0..n).into_par_iter().map(position).collect(),
            None => (0..n).map(position).collect(),
        };
        return Some((positions, Vec::new()));
    }
    let mut positions = vec![Vec3::ZERO; n];
    let mut normals = vec![Vec3::Z; n];
    let skin_one = |v: usize, (p, nrm): (&mut Vec3, &mut Vec3)| (*p, *nrm) = skin_vertex::<true>(mesh, all, joints, v);
    if n > PARALLEL_VERTICES {
        positions.par_iter_mut().zip(normals.par_iter_mut()).enumerate().for_each(|(v, pn)| skin_one(v, pn));
    } else {
        positions.iter_mut().zip(normals.iter_mut()).enumerate().for_each(|(v, pn)| skin_one(v, pn));
    }
    Some((positions, normals))
}

/// The skinned position of vertex `v` and, with `NORMALS`, its normal (else `Vec3::Z`): the
/// positions are the same sums either way.
#[inline(always)]
fn skin_vertex<const NORMALS: bool>(mesh: &Mesh, all: &[Influence], joints: &[Affine3A], v: usize) -> (Vec3, Vec3) {
    let influences =
        mesh.influence_ranges.get(v).and_then(|r| all.get(r.start as usize..r.end as usize)).unwrap_or(&[]);
    if influences.is_empty() {
        let normal = if NORMALS { mesh.normals.get(v).copied().unwrap_or(Vec3::Z) } else { Vec3::Z };
        return (mesh.positions.get(v).copied().unwrap_or(Vec3::ZERO), normal);
    }
    let (mut sp, mut sn) = (Vec3::ZERO, Vec3::ZERO);
    for inf in influences {
        let m = joints.get(inf.joint as usize).copied().unwrap_or(Affine3A::IDENTITY);
        sp += Vec3::from(m.transform_point3a(inf.position.into())) * inf.weight;
        if NORMALS {
            sn += Vec3::from(m.transform_vector3a(inf.normal.into())) * inf.weight;
        }
    }
    (sp, if NORMALS { sn.try_normalize().unwrap_or(Vec3::Z) } else { Vec3::Z })
}
