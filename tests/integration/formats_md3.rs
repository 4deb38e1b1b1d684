//! Quake 3 MD3 (issue 32): the shared corpus's props agree with assimp's MD3 loader, face
//! outwards, find their `.tga` skins; hostile files end in an error naming the byte offset;
//! frames are charged to the budget. Corpus tests skip with a note when the corpus is
//! absent, assimp's when assimp is.

use std::path::PathBuf;

use glam::Vec3;
use spritebake::anim::rest_pose;
use spritebake::bake;
use spritebake::formats::{Limits, LoadOptions, load};
use spritebake::model::{Model, TextureStatus};

use crate::common::cli::scratch_in;
use crate::common::{self, assimp, patched_i32};

const MODELS: [&str; 2] = ["watercan.md3", "watercan_dmg.md3"];

fn load_ok(path: &std::path::Path) -> Model {
    load(path, &LoadOptions::default()).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn corpus_md3_props_agree_with_assimp_face_outwards_and_are_textured() {
    let Some(dir) = common::corpus("md3/watercan") else { return };
    let scratch = scratch_in("md3", "assimp");
    for file in MODELS {
        let path = dir.join(file);
        let model = load_ok(&path);
        assert!(
            matches!(&model.materials[0].texture_status, TextureStatus::Found(p) if p.ends_with("water_can.tga")),
            "{file}: {:?}",
            model.materials[0].texture_status
        );
        let (mut agree, mut total) = (0, 0);
        for mesh in &model.meshes {
            for t in &mesh.indices {
                let [a, b, c] = t.map(|i| mesh.positions[i as usize]);
                let normals: Vec3 = t.iter().map(|&i| mesh.normals[i as usize]).sum();
                total += 1;
                agree += usize::from((b - a).cross(c - a).dot(normals) > 0.0);
            }
        }
        assert!(total > 0 && agree * 10 >= total * 9, "{file}: {agree} of {total} triangles face outwards");
        let Some(theirs) = assimp::exported_points(&path, &scratch) else { return };
        let ours = bake::world_points(&model, &rest_pose(&model));
        let a = assimp::agreement(&ours, &theirs);
        eprintln!("{file} vs assimp: {a:?}");
        assert!(a.max_error < 2e-3 && (a.scale - 1.0).abs() < 1e-3, "{file}: {a:?}");
    }
    std::fs::remove_dir_all(scratch).unwrap();
}

#[test]
fn hostile_md3_files_end_in_an_error_naming_the_offset() {
    let Some(dir) = common::corpus("md3/watercan") else { return };
    let scratch = scratch_in("md3", "hostile");
    let bytes = std::fs::read(dir.join("watercan.md3")).unwrap();
    let try_load = |data: &[u8], limits: Limits| -> Result<Model, String> {
        let path: PathBuf = scratch.join("bad.md3");
        std::fs::write(&path, data).unwrap();
        load(&path, &LoadOptions { limits, ..LoadOptions::default() }).map_err(|e| e.to_string())
    };
    for cut in (0..bytes.len()).step_by(5) {
        let e = try_load(&bytes[..cut], Limits::default()).map(|_| ()).unwrap_err();
        assert!(e.contains("bad.md3"), "cut at {cut}: {e}");
    }
    // The surface starts at 164: its vertex count at 164 + 80, triangle count at + 84.
    for (at, value, words) in [
        (4, 16, "version 15"),
        (76, 1 << 30, "byte offset 76"),
        (84, 1 << 20, "byte offset 84"),
        (164 + 84, 1 << 28, "byte offset 248"),
        (164 + 88, -4, "byte offset 252"),
    ] {
        let e = try_load(&patched_i32(&bytes, at, value), Limits::default()).map(|_| ()).unwrap_err();
        assert!(e.contains(words), "field {at} = {value}: {e}");
    }
    // A vertex index past the surface's vertices.
    let triangles_at = 164 + u32::from_le_bytes(bytes[164 + 88..164 + 92].try_into().unwrap()) as usize;
    let e = try_load(&patched_i32(&bytes, triangles_at, 92), Limits::default()).map(|_| ()).unwrap_err();
    assert!(e.contains("vertex index"), "{e}");
    // 4096 frames of 65 536 vertices declared in a small file: refused at the section, before
    // anything is sized by it.
    let e = try_load(&patched_i32(&patched_i32(&bytes, 76, 4096), 164 + 72, 4096), Limits::default())
        .map(|_| ())
        .unwrap_err();
    assert!(e.contains("run past the end"), "{e}");
    std::fs::remove_dir_all(scratch).unwrap();
}
