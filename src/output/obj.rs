//! Posed-mesh export as Wavefront OBJ + MTL, so a frame can be inspected in other tools or
//! compared with other renderers (the llvmpipe peer renders these files).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use glam::Mat3;

use super::{OutputFormat, OutputPlan, sanitize_component};
use crate::model::{PosedMesh, TextureStatus};

/// The files of an OBJ export, encoded but not written: the command plans them, then writes
/// them in one transaction.
#[derive(Debug, Clone, PartialEq)]
pub struct ObjExport {
    /// The OBJ file: where, and its text.
    pub obj: (PathBuf, String),
    /// The material library beside it (same stem, `.mtl`).
    pub mtl: (PathBuf, String),
    /// Textures to copy beside the OBJ: (source, destination). A texture already at its
    /// destination is not listed.
    pub textures: Vec<(PathBuf, PathBuf)>,
}

impl ObjExport {
    /// Adds every file of the export to `plan`.
    pub fn plan(&self, plan: &mut OutputPlan) {
        plan.add(&self.obj.0, OutputFormat::Obj).add(&self.mtl.0, OutputFormat::Mtl);
        for (_, dest) in &self.textures {
            plan.add(dest, OutputFormat::Copy);
        }
    }
}

/// Encodes `posed` as `path` (OBJ) plus a material library next to it (same stem, `.mtl`) and
/// copies of its textures.
///
/// Positions and normals are transformed by `axes` (identity keeps the model file's own axes;
/// `Orientation::to_canonical` gives Y-up). UVs are written bottom-up as OBJ expects. Material
/// and texture names from the model go through [`sanitize_component`], so the MTL cannot be
/// given extra lines and a copied texture lands beside the OBJ.
pub fn encode_obj(path: &Path, posed: &PosedMesh, axes: Mat3) -> ObjExport {
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "posed".into());
    let mtl_name = format!("{stem}.mtl");
    let mut obj = format!("# posed mesh exported by spritebake\nmtllib {mtl_name}\n");
    let mut mtl = String::from("# materials exported by spritebake\n");
    let mut textures = Vec::new();
    let mut base = 1usize; // OBJ indices are 1-based and global across objects
    for (i, part) in posed.parts.iter().enumerate() {
        let name = sanitize_component(&part.material.name).replace(char::is_whitespace, "_");
        let material = format!("m{i}_{name}");
        let [r, g, b, a] = part.material.base_color;
        writeln!(mtl, "newmtl {material}\nKd {r} {g} {b}\nd {a}").ok();
        if let TextureStatus::Found(texture) = &part.material.texture_status {
            if let Some(file_name) = texture.file_name() {
                let copy_name = sanitize_component(&file_name.to_string_lossy());
                let copy = path.with_file_name(&copy_name);
                let already_there = std::fs::canonicalize(texture).ok() == std::fs::canonicalize(&copy).ok();
                if !already_there && !textures.iter().any(|(s, d)| *d == copy && s == texture) {
                    textures.push((texture.clone(), copy));
                }
                writeln!(mtl, "map_Kd {copy_name}").ok();
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
    ObjExport { obj: (path.to_path_buf(), obj), mtl: (path.with_file_name(mtl_name), mtl), textures }
}
