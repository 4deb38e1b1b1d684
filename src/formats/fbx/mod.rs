//! Autodesk FBX, binary and ASCII (versions 3000 to 7700), through `ufbx`: the Rust binding of
//! the fuzzed single-file C loader Godot 4 uses. What it gives a sprite:
//!
//! * **Axes and units.** ufbx converts every scene to right-handed Y-up metres, changing the
//!   geometry itself (`ModifyGeometry`), so Mixamo's centimetres and Y-up and 3ds Max's Z-up
//!   stand the same way: [`Orientation::Y_UP_FACING_Z`], as glTF (FBX characters face +Z).
//! * **Skeleton.** Every node below the scene's root is a joint, parents first, its rest pose
//!   the node's local transform (pivots and pre-rotations folded in by ufbx). Meshes hang on
//!   their node's joint, so rigid parts move with their node as skinned parts do with bones.
//! * **Meshes.** Each mesh instance (a node with a mesh) gives one mesh per material used,
//!   polygons triangulated by ufbx, corners sharing a vertex, normal and uv welded. Skinned
//!   vertices take their skin's cluster weights (normalised) with positions in the bone's
//!   bind space (`geometry_to_bone`); a vertex no cluster weights follows the mesh's node.
//! * **Blend shapes.** Every shape of a mesh's blend channels, in-betweens included, is a morph
//!   target, added to the vertex before skinning, at its channel's saved weight at rest (see
//!   `blend.rs`).
//! * **Materials.** The diffuse (or PBR base colour) texture: embedded content decoded here,
//!   else its file name left to the texture resolver; the diffuse colour without a texture.
//! * **Clips.** Each animation stack is a clip named after it, sampled at the scene's frame
//!   rate (30 when it has none) from the stack's start, `round(length × fps)` frames; keyed
//!   at those frames when it animates blend shape weights (see `clip.rs`). The stack the file
//!   marks as active comes first, the others in the file's order (see `document.rs`).
//!
//! ufbx allocates in C, outside the model's budget: its allocators are capped at what the
//! budget has left, and the scene it keeps is charged once loaded.

mod blend;
mod clip;
mod document;
mod rig;
mod vertices;

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::sync::Arc;

use glam::Affine3A;
use rayon::prelude::*;

use super::{Limits, textures};
use crate::budget::MemoryBudget;
use crate::error::{FormatError, Result};
use crate::model::{Clip, Material, Mesh, Model, Orientation, Texture, TextureStatus};
use blend::{Blends, Morphed};
use rig::{FORMAT, JointTable, Joints, Rig};
pub use rig::{MAX_CLIP_FRAMES, MAX_JOINTS};
use vertices::{Corners, make_vertices, place_at_rest};

/// How often ufbx reports how far it has read, in bytes: the position an error names.
const PROGRESS_BYTES: u64 = 4096;

/// Parses an FBX file's bytes into a model, charging `budget` for what ufbx keeps and what the
/// model is built of.
///
/// # Errors
/// A file ufbx cannot read (its message), the limits above, or the budget.
pub fn parse_within(bytes: &[u8], limits: &Limits, budget: &MemoryBudget) -> Result<Model> {
    // ufbx's temporary and result allocations together stay within what the budget has left.
    let cap = usize::try_from(budget.remaining() / 2).unwrap_or(usize::MAX).max(1);
    // ufbx's errors carry no position in the file: how far its reader had got when it stopped
    // is the nearest one it tells.
    let reached = std::cell::Cell::new(None);
    let track = |progress: &ufbx::Progress| {
        reached.set(Some(progress.bytes_read));
        ufbx::ProgressResult::Continue
    };
    let opts = ufbx::LoadOpts {
        progress_cb: ufbx::ProgressCb::Ref(&track),
        progress_interval_hint: PROGRESS_BYTES,
        temp_allocator: ufbx::AllocatorOpts { memory_limit: cap, ..Default::default() },
        result_allocator: ufbx::AllocatorOpts { memory_limit: cap, ..Default::default() },
        target_axes: ufbx::CoordinateAxes::right_handed_y_up(),
        target_unit_meters: 1.0,
        space_conversion: ufbx::SpaceConversion::ModifyGeometry,
        generate_missing_normals: true,
        ..Default::default()
    };
    let scene = match ufbx::load_memory(bytes, opts) {
        Ok(scene) => scene,
        Err(e) if matches!(e.type_, ufbx::ErrorType::MemoryLimit | ufbx::ErrorType::AllocationLimit) => {
            // Said as the budget says it: a charge of more than what remains fails.
            let what = || format!("FBX: parsing {} KiB", bytes.len().div_ceil(1024));
            budget.charge(budget.remaining().saturating_add(1), what)?;
            return Err(FormatError::whole_file(FORMAT, "the file needs more memory than the budget has left").into());
        }
        Err(e) => {
            let info = e.info();
            let detail = if info.is_empty() { String::new() } else { format!(" ({info})") };
            let message = format!("{}{detail}", &*e.description);
            return Err(match reached.get() {
                // Its count may run past the end (a terminator it adds to text files).
                Some(offset) => FormatError::at_offset(
                    FORMAT,
                    offset.min(bytes.len() as u64),
                    format!("{message} (ufbx had read this far when it stopped)"),
                ),
                None => FormatError::whole_file(FORMAT, message),
            }
            .into());
        }
    };
    let kept = scene.metadata.result_memory_used as u64;
    budget.charge(kept, || format!("FBX: {} KiB of parsed scene", kept.div_ceil(1024)))?;
    let joints = Joints::of(&scene)?;
    let mut model = Model { orientation: Orientation::Y_UP_FACING_Z, ..Model::default() };
    model.skeleton = Some(joints.skeleton());
    let mut materials = Materials::read(&scene, limits, budget, &mut model)?;
    let rest_world = model.skeleton.as_ref().map(|s| s.to_model_space(&s.rest_pose())).unwrap_or_default();
    // The mesh instances with blend shapes, whose weights clips may key.
    let morphed = add_mesh_instances(&scene, &joints, &mut materials, &rest_world, budget, &mut model)?;
    model.materials = materials.list;
    for stack in &scene.anim_stacks {
        model.clips.push(clip::clip(&scene, stack, &joints, &morphed, budget)?);
    }
    put_active_first(bytes, &mut model.clips);
    let (fps, range) = (scene.settings.frames_per_second, crate::bounds::FPS);
    let outside = fps.is_finite() && (fps < f64::from(range.min) || fps > f64::from(range.max));
    if let Some(clip) = model.clips.first().filter(|_| outside) {
        let played = clip.fps;
        model.warnings.push(format!(
            "the scene's rate of {fps} fps is outside {} to {} fps: played at {played} fps",
            range.min, range.max
        ));
    }
    Ok(model)
}

/// Moves the stack the file marks as active (see `document.rs`) to the front, the others
/// keeping the file's order: it is the file's own motion (Blender imports it alone), and
/// Mixamo lists a still `Take 001` before it.
fn put_active_first(bytes: &[u8], clips: &mut [Clip]) {
    if clips.len() < 2 {
        return;
    }
    let active = document::active_stack(bytes).and_then(|name| clips.iter().position(|c| c.name == name));
    if let Some(i) = active {
        clips[..=i].rotate_right(1);
    }
}

/// The model's materials, one per FBX material, plus a plain one for faces without.
struct Materials {
    list: Vec<Material>,
    /// Index in `list` by FBX material `typed_id`.
    by_material: HashMap<u32, usize>,
    /// Index in `list` of the plain material, once a part without one asked for it.
    plain: Option<usize>,
}

impl Materials {
    fn read(scene: &ufbx::Scene, limits: &Limits, budget: &MemoryBudget, model: &mut Model) -> Result<Materials> {
        let mut list = Vec::with_capacity(scene.materials.len() + 1);
        let mut by_material = HashMap::new();
        // Textures decoded once however many materials share them.
        let mut decoded: HashMap<u32, std::result::Result<Arc<Texture>, String>> = HashMap::new();
        for m in &scene.materials {
            let mut material = Material::named(m.element.name.to_string());
            let map = [&m.fbx.diffuse_color, &m.pbr.base_color].into_iter().find(|map| map.texture.is_some());
            match map.and_then(|map| map.texture.as_ref()) {
                Some(texture) if !texture.content.is_empty() => {
                    let label = format!("embedded texture '{}'", &*texture.relative_filename);
                    let result = match decoded.get(&texture.element.typed_id) {
                        Some(done) => done.clone(),
                        None => {
                            let path = std::path::Path::new(&*texture.relative_filename);
                            let done = textures::split_budget(
                                textures::decode_image_within(&texture.content, path, limits.max_texture_side, budget)
                                    .map(Arc::new),
                            )?;
                            decoded.insert(texture.element.typed_id, done.clone());
                            done
                        }
                    };
                    match result {
                        Ok(t) => {
                            material.texture = Some(t);
                            material.texture_status = TextureStatus::Embedded(label);
                        }
                        Err(reason) => {
                            model.warnings.push(format!("{label} of material '{}': {reason}", material.name));
                            material.texture = Some(Arc::new(Texture::missing()));
                            material.texture_status = TextureStatus::Missing { name: label, reason };
                        }
                    }
                }
                Some(texture) => {
                    let name = [&texture.relative_filename, &texture.filename, &texture.absolute_filename]
                        .into_iter()
                        .map(|n| n.to_string())
                        .find(|n| !n.is_empty());
                    material.texture_name = name;
                }
                None => {
                    let c = m.fbx.diffuse_color.value_vec4;
                    material.base_color = [c.x as f32, c.y as f32, c.z as f32, 1.0];
                }
            }
            by_material.insert(m.element.typed_id, list.len());
            list.push(material);
        }
        Ok(Materials { list, by_material, plain: None })
    }

    /// The index of the material of part `part` of `mesh`; `None` when the part has none.
    fn find(&self, mesh: &ufbx::Mesh, part: u32) -> Option<usize> {
        mesh.materials.get(part as usize).and_then(|m| self.by_material.get(&m.element.typed_id)).copied()
    }

    /// The index of the plain material, added when first asked for.
    fn plain(&mut self) -> usize {
        *self.plain.get_or_insert_with(|| {
            self.list.push(Material::named("default"));
            self.list.len() - 1
        })
    }
}

/// Adds one mesh per material part of each mesh instance (a node with a mesh, which is a
/// joint), in the scene's order; returns the instances with blend shapes and their meshes.
///
/// The instances are converted side by side (a Mixamo character's body and joints are two),
/// then put in the model one after the other: the material a part without one gets, the blend
/// shapes (which the budget is charged for) and the warnings come in the scene's order.
fn add_mesh_instances<'s>(
    scene: &'s ufbx::SceneRoot,
    joints: &Joints,
    materials: &mut Materials,
    rest_world: &[Affine3A],
    budget: &MemoryBudget,
    model: &mut Model,
) -> Result<Vec<Morphed<'s>>> {
    let instances: Vec<(usize, usize)> = scene
        .nodes
        .iter()
        .enumerate()
        .filter_map(|(n, node)| Some((n, joints.index(node).filter(|_| node.mesh.is_some())?)))
        .collect();
    let instance = |n: usize| {
        let node: &'s ufbx::Node = scene.nodes.get(n)?;
        Some((node, node.mesh.as_deref()?))
    };
    // Each triangle corner may be its own vertex: position, normal, uv, colour, range,
    // influences, its influence count and the corner it came from. Charged before any
    // instance is converted, in the scene's order: which mesh the budget runs out on depends
    // on the file alone.
    const CORNER_BYTES: u64 = 12 + 12 + 8 + 16 + 8 + 12 + 4 * 32 + 4 + 4;
    for (node, mesh) in instances.iter().filter_map(|&(n, _)| instance(n)) {
        let corners = (mesh.num_triangles as u64).saturating_mul(3);
        budget.charge(corners.saturating_mul(CORNER_BYTES), || {
            format!("FBX: mesh '{}' of {} triangles", &*node.element.name, mesh.num_triangles)
        })?;
    }
    let (bones, found) = (joints.table(), &*materials);
    let converted: Vec<Option<Converted>> = instances
        .par_iter()
        .map(|&(n, joint)| {
            let (node, mesh) = instance(n)?;
            Some(convert_instance(node, mesh, joint, bones, found, rest_world))
        })
        .collect();
    let mut morphed = Vec::new();
    for (&(n, joint), converted) in instances.iter().zip(converted) {
        let (Some((node, mesh)), Some(converted)) = (instance(n), converted) else { continue };
        let blends = Blends::of(mesh);
        let mut added = Vec::new();
        for part in converted.parts {
            let material = part.material.unwrap_or_else(|| materials.plain());
            let Some(mut out) = part.mesh else { continue };
            out.material = material;
            if !blends.is_empty() {
                let rig = Rig::of(mesh, joint, node, bones);
                blends.add_targets(&mut out, mesh, &part.sources, &rig, budget)?;
                place_at_rest(&mut out, rest_world);
            }
            added.push(model.meshes.len());
            model.meshes.push(out);
        }
        if converted.fanned > 0 {
            model.warnings.push(format!(
                "FBX: mesh '{}' has {} face(s) of more than {MAX_EAR_CLIPPED_CORNERS} corners, triangulated as fans \
                 (a concave one may show overlaps)",
                &*node.element.name, converted.fanned
            ));
        }
        if !blends.is_empty() && !added.is_empty() {
            morphed.push(Morphed { blends, meshes: added });
        }
    }
    Ok(morphed)
}

/// A mesh instance converted: one entry per material part of its mesh, and how many faces
/// were triangulated as fans.
struct Converted {
    parts: Vec<ConvertedPart>,
    fanned: usize,
}

/// A material part of a mesh instance converted.
struct ConvertedPart {
    /// Its material in the model, `None` for one without (the plain material).
    material: Option<usize>,
    /// Its mesh; `None` when it has no triangles. Placed at rest unless the mesh has blend
    /// shapes, which are added first.
    mesh: Option<Mesh>,
    /// With blend shapes, the triangle corner each vertex was made from, for their offsets.
    sources: Vec<u32>,
}

/// Converts the parts of `mesh` on `node` (joint `joint`): triangulated, corners sharing a
/// vertex, normal, uv and colour welded, influences in their joints' spaces.
fn convert_instance(
    node: &ufbx::Node,
    mesh: &ufbx::Mesh,
    joint: usize,
    bones: &JointTable,
    materials: &Materials,
    rest_world: &[Affine3A],
) -> Converted {
    let blends = !Blends::of(mesh).is_empty();
    let rig = Rig::of(mesh, joint, node, bones);
    let mut parts = Vec::new();
    let mut triangle = vec![0u32; mesh.max_face_triangles * 3];
    let mut fanned = 0;
    let mut welded = Welded::new(mesh.num_vertices);
    let corners_of = Corners::of(mesh);
    for part in mesh.material_parts.iter() {
        let material = materials.find(mesh, part.index);
        let mut out = Mesh { name: node.element.name.to_string(), ..Mesh::default() };
        welded.next_part();
        // The triangle corner each vertex is made from.
        let mut sources: Vec<u32> = Vec::new();
        for &face in part.face_indices.iter() {
            let Some(&face) = mesh.faces.get(face as usize) else { continue };
            fanned += usize::from(face.num_indices > MAX_EAR_CLIPPED_CORNERS);
            for tri in triangulate(&mut triangle, mesh, face).chunks_exact(3) {
                let mut corners = [0u32; 3];
                for (corner, &ix) in corners.iter_mut().zip(tri) {
                    let attribute = |indices: &[u32]| indices.get(ix as usize).copied().unwrap_or(0);
                    let key = (
                        attribute(&mesh.vertex_indices),
                        attribute(&mesh.vertex_normal.indices),
                        attribute(&mesh.vertex_uv.indices),
                        attribute(&mesh.vertex_color.indices),
                    );
                    *corner = welded.vertex(key, || {
                        sources.push(ix);
                        sources.len() as u32 - 1
                    });
                }
                out.indices.push(corners);
            }
        }
        let mesh = (!out.indices.is_empty()).then(|| {
            make_vertices(&mut out, &sources, &corners_of, &rig);
            if !blends {
                place_at_rest(&mut out, rest_world);
            }
            out
        });
        let sources = if blends { sources } else { Vec::new() };
        parts.push(ConvertedPart { material, mesh, sources });
    }
    Converted { parts, fanned }
}

/// The vertices the current part has made, by their corners' indices (control point, normal,
/// uv, colour): the first made of each control point in a table by control point (most
/// corners weld to that one, found without hashing), the rest in a map.
struct Welded {
    /// Per control point, the first vertex the part made of it (`u32::MAX`: none). Kept from
    /// part to part, emptied of what the part set.
    first_of: Vec<u32>,
    /// The control points whose first vertex the part set.
    firsts: Vec<u32>,
    /// Each vertex's normal, uv and colour indices, by vertex.
    attributes: Vec<(u32, u32, u32)>,
    /// The other vertices, by control point and attribute indices.
    others: foldhash::HashMap<(u32, u32, u32, u32), u32>,
}

impl Welded {
    /// Welding for a mesh of `points` control points.
    fn new(points: usize) -> Welded {
        Welded {
            first_of: vec![u32::MAX; points],
            firsts: Vec::new(),
            attributes: Vec::new(),
            others: foldhash::HashMap::default(),
        }
    }

    /// Forgets the vertices made so far: the next part numbers its own from 0.
    fn next_part(&mut self) {
        for &point in &self.firsts {
            if let Some(first) = self.first_of.get_mut(point as usize) {
                *first = u32::MAX;
            }
        }
        self.firsts.clear();
        self.attributes.clear();
        self.others.clear();
    }

    /// The vertex made of `key`, made by `make` (which returns the next vertex) if there is
    /// none yet.
    fn vertex(&mut self, key: (u32, u32, u32, u32), make: impl FnOnce() -> u32) -> u32 {
        let (point, normal, uv, colour) = key;
        let first = self.first_of.get_mut(point as usize);
        let v = match first {
            Some(first) if *first == u32::MAX => {
                self.firsts.push(point);
                *first = make();
                *first
            }
            Some(first) if self.attributes.get(*first as usize) == Some(&(normal, uv, colour)) => return *first,
            _ => match self.others.entry(key) {
                Entry::Occupied(e) => return *e.get(),
                Entry::Vacant(e) => *e.insert(make()),
            },
        };
        self.attributes.push((normal, uv, colour));
        v
    }
}

/// The largest face ufbx's triangulation (ear clipping, quadratic in the corners) is given:
/// a face of 400,000 corners took 108 s. Real polygons have tens of corners.
const MAX_EAR_CLIPPED_CORNERS: u32 = 1024;

/// The triangles of `face` as corner indices of `mesh`, in `buffer` (room for the largest
/// face's): ufbx's ear clipping, or a fan from the first corner for a face of more than
/// [`MAX_EAR_CLIPPED_CORNERS`] corners, in time linear in its corners.
fn triangulate<'b>(buffer: &'b mut [u32], mesh: &ufbx::Mesh, face: ufbx::Face) -> &'b [u32] {
    let count = if face.num_indices > MAX_EAR_CLIPPED_CORNERS {
        let first = face.index_begin;
        let fan = (1..face.num_indices - 1).flat_map(|k| [first, first + k, first + k + 1]);
        buffer.iter_mut().zip(fan).map(|(slot, corner)| *slot = corner).count() / 3
    } else {
        ufbx::triangulate_face(buffer, mesh, face) as usize
    };
    buffer.get(..count * 3).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Welding numbers vertices as one map of every key would: in the order their keys first
    /// come, part by part, whichever control point (in range or not) they name.
    #[test]
    fn welded_vertices_are_numbered_by_first_use_in_each_part() {
        let mut welded = Welded::new(16);
        let mut seed = 7u32;
        let mut next = |range: u32| {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (seed >> 16) % range
        };
        for _part in 0..3 {
            welded.next_part();
            let mut reference = HashMap::new();
            let mut made = 0;
            for _corner in 0..400 {
                // Control points 0..20, four of them past the table; few normals and uvs, so
                // keys repeat both on a point's first vertex and on its others.
                let key = (next(20), next(3), next(2), 0);
                let count = reference.len() as u32;
                let expected = *reference.entry(key).or_insert(count);
                let v = welded.vertex(key, || {
                    made += 1;
                    made - 1
                });
                assert_eq!(v, expected, "{key:?}");
            }
            assert_eq!(made as usize, reference.len());
            welded.next_part();
            assert!(welded.first_of.iter().all(|&f| f == u32::MAX), "every part starts afresh");
        }
    }
}
