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
    // The operating system's reason once, not repeated as the error's source.
    let os_reason = std::fs::read("no/such/model.obj").unwrap_err().to_string();
    assert_eq!(err.matches(&os_reason).count(), 1, "{err}");
}

#[test]
fn thumbnail_failures_name_the_file_once() {
    let dir = scratch("thumb_fail");
    let bad = dir.join("broken.obj");
    std::fs::write(&bad, "v 0 0 0\nf 1 2 3\n").unwrap();
    let o = spritebake(&["thumbnail", bad.to_str().unwrap(), &example(), "-o", dir.to_str().unwrap()]);
    let out = String::from_utf8_lossy(&o.stdout);
    let fail = out.lines().find(|l| l.starts_with("FAIL")).unwrap_or_else(|| panic!("no FAIL line in {out}"));
    assert_eq!(fail.matches("broken.obj").count(), 1, "{fail}");
    assert!(fail.contains("line 2"), "{fail}");
}

#[test]
fn unwritable_output_is_an_error_and_leaves_nothing() {
    // A missing folder is created (the one rule for every command); a file where a folder
    // should be cannot be, and is refused before rendering.
    let dir = scratch("unwritable");
    std::fs::write(dir.join("not-a-folder"), b"x").unwrap();
    let out = dir.join("not-a-folder").join("t.png");
    let o = spritebake(&["render", &example(), "--size", "16", "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("not-a-folder exists and is not a folder"), "{}", stderr(&o));
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
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
fn a_reader_that_stops_early_is_not_a_crash() {
    // `spritebake info model | head -1`: the pipe closes before info writes (loading comes first).
    let mut child = Command::new(env!("CARGO_BIN_EXE_spritebake"))
        .args(["info", &example()])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run spritebake");
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stderr(&o), "");
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
        "--root-motion",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    // The export is in OBJ's axes (Y up, the renderer's world frame): load it back and compare
    // with posing directly.
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
    let a = spritebake::model::Aabb::from_points(spritebake::internal::bake::world_points(&model, &posed));
    let b = exported.rest_bounds();
    assert!((a.min - b.min).length() < 1e-3 && (a.max - b.max).length() < 1e-3, "{a:?} vs {b:?}");
    assert!(b.size().y > b.size().z, "{b:?}");
    assert!(matches!(exported.materials[0].texture_status, spritebake::model::TextureStatus::Found(_)));
    // --keep-axes keeps the file's own (Z up).
    let o = spritebake(&["export", mesh.to_str().unwrap(), "--keep-axes", "-o", out.to_str().unwrap()]);
    assert!(o.status.success());
    let b = spritebake::formats::load(&out, &Default::default()).unwrap().rest_bounds();
    assert!(b.size().z > b.size().y * 2.0, "{b:?}");
    // The flag it replaces is gone.
    let o = spritebake(&["export", mesh.to_str().unwrap(), "--y-up", "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    std::fs::remove_dir_all(dir).unwrap();
}

fn asset(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/assets").join(name).display().to_string()
}

/// Every command that poses a model, on the robot, writing into `dir`; `anim` flags appended.
fn posing_commands(dir: &Path, anim: &[&str]) -> Vec<(&'static str, Vec<String>)> {
    let (mesh, walk) = (asset("robot/robot.md5mesh"), asset("robot/walk.md5anim"));
    let out = |name: &str| dir.join(name).display().to_string();
    let model = |command: &str| vec![command.to_string(), mesh.clone(), "--anim".into(), walk.clone()];
    let sprite = ["--size", "24", "--frames", "2"].map(String::from);
    let mut commands = vec![
        ("render", [model("render"), vec!["--size".into(), "24".into(), "-o".into(), out("r.png")]].concat()),
        ("export", [model("export"), vec!["-o".into(), out("e.obj")]].concat()),
        ("frames", [model("frames"), sprite.to_vec(), vec!["-o".into(), out("f_{clip}_{frame}.png")]].concat()),
        ("gif", [model("gif"), sprite.to_vec(), vec!["-o".into(), out("g.gif")]].concat()),
        ("sheet", [model("sheet"), sprite.to_vec(), vec!["-o".into(), out("s.png")]].concat()),
        // thumbnail takes no animation files: the blend and transition clips come as files.
        ("thumbnail", vec!["thumbnail".into(), mesh.clone(), "--size".into(), "24".into(), "-o".into(), out("t.png")]),
    ];
    for (name, args) in &mut commands {
        let thumbnail = *name == "thumbnail";
        args.extend(
            anim.iter().map(|a| if thumbnail { a.replace("walk:", &format!("{walk}:")) } else { a.to_string() }),
        );
    }
    commands
}

fn run(args: &[String]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_spritebake")).args(args).output().expect("run spritebake")
}

#[test]
fn animation_flags_reach_every_posing_command() {
    let dir = scratch("anim-flags");
    let sword = format!("{}@forearm_R", asset("sword.obj"));
    let flags = [
        "--attach",
        &sword,
        "--attach-offset",
        "t=0,0,-11;r=0,90,0",
        "--bone",
        "head:yaw=45,pitch=-10",
        "--blend",
        "walk:0.5",
    ];
    for (name, args) in posing_commands(&dir, &flags) {
        let o = run(&args);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
    }
    let outputs = ["r.png", "e.obj", "f_walk_0.png", "f_walk_1.png", "g.gif", "s.png", "t.png"];
    for file in outputs {
        assert!(dir.join(file).is_file(), "{file}");
    }
    // The export holds the body and the sword's three materials.
    let exported = spritebake::formats::load(&dir.join("e.obj"), &Default::default()).unwrap();
    assert_eq!(exported.materials.len(), 4, "{:?}", exported.materials);
    // A typo in a joint or clip name is an error naming the closest names, in every command.
    for (bad, hint) in [("--bone", "did you mean 'head'?"), ("--blend", "did you mean 'walk'?")] {
        let value = if bad == "--bone" { "haed:yaw=10" } else { "wlak:0.5" };
        for (name, args) in posing_commands(&dir, &[bad, value]) {
            if name == "thumbnail" && bad == "--blend" {
                continue; // a thumbnail's blend clip is a file: no clip names to suggest
            }
            let o = run(&args);
            let all = format!("{}{}", String::from_utf8_lossy(&o.stdout), stderr(&o));
            assert!(!o.status.success() && all.contains(hint), "{name} {bad} {value}: {all}");
        }
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn transitions_render_as_one_more_row() {
    let dir = scratch("transition");
    let flags = ["--transition", "walk->walk:0.25"];
    for (name, args) in
        posing_commands(&dir, &flags).into_iter().filter(|(n, _)| ["sheet", "frames", "gif"].contains(n))
    {
        let o = run(&args);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
    }
    // frames: the transition row's files say A-to-B (no '>' in file names).
    assert!(dir.join("f_walk-to-walk_0.png").is_file());
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(dir.join("s.json")).unwrap()).unwrap();
    let rows = json["animations"].as_object().unwrap();
    assert!(rows.contains_key("walk_S") && rows.contains_key("walk->walk_S"), "{rows:?}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn bad_animation_flags_name_the_option_and_the_form() {
    let mesh = asset("robot/robot.md5mesh");
    for (flag, value, expected) in [
        ("--attach", "sword.obj@", "FILE@NAME"),
        ("--attach-offset", "t=1,2", "t takes three numbers"),
        ("--attach-offset", "x=1", "unknown key 'x'"),
        ("--bone", "head", "JOINT:yaw=30,pitch=-10,roll=0"),
        ("--bone", "head:tilt=4", "unknown angle 'tilt'"),
        ("--blend", "walk:2", "CLIP:WEIGHT"),
        ("--transition", "walk-run:1", "FROM->TO:SECONDS"),
    ] {
        let o = spritebake(&["render", &mesh, flag, value, "-o", "x.png"]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{flag} {value}: {err}");
        assert!(err.contains(flag) && err.contains(expected), "{flag} {value}: {err}");
    }
    // More offsets than attachments, and joints on a model without a skeleton.
    let o = spritebake(&["render", &mesh, "--attach-offset", "t=0,0,1", "-o", "x.png"]);
    assert!(stderr(&o).contains("--attach-offset (1 offsets): one per --attach (0 given)"), "{}", stderr(&o));
    let o = spritebake(&["render", &asset("robot/robot.md2"), "--bone", "head:yaw=1", "-o", "x.png"]);
    assert!(stderr(&o).contains("has no skeleton"), "{}", stderr(&o));
}

#[test]
fn info_lists_joint_names_as_they_are_typed() {
    let o = spritebake(&["info", &asset("robot/robot.md5mesh")]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("joints: 11") && out.contains("  2 head (parent: spine)"), "{out}");
}

/// Every subcommand a user can type: completions and man pages must know each of them.
const SUBCOMMANDS: [&str; 13] = [
    "render",
    "info",
    "sheet",
    "gif",
    "frames",
    "thumbnail",
    "compare",
    "bake",
    "check",
    "export",
    "bench",
    "completions",
    "man",
];

#[test]
fn bash_completions_complete_subcommands_and_their_flags() {
    let o = spritebake(&["completions", "bash"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let script = String::from_utf8(o.stdout).unwrap();
    for name in SUBCOMMANDS {
        assert!(script.contains(&format!("spritebake,{name})")), "no case for {name}");
    }
    // The script as bash runs it: loaded, then asked what `spritebake th<TAB>` and
    // `spritebake thumbnail --max-m<TAB>` complete to.
    let dir = scratch("completions");
    let file = dir.join("spritebake.bash");
    std::fs::write(&file, &script).unwrap();
    let complete = |words: &str| -> String {
        let probe = format!(
            "source '{}'; COMP_WORDS=({words}); COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1)); \
             _spritebake spritebake \"${{COMP_WORDS[COMP_CWORD]}}\" \"${{COMP_WORDS[COMP_CWORD-1]}}\"; \
             echo \"${{COMPREPLY[*]}}\"",
            file.display()
        );
        let o = Command::new("bash").args(["--norc", "-c", &probe]).output().expect("run bash");
        assert!(o.status.success(), "{}", stderr(&o));
        String::from_utf8(o.stdout).unwrap().trim().to_string()
    };
    assert_eq!(complete("spritebake th"), "thumbnail");
    assert_eq!(complete("spritebake thumbnail --max-m"), "--max-memory-mib");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn an_unknown_shell_is_a_usage_error() {
    let o = spritebake(&["completions", "tcsh"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("invalid value 'tcsh'") && err.contains("bash, elvish, fish, powershell, zsh"), "{err}");
    assert!(o.stdout.is_empty());
}

#[test]
fn the_man_page_is_roff_and_refers_to_every_subcommand() {
    let o = spritebake(&["man"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let page = String::from_utf8(o.stdout).unwrap();
    assert!(page.starts_with('.'), "not roff:\n{page}");
    assert!(page.lines().any(|l| l.starts_with(".TH spritebake 1 ")), "{page}");
    for name in SUBCOMMANDS {
        assert!(page.contains(&format!("spritebake\\-{name}(1)")), "{name} missing from\n{page}");
    }
    assert!(!page.contains("spritebake\\-help(1)"), "clap's help subcommand has no page");
}

#[test]
fn man_writes_one_page_per_subcommand_into_a_folder() {
    let dir = scratch("man");
    let out = dir.join("share/man/man1");
    let o = spritebake(&["man", "-o", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(o.stdout.is_empty());
    let mut expected: Vec<String> = SUBCOMMANDS.iter().map(|n| format!("spritebake-{n}.1")).collect();
    expected.push("spritebake.1".into());
    expected.sort();
    let mut written: Vec<String> =
        std::fs::read_dir(&out).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    written.sort();
    assert_eq!(written, expected);
    let thumbnail = std::fs::read_to_string(out.join("spritebake-thumbnail.1")).unwrap();
    assert!(thumbnail.contains(".TH spritebake-thumbnail 1  \"spritebake "), "{thumbnail}");
    // The page shows the thumbnail's own defaults, as its --help does.
    assert!(thumbnail.contains("\\fB\\-\\-yaw\\fR \\fI<YAW>\\fR [default: 35]"), "{thumbnail}");
    assert!(thumbnail.contains("\\-\\-max\\-memory\\-mib"), "{thumbnail}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn man_refuses_a_file_where_its_folder_should_be() {
    let dir = scratch("man_file");
    let file = dir.join("man1");
    std::fs::write(&file, b"x").unwrap();
    let o = spritebake(&["man", "-o", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("man1: exists and is not a folder"), "{}", stderr(&o));
    assert_eq!(std::fs::read(&file).unwrap(), b"x");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_skeleton_overlay_of_a_model_without_joints_is_refused() {
    let dir = scratch("no-joints");
    let out = dir.join("r.png");
    let md2 = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/assets/robot/robot.md2");
    let o = spritebake(&["render", md2.to_str().unwrap(), "--skeleton", "-o", out.to_str().unwrap()]);
    crate::common::cli::assert_refused(&o, &["--skeleton", "robot.md2 has none", "MD2"]);
    assert!(!out.exists());
    // A skeletal model draws it.
    let md5 = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/assets/robot/robot.md5mesh");
    let o = spritebake(&["render", md5.to_str().unwrap(), "--skeleton", "--size", "32", "-o", out.to_str().unwrap()]);
    assert!(o.status.success() && out.exists(), "{}", stderr(&o));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn every_model_extension_is_named_where_a_user_looks_for_it() {
    let dir = scratch("extensions");
    let unknown = dir.join("model.xyz");
    std::fs::write(&unknown, "v 0 0 0\n").unwrap();
    let refused = stderr(&spritebake(&["info", unknown.to_str().unwrap()]));
    let render_help = String::from_utf8(spritebake(&["render", "--help"]).stdout).unwrap();
    let thumbnail_help = String::from_utf8(spritebake(&["thumbnail", "--help"]).stdout).unwrap();
    for (extension, format) in spritebake::internal::formats::Format::EXTENSIONS {
        let name = match format {
            spritebake::internal::formats::Format::Md3Player => String::from("animation.cfg"),
            _ => format!(".{extension} "),
        };
        // A trailing space or bracket: `.md5mesh` must not pass for `.md5`.
        let named = |text: &str| {
            text.contains(name.trim_end()) && (text.contains(&name) || text.contains(&format!("{})", name.trim_end())))
        };
        assert!(named(&refused), "the refusal lacks {name}: {refused}");
        assert!(named(&render_help), "render --help lacks {name}");
        assert!(named(&thumbnail_help), "thumbnail --help lacks {name}");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn off_a_terminal_a_long_job_prints_a_line_at_every_tenth() {
    let dir = scratch("progress");
    let (mesh, anim) = (crate::common::robot("robot.md5mesh"), crate::common::robot("walk.md5anim"));
    let out = dir.join("w.png");
    let sheet = |frames: &str, quiet: bool| {
        let mut args = vec!["sheet", &mesh, "--anim", &anim, "--directions", "16", "--frames", frames, "--size", "24"];
        args.extend(["--ssaa", "1", "-o", out.to_str().unwrap()]);
        if quiet {
            args.push("--quiet");
        }
        let o = spritebake(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        stderr(&o)
    };
    // 192 frames, stderr a pipe as in a CI log.
    let said = sheet("12", false);
    let prefix = format!("sheet {}: ", out.display());
    let counts: Vec<u64> = said
        .lines()
        .filter_map(|l| l.strip_prefix(&prefix))
        .map(|rest| rest.split('/').next().unwrap().parse().unwrap())
        .collect();
    assert!(counts.len() >= 9 && counts.windows(2).all(|w| w[0] < w[1]), "{said}");
    assert!(said.lines().all(|l| !l.contains("/192 frames") || l.ends_with(" s")), "{said}");
    // The summary line still ends the run.
    assert!(said.trim_end().lines().last().is_some_and(|l| l.contains(": 192 frames")), "{said}");
    // Quiet, or too short to need it: no lines.
    assert!(!sheet("12", true).contains("frames,"), "--quiet");
    assert!(!sheet("4", false).contains("/64 frames"), "a job of 64 frames");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn messages_say_what_to_do_instead() {
    let dir = scratch("messages");
    let (mesh, anim) = (crate::common::robot("robot.md5mesh"), crate::common::robot("walk.md5anim"));
    let at = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let refused = |args: &[&str], words: &[&str]| {
        let o = spritebake(args);
        let said = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {said}");
        assert_eq!(said.trim_end().lines().count(), 1, "{args:?}: {said}");
        for w in words {
            assert!(said.contains(w), "{args:?}: '{w}' not in {said}");
        }
        assert!(!said.contains("same file"), "{said}");
    };
    // -o naming the data file instead of the sheet image.
    refused(
        &["sheet", &mesh, "--anim", &anim, "-o", &at("walk.json")],
        &["names the sheet image (.png)", "written beside it"],
    );
    refused(
        &["sheet", &mesh, "--anim", &anim, "--json-format", "godot", "-o", &at("w.tres")],
        &["names the sheet image (.png)"],
    );
    // A frames pattern that would write every direction to one file.
    let pattern = at("f_{frame}.png");
    refused(
        &["frames", &mesh, "--anim", &anim, "--directions", "4", "-o", &pattern],
        &["needs {dir} or {dirname}", "4 direction"],
    );
    // Maps asked of a GIF: said in flag words, and its help does not offer them.
    refused(
        &["gif", &mesh, "--maps", "normal", "-o", &at("w.gif")],
        &["--maps normal:", "a GIF has no maps", "sheet, frames"],
    );
    let help = String::from_utf8(spritebake(&["gif", "--help"]).stdout).unwrap();
    assert!(!help.contains("--maps") && !help.contains("--normal-y"), "{help}");
    assert!(String::from_utf8(spritebake(&["sheet", "--help"]).stdout).unwrap().contains("--maps"));
    // `--anim all` on a model whose clips are frame sequences: its clips, by name.
    let o = spritebake(&["sheet", &mesh, "--anim", &anim, "--clip", "all", "-o", &at("a.png")]);
    let said = stderr(&o);
    assert!(said.contains("play one at a time: walk") && !said.contains("glTF animations"), "{said}");
    std::fs::remove_dir_all(dir).unwrap();
}
