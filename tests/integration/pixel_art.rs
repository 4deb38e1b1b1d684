//! Pixel-art downscaling through the CLI (issue 31 item 4): how much of an animation changes
//! from one frame to the next by area (the default) and by mode, on the example robot and,
//! for the measurement in docs/perf-log/journal.md, on a textured MD2 of the shared corpus.

use std::path::{Path, PathBuf};

use super::common;
use super::common::cli::{printed, run_in, scratch_in};
use super::common::robot;
use spritebake::internal::bake::palette::oklab;

/// How much an animation changes from one frame to the next, over every pair of consecutive
/// frames. Pixels empty in both frames of a pair are not counted, so neither figure depends on
/// how much background the image has.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Flicker {
    /// The share of the pixels opaque in either frame whose RGBA differs.
    changed: f64,
    /// The mean colour change (Euclidean distance in Oklab) of the pixels opaque in both.
    mean_step: f64,
}

fn flicker(frames: &[image::RgbaImage]) -> Flicker {
    let (mut changed, mut covered, mut steps, mut both) = (0u64, 0u64, 0.0f64, 0u64);
    for pair in frames.windows(2) {
        let [a, b] = pair else { continue };
        for (p, q) in a.pixels().zip(b.pixels()).filter(|(p, q)| p[3] > 0 || q[3] > 0) {
            covered += 1;
            changed += u64::from(p != q);
            if p[3] > 0 && q[3] > 0 {
                let (l, m) = (oklab([p[0], p[1], p[2]]), oklab([q[0], q[1], q[2]]));
                steps += l.iter().zip(&m).map(|(x, y)| f64::from(x - y).powi(2)).sum::<f64>().sqrt();
                both += 1;
            }
        }
    }
    Flicker { changed: changed as f64 / covered.max(1) as f64, mean_step: steps / both.max(1) as f64 }
}

/// The frames of one direction of `model`'s `clip` baked by `frames` with `flags`, in order.
fn frames(dir: &Path, model: &str, clip: &str, flags: &[&str]) -> Vec<image::RgbaImage> {
    let out = dir.join("f");
    let _ = std::fs::remove_dir_all(&out);
    let pattern = format!("{}/{{frame:04}}.png", out.display());
    let o = run_in(dir, &[&["frames", model, "--anim", clip][..], flags, &["-o", &pattern]].concat());
    assert!(o.status.success(), "{flags:?}: {}", printed(&o));
    let mut names: Vec<PathBuf> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "png"))
        .collect();
    names.sort();
    names.iter().map(|p| image::open(p).unwrap().to_rgba8()).collect()
}

/// Flicker of `model`'s `clip` under `look` (the pixel-art flags), by area and by mode.
fn flicker_by_filter(dir: &Path, model: &str, clip: &str, look: &[&str]) -> (Flicker, Flicker) {
    let by = |filter: &str| flicker(&frames(dir, model, clip, &[look, &["--pixel-art-filter", filter]].concat()));
    (by("area"), by("mode"))
}

/// The robot's walk, as the issue measured it: 64 pixels, 4× pixel art, 16 colours.
const ROBOT_LOOK: [&str; 6] = ["--size", "64", "--pixel-art", "4", "--palette", "16"];

#[test]
fn flicker_counts_changed_pixels_among_the_covered_ones() {
    let image = |pixels: &[[u8; 4]]| image::RgbaImage::from_raw(2, 2, pixels.concat()).unwrap();
    let (red, blue, empty) = ([200, 0, 0, 255], [0, 0, 200, 255], [0; 4]);
    // Of three covered pixels, one changes colour and one appears: 2 of 3; the empty pixel
    // does not count.
    let a = image(&[red, red, empty, red]);
    let b = image(&[red, blue, empty, empty]);
    let f = flicker(&[a.clone(), b]);
    assert!((f.changed - 2.0 / 3.0).abs() < 1e-12);
    assert!(f.mean_step > 0.1, "{f:?}");
    assert_eq!(flicker(&[a.clone(), a.clone(), a]), Flicker { changed: 0.0, mean_step: 0.0 });
}

/// The share of changed pixels is no test of the filter: on the robot's skin of flat patches
/// the mode keeps more pixels exactly (docs/perf-log/journal.md, "Issue 31: pixel-art flicker"); what
/// area buys is smaller steps, on every skin, and far smaller on fine detail.
#[test]
fn the_robot_walk_changes_by_smaller_steps_by_area_than_by_mode() {
    let dir = scratch_in("pixel_art", "robot-walk");
    write_fine_skin(&dir.join("fine.png"));
    let (mesh, anim) = (robot("robot.md5mesh"), robot("walk.md5anim"));
    // Measured: 0.032 against 0.046 on its own skin, 0.026 against 0.063 on the fine one.
    let fine = [&ROBOT_LOOK[..], &["--texture", "fine.png"]].concat();
    for (look, most) in [(&ROBOT_LOOK[..], 0.8), (&fine[..], 0.5)] {
        let (area, mode) = flicker_by_filter(&dir, &mesh, &anim, look);
        assert!(
            area.mean_step < most * mode.mean_step,
            "{look:?}: mean step by area {:.4}, by mode {:.4}: not under {most}×",
            area.mean_step,
            mode.mean_step
        );
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// A 128×128 skin of fine detail: a different grey every texel (a hash of its position), the
/// texture where a block's first sample is a random one.
fn write_fine_skin(path: &Path) {
    let mut skin = spritebake::Image::new(128, 128).unwrap();
    for (i, p) in skin.rgba.chunks_exact_mut(4).enumerate() {
        let v = ((i as u32).wrapping_mul(2_654_435_761) >> 24) as u8;
        p.copy_from_slice(&[v, v / 2 + 64, 255 - v, 255]);
    }
    spritebake::output::write_png(path, &skin).unwrap();
}

/// The measurement recorded in docs/perf-log/journal.md ("Issue 31: pixel-art flicker"): the robot walk
/// (`--size 64 --pixel-art 4 --palette 16`, and without the palette, and with a skin of fine
/// detail) and the corpus ogro's `stand` and `run` (textured MD2; ratamahatta is not in the
/// corpus), by area and by mode. Run with `cargo test -j 1 --test integration
/// pixel_art::flicker_measurement -- --ignored --nocapture`.
#[test]
#[ignore = "a measurement, not a check"]
fn flicker_measurement() {
    let dir = scratch_in("pixel_art", "measurement");
    write_fine_skin(&dir.join("fine.png"));
    let (mesh, anim) = (robot("robot.md5mesh"), robot("walk.md5anim"));
    let fine = [&ROBOT_LOOK[..], &["--texture", "fine.png"]].concat();
    let mut cases = vec![
        ("robot", mesh.clone(), anim.clone(), ROBOT_LOOK.to_vec()),
        ("robot", mesh.clone(), anim.clone(), ROBOT_LOOK[..4].to_vec()),
        ("robot", mesh, anim, fine),
    ];
    if let Some(ogro) = common::corpus("md2/ogro") {
        let model = ogro.join("ogro.md2").display().to_string();
        for clip in ["stand", "run"] {
            cases.push(("ogro", model.clone(), clip.to_string(), ROBOT_LOOK.to_vec()));
        }
    }
    println!("| model | clip | flags | changed, mode | changed, area | mean step, mode | mean step, area |");
    println!("|---|---|---|--:|--:|--:|--:|");
    for (name, model, clip, look) in cases {
        let (area, mode) = flicker_by_filter(&dir, &model, &clip, &look);
        let clip = Path::new(&clip).file_stem().map_or(clip.clone(), |s| s.to_string_lossy().into_owned());
        println!(
            "| {name} | {clip} | `{}` | {:.1}% | {:.1}% | {:.4} | {:.4} |",
            look.join(" "),
            mode.changed * 100.0,
            area.changed * 100.0,
            mode.mean_step,
            area.mean_step
        );
    }
    std::fs::remove_dir_all(dir).unwrap();
}
