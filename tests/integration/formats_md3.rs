//! Quake 3 MD3 (issue 32): the shared corpus's props agree with assimp's MD3 loader, face
//! outwards, find their `.tga` skins; hostile files end in an error naming the byte offset;
//! frames are charged to the budget. Corpus tests skip with a note when the corpus is
//! absent, assimp's when assimp is.

use std::path::PathBuf;

use glam::Vec3;
use spritebake::anim::rest_pose;
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
        common::assert_faces_outwards(&model, file);
        let Some(theirs) = assimp::exported_points(&path, &scratch) else { return };
        let ours = spritebake::internal::bake::world_points(&model, &rest_pose(&model));
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

/// An MD3 of one surface `surface` (one triangle at (0,0,0), (1,0,0), (0,1,0), moved by
/// (f, 0, 0) in frame f) of `frames` frames, with tags that are translations: tag `name` at
/// `origin + (0, 0, f)` in frame f.
fn md3(surface: &str, frames: usize, tags: &[(&str, Vec3)]) -> Vec<u8> {
    md3_of(surface, frames, 3, tags)
}

/// As [`md3`], with `vertices` vertices (those past the triangle's at the origin).
pub fn md3_of(surface: &str, frames: usize, vertices: usize, tags: &[(&str, Vec3)]) -> Vec<u8> {
    let triangle = [Vec3::ZERO, Vec3::X, Vec3::Y];
    let frame = |f: usize| {
        let mut positions: Vec<Vec3> = triangle.iter().map(|&p| p + Vec3::new(f as f32, 0.0, 0.0)).collect();
        positions.resize(vertices, Vec3::ZERO);
        positions
    };
    let mut uvs = vec![[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]];
    uvs.resize(vertices, [0.0; 2]);
    let shader = format!("models/players/test/{surface}.tga");
    let surface = Md3Surface {
        name: surface,
        shader: &shader,
        frames: (0..frames).map(frame).collect(),
        uvs,
        triangles: vec![[0, 1, 2]],
    };
    md3_file(&surface, tags)
}

/// One surface of an MD3 file to write.
pub struct Md3Surface<'a> {
    pub name: &'a str,
    /// The shader it names.
    pub shader: &'a str,
    /// The vertices' positions in each frame, in units (stored in 64ths), the normals zero.
    pub frames: Vec<Vec<Vec3>>,
    /// One texture coordinate a vertex.
    pub uvs: Vec<[f32; 2]>,
    /// Vertex indices, as Quake 3 stores them: clockwise from the front.
    pub triangles: Vec<[i32; 3]>,
}

/// An MD3 of one surface, with tags that are translations: tag `name` at `origin + (0, 0, f)`
/// in frame f.
pub fn md3_file(surface: &Md3Surface, tags: &[(&str, Vec3)]) -> Vec<u8> {
    let name = |out: &mut Vec<u8>, text: &str, n: usize| {
        let mut field = text.as_bytes().to_vec();
        field.resize(n, 0);
        out.extend_from_slice(&field);
    };
    let f32s = |out: &mut Vec<u8>, values: &[f32]| values.iter().for_each(|v| out.extend_from_slice(&v.to_le_bytes()));
    let i32s = |out: &mut Vec<u8>, values: &[i32]| values.iter().for_each(|v| out.extend_from_slice(&v.to_le_bytes()));
    let (frames, vertices, triangles) = (surface.frames.len(), surface.uvs.len(), surface.triangles.len());
    let tags_at = 108 + 56 * frames;
    let surface_at = tags_at + 112 * frames * tags.len();
    let (st_at, xyz_at) = (108 + 68 + 12 * triangles, 108 + 68 + 12 * triangles + vertices * 8);
    let surface_size = xyz_at + frames * vertices * 8;
    let mut b = b"IDP3".to_vec();
    i32s(&mut b, &[15]);
    name(&mut b, "test", 64);
    let header = [0, frames, tags.len(), 1, 0, 108, tags_at, surface_at, surface_at + surface_size];
    i32s(&mut b, &header.map(|v| v as i32));
    for f in 0..frames {
        f32s(&mut b, &[0.0; 10]);
        name(&mut b, &format!("f{f}"), 16);
    }
    for f in 0..frames {
        for (tag, origin) in tags {
            name(&mut b, tag, 64);
            let o = *origin + Vec3::new(0.0, 0.0, f as f32);
            f32s(&mut b, &[o.x, o.y, o.z, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]);
        }
    }
    b.extend_from_slice(b"IDP3");
    name(&mut b, surface.name, 64);
    let offsets = [108 + 68, 108, st_at, xyz_at, surface_size];
    i32s(&mut b, &[0, frames as i32, 1, vertices as i32, triangles as i32]);
    i32s(&mut b, &offsets.map(|v| v as i32));
    name(&mut b, surface.shader, 64);
    i32s(&mut b, &[0]);
    surface.triangles.iter().for_each(|t| i32s(&mut b, t));
    surface.uvs.iter().for_each(|uv| f32s(&mut b, uv));
    for positions in &surface.frames {
        for p in positions {
            for c in p.to_array() {
                b.extend_from_slice(&((c * 64.0).round() as i16).to_le_bytes());
            }
            b.extend_from_slice(&0u16.to_le_bytes());
        }
    }
    assert_eq!(b.len(), surface_at + surface_size);
    b
}

/// An `animation.cfg` of 25 two-frame clips: BOTH_ at 0-11, TORSO_ at 12-25, LEGS_ at 26-49
/// (the legs' own frames 12-35), the deaths playing once.
fn cfg() -> String {
    let mut text = String::from("// test player\nsex m\nfootsteps normal\n\n");
    for k in 0..25 {
        let looping = if k < 6 { 0 } else { 2 };
        text.push_str(&format!("{}\t2\t{looping}\t{}\t\t// clip {k}\n", 2 * k, 10 + k));
    }
    text
}

fn player(name: &str) -> PathBuf {
    let dir = scratch_in("md3", name);
    player_in(&dir);
    dir
}

/// Writes a player into `dir`: its three parts, a cfg, and a skin naming the legs'
/// `models/players/test/blue_legs.tga`.
pub fn player_in(dir: &std::path::Path) {
    std::fs::write(dir.join("lower.md3"), md3("l_legs", 36, &[("tag_torso", Vec3::new(0.0, 0.0, 10.0))])).unwrap();
    std::fs::write(dir.join("upper.md3"), md3("u_torso", 26, &[("tag_head", Vec3::new(0.0, 0.0, 5.0))])).unwrap();
    std::fs::write(dir.join("head.md3"), md3("h_head", 1, &[])).unwrap();
    std::fs::write(dir.join("animation.cfg"), cfg()).unwrap();
    std::fs::write(dir.join("lower_default.skin"), "tag_torso,\nl_legs,models/players/test/blue_legs.tga\n").unwrap();
}

#[test]
fn a_quake3_player_folder_loads_as_one_character_joined_by_its_tags() {
    use spritebake::anim::{FrameTime, PoseOptions, pose};
    let dir = player("player");
    let model = load_ok(&dir.join("animation.cfg"));
    let clips: Vec<(&str, usize, f32, bool)> =
        model.clips.iter().map(|c| (c.name.as_str(), c.frame_count(), c.fps, c.plays_once)).collect();
    assert_eq!(clips.len(), 25);
    assert_eq!(clips[0], ("both_death1", 2, 10.0, true));
    assert_eq!(clips[15], ("legs_run", 2, 25.0, false));
    // The skin names the legs' texture; the others keep their shaders' names.
    let textures: Vec<Option<&str>> = model.materials.iter().map(|m| m.texture_name.as_deref()).collect();
    assert_eq!(
        textures,
        [
            Some("models/players/test/blue_legs.tga"),
            Some("models/players/test/u_torso.tga"),
            Some("models/players/test/h_head.tga")
        ]
    );
    // Where a part's first vertex is, in a clip's frame: the legs by their own frame, the torso
    // on the legs' tag_torso, the head on the torso's tag_head.
    let at = |clip: &str, frame: f32| {
        let posed =
            pose(&model, model.clip(clip), FrameTime::Frame(frame), &PoseOptions { looping: false, in_place: false });
        posed.parts.iter().map(|p| p.positions[0]).collect::<Vec<Vec3>>()
    };
    // legs_run (clip 15) frame 1: legs frame 30 + 1 - 14 = 17, under torso_stand (clip 11)
    // frame 22 + 1 = 23.
    let (l, u) = (17.0, 23.0);
    assert_eq!(
        at("legs_run", 1.0),
        [Vec3::new(l, 0.0, 0.0), Vec3::new(u, 0.0, 10.0 + l), Vec3::new(0.0, 0.0, 10.0 + l + 5.0 + u)]
    );
    // torso_attack (clip 7) frame 0: torso frame 14 over legs_idle (clip 22: 44 - 14 = 30).
    let (l, u) = (30.0, 14.0);
    assert_eq!(at("torso_attack", 0.0)[1], Vec3::new(u, 0.0, 10.0 + l));
    // both_dead2 (clip 3) frame 1: frame 7 on both.
    assert_eq!(at("both_dead2", 1.0)[2], Vec3::new(0.0, 0.0, 10.0 + 7.0 + 5.0 + 7.0));
    // Another skin: the parts that have one take it, the others say they keep their shaders'.
    std::fs::write(dir.join("upper_red.skin"), "u_torso,models/players/test/red_torso.tga\n").unwrap();
    let red =
        load(&dir.join("animation.cfg"), &LoadOptions { skin: Some("red".into()), ..LoadOptions::default() }).unwrap();
    assert_eq!(red.materials[1].texture_name.as_deref(), Some("models/players/test/red_torso.tga"));
    assert_eq!(red.materials[0].texture_name.as_deref(), Some("models/players/test/l_legs.tga"));
    assert!(red.warnings.iter().any(|w| w.contains("lower_red.skin was not found")), "{:?}", red.warnings);
    let run = crate::common::cli::run_in(&dir, &["info", "animation.cfg", "--skin", "../red"]);
    assert!(crate::common::cli::printed(&run).contains("--skin ../red"), "{}", crate::common::cli::printed(&run));
    let run = crate::common::cli::run_in(&dir, &["info", "lower.md3", "--skin", "red"]);
    assert!(
        crate::common::cli::printed(&run).contains("applies to Quake 3 players"),
        "{}",
        crate::common::cli::printed(&run)
    );
    // A folder scan renders the player once, through its cfg, not its parts.
    let out = dir.join("thumbs");
    let run = crate::common::cli::run_in(&dir, &["thumbnail", ".", "-o", "thumbs", "--size", "32"]);
    assert!(run.status.success(), "{}", crate::common::cli::printed(&run));
    assert_eq!(crate::common::cli::names_in(&out), ["animation.png"]);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_model_hung_on_an_md3_tag_follows_it_through_the_bodys_frames() {
    use spritebake::anim::{Animation, Attachment, FrameTime, Layers, Motion, PoseOptions, animate};
    let dir = player("tagged");
    let torso_tags = [("tag_head", Vec3::new(0.0, 0.0, 5.0)), ("tag_weapon", Vec3::new(2.0, 0.0, 0.0))];
    std::fs::write(dir.join("upper.md3"), md3("u_torso", 26, &torso_tags)).unwrap();
    std::fs::write(dir.join("weapon.md3"), md3("w_gun", 1, &[])).unwrap();
    let body = load_ok(&dir.join("animation.cfg"));
    let weapon = load_ok(&dir.join("weapon.md3"));
    // The upper body's tag is carried onto the joined character; names match in any case.
    let (mount, offset) = spritebake::internal::bake::rig::find_mount(&body, "TAG_WEAPON").unwrap();
    let attachments = vec![Attachment { model: &weapon, mount, offset }];
    let options = PoseOptions { looping: false, in_place: false };
    let gun_at = |clip: &str, frame: f32| {
        let motion = Motion::Clip(body.clip(clip).unwrap());
        let layers = Layers { attachments: attachments.clone(), ..Layers::default() };
        let posed = animate(&body, &Animation { motion, layers, options }, FrameTime::Frame(frame));
        assert_eq!(posed.parts.len(), 4, "three parts and the weapon");
        posed.parts[3].positions[0]
    };
    // legs_run frame 1 (legs frame 17, torso frame 23): the torso on tag_torso at z 10 + 17,
    // the weapon on the torso's tag_weapon at (2, 0, 23) from there.
    assert_eq!(gun_at("legs_run", 1.0), Vec3::new(2.0, 0.0, 10.0 + 17.0 + 23.0));
    // Between two frames the tag is lerped as the vertices are (legs 16.5, torso 22.5).
    assert_eq!(gun_at("legs_run", 0.5), Vec3::new(2.0, 0.0, 10.0 + 16.5 + 22.5));
    // Through the command line, and a misspelt tag named with its closest match.
    let run = crate::common::cli::run_in(
        &dir,
        &["render", "animation.cfg", "--attach", "weapon.md3@tag_weapon", "-o", "armed.png", "--size", "32"],
    );
    assert!(run.status.success(), "{}", crate::common::cli::printed(&run));
    let run = crate::common::cli::run_in(
        &dir,
        &["render", "animation.cfg", "--attach", "weapon.md3@tag_wepon", "-o", "x.png"],
    );
    let said = crate::common::cli::printed(&run);
    assert!(!run.status.success() && said.contains("tag_weapon"), "{said}");
    let run = crate::common::cli::run_in(&dir, &["info", "upper.md3"]);
    let said = crate::common::cli::printed(&run);
    assert!(said.contains("tags: 2") && said.contains("tag_weapon at 2.000 0.000 0.000"), "{said}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_broken_quake3_player_says_which_file() {
    let dir = player("broken");
    let cfg = dir.join("animation.cfg");
    std::fs::remove_file(dir.join("head.md3")).unwrap();
    let e = load(&cfg, &LoadOptions::default()).unwrap_err().to_string();
    assert!(e.contains("head.md3"), "{e}");
    std::fs::write(dir.join("head.md3"), md3("h_head", 1, &[])).unwrap();
    // The torso without its tag_head.
    std::fs::write(dir.join("upper.md3"), md3("u_torso", 26, &[])).unwrap();
    let e = load(&cfg, &LoadOptions::default()).unwrap_err().to_string();
    assert!(e.contains("upper.md3 has no tag_head"), "{e}");
    // Too few legs frames for the cfg.
    std::fs::write(dir.join("upper.md3"), md3("u_torso", 26, &[("tag_head", Vec3::ZERO)])).unwrap();
    std::fs::write(dir.join("lower.md3"), md3("l_legs", 30, &[("tag_torso", Vec3::ZERO)])).unwrap();
    let e = load(&cfg, &LoadOptions::default()).unwrap_err().to_string();
    assert!(e.contains("frame 30") && e.contains("lower.md3"), "{e}");
    // A cfg of too few clips.
    std::fs::write(&cfg, "0 2 0 10\n").unwrap();
    let e = load(&cfg, &LoadOptions::default()).unwrap_err().to_string();
    assert!(e.contains("animation.cfg") && e.contains("1 animation lines"), "{e}");
    // Other .cfg files are no models.
    let format = |name: &str| spritebake::internal::formats::Format::from_extension(std::path::Path::new(name));
    assert_eq!(format("q3config.cfg"), None);
    assert_eq!(format("players/x/Animation.CFG"), Some(spritebake::internal::formats::Format::Md3Player));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_cfg_line_claiming_a_billion_frames_is_one_error_under_1_gib() {
    // Issue 46, R4-02: the joined-frames cap ran after the line's frames were listed (16 GB).
    let dir = player("billion");
    let cfg = cfg().replacen("0\t2\t0\t10", "0\t1000000000\t0\t15", 1);
    std::fs::write(dir.join("animation.cfg"), cfg).unwrap();
    let o = std::process::Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 1048576; exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_spritebake"))
        .args(["info", dir.join("animation.cfg").to_str().unwrap()])
        .output()
        .unwrap();
    crate::common::cli::assert_refused(&o, &["animation.cfg", "more than 16384 frames", "both_death1", "1000000000"]);
    std::fs::remove_dir_all(dir).unwrap();
}

/// An MD3 of one frame and `surfaces` three-vertex surfaces, every one pointing at the same
/// table of `triangles` triangles after them (the file holds the table once).
fn md3_sharing_triangles(surfaces: usize, triangles: usize) -> Vec<u8> {
    let i32s = |out: &mut Vec<u8>, values: &[usize]| {
        values.iter().for_each(|&v| out.extend_from_slice(&(v as i32).to_le_bytes()))
    };
    let (surface_at, surface_size) = (108 + 56, 108 + 68 + 24 + 24);
    let table_at = surface_at + surfaces * surface_size;
    let mut b = b"IDP3".to_vec();
    i32s(&mut b, &[15]);
    b.resize(72, 0);
    i32s(&mut b, &[0, 1, 0, surfaces, 0, 108, surface_at, surface_at, table_at + 12 * triangles]);
    b.resize(surface_at, 0);
    for s in 0..surfaces {
        let at = b.len();
        b.extend_from_slice(b"IDP3");
        b.resize(at + 68, 0);
        let tris = table_at - at;
        i32s(&mut b, &[0, 1, 1, 3, triangles, tris, 108, 108 + 68, 108 + 68 + 24, surface_size]);
        b.extend_from_slice(format!("s{s}").as_bytes());
        b.resize(at + surface_size, 0);
    }
    for _ in 0..triangles {
        i32s(&mut b, &[0, 1, 2]);
    }
    b
}

#[test]
fn surfaces_sharing_one_triangle_table_are_charged_for_every_copy() {
    // Issue 46, R4-03: 256 surfaces naming one table of 131,072 triangles (1.5 MB in the file)
    // made 384 MiB of triangles while 3 MB was charged.
    let dir = scratch_in("md3", "shared-triangles");
    let path = dir.join("shared.md3");
    std::fs::write(&path, md3_sharing_triangles(256, 1 << 17)).unwrap();
    let e = load(&path, &LoadOptions::default()).unwrap_err();
    assert!(matches!(e, spritebake::Error::Budget { .. }), "{e}");
    assert!(e.to_string().contains("131072 triangles"), "{e}");
    // A few surfaces sharing it still load.
    std::fs::write(&path, md3_sharing_triangles(4, 1 << 17)).unwrap();
    let model = load_ok(&path);
    assert_eq!(model.meshes.iter().map(|m| m.indices.len()).sum::<usize>(), 4 << 17);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_tag_is_a_point_the_sheet_follows_frame_by_frame() {
    let dir = scratch_in("md3", "tag-points");
    // The tag rises one unit a frame; the triangle slides along x.
    std::fs::write(dir.join("prop.md3"), md3("prop", 4, &[("tag_flame", Vec3::new(0.5, 0.5, 0.0))])).unwrap();
    let sheet = ["sheet", "prop.md3", "--anim", "frames", "--fit", "shared", "--size", "64", "--ortho", "--pitch", "0"];
    let o = crate::common::cli::run_in(&dir, &[&sheet[..], &["--points", "tag_flame", "-o", "s.png"]].concat());
    assert!(o.status.success(), "{}", crate::common::cli::printed(&o));
    let data: serde_json::Value = serde_json::from_slice(&std::fs::read(dir.join("s.json")).unwrap()).unwrap();
    let heights: Vec<f64> = data["frames"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(name, f)| (name.clone(), f["points"]["tag_flame"]["y"].as_f64().unwrap()))
        .collect::<std::collections::BTreeMap<_, _>>()
        .into_values()
        .collect();
    assert_eq!(heights.len(), 4, "{data}");
    // Pixels down the image: each frame the point is higher by the same step.
    let steps: Vec<f64> = heights.windows(2).map(|w| w[0] - w[1]).collect();
    assert!(steps.iter().all(|s| *s > 1.0 && (s - steps[0]).abs() < 0.05), "{heights:?}");
    // A misspelt tag is named with its closest match.
    let o = crate::common::cli::run_in(&dir, &[&sheet[..], &["--points", "tag_flam", "-o", "t.png"]].concat());
    let said = crate::common::cli::printed(&o);
    assert!(
        o.status.code() == Some(2) && said.contains("--points tag_flam: no joint, attachment point or tag"),
        "{said}"
    );
    assert!(said.contains("did you mean 'tag_flame'"), "{said}");
    std::fs::remove_dir_all(dir).unwrap();
}
