//! Blender as an independent peer for FBX: its own importer poses a file's animation
//! (`tests/blender/fbx_pose.py`), to compare with spritebake's posed vertices and silhouettes.
//!
//! Without `blender` on `PATH` (Debian's `blender`) a test skips with a note on stderr, or
//! fails when `SPRITEBAKE_REQUIRE_BLENDER=1` (as CI sets it, after installing it).

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The variable that turns a missing `blender` from a skip into a failure.
pub const REQUIRE_BLENDER: &str = "SPRITEBAKE_REQUIRE_BLENDER";

/// Blender's posed meshes of `fbx` playing the action named like `action`, at `frames` after
/// its first, as OBJ files in `scratch` (Y-up, vertices and faces), in the order of `frames`;
/// `None` after a note (the test skips) when Blender is not on `PATH`, a panic instead when
/// [`REQUIRE_BLENDER`] is `1`.
pub fn posed_fbx(fbx: &Path, action: &str, frames: &[u32], scratch: &Path) -> Option<Vec<PathBuf>> {
    let on_path = std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join("blender").is_file()));
    if !on_path {
        assert!(
            std::env::var_os(REQUIRE_BLENDER).is_none_or(|v| v != "1"),
            "no blender on PATH and {REQUIRE_BLENDER}=1 is set: the Blender test may not skip \
             (apt-get install blender, or unset {REQUIRE_BLENDER})"
        );
        let thread = std::thread::current();
        let _ = writeln!(
            std::io::stderr(),
            "note: no blender on PATH; Blender test {} skipped (with {REQUIRE_BLENDER}=1 it fails)",
            thread.name().unwrap_or("?")
        );
        return None;
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/blender/fbx_pose.py");
    let pattern = scratch.join("blender_%d.obj");
    let list: Vec<String> = frames.iter().map(u32::to_string).collect();
    let o = Command::new("blender")
        .args(["-b", "--factory-startup", "-noaudio", "--python"])
        .arg(&script)
        .arg("--")
        .arg(fbx)
        .arg(action)
        .arg(&pattern)
        .arg(list.join(","))
        // Blender keeps its settings and caches under HOME: keep them in the test folder.
        .env("HOME", scratch)
        .output()
        .expect("running blender");
    let paths: Vec<PathBuf> = frames.iter().map(|f| scratch.join(format!("blender_{f}.obj"))).collect();
    assert!(
        o.status.success() && paths.iter().all(|p| p.is_file()),
        "blender posing {}: {}{}",
        fbx.display(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    Some(paths)
}
