//! SMD reference and sequence files: hand-computed fixtures, hostile input, and the corpus.

use glam::Vec3;
use spritebake::anim::{FrameTime, PoseOptions, pose};
use spritebake::internal::formats::smd;
use spritebake::model::{Model, Retarget};

use crate::common::{corpus, signed_volume};

/// The same 3-joint limb as the MD5 fixture: joints at x = 0, 4, 8; one triangle whose
/// vertices sit 2 units past each joint (GoldSrc 9-field lines), and one Source-style vertex
/// split 50/50 between the mid and tip joints (links leave nothing for the parent).
const LIMB_REF: &str = "// comment before the version line\nversion 1
nodes
  0 \"root\" -1
  1 \"mid\" 0
  2 \"tip\" 1
end
skeleton
time 0
  0 0 0 0 0 0 0
  1 4 0 0 0 0 0
  2 4 0 0 0 0 0
end
triangles
limb skin.bmp
0 2 0 0 0 0 1 0 1
1 6 0 0 0 0 1 0.5 1
2 10 0 0 0 0 1 1 1
limb skin.bmp
1 6 0 0 0 0 1 0.5 1
2 10 0 0 0 0 1 1 1
0 8 0 0 0 0 1 1 0 2 1 0.5 2 0.5
end
";

/// Frame 1 turns the mid joint 90° about Z; frame 2 omits the mid joint (it keeps frame 1's
/// value) and poses a bone the reference does not have. The sequence numbers its bones
/// differently from the reference (they are matched by name); its hierarchy is the
/// reference's, plus the extra root.
const LIMB_SEQ: &str = "version 1
nodes
  0 \"extra\" -1
  1 \"root\" -1
  2 \"mid\" 1
  3 \"tip\" 2
end
skeleton
time 0
  1 0 0 0 0 0 0
  2 4 0 0 0 0 0
  3 4 0 0 0 0 0
time 1
  2 4 0 0 0 0 1.5707963
time 2
  3 4 0 0 0 0 0
  0 1 2 3 0 0 0
end
";

fn limb() -> Model {
    let mut model = smd::parse_reference(LIMB_REF).unwrap();
    let (clip, warnings) = smd::parse_sequence(LIMB_SEQ, "bend", model.skeleton.as_ref().unwrap()).unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    // The extra bone carries nothing the reference has: counted, and it changes nothing.
    let retarget = Retarget { mapped: 3, ignored: 1, ..Retarget::default() };
    assert_eq!(clip.retarget, Some(retarget));
    model.clips.push(clip);
    model
}

fn posed(model: &Model, frame: f32) -> Vec<Vec3> {
    let p = pose(model, model.clips.first(), FrameTime::Frame(frame), &PoseOptions { looping: false, in_place: false });
    p.parts[0].positions.to_vec()
}

fn near(got: &[Vec3], want: &[Vec3]) {
    for (g, w) in got.iter().zip(want) {
        assert!((*g - *w).length() < 1e-4, "got {g}, want {w}");
    }
}

#[test]
fn limb_poses_to_hand_computed_positions() {
    let model = limb();
    assert_eq!(model.clips[0].frame_count(), 3);
    assert_eq!(model.clips[0].fps, 30.0);
    let rest = [2.0, 6.0, 10.0, 6.0, 10.0, 8.0].map(|x| Vec3::new(x, 0.0, 0.0));
    near(&posed(&model, 0.0), &rest);
    // 90° about the mid joint at x = 4: the tip joint moves to (4, 4, 0).
    let bent = [
        Vec3::new(2.0, 0.0, 0.0),
        Vec3::new(4.0, 2.0, 0.0),
        Vec3::new(4.0, 6.0, 0.0),
        Vec3::new(4.0, 2.0, 0.0),
        Vec3::new(4.0, 6.0, 0.0),
        Vec3::new(4.0, 4.0, 0.0),
    ];
    near(&posed(&model, 1.0), &bent);
    // Frame 2 omits the mid joint: it keeps frame 1's rotation.
    near(&posed(&model, 2.0), &bent);
    let h = std::f32::consts::FRAC_1_SQRT_2;
    near(
        &posed(&model, 0.5)[..3],
        &[Vec3::new(2.0, 0.0, 0.0), Vec3::new(4.0 + 2.0 * h, 2.0 * h, 0.0), Vec3::new(4.0 + 6.0 * h, 6.0 * h, 0.0)],
    );
    // UVs are flipped to the top-left convention.
    assert_eq!(model.meshes[0].uvs[0].y, 0.0);
    assert_eq!(model.materials[0].texture_name.as_deref(), Some("limb skin.bmp"));
}

#[test]
fn malformed_input_names_the_line() {
    let cases = [
        (LIMB_REF.replace("2 10 0 0 0 0 1 1 1\n0 8", "7 10 0 0 0 0 1 1 1\n0 8"), "line 21"),
        (LIMB_REF.replace("1 6 0 0 0 0 1 0.5 1\n2 10", "1 6 0 nan 0 0 1 0.5 1\n2 10"), "line 17"),
        (LIMB_REF.replace("2 1 0.5 2 0.5", "3 1 0.5 2 0.5"), "line 22"),
        (LIMB_REF.replace("version 1", "version 2"), "line 2"),
        (LIMB_REF.replace("  2 \"tip\" 1", "  2 \"tip\" 5"), "line 6"),
    ];
    for (src, needle) in cases {
        let e = smd::parse_reference(&src).unwrap_err().to_string();
        assert!(e.contains(needle), "expected '{needle}' in: {e}");
    }
    for end in 0..LIMB_REF.len() {
        let _ = smd::parse_reference(&LIMB_REF[..end]);
    }
    assert!(smd::parse_reference("").is_err());
}

#[test]
fn a_sequence_is_told_from_a_reference_by_its_blocks() {
    assert!(smd::is_sequence(LIMB_SEQ));
    assert!(!smd::is_sequence(LIMB_REF));
    // No skeleton, or not an SMD at all: not a sequence (loading it says what is wrong).
    assert!(!smd::is_sequence("version 1\nnodes\n0 \"root\" -1\nend\n"));
    assert!(!smd::is_sequence("skeleton\n"));
    assert!(!smd::is_sequence(""));
}

#[test]
fn corpus_smd_models_and_sequences_load() {
    let Some(dir) = corpus("smd") else { return };
    let load = |p: &str, anims: &[&str]| {
        let options = spritebake::formats::LoadOptions {
            animations: anims.iter().map(|a| dir.join(a)).collect(),
            ..Default::default()
        };
        spritebake::formats::load(&dir.join(p), &options).unwrap_or_else(|e| panic!("{p}: {e}"))
    };
    let crab_anims = [
        "headcrab/idle1.smd",
        "headcrab/walk.smd",
        "headcrab/run.smd",
        "headcrab/jump.smd",
        "headcrab/flinch.smd",
        "headcrab/dieback.smd",
    ];
    let crab = load("headcrab/reference.smd", &crab_anims);
    assert_eq!(crab.skeleton.as_ref().unwrap().joints.len(), 29);
    assert_eq!(crab.triangle_count(), 478);
    let counts: Vec<usize> = crab.clips.iter().map(|c| c.frame_count()).collect();
    assert_eq!(counts, [31, 35, 29, 31, 19, 51]);
    assert!(crab.materials.iter().any(|m| m.name == "transparent section.bmp"));
    let soldier = load(
        "combine_soldier_lod4/combine_soldier_Soldier_reference_lod4.smd",
        &["combine_soldier_lod4/body_poses_lean.smd"],
    );
    assert_eq!(soldier.clips[0].frame_count(), 111);
    assert_eq!(soldier.triangle_count(), 368);
    let cube = load("bst_cube/Cube.smd", &["bst_cube/anim_X_Axis.smd"]);
    assert!(signed_volume(&cube) > 0.0, "SMD cube winds inside out");
    // The X-axis action moves `Bone` (and what it carries) along X.
    let first = posed(&cube, 0.0);
    let last = posed(&cube, 2.0);
    let moved: Vec<Vec3> = first.iter().zip(&last).map(|(a, b)| *b - *a).filter(|d| d.length() > 1e-4).collect();
    assert!(!moved.is_empty() && moved.iter().all(|d| d.y.abs() < 1e-3 && d.z.abs() < 1e-3), "{moved:?}");
    for (file, tris) in [
        ("bst_cube/Cube_goldsrc.smd", 12),
        ("holygrail/holy_grailref.smd", 896),
        ("wuson/WusonSMD.smd", 3732),
        ("edge/triangle_no_final_newline.smd", 1),
        ("edge/Overlapping_DifferentWeights.smd", 2),
    ] {
        assert_eq!(load(file, &[]).triangle_count(), tris, "{file}");
    }
    assert!(spritebake::formats::load(&dir.join("edge/empty.smd"), &Default::default()).is_err());
    // Every clip of the headcrab poses at every frame and half-frame with finite positions.
    for clip in &crab.clips {
        for f in 0..clip.frame_count() * 2 {
            let p = pose(&crab, Some(clip), FrameTime::Frame(f as f32 * 0.5), &PoseOptions::default());
            assert!(p.parts.iter().flat_map(|p| p.positions.iter()).all(|v| v.is_finite()), "{} frame {f}", clip.name);
        }
    }
}
