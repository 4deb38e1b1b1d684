//! Quake 3 MD3 (`IDP3`, version 15; binary, little-endian): vertex-animated surfaces, each a
//! mesh with its own shader (texture) name, sharing the file's frames.
//!
//! Layout: a 108-byte header (name, frame, tag and surface counts and offsets), the frames
//! (bounds, origin, radius and a name — the exporter's, not an animation's), the tags (one set
//! a frame), then the surfaces, each with a 108-byte header of its own whose offsets count
//! from the surface's start: shaders (64-byte names), triangles (three vertex indices),
//! texture coordinates (`s, t`, top-left origin as Quake 3 loads images) and, frame after
//! frame, vertices (three `i16` in 1/64 units and a normal packed as two bytes of latitude
//! and longitude).
//!
//! Decisions: triangles are clockwise from the front as in Quake 3 and are reversed. Frame
//! names are not clip names (exporters write their own name into every frame), so a file of
//! several frames has one clip, `frames`, of all of them at Quake 3's 10 fps per the cfg
//! files' common rate; one frame is a static model. A surface's first shader names its
//! texture: a declaration of the game's shader scripts ([`q3shader`](super::q3shader), read
//! by the loader), else an image path. Tags (frames of reference: `tag_weapon`, and
//! `tag_torso` and `tag_head`, which [`md3_player`](super::md3_player) joins a player
//! folder's parts by) become the model's [`Tag`]s, where `--attach FILE@TAG` hangs a model.

use glam::{Affine3A, Vec2, Vec3};

use super::binary::Bytes;
use crate::budget::{MemoryBudget, bytes_for};
use crate::model::{Clip, ClipFrames, Material, Mesh, Model, MorphFrame, Orientation, Tag};

const FORMAT: &str = "MD3";
const HEADER_BYTES: usize = 108;
const SURFACE_HEADER_BYTES: usize = 108;
const FRAME_BYTES: usize = 56;
const SHADER_BYTES: usize = 68;
const TRIANGLE_BYTES: usize = 12;
const ST_BYTES: usize = 8;
const VERTEX_BYTES: usize = 8;
const TAG_BYTES: usize = 112;
const MAX_TAGS: usize = 64;
/// Quake 3's own limits are 1024 frames, 32 surfaces, 4096 vertices and 8192 triangles a
/// surface; allow more for community models, far less than a hostile header claims.
const MAX_FRAMES: usize = 4096;
const MAX_SURFACES: usize = 256;
const MAX_SHADERS: usize = 256;
const MAX_VERTICES: usize = 1 << 16;
const MAX_TRIANGLES: usize = 1 << 17;
/// Quake 3's `animation.cfg` files play most clips at 10 to 20 fps; a bare MD3 says nothing.
pub const DEFAULT_FPS: f32 = 10.0;

/// Parses an MD3 file, charging its frames to `budget` before they are allocated.
///
/// # Errors
/// A malformed file (wrong magic or version, counts over the limits, sections past the end,
/// vertex indices out of range, non-finite numbers; the message names the byte offset), or
/// frames over the budget.
pub fn parse_within(bytes: &[u8], budget: &MemoryBudget) -> crate::Result<Model> {
    let r = Bytes::new(FORMAT, bytes);
    if r.bytes(0, 4)? != b"IDP3" {
        return Err(r.err(0, "expected the magic IDP3 (Quake 3 MD3)").into());
    }
    let version = r.i32(4)?;
    if version != 15 {
        return Err(r.err(4, format!("expected version 15, found {version}")).into());
    }
    r.bytes(0, HEADER_BYTES)?;
    let frames = r.count(76, 1, MAX_FRAMES, "frame")?;
    let frames_at = r.count(92, 0, i32::MAX as usize, "frame offset")?;
    r.fits(92, frames_at, frames, FRAME_BYTES, "frame")?;
    let surfaces = r.count(84, 0, MAX_SURFACES, "surface")?;
    let mut at = r.count(100, 0, i32::MAX as usize, "surface offset")?;
    let mut model = Model { orientation: Orientation::Z_UP_FACING_X, ..Model::default() };
    for _ in 0..surfaces {
        let (mesh, material, size) = surface(&r, at, frames, budget)?;
        model.meshes.push(Mesh { material: model.materials.len(), ..mesh });
        model.materials.push(material);
        at = at.checked_add(size).ok_or_else(|| r.err(at + 104, "the surface's end overflows"))?;
    }
    model.tags = tags(&r, frames)?;
    if frames > 1 {
        model.clips.push(Clip {
            name: "frames".into(),
            fps: DEFAULT_FPS,
            frames: ClipFrames::Morph((0..frames).collect()),
            frame_bounds: Vec::new(),
            retarget: None,
            plays_once: false,
        });
    }
    Ok(model)
}

/// The tags, named as in the first frame, each with its placement in every frame: an origin
/// and three axes, the columns of the tag's rotation. (Bounded by the file: a stored tag takes
/// more bytes than its placement.)
fn tags(r: &Bytes, frames: usize) -> crate::Result<Vec<Tag>> {
    let count = r.count(80, 0, MAX_TAGS, "tag")?;
    let at = r.count(96, 0, i32::MAX as usize, "tag offset")?;
    r.fits(96, at, frames * count, TAG_BYTES, "tag")?;
    (0..count)
        .map(|t| {
            let frames = (0..frames)
                .map(|f| {
                    let tag = at + (f * count + t) * TAG_BYTES;
                    let [origin, x, y, z] = [64, 76, 88, 100].map(|o| r.vec3(tag + o));
                    Ok(Affine3A::from_cols(x?.into(), y?.into(), z?.into(), origin?.into()))
                })
                .collect::<crate::Result<Vec<_>>>()?;
            Ok(Tag { name: r.name(at + t * TAG_BYTES, 64)?, frames })
        })
        .collect()
}

/// The surface at `at`: its mesh, its material and its size in bytes.
fn surface(r: &Bytes, at: usize, frames: usize, budget: &MemoryBudget) -> crate::Result<(Mesh, Material, usize)> {
    if r.bytes(at, 4)? != b"IDP3" {
        return Err(r.err(at, "expected a surface (IDP3)").into());
    }
    r.bytes(at, SURFACE_HEADER_BYTES)?;
    let name = r.name(at + 4, 64)?;
    let surface_frames = r.count(at + 72, 0, MAX_FRAMES, "surface frame")?;
    if surface_frames != frames {
        let message = format!("surface '{name}' has {surface_frames} frames, the file {frames}");
        return Err(r.err(at + 72, message).into());
    }
    // Each table's offset counts from the surface's start.
    let table = |count_field: usize, offset_field: usize, max: usize, record: usize, what: &str| {
        let count = r.count(at + count_field, 0, max, what)?;
        let offset = r.count(at + offset_field, 0, i32::MAX as usize, &format!("{what} offset"))?;
        let offset = at.checked_add(offset).ok_or_else(|| r.err(at + offset_field, "offset overflows"))?;
        r.fits(at + offset_field, offset, count, record, what).map(|()| (count, offset))
    };
    let (shaders, shaders_at) = table(76, 92, MAX_SHADERS, SHADER_BYTES, "shader")?;
    let vertices = r.count(at + 80, 0, MAX_VERTICES, "vertex")?;
    let (triangles, triangles_at) = table(84, 88, MAX_TRIANGLES, TRIANGLE_BYTES, "triangle")?;
    let st_at = at + r.count(at + 96, 0, i32::MAX as usize, "texture coordinate offset")?;
    r.fits(at + 96, st_at, vertices, ST_BYTES, "texture coordinate")?;
    let xyz_at = at + r.count(at + 100, 0, i32::MAX as usize, "vertex offset")?;
    r.fits(at + 100, xyz_at, vertices * frames, VERTEX_BYTES, "frame vertex")?;
    let size = r.count(at + 104, SURFACE_HEADER_BYTES, i32::MAX as usize, "surface size")?;
    // Surfaces may share one triangle table: each is charged for the copy it makes.
    let bytes = bytes_for((vertices * frames) as u64, 24)
        .saturating_add(bytes_for(triangles as u64, size_of::<[u32; 3]>()))
        .saturating_add(bytes_for(vertices as u64, size_of::<Vec2>()));
    budget.charge(bytes, || {
        format!("{FORMAT}: surface '{name}', {frames} frames x {vertices} vertices, {triangles} triangles")
    })?;
    let mut indices = Vec::with_capacity(triangles);
    for t in 0..triangles {
        let field = triangles_at + t * TRIANGLE_BYTES;
        let mut corner = [0u32; 3];
        for (k, c) in corner.iter_mut().enumerate() {
            let v = r.count(field + 4 * k, 0, vertices.saturating_sub(1), "vertex index")?;
            *c = v as u32;
        }
        // Clockwise from the front in Quake 3: reversed.
        indices.push([corner[0], corner[2], corner[1]]);
    }
    let uvs = (0..vertices)
        .map(|v| Ok(Vec2::new(r.f32(st_at + v * ST_BYTES)?, r.f32(st_at + v * ST_BYTES + 4)?)))
        .collect::<crate::Result<Vec<_>>>()?;
    let morph_frames = (0..frames)
        .map(|f| {
            let (mut positions, mut normals) = (Vec::with_capacity(vertices), Vec::with_capacity(vertices));
            for v in 0..vertices {
                let rec = xyz_at + (f * vertices + v) * VERTEX_BYTES;
                let coordinate = |k: usize| r.u16(rec + 2 * k).map(|c| f32::from(c as i16) / 64.0);
                positions.push(Vec3::new(coordinate(0)?, coordinate(1)?, coordinate(2)?));
                normals.push(normal(r.u16(rec + 6)?));
            }
            Ok(MorphFrame { name: format!("frame{f}"), positions, normals })
        })
        .collect::<crate::Result<Vec<_>>>()?;
    let mut material = Material::named(name.clone());
    if shaders > 0 {
        material.texture_name = Some(r.name(shaders_at, 64)?).filter(|n| !n.is_empty());
    }
    Ok((Mesh::morphed(name, 0, uvs, indices, morph_frames), material, size))
}

/// A normal packed as Quake 3 packs it: latitude in the high byte, longitude in the low one,
/// each a fraction of a full turn in 255ths.
fn normal(packed: u16) -> Vec3 {
    let turn = std::f32::consts::TAU / 255.0;
    let (lat, lng) = (f32::from((packed >> 8) as u8) * turn, f32::from(packed as u8) * turn);
    Vec3::new(lat.cos() * lng.sin(), lat.sin() * lng.sin(), lng.cos())
}
