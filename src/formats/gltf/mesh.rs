//! Primitives, skins, morph targets and materials → [`Mesh`]es and [`Material`]s.

use std::sync::Arc;

use glam::{Affine3A, Mat3, Vec2, Vec3};
use gltf::accessor::Dimensions;
use gltf::mesh::Mode;

use super::buffers::{Buffers, data_uri, uri_to_file_name};
use super::{Nodes, err};
use crate::budget::MemoryBudget;
use crate::formats::colour::vertex_colour;
use crate::formats::{FormatError, Limits, textures};
use crate::model::{AlphaMode, Influence, Material, Mesh, MinFilter, Model, MorphTarget, Texture, TextureStatus};

/// Cap on vertices (counting each morph target and triangle corner as one more) over all mesh
/// instances: a small file instancing a big mesh from many nodes, or naming one accessor as
/// many morph targets, must not allocate without bound. Real characters use well under 1%.
const MAX_TOTAL_VERTICES: usize = 1 << 23;

/// The model meshes each glTF node produced (by node index), for morph-weight channels.
pub(super) type Instances = Vec<Vec<usize>>;

/// One vertex's joints and weights after normalising, before joint-space conversion.
type Weights = Vec<(usize, f32)>;

/// Adds materials and every node's primitives to `model`.
pub(super) fn build(
    doc: &gltf::Document,
    buffers: &Buffers,
    nodes: &Nodes,
    skinned: bool,
    limits: &Limits,
    budget: &MemoryBudget,
    model: &mut Model,
) -> crate::Result<Instances> {
    model.materials = materials(doc, buffers, limits, budget, &mut model.warnings)?;
    // Primitives without a material share one plain white material, added when first needed.
    let mut default_material = None;
    let mut instances: Instances = vec![Vec::new(); doc.nodes().len()];
    let all_nodes: Vec<gltf::Node> = doc.nodes().collect();
    // Checked on the accessors' declared counts over every instance, before anything is read.
    let total = nodes
        .order
        .iter()
        .filter_map(|&n| all_nodes.get(n)?.mesh())
        .flat_map(|m| m.primitives())
        .map(|p| {
            let vertices = p.get(&gltf::Semantic::Positions).map_or(0, |a| a.count());
            vertices.saturating_mul(1 + p.morph_targets().len()).saturating_add(p.indices().map_or(0, |a| a.count()))
        })
        .fold(0usize, usize::saturating_add);
    if total > MAX_TOTAL_VERTICES {
        return Err(err(format!(
            "the scene's mesh instances add up to {total} vertices, morph-target vertices and indices, more than the {MAX_TOTAL_VERTICES} allowed"
        ))
        .into());
    }
    // What each vertex costs once built and posed: position, normal, uv, colour, influence
    // range, up to four influences, and the posed position and normal of a frame.
    const VERTEX_BYTES: u64 = 12 + 12 + 8 + 16 + 8 + 4 * 32 + 24;
    budget.charge((total as u64).saturating_mul(VERTEX_BYTES), || {
        format!("glTF: {total} vertices over its mesh instances")
    })?;
    // Nodes that share a skin share its joints and inverse bind matrices: read each skin's
    // accessor once, not once per node.
    let mut skins: Vec<Option<std::rc::Rc<Skin>>> = vec![None; doc.skins().len()];
    for (joint, &n) in nodes.order.iter().enumerate() {
        let Some(node) = all_nodes.get(n) else { continue };
        let Some(gmesh) = node.mesh() else { continue };
        let skin = match node.skin() {
            Some(s) => match skins.get_mut(s.index()) {
                Some(Some(read)) => Some(read.clone()),
                Some(slot) => Some(slot.insert(std::rc::Rc::new(Skin::read(&s, buffers, nodes)?)).clone()),
                None => return Err(err(format!("skin {} does not exist", s.index())).into()),
            },
            None => None,
        };
        let default_weights = node.weights().or(gmesh.weights()).unwrap_or(&[]);
        for (p, prim) in gmesh.primitives().enumerate() {
            let what = format!("mesh {} '{}' primitive {p}", gmesh.index(), gmesh.name().unwrap_or(""));
            let Some(raw) = Primitive::read(&prim, buffers, &what, &mut model.warnings)? else { continue };
            let material = match prim.material().index() {
                Some(m) => m,
                None => *default_material.get_or_insert_with(|| {
                    model.materials.push(Material::named("default"));
                    model.materials.len() - 1
                }),
            };
            let mut mesh = if skinned {
                let weights = match &skin {
                    Some(skin) => raw.skin_weights(&prim, buffers, skin, &what)?,
                    None => vec![vec![(joint, 1.0)]; raw.positions.len()],
                };
                let bind = |j: usize| {
                    skin.as_ref().and_then(|s| s.inverse_bind.get(&j)).copied().unwrap_or(Affine3A::IDENTITY)
                };
                raw.bound(&weights, bind, default_weights, &nodes.world)
            } else {
                raw.baked(nodes.world.get(joint).copied().unwrap_or(Affine3A::IDENTITY), default_weights)
            };
            mesh.name = gmesh.name().map_or_else(|| format!("mesh{}", gmesh.index()), str::to_string);
            mesh.material = material;
            if let Some(list) = instances.get_mut(n) {
                list.push(model.meshes.len());
            }
            model.meshes.push(mesh);
        }
    }
    Ok(instances)
}

/// A skin: for each skin joint, the skeleton joint and its inverse bind matrix.
struct Skin {
    index: usize,
    /// Skeleton joint of each skin joint.
    joints: Vec<usize>,
    /// Inverse bind matrix by skeleton joint.
    inverse_bind: std::collections::HashMap<usize, Affine3A>,
}

impl Skin {
    fn read(skin: &gltf::Skin, buffers: &Buffers, nodes: &Nodes) -> Result<Skin, FormatError> {
        let index = skin.index();
        let joints = skin
            .joints()
            .map(|j| {
                nodes.joint_of.get(j.index()).copied().flatten().ok_or_else(|| {
                    err(format!("skin {index}: joint node {} is not part of the scene's hierarchy", j.index()))
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let matrices = match skin.inverse_bind_matrices() {
            Some(a) => buffers.floats(&a, &[Dimensions::Mat4], &format!("inverse bind matrices of skin {index}"))?,
            None => Vec::new(),
        };
        if !matrices.is_empty() && matrices.len() < joints.len() * 16 {
            return Err(err(format!(
                "skin {index}: {} inverse bind matrices for {} joints",
                matrices.len() / 16,
                joints.len()
            )));
        }
        let mut inverse_bind = std::collections::HashMap::new();
        for (i, &j) in joints.iter().enumerate() {
            let Some(m) = matrices.get(i * 16..i * 16 + 16) else { continue };
            let m = glam::Mat4::from_cols_slice(m);
            if !m.is_finite() {
                return Err(err(format!("skin {index}: inverse bind matrix {i} is not finite")));
            }
            inverse_bind.insert(j, Affine3A::from_mat4(m));
        }
        Ok(Skin { index, joints, inverse_bind })
    }
}

/// One primitive's vertex data as stored (bind space).
struct Primitive {
    positions: Vec<Vec3>,
    normals: Vec<Vec3>,
    uvs: Vec<Vec2>,
    /// `COLOR_0`, linear RGBA; empty without it.
    colors: Vec<[f32; 4]>,
    indices: Vec<[u32; 3]>,
    /// Position and normal offsets per morph target.
    targets: Vec<(Vec<Vec3>, Vec<Vec3>)>,
}

fn vec3s(v: Vec<f32>) -> Vec<Vec3> {
    v.chunks_exact(3).map(Vec3::from_slice).collect()
}

impl Primitive {
    /// Reads a primitive; `None` (with a warning) for points and lines, which have no area.
    fn read(
        prim: &gltf::Primitive,
        buffers: &Buffers,
        what: &str,
        warnings: &mut Vec<String>,
    ) -> Result<Option<Primitive>, FormatError> {
        let mode = prim.mode();
        if !matches!(mode, Mode::Triangles | Mode::TriangleStrip | Mode::TriangleFan) {
            warnings.push(format!("{what}: {mode:?} primitives are not drawn"));
            return Ok(None);
        }
        let attribute = |semantic: gltf::Semantic| prim.get(&semantic);
        let position = attribute(gltf::Semantic::Positions).ok_or_else(|| err(format!("{what} has no POSITION")))?;
        let positions = vec3s(buffers.floats(&position, &[Dimensions::Vec3], &format!("POSITION of {what}"))?);
        let n = positions.len();
        let per_vertex = |values: Vec<f32>, width: usize, name: &str| {
            if values.len() == n * width {
                Ok(values)
            } else {
                Err(err(format!("{what}: {name} has {} elements for {n} vertices", values.len() / width)))
            }
        };
        let indices: Vec<u32> = match prim.indices() {
            Some(a) => buffers.uints(&a, &[Dimensions::Scalar], &format!("indices of {what}"))?,
            None => (0..n as u32).collect(),
        };
        if let Some(bad) = indices.iter().find(|&&i| i as usize >= n) {
            return Err(err(format!("{what}: index {bad} is past the {n} vertices")));
        }
        let normals = match attribute(gltf::Semantic::Normals) {
            Some(a) => {
                vec3s(per_vertex(buffers.floats(&a, &[Dimensions::Vec3], &format!("NORMAL of {what}"))?, 3, "NORMAL")?)
            }
            None => Vec::new(),
        };
        let (set, transform) = uv_mapping(prim);
        let uvs = match attribute(gltf::Semantic::TexCoords(set)) {
            Some(a) => {
                let name = format!("TEXCOORD_{set}");
                per_vertex(buffers.floats(&a, &[Dimensions::Vec2], &format!("{name} of {what}"))?, 2, &name)?
                    .chunks_exact(2)
                    .map(|uv| transform.transform_point2(Vec2::from_slice(uv)))
                    .collect()
            }
            None => vec![Vec2::ZERO; n],
        };
        let colors = match attribute(gltf::Semantic::Colors(0)) {
            Some(a) => {
                let width = if a.dimensions() == Dimensions::Vec3 { 3 } else { 4 };
                let values =
                    buffers.floats(&a, &[Dimensions::Vec3, Dimensions::Vec4], &format!("COLOR_0 of {what}"))?;
                let rgba = |c: &[f32]| [0, 1, 2, 3].map(|i| c.get(i).copied().unwrap_or(1.0));
                per_vertex(values, width, "COLOR_0")?
                    .chunks_exact(width)
                    .map(|c| vertex_colour(rgba(c), false))
                    .collect()
            }
            None => Vec::new(),
        };
        let mut targets = Vec::new();
        for (t, target) in prim.morph_targets().enumerate() {
            let read = |a: Option<gltf::Accessor>, name: &str| -> Result<Vec<Vec3>, FormatError> {
                match a {
                    Some(a) => {
                        let label = format!("morph target {t} {name} of {what}");
                        Ok(vec3s(per_vertex(buffers.floats(&a, &[Dimensions::Vec3], &label)?, 3, &label)?))
                    }
                    None => Ok(vec![Vec3::ZERO; n]),
                }
            };
            targets.push((read(target.positions(), "POSITION")?, read(target.normals(), "NORMAL")?));
        }
        let triangles = triangles(mode, &indices);
        let normals = if normals.is_empty() { Mesh::compute_normals(&positions, &triangles) } else { normals };
        Ok(Some(Primitive { positions, normals, uvs, colors, indices: triangles, targets }))
    }

    /// JOINTS_n / WEIGHTS_n pairs → per-vertex skeleton joints and normalised weights.
    fn skin_weights(
        &self,
        prim: &gltf::Primitive,
        buffers: &Buffers,
        skin: &Skin,
        what: &str,
    ) -> Result<Vec<Weights>, FormatError> {
        let n = self.positions.len();
        let mut out: Vec<Weights> = vec![Vec::new(); n];
        for set in 0..2 {
            let (Some(ja), Some(wa)) =
                (prim.get(&gltf::Semantic::Joints(set)), prim.get(&gltf::Semantic::Weights(set)))
            else {
                continue;
            };
            let joints = buffers.uints(&ja, &[Dimensions::Vec4], &format!("JOINTS_{set} of {what}"))?;
            let weights = buffers.floats(&wa, &[Dimensions::Vec4], &format!("WEIGHTS_{set} of {what}"))?;
            if joints.len() != n * 4 || weights.len() != n * 4 {
                return Err(err(format!("{what}: JOINTS_{set}/WEIGHTS_{set} do not have one entry per vertex")));
            }
            for (v, (js, ws)) in joints.chunks_exact(4).zip(weights.chunks_exact(4)).enumerate() {
                for (&j, &w) in js.iter().zip(ws) {
                    if !(w > 0.0 && w.is_finite()) {
                        continue;
                    }
                    let joint = skin.joints.get(j as usize).copied().ok_or_else(|| {
                        err(format!(
                            "{what}: vertex {v} JOINTS_{set} names joint {j}, but skin {} has only {} joints",
                            skin.index,
                            skin.joints.len()
                        ))
                    })?;
                    if let Some(list) = out.get_mut(v) {
                        list.push((joint, w));
                    }
                }
            }
        }
        for list in &mut out {
            let sum: f32 = list.iter().map(|(_, w)| w).sum();
            if sum > 0.0 {
                list.iter_mut().for_each(|(_, w)| *w /= sum);
            } else if let Some(&first) = skin.joints.first() {
                // An unweighted vertex (invalid, but exporters write them) follows the skin root.
                list.push((first, 1.0));
            }
        }
        Ok(out)
    }

    /// Positions and normals with the default morph weights applied.
    fn morphed(&self, weights: &[f32]) -> (Vec<Vec3>, Vec<Vec3>) {
        let mut p = self.positions.clone();
        let mut n = self.normals.clone();
        for ((dp, dn), &w) in self.targets.iter().zip(weights).filter(|(_, w)| **w != 0.0) {
            p.iter_mut().zip(dp).for_each(|(p, d)| *p += *d * w);
            n.iter_mut().zip(dn).for_each(|(n, d)| *n += *d * w);
        }
        (p, n.into_iter().map(|n| n.try_normalize().unwrap_or(Vec3::Z)).collect())
    }

    /// A rigid mesh: the node's model-space transform baked in (morph targets at their
    /// default weights, since nothing can animate them without a skeleton).
    fn baked(self, world: Affine3A, weights: &[f32]) -> Mesh {
        let (p, n) = self.morphed(weights);
        let normal_matrix = Mat3::from(world.matrix3).inverse().transpose();
        let mut indices = self.indices;
        if world.matrix3.determinant() < 0.0 {
            // A mirroring transform turns counter-clockwise triangles clockwise.
            indices.iter_mut().for_each(|t| t.swap(1, 2));
        }
        Mesh {
            positions: p.iter().map(|&v| world.transform_point3(v)).collect(),
            normals: n.iter().map(|&v| (normal_matrix * v).try_normalize().unwrap_or(Vec3::Z)).collect(),
            uvs: self.uvs,
            colors: self.colors,
            indices,
            ..Mesh::default()
        }
    }

    /// A skeleton-bound mesh: influences in joint space (`inverse_bind · vertex`), morph offsets
    /// per influence, rest positions skinned with the rest pose.
    fn bound(
        self,
        weights: &[Weights],
        bind: impl Fn(usize) -> Affine3A,
        default_weights: &[f32],
        rest_world: &[Affine3A],
    ) -> Mesh {
        let (rest_p, rest_n) = self.morphed(default_weights);
        let mut mesh = Mesh {
            uvs: self.uvs.clone(),
            colors: self.colors.clone(),
            indices: self.indices.clone(),
            morph_targets: vec![MorphTarget::default(); self.targets.len()],
            morph_weights: default_weights.iter().copied().take(self.targets.len()).collect(),
            ..Mesh::default()
        };
        for (v, list) in weights.iter().enumerate() {
            let start = mesh.influences.len() as u32;
            let (mut sp, mut sn) = (Vec3::ZERO, Vec3::ZERO);
            let at = |a: &[Vec3]| a.get(v).copied().unwrap_or(Vec3::ZERO);
            for &(joint, weight) in list {
                let ib = bind(joint);
                let linear = Mat3::from(ib.matrix3);
                mesh.influences.push(Influence {
                    joint: joint as u32,
                    weight,
                    position: ib.transform_point3(at(&self.positions)),
                    normal: linear * at(&self.normals),
                });
                for (target, (dp, dn)) in mesh.morph_targets.iter_mut().zip(&self.targets) {
                    target.positions.push(linear * at(dp));
                    target.normals.push(linear * at(dn));
                }
                let m = rest_world.get(joint).copied().unwrap_or(Affine3A::IDENTITY) * ib;
                sp += m.transform_point3(at(&rest_p)) * weight;
                sn += m.transform_vector3(at(&rest_n)) * weight;
            }
            mesh.influence_ranges.push(start..mesh.influences.len() as u32);
            mesh.positions.push(sp);
            mesh.normals.push(sn.try_normalize().unwrap_or(Vec3::Z));
        }
        mesh
    }
}

/// The UV set the base colour texture reads and its `KHR_texture_transform`
/// (`T(offset) · R(rotation) · S(scale)`, rotation counter-clockwise in UV space), baked into
/// the mesh's UVs since each mesh has one material.
fn uv_mapping(prim: &gltf::Primitive) -> (u32, glam::Affine2) {
    let Some(info) = prim.material().pbr_metallic_roughness().base_color_texture() else {
        return (0, glam::Affine2::IDENTITY);
    };
    let Some(t) = info.texture_transform() else { return (info.tex_coord(), glam::Affine2::IDENTITY) };
    let (sin, cos) = t.rotation().sin_cos();
    let [sx, sy] = t.scale();
    // Columns of the extension's 3×3 matrix: u' = cos·sx·u + sin·sy·v + ox, v' = −sin·sx·u + cos·sy·v + oy.
    let m =
        glam::Affine2::from_cols(Vec2::new(cos * sx, -sin * sx), Vec2::new(sin * sy, cos * sy), Vec2::from(t.offset()));
    (t.tex_coord().unwrap_or(info.tex_coord()), if m.is_finite() { m } else { glam::Affine2::IDENTITY })
}

/// Index list → triangles for the three triangle modes (counter-clockwise kept).
fn triangles(mode: Mode, i: &[u32]) -> Vec<[u32; 3]> {
    match mode {
        Mode::TriangleStrip => i
            .windows(3)
            .enumerate()
            .map(|(k, w)| if k % 2 == 0 { [w[0], w[1], w[2]] } else { [w[1], w[0], w[2]] })
            .collect(),
        Mode::TriangleFan => match i.split_first() {
            Some((&c, rest)) => rest.windows(2).map(|w| [c, w[0], w[1]]).collect(),
            None => Vec::new(),
        },
        _ => i.chunks_exact(3).map(|t| [t[0], t[1], t[2]]).collect(),
    }
}

/// Materials in file order. Embedded images are decoded here; external ones are left to the
/// texture resolver by name.
/// Each image decoded is charged to `budget` (once, however many materials use it).
fn materials(
    doc: &gltf::Document,
    buffers: &Buffers,
    limits: &Limits,
    budget: &MemoryBudget,
    warnings: &mut Vec<String>,
) -> crate::Result<Vec<Material>> {
    let mut images: Vec<Option<Result<Arc<Texture>, String>>> = vec![None; doc.images().len()];
    doc.materials()
        .map(|m| -> crate::Result<Material> {
            let name = m.name().map_or_else(|| format!("material{}", m.index().unwrap_or(0)), str::to_string);
            let pbr = m.pbr_metallic_roughness();
            let mut material = Material {
                base_color: pbr.base_color_factor(),
                alpha_mode: match m.alpha_mode() {
                    gltf::material::AlphaMode::Opaque => AlphaMode::Opaque,
                    gltf::material::AlphaMode::Mask => AlphaMode::Mask(m.alpha_cutoff().unwrap_or(0.5)),
                    gltf::material::AlphaMode::Blend => AlphaMode::Blend,
                },
                // The spec's back-face culling applies only where `doubleSided` is false.
                two_sided: m.double_sided(),
                unlit: m.unlit(),
                ..Material::named(name.clone())
            };
            let Some(info) = pbr.base_color_texture() else { return Ok(material) };
            let texture = info.texture();
            // Repeat and mirrored repeat both tile; only clamp-to-edge clamps.
            let sampler = texture.sampler();
            material.wrap = sampler.wrap_s() != gltf::texture::WrappingMode::ClampToEdge;
            material.nearest = sampler.mag_filter() == Some(gltf::texture::MagFilter::Nearest);
            material.minify = sampler.min_filter().map(|f| {
                use gltf::texture::MinFilter as F;
                match f {
                    F::Nearest => MinFilter::Nearest,
                    F::Linear => MinFilter::Linear,
                    _ => MinFilter::Mipmapped,
                }
            });
            let image = texture.source();
            let label = match image.name() {
                Some(name) => format!("embedded image {} '{name}'", image.index()),
                None => format!("embedded image {}", image.index()),
            };
            let bytes = match image.source() {
                gltf::image::Source::View { view, .. } => {
                    buffers.view(&view).map(<[u8]>::to_vec).map_err(|e| e.message)
                }
                gltf::image::Source::Uri { uri, .. } => match data_uri(uri) {
                    Some(decoded) => decoded,
                    None => {
                        material.texture_name = Some(uri_to_file_name(uri));
                        return Ok(material);
                    }
                },
            };
            let decoded = match images.get_mut(image.index()) {
                Some(Some(decoded)) => decoded.clone(),
                Some(slot) => {
                    let path = std::path::Path::new(&label);
                    let decoded = match bytes {
                        Ok(b) => textures::split_budget(
                            textures::decode_image_within(&b, path, limits.max_texture_side, budget).map(Arc::new),
                        )?,
                        Err(reason) => Err(reason),
                    };
                    slot.insert(decoded).clone()
                }
                None => Err("image index out of range".into()),
            };
            match decoded {
                Ok(t) => {
                    material.texture = Some(t);
                    material.texture_status = TextureStatus::Embedded(label);
                }
                Err(reason) => {
                    warnings.push(format!("{label} for material '{name}': {reason}"));
                    material.texture = Some(Arc::new(Texture::missing()));
                    material.texture_status = TextureStatus::Missing { name: label, reason };
                }
            }
            Ok(material)
        })
        .collect()
}
