//! The ground a sheet stands on (issue 43, `--ground`): by default the lowest point of the
//! model's reference pose, so a standing clip stands on its pivot whichever clips share the
//! sheet; `lowest` (the job's lowest point, as before), `origin` and a height on request.

use std::path::Path;

use crate::common;
use crate::common::cli::{WrittenSheet, printed, run_in, scratch_in};

/// Bakes a 4-direction orthographic sheet of `model` seen at eye level (the ground plane
/// edge-on: every point of it on one row) with `args` in `dir` as `name.png`.
fn sheet(dir: &Path, name: &str, model: &Path, args: &[&str]) -> WrittenSheet {
    let png = dir.join(format!("{name}.png"));
    let base = ["sheet", model.to_str().unwrap(), "--directions", "4", "--pitch", "0", "--ortho", "--quiet", "-o"];
    let o = run_in(dir, &[&base[..], &[png.to_str().unwrap()], args].concat());
    assert!(o.status.success(), "{}", printed(&o));
    WrittenSheet::read(&png)
}

/// How far below the pivot (in rows; negative: above) the lowest opaque row of each frame of
/// `tag` lies.
fn feet_below_pivot(sheet: &WrittenSheet, tag: &str) -> Vec<i64> {
    let names = sheet.names().into_iter().filter(|n| n.starts_with(&format!("{tag}_")));
    names
        .map(|name| {
            let (_, y, _, h) = sheet.frame(&name).opaque_bounds().unwrap();
            let pivot = &sheet.json["frames"][&name]["pivot"]["y"];
            let pivot_row = (pivot.as_f64().unwrap() * f64::from(sheet.frame(&name).height)).round() as i64;
            i64::from(y + h) - pivot_row
        })
        .collect()
}

#[test]
fn ogro_stands_on_its_pivot_beside_its_death_clips() {
    let Some(dir) = common::corpus("md2/ogro") else { return };
    let ogro = dir.join("ogro.md2");
    let out = scratch_in("ground", "ogro");
    let deaths = "stand,deatha,deathb,deathc,crdeath";
    // Direction W of 4 is the side view, where a fall is deepest below the standing feet.
    for (name, anim) in [("alone", "stand"), ("deaths", deaths)] {
        let feet = feet_below_pivot(&sheet(&out, name, &ogro, &["--anim", anim, "--size", "128"]), "stand_W");
        assert_eq!(feet.len(), 40);
        // Every frame of the stand has its feet on the ground: the lowest row at the pivot.
        assert!(feet.iter().all(|f| f.abs() <= 1), "{name}: {feet:?}");
    }
    // The job's lowest point, as sheets were framed before: the deaths sink below the stand's
    // feet, and the stand floats above its pivot.
    let lowest = sheet(&out, "lowest", &ogro, &["--anim", deaths, "--size", "128", "--ground", "lowest"]);
    let feet = feet_below_pivot(&lowest, "stand_W");
    assert!(feet.iter().all(|&f| f < -3), "{feet:?}");
    std::fs::remove_dir_all(out).unwrap();
}

#[test]
fn a_ground_height_moves_the_pivot_by_that_height_at_a_fixed_scale() {
    let out = scratch_in("ground", "height");
    let robot = Path::new(&common::robot("robot.md5mesh")).to_path_buf();
    let walk = common::robot("walk.md5anim");
    let fixed = ["--anim", &walk, "--pixels-per-unit", "2", "--size", "160"];
    let pivot_row = |ground: &str| {
        let sheet = sheet(&out, &format!("g{ground}"), &robot, &[&fixed[..], &["--ground", ground]].concat());
        let name = &sheet.names()[0];
        sheet.json["frames"][name]["pivot"]["y"].as_f64().unwrap() * 160.0
    };
    // 2 px a unit: a ground 5 units up is 10 rows higher than the origin's.
    let (origin, up) = (pivot_row("origin"), pivot_row("5"));
    assert!((origin - up - 10.0).abs() < 1e-3, "origin {origin}, 5 units up {up}");
    std::fs::remove_dir_all(out).unwrap();
}

#[test]
fn a_ground_that_is_not_one_is_refused() {
    let out = scratch_in("ground", "refused");
    let robot = common::robot("robot.md5mesh");
    let o = run_in(&out, &["sheet", &robot, "--ground", "floor", "-o", "x.png"]);
    assert_eq!(o.status.code(), Some(2), "{}", printed(&o));
    assert!(printed(&o).contains("expected auto, origin, lowest or a height"), "{}", printed(&o));
    std::fs::remove_dir_all(out).unwrap();
}

#[test]
fn info_says_where_the_ground_is_and_which_pose_set_it() {
    let out = scratch_in("ground", "info");
    for (file, pose) in [("robot.md5mesh", "the rest pose"), ("robot.md2", "the first frame of '")] {
        let o = run_in(&out, &["info", &common::robot(file)]);
        let text = printed(&o);
        let line = text.lines().find(|l| l.starts_with("ground: ")).unwrap_or_else(|| panic!("{text}"));
        assert!(line.contains(&format!("(the lowest point of {pose}")), "{line}");
        let y: f32 = line["ground: ".len()..].split(' ').next().unwrap().parse().unwrap();
        assert!(y.is_finite(), "{line}");
    }
    std::fs::remove_dir_all(out).unwrap();
}
