//! Golden images for the project's own tests, on the library's `golden::compare`.
//!
//! A golden is named after the test that owns it, so a golden file always leads to its test
//! and no two tests can share one: `golden/<module>/<test>.png` for a test with one golden
//! ([`assert_golden`]), `golden/<module>/<test>/<variant>.png` for a test with several
//! ([`Goldens::check`] per variant, then [`Goldens::finish`]: every golden is compared and the
//! test fails once, naming every golden that differs with its actual and diff images). The
//! test's name is the test thread's name, which the test harness sets (`render::tower_unlit`).
//! On a mismatch the actual render and a diff image are written to
//! `target/golden-out/<module>-<test>[-<variant>].{actual,diff}.png` and named in the panic
//! message. `SPRITEBAKE_BLESS=1 cargo test` rewrites the references on purpose.

use std::path::{Path, PathBuf};

use spritebake::golden::{Tolerance, compare, diff_image};
use spritebake::output::{read_png, write_png};
use spritebake::raster::Image;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The running test's name as a path: `render::tower_unlit` → `render/tower_unlit`.
fn owner() -> String {
    let thread = std::thread::current();
    let name = thread.name().expect("goldens are checked from a test thread, which is named after its test");
    name.replace("::", "/")
}

/// Compares `image` with the test's golden, `golden/<module>/<test>.png`, under `tolerance`.
pub fn assert_golden(image: &Image, tolerance: Tolerance) {
    let mut goldens = Goldens::new();
    goldens.compare(&owner(), image, tolerance);
    goldens.finish();
}

/// Where goldens are read and mismatches written, and whether to bless.
struct Place {
    goldens: PathBuf,
    out: PathBuf,
    bless: bool,
}

impl Place {
    /// Compares `image` with `<goldens>/<name>.png`; on a mismatch writes the actual and diff
    /// images to `<out>` and returns the report naming them.
    fn check(&self, name: &str, image: &Image, tolerance: Tolerance) -> Result<(), String> {
        let golden = self.goldens.join(format!("{name}.png"));
        if self.bless {
            std::fs::create_dir_all(golden.parent().unwrap()).unwrap();
            write_png(&golden, image).unwrap();
            eprintln!("blessed {}", golden.display());
            return Ok(());
        }
        let expected = read_png(&golden)
            .map_err(|e| format!("golden {name}: {e}\n(run `SPRITEBAKE_BLESS=1 cargo test` to create it)"))?;
        let report = compare(image, &expected, tolerance.channel).map_err(|e| format!("golden {name}: {e}"))?;
        if report.passes(tolerance) {
            return Ok(());
        }
        std::fs::create_dir_all(&self.out).unwrap();
        let file = |kind: &str| self.out.join(format!("{}.{kind}.png", name.replace('/', "-")));
        let (actual_path, diff_path) = (file("actual"), file("diff"));
        write_png(&actual_path, image).unwrap();
        write_png(&diff_path, &diff_image(image, &expected, tolerance.channel).unwrap()).unwrap();
        Err(format!(
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
        ))
    }
}

/// The goldens of one test: each [`check`](Goldens::check) compares one and records a
/// mismatch; [`finish`](Goldens::finish) fails once with all of them.
pub struct Goldens {
    place: Place,
    checked: usize,
    failures: Vec<String>,
    finished: bool,
}

impl Goldens {
    /// Goldens under `golden/`, mismatches to `target/golden-out/`, blessing with
    /// `SPRITEBAKE_BLESS=1`.
    pub fn new() -> Goldens {
        let bless = std::env::var_os("SPRITEBAKE_BLESS").is_some_and(|v| v == "1");
        Goldens::in_folders(&root().join("golden"), &root().join("target").join("golden-out"), bless)
    }

    /// Goldens under `goldens`, mismatches to `out`.
    pub fn in_folders(goldens: &Path, out: &Path, bless: bool) -> Goldens {
        Goldens {
            place: Place { goldens: goldens.to_path_buf(), out: out.to_path_buf(), bless },
            checked: 0,
            failures: Vec::new(),
            finished: false,
        }
    }

    /// Compares `image` with the test's golden `variant` (`golden/<module>/<test>/<variant>.png`)
    /// under `tolerance`, recording a mismatch.
    pub fn check(&mut self, variant: &str, image: &Image, tolerance: Tolerance) {
        self.compare(&format!("{}/{variant}", owner()), image, tolerance);
    }

    fn compare(&mut self, name: &str, image: &Image, tolerance: Tolerance) {
        self.checked += 1;
        if let Err(failure) = self.place.check(name, image, tolerance) {
            self.failures.push(failure);
        }
    }

    /// Fails, naming every golden that differed, if any did.
    pub fn finish(mut self) {
        self.finished = true;
        match self.failures.len() {
            0 => {}
            1 => panic!("{}", self.failures[0]),
            n => panic!("{n} of {} goldens differ:\n{}", self.checked, self.failures.join("\n")),
        }
    }
}

impl Drop for Goldens {
    fn drop(&mut self) {
        if self.finished || self.failures.is_empty() {
            return;
        }
        // The test failed before `finish` (another assertion) or never called it: the
        // mismatches are reported all the same.
        let report =
            format!("{} of {} goldens differ:\n{}", self.failures.len(), self.checked, self.failures.join("\n"));
        if std::thread::panicking() {
            eprintln!("{report}");
        } else {
            panic!("{report} (Goldens::finish was not called)");
        }
    }
}

fn show(p: &Path) -> String {
    p.display().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filled(rgba: [u8; 4]) -> Image {
        let mut image = Image::new(4, 4).unwrap();
        for p in image.rgba.chunks_exact_mut(4) {
            p.copy_from_slice(&rgba);
        }
        image
    }

    #[test]
    fn every_differing_golden_is_reported_not_only_the_first() {
        let dir = crate::common::cli::scratch_in("golden", "collect");
        let (goldens, out) = (dir.join("golden"), dir.join("out"));
        let black = filled([0, 0, 0, 255]);
        let mut bless = Goldens::in_folders(&goldens, &out, true);
        for name in ["a", "b", "c"] {
            bless.check(name, &black, Tolerance::EXACT);
        }
        let owner = "common/golden/tests/every_differing_golden_is_reported_not_only_the_first";
        assert!(goldens.join(owner).join("a.png").is_file(), "named after the test that owns it");
        bless.finish();

        let mut goldens = Goldens::in_folders(&goldens, &out, false);
        let white = filled([255, 255, 255, 255]);
        let exact = Tolerance::EXACT;
        goldens.check("a", &white, exact);
        goldens.check("b", &black, exact);
        goldens.check("c", &white, exact);
        goldens.check("missing", &white, exact);
        let panic = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| goldens.finish())).unwrap_err();
        let message = panic.downcast_ref::<String>().unwrap();
        assert!(message.starts_with("3 of 4 goldens differ:"), "{message}");
        for name in ["a", "c"] {
            assert!(message.contains(&format!("golden {owner}/{name}: 16 pixels")), "{message}");
            for kind in ["actual", "diff"] {
                let path = out.join(format!("{}-{name}.{kind}.png", owner.replace('/', "-")));
                assert!(message.contains(&path.display().to_string()) && path.is_file(), "{message}");
            }
        }
        assert!(message.contains(&format!("golden {owner}/missing:")), "{message}");
        assert!(!message.contains(&format!("golden {owner}/b")), "{message}");
        std::fs::remove_dir_all(dir).unwrap();
    }
}
