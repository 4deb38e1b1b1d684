//! Sprites that play right in engines, measured from what a sheet writes: the character turns
//! about its feet from one direction to the next whatever other clip shares the sheet.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::common::cli::{printed, scratch_in};
use crate::common::corpus;

/// Bakes `sheet MODEL ARGS -o dir/NAME.png` and returns the JSON and the PNG.
fn bake(dir: &Path, name: &str, model: &Path, args: &[&str]) -> (Value, image::RgbaImage) {
    let png = dir.join(format!("{name}.png"));
    let o = Command::new(env!("CARGO_BIN_EXE_spritebake"))
        .arg("sheet")
        .arg(model)
        .args(args)
        .args(["--quiet", "-o"])
        .arg(&png)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", printed(&o));
    let json = serde_json::from_slice(&std::fs::read(png.with_extension("json")).unwrap()).unwrap();
    (json, image::open(&png).unwrap().into_rgba8())
}

/// The alpha-weighted centroid of frame `name` minus its pivot, in pixels of the untrimmed
/// frame (x right, y down).
fn centroid_from_pivot(json: &Value, page: &image::RgbaImage, name: &str) -> (f64, f64) {
    let f = &json["frames"][name];
    let at = |v: &Value, k: &str| v[k].as_f64().unwrap_or_else(|| panic!("{name}: no {k} in {v}"));
    let (x, y, w, h) = (at(&f["frame"], "x"), at(&f["frame"], "y"), at(&f["frame"], "w"), at(&f["frame"], "h"));
    let (sx, sy) = (at(&f["spriteSourceSize"], "x"), at(&f["spriteSourceSize"], "y"));
    let pivot = (at(&f["pivot"], "x") * at(&f["sourceSize"], "w"), at(&f["pivot"], "y") * at(&f["sourceSize"], "h"));
    let (mut sum, mut cx, mut cy) = (0.0, 0.0, 0.0);
    for j in 0..h as u32 {
        for i in 0..w as u32 {
            let a = f64::from(page.get_pixel(x as u32 + i, y as u32 + j)[3]);
            sum += a;
            cx += a * (sx + f64::from(i) + 0.5);
            cy += a * (sy + f64::from(j) + 0.5);
        }
    }
    assert!(sum > 0.0, "{name} is empty");
    (cx / sum - pivot.0, cy / sum - pivot.1)
}

/// The largest distance between two of `points`.
fn spread(points: &[(f64, f64)]) -> f64 {
    let d = |a: &(f64, f64), b: &(f64, f64)| ((a.0 - b.0).powi(2) + (a.1 - b.1).powi(2)).sqrt();
    points.iter().flat_map(|a| points.iter().map(move |b| d(a, b))).fold(0.0, f64::max)
}

fn ogro() -> Option<PathBuf> {
    corpus("md2/ogro").map(|dir| dir.join("ogro.md2"))
}

#[test]
fn a_character_turns_about_its_feet_beside_a_clip_that_falls_away() {
    let Some(model) = ogro() else { return };
    let dir = scratch_in("engine_play", "turning");
    // The ogro's `deathb` falls a body length backwards: framed about the centre of both
    // clips' bounds, the run's first frame circled the pivot from one direction to the next.
    let args = ["--anim", "run,deathb", "--view", "iso", "--directions", "8", "--size", "128", "--trim"];
    let (json, page) = bake(&dir, "ogro", &model, &args);
    let directions: Vec<String> = json["meta"]["directions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(directions.len(), 8);
    let offsets: Vec<(f64, f64)> =
        directions.iter().map(|d| centroid_from_pivot(&json, &page, &format!("run_{d}_000"))).collect();
    let run = spread(&offsets);
    assert!(run <= 6.0, "the run's first frame spreads {run:.1} px about the pivot over 8 directions: {offsets:?}");
    // Every frame's pivot is one whole pixel of the untrimmed frame.
    for (name, f) in json["frames"].as_object().unwrap() {
        let px = f["pivot"]["x"].as_f64().unwrap() * f["sourceSize"]["w"].as_f64().unwrap();
        let py = f["pivot"]["y"].as_f64().unwrap() * f["sourceSize"]["h"].as_f64().unwrap();
        assert!((px - px.round()).abs() < 1e-3 && (py - py.round()).abs() < 1e-3, "{name}: pivot {px}, {py}");
    }
    std::fs::remove_dir_all(dir).unwrap();
}
