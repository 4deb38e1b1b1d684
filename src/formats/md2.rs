//! Quake 2 MD2 (binary, little-endian): one mesh, key-framed by whole vertex sets.
//!
//! Layout: a 68-byte header (`IDP2`, version 8, skin size, frame size, counts, offsets), then
//! skin names (64 bytes each), texture coordinates (`i16 s, t`), triangles (`u16` vertex and
//! texcoord indices), frames (`scale`, `translate`, a 16-byte name, then per vertex 3 bytes of
//! position and a normal index into the Quake 2 normal table, `md2_normals.rs`).
//!
//! Every count, offset and size is checked against the file length and against generous
//! limits *before* anything is allocated, so a corrupt header (the corpus has one that claims
//! 45 million frames) fails fast in constant memory. Errors name the byte offset.
//!
//! Triangles are clockwise seen from the front (Quake culls the other face than GL's default);
//! they are reversed into the model's counter-clockwise convention. Vertices are unwelded by
//! (position index, texcoord index) pairs, since a render vertex carries one uv.

use std::collections::{HashMap, HashSet};

use glam::{Vec2, Vec3};
use rayon::prelude::*;

use super::FormatError;
use super::binary::Bytes;
use super::md2_normals::ANORMS;
use crate::budget::{MemoryBudget, bytes_for};
use crate::model::{Clip, ClipFrames, Material, Mesh, Model, MorphFrame, Orientation};

const FORMAT: &str = "MD2";
const HEADER_BYTES: usize = 68;
/// Quake 2's own limits are 2048 vertices, 4096 triangles, 512 frames and 32 skins (Quake 1's
/// lower); allow more for community models, far less than a hostile header could claim. Quake
/// 1 MDL takes the same.
pub(super) const MAX_VERTICES: usize = 1 << 16;
pub(super) const MAX_TRIANGLES: usize = 1 << 17;
pub(super) const MAX_FRAMES: usize = 1 << 12;
pub(super) const MAX_SKINS: usize = 256;
/// Default playback rate: Quake 1 and 2 animate models at 10 frames per second.
pub const DEFAULT_FPS: f32 = 10.0;

/// One header count with the place of its records: checked against limits and the file.
fn section(
    r: &Bytes,
    count_at: usize,
    offset_at: usize,
    record: usize,
    max: usize,
    what: &str,
) -> Result<(usize, usize), FormatError> {
    let count = r.count(count_at, 0, max, what)?;
    let offset = r.i32(offset_at)?;
    let offset = usize::try_from(offset).map_err(|_| r.err(offset_at, format!("negative {what} offset {offset}")))?;
    r.fits(offset_at, offset, count, record, what)?;
    Ok((count, offset))
}

/// Parses an MD2 file within the default memory budget.
///
/// # Errors
/// A malformed file: wrong magic or version, counts or offsets outside the file, indices out
/// of range, non-finite numbers; the message names the byte offset. Frames × vertices over the
/// budget.
pub fn parse(bytes: &[u8]) -> crate::Result<Model> {
    parse_within(bytes, &MemoryBudget::default())
}

/// As [`parse`], charging the morph frames to `budget` before they are allocated.
///
/// # Errors
/// As [`parse`]; [`crate::Error::Budget`] over the budget.
pub fn parse_within(bytes: &[u8], budget: &MemoryBudget) -> crate::Result<Model> {
    let fail = |e: FormatError| -> crate::Result<Model> { Err(e.into()) };
    let r = Bytes::new(FORMAT, bytes);
    if r.bytes(0, 4)? != b"IDP2" {
        return fail(r.err(0, "expected the magic `IDP2`"));
    }
    let version = r.i32(4)?;
    if version != 8 {
        return fail(r.err(4, format!("expected version 8, found {version}")));
    }
    r.bytes(0, HEADER_BYTES)?;
    let (skin_w, skin_h) = (r.i32(8)?.max(1) as f32, r.i32(12)?.max(1) as f32);
    let num_vertices = r.count(24, 1, MAX_VERTICES, "vertex")?;
    let frame_bytes = 40 + 4 * num_vertices;
    let declared_frame_size = r.i32(16)?;
    if usize::try_from(declared_frame_size).ok() != Some(frame_bytes) {
        return fail(r.err(
            16,
            format!("expected a frame size of {frame_bytes} for {num_vertices} vertices, found {declared_frame_size}"),
        ));
    }
    let (num_skins, ofs_skins) = section(&r, 20, 44, 64, MAX_SKINS, "skin")?;
    let (num_st, ofs_st) = section(&r, 28, 48, 4, MAX_VERTICES * 4, "texture coordinate")?;
    let (num_tris, ofs_tris) = section(&r, 32, 52, 12, MAX_TRIANGLES, "triangle")?;
    let (num_frames, ofs_frames) = section(&r, 40, 56, frame_bytes, MAX_FRAMES, "frame")?;
    if num_frames == 0 || num_tris == 0 {
        return fail(r.err(if num_frames == 0 { 40 } else { 32 }, "expected at least one frame and one triangle"));
    }

    let sts: Vec<Vec2> = (0..num_st)
        .map(|i| {
            let at = ofs_st + 4 * i;
            Ok(Vec2::new(r.u16(at)? as i16 as f32 / skin_w, r.u16(at + 2)? as i16 as f32 / skin_h))
        })
        .collect::<Result<_, FormatError>>()?;

    // Unweld: one render vertex per distinct (position index, texcoord index) pair.
    let mut pairs: Vec<(u16, u16)> = Vec::new();
    let mut lookup = HashMap::new();
    let mut indices = Vec::with_capacity(num_tris);
    for t in 0..num_tris {
        let at = ofs_tris + 12 * t;
        let mut corner = [0u32; 3];
        for (k, c) in corner.iter_mut().enumerate() {
            let (v, s) = (r.u16(at + 2 * k)?, r.u16(at + 6 + 2 * k)?);
            if v as usize >= num_vertices {
                return fail(
                    r.err(at + 2 * k, format!("triangle {t}: vertex index {v} out of range (0..{num_vertices})")),
                );
            }
            if s as usize >= num_st {
                return fail(
                    r.err(at + 6 + 2 * k, format!("triangle {t}: texcoord index {s} out of range (0..{num_st})")),
                );
            }
            *c = *lookup.entry((v, s)).or_insert_with(|| {
                pairs.push((v, s));
                pairs.len() as u32 - 1
            });
        }
        // Quake's triangles are clockwise from the front: reverse them.
        indices.push([corner[0], corner[2], corner[1]]);
    }
    let uvs: Vec<Vec2> = pairs.iter().map(|&(_, s)| sts[s as usize]).collect();

    // Each frame is 4 bytes a file vertex, but unwelding gives it a position and a normal per
    // (vertex, texcoord) pair: a few hundred KB of frames and texcoords can ask for gigabytes.
    let frame_size = bytes_for(pairs.len() as u64, 2 * size_of::<Vec3>());
    budget.charge(frame_size.saturating_mul(num_frames as u64), || {
        format!("{num_frames} frames x {} vertices", pairs.len())
    })?;
    // Frames side by side (a model's hundreds of frames are most of its load), the first
    // error in file order reported whatever the pool.
    let unpack = |f: usize| {
        let at = ofs_frames + f * frame_bytes;
        let (scale, translate) = (r.vec3(at)?, r.vec3(at + 12)?);
        let name = r.name(at + 24, 16)?;
        let verts = r.bytes(at + 40, 4 * num_vertices)?;
        Ok(unpack_frame(name, verts, pairs.iter().map(|&(v, _)| v as usize), scale, translate))
    };
    let unpacked: Vec<Result<MorphFrame, FormatError>> = (0..num_frames).into_par_iter().map(unpack).collect();
    let morph_frames = unpacked.into_iter().collect::<Result<Vec<_>, _>>()?;

    let skins: Vec<String> = (0..num_skins).map(|i| r.name(ofs_skins + 64 * i, 64)).collect::<Result<_, _>>()?;
    let material = Material {
        texture_name: skins.first().cloned(),
        ..Material::named(skins.first().cloned().unwrap_or_else(|| "skin".into()))
    };
    Ok(morph_model("md2", material, uvs, indices, morph_frames))
}

/// One frame of Quake vertices (3 position bytes and a normal index each, `verts`), for the
/// render vertices `order` gives as file vertex indices (each checked by the caller to be
/// below `verts.len() / 4`): position = byte · `scale` + `translate`, normal from the table.
pub(super) fn unpack_frame(
    name: String,
    verts: &[u8],
    order: impl ExactSizeIterator<Item = usize>,
    scale: Vec3,
    translate: Vec3,
) -> MorphFrame {
    let (mut positions, mut normals) = (Vec::with_capacity(order.len()), Vec::with_capacity(order.len()));
    for v in order {
        let [x, y, z, n] = verts.get(4 * v..4 * v + 4).and_then(|b| <[u8; 4]>::try_from(b).ok()).unwrap_or_default();
        // Vertex = byte · scale + translate.
        positions.push(Vec3::new(x as f32, y as f32, z as f32) * scale + translate);
        normals.push(ANORMS.get(n as usize).map_or(Vec3::Z, |n| Vec3::from(*n)));
    }
    MorphFrame { name, positions, normals }
}

/// A Quake morph model (MD2, Quake 1 MDL): one mesh of `frames` (at least one) with one
/// material, Z up facing +X, clips grouped from the frame names ([`group_clips`]) playing at
/// [`DEFAULT_FPS`].
pub(super) fn morph_model(
    mesh_name: &str,
    material: Material,
    uvs: Vec<Vec2>,
    indices: Vec<[u32; 3]>,
    morph_frames: Vec<MorphFrame>,
) -> Model {
    let names: Vec<&str> = morph_frames.iter().map(|f| f.name.as_str()).collect();
    let clips = group_clips(&names)
        .into_iter()
        .map(|(name, frames)| Clip {
            name,
            fps: DEFAULT_FPS,
            frames: ClipFrames::Morph(frames),
            frame_bounds: Vec::new(),
            retarget: None,
            plays_once: false,
        })
        .collect();
    let mesh = Mesh::morphed(mesh_name.into(), 0, uvs, indices, morph_frames);
    Model {
        meshes: vec![mesh],
        materials: vec![material],
        orientation: Orientation::Z_UP_FACING_X,
        clips,
        ..Model::default()
    }
}

/// Groups frame names into clips: a new clip starts where the name's stem (without trailing
/// digits) changes or its number does not continue by one. `pain101..104` and `pain201..204`
/// become `pain1` and `pain2` (a leading digit that numbers the variant is kept), `run1..6`
/// becomes `run`; a repeated name gets the smallest free `_2`, `_3`, ... suffix.
///
/// Linear in the number of frames: taken names are a hash set and each base name remembers
/// the last suffix it tried. The smallest free suffix of a base never decreases (names are only
/// ever added), so resuming from the remembered one gives the same name as searching from `_2`
/// again; 4096 frames of one name used to take cubic time (a scan of every clip per suffix).
pub fn group_clips(names: &[&str]) -> Vec<(String, Vec<usize>)> {
    let split = |name: &str| {
        let stem = name.trim_end_matches(|c: char| c.is_ascii_digit());
        (stem.to_string(), name[stem.len()..].parse::<u64>().ok())
    };
    let mut clips: Vec<(String, Vec<usize>)> = Vec::new();
    let mut taken: HashSet<String> = HashSet::new();
    let mut next_suffix: HashMap<String, u64> = HashMap::new();
    let mut last: Option<(String, Option<u64>)> = None;
    for (i, name) in names.iter().enumerate() {
        let (stem, number) = split(name);
        let continues = matches!(&last, Some((s, Some(n))) if *s == stem && number == n.checked_add(1));
        if continues {
            if let Some(c) = clips.last_mut() {
                c.1.push(i);
            }
        } else {
            // Three-digit numbering such as pain101 / pain201: the hundreds digit is the variant.
            let mut clip_name = match number {
                Some(n) if n >= 100 && n % 100 <= 1 => format!("{stem}{}", n / 100),
                _ => stem.clone(),
            };
            if clip_name.is_empty() {
                clip_name = "frames".into();
            }
            if taken.contains(&clip_name) {
                let k = next_suffix.entry(clip_name.clone()).or_insert(2);
                while taken.contains(&format!("{clip_name}_{k}")) {
                    *k += 1;
                }
                clip_name = format!("{clip_name}_{k}");
            }
            taken.insert(clip_name.clone());
            clips.push((clip_name, vec![i]));
        }
        last = Some((stem, number));
    }
    clips
}

/// An MD2 to write: one skin, per-vertex uvs, triangles counter-clockwise from the front, and
/// frames of positions (one per vertex).
#[derive(Debug, Clone)]
pub struct Md2Source<'a> {
    /// Skin file name written into the header.
    pub skin: &'a str,
    /// Skin size in texels (texture coordinates are stored in texels).
    pub skin_size: (u32, u32),
    /// Texture coordinates, (0,0) = top-left.
    pub uvs: &'a [Vec2],
    /// Triangles, counter-clockwise from the front.
    pub indices: &'a [[u32; 3]],
    /// Frames: name (at most 15 bytes) and one position and unit normal per vertex.
    pub frames: &'a [(String, Vec<Vec3>, Vec<Vec3>)],
}

/// Encodes an MD2 file. Each frame is quantised to bytes over its own bounding box, so a
/// position is exact to within half of (box size / 255) per axis.
pub fn write(src: &Md2Source) -> Vec<u8> {
    let nv = src.uvs.len();
    let frame_bytes = 40 + 4 * nv;
    let (ofs_skins, ofs_st) = (HEADER_BYTES, HEADER_BYTES + 64);
    let ofs_tris = ofs_st + 4 * nv;
    let ofs_frames = ofs_tris + 12 * src.indices.len();
    let ofs_end = ofs_frames + frame_bytes * src.frames.len();
    let mut out = Vec::with_capacity(ofs_end);
    out.extend_from_slice(b"IDP2");
    let header = [
        8,
        src.skin_size.0 as i32,
        src.skin_size.1 as i32,
        frame_bytes as i32,
        1,
        nv as i32,
        nv as i32,
        src.indices.len() as i32,
        0,
        src.frames.len() as i32,
        ofs_skins as i32,
        ofs_st as i32,
        ofs_tris as i32,
        ofs_frames as i32,
        ofs_end as i32,
        ofs_end as i32,
    ];
    header.iter().for_each(|v: &i32| out.extend_from_slice(&v.to_le_bytes()));
    let mut name = [0u8; 64];
    for (d, s) in name.iter_mut().zip(src.skin.bytes().take(63)) {
        *d = s;
    }
    out.extend_from_slice(&name);
    for uv in src.uvs {
        let s = (uv.x * src.skin_size.0 as f32).round() as i16;
        let t = (uv.y * src.skin_size.1 as f32).round() as i16;
        out.extend_from_slice(&s.to_le_bytes());
        out.extend_from_slice(&t.to_le_bytes());
    }
    for tri in src.indices {
        // Back to Quake's clockwise order; texcoord index = vertex index (no welding).
        let [a, b, c] = [tri[0], tri[2], tri[1]].map(|i| i as u16);
        for v in [a, b, c, a, b, c] {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
    for (frame_name, positions, normals) in src.frames {
        let lo = positions.iter().fold(Vec3::splat(f32::INFINITY), |a, p| a.min(*p));
        let hi = positions.iter().fold(Vec3::splat(f32::NEG_INFINITY), |a, p| a.max(*p));
        let scale = ((hi - lo) / 255.0).max(Vec3::splat(1e-6));
        for v in scale.to_array().iter().chain(lo.to_array().iter()) {
            out.extend_from_slice(&v.to_le_bytes());
        }
        let mut name = [0u8; 16];
        for (d, s) in name.iter_mut().zip(frame_name.bytes().take(15)) {
            *d = s;
        }
        out.extend_from_slice(&name);
        for (p, n) in positions.iter().zip(normals) {
            let q = ((*p - lo) / scale).round().clamp(Vec3::ZERO, Vec3::splat(255.0));
            let normal_index = ANORMS
                .iter()
                .enumerate()
                .max_by(|a, b| n.dot(Vec3::from(*a.1)).total_cmp(&n.dot(Vec3::from(*b.1))))
                .map_or(0, |(i, _)| i as u8);
            out.extend_from_slice(&[q.x as u8, q.y as u8, q.z as u8, normal_index]);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_names_get_the_smallest_free_suffix() {
        // `x_201` names its clip `x_2` (variant digit), so the third `x` must skip to `x_3`,
        // and a later `x_2` stem (`x_2_2`) must not reuse a taken name either.
        let names = ["x", "x", "x_201", "x", "x_3", "x", "frames", "", "x_200", "x_2", "x_2"];
        let clips: Vec<String> = group_clips(&names).into_iter().map(|(n, _)| n).collect();
        let want = ["x", "x_2", "x_2_2", "x_3", "x_", "x_4", "frames", "frames_2", "x_2_3", "x__2", "x__3"];
        assert_eq!(clips, want);
    }

    #[test]
    fn clips_group_like_quake_2_player_models() {
        let mut names: Vec<String> = Vec::new();
        names.extend((1..=3).map(|i| format!("stand{i:02}")));
        names.extend((1..=6).map(|i| format!("run{i}")));
        names.extend((101..=104).map(|i| format!("pain{i}")));
        names.extend((201..=204).map(|i| format!("pain{i}")));
        names.extend((1..=2).map(|i| format!("paina{i}")));
        names.extend((1..=2).map(|i| format!("attak{i}")));
        names.extend(["boom1".to_string(), "salute_alt1".into(), "salute_alt2".into(), "run1".into()]);
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let clips: Vec<(String, usize)> = group_clips(&refs).into_iter().map(|(n, f)| (n, f.len())).collect();
        let want = [
            ("stand", 3),
            ("run", 6),
            ("pain1", 4),
            ("pain2", 4),
            ("paina", 2),
            ("attak", 2),
            ("boom", 1),
            ("salute_alt", 2),
            ("run_2", 1),
        ];
        assert_eq!(clips, want.map(|(n, c)| (n.to_string(), c)));
    }
}
