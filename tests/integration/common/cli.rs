//! Helpers for tests that run the `spritebake` binary on files they make.

use std::path::{Path, PathBuf};
use std::process::Output;

/// A fresh, empty folder for one test: `<tmp>/spritebake-<suite>-<pid>-<name>`.
pub fn scratch_in(suite: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("spritebake-{suite}-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs the `spritebake` binary with `args` in `dir`.
pub fn run_in(dir: &Path, args: &[&str]) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_spritebake"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run spritebake")
}

/// Everything a command printed: standard output, then standard error.
pub fn printed(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

/// The names in `dir`, sorted.
pub fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

/// The one error line of a refused command: exit 2, one `error:` line containing every word,
/// and nothing else on stderr but clap's own "For more information, try '--help'." hint (clap
/// adds it to the errors it reports itself: values out of a flag's range).
pub fn assert_refused(o: &Output, words: &[&str]) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{}", printed(o));
    let errors: Vec<&str> = err.lines().filter(|l| l.starts_with("error: ")).collect();
    assert_eq!(errors.len(), 1, "one error line: {err}");
    let others: Vec<&str> = err
        .lines()
        .filter(|l| !l.starts_with("error: ") && !l.trim().is_empty() && *l != "For more information, try '--help'.")
        .collect();
    assert!(others.is_empty(), "stderr has more than the error line: {err}");
    for word in words {
        assert!(errors[0].contains(word), "'{word}' missing from: {}", errors[0]);
    }
}

/// A sprite sheet a command wrote: its image and its JSON (TexturePacker's hash form).
pub struct WrittenSheet {
    pub image: spritebake::Image,
    pub json: serde_json::Value,
}

impl WrittenSheet {
    /// Reads `png` and the JSON beside it.
    pub fn read(png: &Path) -> WrittenSheet {
        let json = std::fs::read(png.with_extension("json")).unwrap();
        WrittenSheet { image: spritebake::output::read_png(png).unwrap(), json: serde_json::from_slice(&json).unwrap() }
    }

    /// The image of frame `name`, as its `frame` rectangle gives it.
    pub fn frame(&self, name: &str) -> spritebake::Image {
        let rect = &self.json["frames"][name]["frame"];
        let n = |key: &str| rect[key].as_u64().unwrap_or_else(|| panic!("frame {name}: no {key} in {rect}")) as u32;
        spritebake::internal::bake::post::crop(&self.image, n("x"), n("y"), n("w"), n("h"))
    }

    /// Every frame name, sorted.
    pub fn names(&self) -> Vec<String> {
        self.json["frames"].as_object().unwrap().keys().cloned().collect()
    }
}

/// Copies the folder `from` to `to` with everything in it.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}
