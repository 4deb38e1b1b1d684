//! MD5 mesh and anim: hand-computed fixtures, hostile input, and the corpus.

use glam::Vec3;
use spritebake::anim::{FrameTime, PoseOptions, pose};
use spritebake::internal::anim::joint_transforms;
use spritebake::internal::formats::md5;
use spritebake::model::ClipFrames;

use crate::common::{corpus, signed_volume};

/// A 3-joint limb along +X (joints at x = 0, 4, 8), one vertex per joint 2 units past it, and a
/// split vertex at x = 8 (50% mid joint, 50% tip joint). The anim turns the mid joint 90° about
/// Z in frame 1: the stored quaternion is (0, 0, −sin 45°) and w = −cos 45° by the format's
/// w ≤ 0 rule, i.e. −(0, 0, sin 45°, cos 45°), the same rotation as +90°.
const LIMB_MESH: &str = r#"MD5Version 10
commandline "hand written"
numJoints 3
numMeshes 1
joints {
	"root"	-1 ( 0 0 0 ) ( 0 0 0 )		// origin
	"mid"	0 ( 4 0 0 ) ( 0 0 0 )
	"tip"	1 ( 8 0 0 ) ( 0 0 0 )
}
mesh {
	shader "limb"
	numverts 4
	vert 0 ( 0 0 ) 0 1
	vert 1 ( 0.5 0 ) 1 1
	vert 2 ( 1 0 ) 2 1
	vert 3 ( 1 1 ) 3 2
	numtris 2
	tri 0 0 2 1
	tri 1 1 2 3
	numweights 5
	weight 0 0 1 ( 2 0 0 )
	weight 1 1 1 ( 2 0 0 )
	weight 2 2 1 ( 2 0 0 )
	weight 3 1 0.5 ( 4 0 0 )
	weight 4 2 0.5 ( 0 0 0 )
}
"#;

const LIMB_ANIM: &str = r#"MD5Version 10
commandline ""
numFrames 2
numJoints 3
frameRate 10
numAnimatedComponents 1
hierarchy {
	"root"	-1 0 0
	"mid"	0 32 0	// Qz animated
	"tip"	1 0 1
}
bounds {
	( 0 -1 -1 ) ( 10 1 1 )
	( 0 -1 -1 ) ( 5 7 1 )
}
baseframe {
	( 0 0 0 ) ( 0 0 0 )
	( 4 0 0 ) ( 0 0 0 )
	( 4 0 0 ) ( 0 0 0 )
}
frame 0 {
	0
}
frame 1 {
	-0.7071068
}
"#;

#[test]
fn limb_poses_to_hand_computed_positions() {
    let mut model = md5::parse_mesh(LIMB_MESH).unwrap();
    let clip = md5::parse_anim(LIMB_ANIM, "bend", model.skeleton.as_ref().unwrap()).unwrap();
    model.clips.push(clip);
    let rest = &model.meshes[0].positions;
    let want_rest =
        [Vec3::new(2.0, 0.0, 0.0), Vec3::new(6.0, 0.0, 0.0), Vec3::new(10.0, 0.0, 0.0), Vec3::new(8.0, 0.0, 0.0)];
    for (g, w) in rest.iter().zip(want_rest) {
        assert!((*g - w).length() < 1e-5, "rest {g} vs {w}");
    }
    let at = |f: f32| {
        pose(&model, model.clips.first(), FrameTime::Frame(f), &PoseOptions { looping: false, in_place: false }).parts
            [0]
        .positions
        .to_vec()
    };
    for (g, w) in at(0.0).iter().zip(want_rest) {
        assert!((*g - w).length() < 1e-5, "frame 0 {g} vs {w}");
    }
    // Frame 1: the mid joint (at x = 4) turns 90°: the tip joint moves to (4, 4, 0).
    let want = [Vec3::new(2.0, 0.0, 0.0), Vec3::new(4.0, 2.0, 0.0), Vec3::new(4.0, 6.0, 0.0), Vec3::new(4.0, 4.0, 0.0)];
    for (g, w) in at(1.0).iter().zip(want) {
        assert!((*g - w).length() < 1e-4, "frame 1 {g} vs {w}");
    }
    // Halfway: 45° about the mid joint.
    let h = std::f32::consts::FRAC_1_SQRT_2;
    let want =
        [Vec3::new(2.0, 0.0, 0.0), Vec3::new(4.0 + 2.0 * h, 2.0 * h, 0.0), Vec3::new(4.0 + 6.0 * h, 6.0 * h, 0.0)];
    for (g, w) in at(0.5).iter().zip(want) {
        assert!((*g - w).length() < 1e-4, "frame 0.5 {g} vs {w}");
    }
    // The triangles were reversed from Doom 3's clockwise order.
    assert_eq!(model.meshes[0].indices[0], [0, 1, 2]);
}

#[test]
fn malformed_input_names_the_line() {
    let cases = [
        (LIMB_MESH.replace("( 8 0 0 )", "( 8 nan 0 )"), "line 8"),
        (LIMB_MESH.replace("tri 1 1 2 3", "tri 1 1 2 4"), "line 19"),
        (LIMB_MESH.replace("weight 2 2 1", "weight 2 7 1"), "line 23"),
        (LIMB_MESH.replace("numverts 4", "numverts 4294967295"), "line 12"),
        (LIMB_MESH.replace("MD5Version 10", "MD5Version 6"), "line 1"),
        (LIMB_MESH.replace("vert 3 ( 1 1 ) 3 2", "vert 3 ( 1 1 ) 1000000 2"), "line 16: vertex 3 uses weights"),
    ];
    for (src, needle) in cases {
        let err = md5::parse_mesh(&src).unwrap_err().to_string();
        assert!(err.contains(needle), "expected '{needle}' in: {err}");
    }
    // A frame rate beyond --fps's bound (a crossfade into the clip would span 10³⁰ frames).
    let skeleton = md5::parse_mesh(LIMB_MESH).unwrap().skeleton.unwrap();
    let err = md5::parse_anim(&LIMB_ANIM.replace("frameRate 10", "frameRate 1e30"), "a", &skeleton).unwrap_err();
    assert!(err.to_string().contains("line 5: expected a frameRate from 0.01 to 1000, found 1"), "{err}");
}

#[test]
fn anim_for_another_skeleton_is_rejected() {
    let model = md5::parse_mesh(LIMB_MESH).unwrap();
    let skeleton = model.skeleton.as_ref().unwrap();
    let renamed = LIMB_ANIM.replace("\"tip\"\t1", "\"hand\"\t1");
    let err = md5::parse_anim(&renamed, "x", skeleton).unwrap_err().to_string();
    assert!(err.contains("line 10") && err.contains("hand") && err.contains("another skeleton"), "{err}");
    let fewer = LIMB_ANIM.replace("numJoints 3", "numJoints 2");
    assert!(md5::parse_anim(&fewer, "x", skeleton).unwrap_err().to_string().contains("2 joints"));
}

#[test]
fn every_truncation_is_an_error_not_a_panic() {
    for end in 0..LIMB_MESH.len() {
        if LIMB_MESH.is_char_boundary(end) {
            let _ = md5::parse_mesh(&LIMB_MESH[..end]);
        }
    }
    let model = md5::parse_mesh(LIMB_MESH).unwrap();
    for end in 0..LIMB_ANIM.len() {
        let _ = md5::parse_anim(&LIMB_ANIM[..end], "x", model.skeleton.as_ref().unwrap());
    }
}

#[test]
fn corpus_md5_models_load_with_outward_winding() {
    let Some(dir) = corpus("md5") else { return };
    let load =
        |p: &str| spritebake::formats::load(&dir.join(p), &Default::default()).unwrap_or_else(|e| panic!("{p}: {e}"));
    let cube = load("simplecube/SimpleCube.md5mesh");
    assert_eq!((cube.vertex_count(), cube.triangle_count()), (24, 12));
    assert!(signed_volume(&cube) > 0.0, "SimpleCube winds inside out: {}", signed_volume(&cube));
    let bob = load("bob_lamp/boblampclean.md5mesh");
    assert_eq!(bob.skeleton.as_ref().unwrap().joints.len(), 33);
    assert_eq!((bob.meshes.len(), bob.vertex_count(), bob.triangle_count()), (6, 875, 1027));
    let boar = load("boarman/BoarMan.md5mesh");
    assert_eq!(boar.vertex_count(), 1552);
    let snout = load("snoutx10k/snoutx10k.md5mesh");
    assert_eq!(snout.skeleton.as_ref().unwrap().joints.len(), 75);
    for edge in [
        "InvalidBoneIndex",
        "OverflowingTriangleIndex",
        "OverflowingVertexIndex",
        "OverflowingWeightIndex",
        "malformed_weight_index",
        "empty",
    ] {
        let path = dir.join(format!("edge/{edge}.md5mesh"));
        let err = spritebake::formats::load(&path, &Default::default()).map(|_| ()).unwrap_err();
        assert!(err.to_string().contains(edge), "{edge}: {err}");
    }
}

#[test]
fn bob_lamp_frames_stay_inside_their_bounds() {
    let Some(dir) = corpus("md5/bob_lamp") else { return };
    let options =
        spritebake::formats::LoadOptions { animations: vec![dir.join("boblampclean.md5anim")], ..Default::default() };
    let model = spritebake::formats::load(&dir.join("boblampclean.md5mesh"), &options).unwrap();
    let clip = &model.clips[0];
    assert_eq!((clip.frame_count(), clip.fps), (140, 24.0));
    assert!(matches!(clip.frames, ClipFrames::Skeletal(_)));
    let size = model.rest_bounds().size().length();
    for f in 0..clip.frame_count() {
        let posed = pose(&model, Some(clip), FrameTime::Frame(f as f32), &PoseOptions::default());
        let b = clip.frame_bounds[f];
        for p in posed.parts.iter().flat_map(|p| p.positions.iter()) {
            assert!(p.is_finite() && b.contains(*p, size * 0.02), "frame {f}: {p} outside {b:?}");
        }
        let half = pose(&model, Some(clip), FrameTime::Frame(f as f32 + 0.5), &PoseOptions::default());
        assert!(half.parts.iter().flat_map(|p| p.positions.iter()).all(|p| p.is_finite()));
    }
    // Every texture bob names is shipped beside it.
    assert!(model.warnings.is_empty(), "{:?}", model.warnings);
    assert_eq!(joint_transforms(&model, Some(clip), FrameTime::Frame(3.0), &PoseOptions::default()).len(), 33);
}
