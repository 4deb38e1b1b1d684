//! Issue 16, outputs: model data cannot steer where files land, no output lands on an input or
//! on another output, and an interrupted or refused command leaves no partial output.
//!
//! Every case asserts the outcome a user sees: the exit status, the one `error:` line and its
//! key words, the bytes of the inputs, and the exact files in the output folder afterwards.
//! (Unix only: the cases need symlinks, FIFOs, devices and signals.)

#![cfg(unix)]

use crate::common;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use glam::{Vec2, Vec3};
use spritebake::internal::formats::md2;

use crate::common::cli::printed;

fn spritebake() -> Command {
    Command::new(env!("CARGO_BIN_EXE_spritebake"))
}

fn run(args: &[&str]) -> Output {
    spritebake().args(args).output().unwrap()
}

fn scratch(name: &str) -> PathBuf {
    common::cli::scratch_in("hostile-outputs", name)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Every file and folder under `dir`, as sorted relative paths.
fn listing(dir: &Path) -> Vec<String> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for e in entries.flatten() {
            let path = e.path();
            out.push(path.strip_prefix(root).unwrap().display().to_string());
            if e.file_type().unwrap().is_dir() {
                walk(root, &path, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// A refused command: exit 2 and one `error: ` line, the last on stderr (loader warnings may
/// come before it), with every word given.
fn assert_refused(o: &Output, words: &[&str]) {
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{}", printed(o));
    let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error")).collect();
    assert_eq!(errors.len(), 1, "one error line: {stderr}");
    assert_eq!(stderr.trim_end().lines().last(), Some(errors[0]), "{stderr}");
    assert!(errors[0].starts_with("error: "), "{stderr}");
    for w in words {
        assert!(errors[0].contains(w), "'{w}' missing from: {stderr}");
    }
}

fn asset(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/assets").join(name)
}

/// A textured quad: `m.obj` with material library `lib` naming texture `texture`.
fn quad(dir: &Path, lib: &str, texture: &str) -> PathBuf {
    let obj = format!(
        "mtllib {lib}\nv -1 -1 0\nv 1 -1 0\nv 1 1 0\nv -1 1 0\nvt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\nusemtl skin\nf 1/1 2/2 3/3 4/4\n"
    );
    std::fs::write(dir.join("m.obj"), obj).unwrap();
    std::fs::write(dir.join(lib), format!("newmtl skin\nmap_Kd {texture}\n")).unwrap();
    dir.join("m.obj")
}

fn green_png(path: &Path) {
    let img = spritebake::raster::Image { width: 2, height: 2, rgba: [0, 255, 0, 255].repeat(4) };
    spritebake::output::write_png(path, &img).unwrap();
}

/// An MD2 triangle whose frames name one clip `clip` (frames `clip1`, `clip2`).
fn md2_with_clip(path: &Path, clip: &str) {
    let positions = vec![Vec3::new(-1.0, 0.0, 0.0), Vec3::new(1.0, 0.0, 0.0), Vec3::new(0.0, 0.0, 2.0)];
    let normals = vec![Vec3::NEG_Y; 3];
    let frames: Vec<_> = (1..=2).map(|i| (format!("{clip}{i}"), positions.clone(), normals.clone())).collect();
    let uvs = [Vec2::ZERO, Vec2::X, Vec2::Y];
    let bytes = md2::write(&md2::Md2Source {
        skin: "skin.png",
        skin_size: (8, 8),
        uvs: &uvs,
        indices: &[[0, 1, 2]],
        frames: &frames,
    });
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn model_data_cannot_steer_output_paths() {
    let root = scratch("steer");
    let out = root.join("a/b/out");
    std::fs::create_dir_all(&out).unwrap();
    // A clip named `../../escape` under `out/{clip}_...` would land in root/a.
    let climbing = root.join("climbing.md2");
    md2_with_clip(&climbing, "../../escape");
    let o = run(&["frames", s(&climbing), "--size", "8", "-q", "-o", &format!("{}/{{clip}}_{{frame}}.png", s(&out))]);
    assert!(o.status.success(), "{}", printed(&o));
    assert_eq!(listing(&out), ["___.._escape_0.png", "___.._escape_1.png", "frames.json"]);
    let files = ["b", "b/out", "b/out/___.._escape_0.png", "b/out/___.._escape_1.png", "b/out/frames.json"];
    assert_eq!(listing(&root.join("a")), files);
    // A clip named `/tmp/abs` at the start of a pattern would be an absolute path.
    let absolute = root.join("absolute.md2");
    md2_with_clip(&absolute, "/tmp/sb-abs");
    let here = root.join("here");
    std::fs::create_dir_all(&here).unwrap();
    let o = spritebake()
        .current_dir(&here)
        .args(["frames", s(&absolute), "--size", "8", "-q", "-o", "{clip}_{frame:02}.png"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", printed(&o));
    assert_eq!(listing(&here), ["_tmp_sb-abs_00.png", "_tmp_sb-abs_01.png", "frames.json"]);
    assert!(!Path::new("/tmp/sb-abs_00.png").exists());
    // A pad width that would need gigabytes is a clear error before anything is loaded.
    let o = run(&["frames", s(&climbing), "-o", &format!("{}/{{frame:999999999}}.png", s(&out))]);
    assert_refused(&o, &["{frame:999999999}", "width must be 0 to 9"]);
    assert_eq!(listing(&out), ["___.._escape_0.png", "___.._escape_1.png", "frames.json"]);
    std::fs::remove_dir_all(root).unwrap();
}

#[test]
fn outputs_never_land_on_inputs() {
    let dir = scratch("inputs");
    green_png(&dir.join("skin.png"));
    let model = quad(&dir, "lib.mtl", "skin.png");
    // A second model whose texture exists but does not decode.
    std::fs::create_dir_all(dir.join("b")).unwrap();
    std::fs::write(dir.join("b/broken.png"), b"not an image at all").unwrap();
    let broken = quad(&dir.join("b"), "lib.mtl", "broken.png");
    let before = listing(&dir);
    let bytes = |name: &str| std::fs::read(dir.join(name)).unwrap();
    let originals: Vec<(String, Vec<u8>)> =
        before.iter().filter(|n| dir.join(n).is_file()).map(|n| (n.clone(), bytes(n))).collect();
    let unchanged = |case: &str| {
        assert_eq!(listing(&dir), before, "{case}: files added or removed");
        for (name, original) in &originals {
            assert_eq!(&bytes(name), original, "{case}: {name} changed");
        }
    };
    let refused_input = |args: &[&str], case: &str| {
        assert_refused(&run(args), &["refusing to overwrite an input file"]);
        unchanged(case);
    };
    // The model's material library: `export -o lib.obj` also writes lib.mtl.
    refused_input(&["export", s(&model), "-o", s(&dir.join("lib.obj"))], "export onto the .mtl");
    // A texture the model uses, via bench -o and via a hard link and a symlink to it.
    refused_input(&["bench", s(&model), "--frames", "1", "--size", "8", "-o", s(&dir.join("skin.png"))], "bench");
    std::fs::hard_link(dir.join("skin.png"), dir.join("hard.png")).unwrap();
    std::os::unix::fs::symlink(dir.join("skin.png"), dir.join("soft.png")).unwrap();
    let before_links = listing(&dir);
    for link in ["hard.png", "soft.png"] {
        assert_refused(
            &run(&["render", s(&model), "--size", "8", "-o", s(&dir.join(link))]),
            &["refusing to overwrite an input file", "skin.png"],
        );
        assert_eq!(listing(&dir), before_links);
        assert_eq!(bytes("skin.png"), originals.iter().find(|(n, _)| n == "skin.png").unwrap().1);
    }
    std::fs::remove_file(dir.join("hard.png")).unwrap();
    std::fs::remove_file(dir.join("soft.png")).unwrap();
    // A texture that failed to decode is still an input.
    refused_input(&["render", s(&broken), "--size", "8", "-o", s(&dir.join("b/broken.png"))], "undecodable texture");
    // An attachment.
    let prop = dir.join("prop.obj");
    std::fs::copy(&model, &prop).unwrap();
    let with_prop = listing(&dir);
    assert_refused(
        &run(&["export", s(&model), "--attach", s(&prop), "-o", s(&prop)]),
        &["refusing to overwrite an input file", "prop.obj"],
    );
    assert_eq!(listing(&dir), with_prop);
    assert_eq!(std::fs::read(&prop).unwrap(), std::fs::read(&model).unwrap());
    std::fs::remove_file(&prop).unwrap();
    // compare --diff onto one of the images compared.
    refused_input(
        &["compare", s(&dir.join("skin.png")), s(&dir.join("skin.png")), "--diff", s(&dir.join("skin.png"))],
        "compare",
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn animation_and_buffer_files_are_inputs_too() {
    let dir = scratch("anims");
    for name in ["robot.md5mesh", "walk.md5anim"] {
        std::fs::copy(asset("robot").join(name), dir.join(name)).unwrap();
    }
    let (mesh, anim) = (dir.join("robot.md5mesh"), dir.join("walk.md5anim"));
    let walk = std::fs::read(&anim).unwrap();
    // walk.png is the animation file under another name (a hard link): --blend and
    // --transition read it, so no output may replace it.
    std::fs::hard_link(&anim, dir.join("walk.png")).unwrap();
    let blend = format!("{}:0.5", s(&anim));
    let transition = format!("{}->{}:0.2", s(&anim), s(&anim));
    for flags in [["--blend", blend.as_str()], ["--transition", transition.as_str()]] {
        let o = run(&["render", s(&mesh), flags[0], flags[1], "--size", "8", "-o", s(&dir.join("walk.png"))]);
        assert_refused(&o, &["refusing to overwrite an input file", "walk.md5anim"]);
    }
    assert_eq!(std::fs::read(&anim).unwrap(), walk);
    assert_eq!(listing(&dir), ["robot.md5mesh", "walk.md5anim", "walk.png"]);
    // A glTF whose buffer is the file `-o` names.
    let positions: Vec<u8> =
        [0.0f32, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0].iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(dir.join("buffer.png"), &positions).unwrap();
    let gltf = r#"{"asset":{"version":"2.0"},"buffers":[{"byteLength":36,"uri":"buffer.png"}],
        "bufferViews":[{"buffer":0,"byteLength":36}],
        "accessors":[{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[1,1,0]}],
        "meshes":[{"primitives":[{"attributes":{"POSITION":0}}]}],"nodes":[{"mesh":0}],"scenes":[{"nodes":[0]}],"scene":0}"#;
    std::fs::write(dir.join("tri.gltf"), gltf).unwrap();
    let o = run(&["render", s(&dir.join("tri.gltf")), "--size", "8", "-o", s(&dir.join("buffer.png"))]);
    assert_refused(&o, &["refusing to overwrite an input file", "buffer.png"]);
    assert_eq!(std::fs::read(dir.join("buffer.png")).unwrap(), positions);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn thumbnail_into_the_model_folder_keeps_the_skin() {
    // robot.md2's skin is robot.png beside it: the thumbnail robot.png would replace it.
    let dir = scratch("thumb-skin");
    for name in ["robot.md2", "robot.png"] {
        std::fs::copy(asset("robot").join(name), dir.join(name)).unwrap();
    }
    let skin = std::fs::read(dir.join("robot.png")).unwrap();
    let o = run(&["thumbnail", s(&dir.join("robot.md2")), "--size", "16", "-o", s(&dir)]);
    let out = printed(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    let fail = out.lines().find(|l| l.starts_with("FAIL")).unwrap_or_else(|| panic!("no FAIL line: {out}"));
    assert!(fail.contains("refusing to overwrite an input file") && fail.contains("robot.png"), "{fail}");
    assert!(out.contains("0 thumbnails, 1 failed"), "{out}");
    assert_eq!(std::fs::read(dir.join("robot.png")).unwrap(), skin);
    assert_eq!(listing(&dir), ["robot.md2", "robot.png"]);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn check_reports_never_land_on_inputs() {
    let dir = scratch("check");
    let model = quad(&dir, "lib.mtl", "skin.png");
    green_png(&dir.join("skin.png"));
    green_png(&dir.join("c.actual.png")); // the golden of case `c`
    let manifest = dir.join("golden.toml");
    std::fs::write(&manifest, "[[case]]\nname = \"c\"\nmodel = \"m.obj\"\ngolden = \"c.actual.png\"\nsize = \"8x8\"\n")
        .unwrap();
    std::os::unix::fs::symlink(&manifest, dir.join("report.xml")).unwrap();
    let before = listing(&dir);
    let originals: Vec<Vec<u8>> = before.iter().map(|n| std::fs::read(dir.join(n)).unwrap()).collect();
    for (flags, words) in [
        // --junit through a symlink to the manifest.
        (vec!["--junit", s(&dir.join("report.xml"))], vec!["refusing to overwrite an input file", "golden.toml"]),
        // --out writes `c.actual.png`, which is this case's golden.
        (vec!["--out", s(&dir)], vec!["refusing to overwrite an input file", "c.actual.png"]),
        // --html into a folder that is a file.
        (vec!["--html", s(&model)], vec!["m.obj exists and is not a folder"]),
    ] {
        let mut args = vec!["check", s(&manifest)];
        args.extend(flags);
        assert_refused(&run(&args), &words);
        assert_eq!(listing(&dir), before);
        for (name, original) in before.iter().zip(&originals) {
            assert_eq!(&std::fs::read(dir.join(name)).unwrap(), original, "{name}");
        }
    }
    // --bless onto the model's own texture: known only once the case has loaded its model, so
    // that case fails alone (exit 1, an ERROR line) and the texture keeps its bytes.
    std::fs::write(&manifest, "[[case]]\nname = \"c\"\nmodel = \"m.obj\"\ngolden = \"skin.png\"\nsize = \"8x8\"\n")
        .unwrap();
    let skin = std::fs::read(dir.join("skin.png")).unwrap();
    let o = run(&["check", s(&manifest), "--bless"]);
    assert_eq!(o.status.code(), Some(1), "{}", printed(&o));
    let stdout = String::from_utf8_lossy(&o.stdout);
    let line = stdout.lines().find(|l| l.starts_with("ERROR c: ")).unwrap_or_else(|| panic!("{stdout}"));
    assert!(line.contains("skin.png: refusing to overwrite an input file"), "{line}");
    assert_eq!(std::fs::read(dir.join("skin.png")).unwrap(), skin);
    assert_eq!(listing(&dir), before);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn check_html_copies_only_goldens_it_read() {
    // A manifest naming any file as a golden must not get it copied into the report.
    let dir = scratch("html");
    quad(&dir, "lib.mtl", "none.png");
    std::fs::write(dir.join("secret.txt"), b"not for the report").unwrap();
    let manifest = dir.join("golden.toml");
    std::fs::write(&manifest, "[[case]]\nname = \"c\"\nmodel = \"m.obj\"\ngolden = \"secret.txt\"\nsize = \"8x8\"\n")
        .unwrap();
    let report = dir.join("report");
    let o = run(&["check", s(&manifest), "--html", s(&report)]);
    assert_eq!(o.status.code(), Some(1), "{}", printed(&o));
    assert!(printed(&o).contains("ERROR c: "), "{}", printed(&o));
    assert_eq!(listing(&report), ["index.html"]);
    assert!(!std::fs::read_to_string(report.join("index.html")).unwrap().contains("not for the report"));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn special_files_are_never_replaced_and_temporary_names_cannot_be_planted() {
    let dir = scratch("special");
    let model = quad(&dir, "lib.mtl", "none.png");
    // A FIFO: refused before anything opens it (opening would block), and still a FIFO after.
    let fifo = dir.join("pipe.png");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    assert_refused(&run(&["render", s(&model), "--size", "8", "-o", s(&fifo)]), &["pipe.png", "is a FIFO"]);
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
    // A device.
    assert_refused(&run(&["render", s(&model), "--size", "8", "-o", "/dev/null"]), &["/dev/null", "is a device"]);
    // The old temporary name was `.NAME.PID.N.tmp`, opened following symlinks: plant links at
    // it for the running process and check the victim survives the write.
    let victim = dir.join("victim.txt");
    std::fs::write(&victim, b"precious").unwrap();
    let out = dir.join("out.png");
    let mut child = spritebake()
        .args(["render", s(&asset("robot/robot.md5mesh")), "--size", "192", "--ssaa", "4", "-o", s(&out)])
        .spawn()
        .unwrap();
    for n in 0..4 {
        let _ = std::os::unix::fs::symlink(&victim, dir.join(format!(".out.png.{}.{n}.tmp", child.id())));
    }
    assert!(child.wait().unwrap().success());
    assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
    assert!(spritebake::output::read_png(&out).is_ok());
    let stray: Vec<String> =
        listing(&dir).into_iter().filter(|n| n.starts_with(".spritebake-") || n.ends_with(".png.tmp")).collect();
    assert!(stray.is_empty(), "{stray:?}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn outputs_never_collide() {
    let dir = scratch("collide");
    let (mesh, anim) = (asset("robot/robot.md5mesh"), asset("robot/walk.md5anim"));
    let out = dir.join("out");
    // The sheet's PNG given a .json name: the JSON would be written over it.
    let o = run(&["sheet", s(&mesh), "--anim", s(&anim), "--size", "8", "-o", s(&out.join("walk.json"))]);
    assert_refused(&o, &["walk.json", "names the sheet image (.png)"]);
    // A frames pattern without {dir} for 8 directions: 8 frames per file name.
    let pattern = format!("{}/{{clip}}_{{frame:03}}.png", s(&out));
    let o = run(&["frames", s(&mesh), "--anim", s(&anim), "--directions", "8", "--size", "8", "-o", &pattern]);
    assert_refused(&o, &["the pattern needs {dir} or {dirname}", "8 direction"]);
    // (Two thumbnails never share a name: `thumbnail` tells them apart, tests/thumbnail.rs.)
    // A PNG written into a .jpg.
    let o = run(&["render", s(&mesh), "--size", "8", "-o", s(&out.join("x.jpg"))]);
    assert_refused(&o, &["x.jpg", "must end in .png"]);
    // Nothing was written, not even the output folder.
    assert_eq!(listing(&dir), Vec::<String>::new());
    // export is all or nothing: a folder where its texture copy goes stops the OBJ and MTL too.
    let textured = dir.join("textured");
    std::fs::create_dir_all(&textured).unwrap();
    green_png(&textured.join("skin.png"));
    let model = quad(&textured, "m.mtl", "skin.png");
    std::fs::create_dir_all(out.join("skin.png")).unwrap();
    let o = run(&["export", s(&model), "-o", s(&out.join("posed.obj"))]);
    assert_refused(&o, &["skin.png", "is a folder"]);
    assert_eq!(listing(&out), ["skin.png"]);
    std::fs::remove_dir_all(out.join("skin.png")).unwrap();
    // And when nothing clashes, missing folders are created, for every command alike.
    let o = run(&[
        "frames",
        s(&mesh),
        "--anim",
        s(&anim),
        "--directions",
        "2",
        "--frames",
        "2",
        "--size",
        "8",
        "-q",
        "-o",
        &format!("{}/f/{{dir}}/{{frame}}.png", s(&out)),
    ]);
    assert!(o.status.success(), "{}", printed(&o));
    let files = ["f", "f/0", "f/0/0.png", "f/0/1.png", "f/1", "f/1/0.png", "f/1/1.png", "f/frames.json"];
    assert_eq!(listing(&out), files);
    std::fs::remove_dir_all(dir).unwrap();
}

/// When a signal is sent to a running `sheet`.
#[derive(Debug, Clone, Copy)]
enum Moment {
    /// This many seconds after the start (mostly lands while frames render).
    After(f64),
    /// As soon as the output folder appears, i.e. while the sheet's files are being written
    /// (the window where a PNG without its JSON, or a temporary file, could be left).
    Writing,
}

#[test]
fn signals_never_leave_partial_output() {
    use Moment::{After, Writing};
    let (mesh, anim) = (asset("robot/robot.md5mesh"), asset("robot/walk.md5anim"));
    let mut interrupted = 0;
    // (signal, when, output folder below the scratch folder: "" or one that does not exist yet,
    // which the interrupted command must remove again)
    let runs = [
        ("TERM", After(0.05), ""),
        ("TERM", After(0.3), ""),
        ("TERM", After(1.0), ""),
        ("TERM", Writing, ""),
        ("TERM", Writing, "sheets"),
        ("INT", After(0.5), ""),
        ("INT", Writing, ""),
        ("HUP", After(0.5), ""),
        ("HUP", Writing, "sheets"),
    ];
    for (n, (signal, moment, folder)) in runs.into_iter().enumerate() {
        let dir = scratch(&format!("signal-{n}"));
        let out = dir.join(folder).join("walk.png");
        let mut child = spritebake()
            .args(["sheet", s(&mesh), "--anim", s(&anim), "--directions", "8", "--size", "256", "--ssaa", "4"])
            // One page (4130x4130): a PNG and its JSON, the pair a signal must never split.
            .args(["--max-size", "8192", "-q", "-o", s(&out)])
            .spawn()
            .unwrap();
        match moment {
            After(seconds) => std::thread::sleep(Duration::from_secs_f64(seconds)),
            Writing => {
                let start = std::time::Instant::now();
                while listing(&dir).is_empty() && start.elapsed() < Duration::from_secs(60) {
                    std::thread::sleep(Duration::from_micros(200));
                }
            }
        }
        let _ = Command::new("kill").args([&format!("-{signal}"), &child.id().to_string()]).status();
        let status = child.wait().unwrap();
        let files = listing(&dir);
        let case = format!("SIG{signal} {moment:?} into '{folder}': {status:?}, left {files:?}");
        // Finished before the signal, stopped by the handler (after letting a commit in
        // progress finish), or killed before the handler was installed (nothing written yet).
        assert!(matches!(status.code(), Some(0 | 130) | None), "{case}");
        interrupted += usize::from(status.code() == Some(130));
        let whole: Vec<String> = if folder.is_empty() {
            vec!["walk.json".into(), "walk.png".into()]
        } else {
            vec![folder.into(), format!("{folder}/walk.json"), format!("{folder}/walk.png")]
        };
        assert!(files.is_empty() || files == whole, "{case}");
        if status.success() {
            assert_eq!(files, whole, "{case}");
        }
        std::fs::remove_dir_all(dir).unwrap();
    }
    assert!(interrupted > 0, "no run was stopped by the handler: the sheet was too quick to interrupt");
}

#[test]
fn a_write_past_the_file_size_limit_is_an_error_not_a_kill() {
    let dir = scratch("ulimit");
    let (mesh, anim) = (asset("robot/robot.md5mesh"), asset("robot/walk.md5anim"));
    let out = dir.join("walk.png");
    // 64 blocks (32 or 64 KiB, as the shell counts them); the sheet's PNG is larger. Without
    // SIGXFSZ blocked the write kills the process, leaving its temporary file.
    let command = format!(
        "ulimit -f 64; exec '{}' sheet '{}' --anim '{}' --directions 8 --size 96 --ssaa 1 -o '{}'",
        env!("CARGO_BIN_EXE_spritebake"),
        s(&mesh),
        s(&anim),
        s(&out)
    );
    let o = Command::new("sh").args(["-c", &command]).output().unwrap();
    assert_refused(&o, &["walk.png", "File too large"]);
    assert_eq!(listing(&dir), Vec::<String>::new());
    // Within the limit the same command writes the sheet.
    let small = command.replace("--size 96", "--size 8").replace("--directions 8", "--directions 1");
    let o = Command::new("sh").args(["-c", &small]).output().unwrap();
    assert!(o.status.success(), "{}", printed(&o));
    assert_eq!(listing(&dir), ["walk.json", "walk.png"]);
    std::fs::remove_dir_all(dir).unwrap();
}

/// The HOST part of temporary names (see `src/output/transaction.rs`): this boot and PID
/// namespace.
fn temp_host() -> String {
    let boot = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").unwrap();
    let namespace = std::fs::read_link("/proc/self/ns/pid").unwrap();
    let mut hasher = blake3::Hasher::new();
    hasher.update(boot.trim().as_bytes());
    hasher.update(namespace.as_os_str().as_encoded_bytes());
    let [a, b, c, d, ..] = *hasher.finalize().as_bytes();
    format!("{:08x}", u32::from_be_bytes([a, b, c, d]))
}

/// START of process `pid` (field 22 of /proc/PID/stat).
fn start_time(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    stat.rsplit_once(')').unwrap().1.split_whitespace().nth(19).unwrap().parse().unwrap()
}

#[test]
#[cfg(target_os = "linux")]
fn temporaries_of_killed_processes_are_swept_by_the_next_run() {
    let dir = scratch("sweep");
    let out = dir.join("out");
    // The temporaries a process killed with SIGKILL while staging leaves: planted, named as
    // that process would have named them.
    let mut child = Command::new("sleep").arg("60").spawn().unwrap();
    let dead = child.id();
    let dead_start = start_time(dead);
    let _ = child.kill();
    child.wait().unwrap();
    std::fs::create_dir_all(&out).unwrap();
    let host = temp_host();
    let me = std::process::id();
    let dead_owners = [
        format!(".spritebake-{host}-{dead}-{dead_start}-Ab12Cd.tmp"),
        // The test's own PID with another start time: a process that had this PID before.
        format!(".spritebake-{host}-{me}-{}-Ab12Cd.tmp", start_time(me) + 1),
    ];
    let kept = [
        // A live owner: this test.
        format!(".spritebake-{host}-{me}-{}-Ab12Cd.tmp", start_time(me)),
        // Another machine or container sharing the folder: cannot be told, so kept.
        format!(
            ".spritebake-{}-{dead}-{dead_start}-Ab12Cd.tmp",
            if host == "00000000" { "00000001" } else { "00000000" }
        ),
    ];
    for name in dead_owners.iter().chain(&kept) {
        std::fs::write(out.join(name), b"partial").unwrap();
    }
    let o = run(&["render", s(&asset("tower.obj")), "--size", "8", "-o", s(&out.join("r.png"))]);
    assert!(o.status.success(), "{}", printed(&o));
    let mut expected: Vec<String> = kept.iter().map(|n| format!("out/{n}")).collect();
    expected.extend(["out".into(), "out/r.png".into()]);
    expected.sort();
    assert_eq!(listing(&dir), expected);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_commit_waits_for_another_process_holding_its_folder() {
    let dir = scratch("folder-lock");
    let mesh = asset("robot/robot.md5mesh");
    let out = dir.join("r.png");
    // As another spritebake's commit into the folder holds it.
    let held = std::fs::File::open(&dir).unwrap();
    held.lock().unwrap();
    let mut child = spritebake().args(["render", s(&mesh), "--size", "8", "-o", s(&out)]).spawn().unwrap();
    std::thread::sleep(Duration::from_secs(2));
    assert!(child.try_wait().unwrap().is_none() && !out.exists(), "committed into a locked folder");
    held.unlock().unwrap();
    assert!(child.wait().unwrap().success());
    assert!(out.is_file());
    std::fs::remove_dir_all(dir).unwrap();
}

/// The pages of the sheet `walk` in `dir` as a reader finds them (`walk-0.json` and the pages
/// it lists, and the images they name), checked to be one run's: each image the size its JSON
/// says, every page listing all the others, every frame once.
fn sheet_pages(dir: &Path) -> Vec<String> {
    let read =
        |name: &str| -> serde_json::Value { serde_json::from_slice(&std::fs::read(dir.join(name)).unwrap()).unwrap() };
    let pages = |json: &serde_json::Value| -> Vec<String> {
        json["meta"]["related_multi_packs"].as_array().unwrap().iter().map(|v| v.as_str().unwrap().into()).collect()
    };
    let mut jsons = vec!["walk-0.json".to_string()];
    jsons.extend(pages(&read("walk-0.json")));
    let mut files = Vec::new();
    let mut frames = Vec::new();
    for name in &jsons {
        let json = read(name);
        let image_name = json["meta"]["image"].as_str().unwrap().to_string();
        let image = spritebake::output::read_png(&dir.join(&image_name)).unwrap();
        let size = (json["meta"]["size"]["w"].as_u64(), json["meta"]["size"]["h"].as_u64());
        assert_eq!(size, (Some(image.width as u64), Some(image.height as u64)), "{image_name}: another run's image");
        let mut all = pages(&json);
        all.push(name.clone());
        all.sort();
        let mut expected = jsons.clone();
        expected.sort();
        assert_eq!(all, expected, "{name}: pages of another run");
        frames.extend(json["frames"].as_object().unwrap().keys().cloned());
        files.extend([name.clone(), image_name]);
    }
    let count = frames.len();
    frames.sort();
    frames.dedup();
    assert_eq!(frames.len(), count, "a frame on two pages");
    files
}

#[test]
fn concurrent_sheets_on_one_output_commit_one_after_the_other() {
    let dir = scratch("race");
    let (mesh, anim) = (asset("robot/robot.md5mesh"), asset("robot/walk.md5anim"));
    let sheet = |size: &str, max_size: &str| {
        spritebake()
            .args(["sheet", s(&mesh), "--anim", s(&anim), "--directions", "8", "--frames", "16", "--size", size])
            .args(["--ssaa", "1", "--max-size", max_size, "-q", "-o", s(&dir.join("walk.png"))])
            .spawn()
            .unwrap()
    };
    // The same work in cells of two sizes (a cell a page: both commit about 256 files at about
    // the same moment), then two page counts.
    let rounds = [[("24", "40"), ("23", "40")]; 16].into_iter().chain([[("24", "40"), ("24", "110")]; 4]);
    for (round, [one, other]) in rounds.enumerate() {
        let (mut a, mut b) = (sheet(one.0, one.1), sheet(other.0, other.1));
        assert!(a.wait().unwrap().success() && b.wait().unwrap().success());
        let listed = sheet_pages(&dir);
        let present = listing(&dir);
        assert!(listed.iter().all(|f| present.contains(f)), "round {round}: {listed:?} in {present:?}");
        assert!(!present.iter().any(|n| n.starts_with(".spritebake-")), "round {round}: {present:?}");
    }
    std::fs::remove_dir_all(dir).unwrap();
}
