//! Inter-Quake Model, IQM version 2 (binary, little-endian): skinned meshes, a joint
//! hierarchy and animations sampled as whole frames.
//!
//! Layout: a 124-byte header (`INTERQUAKEMODEL\0`, version 2, the file size, then a count and
//! an offset for each table), a text block of NUL-terminated names every other table points
//! into, meshes (name, material, vertex and triangle ranges), vertex arrays (one per attribute,
//! each with its component format and count), triangles (three absolute `u32` vertex indices),
//! joints (name, parent, rest translate, rotate quaternion x y z w, scale), poses (per joint:
//! parent, a mask of the 10 animated channels Tx Ty Tz Qx Qy Qz Qw Sx Sy Sz, and each channel's
//! offset and scale), frames (`u16` values of the masked channels, pose by pose) and anims
//! (name, first frame, frame count, frame rate, flags with bit 0 = loop).
//!
//! A joint's local transform is `T · R · S`; a channel is `offset + value · scale`. Joints are
//! parent-relative and each parent precedes its children, as the model types expect. Vertices
//! are stored in the bind pose (the joints' rest pose), so skinning is
//! `Σ weight · anim_abs[j] · inverse(bind_abs[j]) · v` — the influences keep
//! `inverse(bind_abs[j]) · v`, as SMD and glTF do. Triangles are clockwise from the front
//! (the reference viewer culls the other face than GL's default): they are reversed. UV (0,0) is
//! the image's top-left. IQM comes from the Quake family (Z up, facing +X).
//!
//! Every count and offset is checked against the file length before use, and everything the
//! counts size (vertices and their influences, frames × joints) is charged to the memory
//! budget before it is allocated. Errors name the byte offset.

use glam::{Affine3A, Mat3, Quat, Vec2, Vec3};

use super::FormatError;
use super::binary::Bytes;
use crate::budget::{MemoryBudget, bytes_for};
use crate::model::{Aabb, Clip, ClipFrames, Influence, Joint, JointPose, Material, Mesh, Model, Orientation, Skeleton};

const FORMAT: &str = "IQM";
const MAGIC: &[u8; 16] = b"INTERQUAKEMODEL\0";
const HEADER_BYTES: usize = 124;
/// Far above real models (the reference tools allow 255 joints a vertex can name in a `u8`).
const MAX_JOINTS: usize = 1 << 12;
const MAX_ANIMS: usize = 1 << 12;
/// Playback rate for an anim that gives none (a frame rate of 0).
pub const DEFAULT_FPS: f32 = 24.0;
/// What one render vertex costs once built: position, normal, uv, influence range and up to
/// four influences.
const VERTEX_BYTES: usize = 2 * size_of::<Vec3>() + size_of::<Vec2>() + 8 + 4 * size_of::<Influence>();

// Header fields (byte offsets).
const H_FILESIZE: usize = 20;
const H_TEXT: usize = 28;
const H_MESHES: usize = 36;
const H_VERTEXARRAYS: usize = 44;
const H_NUM_VERTEXES: usize = 48;
const H_TRIANGLES: usize = 56;
const H_JOINTS: usize = 68;
const H_POSES: usize = 76;
const H_ANIMS: usize = 84;
const H_FRAMES: usize = 92;
const H_FRAMECHANNELS: usize = 96;
const H_OFS_FRAMES: usize = 100;
const H_OFS_BOUNDS: usize = 104;

// Vertex array types and component formats.
const POSITION: u32 = 0;
const TEXCOORD: u32 = 1;
const NORMAL: u32 = 2;
const BLENDINDEXES: u32 = 4;
const FORMAT_NAMES: [&str; 9] = ["byte", "ubyte", "short", "ushort", "int", "uint", "half", "float", "double"];
const FORMAT_BYTES: [usize; 9] = [1, 1, 2, 2, 4, 4, 2, 4, 8];

/// One vertex array: where its components start, their format and how many a vertex has.
#[derive(Clone, Copy)]
struct Array {
    offset: usize,
    format: u32,
    size: usize,
}

impl Array {
    fn component_bytes(self) -> usize {
        FORMAT_BYTES.get(self.format as usize).copied().unwrap_or(4)
    }

    fn is_float(self) -> bool {
        self.format >= 6
    }

    /// The byte offset of vertex `v`'s component `k`.
    fn at(self, v: usize, k: usize) -> usize {
        self.offset + (v * self.size + k) * self.component_bytes()
    }

    /// Component `k` of vertex `v` as a number: floats as they are, integers as their value
    /// (`normalized`: divided by their type's largest value, as GL reads normalized weights).
    fn read(self, r: &Bytes, v: usize, k: usize, normalized: bool) -> Result<f32, FormatError> {
        let at = self.at(v, k);
        let (value, max) = match self.format {
            0 => (f32::from(r.bytes(at, 1)?.first().copied().unwrap_or(0) as i8), 127.0),
            1 => (f32::from(r.bytes(at, 1)?.first().copied().unwrap_or(0)), 255.0),
            2 => (f32::from(r.u16(at)? as i16), 32767.0),
            3 => (f32::from(r.u16(at)?), 65535.0),
            4 => (r.i32(at)? as f32, i32::MAX as f32),
            5 => (r.u32(at)? as f32, u32::MAX as f32),
            6 => (half_to_f32(r.u16(at)?), 1.0),
            7 => (r.f32(at)?, 1.0),
            _ => (r.f64(at)? as f32, 1.0),
        };
        if !value.is_finite() {
            return Err(r.err(at, format!("expected a finite number, found {value}")));
        }
        Ok(if normalized && !self.is_float() { value / max } else { value })
    }
}

/// An IEEE half-precision number.
fn half_to_f32(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exponent = i32::from((h >> 10) & 0x1f);
    let mantissa = f32::from(h & 0x3ff);
    sign * match exponent {
        0 => mantissa * 2f32.powi(-24),
        31 => f32::INFINITY,
        e => (1.0 + mantissa / 1024.0) * 2f32.powi(e - 15),
    }
}

/// A table's count and offset from the header, checked to fit the file.
fn table(r: &Bytes, field: usize, record: usize, max: usize, what: &str) -> Result<(usize, usize), FormatError> {
    let count = r.u32(field)? as usize;
    if count > max {
        return Err(r.err(field, format!("expected a {what} count in 0..={max}, found {count}")));
    }
    let offset = r.u32(field + 4)? as usize;
    r.fits(field + 4, offset, count, record, what)?;
    Ok((count, offset))
}

/// The text block: names are offsets into it. Many records may name one long text, so each
/// name is charged to the budget before it is copied.
struct Text<'a> {
    bytes: &'a [u8],
    budget: &'a MemoryBudget,
}

impl Text<'_> {
    /// The name whose text offset is stored at `field`; an offset outside the text is an error.
    fn name(&self, r: &Bytes, field: usize) -> crate::Result<String> {
        let at = r.u32(field)? as usize;
        let rest = self.bytes.get(at..).filter(|rest| !rest.is_empty() || at == 0).ok_or_else(|| {
            r.err(field, format!("expected a name offset inside the {}-byte text, found {at}", self.bytes.len()))
        })?;
        let name = rest.get(..rest.iter().position(|&c| c == 0).unwrap_or(rest.len())).unwrap_or_default();
        self.budget.charge(name.len() as u64, || format!("a name of {} bytes at text offset {at}", name.len()))?;
        Ok(String::from_utf8_lossy(name).into_owned())
    }
}

/// Parses an IQM file within the default memory budget.
///
/// # Errors
/// A malformed file (wrong magic or version, counts, offsets or indices outside the file or
/// their tables, vertex arrays in formats their attribute cannot have, non-finite numbers),
/// naming the byte offset; what it declares over the budget.
pub fn parse(bytes: &[u8]) -> crate::Result<Model> {
    parse_within(bytes, &MemoryBudget::default())
}

/// As [`parse`], charging vertices, influences and animation frames to `budget` before they
/// are allocated.
///
/// # Errors
/// As [`parse`]; [`crate::Error::Budget`] over the budget.
pub fn parse_within(bytes: &[u8], budget: &MemoryBudget) -> crate::Result<Model> {
    let r = Bytes::new(FORMAT, bytes);
    if r.bytes(0, 16)? != MAGIC {
        return Err(r.err(0, "expected the magic `INTERQUAKEMODEL`").into());
    }
    let version = r.u32(16)?;
    if version != 2 {
        return Err(r.err(16, format!("expected version 2, found {version}")).into());
    }
    r.bytes(0, HEADER_BYTES)?;
    let file_size = r.u32(H_FILESIZE)? as usize;
    if file_size > r.len() {
        return Err(r.err(H_FILESIZE, format!("the header gives {file_size} bytes, the file has {}", r.len())).into());
    }
    let (num_text, ofs_text) = table(&r, H_TEXT, 1, usize::MAX, "text byte")?;
    let text = Text { bytes: r.bytes(ofs_text, num_text)?, budget };

    let (skeleton, bind) = joints(&r, &text)?;
    let arrays = vertex_arrays(&r, skeleton.joints.len())?;
    let (num_meshes, ofs_meshes) = table(&r, H_MESHES, 24, super::MAX_MESHES, "mesh")?;
    let (num_tris, ofs_tris) = table(&r, H_TRIANGLES, 12, usize::MAX, "triangle")?;
    let mut model = Model { orientation: Orientation::Z_UP_FACING_X, ..Model::default() };
    for m in 0..num_meshes {
        let at = ofs_meshes + 24 * m;
        let range = |field: usize, total: usize, what: &str| -> Result<(usize, usize), FormatError> {
            let (first, count) = (r.u32(at + field)? as usize, r.u32(at + field + 4)? as usize);
            if first.checked_add(count).is_none_or(|end| end > total) {
                return Err(
                    r.err(at + field, format!("mesh {m}: {what}s {first}+{count} past the {total} in the file"))
                );
            }
            Ok((first, count))
        };
        let vertices = range(8, arrays.count, "vertex")?;
        let triangles = range(16, num_tris, "triangle")?;
        let structs = (size_of::<Mesh>() + size_of::<Material>()) as u64;
        budget.charge(
            bytes_for(vertices.1 as u64, VERTEX_BYTES).saturating_add(bytes_for(triangles.1 as u64, 12) + structs),
            || format!("mesh {m}: {} vertices and {} triangles", vertices.1, triangles.1),
        )?;
        let mut mesh = mesh_vertices(&r, &arrays, vertices, &bind)?;
        mesh.name = text.name(&r, at)?;
        for t in triangles.0..triangles.0 + triangles.1 {
            let tri_at = ofs_tris + 12 * t;
            let mut corner = [0u32; 3];
            for (k, c) in corner.iter_mut().enumerate() {
                let v = r.u32(tri_at + 4 * k)? as usize;
                *c = v.checked_sub(vertices.0).filter(|&local| local < vertices.1).ok_or_else(|| {
                    let (first, end) = (vertices.0, vertices.0 + vertices.1);
                    r.err(tri_at + 4 * k, format!("triangle {t}: vertex {v} outside mesh {m}'s {first}..{end}"))
                })? as u32;
            }
            // Clockwise from the front in the file: reversed to counter-clockwise.
            mesh.indices.push([corner[0], corner[2], corner[1]]);
        }
        if arrays.normal.is_none() {
            mesh.normals = Mesh::compute_normals(&mesh.positions, &mesh.indices);
            set_influence_normals(&mut mesh, &bind);
        }
        let material = text.name(&r, at + 4)?;
        mesh.material = match model.materials.iter().position(|x| x.name == material) {
            Some(i) => i,
            None => {
                let texture_name = (!material.is_empty()).then(|| material.clone());
                model.materials.push(Material { texture_name, ..Material::named(material) });
                model.materials.len() - 1
            }
        };
        model.meshes.push(mesh);
    }
    if !skeleton.joints.is_empty() {
        model.clips = anims(&r, &text, &skeleton, budget, &mut model.warnings)?;
        model.skeleton = Some(skeleton);
    }
    Ok(model)
}

/// The joints as a skeleton, and each joint's inverse bind (rest) transform in model space.
fn joints(r: &Bytes, text: &Text) -> crate::Result<(Skeleton, Vec<Affine3A>)> {
    let (count, offset) = table(r, H_JOINTS, 48, MAX_JOINTS, "joint")?;
    let mut joints: Vec<Joint> = Vec::with_capacity(count);
    for i in 0..count {
        let at = offset + 48 * i;
        let parent = usize::try_from(r.i32(at + 4)?).ok();
        if parent.is_some_and(|p| p >= i) {
            let found = r.i32(at + 4)?;
            return Err(r.err(at + 4, format!("joint {i}: expected a parent before it, found {found}")).into());
        }
        let rotation = quat(r, at + 20, [r.f32(at + 20)?, r.f32(at + 24)?, r.f32(at + 28)?, r.f32(at + 32)?])?;
        let rest = JointPose { translation: r.vec3(at + 8)?, rotation, scale: r.vec3(at + 36)? };
        joints.push(Joint { name: text.name(r, at)?, parent, rest });
    }
    let skeleton = Skeleton { joints };
    let mut bind = Vec::with_capacity(count);
    for (i, abs) in skeleton.to_model_space(&skeleton.rest_pose()).into_iter().enumerate() {
        let inverse = abs.inverse();
        if !inverse.is_finite() || abs.matrix3.determinant().abs() < 1e-12 {
            return Err(r
                .err(offset + 48 * i + 36, format!("joint {i}: its rest transform cannot be inverted"))
                .into());
        }
        bind.push(inverse);
    }
    Ok((skeleton, bind))
}

/// A unit quaternion from x, y, z, w read at `at`.
fn quat(r: &Bytes, at: usize, [x, y, z, w]: [f32; 4]) -> Result<Quat, FormatError> {
    let q = Quat::from_xyzw(x, y, z, w);
    let length = q.length();
    if !length.is_finite() || length < 1e-6 {
        return Err(r.err(at, format!("expected a rotation quaternion, found ({x}, {y}, {z}, {w})")));
    }
    Ok(q / length)
}

/// The vertex arrays spritebake reads.
struct Arrays {
    count: usize,
    position: Array,
    texcoord: Option<Array>,
    normal: Option<Array>,
    blend: Option<(Array, Array)>,
}

/// Finds and checks the vertex arrays: each must fit the file, positions, texture coordinates
/// and normals must be float, half or double, blend indexes integers. Other attributes
/// (tangents, colours, custom arrays) are not read.
fn vertex_arrays(r: &Bytes, joints: usize) -> Result<Arrays, FormatError> {
    let count = r.u32(H_NUM_VERTEXES)? as usize;
    let num = r.u32(H_VERTEXARRAYS)? as usize;
    let offset = r.u32(H_VERTEXARRAYS + 8)? as usize;
    if num > 64 {
        return Err(r.err(H_VERTEXARRAYS, format!("expected a vertex array count in 0..=64, found {num}")));
    }
    r.fits(H_VERTEXARRAYS + 8, offset, num, 20, "vertex array")?;
    let mut found: [Option<Array>; 6] = [None; 6];
    for i in 0..num {
        let at = offset + 20 * i;
        let kind = r.u32(at)?;
        let Some(slot) = found.get_mut(kind as usize).filter(|_| kind != 3) else { continue };
        if slot.is_some() {
            continue;
        }
        let (format, size) = (r.u32(at + 8)?, r.u32(at + 12)? as usize);
        let Some(name) = FORMAT_NAMES.get(format as usize) else {
            return Err(r.err(at + 8, format!("expected a component format in 0..=8, found {format}")));
        };
        let (min_size, what) = match kind {
            POSITION => (3, "position"),
            TEXCOORD => (2, "texture coordinate"),
            NORMAL => (3, "normal"),
            BLENDINDEXES => (1, "blend index"),
            _ => (1, "blend weight"), // type 5
        };
        let float = format >= 6;
        if kind == BLENDINDEXES && float {
            return Err(r.err(at + 8, format!("expected integer blend indexes, found {name}")));
        }
        if kind < BLENDINDEXES && !float {
            return Err(r.err(at + 8, format!("expected {what}s as float, half or double, found {name}")));
        }
        if !(min_size..=4).contains(&size) {
            return Err(r.err(at + 12, format!("expected {min_size} to 4 {what} components, found {size}")));
        }
        let array = Array { offset: r.u32(at + 16)? as usize, format, size };
        r.fits(at + 16, array.offset, count, size * array.component_bytes(), &format!("{what} vertice"))?;
        *slot = Some(array);
    }
    let [position, texcoord, normal, _, indexes, weights] = found;
    let position = position.ok_or_else(|| r.err(H_VERTEXARRAYS, "expected a position vertex array"))?;
    let blend = match (indexes, weights) {
        (Some(i), Some(w)) if joints > 0 => Some((i, w)),
        _ => None,
    };
    Ok(Arrays { count, position, texcoord, normal, blend })
}

/// The vertices `first..first + count` as a mesh (no triangles yet): positions, normals, uvs,
/// and, for a skinned model, each vertex's influences in its joints' bind space.
fn mesh_vertices(
    r: &Bytes,
    arrays: &Arrays,
    (first, count): (usize, usize),
    bind: &[Affine3A],
) -> Result<Mesh, FormatError> {
    let vec3 = |a: Array, v: usize| -> Result<Vec3, FormatError> {
        Ok(Vec3::new(a.read(r, v, 0, false)?, a.read(r, v, 1, false)?, a.read(r, v, 2, false)?))
    };
    let mut mesh = Mesh::default();
    for v in first..first + count {
        mesh.positions.push(vec3(arrays.position, v)?);
        if let Some(n) = arrays.normal {
            mesh.normals.push(vec3(n, v)?.try_normalize().unwrap_or(Vec3::Z));
        }
        mesh.uvs.push(match arrays.texcoord {
            Some(t) => Vec2::new(t.read(r, v, 0, false)?, t.read(r, v, 1, false)?),
            None => Vec2::ZERO,
        });
        let Some((indexes, weights)) = arrays.blend else { continue };
        let start = mesh.influences.len() as u32;
        let mut total = 0.0;
        for k in 0..indexes.size.min(weights.size) {
            let weight = weights.read(r, v, k, true)?;
            if weight <= 0.0 {
                continue;
            }
            let joint = indexes.read(r, v, k, false)? as usize;
            let Some(inverse) = bind.get(joint) else {
                let at = indexes.at(v, k);
                return Err(r.err(at, format!("vertex {v}: joint {joint} out of range (0..{})", bind.len())));
            };
            total += weight;
            let p = mesh.positions.last().copied().unwrap_or_default();
            mesh.influences.push(Influence {
                joint: joint as u32,
                weight,
                position: inverse.transform_point3(p),
                normal: Vec3::Z,
            });
        }
        for influence in mesh.influences.get_mut(start as usize..).unwrap_or_default() {
            influence.weight /= total;
        }
        mesh.influence_ranges.push(start..mesh.influences.len() as u32);
    }
    if arrays.normal.is_some() {
        set_influence_normals(&mut mesh, bind);
    }
    Ok(mesh)
}

/// Each influence's normal: the vertex normal in the joint's bind space.
fn set_influence_normals(mesh: &mut Mesh, bind: &[Affine3A]) {
    for (range, &normal) in mesh.influence_ranges.iter().zip(&mesh.normals) {
        for influence in mesh.influences.get_mut(range.start as usize..range.end as usize).unwrap_or_default() {
            let linear = bind.get(influence.joint as usize).map_or(Mat3::IDENTITY, |b| Mat3::from(b.matrix3));
            influence.normal = linear * normal;
        }
    }
}

/// Every anim as a clip of whole frames, each frame's joint poses decoded from the poses'
/// channels; frames × joints are charged to `budget` first.
fn anims(
    r: &Bytes,
    text: &Text,
    skeleton: &Skeleton,
    budget: &MemoryBudget,
    warnings: &mut Vec<String>,
) -> crate::Result<Vec<Clip>> {
    let (num_anims, ofs_anims) = table(r, H_ANIMS, 20, MAX_ANIMS, "anim")?;
    if num_anims == 0 {
        return Ok(Vec::new());
    }
    let joints = skeleton.joints.len();
    let (num_poses, ofs_poses) = table(r, H_POSES, 88, MAX_JOINTS, "pose")?;
    if num_poses != joints {
        return Err(r
            .err(H_POSES, format!("expected a pose for each of the {joints} joints, found {num_poses}"))
            .into());
    }
    // Each pose: its channel mask, offsets and scales, and where its values start in a frame.
    let mut poses = Vec::with_capacity(num_poses);
    let mut channels = 0;
    for (i, joint) in skeleton.joints.iter().enumerate() {
        let at = ofs_poses + 88 * i;
        let parent = usize::try_from(r.i32(at)?).ok();
        if parent != joint.parent {
            return Err(r.err(at, format!("pose {i}: its parent differs from joint {i}'s")).into());
        }
        let mask = r.u32(at + 4)?;
        if mask >= 1 << 10 {
            return Err(r.err(at + 4, format!("expected a mask of 10 channels, found {mask:#x}")).into());
        }
        let mut offset = [0f32; 10];
        let mut scale = [0f32; 10];
        for c in 0..10 {
            offset[c] = r.f32(at + 8 + 4 * c)?;
            scale[c] = r.f32(at + 48 + 4 * c)?;
        }
        poses.push((mask, offset, scale, channels));
        channels += mask.count_ones() as usize;
    }
    let num_frames = r.u32(H_FRAMES)? as usize;
    let frame_channels = r.u32(H_FRAMECHANNELS)? as usize;
    if channels > frame_channels {
        let found = format!("the poses animate {channels} channels, the header gives {frame_channels}");
        return Err(r.err(H_FRAMECHANNELS, found).into());
    }
    let ofs_frames = r.u32(H_OFS_FRAMES)? as usize;
    r.fits(H_OFS_FRAMES, ofs_frames, num_frames, 2 * frame_channels, "frame")?;
    let ofs_bounds = r.u32(H_OFS_BOUNDS)? as usize;
    let bounds = ofs_bounds != 0 && r.fits(H_OFS_BOUNDS, ofs_bounds, num_frames, 32, "frame bound").is_ok();

    let mut clips = Vec::with_capacity(num_anims);
    for a in 0..num_anims {
        let at = ofs_anims + 20 * a;
        let (first, count) = (r.u32(at + 4)? as usize, r.u32(at + 8)? as usize);
        if first.checked_add(count).is_none_or(|end| end > num_frames) {
            return Err(r
                .err(at + 4, format!("anim {a}: frames {first}+{count} past the {num_frames} in the file"))
                .into());
        }
        let mut name = text.name(r, at)?;
        if name.is_empty() {
            name = format!("anim{a}");
        }
        let bytes = ClipFrames::skeletal_bytes(count as u64, joints as u64)
            .saturating_add(bytes_for(count as u64, size_of::<Aabb>()));
        budget.charge(bytes, || format!("anim '{name}': {count} frames x {joints} joints"))?;
        let mut frames = Vec::with_capacity(count);
        for f in first..first + count {
            let frame_at = ofs_frames + 2 * frame_channels * f;
            let mut pose = Vec::with_capacity(joints);
            for &(mask, offset, scale, start) in &poses {
                let mut values = offset;
                let mut next = frame_at + 2 * start;
                for c in 0..10 {
                    if mask & (1 << c) != 0 {
                        values[c] += f32::from(r.u16(next)?) * scale[c];
                        next += 2;
                    }
                }
                if values.iter().any(|v| !v.is_finite()) {
                    return Err(r.err(frame_at + 2 * start, format!("frame {f}: a channel is not finite")).into());
                }
                let [tx, ty, tz, qx, qy, qz, qw, sx, sy, sz] = values;
                let rotation = quat(r, frame_at + 2 * start, [qx, qy, qz, qw])?;
                pose.push(JointPose { translation: Vec3::new(tx, ty, tz), rotation, scale: Vec3::new(sx, sy, sz) });
            }
            frames.push(pose);
        }
        let frame_bounds = if bounds {
            (first..first + count)
                .map(|f| Ok(Aabb { min: r.vec3(ofs_bounds + 32 * f)?, max: r.vec3(ofs_bounds + 32 * f + 12)? }))
                .collect::<Result<_, FormatError>>()?
        } else {
            Vec::new()
        };
        let rate = r.f32(at + 12)?;
        let fps = if crate::bounds::FPS.check(rate).is_ok() {
            rate
        } else {
            warnings.push(format!("anim '{name}': frame rate {rate} replaced by {DEFAULT_FPS}"));
            DEFAULT_FPS
        };
        let looping = r.u32(at + 16)? & 1 != 0;
        clips.push(Clip {
            name,
            fps,
            frames: ClipFrames::Skeletal(frames),
            frame_bounds,
            retarget: None,
            plays_once: !looping,
        });
    }
    Ok(clips)
}
