//! The command line as a user runs it: exit codes, error lines, outputs.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn spritebake(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_spritebake")).args(args).output().expect("run spritebake")
}

fn example() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/assets/tower.obj").display().to_string()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("spritebake-cli-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn render_writes_a_png_of_the_requested_size() {
    let dir = scratch("render");
    let out = dir.join("t.png");
    let o = spritebake(&["render", &example(), "--size", "64x48", "--ssaa", "2", "-o", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let img = spritebake::output::read_png(&out).unwrap();
    assert_eq!((img.width, img.height), (64, 48));
    assert!(img.covered_pixels() > 300);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn missing_model_is_one_clear_error_line() {
    let o = spritebake(&["render", "no/such/model.obj", "-o", "x.png"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.starts_with("error: no/such/model.obj:"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
}

#[test]
fn unwritable_output_is_an_error_and_leaves_nothing() {
    let dir = scratch("unwritable");
    let out = dir.join("missing-folder").join("t.png");
    let o = spritebake(&["render", &example(), "--size", "16", "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("missing-folder"), "{}", stderr(&o));
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn out_of_range_obj_indices_name_the_line() {
    let dir = scratch("badobj");
    let obj = dir.join("bad.obj");
    std::fs::write(&obj, "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nf 1 2 9\n").unwrap();
    let o = spritebake(&["info", obj.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("bad.obj") && err.contains("line 5"), "{err}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn missing_texture_warns_and_renders_the_fallback() {
    let dir = scratch("notex");
    std::fs::write(dir.join("m.obj"), "mtllib m.mtl\nv -1 -1 0\nv 1 -1 0\nv 1 1 0\nv -1 1 0\nvt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\nusemtl skin\nf 1/1 2/2 3/3 4/4\n").unwrap();
    std::fs::write(dir.join("m.mtl"), "newmtl skin\nmap_Kd gone.png\n").unwrap();
    let out = dir.join("m.png");
    let o = spritebake(&[
        "render",
        dir.join("m.obj").to_str().unwrap(),
        "--size",
        "32",
        "--shading",
        "unlit",
        "--pitch",
        "0",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("warning:") && stderr(&o).contains("gone.png"), "{}", stderr(&o));
    // The fallback is the magenta/black checker: both colours appear.
    let img = spritebake::output::read_png(&out).unwrap();
    let magenta = img.rgba.chunks_exact(4).filter(|p| p[0] > 200 && p[1] < 40 && p[2] > 200).count();
    let black = img.rgba.chunks_exact(4).filter(|p| p[3] == 255 && p[0] < 40 && p[1] < 40 && p[2] < 40).count();
    assert!(magenta > 50 && black > 50, "magenta {magenta}, black {black}");
    let info = spritebake(&["info", dir.join("m.obj").to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&info.stdout).contains("MISSING"), "{}", String::from_utf8_lossy(&info.stdout));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn bad_flags_are_rejected() {
    for args in [
        ["render", "x.obj", "--ssaa", "5"],
        ["render", "x.obj", "--size", "0x4"],
        ["render", "x.obj", "--background", "#12"],
    ] {
        let mut full = args.to_vec();
        full.extend(["-o", "x.png"]);
        let o = spritebake(&full);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
    }
}

#[test]
fn export_writes_the_posed_frame_as_obj_that_loads_back() {
    let dir = scratch("export");
    let robot = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/assets/robot");
    let (mesh, anim) = (robot.join("robot.md5mesh"), robot.join("walk.md5anim"));
    let out = dir.join("posed.obj");
    let o = spritebake(&[
        "export",
        mesh.to_str().unwrap(),
        "--anim",
        anim.to_str().unwrap(),
        "--frame",
        "4",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    // The export is in the file's own axes (Z up): load it back and compare with posing directly.
    let options = spritebake::formats::LoadOptions { animations: vec![anim.clone()], ..Default::default() };
    let model = spritebake::formats::load(&mesh, &options).unwrap();
    let posed = spritebake::anim::pose(
        &model,
        model.clips.first(),
        spritebake::anim::FrameTime::Frame(4.0),
        &Default::default(),
    );
    let exported = spritebake::formats::load(&out, &Default::default()).unwrap();
    assert_eq!(exported.triangle_count(), model.triangle_count());
    let (a, b) = (posed.bounds(), exported.rest_bounds());
    assert!((a.min - b.min).length() < 1e-3 && (a.max - b.max).length() < 1e-3, "{a:?} vs {b:?}");
    assert!(matches!(exported.materials[0].texture_status, spritebake::model::TextureStatus::Found(_)));
    // --y-up turns Z-up into Y-up.
    let o = spritebake(&["export", mesh.to_str().unwrap(), "--y-up", "-o", out.to_str().unwrap()]);
    assert!(o.status.success());
    let b = spritebake::formats::load(&out, &Default::default()).unwrap().rest_bounds();
    assert!(b.size().y > b.size().z * 2.0, "{b:?}");
    std::fs::remove_dir_all(dir).unwrap();
}
