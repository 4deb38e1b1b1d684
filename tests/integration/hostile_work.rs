//! Issue 16, bounded work and errors that cannot lie: file-driven loops linear in their input,
//! every numeric option and manifest key bounded (with the bound in the help and the error),
//! model text escaped wherever the command line prints it, parser errors that name the line.
//! Fixtures are generated here; each test asserts the exact outcome (exit status, the one
//! `error:` line, the files left in the output folder).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use glam::{Vec2, Vec3};
use serde_json::json;
use spritebake::internal::formats::md2;

use crate::common;
use crate::common::cli::names_in;

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_spritebake")).args(args).output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn scratch(name: &str) -> PathBuf {
    common::cli::scratch_in("hostile-work", name)
}

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// Lines of `text` that start with `error:`.
fn error_lines(text: &str) -> Vec<&str> {
    text.lines().filter(|l| l.starts_with("error:")).collect()
}

/// An MD2 triangle with one frame per name and the skin name given.
fn md2_bytes(skin: &str, frame_names: &[String]) -> Vec<u8> {
    // Upright in the YZ plane, facing +X (the front of a Quake model).
    let positions = vec![Vec3::new(0.0, -8.0, 0.0), Vec3::new(0.0, 8.0, 0.0), Vec3::new(0.0, 0.0, 24.0)];
    let normals = vec![Vec3::X; 3];
    let frames: Vec<(String, Vec<Vec3>, Vec<Vec3>)> =
        frame_names.iter().map(|n| (n.clone(), positions.clone(), normals.clone())).collect();
    let uvs = [Vec2::new(0.0, 0.0), Vec2::new(1.0, 0.0), Vec2::new(0.5, 1.0)];
    md2::write(&md2::Md2Source { skin, skin_size: (8, 8), uvs: &uvs, indices: &[[0, 1, 2]], frames: &frames })
}

/// A glTF triangle (external `.bin`) with one animation named `clip`.
fn gltf_with_clip(dir: &Path, stem: &str, clip: &str) -> PathBuf {
    let floats = [0.0f32, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.5, 0.0];
    let bin: Vec<u8> = floats.iter().flat_map(|f| f.to_le_bytes()).collect();
    std::fs::write(dir.join(format!("{stem}.bin")), &bin).unwrap();
    let doc = json!({
        "asset": {"version": "2.0"},
        "buffers": [{"uri": format!("{stem}.bin"), "byteLength": bin.len()}],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": 36},
            {"buffer": 0, "byteOffset": 36, "byteLength": 8},
            {"buffer": 0, "byteOffset": 44, "byteLength": 24}
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3", "min": [0, 0, 0], "max": [1, 1, 0]},
            {"bufferView": 1, "componentType": 5126, "count": 2, "type": "SCALAR", "min": [0], "max": [1]},
            {"bufferView": 2, "componentType": 5126, "count": 2, "type": "VEC3"}
        ],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
        "nodes": [{"mesh": 0}],
        "scenes": [{"nodes": [0]}],
        "scene": 0,
        "animations": [{
            "name": clip,
            "samplers": [{"input": 1, "output": 2}],
            "channels": [{"sampler": 0, "target": {"node": 0, "path": "translation"}}]
        }]
    });
    let path = dir.join(format!("{stem}.gltf"));
    std::fs::write(&path, serde_json::to_vec(&doc).unwrap()).unwrap();
    path
}

const FORGED: &str = "Walk\x1b[31m\nerror: forged";
const FORGED_SHOWN: &str = "Walk\\x1b[31m\\nerror: forged";

#[test]
fn file_driven_loops_are_bounded() {
    // 4096 frames (the MD2 maximum) of one name: 4096 clips `x`, `x_2` ... `x_4096`. Naming
    // each repeat used to scan every clip once per suffix tried (cubic: ~50 s here).
    let dir = scratch("md2-names");
    let names = vec!["x".to_string(); 4096];
    let model = dir.join("same.md2");
    std::fs::write(&model, md2_bytes("skin.pcx", &names)).unwrap();
    let o = run(&["info", p(&model)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("clips: 4096\n"), "{out}");
    let clips: Vec<&str> = out.lines().filter(|l| l.ends_with("(morph)")).collect();
    assert_eq!(clips.len(), 4096);
    assert!(clips[0].starts_with("  'x': 1 frames"), "{}", clips[0]);
    assert!(clips[1].starts_with("  'x_2': 1 frames") && clips[4095].starts_with("  'x_4096': 1 frames"));

    // The naming itself at 50 times that count (old algorithm: ~10^15 comparisons, it would
    // never finish): every name distinct, in order.
    let many = vec!["run"; 200_000];
    let grouped = md2::group_clips(&many);
    assert_eq!(grouped.len(), 200_000);
    assert_eq!(grouped[199_999].0, "run_200000");
    assert!(grouped.iter().enumerate().skip(1).all(|(i, (n, f))| *n == format!("run_{}", i + 1) && f == &[i]));
}

/// A reference SMD of one bone with `triangles` one-triangle entries over `materials` names.
fn smd_with_materials(materials: usize, triangles: usize) -> String {
    let mut s = String::from("version 1\nnodes\n0 \"root\" -1\nend\nskeleton\ntime 0\n0 0 0 0 0 0 0\nend\ntriangles\n");
    for i in 0..triangles {
        s.push_str(&format!("m{}\n0 0 0 0 0 0 1 0 0\n0 1 0 0 0 0 1 0 0\n0 0 1 0 0 0 1 0 0\n", i % materials));
    }
    s + "end\n"
}

#[test]
fn mesh_and_material_counts_are_bounded() {
    let dir = scratch("materials");
    // Meshes were found by a search over every mesh for every triangle (100,000 materials
    // took 8 minutes); now by name in constant time, and at most 4096 of them.
    std::fs::write(dir.join("many.smd"), smd_with_materials(5000, 5000)).unwrap();
    let o = run(&["info", p(&dir.join("many.smd"))]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let errors = error_lines(&stderr(&o)).join("\n");
    assert!(
        errors.contains("SMD line") && errors.contains("material 'm4096' would be material 4097: at most 4096"),
        "{errors}"
    );
    std::fs::write(dir.join("most.smd"), smd_with_materials(4096, 40_000)).unwrap();
    let o = run(&["info", p(&dir.join("most.smd"))]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("materials: 4096\n"), "{}", stdout(&o));
    // MD5: a mesh count past the same bound is refused where it is declared.
    let md5 =
        "MD5Version 10\ncommandline \"\"\nnumJoints 1\nnumMeshes 5000\njoints {\n\"root\" -1 ( 0 0 0 ) ( 0 0 0 )\n}\n";
    std::fs::write(dir.join("many.md5mesh"), md5).unwrap();
    let o = run(&["info", p(&dir.join("many.md5mesh"))]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let errors = error_lines(&stderr(&o)).join("\n");
    assert!(errors.contains("MD5 line 4") && errors.contains("4096"), "{errors}");
}

#[test]
fn outline_width_is_bounded_and_linear() {
    let dir = scratch("outline");
    let model = dir.join("tri.md2");
    std::fs::write(&model, md2_bytes("skin.pcx", &["stand1".into(), "stand2".into()])).unwrap();
    let out = dir.join("out");
    std::fs::create_dir_all(&out).unwrap();
    // Refused before anything is loaded or written: the old disc search would test 4·10¹⁰
    // offsets per pixel.
    let sheet = out.join("s.png");
    let o = run(&["sheet", p(&model), "--size", "32", "--outline", "100000", "-o", p(&sheet)]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert_eq!(error_lines(&err).len(), 1, "{err}");
    assert!(err.contains("--outline") && err.contains("must be from 0 to 256"), "{err}");
    assert!(names_in(&out).is_empty(), "{:?}", names_in(&out));
    // The largest width allowed works, and covers a 32-pixel cell entirely.
    let o = run(&[
        "sheet",
        p(&model),
        "--size",
        "32",
        "--outline",
        "256",
        "--padding",
        "0",
        "--two-sided",
        "-o",
        p(&sheet),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let img = spritebake::output::read_png(&sheet).unwrap();
    for (x, y) in (0..32).flat_map(|y| (0..32).map(move |x| (x, y))) {
        assert_eq!(img.pixel(x, y).unwrap()[3], 255, "first cell at ({x},{y})");
    }
}

/// (command line, flag, bound as the help and the error say it)
fn out_of_range_cases(model: &str, out: &str) -> Vec<(Vec<String>, &'static str, &'static str)> {
    let sheet = |extra: &[&str]| {
        let mut v: Vec<String> = ["sheet", model, "--size", "16", "-o", out].map(String::from).to_vec();
        v.extend(extra.iter().map(|s| s.to_string()));
        v
    };
    let render = |extra: &[&str]| {
        let mut v: Vec<String> = ["render", model, "--size", "16", "-o", out].map(String::from).to_vec();
        v.extend(extra.iter().map(|s| s.to_string()));
        v
    };
    vec![
        (sheet(&["--padding", "100000"]), "--padding", "from 0 to 256"),
        (sheet(&["--extrude", "65"]), "--extrude", "from 0 to 64"),
        (sheet(&["--sample-fps", "1e9"]), "--sample-fps", "from 0.01 to 1000"),
        (sheet(&["--sample-fps", "0"]), "--sample-fps", "from 0.01 to 1000"),
        (sheet(&["--frames", "10001"]), "--frames", "from 1 to 10000"),
        (sheet(&["--pixel-art", "17"]), "--pixel-art", "from 1 to 16"),
        (sheet(&["--palette", "100000"]), "--palette", "from 2 to 256"),
        (sheet(&["--threads", "100000"]), "--threads", "from 1 to 1024"),
        (["render", model, "--size", "100000x16", "-o", out].map(String::from).to_vec(), "--size", "from 1 to 8192"),
        (render(&["--ssaa", "9"]), "--ssaa", "from 1 to 4"),
        (render(&["--bands", "100000"]), "--bands", "from 2 to 64"),
        (render(&["--fps", "NaN"]), "--fps", "from 0.01 to 1000"),
        (render(&["--frame", "1e30"]), "--frame", "from 0 to 1000000"),
        (render(&["--time", "inf"]), "--time", "from 0 to 100000"),
        (render(&["--yaw", "1e30"]), "--yaw", "from -360 to 360"),
        (render(&["--pitch", "91"]), "--pitch", "from -90 to 90"),
        (render(&["--fov", "0"]), "--fov", "from 1 to 179"),
        (render(&["--margin", "5"]), "--margin", "from 0 to 1"),
        (render(&["--ambient", "2"]), "--ambient", "from 0 to 1"),
        (render(&["--max-file-mib", "99999999"]), "--max-file-mib", "from 1 to 16384"),
        (render(&["--max-texture-side", "1000000"]), "--max-texture-side", "from 1 to 32768"),
        (render(&["--max-memory-mib", "0"]), "--max-memory-mib", "from 1 to 1048576"),
        (["thumbnail", model, "--size", "100000", "-o", out].map(String::from).to_vec(), "--size", "from 1 to 8192"),
        (["bench", model, "--frames", "1000000000"].map(String::from).to_vec(), "--frames", "from 1 to 100000"),
        (["compare", model, model, "--threshold", "5"].map(String::from).to_vec(), "--threshold", "from 0 to 1"),
    ]
}

/// The lines of `--help` describing `flag`: its own line and the description under it.
fn help_entry(help: &str, flag: &str) -> String {
    let is_flag_line = |l: &str| l.trim_start().starts_with('-');
    let mut lines = help.lines().skip_while(|l| {
        let l = l.trim_start();
        !(l.starts_with(&format!("{flag} ")) || l.contains(&format!(", {flag} ")))
    });
    let first = lines.next().unwrap_or_default().to_string();
    first + &lines.take_while(|l| !is_flag_line(l)).collect::<String>()
}

#[test]
fn options_have_documented_upper_bounds() {
    let dir = scratch("options");
    let model = dir.join("tri.md2");
    std::fs::write(&model, md2_bytes("skin.pcx", &["stand1".into()])).unwrap();
    let out = dir.join("out");
    std::fs::create_dir_all(&out).unwrap();
    let target = out.join("x.png");
    for (args, flag, bound) in out_of_range_cases(p(&model), p(&target)) {
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = run(&refs);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{refs:?}: {err}");
        assert_eq!(error_lines(&err).len(), 1, "{refs:?}: {err}");
        assert!(err.contains(flag) && err.contains(&format!("must be {bound}")), "{refs:?}: {err}");
        assert!(names_in(&out).is_empty(), "{refs:?} wrote {:?}", names_in(&out));
        // The help of the command states the same bound on that flag's entry.
        let help = stdout(&run(&[refs[0], "--help"]));
        let entry = help_entry(&help, flag);
        assert!(entry.contains(bound), "{} --help, {flag}: {entry}", refs[0]);
    }
}

#[test]
fn manifest_numbers_have_the_same_bounds() {
    let dir = scratch("manifest");
    let model = dir.join("tri.md2");
    std::fs::write(&model, md2_bytes("skin.pcx", &["stand1".into()])).unwrap();
    for (key, line, message) in [
        ("size", "size = \"100000\"", "`size` = \"100000\": size '100000': each side must be from 1 to 8192"),
        ("ssaa", "ssaa = 9", "`ssaa` = 9: must be from 1 to 4"),
        ("frame", "frame = [0, 1e30]", "`frame` = 1000000000000000000000000000000: must be from 0 to 1000000"),
        ("yaw", "yaw = 1e30", "`yaw` = 1000000000000000000000000000000: must be from -360 to 360"),
        ("columns", "columns = 0", "`columns` = 0: must be from 1 to 4096"),
    ] {
        let manifest = dir.join("cases.toml");
        let body = format!("[[case]]\nname = \"c\"\nmodel = \"tri.md2\"\ngolden = \"g/c.png\"\n{line}\n");
        std::fs::write(&manifest, body).unwrap();
        let o = run(&["check", p(&manifest), "--bless"]);
        assert_eq!(o.status.code(), Some(2), "{key}: {}", stderr(&o));
        let error = format!("error: {}: case #1 (line 1): {message}\n", manifest.display());
        assert_eq!((stdout(&o), stderr(&o)), (String::new(), error), "{key}");
        assert!(!dir.join("g").exists(), "{key}: a golden was written");
    }
}

#[test]
fn errors_cannot_lie() {
    let dir = scratch("escape");
    let model = gltf_with_clip(&dir, "walker", FORGED);
    let bytes_before = std::fs::read(&model).unwrap();
    let out = dir.join("out");
    std::fs::create_dir_all(&out).unwrap();

    // An error quoting the clip name ("did you mean ...?"): one escaped `error:` line.
    let o = run(&["render", p(&model), "--anim", "walk", "--size", "8", "-o", p(&out.join("r.png"))]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert_eq!(error_lines(&err).len(), 1, "{err}");
    assert!(err.contains(FORGED_SHOWN) && !err.contains('\x1b'), "{err}");
    assert!(names_in(&out).is_empty());

    // `info` lists the clip on one line, escaped.
    let o = run(&["info", p(&model)]);
    assert_eq!(o.status.code(), Some(0));
    let info = stdout(&o);
    assert!(info.contains(&format!("  '{FORGED_SHOWN}': ")) && !info.contains('\x1b'), "{info}");
    assert!(!info.lines().any(|l| l.starts_with("error:")), "{info}");

    // A warning quoting a texture name from the file (a 64-byte MD2 skin name).
    let md2 = dir.join("skinned.md2");
    std::fs::write(&md2, md2_bytes("s\x1b[2J\nerror: forged\r.pcx", &["stand1".into()])).unwrap();
    let o = run(&["render", p(&md2), "--size", "8", "-o", p(&out.join("w.png"))]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(error_lines(&err).is_empty() && !err.contains('\x1b') && !err.contains('\r'), "{err}");
    assert!(
        err.lines().all(|l| l.starts_with("warning: ")) && err.contains("s\\x1b[2J\\nerror: forged\\r.pcx"),
        "{err}"
    );
    assert_eq!(names_in(&out), ["w.png"]);

    // `thumbnail`: a good model, one whose file name is hostile, one that fails on the forged
    // clip name; one line each, then the summary.
    let batch = dir.join("batch");
    std::fs::create_dir_all(&batch).unwrap();
    std::fs::write(batch.join("good.md2"), md2_bytes("skin.pcx", &["Walk1".into()])).unwrap();
    std::fs::write(batch.join("evil\x1b[31m\nerror: forged.md2"), md2_bytes("skin.pcx", &["Walk1".into()])).unwrap();
    let bad = gltf_with_clip(&batch, "bad", FORGED);
    let mut args: Vec<String> = vec!["thumbnail".into(), "--anim".into(), "Walk".into(), "--size".into(), "8".into()];
    args.extend(
        [p(&batch.join("good.md2")), p(&batch.join("evil\x1b[31m\nerror: forged.md2")), p(&bad)].map(String::from),
    );
    args.extend(["-o".to_string(), p(&dir.join("thumbs")).to_string()]);
    let o = run(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let lines = stdout(&o);
    let lines: Vec<&str> = lines.lines().collect();
    assert_eq!(lines.len(), 4, "{lines:?}");
    assert!(lines[0].starts_with("ok    ") && lines[0].contains("good.md2"), "{lines:?}");
    // (Its thumbnail may be refused for its name; either way the line shows the name escaped.)
    assert!(lines[1].contains("evil\\x1b[31m\\nerror: forged.md2"), "{lines:?}");
    assert!(lines[2].starts_with("FAIL  ") && lines[2].contains(FORGED_SHOWN), "{lines:?}");
    assert!(lines[3] == "2 thumbnails, 1 failed" || lines[3] == "1 thumbnails, 2 failed", "{lines:?}");
    assert!(lines.iter().all(|l| !l.contains('\x1b')));

    // `check` summary lines: a case named with control characters.
    let manifest = dir.join("cases.toml");
    std::fs::write(
        &manifest,
        "[[case]]\nname = \"c\\u001b[31m\\nerror: forged\"\nmodel = \"missing.md2\"\ngolden = \"c.png\"\n",
    )
    .unwrap();
    let o = run(&["check", p(&manifest)]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert_eq!(out.lines().count(), 2, "{out}");
    assert!(out.starts_with("ERROR c\\x1b[31m\\nerror: forged: ") && !out.contains('\x1b'), "{out}");
    assert_eq!(std::fs::read(&model).unwrap(), bytes_before);
}

#[test]
fn parser_errors_name_the_line() {
    let dir = scratch("lines");
    let obj = dir.join("bad.obj");
    // Errors that only tobj sees (our validation passes them): w = 0, a one-number `vt`.
    for (statement, what) in [("v 1 1 1 0", "scaling (w) by zero"), ("vt 0.5", "texcoord parse error")] {
        std::fs::write(&obj, format!("v 0 0 0\nv 1 0 0\nv 0 1 0\n# four\n{statement}\nf 1 2 3\n")).unwrap();
        let o = run(&["info", p(&obj)]);
        assert_eq!(o.status.code(), Some(2));
        assert_eq!(stderr(&o), format!("error: {}: OBJ line 5: {what}\n", obj.display()));
    }
    // A line statement's index is checked where it stands, not at the end of the object.
    std::fs::write(&obj, "v 0 0 0\nv 1 0 0\nv 0 1 0\nl 1 9\nf 1 2 3\no b\nf 1 2 3\n").unwrap();
    let o = run(&["info", p(&obj)]);
    assert_eq!(
        stderr(&o),
        format!("error: {}: OBJ line 4: vertex index 9 out of range (expected 1..=3 or -3..=-1)\n", obj.display())
    );
    // A broken material library is a warning naming the library and its line.
    std::fs::write(dir.join("m.mtl"), "newmtl red\nKd 1 0 0\nNs shiny\n").unwrap();
    std::fs::write(&obj, "mtllib m.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl red\nf 1 2 3\n").unwrap();
    let o = run(&["info", p(&obj)]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains("warning: m.mtl line 3: material parse error; its materials are ignored"));
    // A JSON syntax error in a .gltf names its line.
    let gltf = dir.join("broken.gltf");
    std::fs::write(&gltf, "{\n  \"asset\": {\"version\": \"2.0\"},\n  \"nodes\": [{\"mesh\": }]\n}\n").unwrap();
    let o = run(&["info", p(&gltf)]);
    assert!(stderr(&o).starts_with(&format!("error: {}: glTF line 3: ", gltf.display())), "{}", stderr(&o));
    // An SMD block left open names the line that opened it.
    let smd = dir.join("open.smd");
    std::fs::write(&smd, "version 1\nnodes\n0 \"root\" -1\n").unwrap();
    let o = run(&["info", p(&smd)]);
    assert_eq!(stderr(&o), format!("error: {}: SMD line 2: `nodes` block opened here has no `end`\n", smd.display()));
}

/// Coordinates near ±3.4e38 are finite but their extent is not: a sheet of such a model is
/// refused with one line, never written with NaN pivots (`"pivot": {"y": null}`).
#[test]
fn a_model_too_large_to_frame_is_refused_not_written_with_nan_pivots() {
    let dir = scratch("huge-coordinates");
    let model = dir.join("huge.obj");
    std::fs::write(&model, "v -3.4e38 -3.4e38 0\nv 3.4e38 -3.4e38 0\nv 0 3.4e38 3.4e38\nf 1 2 3\n").unwrap();
    for format in ["texturepacker", "godot", "aseprite"] {
        let o = run(&["sheet", p(&model), "--size", "32", "--json-format", format, "-o", p(&dir.join("s.png"))]);
        common::cli::assert_refused(&o, &["too large to frame"]);
    }
    assert_eq!(names_in(&dir), ["huge.obj"]);
    std::fs::remove_dir_all(dir).unwrap();
}
