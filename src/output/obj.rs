//! Posed-mesh export as Wavefront OBJ + MTL, so a frame can be inspected in other tools or
//! compared with other renderers (the llvmpipe peer renders these files).

use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use glam::Mat3;

use super::{OutputFormat, OutputPlan, encode_rgba_png, sanitize_component};
use crate::error::Result;
use crate::model::{PosedMesh, Texture, TextureStatus};
use crate::raster::linear_to_srgb_exact;

/// The files of an OBJ export, encoded but not written: the command plans them, then writes
/// them in one transaction.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ObjExport {
    /// The OBJ file: where, and its text.
    pub obj: (PathBuf, String),
    /// The material library beside it (same stem, `.mtl`).
    pub mtl: (PathBuf, String),
    /// Texture files to copy beside the OBJ: (source, destination). A texture already at its
    /// destination is not listed.
    pub textures: Vec<(PathBuf, PathBuf)>,
    /// Textures the model holds rather than names (glTF images embedded in a GLB buffer or a
    /// data URI), encoded as PNG to be written beside the OBJ: (destination, PNG bytes).
    pub images: Vec<(PathBuf, Vec<u8>)>,
}

impl ObjExport {
    /// Adds every file of the export to `plan`.
    pub(crate) fn plan(&self, plan: &mut OutputPlan) {
        plan.add(&self.obj.0, OutputFormat::Obj).add(&self.mtl.0, OutputFormat::Mtl);
        for (_, dest) in &self.textures {
            plan.add(dest, OutputFormat::Copy);
        }
        for (dest, _) in &self.images {
            plan.add(dest, OutputFormat::Png);
        }
    }
}

/// File names given to the textures of one export, each once: a name already taken by
/// another texture (or by the OBJ and MTL themselves) gets `_2`, `_3`... before its
/// extension. Names are compared without regard to case, as some file systems do.
#[derive(Default)]
struct Names {
    taken: HashSet<String>,
}

impl Names {
    /// A free name for `wanted` (already a safe file name).
    fn claim(&mut self, wanted: &str) -> String {
        let path = Path::new(wanted);
        let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let ext = path.extension().map(|e| format!(".{}", e.to_string_lossy())).unwrap_or_default();
        let mut name = wanted.to_string();
        let mut n = 1;
        while !self.taken.insert(name.to_lowercase()) {
            n += 1;
            name = format!("{stem}_{n}{ext}");
        }
        name
    }
}

/// A texture file name that an MTL `map_Kd` line reads back as written: safe as a file name
/// ([`sanitize_component`]), no surrounding spaces, no leading `-` (read as an option).
fn map_name(name: &str) -> String {
    let name = sanitize_component(name.trim());
    match name.strip_prefix('-') {
        Some(rest) => format!("_{rest}"),
        None => name,
    }
}

/// Encodes `posed` as `path` (OBJ) plus a material library next to it (same stem, `.mtl`) and
/// its textures: copies of the texture files it found, and the images it holds inside the
/// model file (glTF embedded images) encoded as PNG, each named by the MTL's `map_Kd`.
///
/// Positions and normals are transformed by `axes` (identity keeps the model file's own axes;
/// `Orientation::to_canonical` gives OBJ's convention, Y-up facing +Z, the renderer's world
/// frame). UVs are written bottom-up as OBJ expects. Material and texture names from the model
/// go through [`sanitize_component`], so the MTL cannot be given extra lines and every texture
/// lands beside the OBJ; two different textures never share a name.
///
/// # Errors
/// An embedded texture that cannot be encoded as PNG.
pub(crate) fn encode_obj(path: &Path, posed: &PosedMesh, axes: Mat3) -> Result<ObjExport> {
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "posed".into());
    let mtl_name = format!("{stem}.mtl");
    let mut obj = format!("# posed mesh exported by spritebake\nmtllib {mtl_name}\n");
    let mut mtl = String::from("# materials exported by spritebake\n");
    let mut names = Names::default();
    for own in [path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(), mtl_name.clone()] {
        names.claim(&own);
    }
    let mut textures: Vec<(PathBuf, PathBuf)> = Vec::new();
    let mut images: Vec<(PathBuf, Vec<u8>)> = Vec::new();
    // The name each texture file or embedded image was given, so a texture shared by several
    // parts is written once.
    let mut copied: Vec<(PathBuf, String)> = Vec::new();
    let mut encoded: Vec<(Arc<Texture>, String)> = Vec::new();
    let mut base = 1usize; // OBJ indices are 1-based and global across objects
    // Vertex colours go on every `v` line or none: a reader pairs them with positions by index.
    let coloured = posed.parts.iter().any(|p| !p.colors.is_empty());
    for (i, part) in posed.parts.iter().enumerate() {
        let name = sanitize_component(&part.material.name).replace(char::is_whitespace, "_");
        let material = format!("m{i}_{name}");
        let [r, g, b, a] = part.material.base_color;
        writeln!(mtl, "newmtl {material}\nKd {r} {g} {b}\nd {a}").ok();
        let map = match (&part.material.texture_status, &part.material.texture) {
            (TextureStatus::Found(texture), _) => match copied.iter().find(|(source, _)| source == texture) {
                Some((_, name)) => Some(name.clone()),
                None => texture.file_name().map(|file_name| {
                    let copy_name = names.claim(&map_name(&file_name.to_string_lossy()));
                    let copy = path.with_file_name(&copy_name);
                    let canonical = |p: &Path| std::fs::canonicalize(p).ok();
                    let already_there = canonical(texture).is_some_and(|c| Some(c) == canonical(&copy));
                    if !already_there {
                        textures.push((texture.clone(), copy));
                    }
                    copied.push((texture.clone(), copy_name.clone()));
                    copy_name
                }),
            },
            (TextureStatus::Embedded(_), Some(texture)) => {
                match encoded.iter().find(|(t, _)| Arc::ptr_eq(t, texture)) {
                    Some((_, name)) => Some(name.clone()),
                    None => {
                        let image_name = names.claim(&map_name(&format!("{stem}_image{}.png", encoded.len())));
                        let png = encode_rgba_png(texture.width, texture.height, &texture.rgba)?;
                        images.push((path.with_file_name(&image_name), png));
                        encoded.push((texture.clone(), image_name.clone()));
                        Some(image_name)
                    }
                }
            }
            _ => None,
        };
        if let Some(map) = map {
            writeln!(mtl, "map_Kd {map}").ok();
        }
        writeln!(obj, "o part{i}\nusemtl {material}").ok();
        for (k, p) in part.positions.iter().enumerate() {
            let p = axes * *p;
            match coloured {
                // In sRGB, as Blender writes and reads them; OBJ has no alpha.
                true => {
                    let rgb = part.colors.get(k).map_or([1.0; 3], |c| [c[0], c[1], c[2]]);
                    // Four decimals: finer than a byte, and 1 stays `1`, not `0.99999994`.
                    let [r, g, b] = rgb.map(|c| (linear_to_srgb_exact(c.clamp(0.0, 1.0)) * 1e4).round() / 1e4);
                    writeln!(obj, "v {} {} {} {r} {g} {b}", p.x, p.y, p.z).ok()
                }
                false => writeln!(obj, "v {} {} {}", p.x, p.y, p.z).ok(),
            };
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
    Ok(ObjExport { obj: (path.to_path_buf(), obj), mtl: (path.with_file_name(mtl_name), mtl), textures, images })
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use glam::{Vec2, Vec3};

    use super::*;
    use crate::model::{Material, PosedPart};

    #[test]
    fn every_texture_gets_a_name_of_its_own_beside_the_obj() {
        let textured = |status: TextureStatus, texture: Option<Arc<Texture>>| Material {
            texture_status: status,
            texture,
            ..Material::named("m")
        };
        let image = Arc::new(Texture::new(1, 1, vec![1, 2, 3, 4], true).unwrap());
        let materials = [
            textured(TextureStatus::Found("/a/skin.png".into()), None),
            textured(TextureStatus::Found("/b/SKIN.png".into()), None),
            textured(TextureStatus::Found("/a/skin.png".into()), None),
            textured(TextureStatus::Embedded("embedded image 0".into()), Some(image.clone())),
            textured(TextureStatus::Embedded("embedded image 0".into()), Some(image)),
            textured(TextureStatus::Found("/c/-s 1.png".into()), None),
            textured(TextureStatus::Found("/d/out.mtl".into()), None),
        ];
        let (positions, uvs, indices) = ([Vec3::ZERO; 3], [Vec2::ZERO; 3], [[0u32, 1, 2]]);
        let parts = materials
            .iter()
            .map(|material| PosedPart {
                positions: Cow::Borrowed(&positions),
                normals: Cow::Borrowed(&positions),
                uvs: &uvs,
                colors: &[],
                indices: &indices,
                material,
                shared: None,
            })
            .collect();
        let export = encode_obj(Path::new("/out/out.obj"), &PosedMesh { parts }, Mat3::IDENTITY).unwrap();
        let maps: Vec<&str> = export.mtl.1.lines().filter_map(|l| l.strip_prefix("map_Kd ")).collect();
        // A second file of the same name (in any case) is renamed; a file used twice and an
        // image shared by two parts are written once; a leading '-' would read as an option;
        // the OBJ's and MTL's own names are taken.
        assert_eq!(
            maps,
            ["skin.png", "SKIN_2.png", "skin.png", "out_image0.png", "out_image0.png", "_s 1.png", "out_2.mtl"]
        );
        let copies: Vec<(&str, &str)> = export
            .textures
            .iter()
            .map(|(s, d)| (s.to_str().unwrap(), d.file_name().unwrap().to_str().unwrap()))
            .collect();
        assert_eq!(
            copies,
            [
                ("/a/skin.png", "skin.png"),
                ("/b/SKIN.png", "SKIN_2.png"),
                ("/c/-s 1.png", "_s 1.png"),
                ("/d/out.mtl", "out_2.mtl")
            ]
        );
        assert_eq!(export.images.len(), 1);
        assert_eq!(export.images[0].0, Path::new("/out/out_image0.png"));
        assert!(export.images[0].1.starts_with(b"\x89PNG"));
    }

    #[test]
    fn vertex_colours_are_written_in_srgb_on_every_vertex_and_read_back() {
        let (positions, uvs, indices) = ([Vec3::ZERO, Vec3::X, Vec3::Y], [Vec2::ZERO; 3], [[0u32, 1, 2]]);
        let colours = [[0.214, 0.0, 1.0, 1.0], [1.0, 0.5, 0.0, 0.5], [0.0, 0.0, 0.0, 1.0]];
        let material = Material::named("m");
        let coloured = PosedPart {
            positions: Cow::Borrowed(&positions),
            normals: Cow::Borrowed(&positions),
            uvs: &uvs,
            colors: &colours,
            indices: &indices,
            material: &material,
            shared: None,
        };
        // A part without colours beside one with them is written white.
        let posed = PosedMesh { parts: vec![coloured.clone(), PosedPart { colors: &[], ..coloured }] };
        let export = encode_obj(Path::new("/out/out.obj"), &posed, Mat3::IDENTITY).unwrap();
        let v: Vec<&str> = export.obj.1.lines().filter(|l| l.starts_with("v ")).collect();
        assert_eq!(v.len(), 6);
        assert!(v[0].starts_with("v 0 0 0 0.5") && v[5].ends_with(" 1 1 1"), "{v:?}");
        let model = crate::formats::obj::parse(export.obj.1.as_bytes(), &mut |_| None).unwrap();
        for (read, written) in model.meshes[0].colors.iter().zip(colours) {
            for c in 0..3 {
                assert!((read[c] - written[c]).abs() < 1e-3, "{read:?} {written:?}");
            }
        }
        assert!(model.meshes[1].colors.iter().all(|c| *c == [1.0; 4]));
    }
}
