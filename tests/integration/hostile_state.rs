//! Issue 29: the state file of `bake` is untrusted input. Whatever it holds, a run rebuilds
//! every entry whose outputs are missing or stale and is never refused because of it.
//! (Unix only: the cases need symbolic links and sparse files.)

#![cfg(unix)]

use std::time::{Duration, Instant};

use crate::common::cli::printed;
use crate::project::{ENTRIES, PROJECT, STATE, bake, entries_with, project, set};

#[test]
fn a_state_file_over_its_limit_is_replaced_and_its_warning_names_no_missing_flag() {
    let dir = project("state-too-large", PROJECT);
    std::fs::File::create(dir.join(STATE)).unwrap().set_len(65 << 20).unwrap();
    let o = bake(&dir, &["spritebake.toml"]);
    assert_eq!(o.status.code(), Some(0), "{}", printed(&o));
    assert_eq!(entries_with(&o, "built"), set(&ENTRIES), "{}", printed(&o));
    let stderr = String::from_utf8_lossy(&o.stderr);
    let warnings: Vec<&str> = stderr.lines().filter(|l| l.starts_with("warning: ")).collect();
    assert_eq!(warnings.len(), 1, "{stderr}");
    assert!(warnings[0].contains(STATE) && warnings[0].contains("every entry is rebuilt"), "{stderr}");
    // Every flag it names is one `bake` has.
    let help = bake(&dir, &["--help"]);
    let help = String::from_utf8_lossy(&help.stdout);
    for flag in warnings[0].split(|c: char| !(c.is_alphanumeric() || c == '-')).filter(|w| w.starts_with("--")) {
        assert!(help.contains(flag), "the warning names {flag}, which `bake` lacks: {}", warnings[0]);
    }
    // As it says: the run replaced it, and the next has nothing to do.
    assert!(std::fs::metadata(dir.join(STATE)).unwrap().len() < 1 << 20);
    let o = bake(&dir, &["spritebake.toml"]);
    assert_eq!(entries_with(&o, "up to date"), set(&ENTRIES), "{}", printed(&o));
    assert!(!printed(&o).contains("warning:"), "{}", printed(&o));
}

#[test]
fn an_output_of_another_size_is_stale_without_being_read() {
    let dir = project("state-sparse", PROJECT);
    assert_eq!(bake(&dir, &["spritebake.toml", "-q"]).status.code(), Some(0));
    // 20 GiB each, as sparse files: reading them would take many seconds.
    let huge = 20u64 << 30;
    for name in ["out/robot-md2.gif", "out/frames/walk_02.png"] {
        std::fs::OpenOptions::new().write(true).open(dir.join(name)).unwrap().set_len(huge).unwrap();
    }
    let start = Instant::now();
    let o = bake(&dir, &["spritebake.toml", "--dry-run"]);
    assert!(start.elapsed() < Duration::from_secs(10), "{:?}: were they read?", start.elapsed());
    assert_eq!(entries_with(&o, "would build"), set(&["robot-md2-gif", "robot-md2-frames"]), "{}", printed(&o));
    let stdout = String::from_utf8_lossy(&o.stdout);
    let line = stdout.lines().find(|l| l.starts_with("robot-md2-gif:")).unwrap();
    assert!(line.contains(&format!("out/robot-md2.gif is {huge} bytes")), "{line}");

    // The frames entry makes one frame fewer: the old third frame, not what was written, is
    // left in place with a warning, without being read either.
    let text = std::fs::read_to_string(dir.join("spritebake.toml")).unwrap().replace("frames = 3", "frames = 2");
    std::fs::write(dir.join("spritebake.toml"), text).unwrap();
    let start = Instant::now();
    let o = bake(&dir, &["spritebake.toml"]);
    assert!(start.elapsed() < Duration::from_secs(20), "{:?}: were they read?", start.elapsed());
    assert_eq!(o.status.code(), Some(0), "{}", printed(&o));
    assert_eq!(entries_with(&o, "built"), set(&["robot-md2-gif", "robot-md2-frames"]), "{}", printed(&o));
    let stderr = String::from_utf8_lossy(&o.stderr);
    let warning = stderr.lines().find(|l| l.starts_with("warning: robot-md2-frames: out/frames/walk_02.png"));
    assert!(warning.is_some_and(|w| w.contains("changed since")), "{stderr}");
    assert_eq!(std::fs::metadata(dir.join("out/frames/walk_02.png")).unwrap().len(), huge);
    assert!(std::fs::metadata(dir.join("out/robot-md2.gif")).unwrap().len() < 1 << 20);
    std::fs::remove_dir_all(dir).unwrap();
}
