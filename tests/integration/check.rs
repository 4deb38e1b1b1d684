//! `compare` and `check` as users run them: exit codes, metrics, bless, reports, shards.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use spritebake::output::{read_png, write_png};
use spritebake::raster::Image;

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_spritebake")).args(args).output().unwrap()
}

/// `spritebake check ARGS`: the manifests here name the example assets, outside their own
/// folders, which `--allow-dir` allows.
fn check(args: &[&str]) -> Output {
    let assets = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/assets");
    let mut all = vec!["check"];
    all.extend_from_slice(args);
    all.extend(["--allow-dir", assets.to_str().unwrap()]);
    run(&all)
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("spritebake-check-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A 32×32 image with a soft-edged vertical bar from x = `edge` (anti-aliased column).
fn bar(edge: u32) -> Image {
    let mut img = Image::new(32, 32).unwrap();
    for y in 0..32 {
        for x in 0..32 {
            let v = if x < edge {
                40
            } else if x == edge {
                140
            } else {
                240
            };
            img.pixel_mut(x, y).unwrap().copy_from_slice(&[v, v, v, 255]);
        }
    }
    img
}

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

#[test]
fn compare_reports_pixels_alpha_and_anti_aliasing() {
    let dir = scratch("compare");
    let (a, b) = (dir.join("a.png"), dir.join("b.png"));
    write_png(&a, &bar(16)).unwrap();
    // Identical.
    write_png(&b, &bar(16)).unwrap();
    let o = run(&["compare", p(&a), p(&b)]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("identical"));
    // One pixel changed: caught at zero tolerance, passes when one pixel is allowed.
    let mut one = bar(16);
    one.pixel_mut(3, 3).unwrap().copy_from_slice(&[200, 0, 0, 255]);
    write_png(&b, &one).unwrap();
    assert_eq!(run(&["compare", p(&a), p(&b)]).status.code(), Some(1));
    assert_eq!(run(&["compare", p(&a), p(&b), "--max-pixels", "1"]).status.code(), Some(0));
    // Alpha only: opaque white vs transparent white is invisible over white, caught anyway.
    let mut white = bar(16);
    white.pixel_mut(30, 30).unwrap().copy_from_slice(&[240, 240, 240, 0]);
    write_png(&b, &white).unwrap();
    let o = run(&["compare", p(&a), p(&b), "--diff", p(&dir.join("d.png"))]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o).contains("1 in alpha"), "{}", text(&o));
    assert_eq!(read_png(&dir.join("d.png")).unwrap().pixel(30, 30).unwrap(), [230, 0, 0, 255]);
    // The anti-aliased edge moved by one pixel: passes with --ignore-aa, fails without.
    write_png(&b, &bar(17)).unwrap();
    assert_eq!(run(&["compare", p(&a), p(&b)]).status.code(), Some(1));
    let o = run(&["compare", p(&a), p(&b), "--ignore-aa"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    // Errors: size mismatch, missing file, truncated PNG.
    write_png(&b, &Image::new(8, 8).unwrap()).unwrap();
    let o = run(&["compare", p(&a), p(&b)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("sizes differ"), "{}", text(&o));
    assert_eq!(run(&["compare", p(&a), p(&dir.join("none.png"))]).status.code(), Some(2));
    let bytes = std::fs::read(&a).unwrap();
    std::fs::write(&b, &bytes[..bytes.len() / 2]).unwrap();
    let o = run(&["compare", p(&a), p(&b)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("PNG"), "{}", text(&o));
}

fn manifest(dir: &Path, body: &str) -> PathBuf {
    let tower = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/assets/tower.obj");
    let path = dir.join("cases.toml");
    std::fs::write(&path, format!("[defaults]\nsize = \"24x24\"\nmodel = \"{}\"\n{body}", tower.display())).unwrap();
    path
}

#[test]
fn bless_creates_and_rewrites_goldens_and_errors_stay_per_case() {
    let dir = scratch("bless");
    let cases = "[[case]]\nname = \"a\"\ngolden = \"g/a.png\"\n[[case]]\nname = \"b\"\nyaw = 90\ngolden = \"g/b.png\"\n[[case]]\nname = \"c\"\nframe = [0, 0]\ngolden = \"g/c/\"\n";
    let m = manifest(&dir, cases);
    let o = check(&[p(&m)]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o).contains("NEW   a") && text(&o).contains("0 passed, 3 failed"), "{}", text(&o));
    let o = check(&[p(&m), "--bless"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(dir.join("g/a.png").is_file() && dir.join("g/c/frame_001.png").is_file());
    assert_eq!(check(&[p(&m)]).status.code(), Some(0));
    // A regression in b: fails with its metrics; --out gets actual and diff.
    let mut b = read_png(&dir.join("g/b.png")).unwrap();
    for px in b.rgba.chunks_exact_mut(4).take(40) {
        px.copy_from_slice(&[255, 0, 0, 255]);
    }
    write_png(&dir.join("g/b.png"), &b).unwrap();
    let out = dir.join("out");
    let o = check(&[p(&m), "--out", p(&out)]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o).contains("FAIL  b: 40 px"), "{}", text(&o));
    assert!(out.join("b.actual.png").is_file() && out.join("b.diff.png").is_file());
    // A truncated golden is an error for that case only; the others still pass.
    let bytes = std::fs::read(dir.join("g/a.png")).unwrap();
    std::fs::write(dir.join("g/a.png"), &bytes[..20]).unwrap();
    let o = check(&[p(&m)]);
    assert!(text(&o).contains("ERROR a") && text(&o).contains("PASS  c"), "{}", text(&o));
    // Bless rewrites the failing and broken ones; then everything passes.
    assert_eq!(check(&[p(&m), "--bless"]).status.code(), Some(0));
    assert_eq!(check(&[p(&m)]).status.code(), Some(0));
    // A size mismatch is reported as such.
    write_png(&dir.join("g/a.png"), &Image::new(5, 5).unwrap()).unwrap();
    assert!(text(&check(&[p(&m)])).contains("golden sizes differ"));
}

#[test]
fn manifest_errors_exit_2_with_the_key() {
    let dir = scratch("unknown");
    let m = manifest(&dir, "[[case]]\nname = \"a\"\ngolden = \"a.png\"\nyaww = 30\n");
    let o = check(&[p(&m)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("yaww") && text(&o).contains("line"), "{}", text(&o));
    let m = manifest(&dir, "[[case]]\nname = \"a\"\n");
    assert!(text(&check(&[p(&m)])).contains("no `golden`"));
    // Loose values: empty names and paths, and values of the wrong type, named by their key.
    for (case, words) in [
        ("name = \"\"\ngolden = \"a.png\"", &["`name`", "not empty"][..]),
        ("name = \"a\"\ngolden = \"\"", &["`golden`", "not empty"]),
        ("name = \"a\"\ngolden = \"a.png\"\nclip = \"\"", &["`clip`", "not empty"]),
        ("name = \"a\"\ngolden = \"a.png\"\nmax_pixels = \"x\"", &["`max_pixels` = \"x\"", "expected usize"]),
        ("name = \"a\"\ngolden = \"a.png\"\nignore_aa = 3", &["`ignore_aa` = 3", "boolean"]),
        ("name = \"a\"\ngolden = \"a.png\"\nkind = 3", &["`kind` = 3"]),
    ] {
        let m = manifest(&dir, &format!("[[case]]\n{case}\n"));
        let o = check(&[p(&m), "--bless"]);
        assert_eq!(o.status.code(), Some(2), "{case}: {}", text(&o));
        assert!(words.iter().all(|w| text(&o).contains(w)) && text(&o).contains("(line "), "{case}: {}", text(&o));
    }
    assert!(!dir.join("frame_000.png").exists());
}

#[test]
fn junit_html_and_shards() {
    let dir = scratch("reports");
    let body: String =
        (0..7).map(|i| format!("[[case]]\nname = \"c{i}\"\nyaw = {}\ngolden = \"g/c{i}.png\"\n", i * 40)).collect();
    let m = manifest(&dir, &body);
    assert_eq!(check(&[p(&m), "--bless"]).status.code(), Some(0));
    // Break c3 so the reports have a failure.
    write_png(&dir.join("g/c3.png"), &Image::new(24, 24).unwrap()).unwrap();
    let mut seen = Vec::new();
    for shard in ["1/3", "2/3", "3/3"] {
        let xml = dir.join(format!("junit-{}.xml", &shard[..1]));
        let html = dir.join(format!("html-{}", &shard[..1]));
        check(&[p(&m), "--shard", shard, "--junit", p(&xml), "--html", p(&html), "--out", p(&dir.join("out"))]);
        let text = std::fs::read_to_string(&xml).unwrap();
        let mut reader = quick_xml::Reader::from_str(&text);
        let mut in_failure = None;
        let (mut in_system_out, mut attached) = (false, Vec::new());
        loop {
            match reader.read_event().unwrap() {
                quick_xml::events::Event::Start(e) | quick_xml::events::Event::Empty(e)
                    if e.name().as_ref() == b"testcase" =>
                {
                    let name = e
                        .try_get_attribute("name")
                        .unwrap()
                        .unwrap()
                        .normalized_value(quick_xml::XmlVersion::Implicit1_0)
                        .unwrap()
                        .to_string();
                    in_failure = Some(name.clone());
                    seen.push(name);
                }
                quick_xml::events::Event::Start(e) if e.name().as_ref() == b"failure" => {
                    let msg = e
                        .try_get_attribute("message")
                        .unwrap()
                        .unwrap()
                        .normalized_value(quick_xml::XmlVersion::Implicit1_0)
                        .unwrap()
                        .to_string();
                    assert_eq!(in_failure.as_deref(), Some("c3"));
                    assert!(msg.contains("px") && msg.contains("max channel delta"), "{msg}");
                    // The message names the images `--out` wrote.
                    for kind in ["actual", "diff"] {
                        let image = dir.join("out").join(format!("c3.{kind}.png"));
                        assert!(image.is_file() && msg.contains(&format!("{kind}: {}", image.display())), "{msg}");
                    }
                }
                quick_xml::events::Event::Start(e) if e.name().as_ref() == b"system-out" => {
                    assert_eq!(in_failure.as_deref(), Some("c3"));
                    in_system_out = true;
                }
                quick_xml::events::Event::End(e) if e.name().as_ref() == b"system-out" => in_system_out = false,
                quick_xml::events::Event::Text(t) if in_system_out => {
                    let text = t.decode().unwrap();
                    attached.extend(
                        text.lines()
                            .filter_map(|l| l.strip_prefix("[[ATTACHMENT|")?.strip_suffix("]]"))
                            .map(PathBuf::from),
                    );
                }
                quick_xml::events::Event::Eof => break,
                _ => {}
            }
        }
        // The failing case attaches its actual and diff images, in the shard that ran it.
        if text.contains("name=\"c3\"") {
            let out = dir.join("out");
            assert_eq!(attached, [out.join("c3.actual.png"), out.join("c3.diff.png")], "{text}");
        } else {
            assert!(attached.is_empty() && !text.contains("ATTACHMENT"), "{text}");
        }
        // Every image the HTML page shows exists beside it.
        let page = std::fs::read_to_string(html.join("index.html")).unwrap();
        for src in page.split("src=\"").skip(1).map(|s| &s[..s.find('"').unwrap()]) {
            assert!(html.join(src).is_file(), "{src} missing");
        }
        if shard == "1/3" {
            assert!(page.contains("c3") && page.contains("-diff.png"), "{page}");
        }
    }
    seen.sort();
    assert_eq!(seen, (0..7).map(|i| format!("c{i}")).collect::<Vec<_>>(), "every case exactly once over the shards");
}

#[test]
fn the_example_manifest_passes() {
    let m = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/check/cases.toml");
    let o = check(&[p(&m)]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("7 passed, 0 failed, 0 errors"));
}

#[test]
fn animation_keys_reach_the_case_and_their_errors_name_the_key() {
    let dir = scratch("anim-keys");
    let robot = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/assets");
    let case = |extra: &str| {
        format!(
            "[[case]]\nname = \"a\"\nmodel = \"{}\"\nanim = [\"{}\"]\ngolden = \"a.png\"\n{extra}\n",
            robot.join("robot/robot.md5mesh").display(),
            robot.join("robot/walk.md5anim").display()
        )
    };
    // The keys change the render: bless without them, then each one alone must fail the check.
    let plain = manifest(&dir, &case(""));
    assert_eq!(check(&[p(&plain), "--bless"]).status.code(), Some(0));
    let sword = robot.join("sword.obj");
    for extra in [
        format!("attach = [\"{}@forearm_R\"]", sword.display()),
        "bone = [\"head:yaw=60\"]".to_string(),
        "blend = \"walk:0.5\"\nframe = 3".to_string(),
        "transition = \"walk->walk:0.5\"\nframe = 17".to_string(),
    ] {
        let m = manifest(&dir, &case(&extra));
        let o = check(&[p(&m)]);
        assert!(text(&o).contains("FAIL  a"), "{extra}: {}", text(&o));
    }
    for (extra, expected) in [
        ("bone = [\"haed:yaw=1\"]", "did you mean 'head'?"),
        ("bone = [\"head\"]", "`bone` = [\"head\"]: bad bone override"),
        ("attach_offset = [\"t=1\"]", "`attach_offset` = [\"t=1\"]: bad offset"),
        ("blend = \"wlak:0.5\"", "did you mean 'walk'?"),
        ("transition = \"walk-walk\"", "`transition` = \"walk-walk\": bad transition"),
    ] {
        let m = manifest(&dir, &case(extra));
        let o = check(&[p(&m)]);
        assert_ne!(o.status.code(), Some(0), "{extra}");
        assert!(text(&o).contains(expected), "{extra}: {}", text(&o));
    }
}

/// A one-triangle OBJ `stem.obj` in `dir` skinned by `texture` through `stem.mtl`.
fn skinned_triangle(dir: &Path, stem: &str, texture: &str) {
    std::fs::write(dir.join(format!("{stem}.mtl")), format!("newmtl skin\nmap_Kd {texture}\n")).unwrap();
    let obj = format!("mtllib {stem}.mtl\nusemtl skin\nv 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nf 1/1 2/1 3/1\n");
    std::fs::write(dir.join(format!("{stem}.obj")), obj).unwrap();
}

#[test]
fn bless_and_out_never_replace_a_file_another_case_reads() {
    // Case `b`'s skin is `a.png`, case `a`'s golden, and `out/x.actual.png`, case `x`'s
    // actual image: each only found once b's material library is read.
    let dir = scratch("cross-case");
    std::fs::create_dir_all(dir.join("out")).unwrap();
    skinned_triangle(&dir, "a", "a.png");
    skinned_triangle(&dir, "b", "a.png");
    skinned_triangle(&dir.join("out"), "c", "x.actual.png");
    let skin = bar(3);
    write_png(&dir.join("a.png"), &skin).unwrap();
    write_png(&dir.join("out/x.actual.png"), &skin).unwrap();
    let case = |name: &str, model: &str| {
        format!("[[case]]\nname = \"{name}\"\nmodel = \"{model}\"\ngolden = \"{name}.png\"\nsize = \"8\"\n")
    };
    let manifest = dir.join("golden.toml");
    std::fs::write(&manifest, [case("a", "a.obj"), case("b", "b.obj")].concat()).unwrap();
    let before = std::fs::read(dir.join("a.png")).unwrap();
    let o = check(&[p(&manifest), "--bless"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("case 'a' would write it and case 'b' reads it"), "{}", text(&o));
    assert_eq!(std::fs::read(dir.join("a.png")).unwrap(), before);
    assert!(!dir.join("b.png").exists(), "a case rendered before the refusal");
    // --out: case `x`'s actual image is case `c`'s skin.
    let manifest = dir.join("out.toml");
    std::fs::write(&manifest, [case("x", "a.obj"), case("c", "out/c.obj")].concat()).unwrap();
    let before = std::fs::read(dir.join("out/x.actual.png")).unwrap();
    let o = check(&[p(&manifest), "--out", p(&dir.join("out"))]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("case 'x' would write it and case 'c' reads it"), "{}", text(&o));
    assert_eq!(std::fs::read(dir.join("out/x.actual.png")).unwrap(), before);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_frames_golden_without_its_data_file_says_to_bless_it() {
    let dir = scratch("frames-data");
    let robot = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/assets/robot/robot.md2");
    let body = format!(
        "[[case]]\nname = \"f\"\nkind = \"frames\"\nmodel = \"{}\"\nframes = 2\ngolden = \"g\"\n",
        robot.display()
    );
    let m = manifest(&dir, &body);
    assert_eq!(check(&[p(&m), "--bless"]).status.code(), Some(0));
    assert!(dir.join("g/frames.json").is_file());
    // A golden made before frames wrote their data: an error naming the file and the fix.
    std::fs::remove_file(dir.join("g/frames.json")).unwrap();
    let o = check(&[p(&m)]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("golden data file") && text(&o).contains("frames.json is missing"), "{}", text(&o));
    assert!(text(&o).contains("`--bless` writes it"), "{}", text(&o));
    std::fs::remove_dir_all(dir).unwrap();
}

/// `check` in GitHub Actions, with GitHub's environment.
fn check_in_actions(args: &[&str], summary: &Path) -> Output {
    let assets = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/assets");
    Command::new(env!("CARGO_BIN_EXE_spritebake"))
        .arg("check")
        .args(args)
        .args(["--allow-dir", assets.to_str().unwrap()])
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_STEP_SUMMARY", summary)
        .output()
        .unwrap()
}

#[test]
fn in_github_actions_a_failing_case_is_an_annotation_on_its_line_and_the_job_summary_says_so() {
    let dir = scratch("github");
    let m = manifest(
        &dir,
        "[[case]]\nname = \"front\"\ngolden = \"g/front.png\"\n[[case]]\nname = \"side\"\nyaw = 90\ngolden = \"g/side.png\"\n",
    );
    assert_eq!(check(&[p(&m), "--bless"]).status.code(), Some(0));
    // The runner's summary file already holds an earlier step's lines: they stay.
    let summary = dir.join("step_summary");
    std::fs::write(&summary, "earlier step\n").unwrap();
    let passing = check_in_actions(&[p(&m)], &summary);
    assert_eq!(passing.status.code(), Some(0), "{}", text(&passing));
    assert!(!text(&passing).contains("::error"), "{}", text(&passing));
    // side regresses.
    let mut side = read_png(&dir.join("g/side.png")).unwrap();
    for px in side.rgba.chunks_exact_mut(4).take(30) {
        px.copy_from_slice(&[0, 0, 255, 255]);
    }
    write_png(&dir.join("g/side.png"), &side).unwrap();
    let out = dir.join("out");
    let failing = check_in_actions(&[p(&m), "--out", p(&out)], &summary);
    assert_eq!(failing.status.code(), Some(1), "{}", text(&failing));
    let stdout = String::from_utf8_lossy(&failing.stdout);
    let errors: Vec<&str> = stdout.lines().filter(|l| l.starts_with("::error ")).collect();
    // `name = "side"` is line 8 of the manifest (after three lines of defaults).
    let expected = format!("::error file={},line=8,title=spritebake check%3A side::", p(&m).replace(':', "%3A"));
    assert_eq!(errors.len(), 1, "{stdout}");
    assert!(errors[0].starts_with(&expected) && errors[0].contains("30 px"), "{}", errors[0]);
    let written = std::fs::read_to_string(&summary).unwrap();
    assert!(written.starts_with("earlier step\n## spritebake check: cases\n"), "{written}");
    assert!(
        written.contains("2 passed, 0 failed, 0 new, 0 errors")
            && written.contains("1 passed, 1 failed, 0 new, 0 errors"),
        "{written}"
    );
    let row = written.lines().find(|l| l.starts_with("| side |")).unwrap_or_else(|| panic!("{written}"));
    assert!(row.contains("| fail |") && row.contains("side.diff.png"), "{row}");
    // The summary file is an output like any other: never one of the run's inputs.
    let refused = check_in_actions(&[p(&m)], &dir.join("g/front.png"));
    assert_eq!(refused.status.code(), Some(2), "{}", text(&refused));
    assert!(read_png(&dir.join("g/front.png")).is_ok(), "the golden is intact");
    // Outside Actions nothing of it is printed.
    assert!(!text(&check(&[p(&m)])).contains("::error"));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn ignore_aa_ignores_anti_aliased_alpha_too_but_not_a_moved_limb() {
    let dir = scratch("ignore_aa");
    let (mesh, anim) = (crate::common::robot("robot.md5mesh"), crate::common::robot("walk.md5anim"));
    let render = |name: &str, extra: &[&str]| {
        let out = dir.join(name);
        let mut args = vec!["render", mesh.as_str(), "--anim", anim.as_str(), "--size", "128", "-o", p(&out)];
        args.extend(extra);
        assert!(run(&args).status.success());
        out
    };
    let (four, three) = (render("s4.png", &["--ssaa", "4"]), render("s3.png", &["--ssaa", "3"]));
    let moved = render("moved.png", &["--ssaa", "4", "--frame", "6"]);
    // The edges differ in coverage: in alpha as much as in colour.
    let strict = run(&["compare", p(&four), p(&three)]);
    assert_eq!(strict.status.code(), Some(1), "{}", text(&strict));
    let lenient = run(&["compare", p(&four), p(&three), "--ignore-aa"]);
    assert_eq!(lenient.status.code(), Some(0), "{}", text(&lenient));
    assert!(text(&lenient).starts_with("0 of 16384 pixels differ"), "{}", text(&lenient));
    // Six frames later the limbs are elsewhere: that is no anti-aliasing.
    let real = run(&["compare", p(&four), p(&moved), "--ignore-aa"]);
    assert_eq!(real.status.code(), Some(1), "{}", text(&real));
    let differing: usize = text(&real).split(' ').next().unwrap().parse().unwrap();
    assert!(differing > 300, "{}", text(&real));
    std::fs::remove_dir_all(dir).unwrap();
}
