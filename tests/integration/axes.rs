//! A model's up and front axes (`--up`, `--facing`): a Z-up OBJ declared `--up +z` renders as
//! the Y-up original, and a front along the up axis is refused before anything renders.

use std::path::{Path, PathBuf};
use std::process::Command;

use spritebake::golden::Tolerance;
use spritebake::model::Axis;
use spritebake::raster::Image;
use spritebake::spec::Size;
use spritebake::{BakeSpec, MemoryBudget, bake};

use crate::common::cli::{printed, scratch_in};
use crate::common::golden::assert_golden;

fn assets() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/assets")
}

/// The textual negation of a number as an OBJ writes it (exact: no float is re-printed).
fn negated(number: &str) -> String {
    match number.strip_prefix('-') {
        Some(positive) => positive.to_string(),
        None => format!("-{number}"),
    }
}

/// The example tower turned a quarter turn about X so that Z is up: every position and normal
/// (x, y, z) is written (x, -z, y), its front (+Z) becoming -Y. The material library and texture
/// are copied beside it.
fn z_up_tower(dir: &Path) -> PathBuf {
    let text = std::fs::read_to_string(assets().join("tower.obj")).unwrap();
    let mut turned = String::new();
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            [kind @ ("v" | "vn"), x, y, z] => turned.push_str(&format!("{kind} {x} {} {y}\n", negated(z))),
            _ => turned.push_str(&format!("{line}\n")),
        }
    }
    assert!(turned.lines().filter(|l| l.starts_with("v ")).count() > 100);
    std::fs::write(dir.join("tower_z_up.obj"), turned).unwrap();
    for file in ["tower.mtl", "tower_bricks.png"] {
        std::fs::copy(assets().join(file), dir.join(file)).unwrap();
    }
    dir.join("tower_z_up.obj")
}

/// A small lit three-quarter render of `model` through the spec, as `render` makes it.
fn render(model: &Path, up: Option<Axis>, facing: Option<Axis>) -> Image {
    let mut spec = BakeSpec::default();
    spec.model.model = model.to_path_buf();
    (spec.model.up, spec.model.facing) = (up, facing);
    spec.view.size = Size { width: 72, height: 96 }.into();
    (spec.view.yaw, spec.view.pitch) = (30.0, 20.0);
    spec.render.ssaa = 2;
    let resolved = spec.resolve().unwrap();
    let loaded = bake::load(&resolved).unwrap();
    let (mut images, _) = bake::render_moments(&loaded, &resolved, &MemoryBudget::default(), &|| {}).unwrap();
    images.remove(0)
}

#[test]
fn z_up_obj_declared_up_z_renders_as_the_y_up_original() {
    let dir = scratch_in("axes", "z-up");
    let turned = z_up_tower(&dir);
    let original = render(&assets().join("tower.obj"), None, None);
    let declared = render(&turned, Some(Axis::PosZ), None);
    assert!(declared.covered_pixels() > 1500, "{} pixels", declared.covered_pixels());
    // The quarter turn back is exact (its matrix holds only 0 and ±1), so the images agree to
    // the last bit but for rounding in normals: at most one level in a few pixels.
    let report = spritebake::golden::compare(&declared, &original, 1).unwrap();
    assert!(report.differing_pixels == 0 && report.max_alpha_delta <= 1, "{report:?}");
    // `--up +z` alone faces -Y, as if given; undeclared, the tower lies on its back.
    assert_eq!(render(&turned, Some(Axis::PosZ), Some(Axis::NegY)).rgba, declared.rgba);
    let lying = render(&turned, None, None);
    let report = spritebake::golden::compare(&lying, &original, 16).unwrap();
    assert!(report.differing_pixels > 500, "{report:?}");
    assert_golden(&declared, Tolerance { channel: 1, max_pixels: 8 });
    std::fs::remove_dir_all(dir).unwrap();
}

fn spritebake(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_spritebake")).args(args).output().expect("run spritebake")
}

#[test]
fn a_front_along_the_up_axis_is_refused_before_rendering() {
    let dir = scratch_in("axes", "parallel");
    let out = dir.join("t.png");
    let tower = assets().join("tower.obj");
    let robot = assets().join("robot/robot.md2");
    let cases: [(&Path, &[&str], &[&str]); 4] = [
        // The format's own up axis (known only once the file is detected).
        (&tower, &["--facing", "+y"], &["--facing +y", "up axis +y", "OBJ convention", "--up"]),
        (&tower, &["--facing", "-y"], &["--facing -y", "up axis +y"]),
        (&robot, &["--facing", "+z"], &["--facing +z", "up axis +z", "MD2 convention"]),
        // Both given: refused by the spec, before the model is read.
        (&tower, &["--up", "+z", "--facing", "-z"], &["--facing -z", "--up (+z)"]),
    ];
    for (model, flags, needles) in cases {
        let mut args = vec!["render", model.to_str().unwrap()];
        args.extend_from_slice(flags);
        args.extend(["--size", "32", "-o", out.to_str().unwrap()]);
        let o = spritebake(&args);
        let text = printed(&o);
        assert_eq!(o.status.code(), Some(2), "{flags:?}: {text}");
        assert_eq!(text.trim_end().lines().count(), 1, "{flags:?}: {text}");
        assert!(text.starts_with("error: "), "{flags:?}: {text}");
        for needle in needles {
            assert!(text.contains(needle), "{flags:?}: {needle:?} not in {text}");
        }
        assert!(!out.exists(), "{flags:?} wrote an image");
    }
    // The same refusal for a manifest or project key.
    let table: toml::Table = "model = \"m.obj\"\nup = \"+z\"\nfacing = \"+z\"".parse().unwrap();
    let spec = BakeSpec::from_table(&table, &[]).unwrap();
    assert_eq!(spec.model.up, Some(Axis::PosZ));
    assert!(spec.resolve().unwrap_err().to_string().starts_with("`facing` = +z: is parallel to `up` (+z)"));
    // A front at right angles to a declared up axis renders.
    let o = spritebake(&["render", tower.to_str().unwrap(), "--up", "+x", "--size", "32", "-o", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", printed(&o));
    std::fs::remove_dir_all(dir).unwrap();
}

/// A two-legged SMD (Z up, facing -Y by the format's convention) whose toes point along
/// `toe_y` (−1: forward, as the convention says; +1: the model is turned round).
fn smd_biped(toe_y: i32) -> String {
    let mut smd = String::from("version 1\nnodes\n0 \"pelvis\" -1\n1 \"foot_L\" 0\n2 \"toe_L\" 1\n");
    smd.push_str("3 \"foot_R\" 0\n4 \"toe_R\" 3\nend\nskeleton\ntime 0\n0 0 0 40 0 0 0\n");
    smd.push_str(&format!(
        "1 5 0 -35 0 0 0\n2 0 {} -3 0 0 0\n3 -5 0 -35 0 0 0\n4 0 {} -3 0 0 0\nend\n",
        6 * toe_y,
        6 * toe_y
    ));
    smd.push_str("triangles\n");
    let corners = [(0, [-8, 0, 0]), (0, [8, 0, 0]), (0, [0, 0, 30]), (1, [0, 0, 0]), (2, [0, 0, 0]), (4, [0, 0, 0])];
    for (i, (bone, [x, y, z])) in corners.into_iter().enumerate() {
        if i % 3 == 0 {
            smd.push_str("body.bmp\n");
        }
        smd.push_str(&format!("{bone} {x} {y} {z} 0 -1 0 0 0\n"));
    }
    smd.push_str("end\n");
    smd
}

#[test]
fn a_model_turned_round_is_named_by_info_and_warned_about_once_by_render() {
    let dir = scratch_in("axes", "turned");
    let out = dir.join("t.png");
    let (right, turned) = (dir.join("right.smd"), dir.join("turned.smd"));
    std::fs::write(&right, smd_biped(-1)).unwrap();
    std::fs::write(&turned, smd_biped(1)).unwrap();
    let info = |model: &Path| printed(&spritebake(&["info", model.to_str().unwrap()]));
    assert!(info(&right).contains("facing: -y (its toes agree)\n"), "{}", info(&right));
    assert!(info(&turned).contains("facing: -y, but its toes show +y: try --facing +y\n"), "{}", info(&turned));
    let render = |model: &Path, flags: &[&str]| {
        let mut args = vec!["render", model.to_str().unwrap(), "--size", "16", "-o", out.to_str().unwrap()];
        args.extend_from_slice(flags);
        let o = spritebake(&args);
        assert!(o.status.success(), "{}", printed(&o));
        String::from_utf8_lossy(&o.stderr).matches("its toes show it facing").count()
    };
    assert_eq!(render(&right, &[]), 0);
    assert_eq!(render(&turned, &[]), 1);
    let said = printed(&spritebake(&["render", turned.to_str().unwrap(), "--size", "16", "-o", out.to_str().unwrap()]));
    assert!(
        said.contains(
            "turned: its toes show it facing +y in its file, but it is rendered facing -y (its format's \
             convention), so the S direction shows its back; `--facing +y` turns it round"
        ),
        "{said}"
    );
    // Declared the way it faces: no hint; declared wrong: the hint says so.
    assert_eq!(render(&turned, &["--facing", "+y"]), 0);
    assert_eq!(render(&right, &["--facing", "+x"]), 1);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn the_corpus_characters_raise_no_false_facing_hint() {
    let Some(root) = crate::common::corpus("") else { return };
    // Each rigged character with a sign, and what the sign says. bob_lamp is a Blender export
    // that faces -y, against Doom 3's +x: its default render shows its side (seen, and the
    // hint's `--facing -y` shows its front).
    let expected = [
        ("fbx/flair/Flair.fbx", "facing: +z (its toes agree)"),
        ("gltf/fox/Fox.glb", "facing: +z (its head and tail agree)"),
        ("smd/headcrab/headcrab.qc", "facing: -y (its toes agree)"),
        ("smd/combine_soldier_lod4/combine_soldier_Soldier_reference_lod4.smd", "facing: -y (its toes agree)"),
        ("md5/bob_lamp/boblampclean.md5mesh", "facing: +x, but its toes show -y: try --facing -y"),
        // No named joints, or no skeleton: nothing to tell by, so nothing is said.
        ("gltf/cesiumman/CesiumMan.glb", "facing: +z (nothing in the model to check it by)"),
        ("md2/ogro/ogro.md2", "facing: +x (nothing in the model to check it by)"),
        ("iqm/mrfixit/mrfixit.iqm", "facing: +x (nothing in the model to check it by)"),
    ];
    for (file, line) in expected {
        let said = printed(&spritebake(&["info", root.join(file).to_str().unwrap()]));
        assert!(said.lines().any(|l| l == line), "{file}: {line:?} not in {said}");
    }
}
