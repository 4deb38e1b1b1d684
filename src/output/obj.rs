//! Posed-mesh export as Wavefront OBJ + MTL, so a frame can be inspected in other tools or
//! compared with other renderers (the llvmpipe peer renders these files).

use std::fmt::Write as _;
use std::path::Path;

use glam::Mat3;

use super::write_atomic;
use crate::error::Result;
use crate::model::{PosedMesh, TextureStatus};

/// Writes `posed` as `path` (OBJ) plus a material library next to it (same stem, `.mtl`).
///
/// Positions and normals are transformed by `axes` (identity keeps the model file's own axes;
/// `Orientation::to_canonical` gives Y-up). UVs are written bottom-up as OBJ expects. Texture
/// paths are written as absolute paths of the files the loader found.
///
/// # Errors
/// Either file cannot be written.
pub fn write_obj(path: &Path, posed: &PosedMesh, axes: Mat3) -> Result<()> {
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "posed".into());
    let mtl_name = format!("{stem}.mtl");
    let mut obj = format!("# posed mesh exported by spritebake\nmtllib {mtl_name}\n");
    let mut mtl = String::from("# materials exported by spritebake\n");
    let mut base = 1usize; // OBJ indices are 1-based and global across objects
    for (i, part) in posed.parts.iter().enumerate() {
        let material = format!("m{i}_{}", part.material.name.replace(char::is_whitespace, "_"));
        let [r, g, b, a] = part.material.base_color;
        writeln!(mtl, "newmtl {material}\nKd {r} {g} {b}\nd {a}").ok();
        if let TextureStatus::Found(texture) = &part.material.texture_status {
            if let Some(name) = texture.file_name() {
                let copy = path.with_file_name(name);
                let same = std::fs::canonicalize(texture).ok() == std::fs::canonicalize(&copy).ok();
                if !same {
                    let bytes = std::fs::read(texture).map_err(|e| crate::Error::io(texture, e))?;
                    write_atomic(&copy, &bytes)?;
                }
                writeln!(mtl, "map_Kd {}", name.to_string_lossy()).ok();
            }
        }
        writeln!(obj, "o part{i}\nusemtl {material}").ok();
        for p in part.positions.iter() {
            let p = axes * *p;
            writeln!(obj, "v {} {} {}", p.x, p.y, p.z).ok();
        }
        for n in part.normals.iter() {
            let n = axes * *n;
            writeln!(obj, "vn {} {} {}", n.x, n.y, n.z).ok();
        }
        for t in part.uvs.iter() {
            writeln!(obj, "vt {} {}", t.x, 1.0 - t.y).ok();
        }
        let has_uv = part.uvs.len() == part.positions.len();
        for tri in part.indices {
            let [a, b, c] = tri.map(|v| v as usize + base);
            if has_uv {
                writeln!(obj, "f {a}/{a}/{a} {b}/{b}/{b} {c}/{c}/{c}").ok();
            } else {
                writeln!(obj, "f {a}//{a} {b}//{b} {c}//{c}").ok();
            }
        }
        base += part.positions.len();
    }
    write_atomic(&path.with_file_name(&mtl_name), mtl.as_bytes())?;
    write_atomic(path, obj.as_bytes())
}
