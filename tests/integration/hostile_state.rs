//! Issue 29: the state file of `bake` is untrusted input. Whatever it holds, a run rebuilds
//! every entry whose outputs are missing or stale, warns about records that cannot be honest,
//! and is never refused because of it; no output lands on a state file of the project.
//! (Unix only: the cases need symbolic links and sparse files.)

#![cfg(unix)]

use std::path::Path;
use std::process::Output;
use std::time::{Duration, Instant};

use crate::common::cli::printed;
use crate::project::{ENTRIES, PROJECT, STATE, bake, entries_with, json, project, set};

/// Rewrites the state file of the project in `dir` after `edit`.
fn tamper(dir: &Path, edit: impl FnOnce(&mut serde_json::Value)) {
    let path = dir.join(STATE);
    let mut state = json(&path);
    edit(&mut state);
    std::fs::write(&path, serde_json::to_vec_pretty(&state).unwrap()).unwrap();
}

/// The `warning:` lines a run printed about entry `name`.
fn warnings_about(o: &Output, name: &str) -> Vec<String> {
    let quoted = format!("'{name}'");
    String::from_utf8_lossy(&o.stderr)
        .lines()
        .filter(|l| l.starts_with("warning: ") && l.contains(&quoted))
        .map(str::to_string)
        .collect()
}

/// Every other entry of [`ENTRIES`].
fn all_but(names: &[&str]) -> std::collections::BTreeSet<String> {
    set(&ENTRIES.iter().copied().filter(|n| !names.contains(n)).collect::<Vec<_>>())
}

/// Another run of the project in `dir`: every entry up to date, and no warning.
fn the_next_run_has_nothing_to_do(dir: &Path) {
    let o = bake(dir, &["spritebake.toml"]);
    assert_eq!(entries_with(&o, "up to date"), set(&ENTRIES), "{}", printed(&o));
    assert!(!printed(&o).contains("warning:"), "{}", printed(&o));
}

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
    the_next_run_has_nothing_to_do(&dir);
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

#[test]
fn a_relinked_output_folder_is_rebuilt() {
    let dir = project("state-relinked-out", PROJECT);
    std::fs::create_dir(dir.join("out-a")).unwrap();
    std::os::unix::fs::symlink("out-a", dir.join("out")).unwrap();
    assert_eq!(bake(&dir, &["spritebake.toml", "-q"]).status.code(), Some(0));
    // Recorded as the project names them.
    let state = std::fs::read_to_string(dir.join(STATE)).unwrap();
    assert!(state.contains("\"out/thumbs/tower.png\"") && !state.contains("out-a"), "{state}");

    // The link now leads to an empty folder: every output is missing there.
    std::fs::create_dir(dir.join("out-b")).unwrap();
    std::fs::remove_file(dir.join("out")).unwrap();
    std::os::unix::fs::symlink("out-b", dir.join("out")).unwrap();
    let o = bake(&dir, &["spritebake.toml"]);
    assert_eq!(o.status.code(), Some(0), "{}", printed(&o));
    assert_eq!(entries_with(&o, "built"), set(&ENTRIES), "{}", printed(&o));
    assert!(dir.join("out-b/thumbs/tower.png").is_file() && dir.join("out-b/robot-md2.gif").is_file());

    // Back to the first folder, where one file is no longer what was written: that entry only.
    std::fs::write(dir.join("out-a/tower-side.png"), b"stale").unwrap();
    std::fs::remove_file(dir.join("out")).unwrap();
    std::os::unix::fs::symlink("out-a", dir.join("out")).unwrap();
    let o = bake(&dir, &["spritebake.toml"]);
    assert_eq!(entries_with(&o, "built"), set(&["tower-side"]), "{}", printed(&o));
    assert_eq!(entries_with(&o, "up to date"), all_but(&["tower-side"]), "{}", printed(&o));
}

#[test]
fn a_relinked_asset_folder_is_rebuilt() {
    let dir = project("state-relinked-assets", PROJECT);
    std::fs::rename(dir.join("assets"), dir.join("assets-a")).unwrap();
    std::os::unix::fs::symlink("assets-a", dir.join("assets")).unwrap();
    assert_eq!(bake(&dir, &["spritebake.toml", "-q"]).status.code(), Some(0));

    // A copy where only the texture the tower's material library names differs: the model
    // the project names is the same file, byte for byte.
    let copy = |from: &Path, to: &Path| {
        for entry in std::fs::read_dir(from).unwrap() {
            let path = entry.unwrap().path();
            let target = to.join(path.file_name().unwrap());
            if path.is_dir() {
                std::fs::create_dir_all(&target).unwrap();
            } else {
                std::fs::copy(&path, &target).unwrap();
            }
        }
    };
    std::fs::create_dir_all(dir.join("assets-b/robot")).unwrap();
    copy(&dir.join("assets-a"), &dir.join("assets-b"));
    copy(&dir.join("assets-a/robot"), &dir.join("assets-b/robot"));
    let texture = dir.join("assets-b/tower_bricks.png");
    let mut image = spritebake::output::read_png(&texture).unwrap();
    image.pixel_mut(0, 0).unwrap().copy_from_slice(&[1, 2, 3, 255]);
    spritebake::output::write_png(&texture, &image).unwrap();
    std::fs::remove_file(dir.join("assets")).unwrap();
    std::os::unix::fs::symlink("assets-b", dir.join("assets")).unwrap();
    let o = bake(&dir, &["spritebake.toml"]);
    assert_eq!(o.status.code(), Some(0), "{}", printed(&o));
    assert_eq!(entries_with(&o, "built"), set(&["tower-thumb", "tower-side"]), "{}", printed(&o));
    assert_eq!(entries_with(&o, "up to date"), all_but(&["tower-thumb", "tower-side"]), "{}", printed(&o));
}

#[test]
fn no_shard_writes_a_state_file_of_another() {
    let dir = project("state-shards", PROJECT);
    assert_eq!(bake(&dir, &["spritebake.toml", "--shard", "1/2", "-q"]).status.code(), Some(0));
    let first = dir.join("spritebake.toml.shard-1-of-2.state.json");
    let before = std::fs::read(&first).unwrap();
    // Entry 8 (shard 2 of 2) is a sheet whose JSON would land on shard 1's state file.
    let over = format!(
        "{PROJECT}\n[[sheet]]\nname = \"over\"\nmodel = \"assets/robot/robot.md2\"\nframes = 2\n\
         output = \"spritebake.toml.shard-1-of-2.state.png\"\n"
    );
    std::fs::write(dir.join("spritebake.toml"), over).unwrap();
    for shard in ["1/2", "2/2"] {
        let o = bake(&dir, &["spritebake.toml", "--shard", shard]);
        assert_eq!(o.status.code(), Some(2), "{shard}: {}", printed(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("[[sheet]] 'over'") && err.contains("spritebake.toml.shard-1-of-2.state.json"), "{err}");
        assert!(err.contains("state file"), "{err}");
    }
    // Nor a summary on another shard's journal, nor on a state file of any shard count.
    std::fs::write(dir.join("spritebake.toml"), PROJECT).unwrap();
    let targets = [
        "spritebake.toml.shard-2-of-2.state.journal",
        "spritebake.toml.shard-3-of-7.state.json",
        "spritebake.toml.shard-2-of-2.state.lock",
    ];
    for target in targets {
        let o = bake(&dir, &["spritebake.toml", "--shard", "1/2", "--json", target]);
        assert_eq!(o.status.code(), Some(2), "{target}: {}", printed(&o));
        assert!(String::from_utf8_lossy(&o.stderr).contains(target), "{}", printed(&o));
        assert!(!dir.join(target).exists());
    }
    assert_eq!(std::fs::read(&first).unwrap(), before);
    assert!(!dir.join("spritebake.toml.shard-1-of-2.state.png").exists());
}

#[test]
fn a_record_naming_another_entrys_output_as_its_input_never_blocks_a_run() {
    let dir = project("state-output-as-input", PROJECT);
    assert_eq!(bake(&dir, &["spritebake.toml", "-q"]).status.code(), Some(0));
    let gif = std::fs::read(dir.join("out/robot-md2.gif")).unwrap();
    tamper(&dir, |state| {
        let hash = blake3::hash(&gif).to_hex().to_string();
        state["entries"]["tower-side"]["inputs"]["out/robot-md2.gif"] = hash.into();
    });
    let o = bake(&dir, &["spritebake.toml"]);
    assert_eq!(o.status.code(), Some(0), "{}", printed(&o));
    assert!(entries_with(&o, "built").contains("tower-side"), "{}", printed(&o));
    assert!(!warnings_about(&o, "tower-side").is_empty(), "{}", printed(&o));
    for name in ["robot-md5-walk", "robot-smd-walk", "robot-md2-frames", "tower-thumb", "robot-md5-thumb"] {
        assert!(entries_with(&o, "up to date").contains(name), "{name}: {}", printed(&o));
    }
    // Its new record is its own: the next run has nothing to do.
    the_next_run_has_nothing_to_do(&dir);

    // An honest clash with up-to-date entries is still refused: a new entry writing the
    // texture they read.
    let texture = std::fs::read(dir.join("assets/robot/robot.png")).unwrap();
    let text = format!(
        "{PROJECT}\n[[thumbnail]]\nname = \"over\"\nmodel = \"assets/tower.obj\"\noutput = \"assets/robot/robot.png\"\n"
    );
    std::fs::write(dir.join("spritebake.toml"), text).unwrap();
    let o = bake(&dir, &["spritebake.toml"]);
    assert_eq!(o.status.code(), Some(2), "{}", printed(&o));
    assert!(printed(&o).contains("refusing to overwrite an input file"), "{}", printed(&o));
    assert_eq!(std::fs::read(dir.join("assets/robot/robot.png")).unwrap(), texture);
}

#[test]
fn a_record_naming_an_input_as_its_output_never_blocks_a_run() {
    let dir = project("state-input-as-output", PROJECT);
    assert_eq!(bake(&dir, &["spritebake.toml", "-q"]).status.code(), Some(0));
    let obj = std::fs::read(dir.join("assets/tower.obj")).unwrap();
    tamper(&dir, |state| {
        let written = serde_json::json!({ "hash": blake3::hash(&obj).to_hex().to_string(), "bytes": obj.len() });
        state["entries"]["tower-thumb"]["outputs"]["assets/tower.obj"] = written;
    });
    let o = bake(&dir, &["spritebake.toml"]);
    assert_eq!(o.status.code(), Some(0), "{}", printed(&o));
    assert!(entries_with(&o, "built").contains("tower-thumb"), "{}", printed(&o));
    assert!(!warnings_about(&o, "tower-thumb").is_empty(), "{}", printed(&o));
    for name in ["robot-md5-walk", "robot-smd-walk", "robot-md2-gif", "robot-md2-frames", "robot-md5-thumb"] {
        assert!(entries_with(&o, "up to date").contains(name), "{name}: {}", printed(&o));
    }
    // The model it named is neither removed nor written.
    assert_eq!(std::fs::read(dir.join("assets/tower.obj")).unwrap(), obj);
    let o = bake(&dir, &["spritebake.toml"]);
    assert_eq!(entries_with(&o, "up to date"), set(&ENTRIES), "{}", printed(&o));
}

#[test]
fn records_that_cannot_cover_their_entry_are_rebuilt_with_a_warning() {
    let dir = project("state-cover", PROJECT);
    assert_eq!(bake(&dir, &["spritebake.toml", "-q"]).status.code(), Some(0));
    tamper(&dir, |state| {
        let entries = &mut state["entries"];
        // No outputs at all; a sheet without its JSON; a frame the pattern cannot name.
        entries["robot-md2-gif"]["outputs"] = serde_json::json!({});
        entries["robot-md5-walk"]["outputs"].as_object_mut().unwrap().remove("out/robot-md5-walk.json");
        let frames = entries["robot-md2-frames"]["outputs"].as_object_mut().unwrap();
        let frame = frames.remove("out/frames/walk_01.png").unwrap();
        frames.insert("out/frames/walk.png".into(), frame);
    });
    let distrusted = ["robot-md2-gif", "robot-md5-walk", "robot-md2-frames"];
    let o = bake(&dir, &["spritebake.toml"]);
    assert_eq!(o.status.code(), Some(0), "{}", printed(&o));
    assert_eq!(entries_with(&o, "built"), set(&distrusted), "{}", printed(&o));
    assert_eq!(entries_with(&o, "up to date"), all_but(&distrusted), "{}", printed(&o));
    for name in distrusted {
        assert_eq!(warnings_about(&o, name).len(), 1, "{name}: {}", printed(&o));
    }
    the_next_run_has_nothing_to_do(&dir);
}

#[test]
fn a_record_cannot_make_a_run_remove_a_file_its_entry_does_not_name() {
    let dir = project("state-remove", PROJECT);
    assert_eq!(bake(&dir, &["spritebake.toml", "-q"]).status.code(), Some(0));
    let notes = b"nobody reads this file".to_vec();
    std::fs::write(dir.join("notes.txt"), &notes).unwrap();
    tamper(&dir, |state| {
        let written = serde_json::json!({ "hash": blake3::hash(&notes).to_hex().to_string(), "bytes": notes.len() });
        state["entries"]["tower-side"]["outputs"]["notes.txt"] = written;
    });
    // Its settings change, so it is rebuilt and drops what its last record listed.
    let text = std::fs::read_to_string(dir.join("spritebake.toml")).unwrap().replace("yaw = 90", "yaw = 80");
    std::fs::write(dir.join("spritebake.toml"), text).unwrap();
    let o = bake(&dir, &["spritebake.toml"]);
    assert_eq!(o.status.code(), Some(0), "{}", printed(&o));
    assert_eq!(entries_with(&o, "built"), set(&["tower-side"]), "{}", printed(&o));
    assert_eq!(std::fs::read(dir.join("notes.txt")).unwrap(), notes);
}

#[test]
fn no_content_of_a_state_file_makes_a_run_panic_or_refuse() {
    let dir = project("state-garbage", PROJECT);
    assert_eq!(bake(&dir, &["spritebake.toml", "-q"]).status.code(), Some(0));
    let good = std::fs::read(dir.join(STATE)).unwrap();
    let odd_paths = ["", "/", "..", "../../../../etc/passwd", "/etc/passwd", "out/\u{0}x", "out//thumbs/./tower.png"];
    type Edit = Box<dyn Fn(&mut serde_json::Value)>;
    let mut variants: Vec<Edit> = vec![
        Box::new(|s| s["entries"]["tower-thumb"]["outputs"]["out/thumbs/tower.png"]["bytes"] = u64::MAX.into()),
        Box::new(|s| s["entries"]["tower-thumb"]["outputs"]["out/thumbs/tower.png"]["hash"] = "".into()),
        Box::new(|s| s["entries"]["tower-thumb"]["inputs"] = serde_json::json!({})),
        Box::new(|s| s["entries"]["nobody"] = s["entries"]["tower-thumb"].clone()),
        Box::new(|s| s["entries"] = serde_json::json!({})),
    ];
    for path in odd_paths {
        variants.push(Box::new(move |s| {
            let written = s["entries"]["tower-side"]["outputs"]["out/tower-side.png"].clone();
            s["entries"]["tower-side"]["outputs"][path] = written;
            s["entries"]["robot-md2-gif"]["inputs"][path] = serde_json::Value::Null;
        }));
    }
    for (i, edit) in variants.iter().enumerate() {
        std::fs::write(dir.join(STATE), &good).unwrap();
        tamper(&dir, edit);
        let o = bake(&dir, &["spritebake.toml"]);
        assert_eq!(o.status.code(), Some(0), "variant {i}: {}", printed(&o));
        assert!(dir.join("out/tower-side.png").is_file() && dir.join("assets/tower.obj").is_file());
        let o = bake(&dir, &["spritebake.toml"]);
        assert_eq!(entries_with(&o, "up to date"), set(&ENTRIES), "variant {i}: {}", printed(&o));
    }
}

/// A `frames` entry writing `out/{clip}/{frame}.png`, and a file beside its project.
const CLIP_FOLDERS: &str = "[defaults]\nsize = 32\nssaa = 1\n\n[[frames]]\nname = \"walk\"\n\
    model = \"assets/robot/robot.md2\"\nclip = \"walk\"\nframes = 2\noutput = \"out/{clip}/{frame}.png\"\n";

#[test]
fn a_record_cannot_pass_dot_dot_off_as_a_clip_name_to_remove_a_file() {
    // Issue 46, R4-06: `out/../7.png` is `out/{clip}/{frame}.png` with `..` for the clip.
    let dir = project("state-dot-dot-clip", CLIP_FOLDERS);
    assert_eq!(bake(&dir, &["spritebake.toml", "-q"]).status.code(), Some(0));
    let precious = b"a file of the project's own".to_vec();
    std::fs::write(dir.join("7.png"), &precious).unwrap();
    let written = serde_json::json!({ "hash": blake3::hash(&precious).to_hex().to_string(), "bytes": precious.len() });
    for forged in ["out/../7.png", "out/./7.png"] {
        tamper(&dir, |state| state["entries"]["walk"]["outputs"][forged] = written.clone());
        let o = bake(&dir, &["spritebake.toml", "--force", "--allow-dir", ".."]);
        assert_eq!(o.status.code(), Some(0), "{forged}: {}", printed(&o));
        assert_eq!(entries_with(&o, "built"), set(&["walk"]), "{forged}: {}", printed(&o));
        assert_eq!(std::fs::read(dir.join("7.png")).unwrap(), precious, "{forged}: {}", printed(&o));
    }
}

#[test]
fn a_record_naming_one_input_in_many_spellings_is_not_believed() {
    // Issue 46, R4-07: each spelling was hashed on every run, forever. A record can name a file
    // only as a bake records it, so these are refused and the entry's next record names it once.
    let dir = project("state-spellings", PROJECT);
    assert_eq!(bake(&dir, &["spritebake.toml", "-q"]).status.code(), Some(0));
    let texture = "assets/tower_bricks.png";
    let hash = blake3::hash(&std::fs::read(dir.join(texture)).unwrap()).to_hex().to_string();
    tamper(&dir, |state| {
        let inputs = state["entries"]["tower-thumb"]["inputs"].as_object_mut().unwrap();
        assert!(inputs.contains_key(texture), "{inputs:?}");
        for i in 1..=200 {
            let spelling = format!("assets/{}tower_bricks.png", "robot/../".repeat(i));
            inputs.insert(spelling, hash.clone().into());
        }
    });
    let o = bake(&dir, &["spritebake.toml"]);
    assert_eq!(o.status.code(), Some(0), "{}", printed(&o));
    assert_eq!(entries_with(&o, "built"), set(&["tower-thumb"]), "{}", printed(&o));
    assert_eq!(warnings_about(&o, "tower-thumb").len(), 1, "{}", printed(&o));
    let state = json(&dir.join(STATE));
    let inputs = state["entries"]["tower-thumb"]["inputs"].as_object().unwrap();
    let spellings: Vec<&String> = inputs.keys().filter(|k| k.ends_with("tower_bricks.png")).collect();
    assert_eq!(spellings, [texture], "{inputs:?}");
    the_next_run_has_nothing_to_do(&dir);
}

#[test]
fn a_link_or_fifo_at_the_state_lock_is_neither_followed_nor_waited_on() {
    // Issue 46, R4-08: a run holds `PROJECT.state.lock` while it reads and writes the state.
    let dir = project("state-lock", PROJECT);
    let lock = dir.join("spritebake.toml.state.lock");
    std::fs::write(dir.join("victim"), b"precious").unwrap();
    std::os::unix::fs::symlink(dir.join("victim"), &lock).unwrap();
    let o = bake(&dir, &["spritebake.toml"]);
    assert_eq!(o.status.code(), Some(0), "{}", printed(&o));
    assert_eq!(entries_with(&o, "built"), set(&ENTRIES), "{}", printed(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("warning: the state file's lock") && err.contains("state.lock"), "{err}");
    assert_eq!(std::fs::read(dir.join("victim")).unwrap(), b"precious");
    assert!(std::fs::symlink_metadata(&lock).unwrap().file_type().is_symlink());

    std::fs::remove_file(&lock).unwrap();
    assert!(std::process::Command::new("mkfifo").arg(&lock).status().unwrap().success());
    let start = Instant::now();
    std::fs::write(dir.join("spritebake.toml"), format!("{PROJECT}\n# edited\n")).unwrap();
    let o = bake(&dir, &["spritebake.toml", "--force", "-q"]);
    // Refused before anything is read or rendered, as a FIFO at the journal's name is: never
    // opened, so never waited on.
    assert_eq!(o.status.code(), Some(2), "{}", printed(&o));
    assert!(start.elapsed() < Duration::from_secs(60));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("spritebake.toml.state.lock") && err.contains("not a regular file"), "{err}");

    // A lock file of its own: taken without a word, and left in place.
    std::fs::remove_file(&lock).unwrap();
    let o = bake(&dir, &["spritebake.toml", "--force", "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}", printed(&o));
    assert!(lock.is_file());
    the_next_run_has_nothing_to_do(&dir);
}
