//! Half-Life studio models (`IDST` `.mdl`, issue 32): the shared corpus's models agree with
//! assimp's own Half-Life loader at rest, face outwards, play their sequences (from sequence
//! group files too) with their flags, take their textures from `<name>T.mdl`, honour
//! `--body`, and hostile files end in an error naming the byte offset. Corpus tests skip with
//! a note when the corpus is absent, assimp's when assimp is.

use std::path::{Path, PathBuf};

use glam::Vec3;
use spritebake::anim::{FrameTime, PoseOptions, pose, rest_pose};
use spritebake::formats::{LoadOptions, load};
use spritebake::internal::formats::BodyChoice;
use spritebake::model::{AlphaMode, Model, TextureStatus};

use crate::common::cli::{printed, run_in, scratch_in};
use crate::common::{self, assimp, patched_i32};

const MODELS: [&str; 7] = [
    "man.mdl",
    "blend_additive.mdl",
    "chrome_sphere.mdl",
    "duplicate_sequences.mdl",
    "sequence_transitions.mdl",
    "unnamed_bones.mdl",
    "duplicate_sequence_groups/duplicate_sequence_groups.mdl",
];

fn load_with(path: &Path, options: &LoadOptions) -> Model {
    load(path, options).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn rest_points(model: &Model) -> Vec<Vec3> {
    spritebake::internal::bake::world_points(model, &rest_pose(model))
}

fn heads(choice: &str) -> LoadOptions {
    LoadOptions { bodies: vec![BodyChoice { group: "heads".into(), choice: choice.into() }], ..LoadOptions::default() }
}

#[test]
fn corpus_half_life_models_agree_with_assimp_at_rest() {
    let Some(dir) = common::corpus("mdl/hl1") else { return };
    let scratch = scratch_in("studio", "assimp");
    for file in MODELS {
        let path = dir.join(file);
        let Some(theirs) = assimp::exported_points(&path, &scratch) else { return };
        // assimp exports every model of every body part: the man's three heads at once.
        let ours: Vec<Vec3> = if file == "man.mdl" {
            ["reference_head1", "reference_head2", "reference_head3"]
                .iter()
                .flat_map(|head| rest_points(&load_with(&path, &heads(head))))
                .collect()
        } else {
            rest_points(&load_with(&path, &LoadOptions::default()))
        };
        let a = assimp::agreement(&ours, &theirs);
        eprintln!("{file} at rest vs assimp: {a:?}");
        assert!(a.max_error < 2e-3 && (a.scale - 1.0).abs() < 1e-3, "{file}: {a:?}");
    }
    std::fs::remove_dir_all(scratch).unwrap();
}

#[test]
fn corpus_half_life_triangles_face_outwards() {
    // GoldSrc strips are clockwise from the front; reversed, each face's winding normal
    // points the way its vertex normals do.
    let Some(dir) = common::corpus("mdl/hl1") else { return };
    for file in MODELS {
        common::assert_faces_outwards(&load_with(&dir.join(file), &LoadOptions::default()), file);
    }
}

#[test]
fn a_half_life_model_plays_its_sequences_textured_from_its_t_file() {
    let Some(dir) = common::corpus("mdl/hl1") else { return };
    let man = load_with(&dir.join("man.mdl"), &LoadOptions::default());
    // Textures from manT.mdl, decoded with their own palettes.
    assert_eq!(man.materials.len(), 5);
    for m in &man.materials {
        assert!(matches!(m.texture_status, TextureStatus::Embedded(_)), "{}: {:?}", m.name, m.texture_status);
    }
    assert!(man.warnings.is_empty(), "{:?}", man.warnings);
    // Sequences with their rates and flags: the walk loops, the others play once.
    let clips: Vec<(&str, usize, f32, bool)> =
        man.clips.iter().map(|c| (c.name.as_str(), c.frame_count(), c.fps, c.plays_once)).collect();
    assert_eq!(clips, [("reference", 2, 30.0, true), ("walk", 26, 30.0, false), ("arms_up", 2, 25.0, true)]);
    // The walk moves the legs: frames differ.
    let walk = man.clip("walk");
    let at = |f: f32| {
        spritebake::internal::bake::world_points(&man, &pose(&man, walk, FrameTime::Frame(f), &PoseOptions::default()))
    };
    let moved = at(0.0).iter().zip(at(6.0)).map(|(a, b)| a.distance(b)).fold(0.0, f32::max);
    assert!(moved > 0.5, "the walk moves a vertex {moved} units in 6 frames");
    // Attachments by name or number.
    let points: Vec<(&str, usize)> = man.attachment_points.iter().map(|p| (p.name.as_str(), p.joint)).collect();
    assert_eq!(points.len(), 2);
    // Rendered, the colours are the textures' (no magenta fallback).
    let scratch = scratch_in("studio", "render");
    let man_path = dir.join("man.mdl");
    let run =
        run_in(&scratch, &["render", man_path.to_str().unwrap(), "--anim", "walk", "--frame", "3", "-o", "man.png"]);
    assert!(run.status.success(), "{}", printed(&run));
    let image = image::open(scratch.join("man.png")).unwrap().to_rgba8();
    let covered = image.pixels().filter(|p| p[3] == 255).count();
    let magenta = image.pixels().filter(|p| p[3] == 255 && p[0] > 200 && p[1] < 60 && p[2] > 200).count();
    assert!(covered > 1000 && magenta == 0, "{covered} pixels, {magenta} magenta");
    // Sequences whose animation lives in sequence group files (`*01.mdl` ... `*09.mdl`).
    let groups =
        load_with(&dir.join("duplicate_sequence_groups/duplicate_sequence_groups.mdl"), &LoadOptions::default());
    assert_eq!(groups.clips.len(), 9);
    assert!(groups.warnings.is_empty(), "{:?}", groups.warnings);
    // Without its group files, a model still loads; the sequences they hold are skipped, said once each.
    let alone = scratch.join("alone.mdl");
    std::fs::copy(dir.join("duplicate_sequence_groups/duplicate_sequence_groups.mdl"), &alone).unwrap();
    let lonely = load_with(&alone, &LoadOptions::default());
    assert!(lonely.clips.is_empty(), "{:?}", lonely.clips.iter().map(|c| &c.name).collect::<Vec<_>>());
    assert_eq!(lonely.warnings.iter().filter(|w| w.contains("was not found")).count(), 9, "{:?}", lonely.warnings);
    std::fs::remove_dir_all(scratch).unwrap();
}

#[test]
fn a_half_life_sequence_marked_lx_travels_with_root_motion_and_stays_in_place_without() {
    use spritebake::internal::anim::joint_transforms;
    let Some(dir) = common::corpus("mdl/hl1") else { return };
    // man.mdl's walk is marked LX but was compiled with no travel: give it 40 units, as
    // studiomdl writes a walk that moves, beside the files it needs.
    let scratch = scratch_in("studio", "travel");
    for file in ["manT.mdl", "man01.mdl"] {
        std::fs::copy(dir.join(file), scratch.join(file)).unwrap();
    }
    let bytes = std::fs::read(dir.join("man.mdl")).unwrap();
    let field = |at: usize| i32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
    let walk = field(168) + 176;
    assert_eq!(&bytes[walk..walk + 4], b"walk");
    assert_eq!(field(walk + 68), 0x40, "the walk is marked LX");
    let mut moving = bytes.clone();
    moving[walk + 76..walk + 80].copy_from_slice(&40.0f32.to_le_bytes());
    std::fs::write(scratch.join("man.mdl"), &moving).unwrap();
    let stored = load_with(&dir.join("man.mdl"), &LoadOptions::default());
    let travelling = load_with(&scratch.join("man.mdl"), &LoadOptions::default());
    assert_eq!(travelling.marked_axes("walk"), Some([true, false, false]));
    assert_eq!(travelling.marked_axes("arms_up"), Some([false, false, false]), "unmarked: its motion is kept");
    let root = |model: &Model, frame: f32, in_place: bool| {
        let options = PoseOptions { looping: true, in_place };
        joint_transforms(model, model.clip("walk"), FrameTime::Frame(frame), &options)[0].translation
    };
    for frame in [0.0, 6.5, 13.0, 25.0] {
        // With root motion the walk covers the 40 units over its 26 frames, on X alone.
        let moved = root(&travelling, frame, false) - root(&stored, frame, false);
        let expected = 40.0 * frame / 25.0;
        assert!((moved - glam::Vec3A::new(expected, 0.0, 0.0)).abs().max_element() < 1e-4, "frame {frame}: {moved}");
        // In place it is the stored walk again.
        let pinned = root(&travelling, frame, true) - root(&stored, frame, true);
        assert!(pinned.abs().max_element() < 1e-4, "frame {frame}: {pinned}");
    }
    std::fs::remove_dir_all(scratch).unwrap();
}

#[test]
fn a_half_life_skin_family_is_chosen_by_number() {
    let Some(dir) = common::corpus("mdl/hl1") else { return };
    let man = dir.join("man.mdl");
    let skin = |s: &str| load(&man, &LoadOptions { skin: Some(s.into()), ..LoadOptions::default() });
    let textures = |model: &Model| -> Vec<String> {
        model.meshes.iter().map(|m| model.materials[m.material].name.clone()).collect()
    };
    let (first, second) = (textures(&skin("0").unwrap()), textures(&skin("1").unwrap()));
    // manT.mdl's two families differ in some of the meshes' textures, not all.
    assert_eq!(textures(&load_with(&man, &LoadOptions::default())), first);
    let differ = first.iter().zip(&second).filter(|(a, b)| a != b).count();
    assert!(differ > 0 && differ < first.len(), "{first:?} {second:?}");
    let e = skin("2").unwrap_err().to_string();
    assert!(e.contains("skin") && e.contains("0 to 1"), "{e}");
    let e = skin("red").unwrap_err().to_string();
    assert!(e.contains("skin family number"), "{e}");
}

#[test]
fn half_life_texture_flags_names_and_bodies() {
    let Some(dir) = common::corpus("mdl/hl1") else { return };
    let additive = load_with(&dir.join("blend_additive.mdl"), &LoadOptions::default());
    assert!(additive.materials.iter().all(|m| m.alpha_mode == AlphaMode::Additive));
    // Chrome is an environment map: drawn with coordinates from the view, the sphere shows
    // the bright parts of its texture (with its stored coordinates it showed none over 98).
    let chrome = load_with(&dir.join("chrome_sphere.mdl"), &LoadOptions::default());
    assert!(chrome.materials[0].chrome && chrome.warnings.is_empty(), "{:?}", chrome.warnings);
    let scratch = scratch_in("studio", "chrome");
    let sphere = dir.join("chrome_sphere.mdl");
    let run = run_in(&scratch, &["render", sphere.to_str().unwrap(), "--ortho", "--size", "128", "-o", "c.png"]);
    assert!(run.status.success(), "{}", printed(&run));
    let image = image::open(scratch.join("c.png")).unwrap().to_rgba8();
    let bright = image.pixels().filter(|p| p[3] == 255 && p[0].min(p[1]).min(p[2]) > 200).count();
    assert!(bright > 100, "{bright} bright pixels");
    std::fs::remove_dir_all(scratch).unwrap();
    // Two sequences of one name: the later one is told apart.
    let names: Vec<String> = load_with(&dir.join("duplicate_sequences.mdl"), &LoadOptions::default())
        .clips
        .iter()
        .map(|c| c.name.clone())
        .collect();
    let mut unique = names.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), names.len(), "{names:?}");
    // Unnamed bones are named by number.
    let bones = load_with(&dir.join("unnamed_bones.mdl"), &LoadOptions::default());
    assert!(bones.skeleton.unwrap().joints.iter().all(|j| !j.name.is_empty()));
    // --body picks a head; an unknown one lists the choices.
    let (one, two) = (
        load_with(&dir.join("man.mdl"), &heads("reference_head1")),
        load_with(&dir.join("man.mdl"), &heads("reference_head2")),
    );
    assert_ne!(rest_points(&one), rest_points(&two));
    let e = load(&dir.join("man.mdl"), &heads("reference_head9")).unwrap_err().to_string();
    assert!(e.contains("reference_head1, reference_head2, reference_head3"), "{e}");
    let e = load(
        &dir.join("man.mdl"),
        &LoadOptions {
            bodies: vec![BodyChoice { group: "tails".into(), choice: "x".into() }],
            ..LoadOptions::default()
        },
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("studio, heads"), "{e}");
}

#[test]
fn hostile_half_life_models_end_in_an_error_naming_the_offset() {
    let Some(dir) = common::corpus("mdl/hl1") else { return };
    let scratch = scratch_in("studio", "hostile");
    let bytes = std::fs::read(dir.join("blend_additive.mdl")).unwrap();
    let try_load = |name: &str, data: &[u8]| -> Result<Model, String> {
        let path: PathBuf = scratch.join(name);
        std::fs::write(&path, data).unwrap();
        load(&path, &LoadOptions::default()).map_err(|e| e.to_string())
    };
    // Every truncation is an error (a studio model has no optional tail).
    for cut in (0..bytes.len()).step_by(7) {
        let e = try_load("cut.mdl", &bytes[..cut]).map(|_| ()).unwrap_err();
        assert!(e.contains("cut.mdl"), "cut at {cut}: {e}");
    }
    // Counts far past the limits, and offsets past the end, fail fast at their header field.
    for (at, value, words) in [
        (140, 1 << 30, "byte offset 140"),
        (144, 1 << 30, "byte offset 140"),
        (164, -5, "byte offset 164"),
        (4, 11, "version 10"),
    ] {
        let e = try_load("bad.mdl", &patched_i32(&bytes, at, value)).map(|_| ()).unwrap_err();
        assert!(e.contains(words), "field {at} = {value}: {e}");
    }
    // A sequence group file is not a model.
    let group = std::fs::read(dir.join("man01.mdl")).unwrap();
    let e = try_load("man01.mdl", &group).map(|_| ()).unwrap_err();
    assert!(e.contains("sequence group file"), "{e}");
    std::fs::remove_dir_all(scratch).unwrap();
}

#[test]
fn the_files_a_half_life_model_names_are_charged_before_they_are_read() {
    // Issue 46, R4-04: the textures file and the sequence groups were read whole, uncharged:
    // four models naming 250 MB groups aborted a thumbnail batch under 1 GiB.
    let Some(dir) = common::corpus("mdl/hl1") else { return };
    let scratch = scratch_in("studio", "named-files");
    let options = LoadOptions {
        limits: spritebake::formats::Limits { max_memory_bytes: 32 << 20, ..Default::default() },
        ..LoadOptions::default()
    };
    for file in ["man.mdl", "manT.mdl"] {
        std::fs::copy(dir.join(file), scratch.join(file)).unwrap();
    }
    // The textures file grown to 64 MiB that take no disk (sparse zeros after its own bytes):
    // it still parses, so only the charge can refuse it.
    std::fs::File::options().write(true).open(scratch.join("manT.mdl")).unwrap().set_len(64 << 20).unwrap();
    match spritebake::formats::load(&scratch.join("man.mdl"), &options) {
        Err(e @ spritebake::Error::Budget { .. }) => assert!(e.to_string().contains("file 'manT.mdl' (64 MiB)"), "{e}"),
        other => panic!("not refused by the budget: {:?}", other.map(|m| m.name)),
    }
    std::fs::remove_dir_all(scratch).unwrap();
}

#[test]
fn a_sequence_rate_outside_what_clips_play_at_is_clamped_with_a_warning() {
    // Issue 46, R4-12: at 3e38 fps every frame of a sheet lasted 0 ms; at 1e-30 fps, a million.
    let Some(dir) = common::corpus("mdl/hl1") else { return };
    let scratch = scratch_in("studio", "rates");
    std::fs::copy(dir.join("manT.mdl"), scratch.join("manT.mdl")).unwrap();
    let bytes = std::fs::read(dir.join("man.mdl")).unwrap();
    let field = |at: usize| i32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
    let walk = field(168) + 176;
    assert_eq!(&bytes[walk..walk + 4], b"walk");
    for (rate, played) in [(3e38f32, 1000.0), (1e-30, 0.01)] {
        let mut patched = bytes.clone();
        patched[walk + 32..walk + 36].copy_from_slice(&rate.to_le_bytes());
        std::fs::write(scratch.join("man.mdl"), &patched).unwrap();
        let model = load_with(&scratch.join("man.mdl"), &LoadOptions::default());
        assert_eq!(model.clip("walk").unwrap().fps, played);
        let warning = model.warnings.iter().find(|w| w.contains("clip 'walk' plays at"));
        assert!(warning.is_some_and(|w| w.contains(&format!("played at {played} fps"))), "{:?}", model.warnings);
    }
    std::fs::remove_dir_all(scratch).unwrap();
}
