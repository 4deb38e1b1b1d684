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
