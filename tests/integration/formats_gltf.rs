//! glTF loading on fixtures built here: a two-joint skinned strip whose poses are computed by
//! hand (LINEAR, STEP, CUBICSPLINE), morph targets, node transforms, and hostile variants
//! (truncated GLB, accessors past their buffer, joints past the skin, non-base64 data URIs).

use std::path::{Path, PathBuf};

use base64::Engine as _;
use glam::{Quat, Vec3};
use serde_json::{Value, json};
use spritebake::anim::{FrameTime, PoseOptions, pose};
use spritebake::formats::LoadOptions;
use spritebake::internal::formats::gltf;
use spritebake::model::Model;

use crate::common;
use crate::common::gltf::{Builder, with_bounds};

const S: f32 = std::f32::consts::FRAC_1_SQRT_2;

/// Vertices A, B (root joint), C (child joint) and D (half each, split over JOINTS_0 and
/// JOINTS_1 with weights summing to 0.5, so normalisation matters).
const POSITIONS: [[f32; 3]; 4] = [[0.5, 0.0, 0.0], [-0.5, 0.0, 0.0], [0.5, 2.0, 0.0], [0.0, 2.0, 0.0]];
const C: usize = 2;
const D: usize = 3;

/// The skinned strip: armature node (translated, not a joint) → joint0 → joint1 (1 up), the
/// mesh node translated far away (ignored for skinned meshes), and three animations rotating
/// joint1 90° about Z between t = 0 and 1: `linear`, `step`, `cubic`.
fn strip_document() -> Value {
    let mut b = Builder::default();
    let pos = b.floats(&POSITIONS.concat(), "VEC3", 3);
    let idx = b.u16s(&[0, 2, 1, 1, 2, 3]);
    let j0 = b.u8s(&[0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0], "VEC4", 4);
    let w0 = b.floats(&[1., 0., 0., 0., 1., 0., 0., 0., 1., 0., 0., 0., 0.25, 0., 0., 0.], "VEC4", 4);
    let j1 = b.u8s(&[0; 12].iter().copied().chain([1, 0, 0, 0]).collect::<Vec<_>>(), "VEC4", 4);
    let w1 = b.floats(&[0.; 12].iter().copied().chain([0.25, 0., 0., 0.]).collect::<Vec<_>>(), "VEC4", 4);
    // Inverse binds undo the joints' rest transforms, armature included: T(0,0,-1), T(0,-1,-1).
    let mut ibm = glam::Mat4::from_translation(Vec3::new(0.0, 0.0, -1.0)).to_cols_array().to_vec();
    ibm.extend(glam::Mat4::from_translation(Vec3::new(0.0, -1.0, -1.0)).to_cols_array());
    let ibm = b.floats(&ibm, "MAT4", 16);
    let times = b.floats(&[0.0, 1.0], "SCALAR", 1);
    let rot = b.floats(&[0., 0., 0., 1., 0., 0., S, S], "VEC4", 4);
    // Cubic: in-tangent, value, out-tangent per key; tangents deliberately non-zero.
    let cubic = b.floats(
        &[0.3, 0., 0., 0., 0., 0., 0., 1., 0., 0.7, 0., 0., 0., 0.2, 0., 0., 0., 0., S, S, 0.5, 0., 0., 0.],
        "VEC4",
        4,
    );
    let anim = |name: &str, interpolation: &str, output: usize| {
        json!({"name": name, "channels": [{"sampler": 0, "target": {"node": 2, "path": "rotation"}}],
               "samplers": [{"input": times, "output": output, "interpolation": interpolation}]})
    };
    b.finish(json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0, 3]}],
        "nodes": [
            {"name": "armature", "translation": [0, 0, 1], "children": [1]},
            {"name": "joint0", "children": [2]},
            {"name": "joint1", "translation": [0, 1, 0]},
            {"name": "strip", "mesh": 0, "skin": 0, "translation": [100, 0, 0]}
        ],
        "meshes": [{"primitives": [{"attributes": {"POSITION": pos, "JOINTS_0": j0, "WEIGHTS_0": w0, "JOINTS_1": j1, "WEIGHTS_1": w1}, "indices": idx}]}],
        "skins": [{"joints": [1, 2], "inverseBindMatrices": ibm}],
        "animations": [anim("linear", "LINEAR", rot), anim("step", "STEP", rot), anim("cubic", "CUBICSPLINE", cubic)],
    }))
}

/// The two-root walk of [`common::walk`] as glTF: the roots `Feet` and `Body` (with `Head`
/// below it) hang, in that order, under an armature node turned -90° about X, as Blender
/// exports a Z-up rig, so their channels are not in model axes; `walk` translates both roots.
fn two_root_walk() -> Value {
    use common::walk::{BODY, FEET, HEAD, TIMES, VERTICES, head_at_rest, joint_of};
    let turn = Quat::from_rotation_x(-std::f32::consts::FRAC_PI_2);
    // Every joint is turned as the armature is, so model-axis offsets map back alike.
    let local = |p: [f32; 3]| (turn.inverse() * Vec3::from(p)).to_array();
    let mut b = Builder::default();
    let pos = b.floats(&VERTICES.concat(), "VEC3", 3);
    let idx = b.u16s(&(0..VERTICES.len() as u16).collect::<Vec<_>>());
    let joints: Vec<u8> = (0..VERTICES.len()).flat_map(|v| [joint_of(v) as u8, 0, 0, 0]).collect();
    let j0 = b.u8s(&joints, "VEC4", 4);
    let w0 = b.floats(&[1.0, 0.0, 0.0, 0.0].repeat(VERTICES.len()), "VEC4", 4);
    let ibm: Vec<f32> = [FEET[0], BODY[0], head_at_rest()]
        .iter()
        .flat_map(|p| glam::Mat4::from_rotation_translation(turn, Vec3::from(*p)).inverse().to_cols_array())
        .collect();
    let ibm = b.floats(&ibm, "MAT4", 16);
    let times = b.floats(&TIMES, "SCALAR", 1);
    let mut track = |keys: &[[f32; 3]; 3]| b.floats(&keys.map(local).concat(), "VEC3", 3);
    let (feet, body) = (track(&FEET), track(&BODY));
    let channel =
        |sampler: usize, node: usize| json!({"sampler": sampler, "target": {"node": node, "path": "translation"}});
    let sampler = |output: usize| json!({"input": times, "output": output, "interpolation": "LINEAR"});
    b.finish(json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0, 4]}],
        "nodes": [
            {"name": "armature", "rotation": turn.to_array(), "children": [1, 2]},
            {"name": "Feet", "translation": local(FEET[0])},
            {"name": "Body", "translation": local(BODY[0]), "children": [3]},
            {"name": "Head", "translation": local(HEAD)},
            {"name": "walker", "mesh": 0, "skin": 0}
        ],
        "meshes": [{"primitives": [{"attributes": {"POSITION": pos, "JOINTS_0": j0, "WEIGHTS_0": w0}, "indices": idx}]}],
        "skins": [{"joints": [1, 2, 3], "inverseBindMatrices": ibm}],
        "animations": [{"name": "walk", "channels": [channel(0, 1), channel(1, 2)], "samplers": [sampler(feet), sampler(body)]}],
    }))
}

fn parse(doc: &Value) -> Result<Model, String> {
    let bytes = serde_json::to_vec(doc).unwrap();
    gltf::parse(&bytes, &mut |_| None, &Default::default()).map_err(|e| e.to_string())
}

/// Position of vertex `v` at `seconds` of `clip`, clamped (not looped) at the end.
fn at(model: &Model, clip: &str, seconds: f32, v: usize) -> Vec3 {
    let options = PoseOptions { looping: false, in_place: false };
    pose(model, Some(model.clip(clip).unwrap()), FrameTime::Seconds(seconds), &options).parts[0].positions[v]
}

fn assert_near(actual: Vec3, expected: [f32; 3], what: &str) {
    assert!((actual - Vec3::from(expected)).length() < 1e-4, "{what}: {actual} != {expected:?}");
}

#[test]
fn skinned_strip_poses_to_hand_computed_positions() {
    let model = parse(&strip_document()).unwrap();
    assert_eq!(model.clips.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), ["linear", "step", "cubic"]);
    // Rest: the inverse binds cancel the armature, the mesh node's own translation is ignored.
    for (v, p) in POSITIONS.iter().enumerate() {
        assert_near(model.meshes[0].positions[v], *p, &format!("rest vertex {v}"));
    }
    // joint1 turned 90° about Z at (0,1,0): C (0.5,1 above it) goes to (-1, 1.5).
    // D is half root, half joint1: ((0,2) + (-1,1)) / 2.
    for clip in ["linear", "step", "cubic"] {
        assert_near(at(&model, clip, 0.0, C), [0.5, 2.0, 0.0], &format!("{clip} C at 0"));
        assert_near(at(&model, clip, 1.0, C), [-1.0, 1.5, 0.0], &format!("{clip} C at 1"));
        assert_near(at(&model, clip, 1.0, D), [-0.5, 1.5, 0.0], &format!("{clip} D at 1"));
        assert_near(at(&model, clip, 1.0, 0), [0.5, 0.0, 0.0], &format!("{clip} A never moves"));
    }
    // Halfway, LINEAR slerps to 45°: (0.5, 1) rotated 45° is ((0.5−1)·s, (0.5+1)·s) + (0, 1).
    assert_near(at(&model, "linear", 0.5, C), [-0.5 * S, 1.5 * S + 1.0, 0.0], "linear C at 0.5");
    assert_near(at(&model, "linear", 0.5, D), [-0.5 * S, 0.5 * (3.0 + S), 0.0], "linear D at 0.5");
    // STEP holds the first key until the second.
    assert_near(at(&model, "step", 0.5, C), [0.5, 2.0, 0.0], "step C at 0.5");
    assert_near(at(&model, "step", 0.999, C), [0.5, 2.0, 0.0], "step C at 0.999");
    // CUBICSPLINE with tangents leaves the straight path between the keys.
    assert!((at(&model, "cubic", 0.5, C) - at(&model, "linear", 0.5, C)).length() > 1e-3);
    // Frames step at the clip's rate: frame 15 at 30 fps is 0.5 s.
    let clip = model.clip("linear").unwrap();
    let posed = pose(&model, Some(clip), FrameTime::Frame(15.0), &PoseOptions { looping: true, in_place: false });
    assert_near(posed.parts[0].positions[C], [-0.5 * S, 1.5 * S + 1.0, 0.0], "frame 15");
    assert_eq!((clip.duration(), clip.frame_count()), (1.0, 30));
}

#[test]
fn two_travelling_roots_walk_in_place_as_one_piece() {
    // Each root pinned to its own start (as before) left the feet up to 0.4 behind the legs.
    let model = parse(&two_root_walk()).unwrap();
    for (v, p) in common::walk::VERTICES.iter().enumerate() {
        assert_near(model.meshes[0].positions[v], *p, &format!("rest vertex {v}"));
    }
    common::walk::assert_walks_in_place_rigidly(&model, "walk");
}

/// The document's data-URI buffer.
fn bin_of(doc: &Value) -> Vec<u8> {
    let uri = doc["buffers"][0]["uri"].as_str().unwrap();
    base64::engine::general_purpose::STANDARD.decode(uri.split(',').nth(1).unwrap()).unwrap()
}

fn set_bin(doc: &mut Value, bin: &[u8]) {
    let uri = format!("data:;base64,{}", base64::engine::general_purpose::STANDARD.encode(bin));
    doc["buffers"][0] = json!({"byteLength": bin.len(), "uri": uri});
}

/// Appends float data as a new buffer view and accessor; returns the accessor index.
fn append_floats(doc: &mut Value, values: &[f32], ty: &str, width: usize) -> usize {
    let mut bin = bin_of(doc);
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    let view = doc["bufferViews"].as_array().unwrap().len();
    doc["bufferViews"]
        .as_array_mut()
        .unwrap()
        .push(json!({"buffer": 0, "byteOffset": bin.len(), "byteLength": values.len() * 4}));
    bin.extend(values.iter().flat_map(|v| v.to_le_bytes()));
    set_bin(doc, &bin);
    let accessors = doc["accessors"].as_array_mut().unwrap();
    accessors.push(with_bounds(
        json!({"bufferView": view, "componentType": 5126, "type": ty, "count": values.len() / width}),
        values,
        width,
    ));
    accessors.len() - 1
}

#[test]
fn all_plays_every_animation_together() {
    // A further, unnamed single-channel animation (CesiumMan stores its walk as 19 of them)
    // moves joint0 +2 in x; `all` merges it with the others.
    let mut doc = strip_document();
    let moves = append_floats(&mut doc, &[0.0, 0.0, 0.0, 2.0, 0.0, 0.0], "VEC3", 3);
    let times = doc["animations"][0]["samplers"][0]["input"].clone();
    doc["animations"].as_array_mut().unwrap().push(json!({
        "channels": [{"sampler": 0, "target": {"node": 1, "path": "translation"}}],
        "samplers": [{"input": times, "output": moves, "interpolation": "LINEAR"}]
    }));
    let mut model = parse(&doc).unwrap();
    assert_eq!(model.clips[3].name, "anim3", "unnamed animations are numbered");
    spritebake::internal::bake::add_all_clip(&mut model).unwrap();
    // At 1 s joint0 has moved +2 in x and joint1 has turned 90° (the later `cubic` wins).
    assert_near(at(&model, "all", 1.0, 0), [2.5, 0.0, 0.0], "A follows joint0");
    assert_near(at(&model, "all", 1.0, C), [1.0, 1.5, 0.0], "C follows both");
    assert_eq!(model.clip("all").unwrap().duration(), 1.0);
    // Clips of other formats cannot be merged channel by channel.
    let e = spritebake::internal::bake::add_all_clip(&mut Model::default()).unwrap_err().to_string();
    assert!(e.contains("this model has no clips"), "{e}");
}

#[test]
fn morph_targets_apply_default_and_animated_weights_before_skinning() {
    // One morph target moving every vertex +1 in z, default weight 0.5, animated 0 → 1.
    let mut doc = strip_document();
    let target = append_floats(&mut doc, &[0.0, 0.0, 1.0].repeat(4), "VEC3", 3);
    let weights = append_floats(&mut doc, &[0.0, 1.0], "SCALAR", 1);
    doc["meshes"][0]["primitives"][0]["targets"] = json!([{"POSITION": target}]);
    doc["meshes"][0]["weights"] = json!([0.5]);
    let times = doc["animations"][0]["samplers"][0]["input"].clone();
    doc["animations"].as_array_mut().unwrap().push(json!({"name": "grow",
        "channels": [{"sampler": 0, "target": {"node": 3, "path": "weights"}}],
        "samplers": [{"input": times, "output": weights, "interpolation": "LINEAR"}]}));
    let model = parse(&doc).unwrap();
    assert_near(model.meshes[0].positions[0], [0.5, 0.0, 0.5], "rest uses the default weight");
    assert_near(at(&model, "grow", 0.0, 0), [0.5, 0.0, 0.0], "weight 0");
    assert_near(at(&model, "grow", 0.5, C), [0.5, 2.0, 0.5], "weight 0.5");
    // A clip that leaves the weights alone keeps the default; the offset turns with joint1.
    assert_near(at(&model, "linear", 1.0, C), [-1.0, 1.5, 0.5], "default weight, posed");
    // Layered posing (what sheets and GIFs use) morphs exactly like `pose`.
    let options = PoseOptions { looping: false, in_place: false };
    for clip in ["grow", "linear"] {
        let animation = spritebake::anim::Animation::clip(model.clip(clip), options);
        let layered = spritebake::anim::animate(&model, &animation, FrameTime::Seconds(0.5));
        let plain = pose(&model, model.clip(clip), FrameTime::Seconds(0.5), &options);
        assert_eq!(layered.parts[0].positions, plain.parts[0].positions, "{clip}");
    }
}

#[test]
fn rigid_meshes_are_placed_by_their_nodes() {
    // No skin, no animation: node transforms are baked; a mirroring scale flips the winding.
    // A zero-scale matrix (a hidden node) is accepted.
    let mut b = Builder::default();
    let pos = b.floats(&[0., 0., 0., 1., 0., 0., 0., 1., 0.], "VEC3", 3);
    let uri =
        format!("data:application/gltf-buffer;base64,{}", base64::engine::general_purpose::STANDARD.encode(&b.bin));
    let doc = json!({
        "asset": {"version": "2.0"}, "scenes": [{"nodes": [0]}],
        "nodes": [{"translation": [0, 0, 5], "rotation": [0, 0, S, S], "children": [1, 2]}, {"mesh": 0, "scale": [-1, 1, 1]},
                  {"matrix": [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": pos}}, {"attributes": {"POSITION": pos}, "mode": 1}]}],
        "buffers": [{"byteLength": b.bin.len(), "uri": uri}], "bufferViews": b.views, "accessors": b.accessors,
    });
    let model = parse(&doc).unwrap();
    assert!(model.skeleton.is_none() && model.clips.is_empty());
    assert_eq!(model.meshes.len(), 1, "the LINES primitive is skipped");
    assert!(model.warnings.iter().any(|w| w.contains("Lines")), "{:?}", model.warnings);
    let m = &model.meshes[0];
    // (1,0,0) mirrored to (-1,0,0), turned 90° about Z to (0,-1,0), moved to z = 5.
    assert_near(m.positions[1], [0.0, -1.0, 5.0], "baked vertex");
    assert_eq!(m.indices, vec![[0, 2, 1]]);
    assert_near(m.normals[0], [0.0, 0.0, 1.0], "normal after mirroring and winding flip");
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("spritebake-gltf-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The strip as a GLB: JSON chunk plus binary chunk.
fn strip_glb() -> Vec<u8> {
    let mut doc = strip_document();
    let bin = bin_of(&doc);
    doc["buffers"][0] = json!({"byteLength": bin.len()});
    let mut json = serde_json::to_vec(&doc).unwrap();
    while !json.len().is_multiple_of(4) {
        json.push(b' ');
    }
    let mut bin = bin;
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    let total = 12 + 8 + json.len() + 8 + bin.len();
    let mut out = b"glTF".to_vec();
    for v in [2, total as u32, json.len() as u32] {
        out.extend(v.to_le_bytes());
    }
    out.extend(b"JSON");
    out.extend(&json);
    out.extend((bin.len() as u32).to_le_bytes());
    out.extend(b"BIN\0");
    out.extend(&bin);
    out
}

fn load_err(path: &Path) -> String {
    match spritebake::formats::load(path, &LoadOptions::default()) {
        Ok(_) => panic!("{} loaded", path.display()),
        Err(e) => e.to_string(),
    }
}

#[test]
fn glb_and_external_buffers_load_like_the_data_uri_version() {
    let dir = scratch("files");
    let glb = dir.join("strip.glb");
    std::fs::write(&glb, strip_glb()).unwrap();
    let model = spritebake::formats::load(&glb, &LoadOptions::default()).unwrap();
    assert_near(at(&model, "linear", 1.0, C), [-1.0, 1.5, 0.0], "GLB");
    // .gltf with the buffer in a .bin beside it (name percent-encoded).
    let mut doc = strip_document();
    let bin = bin_of(&doc);
    std::fs::write(dir.join("strip data.bin"), &bin).unwrap();
    doc["buffers"][0]["uri"] = json!("strip%20data.bin");
    std::fs::write(dir.join("strip.gltf"), serde_json::to_vec(&doc).unwrap()).unwrap();
    let model = spritebake::formats::load(&dir.join("strip.gltf"), &LoadOptions::default()).unwrap();
    assert_near(at(&model, "step", 1.0, C), [-1.0, 1.5, 0.0], ".gltf + .bin");
    // A buffer name climbing out of the folder is refused like a texture name.
    doc["buffers"][0]["uri"] = json!("../strip%20data.bin");
    std::fs::write(dir.join("escape.gltf"), serde_json::to_vec(&doc).unwrap()).unwrap();
    let e = load_err(&dir.join("escape.gltf"));
    assert!(e.contains("escape.gltf") && e.contains("outside the model's folder"), "{e}");
}

#[test]
fn bad_input_gives_clear_errors_never_a_panic() {
    let dir = scratch("bad");
    // Truncated GLB: cut inside the binary chunk.
    let glb = strip_glb();
    std::fs::write(dir.join("cut.glb"), &glb[..glb.len() - 40]).unwrap();
    let e = load_err(&dir.join("cut.glb"));
    assert!(e.contains("cut.glb") && e.contains("glTF") && e.contains("truncated"), "{e}");
    // An accessor pointing past its buffer view.
    let mut doc = strip_document();
    doc["accessors"][0]["count"] = json!(1000);
    let e = parse(&doc).unwrap_err();
    assert!(e.contains("accessor 0 (POSITION of mesh 0") && e.contains("past the end of buffer view"), "{e}");
    // A buffer view pointing past its buffer.
    let mut doc = strip_document();
    doc["bufferViews"][0]["byteOffset"] = json!(100_000);
    let e = parse(&doc).unwrap_err();
    assert!(e.contains("buffer view 0") && e.contains("past the end of buffer 0"), "{e}");
    // A vertex weighted to joint 5 of a two-joint skin.
    let mut doc = strip_document();
    let mut bin = bin_of(&doc);
    let j0 = doc["bufferViews"][doc["accessors"][2]["bufferView"].as_u64().unwrap() as usize]["byteOffset"]
        .as_u64()
        .unwrap();
    bin[j0 as usize + 8] = 5; // vertex C's first joint
    set_bin(&mut doc, &bin);
    let e = parse(&doc).unwrap_err();
    assert!(e.contains("vertex 2 JOINTS_0 names joint 5, but skin 0 has only 2 joints"), "{e}");
    // Data URIs that are not base64.
    let mut doc = strip_document();
    doc["buffers"][0]["uri"] = json!("data:application/octet-stream,hello");
    let e = parse(&doc).unwrap_err();
    assert!(e.contains("buffer 0") && e.contains("not base64"), "{e}");
    doc["buffers"][0]["uri"] = json!("data:application/octet-stream;base64,@@@not base64@@@");
    let e = parse(&doc).unwrap_err();
    assert!(e.contains("buffer 0") && e.contains("not valid base64"), "{e}");
    // A missing external buffer names the file.
    doc["buffers"][0]["uri"] = json!("missing.bin");
    assert!(parse(&doc).unwrap_err().contains("'missing.bin' not found"));
    // Animation output that does not match its keys.
    let mut doc = strip_document();
    doc["animations"][0]["samplers"][0]["output"] = doc["animations"][2]["samplers"][0]["output"].clone();
    let e = parse(&doc).unwrap_err();
    assert!(e.contains("animation 0 'linear' channel 0") && e.contains("output values for 2 keys"), "{e}");
}

#[test]
fn every_truncation_of_a_glb_is_an_error_not_a_panic() {
    let glb = strip_glb();
    for end in 0..glb.len() {
        let r = gltf::parse(&glb[..end], &mut |_| None, &Default::default());
        assert!(r.is_err(), "prefix of {end} bytes parsed");
    }
    // Corrupting any single byte of the JSON-free binary chunk never panics either.
    let mut bytes = glb.clone();
    for i in (glb.len() - 300)..glb.len() {
        bytes[i] ^= 0xA5;
        if let Ok(model) = gltf::parse(&bytes, &mut |_| None, &Default::default()) {
            for clip in &model.clips {
                let _ = pose(&model, Some(clip), FrameTime::Seconds(0.5), &PoseOptions::default());
            }
        }
        bytes[i] = glb[i];
    }
}

/// A textured quad facing +Z: a 2×2 red/blue PNG in a data URI, sampled as `sampler` says.
fn textured_quad(sampler: Value, material: Value) -> Model {
    let png = std::env::temp_dir().join(format!("spritebake-gltf-{}-checker.png", std::process::id()));
    let red_blue = [[255, 0, 0, 255], [0, 0, 255, 255], [0, 0, 255, 255], [255, 0, 0, 255]].concat();
    spritebake::output::write_png(&png, &spritebake::raster::Image { width: 2, height: 2, rgba: red_blue }).unwrap();
    let image = format!(
        "data:image/png;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(std::fs::read(&png).unwrap())
    );
    let mut b = Builder::default();
    let pos = b.floats(&[-1., -1., 0., 1., -1., 0., 1., 1., 0., -1., 1., 0.], "VEC3", 3);
    let uv = b.floats(&[0., 1., 1., 1., 1., 0., 0., 0.], "VEC2", 2);
    let idx = b.u16s(&[0, 1, 2, 0, 2, 3]);
    let uri = format!("data:;base64,{}", base64::engine::general_purpose::STANDARD.encode(&b.bin));
    let mut material = material;
    if material["pbrMetallicRoughness"]["baseColorTexture"].is_null() {
        material["pbrMetallicRoughness"]["baseColorTexture"] = json!({"index": 0});
    }
    let doc = json!({
        "asset": {"version": "2.0"}, "scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": pos, "TEXCOORD_0": uv}, "indices": idx, "material": 0}]}],
        "materials": [material], "textures": [{"source": 0, "sampler": 0}], "samplers": [sampler],
        "images": [{"uri": image}],
        "buffers": [{"byteLength": b.bin.len(), "uri": uri}], "bufferViews": b.views, "accessors": b.accessors,
    });
    parse(&doc).unwrap()
}

#[test]
fn materials_keep_colour_alpha_mode_wrap_and_nearest_filter() {
    use spritebake::model::AlphaMode;
    let material = json!({"name": "skin", "alphaMode": "MASK", "alphaCutoff": 0.3,
                          "pbrMetallicRoughness": {"baseColorFactor": [1.0, 0.5, 0.25, 1.0]}});
    let nearest = textured_quad(json!({"magFilter": 9728, "wrapS": 33071, "wrapT": 33071}), material.clone());
    let m = &nearest.materials[0];
    assert_eq!((m.name.as_str(), m.base_color, m.alpha_mode), ("skin", [1.0, 0.5, 0.25, 1.0], AlphaMode::Mask(0.3)));
    assert!(m.nearest && !m.wrap);
    assert_eq!(m.texture.as_ref().map(|t| (t.width, t.height)), Some((2, 2)));
    let smooth = textured_quad(json!({}), json!({"alphaMode": "BLEND"}));
    assert!(!smooth.materials[0].nearest && smooth.materials[0].wrap);
    // `minFilter`: NEAREST (9728), LINEAR (9729), any mipmapped one (9984-9987); none by default.
    use spritebake::model::MinFilter;
    for (code, filter) in [(9728, MinFilter::Nearest), (9729, MinFilter::Linear), (9987, MinFilter::Mipmapped)] {
        let model = textured_quad(json!({"magFilter": 9728, "minFilter": code}), json!({}));
        assert_eq!(model.materials[0].minify, Some(filter), "{code}");
    }
    assert_eq!((m.minify, smooth.materials[0].minify), (None, None));
    assert_eq!(smooth.materials[0].alpha_mode, AlphaMode::Blend);
    // Rendered larger than the texture: nearest keeps two colours, the default filter blends,
    // and a filter the user gives (`model_filters` off, as `--filter` sets it) wins.
    let colours = |model: &Model, model_filters: bool| {
        use spritebake::raster::{Projection, RenderOptions, Renderer, Shading};
        let view = spritebake::raster::OrbitView {
            pitch_degrees: 0.0,
            projection: Projection::Orthographic,
            ..Default::default()
        };
        let options = RenderOptions {
            width: 32,
            height: 32,
            ssaa: 1,
            shading: Shading::Unlit,
            model_filters,
            ..RenderOptions::default()
        };
        let image =
            spritebake::bake::render_frame(&Renderer::new(), model, &Default::default(), &view, &options).unwrap();
        let mut set: Vec<&[u8]> = image.rgba.chunks_exact(4).filter(|p| p[3] == 255).collect();
        set.sort();
        set.dedup();
        set.len()
    };
    assert_eq!(colours(&nearest, true), 2);
    assert!(colours(&smooth, true) > 10);
    assert!(colours(&nearest, false) > 10);
}

#[test]
fn khr_texture_transform_is_baked_into_the_uvs() {
    let transformed = |transform: Value| {
        let texture = json!({"index": 0, "extensions": {"KHR_texture_transform": transform}});
        let model = textured_quad(json!({}), json!({"pbrMetallicRoughness": {"baseColorTexture": texture}}));
        model.meshes[0].uvs.clone()
    };
    // The quad's UVs are (0,1) (1,1) (1,0) (0,0).
    let uvs = transformed(json!({"offset": [0.5, 0.0], "scale": [2.0, 1.0]}));
    assert_eq!(uvs, [[0.5, 1.0], [2.5, 1.0], [2.5, 0.0], [0.5, 0.0]].map(glam::Vec2::from).to_vec());
    // A quarter turn: u' = v, v' = −u (the extension's matrix).
    let uvs = transformed(json!({"rotation": std::f32::consts::FRAC_PI_2}));
    assert!((uvs[2] - glam::Vec2::new(0.0, -1.0)).length() < 1e-6, "{uvs:?}");
    assert!((uvs[0] - glam::Vec2::new(1.0, 0.0)).length() < 1e-6, "{uvs:?}");
}

#[test]
fn extreme_accessor_and_view_fields_are_errors_or_models_never_panics() {
    // Every numeric field of every accessor and buffer view, set to values at the edges.
    let base = strip_document();
    let values = [json!(0), json!(1), json!(3), json!(7), json!(2_147_483_647u32), json!(4_294_967_295u32)];
    let mut cases = 0;
    for (list, fields) in [
        ("accessors", &["count", "byteOffset", "bufferView"][..]),
        ("bufferViews", &["byteOffset", "byteLength", "byteStride"][..]),
    ] {
        for i in 0..base[list].as_array().unwrap().len() {
            for field in fields {
                for v in &values {
                    let mut doc = base.clone();
                    doc[list][i][*field] = v.clone();
                    if let Ok(model) = parse(&doc) {
                        for clip in &model.clips {
                            let _ = pose(&model, Some(clip), FrameTime::Seconds(0.4), &PoseOptions::default());
                        }
                    }
                    cases += 1;
                }
            }
        }
    }
    // Component types and element types swapped on every accessor.
    for i in 0..base["accessors"].as_array().unwrap().len() {
        for component in [5120, 5121, 5122, 5123, 5125, 5126] {
            for ty in ["SCALAR", "VEC2", "VEC3", "VEC4", "MAT2", "MAT3", "MAT4"] {
                let mut doc = base.clone();
                doc["accessors"][i]["componentType"] = json!(component);
                doc["accessors"][i]["type"] = json!(ty);
                let _ = parse(&doc);
                cases += 1;
            }
        }
    }
    assert!(cases > 500);
}

#[test]
fn dangling_and_cyclic_references_are_errors_never_panics() {
    let base = strip_document();
    let edits: &[(&[&str], Value)] = &[
        (&["animations", "0", "channels", "0", "sampler"], json!(5)),
        (&["animations", "0", "channels", "0", "target", "node"], json!(99)),
        (&["animations", "0", "channels", "0", "target", "path"], json!("bogus")),
        (&["animations", "0", "samplers", "0", "input"], json!(99)),
        (&["skins", "0", "joints"], json!([1, 99])),
        (&["skins", "0", "inverseBindMatrices"], json!(0)),
        (&["nodes", "3", "mesh"], json!(5)),
        (&["nodes", "3", "skin"], json!(5)),
        (&["scenes", "0", "nodes"], json!([0, 99])),
        (&["scene"], json!(4)),
        (&["nodes", "2", "children"], json!([0])),
        (&["nodes", "2", "children"], json!([2])),
        (&["nodes", "3", "children"], json!([1])),
        (&["meshes", "0", "primitives", "0", "material"], json!(9)),
        (&["meshes", "0", "primitives", "0", "indices"], json!(0)),
        (&["buffers", "0", "byteLength"], json!(1_000_000)),
    ];
    for (path, value) in edits {
        let mut doc = base.clone();
        let mut slot = &mut doc;
        for key in *path {
            slot = match key.parse::<usize>() {
                Ok(i) => &mut slot[i],
                Err(_) => &mut slot[*key],
            };
        }
        *slot = value.clone();
        let e = parse(&doc).err();
        assert!(e.as_deref().is_some_and(|e| e.starts_with("glTF")), "{path:?} = {value}: {e:?}");
    }
}

#[test]
fn two_animations_of_one_name_load_as_two_clips_with_a_warning() {
    // Issue 46, R4-11: they merged into one 12-frame animation in a sheet's data, the second
    // unreachable by name, without a word.
    let dir = scratch("same-names");
    let mut doc = strip_document();
    for (i, animation) in doc["animations"].as_array_mut().unwrap().iter_mut().enumerate() {
        animation["name"] = json!(if i < 2 { "walk" } else { "walk_1" });
    }
    std::fs::write(dir.join("same.gltf"), serde_json::to_vec(&doc).unwrap()).unwrap();
    let model = spritebake::formats::load(&dir.join("same.gltf"), &LoadOptions::default()).unwrap();
    let names: Vec<&str> = model.clips.iter().map(|c| c.name.as_str()).collect();
    // The second `walk` takes the first free suffix: `walk_1` is the file's own third name.
    assert_eq!(names, ["walk", "walk_2", "walk_1"]);
    let warning = model.warnings.iter().find(|w| w.contains("two clips are named 'walk'"));
    assert!(warning.is_some_and(|w| w.contains("same.gltf") && w.contains("'walk_2'")), "{:?}", model.warnings);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_double_sided_material_shows_its_back() {
    let quad = |double_sided: bool| {
        let mut b = Builder::default();
        let pos = b.floats(&[-1.0, -1.0, 0.0, 1.0, -1.0, 0.0, 1.0, 1.0, 0.0, -1.0, 1.0, 0.0], "VEC3", 3);
        let idx = b.u16s(&[0, 1, 2, 0, 2, 3]);
        b.finish(serde_json::json!({
            "asset": {"version": "2.0"},
            "scene": 0,
            "scenes": [{"nodes": [0]}],
            "nodes": [{"mesh": 0}],
            "meshes": [{"primitives": [{"attributes": {"POSITION": pos}, "indices": idx, "material": 0}]}],
            "materials": [{"doubleSided": double_sided}],
        }))
    };
    let from_behind = spritebake::raster::OrbitView { yaw_degrees: 180.0, pitch_degrees: 0.0, ..Default::default() };
    let covered = |double_sided: bool| {
        let model = parse(&quad(double_sided)).unwrap();
        let image = common::render_model_unlit_seen(&model, 16, &from_behind, None);
        (0..16).flat_map(|y| (0..16).map(move |x| (x, y))).filter(|&(x, y)| image.pixel(x, y).unwrap()[3] > 0).count()
    };
    assert!(covered(true) > 100, "the back of a double-sided quad is drawn");
    assert_eq!(covered(false), 0, "a one-sided quad is culled from behind, as the spec says");
}

#[test]
fn an_unlit_material_keeps_its_colour_whatever_the_light() {
    let dir = scratch("unlit");
    let quad = |unlit: bool| {
        let mut b = Builder::default();
        let pos = b.floats(&[-1.0, -1.0, 0.0, 1.0, -1.0, 0.0, 1.0, 1.0, 0.0, -1.0, 1.0, 0.0], "VEC3", 3);
        let idx = b.u16s(&[0, 1, 2, 0, 2, 3]);
        let mut material = serde_json::json!({"pbrMetallicRoughness": {"baseColorFactor": [0.5, 0.5, 0.5, 1.0]}});
        if unlit {
            material["extensions"] = serde_json::json!({"KHR_materials_unlit": {}});
        }
        let doc = b.finish(serde_json::json!({
            "asset": {"version": "2.0"},
            "extensionsUsed": if unlit { vec!["KHR_materials_unlit"] } else { vec![] },
            "scene": 0,
            "scenes": [{"nodes": [0]}],
            "nodes": [{"mesh": 0}],
            "meshes": [{"primitives": [{"attributes": {"POSITION": pos}, "indices": idx, "material": 0}]}],
            "materials": [material],
        }));
        let path = dir.join(format!("quad_{unlit}.gltf"));
        std::fs::write(&path, serde_json::to_vec(&doc).unwrap()).unwrap();
        path
    };
    let centre = |unlit: bool| {
        let out = dir.join(format!("quad_{unlit}.png"));
        let model = quad(unlit);
        let args = ["render", model.to_str().unwrap(), "--ortho", "--pitch", "0", "--size", "16"];
        let o = common::cli::run_in(&dir, &[&args[..], &["--ambient", "0.1", "-o", out.to_str().unwrap()]].concat());
        assert!(o.status.success(), "{}", common::cli::printed(&o));
        spritebake::output::read_png(&out).unwrap().pixel(8, 8).unwrap()
    };
    // Linear 0.5 is sRGB 188 when nothing lights or darkens it.
    assert_eq!(centre(true), [188, 188, 188, 255]);
    assert_ne!(centre(false)[0], 188, "the lit quad is shaded by the key light and the ambient");
    std::fs::remove_dir_all(dir).unwrap();
}
