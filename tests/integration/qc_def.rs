//! Script formats as models (issue 18): studiomdl `.qc` projects (bodies, sequences,
//! attachments, includes, texture folders, root travel marks) and Doom 3 `.def` model
//! declarations (several models, `inherit`, base-relative paths). The projects are made here in
//! temporary folders from the example robot; the corpus headcrab QC is loaded when present.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use glam::Vec3;
use spritebake::anim::{FrameTime, PoseOptions};
use spritebake::bake::{self, FrameRequest};
use spritebake::formats::{LoadOptions, load};
use spritebake::golden::Tolerance;
use spritebake::internal::anim::joint_transforms;
use spritebake::internal::bake::rig;
use spritebake::internal::formats::BodyChoice;
use spritebake::model::{Model, TextureStatus};
use spritebake::raster::{OrbitView, RenderOptions, Renderer};
use spritebake::spec::{AttachSpec, Controls};

use crate::common::cli::{printed, scratch_in};
use crate::common::corpus;
use crate::common::golden::assert_golden;

fn asset(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/assets").join(name)
}

fn spritebake(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_spritebake")).args(args).output().expect("run spritebake")
}

fn text(name: &str) -> String {
    std::fs::read_to_string(asset(name)).unwrap()
}

/// The robot's reference SMD up to its `triangles` (nodes and rest skeleton).
fn robot_head() -> String {
    let smd = text("robot/robot.smd");
    smd[..smd.find("triangles").unwrap()].to_string()
}

/// A two-frame sequence of the robot's skeleton written here: the rest pose, then the head
/// turned 0.5 rad about Z.
fn idle_smd() -> String {
    let head = robot_head();
    let rest = &head[head.find("time 0\n").unwrap() + "time 0\n".len()..head.rfind("end\n").unwrap()];
    let turned: String =
        rest.lines()
            .map(|l| {
                if l.starts_with("2 ") {
                    "2 0.000000 0.000000 19.000000 0.0 0.0 0.5".to_string()
                } else {
                    l.to_string()
                }
            })
            .map(|l| l + "\n")
            .collect();
    let nodes = &head[..head.find("skeleton").unwrap()];
    format!("{nodes}skeleton\ntime 0\n{rest}time 1\n{turned}end\n")
}

/// A reference holding a crest on the head (one triangle, both sides), for `$bodygroup` choices.
fn helmet_smd() -> String {
    format!(
        "{}triangles\nrat.bmp\n2 -5 0 66 0 -1 0 0 0\n2 5 0 66 0 -1 0 1 0\n2 0 0 76 0 -1 0 0.5 1\n\
         rat.bmp\n2 5 0 66 0 1 0 1 0\n2 -5 0 66 0 1 0 0 0\n2 0 0 76 0 1 0 0.5 1\nend\n",
        robot_head()
    )
}

const QC: &str = "/*\n  bigrat: a decompiled-looking QC\n*/\n\
$modelname \"bigrat.mdl\"\n\
$cd \"./\"\n\
$cdtexture \"textures\"\n\
$scale 1.0\n\
$include \"shared/rat_common.qci\"\n\
$include \"../missing/texturepath.qci\"\n\
$body \"studio\" \"ref\"\n\
$bodygroup \"helmet\"\n{\n  blank\n  studio \"helmet\"\n}\n\
$hbox 0 \"pelvis\" -1 -1 -1 1 1 1\n\
$frobnicate 1 2 { x }\n\
$wibble\n\
// 3 sequences, one of them missing\n\
$sequence \"idle\" \"idle\" fps 12 loop ACT_IDLE 1\n\
$sequence \"walk2\" \"walk\" LX fps 15 loop ACT_WALK 1 { event 1004 3 \"step\" }\n\
$sequence \"ghost\" \"ghost\" fps 30\n";

/// `rat_common.qci`, included from a subfolder: the attachment point.
const QCI: &str = "// attachments\n$attachment \"hand\" \"forearm_R\" 0 0 -11\n";

/// The QC project in a fresh folder: `bigrat.qc`, `ref.smd` (the robot, its material renamed
/// `rat.bmp`), `idle.smd` (written here), `walk.smd` (the robot's walk), `helmet.smd`,
/// `shared/rat_common.qci`, and `textures/rat.bmp` (the robot's skin as a BMP).
fn qc_project(name: &str) -> PathBuf {
    let dir = scratch_in("qc", name);
    std::fs::write(dir.join("bigrat.qc"), QC).unwrap();
    std::fs::write(dir.join("ref.smd"), text("robot/robot.smd").replace("robot.png", "rat.bmp")).unwrap();
    std::fs::write(dir.join("idle.smd"), idle_smd()).unwrap();
    std::fs::copy(asset("robot/walk.smd"), dir.join("walk.smd")).unwrap();
    std::fs::write(dir.join("helmet.smd"), helmet_smd()).unwrap();
    std::fs::create_dir_all(dir.join("shared")).unwrap();
    std::fs::write(dir.join("shared/rat_common.qci"), QCI).unwrap();
    std::fs::create_dir_all(dir.join("textures")).unwrap();
    image::open(asset("robot/robot.png"))
        .unwrap()
        .save_with_format(dir.join("textures/rat.bmp"), image::ImageFormat::Bmp)
        .unwrap();
    std::fs::copy(asset("sword.obj"), dir.join("sword.obj")).unwrap();
    std::fs::copy(asset("sword.mtl"), dir.join("sword.mtl")).unwrap();
    dir
}

fn load_with(path: &Path, options: &LoadOptions) -> Model {
    load(path, options).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The pelvis (the robot's root joint) in model space at `frame` of `clip`.
fn root_at(model: &Model, clip: &str, frame: f32, in_place: bool) -> Vec3 {
    let clip = model.find_clip(clip).unwrap();
    let options = PoseOptions { looping: false, in_place };
    joint_transforms(model, Some(clip), FrameTime::Frame(frame), &options)[0].translation.into()
}

#[test]
fn a_qc_project_loads_its_sequences_texture_and_attachment() {
    let dir = qc_project("load");
    let model = load_with(&dir.join("bigrat.qc"), &LoadOptions::default());
    // Clips are the sequence names at their fps; the missing one is a warning.
    let clips: Vec<(&str, f32, usize)> =
        model.clips.iter().map(|c| (c.name.as_str(), c.fps, c.frame_count())).collect();
    assert_eq!(clips, [("idle", 12.0, 2), ("walk2", 15.0, 16)]);
    let missing: Vec<&String> = model.warnings.iter().filter(|w| w.contains("ghost")).collect();
    assert_eq!(missing.len(), 1, "{:?}", model.warnings);
    assert!(missing[0].contains("ghost.smd") && missing[0].contains("line 22"), "{}", missing[0]);
    // Unknown commands: one warning naming them all; commands with no effect on a render are silent.
    let unknown: Vec<&String> = model.warnings.iter().filter(|w| w.contains("does not use")).collect();
    assert_eq!(unknown.len(), 1, "{:?}", model.warnings);
    assert!(unknown[0].ends_with("$frobnicate, $wibble"), "{}", unknown[0]);
    assert!(!model.warnings.iter().any(|w| w.contains("$hbox") || w.contains("$modelname")));
    // The missing include is a warning naming its line; the present one gave the attachment.
    assert!(
        model.warnings.iter().any(|w| w.contains("line 9") && w.contains("texturepath.qci")),
        "{:?}",
        model.warnings
    );
    let point = model.attachment_point("hand").expect("the included $attachment");
    let skeleton = model.skeleton.as_ref().unwrap();
    assert_eq!((skeleton.joints[point.joint].name.as_str(), point.offset), ("forearm_R", Vec3::new(0.0, 0.0, -11.0)));
    // The skin was found in the $cdtexture folder.
    assert_eq!(model.materials.len(), 1, "the blank helmet shows by default");
    match &model.materials[0].texture_status {
        TextureStatus::Found(path) => assert!(path.ends_with("textures/rat.bmp"), "{}", path.display()),
        other => panic!("rat.bmp not found: {other:?}"),
    }
    // Every file read is a source (outputs are planned against them).
    for file in ["bigrat.qc", "ref.smd", "walk.smd", "idle.smd", "shared/rat_common.qci", "textures/rat.bmp"] {
        let canonical = std::fs::canonicalize(dir.join(file)).unwrap();
        assert!(model.sources.contains(&canonical), "{file} missing from {:?}", model.sources);
    }
    // The same geometry as the plain reference SMD: studiomdl's turn is the orientation.
    let plain = load_with(&dir.join("ref.smd"), &LoadOptions::default());
    assert_eq!(model.orientation, plain.orientation);
    assert_eq!(model.meshes[0].positions, plain.meshes[0].positions);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn lx_travel_is_removed_in_place_and_kept_with_root_motion() {
    let dir = qc_project("travel");
    let model = load_with(&dir.join("bigrat.qc"), &LoadOptions::default());
    // `LX` is the compiled model's forward axis: the SMD's y (SMD sources face -y).
    assert_eq!(model.marked_axes("walk2"), Some([false, true, false]));
    let last = 15.0;
    let (first_kept, last_kept) = (root_at(&model, "walk2", 0.0, false), root_at(&model, "walk2", last, false));
    assert!((last_kept.y - first_kept.y + 26.25).abs() < 1e-3, "{first_kept} -> {last_kept}");
    // In place, the travel is gone on the marked axis and nothing else changes.
    for f in 0..16 {
        let (kept, in_place) = (root_at(&model, "walk2", f as f32, false), root_at(&model, "walk2", f as f32, true));
        assert!((in_place.y - first_kept.y).abs() < 1e-3, "frame {f}: {in_place}");
        assert_eq!((in_place.x, in_place.z), (kept.x, kept.z), "frame {f}");
    }
    // The same through the command line: the robot walks across its cells with
    // `--root-motion` (the framing is shared) and stays put without it.
    let (in_place, travelling) = (travel_px(&dir, "walk2", &[]), travel_px(&dir, "walk2", &["--root-motion"]));
    assert!(in_place <= 3.0 && travelling >= 6.0, "moved {in_place} px in place, {travelling} px travelling");
    std::fs::remove_dir_all(dir).unwrap();
}

/// How far (px) the robot's middle moves from the first to the last of 2 frames of `clip` of
/// `dir`'s `bigrat.qc`, seen from the side, in a sheet baked with `extra`.
fn travel_px(dir: &Path, clip: &str, extra: &[&str]) -> f32 {
    let out = dir.join(format!("{clip}{}.png", extra.len()));
    let qc = dir.join("bigrat.qc");
    let mut args = vec!["sheet", qc.to_str().unwrap(), "--anim", clip, "--yaw", "90", "--frames", "2"];
    args.extend(["--size", "64", "-o", out.to_str().unwrap()]);
    args.extend(extra);
    let o = spritebake(&args);
    assert!(o.status.success(), "{}", printed(&o));
    let sheet = spritebake::output::read_png(&out).unwrap();
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(out.with_extension("json")).unwrap()).unwrap();
    let names = json["animations"][format!("{clip}_S")].as_array().unwrap();
    assert_eq!(names.len(), 2, "{json}");
    let centres: Vec<f32> = names
        .iter()
        .map(|n| {
            let r = &json["frames"][n.as_str().unwrap()]["frame"];
            let [x, y, w, h] = ["x", "y", "w", "h"].map(|k| r[k].as_u64().unwrap() as u32);
            let xs: Vec<u32> = (x..x + w)
                .filter(|&px| (y..y + h).any(|py| sheet.pixel(px, py).unwrap()[3] > 0))
                .map(|px| px - x)
                .collect();
            (xs[0] + xs[xs.len() - 1]) as f32 / 2.0
        })
        .collect();
    (centres[1] - centres[0]).abs()
}

#[test]
fn a_sequence_without_travel_flags_keeps_its_motion_as_studiomdl_does_unless_in_place() {
    let dir = qc_project("unmarked");
    // The robot's walk again, with no `LX`: studiomdl extracts nothing and the compiled model
    // walks forward.
    let qc = std::fs::read_to_string(dir.join("bigrat.qc")).unwrap();
    std::fs::write(dir.join("bigrat.qc"), format!("{qc}$sequence \"stroll\" \"walk\" fps 15 loop\n")).unwrap();
    let model = load_with(&dir.join("bigrat.qc"), &LoadOptions::default());
    assert_eq!(model.marked_axes("stroll"), Some([false; 3]));
    let (first, last) = (root_at(&model, "stroll", 0.0, true), root_at(&model, "stroll", 15.0, true));
    assert!((last.y - first.y + 26.25).abs() < 1e-3, "kept in place: {first} -> {last}");
    // On the command line: it walks across its cells by default, `--in-place` pins it, and
    // `--in-place` with `--root-motion` is refused.
    let (kept, pinned) = (travel_px(&dir, "stroll", &[]), travel_px(&dir, "stroll", &["--in-place"]));
    assert!(kept >= 6.0 && pinned <= 3.0, "moved {kept} px by default, {pinned} px with --in-place");
    let o =
        spritebake(&["render", dir.join("bigrat.qc").to_str().unwrap(), "--in-place", "--root-motion", "-o", "x.png"]);
    assert_eq!(o.status.code(), Some(2), "{}", printed(&o));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn attachment_points_mount_like_their_joint_and_offset() {
    let dir = qc_project("attach");
    let qc = dir.join("bigrat.qc");
    let model = load_with(&qc, &LoadOptions::default());
    let render = |spec: AttachSpec| {
        let controls = Controls { attachments: vec![spec], ..Controls::default() };
        let props =
            rig::load_attachments(&controls, &qc, &model, &LoadOptions::default(), &Default::default()).unwrap();
        let clip = model.clip("walk2");
        let animation = rig::animation(&model, &props, &controls, clip, PoseOptions::default()).unwrap();
        let view = OrbitView { yaw_degrees: 60.0, pitch_degrees: 20.0, ..OrbitView::default() };
        let options = RenderOptions { width: 64, height: 64, ssaa: 1, ..RenderOptions::default() };
        let request = FrameRequest { animation, time: FrameTime::Frame(3.0) };
        bake::render_frame(&Renderer::new(), &model, &request, &view, &options).unwrap()
    };
    let sword = dir.join("sword.obj");
    let at_point = render(AttachSpec { joint: Some("hand".into()), ..AttachSpec::new(sword.clone()) });
    let at_joint = render(AttachSpec {
        joint: Some("forearm_R".into()),
        offset: "t=0,0,-11".parse().unwrap(),
        ..AttachSpec::new(sword.clone())
    });
    assert_eq!(at_point.rgba, at_joint.rgba, "FILE@POINT is FILE@JOINT with the point's offset");
    let bare = render(AttachSpec { joint: Some("forearm_R".into()), ..AttachSpec::new(sword.clone()) });
    assert_ne!(at_point.rgba, bare.rgba);
    // The command line takes it too; a wrong name lists the points and joints.
    let out = dir.join("armed.png");
    let args =
        ["render", qc.to_str().unwrap(), "--anim", "walk2", "--attach", "sword.obj@hand", "-o", out.to_str().unwrap()];
    let o = Command::new(env!("CARGO_BIN_EXE_spritebake")).current_dir(&dir).args(args).output().unwrap();
    assert!(o.status.success(), "{}", printed(&o));
    let args = ["render", qc.to_str().unwrap(), "--attach", "sword.obj@hando", "-o", out.to_str().unwrap()];
    let o = Command::new(env!("CARGO_BIN_EXE_spritebake")).current_dir(&dir).args(args).output().unwrap();
    assert!(!o.status.success());
    assert!(printed(&o).contains("did you mean 'hand'"), "{}", printed(&o));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn body_groups_show_their_first_entry_unless_chosen() {
    let dir = qc_project("bodies");
    let qc = dir.join("bigrat.qc");
    let plain = load_with(&qc, &LoadOptions::default());
    let choose = |choice: &str| LoadOptions {
        bodies: vec![BodyChoice { group: "HELMET".into(), choice: choice.into() }],
        ..LoadOptions::default()
    };
    let helmeted = load_with(&qc, &choose("Helmet"));
    assert_eq!(helmeted.triangle_count(), plain.triangle_count() + 2);
    // The helmet follows the head: its vertices are skinned to the head joint.
    let head = helmeted.skeleton.as_ref().unwrap().find("head").unwrap() as u32;
    assert!(helmeted.meshes.last().unwrap().influences.iter().all(|i| i.joint == head));
    assert_eq!(load_with(&qc, &choose("blank")).triangle_count(), plain.triangle_count());
    let e = load(&qc, &choose("hat")).unwrap_err().to_string();
    assert!(e.contains("'hat'") && e.contains("blank, helmet"), "{e}");
    let e = load(
        &qc,
        &LoadOptions { bodies: vec![BodyChoice { group: "hat".into(), choice: "x".into() }], ..LoadOptions::default() },
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("'hat'") && e.contains("studio, helmet"), "{e}");
    // The flag, and its refusal on other formats.
    let out = dir.join("h.png");
    let o = spritebake(&["render", qc.to_str().unwrap(), "--body", "helmet=helmet", "-o", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", printed(&o));
    let o = spritebake(&[
        "render",
        dir.join("ref.smd").to_str().unwrap(),
        "--body",
        "helmet=helmet",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(printed(&o).contains("--body helmet=helmet: applies to .qc models"), "{}", printed(&o));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn texture_folders_are_searched_and_confined() {
    let dir = qc_project("folders");
    // A texture folder two levels down is found only through $cdtexture.
    std::fs::create_dir_all(dir.join("art/rat")).unwrap();
    std::fs::rename(dir.join("textures/rat.bmp"), dir.join("art/rat/rat.bmp")).unwrap();
    let status = |qc: &str| {
        std::fs::write(dir.join("t.qc"), qc).unwrap();
        let model = load_with(&dir.join("t.qc"), &LoadOptions::default());
        (model.materials[0].texture_status.clone(), model.warnings)
    };
    let (found, _) = status("$cdtexture \"art\\rat\"\n$body studio ref\n");
    assert!(matches!(&found, TextureStatus::Found(p) if p.ends_with("art/rat/rat.bmp")), "{found:?}");
    let (missing, _) = status("$body studio ref\n");
    assert!(matches!(missing, TextureStatus::Missing { .. }), "{missing:?}");
    // A folder outside the QC's folder is not searched (a warning says why).
    let (_, warnings) = status("$cdtexture \"../elsewhere\"\n$body studio ref\n");
    assert!(warnings.iter().any(|w| w.contains("texture folder") && w.contains("--texture-root")), "{warnings:?}");
    // Names written on Windows match files in any case.
    let (_, warnings) = status("$body studio \"REF.SMD\"\n$sequence w \"Walk\"\n");
    assert!(!warnings.iter().any(|w| w.contains("missing")), "{warnings:?}");
    std::fs::remove_dir_all(dir).unwrap();
}

/// The QC project walking in place at frame 4, its helmet body chosen and the sword on its
/// `hand` attachment point.
#[test]
fn golden_qc_project() {
    let dir = qc_project("golden");
    let qc = dir.join("bigrat.qc");
    let helmet = BodyChoice { group: "helmet".into(), choice: "helmet".into() };
    let model = load_with(&qc, &LoadOptions { bodies: vec![helmet], ..LoadOptions::default() });
    let spec = AttachSpec { joint: Some("hand".into()), ..AttachSpec::new(dir.join("sword.obj")) };
    let controls = Controls { attachments: vec![spec], ..Controls::default() };
    let props = rig::load_attachments(&controls, &qc, &model, &LoadOptions::default(), &Default::default()).unwrap();
    let options = PoseOptions { looping: true, in_place: true };
    let animation = rig::animation(&model, &props, &controls, model.clip("walk2"), options).unwrap();
    let view = OrbitView { yaw_degrees: -35.0, pitch_degrees: 20.0, ..OrbitView::default() };
    let options = RenderOptions { width: 96, height: 96, ssaa: 2, ..RenderOptions::default() };
    let request = FrameRequest { animation, time: FrameTime::Frame(4.0) };
    let image = bake::render_frame(&Renderer::new(), &model, &request, &view, &options).unwrap();
    std::fs::remove_dir_all(dir).unwrap();
    assert_golden(&image, Tolerance { channel: 1, max_pixels: 8 });
}

/// `base/def/robots.def` naming `models/robot/*` relative to `base`, as Doom 3 does.
fn def_project(name: &str) -> PathBuf {
    let base = scratch_in("def", name);
    let models = base.join("models/robot");
    std::fs::create_dir_all(&models).unwrap();
    std::fs::create_dir_all(base.join("def")).unwrap();
    for file in ["robot.md5mesh", "walk.md5anim", "robot.png"] {
        std::fs::copy(asset(&format!("robot/{file}")), models.join(file)).unwrap();
    }
    std::fs::write(models.join("run.md5anim"), text("robot/walk.md5anim").replace("frameRate 16", "frameRate 32"))
        .unwrap();
    let def = "// robots\n\
        entityDef monster_robot {\n  \"model\" \"robot\"\n}\n\
        model robot {\n\
          mesh models/robot/robot.md5mesh\n\
          channel torso ( spine )\n\
          anim idle models/robot/walk.md5anim\n\
          anim walk models/robot/walk.md5anim {\n    frame 4 sound_body snd_step\n  }\n\
        }\n\n\
        model robot_fast {\n\
          inherit robot\n\
          anim walk models/robot/run.md5anim\n\
          anim sprint models/robot/run.md5anim\n\
          anim ghost models/robot/ghost.md5anim\n\
        }\n";
    std::fs::write(base.join("def/robots.def"), def).unwrap();
    base
}

#[test]
fn a_def_file_loads_its_first_model_or_the_named_one() {
    let base = def_project("models");
    let def = base.join("def/robots.def");
    let rooted = |name: Option<&str>| LoadOptions {
        texture_roots: vec![base.clone()],
        model_name: name.map(String::from),
        ..LoadOptions::default()
    };
    let first = load_with(&def, &rooted(None));
    assert_eq!(first.name, "robot");
    let clips: Vec<(&str, f32)> = first.clips.iter().map(|c| (c.name.as_str(), c.fps)).collect();
    assert_eq!(clips, [("idle", 16.0), ("walk", 16.0)]);
    assert!(first.warnings.iter().any(|w| w.contains("channel, frame ignored")), "{:?}", first.warnings);
    assert!(
        matches!(&first.materials[0].texture_status, TextureStatus::Found(p) if p.ends_with("models/robot/robot.png"))
    );
    // The second: inherited anims in order, `walk` overridden in place, new ones after; a
    // missing anim file is a warning.
    let fast = load_with(&def, &rooted(Some("robot_fast")));
    let clips: Vec<(&str, f32)> = fast.clips.iter().map(|c| (c.name.as_str(), c.fps)).collect();
    assert_eq!(clips, [("idle", 16.0), ("walk", 32.0), ("sprint", 32.0)]);
    assert!(fast.warnings.iter().any(|w| w.contains("line 18") && w.contains("ghost")), "{:?}", fast.warnings);
    assert_eq!(fast.vertex_count(), first.vertex_count());
    // An unknown name lists the declared ones.
    let e = load(&def, &rooted(Some("robot_slow"))).unwrap_err().to_string();
    assert!(e.contains("robot_slow") && e.contains("robot, robot_fast"), "{e}");
    // Without a root the base folder above def/ is not searched, and the error says how to allow it.
    let e = load(&def, &LoadOptions::default()).unwrap_err().to_string();
    assert!(e.contains("line 6") && e.contains("models/robot/robot.md5mesh") && e.contains("--texture-root"), "{e}");
    // The command line: --model-name picks, --anim plays the .def's clip names.
    let out = base.join("fast.png");
    let (d, b, o) = (def.to_str().unwrap(), base.to_str().unwrap(), out.to_str().unwrap());
    let run = spritebake(&[
        "sheet",
        d,
        "--texture-root",
        b,
        "--model-name",
        "robot_fast",
        "--anim",
        "sprint",
        "--frames",
        "2",
        "-o",
        o,
    ]);
    assert!(run.status.success(), "{}", printed(&run));
    let mesh = base.join("models/robot/robot.md5mesh");
    let run = spritebake(&["render", mesh.to_str().unwrap(), "--model-name", "x", "-o", o]);
    assert!(printed(&run).contains("--model-name x: applies to .def files"), "{}", printed(&run));
    std::fs::remove_dir_all(base).unwrap();
}

#[test]
fn corpus_headcrab_qc() {
    let Some(dir) = corpus("smd/headcrab") else { return };
    let model = load_with(&dir.join("headcrab.qc"), &LoadOptions::default());
    let clips: Vec<(&str, f32, usize)> =
        model.clips.iter().map(|c| (c.name.as_str(), c.fps, c.frame_count())).collect();
    assert_eq!(
        clips,
        [
            ("idle1", 20.0, 31),
            ("walk", 30.0, 35),
            ("run", 30.0, 29),
            ("flinch", 30.0, 19),
            ("dieback", 30.0, 51),
            ("jump", 30.0, 31)
        ]
    );
    assert_eq!(model.triangle_count(), 478);
    for m in &model.materials {
        assert!(matches!(m.texture_status, TextureStatus::Found(_)), "{}: {:?}", m.name, m.texture_status);
    }
    // walk and run are LX, idle1 marks nothing (its motion is kept); the decompiler's include
    // and 17 sequence files are not shipped.
    assert_eq!(model.marked_axes("run"), Some([false, true, false]));
    assert_eq!(model.marked_axes("idle1"), Some([false; 3]));
    assert!(model.warnings.iter().any(|w| w.contains("17 sequence(s) skipped") && w.contains("eat_ground")));
    assert!(model.warnings.iter().any(|w| w.contains("texturepath.qci")));
    // In place, run's root ends where it starts; with its travel it goes 45 units along -y.
    let (a, b) = (root_at(&model, "run", 0.0, true), root_at(&model, "run", 28.0, true));
    assert!((a - b).length() < 1e-3, "{a} {b}");
    let (a, b) = (root_at(&model, "run", 0.0, false), root_at(&model, "run", 28.0, false));
    assert!((b.y - a.y + 45.2386).abs() < 1e-2 && (b.x - a.x).abs() < 1e-3, "{a} {b}");
}

#[test]
fn a_doom3_material_gives_an_md5_mesh_its_image_and_alpha_test() {
    use spritebake::model::AlphaMode;
    // The robot as Doom 3 ships a model: the mesh names a material, `materials/*.mtr` declares
    // it, and its diffuse stage's image (named .tga, shipped as .png) is alpha tested.
    let base = def_project("mtr");
    let models = base.join("models/robot");
    let mesh = models.join("robot.md5mesh");
    std::fs::write(&mesh, text("robot/robot.md5mesh").replace("shader \"robot.png\"", "shader \"models/robot/metal\""))
        .unwrap();
    let mut skin = image::open(asset("robot/robot.png")).unwrap().to_rgba8();
    let half = skin.width() / 2;
    for (x, _, p) in skin.enumerate_pixels_mut() {
        p[3] = if x < half { 0 } else { 255 };
    }
    skin.save(models.join("metal_d.png")).unwrap();
    std::fs::create_dir_all(base.join("materials")).unwrap();
    // A malformed file is a warning; the declarations of the others are still found.
    std::fs::write(base.join("materials/broken.mtr"), "}\n").unwrap();
    let mtr = "table flicker { { 0, 1 } }\n\
        models/robot/other { diffusemap models/robot/nothing.tga }\n\
        models/robot/metal\n{\n\
          bumpmap addnormals(models/robot/metal_local.tga, heightmap(models/robot/metal_h.tga, 4))\n\
          {\n    blend diffusemap\n    map models/robot/metal_d.tga\n    alphaTest 0.5\n  }\n}\n";
    std::fs::write(base.join("materials/robot.mtr"), mtr).unwrap();
    let rooted = LoadOptions { texture_roots: vec![base.clone()], ..LoadOptions::default() };
    let def = base.join("def/robots.def");
    for model in [load_with(&mesh, &rooted), load_with(&def, &rooted)] {
        let m = &model.materials[0];
        assert_eq!(m.alpha_mode, AlphaMode::Mask(0.5));
        assert!(matches!(&m.texture_status, TextureStatus::Found(p) if p.ends_with("models/robot/metal_d.png")));
        assert!(
            model.warnings.iter().any(|w| w.contains("broken.mtr") && w.contains("line 1")),
            "{:?}",
            model.warnings
        );
        assert!(model.sources.iter().any(|s| s.ends_with("materials/robot.mtr")));
    }
    // Without the root, the materials folder above the mesh's is out of reach: the image is
    // still found by the material's name (`metal` + `_d`), but nothing says to cut it out.
    let unrooted = load_with(&mesh, &LoadOptions::default());
    assert_eq!(unrooted.materials[0].alpha_mode, AlphaMode::Opaque);
    assert!(!unrooted.sources.iter().any(|s| s.ends_with("materials/robot.mtr")));
    // Rendered, the cut-out half of the skin is gone.
    let covered = |args: &[&str], name: &str| {
        let out = base.join(name);
        let mut all = vec!["render", mesh.to_str().unwrap(), "-o", out.to_str().unwrap()];
        all.extend(args);
        let run = spritebake(&all);
        assert!(run.status.success(), "{}", printed(&run));
        image::open(&out).unwrap().to_rgba8().pixels().filter(|p| p[3] > 0).count()
    };
    let cut = covered(&["--texture-root", base.to_str().unwrap()], "cut.png");
    let whole = covered(&[], "whole.png");
    assert!(cut * 10 < whole * 9 && cut > 0, "covered pixels: {cut} cut out, {whole} whole");
    std::fs::remove_dir_all(base).unwrap();
}

#[test]
fn a_material_file_is_charged_to_the_budget_before_it_is_parsed() {
    use spritebake::formats::Limits;
    let dir = scratch_in("def", "mtr_budget");
    for file in ["robot.md5mesh", "robot.png"] {
        std::fs::copy(asset(&format!("robot/{file}")), dir.join(file)).unwrap();
    }
    // 1.5 MiB of empty declarations beside the mesh; 2 MiB of budget.
    std::fs::write(dir.join("huge.mtr"), "robot.png {}\n".repeat(121_000)).unwrap();
    let limits = Limits { max_memory_bytes: 2 << 20, ..Limits::default() };
    let e = load(&dir.join("robot.md5mesh"), &LoadOptions { limits, ..LoadOptions::default() }).unwrap_err();
    assert!(matches!(e, spritebake::Error::Budget { .. }) && e.to_string().contains("huge.mtr"), "{e}");
    // With room, the file is read and its material (with no image of its own) changes nothing.
    let model = load_with(&dir.join("robot.md5mesh"), &LoadOptions::default());
    assert!(matches!(&model.materials[0].texture_status, TextureStatus::Found(p) if p.ends_with("robot.png")));
    std::fs::remove_dir_all(dir).unwrap();
}
