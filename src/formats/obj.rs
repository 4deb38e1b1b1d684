//! Wavefront OBJ + MTL, on the `tobj` crate.
//!
//! `tobj` does the parsing, triangulation (polygons fanned) and the single-index unwelding
//! (one position/uv/normal per render vertex); this module adds what it lacks for untrusted
//! input: a validation pass that names the line of the first bad number or out-of-range face
//! index (tobj reports only "face vertex index out of bounds"), decoding of UTF-16 and Latin-1
//! files, and the conversion to [`Model`]: one mesh per tobj model (tobj splits at `usemtl`),
//! uv flipped to the top-left convention, missing normals computed from the faces, vertex
//! colours (`v x y z r g b`) read as sRGB, as Blender reads and writes them. Polylines
//! (`l`) and points (`p`) are not drawn: they are left out before tobj reads the file and
//! counted in a warning.
//!
//! Rejected alternative: our own OBJ parser. tobj is well fuzzed and handles the format's many
//! corners (negative indices, `\` line continuations, quads, groups); we only wrap it.

use std::cell::{Cell, RefCell};
use std::io::BufRead;
use std::path::Path;

use glam::{Vec2, Vec3};

use super::FormatError;
use crate::error::excerpt;
use crate::model::{AlphaMode, Material, Mesh, Model, Orientation};

const FORMAT: &str = "OBJ";

/// What parsing a material library costs in memory, from its bytes alone: each `newmtl`
/// becomes a material of about [`MATERIAL_BYTES`] (names, maps, tobj's and spritebake's copies),
/// plus the library's text, decoded and cleaned (twice its size). A 1 MB library of bare
/// `newmtl` lines holds 100,000 materials: about 100 MB.
pub fn material_library_bytes(bytes: &[u8]) -> u64 {
    let materials = bytes.split(|&b| b == b'\n').filter(|l| l.trim_ascii_start().starts_with(b"newmtl")).count();
    (materials as u64).saturating_mul(MATERIAL_BYTES).saturating_add((bytes.len() as u64).saturating_mul(2))
}

/// Memory one parsed material takes, bytes (measured: 100,000 bare materials need ~90 MB).
pub const MATERIAL_BYTES: u64 = 1024;

/// Parses an OBJ file; `load_mtl` returns the bytes of a material library named by `mtllib`
/// (relative to the OBJ's folder). Texture names are made relative to the OBJ's folder.
///
/// # Errors
/// Non-finite or malformed numbers, face indices out of range, no triangles at all.
pub fn parse(src: &[u8], load_mtl: &mut dyn FnMut(&str) -> Option<Vec<u8>>) -> Result<Model, FormatError> {
    let (text, mut warnings) = validate(&decode_text(src))?;
    // tobj wants a `Fn` material loader; collect the libraries first.
    let mut libraries: Vec<(String, Option<String>)> = Vec::new();
    for line in text.lines() {
        if let Some(name) = line.trim_start().strip_prefix("mtllib") {
            let name = name.trim().to_string();
            if !name.is_empty() && !libraries.iter().any(|(n, _)| *n == name) {
                let text = load_mtl(&name).map(|bytes| sanitize_mtl(&decode_text(&bytes), &name, &mut warnings));
                if text.is_none() {
                    warnings.push(format!("material library '{name}' not found"));
                }
                libraries.push((name, text));
            }
        }
    }
    let options = tobj::LoadOptions { triangulate: true, single_index: true, ..Default::default() };
    // tobj's errors carry no position: both readers count the lines tobj has taken, so the
    // line it failed on is the last one it read.
    let mtl_failure: Cell<Option<(String, usize)>> = Cell::new(None);
    let mut obj_reader = LineReader::new(text.as_bytes());
    // tobj asks for a library at every `mtllib` line naming it and appends its materials each
    // time: a library's materials are handed over once, so repeating the line costs nothing.
    let handed_over: RefCell<Vec<bool>> = RefCell::new(vec![false; libraries.len()]);
    let (models, materials) = tobj::load_obj_buf(&mut obj_reader, &options, |path: &Path| {
        let wanted = path.to_string_lossy();
        let index = libraries.iter().position(|(n, _)| *n == wanted);
        let seen = index.and_then(|i| handed_over.borrow_mut().get_mut(i).map(|flag| std::mem::replace(flag, true)));
        if seen == Some(true) {
            return Ok(Default::default());
        }
        match index.and_then(|i| libraries.get(i)) {
            Some((name, Some(text))) => {
                let mut reader = LineReader::new(text.as_bytes());
                let result = tobj::load_mtl_buf(&mut reader);
                if result.is_err() {
                    mtl_failure.set(Some((name.clone(), reader.line())));
                }
                result
            }
            _ => Err(tobj::LoadError::OpenFileFailed),
        }
    })
    .map_err(|e| FormatError::at_line(FORMAT, obj_reader.line(), e.to_string()))?;
    let materials = materials.unwrap_or_else(|e| {
        warnings.push(match mtl_failure.take() {
            Some((name, line)) => format!("{name} line {line}: {e}; its materials are ignored"),
            None => format!("material library unusable: {e}"),
        });
        Vec::new()
    });
    let mtl_dir = |name: &str| Path::new(name).parent().map(|p| p.to_string_lossy().into_owned()).unwrap_or_default();
    let mtl_folder = libraries.first().map(|(n, _)| mtl_dir(&n.replace('\\', "/"))).unwrap_or_default();

    let mut model = Model { orientation: Orientation::Y_UP_FACING_Z, ..Model::default() };
    model.materials = materials.iter().map(|m| convert_material(m, &mtl_folder)).collect();
    let default_material = model.materials.len();
    let mut needs_default = false;
    for m in &models {
        let mesh = &m.mesh;
        let positions: Vec<Vec3> = mesh.positions.chunks_exact(3).map(|p| Vec3::new(p[0], p[1], p[2])).collect();
        let indices: Vec<[u32; 3]> = mesh.indices.chunks_exact(3).map(|t| [t[0], t[1], t[2]]).collect();
        if indices.is_empty() {
            continue;
        }
        if indices.iter().flatten().any(|&i| i as usize >= positions.len()) {
            return Err(FormatError::whole_file(FORMAT, format!("object '{}': face index out of range", m.name)));
        }
        let normals = if mesh.normals.len() == mesh.positions.len() {
            mesh.normals
                .chunks_exact(3)
                .map(|n| Vec3::new(n[0], n[1], n[2]).try_normalize().unwrap_or(Vec3::Z))
                .collect()
        } else {
            Mesh::compute_normals(&positions, &indices)
        };
        let uvs = if mesh.texcoords.len() / 2 == positions.len() {
            // OBJ's v points up from the bottom of the image; the model convention is top-left.
            mesh.texcoords.chunks_exact(2).map(|t| Vec2::new(t[0], 1.0 - t[1])).collect()
        } else {
            vec![Vec2::ZERO; positions.len()]
        };
        let colors = match mesh.vertex_color.len() == mesh.positions.len() {
            true => mesh
                .vertex_color
                .chunks_exact(3)
                .map(|c| super::colour::vertex_colour([c[0], c[1], c[2], 1.0], true))
                .collect(),
            false => Vec::new(),
        };
        let material = match mesh.material_id.filter(|&i| i < default_material) {
            Some(i) => i,
            None => {
                needs_default = true;
                default_material
            }
        };
        model.meshes.push(Mesh {
            name: m.name.clone(),
            material,
            positions,
            normals,
            uvs,
            colors,
            indices,
            ..Mesh::default()
        });
    }
    if model.meshes.is_empty() {
        return Err(FormatError::whole_file(
            FORMAT,
            "no triangles (expected at least one face with 3 or more vertices)",
        ));
    }
    if needs_default {
        model.materials.push(Material::named("default"));
    }
    model.warnings = warnings;
    Ok(model)
}

/// The alpha below which a `map_d` cut-out discards a sample (glTF's default `alphaCutoff`).
const CUTOUT_ALPHA: f32 = 0.5;

/// A material of the library. Transparency as Blender's importer reads it: `d` below 1 blends
/// (the texture's alpha times `d`); a `map_d` cuts the texture out (foliage, fences),
/// alpha-tested with the anti-aliased coverage glTF `MASK` gets: by the `map_Kd` image's own
/// alpha when it names that image, else by the image it names
/// ([`Material::alpha_texture_name`]).
fn convert_material(m: &tobj::Material, mtl_folder: &str) -> Material {
    let [r, g, b] = m.diffuse.unwrap_or([1.0; 3]);
    let alpha = m.dissolve.filter(|d| d.is_finite()).unwrap_or(1.0).clamp(0.0, 1.0);
    let in_folder = |name: String| if mtl_folder.is_empty() { name } else { format!("{mtl_folder}/{name}") };
    let texture_name = m.diffuse_texture.as_deref().and_then(texture_file_name).map(in_folder);
    let cutout = m.dissolve_texture.as_deref().and_then(texture_file_name).map(in_folder);
    let cuts_out = cutout.is_some();
    let alpha_texture_name = cutout.filter(|d| texture_name.as_ref().is_none_or(|kd| !d.eq_ignore_ascii_case(kd)));
    let alpha_mode = if alpha < 1.0 {
        AlphaMode::Blend
    } else if cuts_out {
        AlphaMode::Mask(CUTOUT_ALPHA)
    } else {
        AlphaMode::Opaque
    };
    Material {
        name: m.name.clone(),
        base_color: [r, g, b, alpha].map(|c| if c.is_finite() { c.clamp(0.0, 1.0) } else { 1.0 }),
        texture_name,
        alpha_mode,
        alpha_texture_name,
        ..Material::default()
    }
}

/// The file name of a `map_Kd` value: options such as `-bm 2` or `-s 1 1 1` dropped, Windows
/// separators normalised (`.\tex.jpg` → `tex.jpg`). Names may contain spaces.
fn texture_file_name(value: &str) -> Option<String> {
    // Option → number of arguments it takes (MTL spec).
    const OPTIONS: [(&str, usize); 12] = [
        ("-blendu", 1),
        ("-blendv", 1),
        ("-bm", 1),
        ("-boost", 1),
        ("-cc", 1),
        ("-clamp", 1),
        ("-imfchan", 1),
        ("-mm", 2),
        ("-o", 3),
        ("-s", 3),
        ("-t", 3),
        ("-texres", 1),
    ];
    let mut rest = value.trim();
    while rest.starts_with('-') {
        let (flag, after) = rest.split_once(char::is_whitespace)?;
        let count = OPTIONS.iter().find(|(o, _)| *o == flag).map_or(0, |(_, n)| *n);
        rest = after.trim_start();
        for _ in 0..count {
            // Option arguments are numbers or on/off; stop at the first word that is neither.
            let (word, after) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
            if word.parse::<f32>().is_err() && word != "on" && word != "off" {
                break;
            }
            rest = after.trim_start();
        }
    }
    let name = rest.replace('\\', "/");
    let name = name.trim_start_matches("./").trim();
    (!name.is_empty()).then(|| name.to_string())
}

/// Drops colour lines (`Ka Kd Ks Ke`) with fewer than three numbers, with a warning: tobj
/// panics on them (it unwraps a conversion of the numbers it found into `[f32; 3]`).
fn sanitize_mtl(text: &str, name: &str, warnings: &mut Vec<String>) -> String {
    let mut out = String::with_capacity(text.len());
    for (i, line) in text.lines().enumerate() {
        let mut words = line.split_whitespace();
        let colour = matches!(words.next(), Some("Ka" | "Kd" | "Ks" | "Ke"));
        if colour && words.take(3).filter(|w| w.parse::<f32>().is_ok()).count() < 3 {
            warnings.push(format!("{name} line {}: colour needs three numbers; line ignored", i + 1));
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    out
}

/// A reader that hands tobj one line at a time and knows which line it handed out last, so
/// that an error tobj raises while parsing a line can be given that line's number.
struct LineReader<'a> {
    rest: &'a [u8],
    /// Newlines consumed so far.
    newlines: usize,
    /// 1-based line of the last byte consumed (0 before any).
    last_line: usize,
}

impl<'a> LineReader<'a> {
    fn new(bytes: &'a [u8]) -> LineReader<'a> {
        LineReader { rest: bytes, newlines: 0, last_line: 0 }
    }

    /// The line tobj read last: the one it was parsing when it failed (at least 1).
    fn line(&self) -> usize {
        self.last_line.max(1)
    }
}

impl std::io::Read for LineReader<'_> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let line = self.fill_buf()?;
        let n = line.len().min(out.len());
        if let (Some(to), Some(from)) = (out.get_mut(..n), line.get(..n)) {
            to.copy_from_slice(from);
        }
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for LineReader<'_> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        // Never more than the next line, so nothing past it has been consumed when tobj fails.
        let end = self.rest.iter().position(|&b| b == b'\n').map_or(self.rest.len(), |i| i + 1);
        Ok(self.rest.split_at(end).0)
    }

    fn consume(&mut self, amount: usize) {
        let (taken, rest) = self.rest.split_at(amount.min(self.rest.len()));
        if let Some((_, before_last)) = taken.split_last() {
            self.last_line = self.newlines + before_last.iter().filter(|&&b| b == b'\n').count() + 1;
            self.newlines += taken.iter().filter(|&&b| b == b'\n').count();
        }
        self.rest = rest;
    }
}

/// OBJ files in the wild are UTF-8, Latin-1 or (rarely) UTF-16 with a BOM; tobj needs UTF-8.
fn decode_text(bytes: &[u8]) -> String {
    let utf16 = |le: bool| {
        let units = bytes[2..]
            .chunks_exact(2)
            .map(|c| if le { u16::from_le_bytes([c[0], c[1]]) } else { u16::from_be_bytes([c[0], c[1]]) });
        char::decode_utf16(units).map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER)).collect()
    };
    match bytes {
        [0xFE, 0xFF, ..] => utf16(false),
        [0xFF, 0xFE, ..] => utf16(true),
        _ => match std::str::from_utf8(bytes) {
            Ok(s) => s.trim_start_matches('\u{feff}').to_string(),
            // Not UTF-8: treat as Latin-1, where every byte is a character.
            Err(_) => bytes.iter().map(|&b| b as char).collect(),
        },
    }
}

/// Checks that every `v/vt/vn` index of a face or line statement on line `n` refers to
/// an element defined before it (`counts` of positions, texture coordinates and normals).
fn check_corners(corners: &[&str], counts: [i64; 3], n: usize) -> Result<(), FormatError> {
    for corner in corners {
        for (slot, (part, count)) in corner.split('/').zip(counts).enumerate() {
            if part.is_empty() && slot > 0 {
                continue;
            }
            let index: i64 = part.parse().map_err(|_| {
                FormatError::at_line(FORMAT, n, format!("expected a face index, found `{}`", excerpt(corner)))
            })?;
            // 1-based; negative counts back from the last element defined so far.
            let resolved = if index < 0 { count + index + 1 } else { index };
            if resolved < 1 || resolved > count {
                let what = ["vertex", "texture coordinate", "normal"][slot];
                return Err(FormatError::at_line(
                    FORMAT,
                    n,
                    format!("{what} index {index} out of range (expected 1..={count} or -{count}..=-1)"),
                ));
            }
        }
    }
    Ok(())
}

/// Replaces the last line of `cleaned`, `line`, with an empty one: tobj then never sees it, and
/// the lines after it keep their numbers.
fn blank_last_line(cleaned: &mut String, line: &str) {
    cleaned.truncate(cleaned.len() - line.len() - 1);
    cleaned.push('\n');
}

/// The warning for `lines` polyline (`l`) and `points` point (`p`) elements left out, if any.
fn skipped_elements(lines: usize, points: usize) -> Option<String> {
    (lines + points > 0)
        .then(|| format!("{lines} line (`l`) and {points} point (`p`) elements skipped: only faces are drawn"))
}

/// Checks what tobj cannot locate: numbers must be finite and face indices in range (counting
/// relative indices from the current element). Returns the text with faces of fewer than three
/// vertices blanked out (tobj rejects the whole file for them), a warning for each, and with
/// `l` elements blanked out, counted with the `p` elements in one warning: tobj turns a two-vertex `l` into a
/// degenerate triangle whose corners have no texture coordinates, which costs the whole group
/// its UVs (it keeps a mesh's UVs only when every vertex has one), and a three-vertex `l` into
/// a drawn triangle.
fn validate(text: &str) -> Result<(String, Vec<String>), FormatError> {
    let (mut v, mut vt, mut vn) = (0i64, 0i64, 0i64);
    let (mut lines, mut points) = (0usize, 0usize);
    let mut warnings = Vec::new();
    let mut cleaned = String::with_capacity(text.len());
    for (i, line) in text.lines().enumerate() {
        cleaned.push_str(line);
        cleaned.push('\n');
        let n = i + 1;
        let mut words = line.split_whitespace();
        let Some(keyword) = words.next() else { continue };
        let counter = match keyword {
            "v" => Some(&mut v),
            "vt" => Some(&mut vt),
            "vn" => Some(&mut vn),
            _ => None,
        };
        if let Some(count) = counter {
            let expected = if keyword == "vt" { 1 } else { 3 };
            let mut numbers = 0;
            for w in words {
                match w.parse::<f32>() {
                    Ok(x) if x.is_finite() => numbers += 1,
                    _ => {
                        return Err(FormatError::at_line(
                            FORMAT,
                            n,
                            format!("expected a finite number after `{keyword}`, found `{}`", excerpt(w)),
                        ));
                    }
                }
            }
            if numbers < expected {
                return Err(FormatError::at_line(
                    FORMAT,
                    n,
                    format!("expected at least {expected} numbers after `{keyword}`, found {numbers}"),
                ));
            }
            *count += 1;
        } else if keyword == "f" {
            let corners: Vec<&str> = words.collect();
            if corners.len() < 3 {
                warnings.push(format!("line {n}: face with {} vertices skipped", corners.len()));
                blank_last_line(&mut cleaned, line);
                continue;
            }
            check_corners(&corners, [v, vt, vn], n)?;
        } else if keyword == "l" {
            // Not drawn, but an index out of range is as malformed here as in a face.
            check_corners(&words.collect::<Vec<_>>(), [v, vt, vn], n)?;
            blank_last_line(&mut cleaned, line);
            lines += 1;
        } else if keyword == "p" {
            // tobj ignores points already; counted for the warning.
            points += 1;
        }
    }
    warnings.extend(skipped_elements(lines, points));
    Ok((cleaned, warnings))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_mtl(_: &str) -> Option<Vec<u8>> {
        None
    }

    #[test]
    fn quad_with_negative_indices_is_triangulated_with_flipped_uvs() {
        let src = b"v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\nf -4/-4 -3/-3 -2/-2 -1/-1\n";
        let model = parse(src, &mut no_mtl).unwrap();
        let mesh = &model.meshes[0];
        assert_eq!(mesh.indices.len(), 2);
        assert_eq!(mesh.positions.len(), 4);
        // v = 0 in OBJ is the bottom of the image: 1 in the top-left convention.
        let i = mesh.positions.iter().position(|p| *p == Vec3::ZERO).unwrap();
        assert_eq!(mesh.uvs[i], Vec2::new(0.0, 1.0));
        // Computed normals face +Z for a counter-clockwise quad in the XY plane.
        assert!(mesh.normals.iter().all(|n| (*n - Vec3::Z).length() < 1e-6));
        assert_eq!(model.materials[mesh.material].name, "default");
    }

    #[test]
    fn errors_name_the_line() {
        let e = parse(b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nf 1 2 4\n", &mut no_mtl).unwrap_err();
        assert!(e.to_string().contains("line 5") && e.to_string().contains("vertex index 4"), "{e}");
        let e = parse(b"v 0 0 0\nv nan 0 0\n", &mut no_mtl).unwrap_err();
        assert!(e.to_string().contains("line 2"), "{e}");
        let e = parse(b"v 0 0 0\nf 0 1 1\n", &mut no_mtl).unwrap_err();
        assert!(e.to_string().contains("line 2"), "{e}");
        assert!(parse(b"", &mut no_mtl).is_err());
    }

    #[test]
    fn errors_tobj_finds_name_their_line() {
        // Statements our validation passes but tobj refuses: each error names its own line.
        let base = "v 0 0 0\nv 1 0 0\nv 0 1 0\n";
        for (bad, what) in [
            ("v 1 1 1 0", "scaling (w) by zero"),
            ("v 1 1 1 1 1", "color parse error"),
            ("vt 0.5", "texcoord parse error"),
            ("usemtl", "material parse error"),
        ] {
            let src = format!("{base}# comment\n{bad}\nf 1 2 3\n");
            let e = parse(src.as_bytes(), &mut no_mtl).unwrap_err();
            assert_eq!(e.location, super::super::Location::Line(5), "{bad}: {e}");
            assert!(e.to_string().contains(&format!("OBJ line 5: {what}")), "{bad}: {e}");
        }
        // Line statements' indices are checked where they stand, not where the object ends.
        let e = parse(format!("{base}l 1 99\nf 1 2 3\no next\nf 1 2 3\n").as_bytes(), &mut no_mtl).unwrap_err();
        assert!(e.to_string().starts_with("OBJ line 4: vertex index 99 out of range"), "{e}");
        // The last line without a newline.
        let e = parse(format!("{base}f 1 2 3\nvt 0.5").as_bytes(), &mut no_mtl).unwrap_err();
        assert!(e.to_string().starts_with("OBJ line 5:"), "{e}");
    }

    #[test]
    fn polylines_and_points_are_skipped_and_the_faces_keep_their_uvs() {
        let src = b"v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\n\
                    f 1/1 2/2 3/3 4/4\nl 1 3\nl 1 2 3\np 4\n";
        let model = parse(src, &mut no_mtl).unwrap();
        // The quad alone: no degenerate triangle for `l 1 3`, no drawn one for `l 1 2 3`.
        assert_eq!(model.triangle_count(), 2);
        let mesh = &model.meshes[0];
        let corner = mesh.positions.iter().position(|p| *p == Vec3::new(1.0, 1.0, 0.0)).unwrap();
        assert_eq!(mesh.uvs[corner], Vec2::new(1.0, 0.0));
        assert_eq!(model.warnings, ["2 line (`l`) and 1 point (`p`) elements skipped: only faces are drawn"]);
    }

    #[test]
    fn material_library_errors_name_the_library_and_line() {
        let src = b"mtllib m.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl red\nf 1 2 3\n";
        let mut load = |_: &str| Some(b"newmtl red\nKd 1 0 0\nNs shiny\n".to_vec());
        let model = parse(src, &mut load).unwrap();
        assert_eq!(model.warnings, ["m.mtl line 3: material parse error; its materials are ignored"]);
    }

    #[test]
    fn map_kd_options_and_backslashes_are_stripped() {
        assert_eq!(texture_file_name("-bm 2 bump 01.png").as_deref(), Some("bump 01.png"));
        assert_eq!(texture_file_name(".\\wal67ar_small.jpg").as_deref(), Some("wal67ar_small.jpg"));
        assert_eq!(texture_file_name("-s 1 1 1 -o 0 0 0 tex.png").as_deref(), Some("tex.png"));
    }

    #[test]
    fn utf16_and_latin1_decode() {
        let text = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
        let mut be = vec![0xFE, 0xFF];
        be.extend(text.encode_utf16().flat_map(|u| u.to_be_bytes()));
        assert_eq!(parse(&be, &mut no_mtl).unwrap().triangle_count(), 1);
        let mut latin1 = b"o Terrain\xe6k\n".to_vec();
        latin1.extend_from_slice(text.as_bytes());
        assert_eq!(parse(&latin1, &mut no_mtl).unwrap().triangle_count(), 1);
    }

    #[test]
    fn materials_and_textures_come_from_the_library() {
        let src = b"mtllib sub/m.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl red\nf 1 2 3\n";
        let mut load = |name: &str| (name == "sub/m.mtl").then(|| b"newmtl red\nKd 1 0 0\nmap_Kd red.png\n".to_vec());
        let model = parse(src, &mut load).unwrap();
        let m = &model.materials[model.meshes[0].material];
        assert_eq!(m.name, "red");
        assert_eq!(m.base_color, [1.0, 0.0, 0.0, 1.0]);
        assert_eq!(m.texture_name.as_deref(), Some("sub/red.png"));
    }
}
