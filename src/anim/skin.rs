use std::borrow::Cow;

use glam::{Affine3A, Vec3};
use rayon::prelude::*;

use crate::model::{Influence, Mesh, Model, PosedMesh, PosedPart};

/// Builds the posed mesh; `deform` returns new positions and normals for a mesh, or `None` to
/// borrow the stored ones (static meshes cost nothing).
pub(super) fn posed_from<'a>(
    model: &'a Model,
    deform: impl Fn(&Mesh) -> Option<(Vec<Vec3>, Vec<Vec3>)>,
) -> PosedMesh<'a> {
    let parts = model
        .meshes
        .iter()
        .filter_map(|mesh| {
            let material = model.materials.get(mesh.material)?;
            let (positions, normals) = match deform(mesh) {
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
/// for its influences (the same layout: its own, or with morph-target offsets added); `None`
/// for a mesh without skinning data. Without `normals` the normals come back empty.
pub(super) fn skin_influences(
    mesh: &Mesh,
    all: &[Influence],
    joints: &[Affine3A],
    normals: bool,
) -> Option<(Vec<Vec3>, Vec<Vec3>)> {
    if !mesh.is_skinned() {
        return None;
    }
    let n = mesh.positions.len();
    let mut positions = vec![Vec3::ZERO; n];
    if !normals {
        let skin_one = |v: usize, p: &mut Vec3| *p = skin_vertex::<false>(mesh, all, joints, v).0;
        if n > PARALLEL_VERTICES {
            positions.par_iter_mut().enumerate().for_each(|(v, p)| skin_one(v, p));
        } else {
            positions.iter_mut().enumerate().for_each(|(v, p)| skin_one(v, p));
        }
        return Some((positions, Vec::new()));
    }
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
