//! Golden images for the project's own tests, on the library's `golden::compare`.
//!
//! `golden/<name>.png` is the reference. On a mismatch the actual render and a diff image are
//! written to `target/golden-out/<name>.{actual,diff}.png` and named in the panic message.
//! `SPRITEBAKE_BLESS=1 cargo test` rewrites the references on purpose.

use std::path::{Path, PathBuf};

use spritebake::golden::{Tolerance, compare, diff_image};
use spritebake::output::{read_png, write_png};
use spritebake::raster::Image;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Compares `image` with `golden/<name>.png` under `tolerance`.
pub fn assert_golden(name: &str, image: &Image, tolerance: Tolerance) {
    let golden = root().join("golden").join(format!("{name}.png"));
    if std::env::var_os("SPRITEBAKE_BLESS").is_some_and(|v| v == "1") {
        std::fs::create_dir_all(golden.parent().unwrap()).unwrap();
        write_png(&golden, image).unwrap();
        eprintln!("blessed {}", golden.display());
        return;
    }
    let expected = read_png(&golden)
        .unwrap_or_else(|e| panic!("golden {name}: {e}\n(run `SPRITEBAKE_BLESS=1 cargo test` to create it)"));
    let report = compare(image, &expected, tolerance.channel).unwrap_or_else(|e| panic!("golden {name}: {e}"));
    if report.passes(tolerance) {
        return;
    }
    let out = root().join("target").join("golden-out");
    std::fs::create_dir_all(&out).unwrap();
    let file = |kind: &str| out.join(format!("{}.{kind}.png", name.replace('/', "-")));
    let (actual_path, diff_path) = (file("actual"), file("diff"));
    write_png(&actual_path, image).unwrap();
    write_png(&diff_path, &diff_image(image, &expected, tolerance.channel).unwrap()).unwrap();
    panic!(
        "golden {name}: {} pixels ({:.3}%) differ by more than {} (allowed {}); max colour delta {}, max alpha delta {}\n  expected: {}\n  actual:   {}\n  diff:     {}",
        report.differing_pixels,
        report.differing_percent(),
        tolerance.channel,
        tolerance.max_pixels,
        report.max_color_delta,
        report.max_alpha_delta,
        show(&golden),
        show(&actual_path),
        show(&diff_path),
    );
}

fn show(p: &Path) -> String {
    p.display().to_string()
}
