//! Untrusted input and faults: paths out of the model's folder, outputs over inputs, batches
//! with broken items.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common;
use crate::common::cli::printed;

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_spritebake")).args(args).output().unwrap()
}

fn scratch(name: &str) -> PathBuf {
    common::cli::scratch_in("hostile", name)
}

fn quad(dir: &Path, texture: &str) -> PathBuf {
    std::fs::write(dir.join("m.obj"), "mtllib m.mtl\nv -1 -1 0\nv 1 -1 0\nv 1 1 0\nv -1 1 0\nvt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\nusemtl skin\nf 1/1 2/2 3/3 4/4\n").unwrap();
    std::fs::write(dir.join("m.mtl"), format!("newmtl skin\nmap_Kd {texture}\n")).unwrap();
    dir.join("m.obj")
}

fn green_png(path: &Path) {
    let img = spritebake::raster::Image { width: 2, height: 2, rgba: [0, 255, 0, 255].repeat(4) };
    spritebake::output::write_png(path, &img).unwrap();
}

#[test]
fn texture_paths_never_leave_the_model_folder_unless_allowed() {
    let root = scratch("paths");
    let model_dir = root.join("assets/model");
    std::fs::create_dir_all(&model_dir).unwrap();
    green_png(&root.join("secret.png"));
    let absolute = root.join("secret.png").display().to_string();
    for name in ["../../secret.png", absolute.as_str()] {
        let model = quad(&model_dir, name);
        let o = run(&["info", model.to_str().unwrap()]);
        assert!(o.status.success(), "{}", printed(&o));
        let out = printed(&o);
        assert!(out.contains("MISSING") && out.contains("refused"), "{name}: {out}");
        // The render shows the missing-texture checker, not the secret's green.
        let png = root.join("out.png");
        let o = run(&[
            "render",
            model.to_str().unwrap(),
            "--size",
            "16",
            "--shading",
            "unlit",
            "--pitch",
            "0",
            "-o",
            png.to_str().unwrap(),
        ]);
        assert!(o.status.success());
        let img = spritebake::output::read_png(&png).unwrap();
        assert!(
            !img.rgba.chunks_exact(4).any(|p| p[3] == 255 && p[1] > 200 && p[0] < 50),
            "{name}: the secret was read"
        );
        // --texture-root opens that folder on purpose.
        let o = run(&["info", model.to_str().unwrap(), "--texture-root", root.to_str().unwrap()]);
        assert!(!printed(&o).contains("MISSING"), "{name}: {}", printed(&o));
    }
}

#[test]
fn outputs_never_overwrite_inputs() {
    let dir = scratch("overwrite");
    green_png(&dir.join("skin.png"));
    let model = quad(&dir, "skin.png");
    let before = std::fs::read(&model).unwrap();
    for target in [model.clone(), dir.join("skin.png")] {
        let o = run(&["render", model.to_str().unwrap(), "--size", "8", "-o", target.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2));
        assert!(printed(&o).contains("refusing to overwrite"), "{}", printed(&o));
    }
    assert_eq!(std::fs::read(&model).unwrap(), before);
}

#[test]
fn a_batch_with_broken_items_finishes_the_rest_and_leaves_no_stray_files() {
    let dir = scratch("batch");
    let out = dir.join("thumbs");
    std::fs::create_dir_all(out.join("blocked.png")).unwrap(); // an output that cannot be written
    let good_a = quad(&scratch("batch-a"), "none.png");
    let tower = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/assets/tower.obj");
    let corrupt = dir.join("corrupt.md2");
    std::fs::write(&corrupt, b"IDP2\x08\x00\x00\x00garbage").unwrap();
    let blocked = dir.join("blocked.obj");
    std::fs::copy(&tower, &blocked).unwrap();
    std::fs::copy(tower.with_file_name("tower.mtl"), dir.join("tower.mtl")).unwrap();
    let o = run(&[
        "thumbnail",
        "--size",
        "32",
        "-o",
        out.to_str().unwrap(),
        good_a.to_str().unwrap(),
        corrupt.to_str().unwrap(),
        blocked.to_str().unwrap(),
        tower.to_str().unwrap(),
    ]);
    let report = printed(&o);
    assert_eq!(o.status.code(), Some(1), "{report}");
    assert!(report.contains("FAIL  ") && report.contains("corrupt.md2") && report.contains("blocked.obj"), "{report}");
    assert!(report.contains("2 thumbnails, 2 failed"), "{report}");
    assert!(out.join("m.png").is_file() && out.join("tower.png").is_file());
    let stray: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(stray.is_empty(), "{stray:?}");
}
