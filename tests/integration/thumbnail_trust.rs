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
