//! Blender as an independent peer for FBX: its own importer poses a file's animation
//! (`tests/blender/fbx_pose.py`), to compare with spritebake's posed vertices and silhouettes.
//!
//! Without `blender` on `PATH` (Debian's `blender`) a test skips with a note on stderr, or
//! fails when `SPRITEBAKE_REQUIRE_BLENDER=1` (as CI sets it, after installing it).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The variable that turns a missing `blender` from a skip into a failure.
pub const REQUIRE_BLENDER: &str = "SPRITEBAKE_REQUIRE_BLENDER";

/// Runs `tests/blender/SCRIPT` in background Blender with `args` after `--`, its settings and
/// caches kept in `scratch`; `false` after a note (the test skips) when Blender is not on
/// `PATH`, a panic instead when [`REQUIRE_BLENDER`] is `1`, or when the script fails.
pub fn run(script: &str, args: &[&std::ffi::OsStr], scratch: &Path) -> bool {
    if !super::peer_on_path("blender", REQUIRE_BLENDER, "apt-get install blender") {
        return false;
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/blender").join(script);
    let o = Command::new("blender")
        // A Python error exits 1 (Blender's own exit code is 0 after a failed script).
        .args(["-b", "--factory-startup", "-noaudio", "--python-exit-code", "1", "--python"])
        .arg(&script)
        .arg("--")
        .args(args)
        .env("HOME", scratch)
        .output()
        .expect("running blender");
    assert!(
        o.status.success(),
        "blender {}: {}{}",
        script.display(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    true
}

/// Blender's posed meshes of `fbx` playing the action named like `action`, at `frames` after
/// its first (`fbx_pose.py`), as OBJ files in `scratch` (Y-up, vertices and faces), in the
/// order of `frames`; `None` when Blender is missing ([`run`]).
pub fn posed_fbx(fbx: &Path, action: &str, frames: &[u32], scratch: &Path) -> Option<Vec<PathBuf>> {
    let pattern = scratch.join("blender_%d.obj");
    let list: Vec<String> = frames.iter().map(u32::to_string).collect();
    let list = list.join(",");
    let args = [fbx.as_os_str(), action.as_ref(), pattern.as_os_str(), list.as_ref()];
    if !run("fbx_pose.py", &args, scratch) {
        return None;
    }
    let paths: Vec<PathBuf> = frames.iter().map(|f| scratch.join(format!("blender_{f}.obj"))).collect();
    assert!(paths.iter().all(|p| p.is_file()), "blender wrote no {}", pattern.display());
    Some(paths)
}

/// Blender's unlit render of `model` (`unlit_render.py`): `size`² pixels of its surface colour
/// as Blender's importer reads it, framed as `spritebake render --ortho --pitch 0 --margin 0
/// --shading unlit` frames it; `None` after a note when Blender, or the numpy its glTF
/// importer needs, is missing (a failure instead when [`REQUIRE_BLENDER`] is `1`).
pub fn unlit_render(model: &Path, size: u32, scratch: &Path) -> Option<image::RgbaImage> {
    let out = scratch.join("blender.png");
    let size = size.to_string();
    if !run("unlit_render.py", &[model.as_os_str(), out.as_os_str(), size.as_ref()], scratch) {
        return None;
    }
    if scratch.join("blender.png.no-numpy").exists() {
        assert!(
            std::env::var_os(REQUIRE_BLENDER).is_none_or(|v| v != "1"),
            "Blender's glTF importer needs numpy (apt-get install python3-numpy), and {REQUIRE_BLENDER}=1 is set"
        );
        eprintln!(
            "note: Blender has no numpy for its glTF importer; the test is skipped (apt-get install python3-numpy)"
        );
        return None;
    }
    Some(image::open(&out).unwrap_or_else(|e| panic!("{}: {e}", out.display())).to_rgba8())
}
