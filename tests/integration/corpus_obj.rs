//! The OBJ files of the shared corpus (`../shared/corpus/obj`): real exports with their quirks.
//! Skipped with a note when the corpus folder is absent.

use std::path::Path;

use spritebake::bake::{self, FrameRequest};
use spritebake::model::TextureStatus;
use spritebake::raster::{OrbitView, RenderOptions, Renderer};

use crate::common;

fn load(path: &Path) -> spritebake::Result<spritebake::model::Model> {
    spritebake::formats::load(path, &Default::default())
}

#[test]
fn spider_resolves_backslash_textures_and_renders() {
    let Some(dir) = common::corpus("obj") else { return };
    let model = load(&dir.join("spider/spider.obj")).unwrap();
    assert_eq!(model.triangle_count(), 1368);
    let found: Vec<_> = model
        .materials
        .iter()
        .filter_map(|m| match &m.texture_status {
            TextureStatus::Found(p) => Some(p.file_name().unwrap().to_string_lossy().into_owned()),
            _ => None,
        })
        .collect();
    assert!(found.contains(&"wal67ar_small.jpg".to_string()), "{found:?}");
    let image = bake::render_frame(
        &Renderer::new(),
        &model,
        &FrameRequest::default(),
        &OrbitView { yaw_degrees: 30.0, pitch_degrees: 25.0, ..OrbitView::default() },
        &RenderOptions { width: 96, height: 96, ssaa: 1, ..RenderOptions::default() },
    )
    .unwrap();
    assert!(image.covered_pixels() > 600, "{}", image.covered_pixels());
}

#[test]
fn every_good_corpus_obj_loads_and_renders() {
    let Some(dir) = common::corpus("obj") else { return };
    for (file, triangles) in [
        ("cornell_box/cornell_box.obj", 36),
        ("kuka_segment/segment.obj", 1536),
        ("regr01_house/regr01.obj", 2710),
        ("edge/box_UTF16BE.obj", 12),
        ("edge/box_without_lineending.obj", 12),
        ("edge/missing_material_file.obj", 36),
    ] {
        let model = load(&dir.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(model.triangle_count(), triangles, "{file}");
        let image = bake::render_frame(
            &Renderer::new(),
            &model,
            &FrameRequest::default(),
            &OrbitView { pitch_degrees: 0.0, ..OrbitView::default() },
            &RenderOptions { width: 48, height: 48, cull_back_faces: false, ssaa: 1, ..RenderOptions::default() },
        )
        .unwrap();
        assert!(image.covered_pixels() > 100, "{file}: {} pixels", image.covered_pixels());
    }
}

#[test]
fn broken_corpus_objs_give_clear_errors() {
    let Some(dir) = common::corpus("obj") else { return };
    for (file, needle) in [
        ("edge/malformed_out_of_range_indices.obj", "line"),
        ("edge/test-nan.obj", "line"),
        ("edge/issue-140-zero-face-idx.obj", "line"),
        ("edge/empty.obj", "no triangles"),
    ] {
        let err = load(&dir.join(file)).map(|_| ()).unwrap_err().to_string();
        assert!(err.contains(file.rsplit('/').next().unwrap()) && err.contains(needle), "{file}: {err}");
    }
}

#[test]
fn quirky_corpus_objs_load_with_warnings() {
    let Some(dir) = common::corpus("obj") else { return };
    // Faces with 1 and 2 vertices are skipped; a file with nothing else has no triangles.
    let err = load(&dir.join("edge/invalid-face-definition.obj")).map(|_| ()).unwrap_err();
    assert!(err.to_string().contains("no triangles"), "{err}");
    // An empty `f` line is skipped with a warning naming it; `usemtl` naming a material no
    // library defines gets the default material.
    let model = load(&dir.join("edge/malformed2_missing_material.obj")).unwrap();
    assert_eq!(model.triangle_count(), 10);
    assert!(model.warnings.iter().any(|w| w.contains("line 23")), "{:?}", model.warnings);
    // A texture name with spaces and a -bm option: reported missing by its real name.
    let model = load(&dir.join("edge/texture-filename-with-whitespace.obj")).unwrap();
    let missing: Vec<_> = model
        .materials
        .iter()
        .filter_map(|m| match &m.texture_status {
            TextureStatus::Missing { name, .. } => Some(name.clone()),
            _ => None,
        })
        .collect();
    assert!(missing.iter().any(|n| n.ends_with("texture 01.png")), "{missing:?}");
}
