//! Hostile reads (issue 16, "Reads outside the model's folder"): every path a model or a
//! manifest names stays inside its folder (or a folder the user allowed), only regular files
//! are read, never blocking on a FIFO, and every read is bounded before it starts.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::common;
use crate::common::cli::printed;

/// Longer than any of these runs takes on a loaded machine, far shorter than "forever".
const DEADLINE: Duration = Duration::from_secs(60);

/// Runs spritebake with a stdin pipe held open and never written (so a read of `/dev/stdin`
/// blocks, as a terminal would), killing it at the deadline: a hang fails the test instead of
/// hanging the suite.
fn run(args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_spritebake"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdin = child.stdin.take();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > DEADLINE {
            child.kill().unwrap();
            let o = child.wait_with_output().unwrap();
            panic!("spritebake {args:?} hung (killed after {DEADLINE:?}): {}", printed(&o));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    drop(stdin);
    child.wait_with_output().unwrap()
}

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

fn scratch(name: &str) -> PathBuf {
    common::cli::scratch_in("reads", name)
}

/// Exit 2 and exactly one line on stderr, `error: ...` containing every word of `words`.
fn assert_refused(o: &Output, words: &[&str]) {
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{}", printed(o));
    assert_eq!(stderr.lines().count(), 1, "one error line: {stderr}");
    assert!(stderr.starts_with("error: "), "{stderr}");
    for word in words {
        assert!(stderr.contains(word), "'{word}' missing from: {stderr}");
    }
}

const QUAD: &str =
    "v -1 -1 0\nv 1 -1 0\nv 1 1 0\nv -1 1 0\nvt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\nusemtl skin\nf 1/1 2/2 3/3 4/4\n";

/// A textured quad `m.obj` in `dir` naming material library `mtl`.
fn quad_naming_mtl(dir: &Path, mtl: &str) -> PathBuf {
    std::fs::write(dir.join("m.obj"), format!("mtllib {mtl}\n{QUAD}")).unwrap();
    dir.join("m.obj")
}

/// A textured quad whose `m.mtl` names `texture`.
fn quad(dir: &Path, texture: &str) -> PathBuf {
    std::fs::write(dir.join("m.mtl"), format!("newmtl skin\nmap_Kd {texture}\n")).unwrap();
    quad_naming_mtl(dir, "m.mtl")
}

fn png(path: &Path, rgba: [u8; 4]) {
    let img = spritebake::raster::Image { width: 2, height: 2, rgba: rgba.repeat(4) };
    spritebake::output::write_png(path, &img).unwrap();
}

fn mkfifo(path: &Path) {
    assert!(Command::new("mkfifo").arg(path).status().unwrap().success(), "mkfifo");
}

#[cfg(unix)]
fn symlink(target: &Path, link: &Path) {
    std::os::unix::fs::symlink(target, link).unwrap();
}

/// Renders `model` unlit and face-on; the RGBA pixels.
fn render(model: &Path, out: &Path, extra: &[&str]) -> Vec<[u8; 4]> {
    let mut args = vec!["render", p(model), "--size", "16", "--shading", "unlit", "--pitch", "0", "-o", p(out)];
    args.extend_from_slice(extra);
    let o = run(&args);
    assert_eq!(o.status.code(), Some(0), "{}", printed(&o));
    let img = spritebake::output::read_png(out).unwrap();
    img.rgba.chunks_exact(4).map(|c| [c[0], c[1], c[2], c[3]]).collect()
}

fn shows_green(pixels: &[[u8; 4]]) -> bool {
    pixels.iter().any(|p| p[3] == 255 && p[1] > 200 && p[0] < 50 && p[2] < 50)
}

fn shows_magenta_fallback(pixels: &[[u8; 4]]) -> bool {
    pixels.iter().any(|p| p[3] == 255 && p[0] > 200 && p[1] < 50 && p[2] > 200)
}

#[test]
fn reads_stay_inside_the_model_folder() {
    let root = scratch("mtllib");
    let dir = root.join("model");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(root.join("secret.mtl"), "newmtl LEAKED_SECRET\nKd 0 1 0\n").unwrap();
    let absolute = root.join("secret.mtl").display().to_string();
    // `..`, an absolute path, and a device that would block on a terminal or pipe.
    for name in ["../secret.mtl", absolute.as_str(), "/dev/stdin"] {
        let model = quad_naming_mtl(&dir, name);
        let o = run(&["info", p(&model)]);
        assert_refused(&o, &["m.obj", "material library", name, "refused", "outside the model's folder"]);
        assert!(!printed(&o).contains("LEAKED_SECRET"), "{name}: {}", printed(&o));
        // --texture-root opens that folder on purpose, for material libraries as for textures.
        if name != "/dev/stdin" {
            let o = run(&["info", p(&model), "--texture-root", p(&root)]);
            assert_eq!(o.status.code(), Some(0), "{name}: {}", printed(&o));
            assert!(printed(&o).contains("LEAKED_SECRET"), "{name}: {}", printed(&o));
        }
    }
    // A --texture-root that does not exist is an error, not silently no root.
    let o = run(&["info", p(&dir.join("m.obj")), "--texture-root", p(&root.join("typo"))]);
    assert_refused(&o, &["--texture-root", "typo"]);
    // A missing library stays a warning, as before.
    let model = quad_naming_mtl(&dir, "absent.mtl");
    let o = run(&["info", p(&model)]);
    assert_eq!(o.status.code(), Some(0), "{}", printed(&o));
    assert!(printed(&o).contains("material library 'absent.mtl' not found"), "{}", printed(&o));
}

#[cfg(unix)]
#[test]
fn fifos_and_devices_are_refused_without_blocking() {
    let dir = scratch("fifo");
    mkfifo(&dir.join("pipe.mtl"));
    let model = quad_naming_mtl(&dir, "pipe.mtl");
    let o = run(&["info", p(&model)]);
    assert_refused(&o, &["material library 'pipe.mtl'", "FIFO, not a regular file"]);
    // A FIFO texture: a warning and the visible fallback.
    let tex = scratch("fifo-texture");
    mkfifo(&tex.join("skin.png"));
    let model = quad(&tex, "skin.png");
    let o = run(&["info", p(&model)]);
    assert_eq!(o.status.code(), Some(0), "{}", printed(&o));
    assert!(printed(&o).contains("MISSING") && printed(&o).contains("FIFO, not a regular file"), "{}", printed(&o));
    assert!(shows_magenta_fallback(&render(&model, &tex.join("out.png"), &[])));
    // A FIFO glTF buffer is an error naming the rule.
    let gltf = triangle_gltf(&dir, "pipe.bin", None);
    mkfifo(&dir.join("pipe.bin"));
    assert_refused(&run(&["info", p(&gltf)]), &["buffer 'pipe.bin'", "FIFO, not a regular file"]);
    // Files the user names are not confined, but still regular files only: the model, an
    // attachment, a manifest, a device.
    assert_refused(&run(&["info", p(&dir.join("pipe.mtl"))]), &["FIFO, not a regular file"]);
    let body = tex.join("plain.obj");
    std::fs::write(&body, "v -1 -1 0\nv 1 -1 0\nv 1 1 0\nf 1 2 3\n").unwrap();
    let out = tex.join("attached.png");
    let o = run(&["render", p(&body), "--attach", p(&dir.join("pipe.mtl")), "-o", p(&out)]);
    assert_refused(&o, &["pipe.mtl", "FIFO, not a regular file"]);
    assert!(!out.exists(), "nothing rendered");
    mkfifo(&dir.join("cases.toml"));
    assert_refused(&run(&["check", p(&dir.join("cases.toml"))]), &["cases.toml", "FIFO, not a regular file"]);
    assert_refused(&run(&["info", "/dev/zero"]), &["/dev/zero", "device, not a regular file"]);
    // stdin is a pipe held open here: reading it would wait forever.
    assert_refused(&run(&["info", "/dev/stdin"]), &["/dev/stdin", "link to a pipe or socket, not a regular file"]);
    // The images `compare` reads, too.
    let image = tex.join("a.png");
    png(&image, [0, 255, 0, 255]);
    let o = run(&["compare", p(&dir.join("pipe.mtl")), p(&image)]);
    assert_refused(&o, &["pipe.mtl", "FIFO, not a regular file"]);
    assert_refused(&run(&["compare", p(&image), "/dev/stdin"]), &["/dev/stdin", "not a regular file"]);
}

/// The 36-byte buffer of one triangle's positions.
fn triangle_positions() -> Vec<u8> {
    [0f32, 0., 0., 1., 0., 0., 0., 1., 0.].iter().flat_map(|f| f.to_le_bytes()).collect()
}

/// A one-triangle glTF `tri.gltf` whose buffer is the file `bin` (the caller makes it a file,
/// FIFO or link), optionally with an external image.
fn triangle_gltf(dir: &Path, bin: &str, image: Option<&str>) -> PathBuf {
    let material = image.map_or(String::new(), |uri| {
        format!(
            r#","materials":[{{"pbrMetallicRoughness":{{"baseColorTexture":{{"index":0}}}}}}],"textures":[{{"source":0}}],"images":[{{"uri":"{uri}"}}]"#
        )
    });
    let primitive_material = if image.is_some() { r#","material":0"# } else { "" };
    let doc = format!(
        r#"{{"asset":{{"version":"2.0"}},"buffers":[{{"uri":"{bin}","byteLength":36}}],"bufferViews":[{{"buffer":0,"byteOffset":0,"byteLength":36}}],"accessors":[{{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[1,1,0]}}],"meshes":[{{"primitives":[{{"attributes":{{"POSITION":0}}{primitive_material}}}]}}],"nodes":[{{"mesh":0}}],"scenes":[{{"nodes":[0]}}],"scene":0{material}}}"#
    );
    std::fs::write(dir.join("tri.gltf"), doc).unwrap();
    dir.join("tri.gltf")
}

#[cfg(unix)]
#[test]
fn symlinks_in_the_model_folder_cannot_lead_out_of_it() {
    let root = scratch("links");
    let dir = root.join("model");
    std::fs::create_dir_all(&dir).unwrap();
    // Texture: a link to a green image outside shows the fallback, never the green.
    png(&root.join("secret.png"), [0, 255, 0, 255]);
    symlink(&root.join("secret.png"), &dir.join("skin.png"));
    let model = quad(&dir, "skin.png");
    let o = run(&["info", p(&model)]);
    assert_eq!(o.status.code(), Some(0), "{}", printed(&o));
    assert!(printed(&o).contains("MISSING") && printed(&o).contains("symbolic link"), "{}", printed(&o));
    let pixels = render(&model, &root.join("out.png"), &[]);
    assert!(!shows_green(&pixels) && shows_magenta_fallback(&pixels), "the linked-to secret was read");
    // A folder linked from inside is no way out either (texture found in a `skins/` link).
    let by_folder = root.join("by-folder");
    std::fs::create_dir_all(&by_folder).unwrap();
    symlink(&root, &by_folder.join("skins"));
    let model = quad(&by_folder, "secret.png");
    assert!(!shows_green(&render(&model, &root.join("out2.png"), &[])), "read through a linked folder");
    // Material library and glTF buffer: errors naming the rule.
    std::fs::write(root.join("secret.mtl"), "newmtl LEAKED_SECRET\n").unwrap();
    symlink(&root.join("secret.mtl"), &dir.join("linked.mtl"));
    let model = quad_naming_mtl(&dir, "linked.mtl");
    let o = run(&["info", p(&model)]);
    assert_refused(&o, &["material library 'linked.mtl'", "symbolic link", "outside the model's folder"]);
    assert!(!printed(&o).contains("LEAKED_SECRET"));
    std::fs::write(root.join("secret.bin"), triangle_positions()).unwrap();
    symlink(&root.join("secret.bin"), &dir.join("linked.bin"));
    let gltf = triangle_gltf(&dir, "linked.bin", None);
    assert_refused(&run(&["info", p(&gltf)]), &["buffer 'linked.bin'", "symbolic link", "outside the model's folder"]);
    // A link that stays inside the folder is followed.
    std::fs::rename(root.join("secret.bin"), dir.join("real.bin")).unwrap();
    std::fs::remove_file(dir.join("linked.bin")).unwrap();
    symlink(Path::new("real.bin"), &dir.join("linked.bin"));
    let o = run(&["info", p(&gltf)]);
    assert_eq!(o.status.code(), Some(0), "{}", printed(&o));
}

#[test]
fn texture_reads_are_bounded_by_max_file_mib() {
    let dir = scratch("bounded");
    // A valid green PNG padded past 1 MiB (decoders stop at IEND).
    png(&dir.join("skin.png"), [0, 255, 0, 255]);
    let mut file = std::fs::OpenOptions::new().append(true).open(dir.join("skin.png")).unwrap();
    file.write_all(&vec![0u8; 3 << 19]).unwrap();
    drop(file);
    let model = quad(&dir, "skin.png");
    assert!(shows_green(&render(&model, &dir.join("ok.png"), &[])), "the default limit reads it");
    let o = run(&["info", p(&model), "--max-file-mib", "1"]);
    assert_eq!(o.status.code(), Some(0), "{}", printed(&o));
    assert!(
        printed(&o).contains("MISSING")
            && printed(&o).contains("over the 1048576 byte limit (raise it with --max-file-mib)"),
        "{}",
        printed(&o)
    );
    let pixels = render(&model, &dir.join("refused.png"), &["--max-file-mib", "1"]);
    assert!(!shows_green(&pixels) && shows_magenta_fallback(&pixels));
    // The same bound holds for a --texture the user names.
    let o = run(&["info", p(&model), "--max-file-mib", "1", "--texture", p(&dir.join("skin.png"))]);
    assert!(printed(&o).contains("over the 1048576 byte limit"), "{}", printed(&o));
}

#[test]
fn sources_list_every_file_read() {
    let dir = scratch("sources");
    let canonical = |name: &str| std::fs::canonicalize(dir.join(name)).unwrap();
    // A texture that fails to decode is still a source (an output must not replace it).
    std::fs::write(dir.join("bad.png"), b"not an image").unwrap();
    let model = quad(&dir, "bad.png");
    let loaded = spritebake::formats::load(&model, &Default::default()).unwrap();
    assert_eq!(loaded.sources, vec![canonical("bad.png"), canonical("m.mtl"), canonical("m.obj")]);
    // glTF: the buffer and the external image.
    png(&dir.join("skin.png"), [0, 255, 0, 255]);
    std::fs::write(dir.join("tri.bin"), triangle_positions()).unwrap();
    let gltf = triangle_gltf(&dir, "tri.bin", Some("skin.png"));
    let loaded = spritebake::formats::load(&gltf, &Default::default()).unwrap();
    assert_eq!(loaded.sources, vec![canonical("skin.png"), canonical("tri.bin"), canonical("tri.gltf")]);
}

/// `root/check/cases.toml` with one case `a` and `body`, beside a model in `root/check/m.obj`.
fn manifest(root: &Path, body: &str) -> PathBuf {
    let dir = root.join("check");
    std::fs::create_dir_all(&dir).unwrap();
    png(&dir.join("skin.png"), [0, 255, 0, 255]);
    quad(&dir, "skin.png");
    std::fs::write(dir.join("cases.toml"), format!("[[case]]\nname = \"a\"\nsize = \"8x8\"\n{body}\n")).unwrap();
    dir.join("cases.toml")
}

#[test]
fn manifest_paths_stay_inside_the_manifest_folder() {
    let root = scratch("manifest");
    let assets = root.join("assets");
    std::fs::create_dir_all(&assets).unwrap();
    png(&assets.join("skin.png"), [0, 255, 0, 255]);
    let outside_model = quad(&assets, "skin.png");
    std::fs::write(assets.join("walk.smd"), "version 1\nnodes\nend\nskeleton\nend\n").unwrap();
    let absolute = outside_model.display().to_string();
    // Each key, with a `..` path and with an absolute one.
    for (key, body) in [
        ("model", "model = \"../assets/m.obj\"\ngolden = \"a.png\"".to_string()),
        ("model", format!("model = \"{absolute}\"\ngolden = \"a.png\"")),
        ("golden", "model = \"m.obj\"\ngolden = \"../assets/skin.png\"".to_string()),
        ("golden", "model = \"m.obj\"\ngolden = \"../new/a.png\"".to_string()),
        ("texture", "model = \"m.obj\"\ntexture = [\"../assets/skin.png\"]\ngolden = \"a.png\"".to_string()),
        ("anim", "model = \"m.obj\"\nanim = [\"../assets/walk.smd\"]\ngolden = \"a.png\"".to_string()),
        ("attach", format!("model = \"m.obj\"\nattach = [\"{absolute}\"]\ngolden = \"a.png\"")),
    ] {
        let m = manifest(&root, &body);
        let o = run(&["check", p(&m)]);
        let out = printed(&o);
        assert_eq!(o.status.code(), Some(1), "{key}: {out}");
        assert!(out.contains(&format!("ERROR a: `{key}` = '")), "{key}: {out}");
        assert!(out.contains("refused") && out.contains("outside the manifest's folder"), "{key}: {out}");
        assert!(out.contains("(--allow-dir allows another folder)") && out.contains("0 passed, 0 failed, 1 errors"));
        assert!(!root.join("new").exists(), "{key}: nothing written outside");
    }
    // --allow-dir opens a folder on purpose.
    let m = manifest(&root, "model = \"../assets/m.obj\"\ngolden = \"a.png\"");
    let o = run(&["check", p(&m), "--bless", "--allow-dir", p(&assets)]);
    assert_eq!(o.status.code(), Some(0), "{}", printed(&o));
    assert!(root.join("check/a.png").is_file());
    // A folder that does not exist is an error, not silently nothing.
    let o = run(&["check", p(&m), "--allow-dir", p(&root.join("typo"))]);
    assert_refused(&o, &["--allow-dir", "typo"]);
}

#[cfg(unix)]
#[test]
fn manifest_links_are_judged_where_they_lead() {
    let root = scratch("manifest-links");
    let assets = root.join("assets");
    std::fs::create_dir_all(&assets).unwrap();
    png(&assets.join("skin.png"), [0, 255, 0, 255]);
    let outside_model = quad(&assets, "skin.png");
    let m = manifest(&root, "model = \"linked.obj\"\ngolden = \"a.png\"");
    symlink(&outside_model, &root.join("check/linked.obj"));
    let o = run(&["check", p(&m)]);
    assert_eq!(o.status.code(), Some(1), "{}", printed(&o));
    assert!(
        printed(&o).contains("ERROR a: `model` = 'linked.obj' refused: a symbolic link leads it to"),
        "{}",
        printed(&o)
    );
}

#[cfg(unix)]
#[test]
fn check_html_never_copies_an_outside_file() {
    let root = scratch("html");
    // A distinctive image outside the manifest's folder, named as a golden directly and
    // through a link inside the folder.
    let secret =
        spritebake::raster::Image { width: 3, height: 1, rgba: vec![1, 2, 3, 255, 4, 5, 6, 255, 7, 8, 9, 255] };
    spritebake::output::write_png(&root.join("secret.png"), &secret).unwrap();
    let secret_bytes = std::fs::read(root.join("secret.png")).unwrap();
    let m = manifest(
        &root,
        "model = \"m.obj\"\ngolden = \"../secret.png\"\n[[case]]\nname = \"b\"\nmodel = \"m.obj\"\ngolden = \"linked.png\"",
    );
    symlink(&root.join("secret.png"), &root.join("check/linked.png"));
    let report = root.join("report");
    let o = run(&["check", p(&m), "--html", p(&report)]);
    let out = printed(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("ERROR a: `golden` = '../secret.png' refused"), "{out}");
    assert!(out.contains("ERROR b: `golden` = 'linked.png' refused: a symbolic link"), "{out}");
    let mut files: Vec<String> =
        std::fs::read_dir(&report).unwrap().flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect();
    files.sort();
    assert_eq!(files, ["index.html"], "only the page, no copied golden");
    for entry in std::fs::read_dir(&report).unwrap().flatten() {
        assert_ne!(std::fs::read(entry.path()).unwrap(), secret_bytes);
    }
    assert_eq!(std::fs::read(root.join("secret.png")).unwrap(), secret_bytes, "the outside file is untouched");
}
