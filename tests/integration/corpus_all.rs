//! Every MD2, MD5, SMD, IQM and Quake 1 MDL model of the shared corpus: loads, every clip poses at every frame
//! and half-frame with finite positions, textures are found or reported, frame 0 renders.
//! Skipped with a note when the corpus is absent.

use spritebake::anim::{FrameTime, PoseOptions, pose};
use spritebake::bake::{self, FrameRequest};
use spritebake::formats::LoadOptions;
use spritebake::model::TextureStatus;
use spritebake::raster::{OrbitView, RenderOptions, Renderer};

use crate::common;

/// (model, animation files) relative to the corpus.
const MODELS: &[(&str, &[&str])] = &[
    ("md2/sydney/sydney.md2", &[]),
    ("md2/faerie/faerie.md2", &[]),
    ("md2/ogro/ogro.md2", &[]),
    ("md2/ogro/weapon.md2", &[]),
    ("md2/edge/phoenix_ugv/phoenix_ugv.md2", &[]),
    ("md5/bob_lamp/boblampclean.md5mesh", &["md5/bob_lamp/boblampclean.md5anim"]),
    ("md5/boarman/BoarMan.md5mesh", &[]),
    ("md5/simplecube/SimpleCube.md5mesh", &[]),
    ("md5/snoutx10k/snoutx10k.md5mesh", &[]),
    (
        "smd/headcrab/reference.smd",
        &[
            "smd/headcrab/idle1.smd",
            "smd/headcrab/walk.smd",
            "smd/headcrab/run.smd",
            "smd/headcrab/jump.smd",
            "smd/headcrab/flinch.smd",
            "smd/headcrab/dieback.smd",
        ],
    ),
    (
        "smd/combine_soldier_lod4/combine_soldier_Soldier_reference_lod4.smd",
        &["smd/combine_soldier_lod4/body_poses_lean.smd"],
    ),
    (
        "smd/bst_cube/Cube.smd",
        &["smd/bst_cube/anim_X_Axis.smd", "smd/bst_cube/anim_Y_Axis.smd", "smd/bst_cube/anim_Z_Axis.smd"],
    ),
    ("smd/bst_cube/Cube_goldsrc.smd", &[]),
    ("smd/holygrail/holy_grailref.smd", &[]),
    ("smd/wuson/WusonSMD.smd", &[]),
    ("iqm/mrfixit/mrfixit.iqm", &[]),
    ("mdl/quake1/tekmechbot/tekmechbot.MDL", &[]),
];

#[test]
fn every_corpus_model_loads_poses_and_renders() {
    let Some(dir) = common::corpus("") else { return };
    let renderer = Renderer::new();
    for (file, anims) in MODELS {
        let options = LoadOptions { animations: anims.iter().map(|a| dir.join(a)).collect(), ..Default::default() };
        let model = spritebake::formats::load(&dir.join(file), &options).unwrap_or_else(|e| panic!("{file}: {e}"));
        for clip in &model.clips {
            for half in 0..clip.frame_count() * 2 {
                let posed = pose(&model, Some(clip), FrameTime::Frame(half as f32 * 0.5), &PoseOptions::default());
                let finite =
                    posed.parts.iter().flat_map(|p| p.positions.iter().chain(p.normals.iter())).all(|v| v.is_finite());
                assert!(finite, "{file} clip {} at frame {}", clip.name, half as f32 * 0.5);
            }
        }
        // Every named texture is either found or reported with a warning.
        for m in &model.materials {
            if let TextureStatus::Missing { name, .. } = &m.texture_status {
                assert!(model.warnings.iter().any(|w| w.contains(name.as_str())), "{file}: '{name}' missing silently");
            } else if m.texture_name.is_some() {
                assert!(matches!(m.texture_status, TextureStatus::Found(_)), "{file}: {:?}", m.texture_status);
            }
        }
        let request = FrameRequest::clip(model.clips.first(), FrameTime::Frame(0.0), Default::default());
        let image = bake::render_frame(
            &renderer,
            &model,
            &request,
            &OrbitView { pitch_degrees: 0.0, ..OrbitView::default() },
            &RenderOptions { width: 48, height: 48, ssaa: 1, ..RenderOptions::default() },
        )
        .unwrap();
        assert!(image.covered_pixels() > 50, "{file}: frame 0 renders {} pixels", image.covered_pixels());
    }
}
