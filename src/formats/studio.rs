//! Half-Life studio models (`.mdl`, `IDST` version 10), as studiomdl compiles them from a QC,
//! read directly (binary, little-endian; layouts as the Half-Life SDK's `studio.h`):
//!
//! * **Bones** (112 bytes each): name, parent, and six default values (position, then Euler
//!   angles X, Y, Z in radians, turned as Z · Y · X like an SMD line) with six scales for the
//!   animation values. Bone controllers stay at rest.
//! * **Sequences** (176 bytes): name, fps, flags (`STUDIO_LOOPING`, else the clip plays once),
//!   frame count, blend count (the first blend is played) and the offset of its animation,
//!   in this file or in the sequence group file it names (`models\man01.mdl`: looked for by
//!   its file name beside the model; `IDSQ` header). Each bone's six channels are run-length
//!   encoded values (`valid`, `total`, then the values; a run holds its last value), decoded
//!   once per channel; a channel offset of 0 is all zeros. A pose value is
//!   `default + value · scale`. studiomdl took the travel of `LX`/`LY`/`LZ` sequences out
//!   of the roots into `linearmovement`; it is put back, and the `motiontype` marks recorded,
//!   so sequences play in place or travel exactly as their `.qc` compiled from source does.
//!   A name an earlier sequence has gets the first free `_1`, `_2` ... suffix, so every clip
//!   can be asked for.
//! * **Meshes**: body parts of models of meshes. Each part shows its first model unless
//!   `--body PART=MODEL` picks another (model names as `info` lists them, `blank` allowed).
//!   Vertices and normals are stored in their bone's space, one bone each; triangles are
//!   strips and fans of (vertex, normal, s, t) in texels, clockwise from the front (reversed).
//! * **Textures**: 8-bit images with their own 256-colour palettes, in this file or in
//!   `<name>T.mdl` when this one has none; flags `masked` (palette entry 255 transparent),
//!   `additive` (added to what is behind) and `chrome` (an environment map whose texture
//!   coordinates follow the view, as Half-Life draws it: see `bake::chrome`). The skin table
//!   maps meshes to textures: its first family, or the one `--skin N` picks.
//! * **Attachments** become attachment points (`FILE@NAME`, or `FILE@INDEX` when unnamed).
//!
//! Compiled MDLs face +X with +Z up, as studiomdl turns them. Every offset and count is
//! checked against the file before use; frames, vertices and textures are charged to the
//! budget before they are allocated.

use std::collections::HashMap;
use std::sync::Arc;

use glam::{Affine3A, Quat, Vec2, Vec3};

use super::BodyChoice;
use super::binary::Bytes;
use crate::budget::{MemoryBudget, bytes_for};
use crate::error::{Error, FormatError};
use crate::model::{
    AlphaMode, AttachmentPoint, Clip, ClipFrames, Influence, Joint, JointPose, MarkedMotion, Material, Mesh, Model,
    Orientation, Skeleton, Texture, TextureStatus, unique_clip_name,
};

const FORMAT: &str = "Half-Life MDL";
const HEADER_BYTES: usize = 244;
const BONE_BYTES: usize = 112;
const SEQUENCE_BYTES: usize = 176;
const GROUP_BYTES: usize = 104;
const TEXTURE_BYTES: usize = 80;
const BODY_PART_BYTES: usize = 76;
const MODEL_BYTES: usize = 112;
const MESH_BYTES: usize = 20;
const ATTACHMENT_BYTES: usize = 88;
/// A sequence group file's header (`IDSQ`, version, name, length).
const GROUP_HEADER_BYTES: usize = 72;

/// Half-Life's engine allows 128 bones, 2048 sequences and 100 textures; community tools
/// more. These limits are far above real models and far below what a hostile header claims.
const MAX_BONES: usize = 256;
const MAX_SEQUENCES: usize = 4096;
const MAX_GROUPS: usize = 256;
const MAX_TEXTURES: usize = 1024;
const MAX_BODY_PARTS: usize = 64;
const MAX_MODELS: usize = 256;
const MAX_MESHES: usize = 4096;
const MAX_VERTICES: usize = 1 << 16;
const MAX_FRAMES: usize = 1 << 16;
const MAX_ATTACHMENTS: usize = 512;
const MAX_SKIN_FAMILIES: usize = 256;

const STUDIO_LOOPING: i32 = 0x1;
/// `motiontype` bits of a sequence's linear travel on X, Y and Z (`LX`, `LY`, `LZ` in the QC).
const STUDIO_LINEAR: [i32; 3] = [0x40, 0x80, 0x100];
const NF_CHROME: i32 = 0x2;
const NF_ADDITIVE: i32 = 0x20;
const NF_MASKED: i32 = 0x40;

/// Whether `head` starts a Half-Life studio model or one of its sequence group files.
pub fn is_studio_model(head: &[u8]) -> bool {
    head.starts_with(b"IDST") || head.starts_with(b"IDSQ")
}

/// What a studio file that holds part of a model is (a sequence group, `IDSQ`, or a texture
/// file, `IDST` without bones or body parts), in a few words; `None` for a model.
pub fn part_of_a_model(bytes: &[u8]) -> Option<&'static str> {
    let r = Bytes::new(FORMAT, bytes);
    match r.bytes(0, 4).ok()? {
        b"IDSQ" => Some("Half-Life sequence group (animations of the model that names it)"),
        b"IDST" if r.i32(140).ok()? == 0 && r.i32(204).ok()? == 0 => {
            Some("Half-Life texture file (the textures of the model of its name without T)")
        }
        _ => None,
    }
}

/// Parses a Half-Life studio model. `load` reads a file beside the model by name (its
/// textures file `<stem>T.mdl`, its sequence groups), `None` when missing; `stem` is the model
/// file's name without extension; `bodies` pick body part models and `family` the skin family.
///
/// # Errors
/// A malformed file (the message names the byte offset), a sequence group file passed as the
/// model, an unknown body part or model, a skin family the model lacks, the limits above, or
/// the budget.
pub fn parse_within(
    bytes: &[u8],
    stem: &str,
    load: &mut dyn FnMut(&str) -> Option<Arc<Vec<u8>>>,
    (bodies, family): (&[BodyChoice], usize),
    max_texture_side: u32,
    budget: &MemoryBudget,
) -> crate::Result<Model> {
    let r = Bytes::new(FORMAT, bytes);
    match r.bytes(0, 4)? {
        b"IDST" => {}
        b"IDSQ" => {
            return Err(r.err(0, "a sequence group file (IDSQ): load the model it belongs to").into());
        }
        other => return Err(r.err(0, format!("expected the magic IDST, found {other:?}")).into()),
    }
    let version = r.i32(4)?;
    if version != 10 {
        return Err(r.err(4, format!("expected studio model version 10, found {version}")).into());
    }
    r.bytes(0, HEADER_BYTES)?;
    let mut model = Model { orientation: Orientation::Z_UP_FACING_X, ..Model::default() };
    let (skeleton, channels) = bones(&r)?;
    let rest_world = skeleton.to_model_space(&skeleton.rest_pose());
    let mut textures_file = None;
    if r.i32(180)? == 0 {
        textures_file = load(&format!("{stem}T.mdl"));
        if textures_file.is_none() {
            model.warnings.push(format!("{stem}T.mdl, which holds the model's textures, was not found"));
        }
    }
    let texture_source = textures_file.as_deref().map_or(r, |t| Bytes::new(FORMAT, t));
    let (materials, skins) = textures(&texture_source, family, max_texture_side, budget)?;
    model.materials = materials;
    meshes(&r, &skeleton, &rest_world, &skins, bodies, budget, &mut model)?;
    (model.clips, model.marked_motion) = sequences(&r, &skeleton, &channels, load, budget, &mut model.warnings)?;
    model.attachment_points = attachments(&r, skeleton.joints.len())?;
    model.skeleton = Some(skeleton);
    Ok(model)
}

/// A header count at `field` and the offset after it, with the records checked to lie in the
/// file.
fn table(r: &Bytes, field: usize, max: usize, record: usize, what: &str) -> Result<(usize, usize), FormatError> {
    let count = r.count(field, 0, max, what)?;
    let offset = r.count(field + 4, 0, i32::MAX as usize, &format!("{what} offset"))?;
    r.fits(field, offset, count, record, what)?;
    Ok((count, offset))
}

/// The Z · Y · X rotation of Euler angles (radians), as studiomdl's `AngleQuaternion`.
fn angles(x: f32, y: f32, z: f32) -> Quat {
    Quat::from_rotation_z(z) * Quat::from_rotation_y(y) * Quat::from_rotation_x(x)
}

/// A bone's six default values and six scales.
struct BoneChannels {
    value: [f32; 6],
    scale: [f32; 6],
}

fn bone_channels(r: &Bytes, at: usize) -> Result<BoneChannels, FormatError> {
    let mut channels = BoneChannels { value: [0.0; 6], scale: [0.0; 6] };
    for j in 0..6 {
        channels.value[j] = r.f32(at + 64 + 4 * j)?;
        channels.scale[j] = r.f32(at + 88 + 4 * j)?;
    }
    Ok(channels)
}

/// The skeleton at rest, and each bone's animation channels.
fn bones(r: &Bytes) -> Result<(Skeleton, Vec<BoneChannels>), FormatError> {
    let (count, offset) = table(r, 140, MAX_BONES, BONE_BYTES, "bone")?;
    let mut joints = Vec::with_capacity(count);
    let mut channels = Vec::with_capacity(count);
    for i in 0..count {
        let at = offset + i * BONE_BYTES;
        let parent = r.i32(at + 32)?;
        let parent = match usize::try_from(parent) {
            Ok(p) if p < i => Some(p),
            Err(_) if parent == -1 => None,
            _ => return Err(r.err(at + 32, format!("bone {i}: parent {parent} is not an earlier bone or -1"))),
        };
        let c = bone_channels(r, at)?;
        let name = match r.name(at, 32)? {
            name if name.is_empty() => format!("bone{i}"),
            name => name,
        };
        let rest = JointPose {
            translation: Vec3::new(c.value[0], c.value[1], c.value[2]),
            rotation: angles(c.value[3], c.value[4], c.value[5]),
            scale: Vec3::ONE,
        };
        joints.push(Joint { name, parent, rest });
        channels.push(c);
    }
    Ok((Skeleton { joints }, channels))
}

/// The materials, one per texture (a plain one when there are none), and skin family
/// `family`: the texture of each skin reference.
fn textures(
    r: &Bytes,
    family: usize,
    max_side: u32,
    budget: &MemoryBudget,
) -> crate::Result<(Vec<Material>, Vec<usize>)> {
    let (count, offset) = table(r, 180, MAX_TEXTURES, TEXTURE_BYTES, "texture")?;
    let mut materials = Vec::with_capacity(count.max(1));
    for i in 0..count {
        let at = offset + i * TEXTURE_BYTES;
        let name = r.name(at, 64)?;
        let flags = r.i32(at + 64)?;
        let max = max_side as usize;
        let width = r.count(at + 68, 1, max, "texture width")?;
        let height = r.count(at + 72, 1, max, "texture height")?;
        let data = r.count(at + 76, 0, i32::MAX as usize, "texture data offset")?;
        let texels = width * height;
        r.fits(at + 76, data, texels + 768, 1, "texture byte")?;
        budget.charge(Texture::prepared_bytes(width as u32, height as u32), || {
            format!("{FORMAT}: texture '{name}', {width}x{height}")
        })?;
        let indices = r.bytes(data, texels)?;
        let palette = r.bytes(data + texels, 768)?;
        let masked = flags & NF_MASKED != 0;
        let mut rgba = Vec::with_capacity(texels * 4);
        for &i in indices {
            let c = &palette[3 * i as usize..3 * i as usize + 3];
            let alpha = if masked && i == 255 { 0 } else { 255 };
            rgba.extend_from_slice(&[c[0], c[1], c[2], alpha]);
        }
        let texture = Texture::new(width as u32, height as u32, rgba, true)
            .ok_or_else(|| r.err(at + 68, format!("texture '{name}': {width}x{height} is not a texture size")))?;
        let mut material = Material::named(name.clone());
        material.texture = Some(Arc::new(texture));
        material.texture_status = TextureStatus::Embedded(format!("texture {i} '{name}'"));
        if masked {
            material.alpha_mode = AlphaMode::Mask(0.5);
        } else if flags & NF_ADDITIVE != 0 {
            material.alpha_mode = AlphaMode::Additive;
        }
        material.chrome = flags & NF_CHROME != 0;
        materials.push(material);
    }
    let references = r.count(192, 0, MAX_TEXTURES, "skin reference")?;
    let families = r.count(196, 0, MAX_SKIN_FAMILIES, "skin family")?;
    let skin_at = r.count(200, 0, i32::MAX as usize, "skin table offset")?;
    if family > 0 && family >= families {
        let expected = format!("a skin family of this model: 0 to {}", families.saturating_sub(1));
        return Err(Error::bad_option("skin", family.to_string(), expected));
    }
    let mut skins = Vec::with_capacity(references);
    if families > 0 {
        // One row of references a family.
        r.fits(200, skin_at, families * references, 2, "skin reference")?;
        for k in 0..references {
            let texture = r.u16(skin_at + 2 * (family * references + k))? as usize;
            skins.push(if texture < count { texture } else { usize::MAX });
        }
    }
    if materials.is_empty() {
        materials.push(Material::named("default"));
    }
    Ok((materials, skins))
}

/// The meshes of the chosen model of every body part.
fn meshes(
    r: &Bytes,
    skeleton: &Skeleton,
    rest_world: &[Affine3A],
    skins: &[usize],
    bodies: &[BodyChoice],
    budget: &MemoryBudget,
    model: &mut Model,
) -> crate::Result<()> {
    let (parts, offset) = table(r, 204, MAX_BODY_PARTS, BODY_PART_BYTES, "body part")?;
    let mut chosen = vec![false; bodies.len()];
    for p in 0..parts {
        let at = offset + p * BODY_PART_BYTES;
        let part = r.name(at, 64)?;
        // `nummodels`, then `base` (a body number's stride), then `modelindex`.
        let count = r.count(at + 64, 0, MAX_MODELS, "body part model")?;
        let models_at = r.count(at + 72, 0, i32::MAX as usize, "body part model offset")?;
        r.fits(at + 72, models_at, count, MODEL_BYTES, "body part model")?;
        let names = (0..count).map(|m| r.name(models_at + m * MODEL_BYTES, 64)).collect::<Result<Vec<_>, _>>()?;
        let mut pick = 0;
        for (c, choice) in bodies.iter().enumerate().filter(|(_, b)| b.group.eq_ignore_ascii_case(&part)) {
            chosen[c] = true;
            pick = names.iter().position(|n| model_name(n).eq_ignore_ascii_case(&choice.choice)).ok_or_else(|| {
                let list: Vec<&str> = names.iter().map(|n| model_name(n)).collect();
                crate::Error::bad_option(
                    "body",
                    format!("{}={}", choice.group, choice.choice),
                    format!("body part '{part}' has the models {}", list.join(", ")),
                )
            })?;
        }
        if count > 0 {
            model_meshes(r, models_at + pick * MODEL_BYTES, skeleton, rest_world, skins, budget, model)?;
        }
    }
    if let Some(c) = chosen.iter().position(|&c| !c) {
        let names: Vec<String> =
            (0..parts).map(|p| r.name(offset + p * BODY_PART_BYTES, 64)).collect::<Result<_, _>>()?;
        return Err(crate::Error::bad_option(
            "body",
            format!("{}={}", bodies[c].group, bodies[c].choice),
            format!("the model's body parts are {}", names.join(", ")),
        ));
    }
    Ok(())
}

/// A body part model's name as `--body` takes it: without folders and `.smd`, as written in
/// the QC (`blank` for an empty one).
fn model_name(name: &str) -> &str {
    let file = name.rsplit(['/', '\\']).next().unwrap_or(name);
    file.strip_suffix(".smd").or_else(|| file.strip_suffix(".SMD")).unwrap_or(file)
}

/// The meshes of one body part model at `at`.
fn model_meshes(
    r: &Bytes,
    at: usize,
    skeleton: &Skeleton,
    rest_world: &[Affine3A],
    skins: &[usize],
    budget: &MemoryBudget,
    model: &mut Model,
) -> crate::Result<()> {
    let name = r.name(at, 64)?;
    let (mesh_count, meshes_at) = table(r, at + 72, MAX_MESHES, MESH_BYTES, "mesh")?;
    let (vertices, vertex_bones) = table(r, at + 80, MAX_VERTICES, 1, "vertex")?;
    let vertex_at = r.count(at + 88, 0, i32::MAX as usize, "vertex offset")?;
    r.fits(at + 88, vertex_at, vertices, 12, "vertex")?;
    let (normals, normal_bones) = table(r, at + 92, MAX_VERTICES, 1, "normal")?;
    let normal_at = r.count(at + 100, 0, i32::MAX as usize, "normal offset")?;
    r.fits(at + 100, normal_at, normals, 12, "normal")?;
    let joints = skeleton.joints.len();
    let world = |b: usize| rest_world.get(b).copied().unwrap_or(Affine3A::IDENTITY);
    // Into each bone's space at rest, worked out once for all the vertices.
    let to_bone: Vec<Affine3A> = (0..joints).map(|b| world(b).inverse()).collect();
    for m in 0..mesh_count {
        let mesh_at = meshes_at + m * MESH_BYTES;
        let skin = r.count(mesh_at + 8, 0, i32::MAX as usize, "skin reference")?;
        let material = skins.get(skin).copied().filter(|&t| t < model.materials.len()).unwrap_or(0);
        let (width, height) =
            model.materials[material].texture.as_ref().map_or((1.0, 1.0), |t| (t.width as f32, t.height as f32));
        let mut mesh = Mesh { name: name.clone(), material, ..Mesh::default() };
        let mut welded: HashMap<[i16; 4], u32> = HashMap::new();
        let mut at = r.count(mesh_at + 4, 0, i32::MAX as usize, "triangle command offset")?;
        loop {
            let command = r.u16(at)? as i16;
            at += 2;
            if command == 0 {
                break;
            }
            let (fan, n) = (command < 0, command.unsigned_abs() as usize);
            let mut corners = Vec::with_capacity(n);
            for _ in 0..n {
                let item: [i16; 4] =
                    [r.u16(at)? as i16, r.u16(at + 2)? as i16, r.u16(at + 4)? as i16, r.u16(at + 6)? as i16];
                let field = at;
                at += 8;
                let index = match welded.get(&item) {
                    Some(&v) => v,
                    None => {
                        let v = usize::try_from(item[0]).ok().filter(|&v| v < vertices);
                        let nrm = usize::try_from(item[1]).ok().filter(|&n| n < normals);
                        let (Some(v), Some(nrm)) = (v, nrm) else {
                            return Err(r
                                .err(field, format!("vertex {} or normal {} out of range", item[0], item[1]))
                                .into());
                        };
                        let bone = |table: usize, i: usize| -> Result<usize, FormatError> {
                            let b = r.bytes(table + i, 1)?[0] as usize;
                            if b < joints { Ok(b) } else { Err(r.err(table + i, format!("bone {b} of {joints}"))) }
                        };
                        let (vb, nb) = (bone(vertex_bones, v)?, bone(normal_bones, nrm)?);
                        budget.charge(64 + 2 * size_of::<Influence>() as u64, || format!("{FORMAT}: vertices"))?;
                        let position = r.vec3(vertex_at + 12 * v)?;
                        let normal = r.vec3(normal_at + 12 * nrm)?;
                        // A normal belongs to its own bone; carried into the vertex's bone at rest.
                        let normal_world = world(nb).transform_vector3(normal);
                        let local_normal = to_bone[vb].transform_vector3(normal_world);
                        let start = mesh.influences.len() as u32;
                        mesh.influences.push(Influence {
                            joint: vb as u32,
                            weight: 1.0,
                            position,
                            normal: local_normal.try_normalize().unwrap_or(Vec3::Z),
                        });
                        mesh.influence_ranges.push(start..start + 1);
                        mesh.positions.push(world(vb).transform_point3(position));
                        mesh.normals.push(normal_world.try_normalize().unwrap_or(Vec3::Z));
                        mesh.uvs.push(Vec2::new(f32::from(item[2]) / width, f32::from(item[3]) / height));
                        let index = mesh.positions.len() as u32 - 1;
                        welded.insert(item, index);
                        index
                    }
                };
                corners.push(index);
            }
            // GL strips and fans, clockwise from the front in GoldSrc: reversed to
            // counter-clockwise.
            for k in 2..corners.len() {
                let [a, b, c] = match (fan, k % 2 == 1) {
                    (true, _) => [corners[0], corners[k - 1], corners[k]],
                    (false, false) => [corners[k - 2], corners[k - 1], corners[k]],
                    (false, true) => [corners[k - 1], corners[k - 2], corners[k]],
                };
                mesh.indices.push([a, c, b]);
            }
            budget.charge(bytes_for(corners.len() as u64, 12), || format!("{FORMAT}: triangles"))?;
        }
        if !mesh.indices.is_empty() {
            model.meshes.push(mesh);
        }
    }
    Ok(())
}

/// Every sequence as a clip of its first blend, with the axes its travel is marked on.
fn sequences(
    r: &Bytes,
    skeleton: &Skeleton,
    channels: &[BoneChannels],
    load: &mut dyn FnMut(&str) -> Option<Arc<Vec<u8>>>,
    budget: &MemoryBudget,
    warnings: &mut Vec<String>,
) -> crate::Result<(Vec<Clip>, Vec<MarkedMotion>)> {
    let (count, offset) = table(r, 164, MAX_SEQUENCES, SEQUENCE_BYTES, "sequence")?;
    let (groups, groups_at) = table(r, 172, MAX_GROUPS, GROUP_BYTES, "sequence group")?;
    // Group files, read when a sequence first needs them (`None`: missing, said once).
    let mut group_files: HashMap<usize, Option<Arc<Vec<u8>>>> = HashMap::new();
    let bones = skeleton.joints.len();
    let mut clips = Vec::with_capacity(count);
    let mut marked = Vec::with_capacity(count);
    for s in 0..count {
        let at = offset + s * SEQUENCE_BYTES;
        let name = r.name(at, 32)?;
        let fps = r.f32(at + 32)?;
        let flags = r.i32(at + 36)?;
        let frames = r.count(at + 56, 1, MAX_FRAMES, "frame")?;
        let motion = r.i32(at + 68)?;
        let linear = r.vec3(at + 76)?;
        r.count(at + 120, 1, 64, "blend")?;
        let anim_at = r.count(at + 124, 0, i32::MAX as usize, "animation offset")?;
        let group = r.count(at + 156, 0, groups.saturating_sub(1), "sequence group")?;
        let data: Arc<Vec<u8>>;
        let source = if group == 0 {
            *r
        } else {
            let file = group_files.entry(group).or_insert_with(|| {
                let written = r.name(groups_at + group * GROUP_BYTES + 32, 64).unwrap_or_default();
                let file = written.rsplit(['/', '\\']).next().unwrap_or(&written).to_string();
                let found = load(&file);
                if found.is_none() {
                    warnings.push(format!("sequence group file '{written}' was not found: its sequences are skipped"));
                }
                found
            });
            let Some(file) = file.clone() else { continue };
            data = file;
            let g = Bytes::new(FORMAT, &data);
            if g.bytes(0, 4)? != b"IDSQ" || g.len() < GROUP_HEADER_BYTES {
                warnings.push(format!("sequence '{name}': its group file is no IDSQ file; skipped"));
                continue;
            }
            g
        };
        budget.charge(ClipFrames::skeletal_bytes(frames as u64, bones as u64), || {
            format!("{FORMAT}: sequence '{name}', {frames} frames x {bones} bones")
        })?;
        let mut poses = vec![skeleton.rest_pose(); frames];
        for (b, c) in channels.iter().enumerate() {
            let record = anim_at + b * 12;
            let mut values = [[0.0f32; 6]].repeat(frames);
            for (j, &scale) in c.scale.iter().enumerate() {
                let channel_at = source.u16(record + 2 * j)? as usize;
                if channel_at == 0 {
                    continue;
                }
                decode_channel(&source, record + channel_at, frames, |f, v| values[f][j] = f32::from(v) * scale)?;
            }
            for (pose, v) in poses.iter_mut().zip(&values) {
                pose[b] = JointPose {
                    translation: Vec3::new(c.value[0] + v[0], c.value[1] + v[1], c.value[2] + v[2]),
                    rotation: angles(c.value[3] + v[3], c.value[4] + v[4], c.value[5] + v[5]),
                    scale: Vec3::ONE,
                };
            }
        }
        put_back_travel(&mut poses, skeleton, linear);
        // studiomdl lets two sequences share a name.
        let name = unique_clip_name(name, &clips);
        marked.push(MarkedMotion { clip: name.clone(), axes: STUDIO_LINEAR.map(|bit| motion & bit != 0) });
        clips.push(Clip {
            name,
            fps: if fps > 0.0 { fps } else { 30.0 },
            frames: ClipFrames::Skeletal(poses),
            frame_bounds: Vec::new(),
            retarget: None,
            plays_once: flags & STUDIO_LOOPING == 0,
        });
    }
    Ok((clips, marked))
}

/// Adds back the travel studiomdl took out of the roots of a sequence marked `LX`/`LY`/`LZ`
/// (its `linearmovement`, spread evenly from the first frame to the last), so the frames are
/// the source's: posing in place takes it out again on the marked axes, as for a `.qc`
/// sequence, and `--root-motion` keeps it.
fn put_back_travel(poses: &mut [Vec<JointPose>], skeleton: &Skeleton, linear: Vec3) {
    let last = poses.len().saturating_sub(1);
    if linear == Vec3::ZERO || last == 0 {
        return;
    }
    for (f, pose) in poses.iter_mut().enumerate() {
        let shift = linear * (f as f32 / last as f32);
        for (joint, p) in skeleton.joints.iter().zip(pose.iter_mut()) {
            if joint.parent.is_none() {
                p.translation += shift;
            }
        }
    }
}

/// Decodes the run-length encoded values of one channel at `at` for `frames` frames, giving
/// each (frame, value) to `set`: runs of `valid` stored values covering `total` frames, the
/// last value held over the rest. Reads past the file are errors, so a hostile stream ends.
fn decode_channel(r: &Bytes, mut at: usize, frames: usize, mut set: impl FnMut(usize, i16)) -> Result<(), FormatError> {
    let mut frame = 0;
    while frame < frames {
        let run = r.bytes(at, 2)?;
        let (valid, total) = (run[0] as usize, run[1] as usize);
        if valid == 0 && total == 0 {
            return Err(r.err(at, "an empty run of animation values"));
        }
        for k in 0..total.min(frames - frame) {
            let stored = k.min(valid.saturating_sub(1));
            if valid > 0 {
                set(frame + k, r.u16(at + 2 + 2 * stored)? as i16);
            }
        }
        frame += total;
        at += 2 * (valid + 1);
    }
    Ok(())
}

fn attachments(r: &Bytes, joints: usize) -> Result<Vec<AttachmentPoint>, FormatError> {
    let (count, offset) = table(r, 212, MAX_ATTACHMENTS, ATTACHMENT_BYTES, "attachment")?;
    (0..count)
        .map(|i| {
            let at = offset + i * ATTACHMENT_BYTES;
            let bone = r.count(at + 36, 0, joints.saturating_sub(1), "attachment bone")?;
            let name = match r.name(at, 32)? {
                name if name.is_empty() => i.to_string(),
                name => name,
            };
            Ok(AttachmentPoint { name, joint: bone, offset: r.vec3(at + 40)? })
        })
        .collect()
}
