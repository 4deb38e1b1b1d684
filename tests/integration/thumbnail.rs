//! `spritebake thumbnail` on folders and quoted glob patterns, its warnings and `--quiet`
//! (issue 17). Every model is a one-triangle OBJ a test writes into its own temporary folder.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use spritebake::spec::Profile;

use crate::common::cli::{names_in, printed, scratch_in};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_spritebake")).args(args).output().expect("run spritebake")
}

/// `thumbnail --size 8 -o OUT MODEL...`: tiny images, the models as given (no shell, so a
/// pattern arrives unexpanded, as it does quoted or on Windows).
fn thumbnail(out: &Path, models: &[&str]) -> Output {
    let mut args = vec!["thumbnail", "--size", "8", "-o", s(out)];
    args.extend(models);
    run(&args)
}

fn scratch(name: &str) -> PathBuf {
    scratch_in("thumbnail", name)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A one-triangle OBJ at `path` (folders made), with `extra` lines before the geometry.
fn triangle(path: &Path, extra: &str) -> PathBuf {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, format!("{extra}v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n")).unwrap();
    path.to_path_buf()
}

#[test]
fn a_folder_argument_finds_the_models_in_its_subfolders() {
    let dir = scratch("folder");
    let models = dir.join("models");
    triangle(&models.join("crate.obj"), "");
    triangle(&models.join("props/deep/barrel.OBJ"), ""); // extensions in any case
    std::fs::write(models.join("props/readme.txt"), "not a model").unwrap();
    std::fs::write(models.join("props/skin.png"), "not a model either").unwrap();
    // A symbolic link to a folder is not followed: neither a loop nor a folder elsewhere.
    #[cfg(unix)]
    {
        triangle(&dir.join("elsewhere/outside.obj"), "");
        std::os::unix::fs::symlink(dir.join("elsewhere"), models.join("props/link")).unwrap();
        std::os::unix::fs::symlink("..", models.join("props/deep/loop")).unwrap();
    }
    let out = dir.join("out");
    let o = thumbnail(&out, &[s(&models)]);
    assert_eq!(o.status.code(), Some(0), "{}", printed(&o));
    let lines: Vec<String> = stdout(&o).lines().map(String::from).collect();
    // Sorted, subfolders included.
    assert_eq!(
        lines,
        [
            format!("ok    {} -> {}", s(&models.join("crate.obj")), s(&out.join("crate.png"))),
            format!("ok    {} -> {}", s(&models.join("props/deep/barrel.OBJ")), s(&out.join("props/deep/barrel.png"))),
            "2 thumbnails, 0 failed".to_string(),
        ]
    );
    // Named after the path below the folder given; `--flat` puts them side by side.
    assert_eq!(names_in(&out), ["crate.png", "props"]);
    assert_eq!(names_in(&out.join("props/deep")), ["barrel.png"]);
    let flat = dir.join("flat");
    let o = run(&["thumbnail", "--size", "16", "--flat", s(&models), "-o", s(&flat)]);
    assert_eq!(o.status.code(), Some(0), "{}", printed(&o));
    assert_eq!(names_in(&flat), ["barrel.png", "crate.png"]);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_quoted_glob_is_expanded_and_a_model_named_twice_is_rendered_once() {
    let dir = scratch("glob");
    let a = triangle(&dir.join("a.obj"), "");
    triangle(&dir.join("b.obj"), "");
    triangle(&dir.join("sub/c.obj"), ""); // `*` does not cross a folder
    std::fs::write(dir.join("notes.txt"), "x").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink("..", dir.join("sub/loop")).unwrap(); // `**` does not follow it
    let out = dir.join("out");
    let pattern = format!("{}/*.obj", s(&dir));
    let o = thumbnail(&out, &[&pattern, s(&a)]);
    assert_eq!(o.status.code(), Some(0), "{}", printed(&o));
    assert!(stdout(&o).ends_with("2 thumbnails, 0 failed\n"), "{}", stdout(&o));
    assert_eq!(names_in(&out), ["a.png", "b.png"]);
    // `**` reaches the subfolder; a folder the pattern matches is expanded as a folder is.
    let out2 = dir.join("out2");
    let o = thumbnail(&out2, &[&format!("{}/**/*.obj", s(&dir))]);
    assert_eq!(o.status.code(), Some(0), "{}", printed(&o));
    // Named after the path below the pattern's root, the folder before its first wildcard.
    assert_eq!(names_in(&out2), ["a.png", "b.png", "sub"]);
    assert_eq!(names_in(&out2.join("sub")), ["c.png"]);
    let out3 = dir.join("out3");
    let o = thumbnail(&out3, &[&format!("{}/s?b", s(&dir))]);
    assert_eq!(o.status.code(), Some(0), "{}", printed(&o));
    assert_eq!(names_in(&out3.join("sub")), ["c.png"]);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_folder_or_glob_without_models_is_one_error_line() {
    let dir = scratch("empty");
    let empty = dir.join("textures");
    std::fs::create_dir_all(empty.join("sub")).unwrap();
    std::fs::write(empty.join("sub/skin.png"), "x").unwrap();
    let good = triangle(&dir.join("good.obj"), "");
    let out = dir.join("out");
    let o = thumbnail(&out, &[s(&good), s(&empty)]);
    assert_eq!(o.status.code(), Some(2), "{}", printed(&o));
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with(&format!("error: {}: no model files", s(&empty))), "{err}");
    assert!(stdout(&o).is_empty(), "{}", stdout(&o));
    // Refused before anything is rendered: not even the output folder is made.
    assert!(!out.exists());
    let pattern = format!("{}/*.md2", s(&dir));
    let o = thumbnail(&out, &[s(&good), &pattern]);
    assert_eq!(o.status.code(), Some(2), "{}", printed(&o));
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with(&format!("error: {pattern}: the pattern matches no model files")), "{err}");
    assert!(!out.exists());
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn models_with_one_name_get_a_thumbnail_each() {
    // Quake 2's layout: every player is tris.md2 (here .obj), told apart by its folder.
    let dir = scratch("stems");
    let players = dir.join("players");
    triangle(&players.join("male/tris.obj"), "");
    triangle(&players.join("female/tris.obj"), "");
    triangle(&players.join("female/tris.OBJ.obj"), ""); // a stem that looks like a longer name
    let out = dir.join("out");
    let o = thumbnail(&out, &[s(&players)]);
    assert_eq!(o.status.code(), Some(0), "{}", printed(&o));
    assert_eq!(names_in(&out), ["female", "male"]);
    assert_eq!(names_in(&out.join("female")), ["tris.OBJ.png", "tris.png"]);
    // Flat: the folders come into the names that are shared.
    let flat = dir.join("flat");
    let o = run(&["thumbnail", "--size", "16", "--flat", s(&players), "-o", s(&flat)]);
    assert_eq!(o.status.code(), Some(0), "{}", printed(&o));
    assert_eq!(names_in(&flat), ["female_tris.png", "male_tris.png", "tris.OBJ.png"]);
    // Two files named as such with one stem, and one stem in one folder twice: the extension,
    // then the folder's name, tell them apart.
    triangle(&dir.join("a/ref.obj"), "");
    std::fs::copy(players.join("male/tris.obj"), dir.join("a/ref.OBJ.obj")).unwrap();
    triangle(&dir.join("b/ref.obj"), "");
    let named = dir.join("named");
    let o = thumbnail(&named, &[s(&dir.join("a/ref.obj")), s(&dir.join("b/ref.obj"))]);
    assert_eq!(o.status.code(), Some(0), "{}", printed(&o));
    assert_eq!(names_in(&named), ["a", "b"]);
    assert_eq!(names_in(&named.join("a")), ["ref.obj.png"]);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn warnings_are_shown_per_model_and_quiet_leaves_failures_and_the_summary() {
    let dir = scratch("warnings");
    // A missing material library is a warning; its name carries an escape sequence.
    let warned = triangle(&dir.join("warned.obj"), "mtllib gone\x1b[31m.mtl\n");
    let clean = triangle(&dir.join("clean.obj"), "");
    let broken = dir.join("broken.obj");
    std::fs::write(&broken, "v 0 0 0\nf 1 2 3\n").unwrap();
    let out = dir.join("out");
    let o = thumbnail(&out, &[s(&warned), s(&clean), s(&broken)]);
    assert_eq!(o.status.code(), Some(1), "{}", printed(&o));
    let err = stderr(&o);
    let warnings: Vec<&str> = err.lines().collect();
    assert!(!warnings.is_empty());
    for w in &warnings {
        assert!(w.starts_with(&format!("warning: {}: ", s(&warned))), "{err}");
    }
    assert!(err.contains("material library 'gone\\x1b[31m.mtl' not found"), "{err}");
    assert!(!err.contains('\x1b'), "{err}");
    let text = stdout(&o);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4, "{text}");
    assert_eq!(
        lines[0],
        format!("ok    {} -> {} ({} warnings)", s(&warned), s(&out.join("warned.png")), warnings.len())
    );
    assert_eq!(lines[1], format!("ok    {} -> {}", s(&clean), s(&out.join("clean.png"))));
    assert!(lines[2].starts_with(&format!("FAIL  {}: ", s(&broken))), "{text}");
    assert_eq!(lines[3], "2 thumbnails, 1 failed");

    for quiet in ["--quiet", "-q"] {
        let out = dir.join(format!("quiet{quiet}"));
        let o = thumbnail(&out, &[quiet, s(&warned), s(&clean), s(&broken)]);
        assert_eq!(o.status.code(), Some(1), "{}", printed(&o));
        assert_eq!(stderr(&o), "", "{quiet}");
        let text = stdout(&o);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2, "{quiet}: {text}");
        assert!(lines[0].starts_with(&format!("FAIL  {}: ", s(&broken))), "{text}");
        assert_eq!(lines[1], "2 thumbnails, 1 failed");
        assert_eq!(names_in(&out), ["clean.png", "warned.png"]);
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn thumbnails_take_the_view_and_render_flags_and_keep_their_own_defaults() {
    let dir = scratch("view-flags");
    let robot = crate::common::robot("robot.md2");
    let shot = |name: &str, flags: &[&str]| {
        let out = dir.join(name);
        let mut args = vec!["thumbnail", &robot, "--size", "48", "-o", s(&out)];
        args.extend(flags);
        let o = run(&args);
        assert!(o.status.success(), "{flags:?}: {}", stderr(&o));
        spritebake::output::read_png(&out).unwrap()
    };
    // --help shows the thumbnail's defaults, not render's.
    let help = stdout(&run(&["thumbnail", "--help"]));
    for default in ["[default: 35]", "[default: 20]", "[default: 0.25]"] {
        assert!(help.contains(default), "{default} missing from thumbnail --help");
    }
    let lights = Profile::Thumbnail.spec().render.light.iter().map(ToString::to_string).collect::<Vec<_>>();
    let shown = format!("[default: {}]", lights.join(" "));
    assert!(lights.len() == 2 && help.contains(&shown), "{shown} missing from thumbnail --help");
    let plain = shot("plain.png", &[]);
    // The thumbnail's own defaults, given as flags, are the defaults: yaw 35, pitch 20, ssaa 4.
    assert!(shot("same.png", &["--yaw", "35", "--pitch", "20", "--ssaa", "4"]) == plain);
    // Each view and render flag takes effect; the ones not given keep the thumbnail's.
    for (name, flags) in [
        ("yaw.png", &["--yaw", "-90"][..]),
        ("pitch.png", &["--pitch", "60"]),
        ("up.png", &["--up", "+y"]),
        ("facing.png", &["--facing", "-y"]),
        ("ortho.png", &["--ortho"]),
    ] {
        assert!(shot(name, flags) != plain, "{flags:?} changed nothing");
    }
    let on_grey = shot("grey.png", &["--background", "#808080"]);
    assert_eq!(on_grey.pixel(0, 0), Some([128, 128, 128, 255]));
    assert_eq!(plain.pixel(0, 0).map(|p| p[3]), Some(0));
    std::fs::remove_dir_all(dir).unwrap();
}

/// Names that differ can still be one file: the output folder `b` a link to `a`. The batch is
/// refused before anything renders, naming both models.
#[cfg(unix)]
#[test]
fn thumbnails_that_are_one_file_through_a_link_are_refused_naming_both_models() {
    let dir = scratch("linked");
    let models = dir.join("models");
    let (a, b) = (triangle(&models.join("a/x.obj"), ""), triangle(&models.join("b/x.obj"), ""));
    let out = dir.join("out");
    std::fs::create_dir_all(out.join("a")).unwrap();
    std::os::unix::fs::symlink("a", out.join("b")).unwrap();
    let o = thumbnail(&out, &[s(&models)]);
    assert_eq!(o.status.code(), Some(2), "{}", printed(&o));
    let err = stderr(&o);
    assert!(err.contains("are the same file") && err.contains(s(&a)) && err.contains(s(&b)), "{err}");
    assert!(names_in(&out.join("a")).is_empty(), "rendered before the refusal");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_thumbnail_never_replaces_a_file_another_model_of_the_batch_reads() {
    // b's skin is Y/a.png: exactly where a's thumbnail goes when Y is the output folder.
    let dir = scratch("cross-item");
    let (x, y) = (dir.join("X"), dir.join("Y"));
    triangle(&x.join("a.obj"), "");
    std::fs::create_dir_all(&y).unwrap();
    std::fs::write(y.join("b.mtl"), "newmtl skin\nmap_Kd a.png\n").unwrap();
    triangle(&y.join("b.obj"), "mtllib b.mtl\nusemtl skin\n");
    let skin = spritebake::output::encode_png(&spritebake::Image::new(2, 2).unwrap()).unwrap();
    std::fs::write(y.join("a.png"), &skin).unwrap();
    let o = thumbnail(&y, &[s(&x.join("a.obj")), s(&y.join("b.obj"))]);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    // a fails, naming the file and the model that reads it; b, with its skin, renders.
    let out = stdout(&o);
    let fail = format!(
        "FAIL  {}: its thumbnail would replace {}, which {} reads",
        s(&x.join("a.obj")),
        s(&y.join("a.png")),
        s(&y.join("b.obj"))
    );
    assert!(out.contains(&fail), "{out}");
    assert!(out.ends_with("1 thumbnails, 1 failed\n"), "{out}");
    assert_eq!(std::fs::read(y.join("a.png")).unwrap(), skin, "b's skin was overwritten");
    assert!(y.join("b.png").is_file());
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn texture_roots_let_every_model_reach_the_textures_of_its_tree() {
    // A game tree whose models name textures from its base folder, as a Doom 3 tree does.
    let dir = scratch("texture-root");
    let tree = dir.join("tree");
    let red = spritebake::Image { width: 2, height: 2, rgba: [255, 0, 0, 255].repeat(4) };
    std::fs::create_dir_all(tree.join("textures")).unwrap();
    spritebake::output::write_png(&tree.join("textures/red.png"), &red).unwrap();
    let models = tree.join("models");
    std::fs::create_dir_all(&models).unwrap();
    std::fs::write(models.join("crate.mtl"), "newmtl paint\nmap_Kd ../textures/red.png\n").unwrap();
    triangle(&models.join("crate.obj"), "mtllib crate.mtl\nusemtl paint\n");
    let render = |out: &Path, roots: &[&str]| {
        let mut args = vec!["thumbnail", "--size", "16", "--shading", "unlit", s(&models), "-o", s(out)];
        args.extend(roots);
        run(&args)
    };
    // Without the root the texture is refused: a warning, and the missing-texture checker.
    let o = render(&dir.join("confined"), &[]);
    assert_eq!(o.status.code(), Some(0), "{}", printed(&o));
    assert!(stderr(&o).contains("red.png"), "{}", printed(&o));
    // With it, no warning and the model is red.
    let out = dir.join("rooted");
    let o = render(&out, &["--texture-root", s(&tree)]);
    assert_eq!(o.status.code(), Some(0), "{}", printed(&o));
    assert_eq!(stderr(&o), "");
    let expected =
        format!("ok    {} -> {}\n1 thumbnails, 0 failed\n", s(&models.join("crate.obj")), s(&out.join("crate.png")));
    assert_eq!(stdout(&o), expected);
    let image = spritebake::output::read_png(&out.join("crate.png")).unwrap();
    let opaque: Vec<&[u8]> = image.rgba.chunks_exact(4).filter(|p| p[3] == 255).collect();
    assert!(!opaque.is_empty() && opaque.iter().all(|p| p[0] > 200 && p[1] < 30 && p[2] < 30), "not red");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn an_animation_cfg_of_no_quake3_player_is_skipped_with_a_note() {
    // An Unvanquished-style MD5 player folder: its cfg names clips, not Quake 3's 25 lines.
    let dir = scratch("foreign-cfg");
    let models = dir.join("models");
    triangle(&models.join("body.obj"), "");
    std::fs::write(models.join("animation.cfg"), "// animation config file\nskeletal\n\nidle 0 30 30 15\n").unwrap();
    let out = dir.join("out");
    let o = thumbnail(&out, &[s(&models)]);
    assert_eq!(o.status.code(), Some(0), "{}", printed(&o));
    let note =
        "skipped 1 animation.cfg files of no Quake 3 player (without lower.md3, upper.md3 and head.md3 beside them)";
    assert_eq!(
        stdout(&o),
        format!(
            "ok    {} -> {}\n{note}\n1 thumbnails, 0 failed\n",
            s(&models.join("body.obj")),
            s(&out.join("body.png"))
        )
    );
    // Beside a player's three parts the cfg is the player's: its errors are its own.
    for part in ["lower", "upper", "head"] {
        std::fs::write(models.join(format!("{part}.md3")), "not an MD3").unwrap();
    }
    let o = thumbnail(&dir.join("out2"), &[s(&models)]);
    assert_eq!(o.status.code(), Some(1), "{}", printed(&o));
    assert!(stdout(&o).contains(&format!("FAIL  {}: ", s(&models.join("animation.cfg")))), "{}", printed(&o));
    std::fs::remove_dir_all(dir).unwrap();
}
