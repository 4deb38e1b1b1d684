//! Quake 1 MDL (`IDPO`, version 6; binary, little-endian): one mesh, key-framed by whole
//! vertex sets like MD2, with its skins inside the file as 8-bit indices into the Quake palette.
//!
//! Layout, one section after the other (no offsets): an 84-byte header (scale, translate,
//! bounding radius, eye position, skin count and size, vertex, triangle and frame counts,
//! sync type, flags, size), the skins (each a single skin or a group of skins with their
//! intervals), texture coordinates (`onseam, s, t`), triangles
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
//! fullbright tricks make it transparent). Palette entries 224 to 255 are fullbright: Quake's
//! colormap keeps them the same at every light level, so their texels glow ([`Texture::glow`])
//! and keep their colour however dark the light.
//!
//! Skins: the first, or the one `--skin N` picks (counted from 0). A group's images take turns
//! as Quake's software renderer plays them ([`MaterialCycle`]): its intervals are the times, in
//! seconds, at which each image ends, and a group whose interval is not above 0 is refused as
//! Quake refuses it. (GLQuake plays up to four of a group's images at 10 a second instead.)
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
use crate::model::{Material, MaterialCycle, Model, Texture, TextureStatus};

const FORMAT: &str = "MDL";
const HEADER_BYTES: usize = 84;
/// Most skins or frames one group may hold.
const MAX_GROUP: usize = 1 << 10;
const MAX_SKIN_SIDE: usize = super::textures::MAX_TEXTURE_SIDE as usize;

/// The Quake palette (`gfx/palette.lmp`): 256 RGB colours.
static PALETTE: &[u8; 768] = include_bytes!("quake_palette.lmp");

/// Parses a Quake 1 MDL file, showing its first skin, within the default memory budget.
///
/// # Errors
/// A malformed file: wrong magic (a Half-Life `IDST` model says so) or version, counts outside
/// their limits, sections past the end of the file, vertex indices out of range, non-finite
/// numbers, a skin group's interval not above 0; the message names the byte offset. Frames or
/// skin over the budget.
pub fn parse(bytes: &[u8]) -> crate::Result<Model> {
    parse_within(bytes, None, &MemoryBudget::default())
}

/// As [`parse`], showing skin `skin` (counted from 0; the first when `None`), charging the
/// morph frames and the decoded skin images to `budget` before they are allocated.
///
/// # Errors
/// As [`parse`]; [`crate::Error::BadOption`] for a `skin` the model does not have, naming how
/// many it has; [`crate::Error::Budget`] over the budget.
pub fn parse_within(bytes: &[u8], skin: Option<usize>, budget: &MemoryBudget) -> crate::Result<Model> {
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
    let mut skins = Vec::with_capacity(num_skins);
    for s in 0..num_skins {
        let kind = r.i32(at)?;
        let group = if kind == 0 { 1 } else { r.count(at + 4, 1, MAX_GROUP, "skin group")? };
        let images = if kind == 0 { at + 4 } else { at + 8 + 4 * group };
        r.fits(at, images, group, texels, &format!("skin {s} image"))?;
        skins.push(Skin { number: s, images, count: group, intervals: (kind != 0).then_some(at + 8) });
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

    let shown = match (skin, skins.is_empty()) {
        (None, true) => None,
        (chosen, _) => Some(chosen_skin(&skins, chosen.unwrap_or(0))?),
    };
    let Some(skin) = shown else {
        return Ok(morph_model("mdl", Material::named("skin"), uvs, indices, morph_frames));
    };
    let mut materials = skin_materials(&r, skin, (skin_w, skin_h), budget)?.into_iter();
    let first = materials.next().unwrap_or_else(|| Material::named("skin"));
    let mut model = morph_model("mdl", first, uvs, indices, morph_frames);
    model.materials.extend(materials);
    model.material_cycles.extend(skin_cycle(&r, skin)?);
    Ok(model)
}

/// One skin of the file: a single image, or a group of images with their intervals.
struct Skin {
    /// Its place among the file's skins, from 0.
    number: usize,
    /// Offset of its first image; the others follow.
    images: usize,
    /// How many images: 1 for a single skin.
    count: usize,
    /// A group's intervals (one `f32` an image), by offset.
    intervals: Option<usize>,
}

/// Skin `number` of `skins`.
///
/// # Errors
/// [`crate::Error::BadOption`] naming how many skins the model has when it has no such skin.
fn chosen_skin(skins: &[Skin], number: usize) -> crate::Result<&Skin> {
    skins.get(number).ok_or_else(|| {
        let expected = match skins.len() {
            0 => "a skin of this model, which has none".to_string(),
            1 => "a skin of this model, which has 1 skin: 0".to_string(),
            n => format!("a skin of this model, which has {n} skins: 0 to {}", n - 1),
        };
        crate::Error::bad_option("skin", number, expected)
    })
}

/// The materials of `skin`, one an image, each image charged to `budget` before it is decoded.
fn skin_materials(
    r: &Bytes,
    skin: &Skin,
    (w, h): (usize, usize),
    budget: &MemoryBudget,
) -> crate::Result<Vec<Material>> {
    let mut materials = Vec::with_capacity(skin.count);
    for image in 0..skin.count {
        budget.charge(Texture::prepared_bytes(w as u32, h as u32), || format!("skin of {w}x{h} texels"))?;
        let indices = r.bytes(skin.images + image * w * h, w * h)?;
        let texture = skin_texture(indices, (w, h), budget)?;
        let mut material = Material::named("skin");
        material.texture = texture.map(Arc::new);
        material.texture_status = TextureStatus::Embedded(match image {
            0 => format!("skin {}", skin.number),
            i => format!("skin {}, image {i} of its group", skin.number),
        });
        materials.push(material);
    }
    Ok(materials)
}

/// The first of Quake's fullbright palette entries: the colormap keeps the last 32 colours
/// the same at every light level, so they glow.
const FULLBRIGHT: u8 = 224;

/// A skin image of `w`×`h` palette indices through the Quake palette, its fullbright texels
/// marked to glow ([`Texture::glow`]); a skin with any is charged its glowing layer too.
fn skin_texture(indices: &[u8], (w, h): (usize, usize), budget: &MemoryBudget) -> crate::Result<Option<Texture>> {
    let mut rgba = Vec::with_capacity(4 * w * h);
    for &index in indices {
        let colour = PALETTE.get(3 * index as usize..3 * index as usize + 3).unwrap_or(&[0, 0, 0]);
        rgba.extend_from_slice(colour);
        rgba.push(255);
    }
    let Some(mut texture) = Texture::new(w as u32, h as u32, rgba, true) else { return Ok(None) };
    if indices.iter().any(|&i| i >= FULLBRIGHT) {
        // The mask and the renderer's chain of the glowing texels: less than another skin.
        budget
            .charge(Texture::prepared_bytes(w as u32, h as u32), || format!("fullbright texels of a {w}x{h} skin"))?;
        texture.glow = Some(indices.iter().map(|&i| i >= FULLBRIGHT).collect());
    }
    Ok(Some(texture))
}

/// The turns of a group of several images, as materials 0, 1, ... of the model.
///
/// # Errors
/// An interval that is not above 0 (Quake's loader refuses the model), at its offset.
fn skin_cycle(r: &Bytes, skin: &Skin) -> Result<Option<MaterialCycle>, super::FormatError> {
    let Some(intervals) = skin.intervals.filter(|_| skin.count > 1) else { return Ok(None) };
    let mut ends = Vec::with_capacity(skin.count);
    for image in 0..skin.count {
        let at = intervals + 4 * image;
        let end = r.f32(at)?;
        if end <= 0.0 {
            let what = format!("skin {}: image {image} ends at {end} seconds, expected a time above 0", skin.number);
            return Err(r.err(at, what));
        }
        ends.push(end);
    }
    Ok(Some(MaterialCycle { material: 0, turns: (0..skin.count).collect(), ends }))
}
