//! SMD sequences whose hierarchy differs from the reference's (HL2 puts `ValveBiped.Bip01`
//! above the pelvis): each frame is evaluated in the sequence's own hierarchy and mapped onto
//! the reference by bone name, as studiomdl does. Expected positions are computed here from
//! the files' numbers (`T(p) · Rz · Ry · Rx`, column vectors), never by the loader.

use glam::{Mat4, Vec3};
use spritebake::anim::{FrameTime, PoseOptions, pose};
use spritebake::bake::{self, FrameRequest};
use spritebake::formats::LoadOptions;
use spritebake::internal::formats::smd;
use spritebake::model::{Model, Retarget};
use spritebake::raster::{OrbitView, RenderOptions, Renderer};

use crate::common::corpus;

/// A bone: name, parent (index into the same list), and its `time 0` line `px py pz rx ry rz`.
type Bone = (&'static str, Option<usize>, [f32; 6]);

/// The reference: a pelvis root with a spine (and a head on it) and a thigh. The sequence
/// below lacks the head.
const REFERENCE: [Bone; 4] = [
    ("pelvis", None, [0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
    ("spine", Some(0), [0.0, 0.0, 10.0, 0.0, 0.0, 0.0]),
    ("head", Some(1), [0.0, 0.0, 8.0, 0.0, 0.0, 0.0]),
    ("thigh", Some(0), [3.0, 0.0, -1.0, 0.0, 0.0, 0.0]),
];

/// The sequence's hierarchy, as HL2 writes it: `Bip01` above the pelvis, the spine hung from
/// `Bip01` (not from the pelvis), the thigh under the pelvis as in the reference, and a finger
/// the reference lacks.
const SEQUENCE: [(&str, Option<usize>); 5] =
    [("Bip01", None), ("pelvis", Some(0)), ("spine", Some(0)), ("finger", Some(2)), ("thigh", Some(1))];

const QUARTER: f32 = std::f32::consts::FRAC_PI_2;

/// The sequence's frames: `(bone, px py pz rx ry rz)` lines. Frame 0 turns `Bip01` 90° about
/// Z and lifts it 38.6; frame 1 moves it 5 along x and omits the pelvis and the finger (they
/// keep frame 0's values).
fn sequence_frames() -> [Vec<(usize, [f32; 6])>; 2] {
    [
        vec![
            (0, [0.0, 0.0, 38.6, 0.0, 0.0, QUARTER]),
            (1, [1.0, 2.0, 0.0, 0.3, 0.0, 0.0]),
            (2, [0.0, 3.0, -3.0, QUARTER, 0.1, QUARTER]),
            (3, [1.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
            (4, [3.0, 0.0, -1.0, 0.0, 0.4, 0.0]),
        ],
        vec![
            (0, [5.0, 0.0, 38.6, 0.0, 0.0, QUARTER]),
            (2, [0.0, 3.0, -3.0, 1.2, 0.1, QUARTER]),
            (4, [3.0, 0.0, -1.0, 0.2, 0.6, 0.0]),
        ],
    ]
}

/// A vertex: reference bone, position, and Source links (bone, weight).
type Vertex = (usize, [f32; 3], &'static [(usize, f32)]);

/// Each bone has a triangle; the last vertex is split half and half between the pelvis and
/// the spine.
const VERTICES: [Vertex; 12] = [
    (0, [0.0, 0.0, 0.0], &[]),
    (0, [2.0, 0.0, 0.0], &[]),
    (0, [0.0, 0.0, 6.0], &[]),
    (1, [-2.0, 0.0, 10.0], &[]),
    (1, [2.0, 0.0, 10.0], &[]),
    (1, [0.0, 1.0, 16.0], &[]),
    (2, [-1.0, 0.0, 18.0], &[]),
    (2, [1.0, 0.0, 18.0], &[]),
    (2, [0.0, 0.5, 21.0], &[]),
    (3, [3.0, 0.0, -1.0], &[]),
    (3, [4.0, 0.0, -9.0], &[]),
    (1, [0.0, 0.0, 9.0], &[(0, 0.5), (1, 0.5)]),
];

/// `T(p) · Rz(rz) · Ry(ry) · Rx(rx)`.
fn local(v: [f32; 6]) -> Mat4 {
    let [px, py, pz, rx, ry, rz] = v;
    Mat4::from_translation(Vec3::new(px, py, pz))
        * Mat4::from_rotation_z(rz)
        * Mat4::from_rotation_y(ry)
        * Mat4::from_rotation_x(rx)
}

/// Model-space transforms of bones listed parents first.
fn absolute(parents: &[Option<usize>], locals: &[Mat4]) -> Vec<Mat4> {
    let mut out: Vec<Mat4> = Vec::new();
    for (parent, l) in parents.iter().zip(locals) {
        out.push(parent.map_or(*l, |p| out[p] * *l));
    }
    out
}

fn bone_line(i: usize, v: [f32; 6]) -> String {
    format!("{i} {} {} {} {} {} {}\n", v[0], v[1], v[2], v[3], v[4], v[5])
}

fn nodes(bones: &[(&str, Option<usize>)]) -> String {
    let mut s = "version 1\nnodes\n".to_string();
    for (i, (name, parent)) in bones.iter().enumerate() {
        s.push_str(&format!("{i} \"{name}\" {}\n", parent.map_or(-1, |p| p as i64)));
    }
    s + "end\n"
}

fn reference_smd() -> String {
    let names: Vec<(&str, Option<usize>)> = REFERENCE.iter().map(|b| (b.0, b.1)).collect();
    let mut s = nodes(&names) + "skeleton\ntime 0\n";
    for (i, bone) in REFERENCE.iter().enumerate() {
        s.push_str(&bone_line(i, bone.2));
    }
    s.push_str("end\ntriangles\n");
    for tri in VERTICES.chunks(3) {
        s.push_str("skin\n");
        for (bone, [x, y, z], links) in tri {
            s.push_str(&format!("{bone} {x} {y} {z} 0 -1 0 0 0"));
            if !links.is_empty() {
                s.push_str(&format!(" {}", links.len()));
                for (b, w) in *links {
                    s.push_str(&format!(" {b} {w}"));
                }
            }
            s.push('\n');
        }
    }
    s + "end\n"
}

fn sequence_smd() -> String {
    let mut s = nodes(&SEQUENCE) + "skeleton\n";
    for (f, frame) in sequence_frames().iter().enumerate() {
        s.push_str(&format!("time {f}\n"));
        for &(bone, v) in frame {
            s.push_str(&bone_line(bone, v));
        }
    }
    s + "end\n"
}

/// The vertices at sequence frame `frame`, computed from the numbers above: the sequence
/// evaluated in its own hierarchy (omitted bones keep their previous values), each reference
/// bone taking its namesake's model-space transform, the head (absent from the sequence) its
/// reference pose under the spine; then `posed = anim_abs · inverse(ref_abs) · v`.
fn expected(frame: usize) -> Vec<Vec3> {
    let mut seq_locals = vec![Mat4::IDENTITY; SEQUENCE.len()];
    for f in sequence_frames().iter().take(frame + 1) {
        for &(bone, v) in f {
            seq_locals[bone] = local(v);
        }
    }
    let seq_parents: Vec<Option<usize>> = SEQUENCE.iter().map(|b| b.1).collect();
    let seq_abs = absolute(&seq_parents, &seq_locals);
    let of = |name: &str| seq_abs[SEQUENCE.iter().position(|b| b.0 == name).unwrap()];
    let ref_parents: Vec<Option<usize>> = REFERENCE.iter().map(|b| b.1).collect();
    let ref_abs = absolute(&ref_parents, &REFERENCE.map(|b| local(b.2)));
    let anim_abs = [of("pelvis"), of("spine"), of("spine") * local(REFERENCE[2].2), of("thigh")];
    VERTICES
        .iter()
        .map(|&(bone, p, links)| {
            let own = [(bone, 1.0)];
            let links = if links.is_empty() { &own[..] } else { links };
            links.iter().map(|&(b, w)| (anim_abs[b] * ref_abs[b].inverse()).transform_point3(Vec3::from(p)) * w).sum()
        })
        .collect()
}

fn retargeted() -> Model {
    let mut model = smd::parse_reference(&reference_smd()).unwrap();
    let (clip, warnings) = smd::parse_sequence(&sequence_smd(), "lean", model.skeleton.as_ref().unwrap()).unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    model.clips.push(clip);
    model
}

fn posed(model: &Model, frame: f32) -> Vec<Vec3> {
    let options = PoseOptions { looping: false, in_place: false };
    pose(model, model.clips.first(), FrameTime::Frame(frame), &options).parts[0].positions.to_vec()
}

fn near(got: &[Vec3], want: &[Vec3]) {
    assert_eq!(got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!((*g - *w).length() < 1e-4, "vertex {i}: got {g}, want {w}");
    }
}

#[test]
fn a_bone_above_the_root_poses_as_the_sequence_evaluated_in_its_own_hierarchy() {
    let model = retargeted();
    let clip = &model.clips[0];
    assert_eq!(clip.frame_count(), 2);
    // The pelvis and the spine hang from Bip01 in the sequence, the thigh from the pelvis in
    // both; the finger carries nothing; the head is not in the sequence.
    let report = Retarget {
        mapped: 3,
        reparented: 2,
        above_root: vec!["Bip01".into()],
        ignored: 1,
        missing: vec![model.skeleton.as_ref().unwrap().find("head").unwrap()],
    };
    assert_eq!(clip.retarget.as_ref(), Some(&report));
    near(&posed(&model, 0.0), &expected(0));
    near(&posed(&model, 1.0), &expected(1));
    // By the numbers: the pelvis origin sits at Bip01 · (1, 2, 0) = Rz(90°)·(1, 2, 0) lifted
    // 38.6: standing, not lying at the pelvis's own frame.
    near(&posed(&model, 0.0)[..1], &[Vec3::new(-2.0, 1.0, 38.6)]);
    // Between frames the reference's parent-relative poses are interpolated: the pelvis (a
    // reference root) keeps its rotation and slides from x = -2 to x = 3.
    near(&posed(&model, 0.5)[..1], &[Vec3::new(0.5, 1.0, 38.6)]);
}

#[test]
fn a_sequence_with_the_references_hierarchy_is_taken_as_it_is() {
    let reference = reference_smd();
    let model = smd::parse_reference(&reference).unwrap();
    let skeleton = model.skeleton.as_ref().unwrap();
    // The reference read as a sequence (its triangles skipped): the frame is the rest pose,
    // bit for bit, and nothing was retargeted.
    let (clip, _) = smd::parse_sequence(&reference, "same", skeleton).unwrap();
    assert_eq!(clip.retarget, None);
    assert_eq!(clip.frames, spritebake::model::ClipFrames::Skeletal(vec![skeleton.rest_pose()]));
}

fn soldier(dir: &std::path::Path) -> Model {
    let options = LoadOptions { animations: vec![dir.join("body_poses_lean.smd")], ..LoadOptions::default() };
    spritebake::formats::load(&dir.join("combine_soldier_Soldier_reference_lod4.smd"), &options).unwrap()
}

const SOLDIER_LINE: &str = "sequence body_poses_lean: 41 bones mapped (2 under another parent), 1 added above the \
                            root (ValveBiped.Bip01), 13 ignored (not in the reference), 3 missing (kept at their \
                            reference pose)";

#[test]
fn the_combine_soldier_stands_and_leans() {
    let Some(dir) = corpus("smd/combine_soldier_lod4") else { return };
    let model = soldier(&dir);
    let clip = &model.clips[0];
    let report = clip.retarget.as_ref().expect("the lean sequence is retargeted");
    assert_eq!((report.mapped, report.reparented, report.ignored), (41, 2, 13));
    assert_eq!(report.above_root, ["ValveBiped.Bip01"]);
    let joints = &model.skeleton.as_ref().unwrap().joints;
    let missing: Vec<&str> = report.missing.iter().map(|&j| joints[j].name.as_str()).collect();
    assert_eq!(missing, ["ValveBiped.Cod", "ValveBiped.Anim_Attachment_LH", "ValveBiped.Anim_Attachment_RH"]);
    // In the renderer's world (Y up), the posed soldier is taller than it is wide or deep.
    let posed = pose(&model, Some(clip), FrameTime::Frame(3.0), &PoseOptions::default());
    let points = spritebake::internal::bake::world_points(&model, &posed);
    let extent = |axis: fn(&Vec3) -> f32| {
        let values = points.iter().map(axis);
        values.clone().fold(f32::MIN, f32::max) - values.fold(f32::MAX, f32::min)
    };
    let (x, y, z) = (extent(|p| p.x), extent(|p| p.y), extent(|p| p.z));
    assert!(y > x.max(z), "posed extents x {x}, y {y}, z {z}: the soldier does not stand");
    // Seen from the side, the opaque part of the image is taller than wide.
    let request = FrameRequest::clip(Some(clip), FrameTime::Frame(3.0), PoseOptions::default());
    let view = OrbitView { yaw_degrees: 90.0, ..OrbitView::default() };
    let options = RenderOptions { width: 96, height: 96, ssaa: 1, ..RenderOptions::default() };
    let image = bake::render_frame(&Renderer::new(), &model, &request, &view, &options).unwrap();
    let (_, _, w, h) = image.opaque_bounds().expect("the soldier renders");
    assert!(h > w, "side view {w}x{h}: the soldier does not stand");
}

#[test]
fn info_says_how_the_lean_sequence_was_mapped() {
    let Some(dir) = corpus("smd/combine_soldier_lod4") else { return };
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_spritebake"))
        .arg("info")
        .arg(dir.join("combine_soldier_Soldier_reference_lod4.smd"))
        .arg("--anim")
        .arg(dir.join("body_poses_lean.smd"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.lines().any(|l| l == SOLDIER_LINE), "{out}");
    // The old per-bone warnings are gone.
    assert!(!out.contains("not in the reference skeleton"), "{out}");
}
