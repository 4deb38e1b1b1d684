//! Replays every input kept under `tests/fixtures/crash/<target>/` (inputs that once crashed
//! or hung a fuzz target) through that target's own code (`spritebake::internal::fuzzing`): each must
//! now return without panicking.

use std::path::Path;

use spritebake::internal::fuzzing::{self, Skeletons, TARGETS};

/// Kept crash inputs: a fixture that goes missing, or a folder that is no longer read, fails
/// the count. Raise it with each fixture added.
const KEPT_INPUTS: usize = 6;

fn root() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

#[test]
fn every_fuzz_target_is_replayable() {
    // The fuzz crate's binaries are exactly the targets the replay knows.
    let mut binaries: Vec<String> = std::fs::read_dir(root().join("fuzz/fuzz_targets"))
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_string_lossy().strip_suffix(".rs").map(str::to_string))
        .collect();
    binaries.sort();
    assert_eq!(binaries, TARGETS);
    for target in TARGETS {
        assert!(fuzzing::run(target, b"", &Skeletons::default()), "{target} is not replayed");
    }
    assert!(!fuzzing::run("no-such-target", b"", &Skeletons::default()));
}

#[test]
fn kept_crash_inputs_no_longer_crash() {
    let robot = |name: &str| std::fs::read_to_string(root().join("examples/assets/robot").join(name)).unwrap();
    let skeletons = Skeletons::parse(&robot("robot.md5mesh"), &robot("robot.smd"));
    assert!(!skeletons.md5.joints.is_empty() && !skeletons.smd.joints.is_empty());
    let mut replayed = 0;
    for folder in std::fs::read_dir(root().join("tests/fixtures/crash")).unwrap().flatten() {
        if !folder.path().is_dir() {
            continue;
        }
        let target = folder.file_name().to_string_lossy().into_owned();
        for input in std::fs::read_dir(folder.path()).unwrap().flatten() {
            let data = std::fs::read(input.path()).unwrap();
            assert!(fuzzing::run(&target, &data, &skeletons), "'{target}' is no fuzz target");
            replayed += 1;
        }
    }
    assert_eq!(replayed, KEPT_INPUTS, "kept crash inputs replayed");
}
