//! Quake 1 MDL (`IDPO`, version 6; binary, little-endian): one mesh, key-framed by whole
//! vertex sets like MD2, with its skins inside the file as 8-bit indices into the Quake palette.
//!
//! Layout, one section after the other (no offsets): an 84-byte header (scale, translate,
//! bounding radius, eye position, skin count and size, vertex, triangle and frame counts,
//! sync type, flags, size), the skins (each a single skin or a group of skins with their
//! intervals; a group shows its first), texture coordinates (`onseam, s, t`), triangles
//! (`facesfront` and three vertex indices), and frames (a simple frame, or a group of frames
//! with their intervals; a group's frames count as frames). A frame vertex is 3 bytes of
//! position, byte · scale + translate with the header's scale and translate, and an index into
//! the 162-entry normal table MD2 also uses. Files may carry more after the last frame (editors
//! append their own chunks, such as QME's `QMEX`): it is not read.
//!
//! Texture coordinates: one `(s, t)` per vertex in skin texels; a vertex on the seam between the
//! front and back halves of a skin (`onseam`) takes `s + skinwidth / 2` on triangles that face
//! back (`facesfront == 0`), so render vertices are unwelded by (vertex, shifted). Like GLQuake
//! and assimp, a texel's centre is sampled: `u = (s + 0.5) / skinwidth`. Triangles are clockwise
//! from the front as in MD2 and are reversed. Palette index 255 is drawn opaque (only
//! fullbright tricks make it transparent).
//!
//! Half-Life's studio models share the `.mdl` extension (`IDST`, version 10, and `IDSQ`
//! sequence groups): loading tells them apart by their magic and reads them with
//! [`studio`](super::studio); this parser, given one, says what it is.
//!
//! Every count is checked against limits and the file length before anything is allocated;
//! morph frames and the decoded skin are charged to the memory budget first.

use std::collections::HashMap;
use std::sync::Arc;

use glam::Vec2;

use super::binary::Bytes;
use super::md2::{MAX_FRAMES, MAX_SKINS, MAX_TRIANGLES, MAX_VERTICES, morph_model, unpack_frame};
use crate::budget::{MemoryBudget, bytes_for};
use crate::model::{Material, Model, Texture, TextureStatus};

const FORMAT: &str = "MDL";
const HEADER_BYTES: usize = 84;
/// Most skins or frames one group may hold.
const MAX_GROUP: usize = 1 << 10;
const MAX_SKIN_SIDE: usize = super::textures::MAX_TEXTURE_SIDE as usize;

/// The Quake palette (`gfx/palette.lmp`): 256 RGB colours.
static PALETTE: &[u8; 768] = include_bytes!("quake_palette.lmp");

/// Parses a Quake 1 MDL file within the default memory budget.
///
/// # Errors
/// A malformed file: wrong magic (a Half-Life `IDST` model says so) or version, counts outside
/// their limits, sections past the end of the file, vertex indices out of range, non-finite
/// numbers; the message names the byte offset. Frames or skin over the budget.
pub fn parse(bytes: &[u8]) -> crate::Result<Model> {
    parse_within(bytes, &MemoryBudget::default())
}

/// As [`parse`], charging the morph frames and the decoded skin to `budget` before they are
/// allocated.
///
/// # Errors
/// As [`parse`]; [`crate::Error::Budget`] over the budget.
pub fn parse_within(bytes: &[u8], budget: &MemoryBudget) -> crate::Result<Model> {
    let r = Bytes::new(FORMAT, bytes);
    let magic = r.bytes(0, 4)?;
    if magic == b"IDST" || magic == b"IDSQ" {
        let what = "a Half-Life studio model (`IDST`), read by the Half-Life loader, not as Quake 1 MDL (`IDPO`)";
        return Err(r.err(0, what).into());
    }
    if magic != b"IDPO" {
        return Err(r.err(0, "expected the magic `IDPO` (Quake 1 MDL)").into());
    }
    let version = r.i32(4)?;
    if version != 6 {
        return Err(r.err(4, format!("expected version 6, found {version}")).into());
    }
    r.bytes(0, HEADER_BYTES)?;
    let (scale, translate) = (r.vec3(8)?, r.vec3(20)?);
    let num_skins = r.count(48, 0, MAX_SKINS, "skin")?;
    let skin_w = r.count(52, 1, MAX_SKIN_SIDE, "skin width")?;
    let skin_h = r.count(56, 1, MAX_SKIN_SIDE, "skin height")?;
    let num_verts = r.count(60, 1, MAX_VERTICES, "vertex")?;
    let num_tris = r.count(64, 1, MAX_TRIANGLES, "triangle")?;
    let num_frames = r.count(68, 1, MAX_FRAMES, "frame")?;
    // Each section must fit before it is read; skins first.
    let texels = skin_w * skin_h;
    let mut at = HEADER_BYTES;
    let mut first_skin = None;
    for s in 0..num_skins {
        let kind = r.i32(at)?;
        let group = if kind == 0 { 1 } else { r.count(at + 4, 1, MAX_GROUP, "skin group")? };
        let images = if kind == 0 { at + 4 } else { at + 8 + 4 * group };
        r.fits(at, images, group, texels, &format!("skin {s} image"))?;
        first_skin.get_or_insert(images);
        at = images + group * texels;
    }
    let ofs_st = at;
    r.fits(ofs_st, ofs_st, num_verts, 12, "texture coordinate")?;
    let ofs_tris = ofs_st + 12 * num_verts;
    r.fits(ofs_tris, ofs_tris, num_tris, 16, "triangle")?;

    // Unweld: one render vertex per (vertex, shifted onto the skin's back half) pair.
    let mut pairs: Vec<(usize, bool)> = Vec::new();
    let mut lookup = HashMap::new();
    let mut indices = Vec::with_capacity(num_tris);
    for t in 0..num_tris {
        let tri = ofs_tris + 16 * t;
        let faces_front = r.i32(tri)? != 0;
        let mut corner = [0u32; 3];
        for (k, c) in corner.iter_mut().enumerate() {
            let v = r.i32(tri + 4 + 4 * k)?;
            let v = usize::try_from(v).ok().filter(|&v| v < num_verts).ok_or_else(|| {
                r.err(tri + 4 + 4 * k, format!("triangle {t}: vertex index {v} out of range (0..{num_verts})"))
            })?;
            let on_seam = r.i32(ofs_st + 12 * v)? != 0;
            let key = (v, on_seam && !faces_front);
            *c = *lookup.entry(key).or_insert_with(|| {
                pairs.push(key);
                pairs.len() as u32 - 1
            });
        }
        // Quake's triangles are clockwise from the front: reverse them.
        indices.push([corner[0], corner[2], corner[1]]);
    }
    let uvs = pairs
        .iter()
        .map(|&(v, shifted)| {
            let (s, t) = (r.i32(ofs_st + 12 * v + 4)? as f32, r.i32(ofs_st + 12 * v + 8)? as f32);
            let s = if shifted { s + (skin_w / 2) as f32 } else { s };
            // The texel's centre, as GLQuake samples it.
            Ok(Vec2::new((s + 0.5) / skin_w as f32, (t + 0.5) / skin_h as f32))
        })
        .collect::<Result<Vec<_>, super::FormatError>>()?;

    // Frames: find every simple frame (inside groups too) before anything is decoded.
    let frame_bytes = 24 + 4 * num_verts;
    let mut frames: Vec<usize> = Vec::new();
    at = ofs_tris + 16 * num_tris;
    for f in 0..num_frames {
        let kind = r.i32(at)?;
        let group = if kind == 0 { 1 } else { r.count(at + 4, 1, MAX_GROUP, "frame group")? };
        let first = if kind == 0 { at + 4 } else { at + 16 + 4 * group };
        r.fits(at, first, group, frame_bytes, &format!("frame {f} pose"))?;
        if frames.len() + group > MAX_FRAMES {
            return Err(r.err(at + 4, format!("expected at most {MAX_FRAMES} frames in all, found more")).into());
        }
        frames.extend((0..group).map(|k| first + k * frame_bytes));
        at = first + group * frame_bytes;
    }
    let frame_size = bytes_for(pairs.len() as u64, 2 * size_of::<glam::Vec3>());
    budget.charge(frame_size.saturating_mul(frames.len() as u64), || {
        format!("{} frames x {} vertices", frames.len(), pairs.len())
    })?;
    let mut morph_frames = Vec::with_capacity(frames.len());
    for &frame in &frames {
        let name = r.name(frame + 8, 16)?;
        let verts = r.bytes(frame + 24, 4 * num_verts)?;
        morph_frames.push(unpack_frame(name, verts, pairs.iter().map(|&(v, _)| v), scale, translate));
    }

    let mut material = Material::named("skin");
    if let Some(images) = first_skin {
        budget.charge(Texture::prepared_bytes(skin_w as u32, skin_h as u32), || {
            format!("skin of {skin_w}x{skin_h} texels")
        })?;
        let mut rgba = Vec::with_capacity(4 * texels);
        for &index in r.bytes(images, texels)? {
            let colour = PALETTE.get(3 * index as usize..3 * index as usize + 3).unwrap_or(&[0, 0, 0]);
            rgba.extend_from_slice(colour);
            rgba.push(255);
        }
        material.texture = Texture::new(skin_w as u32, skin_h as u32, rgba, true).map(Arc::new);
        material.texture_status = TextureStatus::Embedded("skin 0".into());
    }
    Ok(morph_model("mdl", material, uvs, indices, morph_frames))
}
