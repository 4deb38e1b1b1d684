//! `spritebake thumbnail` under the trust model (issue 46, "Trust, round 4"): its reports go
//! through the output plan, a folder scan reads nothing a link leads it to outside the folder,
//! an unreadable subfolder fails alone. Every model is a one-triangle OBJ (or an SMD) a test
//! writes into its own temporary folder.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::cli::{assert_refused, printed, scratch_in};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_spritebake")).args(args).output().expect("run spritebake")
}

fn scratch(name: &str) -> PathBuf {
    scratch_in("thumbnail-trust", name)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `folder/NAME.obj`, one triangle whose material `skin` has the texture `texture`, with its
/// material library `folder/NAME.mtl`; the texture, a 2×2 PNG, is written under that name.
fn textured_model(folder: &Path, name: &str, texture: &str) -> PathBuf {
    std::fs::create_dir_all(folder).unwrap();
    std::fs::write(folder.join(format!("{name}.mtl")), format!("newmtl skin\nmap_Kd {texture}\n")).unwrap();
    let skin = spritebake::output::encode_png(&spritebake::Image::new(2, 2).unwrap()).unwrap();
    std::fs::write(folder.join(texture), skin).unwrap();
    let model = folder.join(format!("{name}.obj"));
    std::fs::write(&model, format!("mtllib {name}.mtl\nusemtl skin\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n")).unwrap();
    model
}

/// The bytes of every file under `dir`, by path.
fn contents(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(contents(&path));
        } else {
            files.push((path.clone(), std::fs::read(&path).unwrap()));
        }
    }
    files.sort();
    files
}

/// R4-15: a report on a file a model of the batch reads (its texture, its material library)
/// is refused like a thumbnail on it: exit 2, one error line naming the file and the model,
/// nothing written, the file as it was.
#[test]
fn a_report_never_replaces_a_file_a_model_of_the_batch_reads() {
    let dir = scratch("report-on-input");
    let assets = dir.join("assets");
    let model = textured_model(&assets, "a", "tex.png");
    let before = contents(&assets);
    let out = dir.join("out");
    for report in [assets.join("tex.png"), assets.join("a.mtl")] {
        let o = run(&["thumbnail", "--size", "8", s(&assets), "-o", s(&out), "--json", s(&report)]);
        assert_refused(&o, &[s(&report), s(&model), "nothing was written"]);
        assert_eq!(contents(&assets), before, "an input changed: {}", printed(&o));
        assert!(!out.exists(), "a thumbnail was written before the refusal");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// R4-15: `--html` into the models' folder, where `index.html` is what a model uses as its
/// texture (an image by content, whatever its name).
#[test]
fn the_index_page_never_replaces_a_file_a_model_of_the_batch_reads() {
    let dir = scratch("index-on-input");
    let assets = dir.join("assets");
    let model = textured_model(&assets, "b", "index.html");
    let before = contents(&assets);
    let o = run(&["thumbnail", "--size", "8", s(&assets), "-o", s(&assets), "--html"]);
    assert_refused(&o, &[s(&assets.join("index.html")), s(&model), "nothing was written"]);
    assert_eq!(contents(&assets), before, "an input changed or a thumbnail was written: {}", printed(&o));
    std::fs::remove_dir_all(dir).unwrap();
}

/// A one-triangle OBJ at `path` (folders made).
fn triangle(path: &Path) -> PathBuf {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n").unwrap();
    path.to_path_buf()
}

/// The `--json` records of a batch.
fn records(json: &Path) -> Vec<serde_json::Value> {
    serde_json::from_slice::<serde_json::Value>(&std::fs::read(json).unwrap()).unwrap().as_array().unwrap().clone()
}

/// R4-05: a model file in a scanned folder that is a symbolic link leading out of the folder
/// is refused without being read (a folder link is not followed either): one FAIL line naming
/// the link, and neither the terminal, the index page nor the JSON quotes what it leads to.
/// Named on the command line, the same file is read wherever it is.
#[cfg(unix)]
#[test]
fn a_scanned_link_leading_out_of_the_folder_is_refused_unread() {
    const SECRET: &str = "R4-05-secret-marker";
    let dir = scratch("file-links");
    let assets = dir.join("assets");
    triangle(&assets.join("a.obj"));
    // Inside the folder a link is followed as before (here to a file of another extension).
    triangle(&assets.join("real.txt"));
    std::os::unix::fs::symlink("real.txt", assets.join("inside.obj")).unwrap();
    std::fs::create_dir_all(dir.join("private")).unwrap();
    std::fs::write(dir.join("private/notes.txt"), format!("{SECRET}\n")).unwrap();
    let (environ, notes) = (assets.join("x.smd"), assets.join("y.smd"));
    std::os::unix::fs::symlink("/proc/self/environ", &environ).unwrap();
    std::os::unix::fs::symlink("../private/notes.txt", &notes).unwrap();
    let (out, json) = (dir.join("out"), dir.join("records.json"));
    let o = Command::new(env!("CARGO_BIN_EXE_spritebake"))
        .args(["thumbnail", "--size", "8", s(&assets), "-o", s(&out), "--html", "--json", s(&json)])
        .env("SPRITEBAKE_TEST_SECRET", SECRET)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", printed(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    for link in [&environ, &notes] {
        let fail = format!("FAIL  {}: refused: a symbolic link leads it to ", s(link));
        assert!(text.lines().any(|l| l.starts_with(&fail) && l.contains("outside")), "{text}");
    }
    assert!(text.ends_with("2 thumbnails, 2 failed\n"), "{text}");
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    for shown in [printed(&o), index, std::fs::read_to_string(&json).unwrap()] {
        assert!(!shown.contains(SECRET), "a file outside the folder was quoted: {shown}");
    }
    // Named on the command line, a file is the user's to point anywhere.
    let o = run(&["thumbnail", "--size", "8", s(&notes), "-o", s(&dir.join("named.png"))]);
    assert_eq!(o.status.code(), Some(1), "{}", printed(&o));
    assert!(printed(&o).contains("version 1"), "{}", printed(&o));
    std::fs::remove_dir_all(dir).unwrap();
}

/// R4-13: a subfolder the scan cannot read is one FAIL line (and one failed record); the
/// other models render and the batch exits 1. Root reads a folder whatever its permissions,
/// so there the command runs as `nobody` (uid 65534).
#[cfg(unix)]
#[test]
fn an_unreadable_subfolder_fails_alone() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    use std::os::unix::process::CommandExt;
    let dir = scratch("unreadable");
    let assets = dir.join("assets");
    let (a, c) = (triangle(&assets.join("a.obj")), triangle(&assets.join("z/c.obj")));
    triangle(&assets.join("locked/b.obj"));
    let locked = assets.join("locked");
    let out = dir.join("out");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o777)).unwrap();
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    let json = out.join("records.json");
    let as_root = std::fs::metadata(&dir).unwrap().uid() == 0;
    // `nobody` may not reach the build's folder (a clone under /root): it runs a copy of the
    // binary in the scratch folder.
    let binary = if as_root {
        let copy = dir.join("spritebake");
        std::fs::copy(env!("CARGO_BIN_EXE_spritebake"), &copy).unwrap();
        std::fs::set_permissions(&copy, std::fs::Permissions::from_mode(0o755)).unwrap();
        copy
    } else {
        std::path::PathBuf::from(env!("CARGO_BIN_EXE_spritebake"))
    };
    let mut command = Command::new(binary);
    command.args(["thumbnail", "--size", "8", s(&assets), "-o", s(&out), "--json", s(&json)]);
    if as_root {
        command.uid(65534).gid(65534);
    }
    // The fresh copy may still be open for writing in a child another test forked meanwhile
    // (it inherits the descriptor until it execs): running it then fails with "Text file busy".
    let o = (0..50)
        .map(|_| command.output())
        .find(|o| {
            let busy = matches!(o, Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy);
            if busy {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            !busy
        })
        .unwrap()
        .unwrap();
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", printed(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains(&format!("FAIL  {}: cannot read this folder", s(&locked))), "{text}");
    for model in [&a, &c] {
        assert!(text.contains(&format!("ok    {}", s(model))), "{text}");
    }
    assert!(text.ends_with("2 thumbnails, 1 failed\n"), "{text}");
    let failed: Vec<_> = records(&json).into_iter().filter(|r| r["status"] == "failed").collect();
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert_eq!(failed[0]["input"], s(&locked));
    std::fs::remove_dir_all(dir).unwrap();
}

/// R4-10: a hostile file's text quoted in a parse error (a token or line that is not what was
/// expected) is a short excerpt, however long the line: on the terminal, in the index page and
/// in the JSON.
#[test]
fn errors_quote_a_short_excerpt_of_a_huge_line() {
    let dir = scratch("huge-line");
    let assets = dir.join("assets");
    std::fs::create_dir_all(&assets).unwrap();
    let huge = "A".repeat(2 << 20);
    let files = [
        ("first.smd", huge.clone()),
        ("vertex.obj", format!("v 0 0 {huge}\n")),
        ("face.obj", format!("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 {huge}\n")),
        ("version.md5mesh", format!("MD5Version {huge}\n")),
        ("joint.md5mesh", format!("MD5Version 10\ncommandline \"\"\nnumJoints {huge}\n")),
    ];
    for (name, text) in &files {
        std::fs::write(assets.join(name), text).unwrap();
    }
    let (out, json) = (dir.join("out"), dir.join("records.json"));
    let o = run(&["thumbnail", "--size", "8", s(&assets), "-o", s(&out), "--html", "--json", s(&json)]);
    assert_eq!(o.status.code(), Some(1), "{}", printed(&o));
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    let reports = [printed(&o), index, std::fs::read_to_string(&json).unwrap()];
    for shown in &reports {
        assert!(!shown.contains(&"A".repeat(100)), "a long quote: {} bytes", shown.len());
    }
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(text.lines().filter(|l| l.starts_with("FAIL") && l.contains("AAAA…")).count(), files.len(), "{text}");
    std::fs::remove_dir_all(dir).unwrap();
}
