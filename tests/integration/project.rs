//! `spritebake bake PROJECT.toml` (issue 17, item 3): a project file of sheets, GIFs, frames,
//! thumbnails and renders over models of four formats, baked in parallel and incrementally.
//! Every test copies the example assets into a folder of its own, so the project owns them.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::SystemTime;

use crate::common::cli::{printed, scratch_in};

/// Seven entries over MD5, SMD, MD2 and OBJ models: two sheets, a GIF, frames, two thumbnails
/// and a render; tiny images so the tests stay fast.
pub(crate) const PROJECT: &str = r#"
[defaults]
size = 32
ssaa = 1

[[sheet]]
name = "robot-md5-walk"
model = "assets/robot/robot.md5mesh"
anim = ["assets/robot/walk.md5anim"]
directions = 2
frames = 4
output = "out/robot-md5-walk.png"

[[sheet]]
name = "robot-smd-walk"
model = "assets/robot/robot.smd"
anim = ["assets/robot/walk.smd"]
frames = 4
output = "out/robot-smd-walk.png"

[[gif]]
name = "robot-md2-gif"
model = "assets/robot/robot.md2"
clip = "walk"
frames = 4
output = "out/robot-md2.gif"

[[frames]]
name = "robot-md2-frames"
model = "assets/robot/robot.md2"
clip = "walk"
frames = 3
output = "out/frames/{clip}_{frame:02}.png"

[[thumbnail]]
name = "tower-thumb"
model = "assets/tower.obj"
output = "out/thumbs/tower.png"

[[render]]
name = "tower-side"
model = "assets/tower.obj"
yaw = 90
output = "out/tower-side.png"

[[thumbnail]]
name = "robot-md5-thumb"
model = "assets/robot/robot.md5mesh"
output = "out/thumbs/robot.png"
"#;

/// The entries of [`PROJECT`], in file order.
pub(crate) const ENTRIES: [&str; 7] = [
    "robot-md5-walk",
    "robot-smd-walk",
    "robot-md2-gif",
    "robot-md2-frames",
    "tower-thumb",
    "tower-side",
    "robot-md5-thumb",
];

pub(crate) const STATE: &str = "spritebake.toml.state.json";

/// `spritebake bake ARGS` run in `dir`.
pub(crate) fn bake(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_spritebake")).current_dir(dir).arg("bake").args(args).output().unwrap()
}

/// A fresh folder holding a copy of the example assets (`assets/robot/*`, `assets/tower.*`)
/// and `project` as `spritebake.toml`.
pub(crate) fn project(name: &str, project: &str) -> PathBuf {
    let dir = scratch_in("project", name);
    copy_assets(&dir);
    std::fs::write(dir.join("spritebake.toml"), project).unwrap();
    dir
}

fn copy_assets(dir: &Path) {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/assets");
    std::fs::create_dir_all(dir.join("assets/robot")).unwrap();
    for name in ["robot.md2", "robot.md5mesh", "robot.png", "robot.smd", "walk.md5anim", "walk.smd"] {
        std::fs::copy(examples.join("robot").join(name), dir.join("assets/robot").join(name)).unwrap();
    }
    for name in ["tower.obj", "tower.mtl", "tower_bricks.png"] {
        std::fs::copy(examples.join(name), dir.join("assets").join(name)).unwrap();
    }
}

/// Every file under `dir` (recursively), by path relative to it: its bytes and mtime.
fn files_under(dir: &Path) -> BTreeMap<String, (Vec<u8>, SystemTime)> {
    let mut files = BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(folder) = todo.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else { continue };
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_dir() {
                todo.push(path);
            } else {
                let rel = path.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
                let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
                files.insert(rel, (std::fs::read(&path).unwrap(), mtime));
            }
        }
    }
    files
}

/// The entries a run's standard output says have `status` (`built`, `up to date`...).
pub(crate) fn entries_with(o: &Output, status: &str) -> BTreeSet<String> {
    names_with(&String::from_utf8_lossy(&o.stdout), status)
}

/// The entries whose lines in `text` say `status`.
fn names_with(text: &str, status: &str) -> BTreeSet<String> {
    let suffix = format!(": {status}");
    text.lines().filter(|l| l.contains(&suffix)).filter_map(|l| l.split(": ").next()).map(str::to_string).collect()
}

pub(crate) fn set(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|n| n.to_string()).collect()
}

pub(crate) fn json(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// The statuses of a JSON summary's entries, by name.
pub(crate) fn statuses(summary: &serde_json::Value) -> BTreeMap<String, String> {
    summary["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["name"].as_str().unwrap().to_string(), e["status"].as_str().unwrap().to_string()))
        .collect()
}

#[test]
fn a_project_bakes_then_rebuilds_only_what_changed() {
    let dir = project("incremental", PROJECT);
    let o = bake(&dir, &["spritebake.toml", "--json", "summary.json"]);
    assert_eq!(o.status.code(), Some(0), "{}", printed(&o));
    assert_eq!(entries_with(&o, "built"), set(&ENTRIES), "{}", printed(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("7 built, 0 up to date, 0 failed"), "{}", printed(&o));
    let summary = json(&dir.join("summary.json"));
    assert!(statuses(&summary).values().all(|s| s == "built"), "{summary}");
    let first = &summary["entries"][0];
    assert_eq!((first["name"].as_str(), first["kind"].as_str()), (Some("robot-md5-walk"), Some("sheet")));
    let outputs: Vec<&str> = first["outputs"].as_array().unwrap().iter().filter_map(|p| p.as_str()).collect();
    assert_eq!(outputs, ["out/robot-md5-walk.png", "out/robot-md5-walk.json"]);
    assert!(first["seconds"].as_f64().unwrap() >= 0.0 && first["error"].is_null(), "{first}");
    let out = dir.join("out");
    let baked = files_under(&out);
    let names: Vec<&str> = baked.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        [
            "frames/frames.json",
            "frames/walk_00.png",
            "frames/walk_01.png",
            "frames/walk_02.png",
            "robot-md2.gif",
            "robot-md5-walk.json",
            "robot-md5-walk.png",
            "robot-smd-walk.json",
            "robot-smd-walk.png",
            "thumbs/robot.png",
            "thumbs/tower.png",
            "tower-side.png",
        ]
    );
    assert!(dir.join(STATE).is_file());

    // Nothing changed: nothing is rebuilt, nothing is written (same bytes, same mtimes).
    std::thread::sleep(std::time::Duration::from_millis(50));
    let state = std::fs::read(dir.join(STATE)).unwrap();
    let o = bake(&dir, &["spritebake.toml"]);
    assert_eq!(o.status.code(), Some(0), "{}", printed(&o));
    assert_eq!(entries_with(&o, "up to date"), set(&ENTRIES), "{}", printed(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("0 built, 7 up to date, 0 failed"), "{}", printed(&o));
    assert_eq!(files_under(&out), baked, "an up-to-date run rewrote outputs");
    assert_eq!(std::fs::read(dir.join(STATE)).unwrap(), state);

    // One model changed: exactly the two entries that read it are rebuilt.
    let obj = dir.join("assets/tower.obj");
    let mut text = std::fs::read_to_string(&obj).unwrap();
    text.push_str("# an edit\n");
    std::fs::write(&obj, text).unwrap();
    let o = bake(&dir, &["spritebake.toml"]);
    assert_eq!(o.status.code(), Some(0), "{}", printed(&o));
    assert_eq!(entries_with(&o, "built"), set(&["tower-thumb", "tower-side"]), "{}", printed(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("2 built, 5 up to date, 0 failed"), "{}", printed(&o));
    let after = files_under(&out);
    for (name, (bytes, mtime)) in &baked {
        let (now_bytes, now_mtime) = &after[name];
        if name.starts_with("thumbs/tower") || name.starts_with("tower-side") {
            assert_ne!(now_mtime, mtime, "{name} was not rewritten");
        } else {
            assert_eq!((now_bytes, now_mtime), (bytes, mtime), "{name} was rewritten");
        }
    }

    // A texture shared by several models: every entry that reads it, and only those.
    let png = dir.join("assets/robot/robot.png");
    let mut image = spritebake::output::read_png(&png).unwrap();
    image.pixel_mut(0, 0).unwrap().copy_from_slice(&[1, 2, 3, 255]);
    spritebake::output::write_png(&png, &image).unwrap();
    let o = bake(&dir, &["spritebake.toml", "--dry-run"]);
    let robots: Vec<&str> = ENTRIES.iter().copied().filter(|n| n.starts_with("robot")).collect();
    assert_eq!(entries_with(&o, "would build"), set(&robots), "{}", printed(&o));

    // An entry's own settings, an output deleted or edited: that entry alone.
    bake(&dir, &["spritebake.toml", "-q"]);
    let edited = std::fs::read_to_string(dir.join("spritebake.toml")).unwrap().replace("yaw = 90", "yaw = 80");
    std::fs::write(dir.join("spritebake.toml"), edited).unwrap();
    std::fs::remove_file(out.join("frames/walk_01.png")).unwrap();
    std::fs::write(out.join("robot-smd-walk.json"), "{}").unwrap();
    let o = bake(&dir, &["spritebake.toml"]);
    let rebuilt = set(&["tower-side", "robot-md2-frames", "robot-smd-walk"]);
    assert_eq!(entries_with(&o, "built"), rebuilt, "{}", printed(&o));
    assert_eq!(files_under(&out).keys().collect::<Vec<_>>(), baked.keys().collect::<Vec<_>>());

    // --force rebuilds everything; so does a deleted state file.
    let o = bake(&dir, &["spritebake.toml", "--force"]);
    assert_eq!(entries_with(&o, "built"), set(&ENTRIES), "{}", printed(&o));
    std::fs::remove_file(dir.join(STATE)).unwrap();
    let o = bake(&dir, &["spritebake.toml", "--dry-run"]);
    assert_eq!(entries_with(&o, "would build (new)"), set(&ENTRIES), "{}", printed(&o));
}

#[test]
fn a_corrupt_state_file_is_ignored_with_a_warning() {
    let dir = project("corrupt-state", PROJECT);
    assert_eq!(bake(&dir, &["spritebake.toml", "-q"]).status.code(), Some(0));
    std::fs::write(dir.join(STATE), "{\"spritebake\": 7, \"entries\": [").unwrap();
    let o = bake(&dir, &["spritebake.toml"]);
    assert_eq!(o.status.code(), Some(0), "{}", printed(&o));
    assert!(printed(&o).contains("warning: ignoring the state file"), "{}", printed(&o));
    assert_eq!(entries_with(&o, "built"), set(&ENTRIES), "{}", printed(&o));
    // Written anew: the next run has nothing to do.
    let o = bake(&dir, &["spritebake.toml"]);
    assert_eq!(entries_with(&o, "up to date"), set(&ENTRIES), "{}", printed(&o));
    // A record naming files outside the project is never up to date, and never read.
    let state = std::fs::read_to_string(dir.join(STATE)).unwrap().replace("assets/tower.obj", "/etc/hostname");
    std::fs::write(dir.join(STATE), state).unwrap();
    let o = bake(&dir, &["spritebake.toml", "--dry-run"]);
    assert_eq!(entries_with(&o, "would build"), set(&["tower-thumb", "tower-side"]), "{}", printed(&o));
}

#[test]
fn shards_together_write_the_full_run_once() {
    let full = project("shard-full", PROJECT);
    let o = bake(&full, &["spritebake.toml"]);
    assert_eq!(o.status.code(), Some(0), "{}", printed(&o));
    let expected = files_under(&full.join("out"));
    let mut together: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    let mut baked_by_shards = BTreeSet::new();
    for i in 1..=3 {
        let dir = project(&format!("shard-{i}"), PROJECT);
        // Run from elsewhere, the project named by its path.
        let file = dir.join("spritebake.toml");
        let shard = format!("{i}/3");
        let o = bake(Path::new("/"), &[file.to_str().unwrap(), "--shard", &shard]);
        assert_eq!(o.status.code(), Some(0), "{}", printed(&o));
        // Entries are numbered in file order over every kind: shard i has i-1, i-1+3, ...
        let mine: Vec<&str> = ENTRIES.iter().skip(i - 1).step_by(3).copied().collect();
        assert_eq!(entries_with(&o, "built"), set(&mine), "{}", printed(&o));
        baked_by_shards.extend(mine.iter().map(|n| n.to_string()));
        assert!(dir.join(format!("spritebake.toml.shard-{i}-of-3.state.json")).is_file());
        assert!(!dir.join(STATE).exists());
        for (name, (bytes, _)) in files_under(&dir.join("out")) {
            assert!(together.insert(name.clone(), bytes).is_none(), "{name} written by two shards");
        }
        // A shard's second run finds its own state.
        let o = bake(Path::new("/"), &[file.to_str().unwrap(), "--shard", &shard]);
        assert_eq!(entries_with(&o, "up to date"), set(&mine), "{}", printed(&o));
    }
    assert_eq!(baked_by_shards, set(&ENTRIES));
    let expected: BTreeMap<String, Vec<u8>> = expected.into_iter().map(|(k, (b, _))| (k, b)).collect();
    assert_eq!(together.keys().collect::<Vec<_>>(), expected.keys().collect::<Vec<_>>());
    for (name, bytes) in &expected {
        assert!(together[name] == *bytes, "{name}: a shard's bytes differ from the full run's");
    }
}

#[test]
fn a_failing_entry_fails_alone() {
    let text =
        format!("{PROJECT}\n[[sheet]]\nname = \"ghost\"\nmodel = \"assets/ghost.md2\"\noutput = \"out/ghost.png\"\n");
    let dir = project("failing", &text);
    let o = bake(&dir, &["spritebake.toml", "--json", "-"]);
    assert_eq!(o.status.code(), Some(1), "{}", printed(&o));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("ghost: FAIL: ") && stderr.contains("ghost.md2"), "{stderr}");
    assert!(stderr.contains("7 built, 0 up to date, 1 failed"), "{stderr}");
    // With `--json -` the summary alone is on standard output.
    let summary: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(statuses(&summary)["ghost"], "failed");
    let ghost = summary["entries"].as_array().unwrap().iter().find(|e| e["name"] == "ghost").unwrap();
    assert!(ghost["error"].as_str().unwrap().contains("ghost.md2"), "{ghost}");
    assert_eq!(summary["failed"], 1);
    assert!(dir.join("out/thumbs/tower.png").is_file() && !dir.join("out/ghost.png").exists());
    // The failure keeps no record: it is tried again, the rest is up to date.
    let o = bake(&dir, &["spritebake.toml"]);
    assert_eq!(o.status.code(), Some(1), "{}", printed(&o));
    assert_eq!(entries_with(&o, "FAIL"), set(&["ghost"]), "{}", printed(&o));
    assert_eq!(entries_with(&o, "up to date"), set(&ENTRIES), "{}", printed(&o));
}

#[test]
fn clashing_outputs_are_refused_before_anything_renders() {
    // Two entries on one file (spelled differently).
    let text = format!(
        "{PROJECT}\n[[render]]\nname = \"again\"\nmodel = \"assets/tower.obj\"\noutput = \"out/./tower-side.png\"\n"
    );
    let dir = project("clash", &text);
    let o = bake(&dir, &["spritebake.toml"]);
    assert_eq!(o.status.code(), Some(2), "{}", printed(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("[[render]] 'tower-side'") && err.contains("[[render]] 'again'"), "{err}");
    assert!(err.contains("both write"), "{err}");
    assert!(!dir.join("out").exists() && !dir.join(STATE).exists(), "something was written");

    // An output on a file another entry reads (a texture its model names): found once the
    // entries are planned, still before anything renders. An entry whose output is its own
    // texture: the same refusal of the whole run, not a failure of that entry alone.
    for (name, texture) in [("over", "assets/robot/robot.png"), ("own", "assets/tower_bricks.png")] {
        let text = format!(
            "{PROJECT}\n[[thumbnail]]\nname = \"{name}\"\nmodel = \"assets/tower.obj\"\noutput = \"{texture}\"\n"
        );
        let dir = project(&format!("{name}-input"), &text);
        let before = std::fs::read(dir.join(texture)).unwrap();
        let o = bake(&dir, &["spritebake.toml"]);
        assert_eq!(o.status.code(), Some(2), "{}", printed(&o));
        assert!(printed(&o).contains("refusing to overwrite an input file"), "{}", printed(&o));
        assert_eq!(std::fs::read(dir.join(texture)).unwrap(), before);
        assert!(!dir.join("out").exists() && !dir.join(STATE).exists(), "{name}: something was written");
    }
}

#[test]
fn outputs_leaving_the_project_folder_are_refused() {
    let root = scratch_in("project", "escape");
    let dir = root.join("game");
    copy_assets(&dir);
    for (kind, output) in [("thumbnail", "../x.png"), ("frames", "../f_{frame}.png"), ("gif", "/tmp/x.gif")] {
        let text = format!("[[{kind}]]\nname = \"out\"\nmodel = \"assets/tower.obj\"\noutput = \"{output}\"\n");
        std::fs::write(dir.join("spritebake.toml"), text).unwrap();
        let o = bake(&dir, &["spritebake.toml"]);
        assert_eq!(o.status.code(), Some(2), "{output}: {}", printed(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains(&format!("[[{kind}]] 'out' (line 1)")) && err.contains("outside the project's folder"),
            "{err}"
        );
        assert_eq!(crate::common::cli::names_in(&root), ["game"]);
    }
    // Allowed with --allow-dir.
    let text = "[[thumbnail]]\nname = \"out\"\nmodel = \"assets/tower.obj\"\noutput = \"../x.png\"\nsize = 16\n";
    std::fs::write(dir.join("spritebake.toml"), text).unwrap();
    let o = bake(&dir, &["spritebake.toml", "--allow-dir", root.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", printed(&o));
    assert!(root.join("x.png").is_file());
}

#[test]
fn a_dry_run_lists_the_entries_and_writes_nothing() {
    let dir = project("dry-run", PROJECT);
    let o = bake(&dir, &["spritebake.toml", "--dry-run", "--json", "-"]);
    assert_eq!(o.status.code(), Some(0), "{}", printed(&o));
    // With `--json -` the lines go to standard error.
    assert_eq!(names_with(&String::from_utf8_lossy(&o.stderr), "would build (new)"), set(&ENTRIES));
    let summary: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(statuses(&summary).values().all(|s| s == "would-build"), "{summary}");
    assert_eq!(summary["would_build"], 7);
    assert!(!dir.join("out").exists() && !dir.join(STATE).exists(), "a dry run wrote files");
    let o = bake(&dir, &["spritebake.toml", "--dry-run"]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("7 would build, 0 up to date"), "{}", printed(&o));
}

#[test]
fn entries_named_after_the_project_are_the_only_ones_baked() {
    let dir = project("named", PROJECT);
    assert_eq!(bake(&dir, &["spritebake.toml", "-q"]).status.code(), Some(0));
    let out = dir.join("out");
    let baked = files_under(&out);
    std::thread::sleep(std::time::Duration::from_millis(50));

    // One entry by name, forced: only its file is written, and every other record is kept.
    let o = bake(&dir, &["spritebake.toml", "tower-side", "--force"]);
    assert_eq!(o.status.code(), Some(0), "{}", printed(&o));
    assert_eq!(entries_with(&o, "built"), set(&["tower-side"]), "{}", printed(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("1 built, 0 up to date, 0 failed"), "{}", printed(&o));
    for (name, (bytes, mtime)) in files_under(&out) {
        let unchanged = baked[&name] == (bytes, mtime);
        assert_eq!(unchanged, name != "tower-side.png", "{name}");
    }
    let o = bake(&dir, &["spritebake.toml", "--dry-run"]);
    assert_eq!(entries_with(&o, "up to date"), set(&ENTRIES), "{}", printed(&o));

    // Two entries' settings changed; a glob picks one of them, the other stays to rebuild.
    let edited = std::fs::read_to_string(dir.join("spritebake.toml")).unwrap();
    let edited =
        edited.replace("yaw = 90", "yaw = 80").replace("clip = \"walk\"\nframes = 4", "clip = \"walk\"\nframes = 5");
    std::fs::write(dir.join("spritebake.toml"), edited).unwrap();
    let o = bake(&dir, &["spritebake.toml", "tower-*", "robot-md2-frames"]);
    assert_eq!(o.status.code(), Some(0), "{}", printed(&o));
    assert_eq!(entries_with(&o, "built"), set(&["tower-side"]), "{}", printed(&o));
    assert_eq!(entries_with(&o, "up to date"), set(&["tower-thumb", "robot-md2-frames"]), "{}", printed(&o));
    let o = bake(&dir, &["spritebake.toml", "--dry-run"]);
    assert_eq!(entries_with(&o, "would build"), set(&["robot-md2-gif"]), "{}", printed(&o));

    // A name no entry has is refused with the closest names, before anything is baked.
    let o = bake(&dir, &["spritebake.toml", "robot-md2-gf"]);
    assert_eq!(o.status.code(), Some(2), "{}", printed(&o));
    assert!(printed(&o).contains("no entry named 'robot-md2-gf'; did you mean 'robot-md2-gif'?"), "{}", printed(&o));
    let o = bake(&dir, &["spritebake.toml", "dragon-*"]);
    assert!(printed(&o).contains("no entry named 'dragon-*'"), "{}", printed(&o));
    // A name of another shard's entry (entry 6 of 7 is shard 3 of 3) is said to bake nothing.
    let o = bake(&dir, &["spritebake.toml", "tower-side", "tower-thumb", "--shard", "2/3"]);
    assert_eq!(o.status.code(), Some(0), "{}", printed(&o));
    assert!(printed(&o).contains("warning: 'tower-side' not baked: another shard's entries"), "{}", printed(&o));
    assert_eq!(entries_with(&o, "up to date").len() + entries_with(&o, "built").len(), 1, "{}", printed(&o));
}

#[test]
fn a_dry_run_names_each_changed_setting_with_both_values() {
    let dir = project("dry-run-why", PROJECT);
    assert_eq!(bake(&dir, &["spritebake.toml", "-q"]).status.code(), Some(0));
    let edited = std::fs::read_to_string(dir.join("spritebake.toml")).unwrap();
    let edited = edited.replace("yaw = 90", "yaw = 80\nssaa = 2").replace("out/tower-side.png", "out/side.png");
    std::fs::write(dir.join("spritebake.toml"), edited).unwrap();
    std::fs::remove_file(dir.join("out/thumbs/tower.png")).unwrap();
    let o = bake(&dir, &["spritebake.toml", "--dry-run"]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains("tower-side: would build (settings changed: output out/tower-side.png → out/side.png, ssaa 1 → 2, yaw 90 → 80)"),
        "{}",
        printed(&o)
    );
    assert!(stdout.contains("tower-thumb: would build (out/thumbs/tower.png is missing)"), "{}", printed(&o));
}

#[test]
fn off_a_terminal_a_bake_prints_progress_lines_unless_quiet() {
    let sheet = |name: &str, model: &str| {
        format!(
            "[[sheet]]\nname = \"{name}\"\nmodel = \"assets/robot/{model}\"\nanim = [\"assets/robot/walk.{}\"]\n\
             directions = 16\nframes = 8\nsize = 24\nssaa = 1\noutput = \"out/{name}.png\"\n",
            if model.ends_with("smd") { "smd" } else { "md5anim" }
        )
    };
    let text = format!("{}{}", sheet("md5", "robot.md5mesh"), sheet("smd", "robot.smd"));
    let dir = project("progress", &text);
    // Standard error is a pipe, as in a CI log: 256 images.
    let o = bake(&dir, &["spritebake.toml"]);
    assert_eq!(o.status.code(), Some(0), "{}", printed(&o));
    let said = String::from_utf8_lossy(&o.stderr).into_owned();
    let lines: Vec<&str> = said.lines().filter(|l| l.starts_with("bake spritebake.toml: ")).collect();
    assert!(lines.len() >= 5, "{said}");
    assert!(lines.iter().all(|l| l.contains("/256 images, ") && l.ends_with(" s")), "{said}");
    let o = bake(&dir, &["spritebake.toml", "--force", "--quiet"]);
    assert_eq!(o.status.code(), Some(0), "{}", printed(&o));
    assert!(!String::from_utf8_lossy(&o.stderr).contains("images,"), "{}", printed(&o));
}

#[test]
fn mistakes_in_a_project_file_name_the_entry_its_line_and_the_key() {
    let dir = project("mistakes", "");
    for (text, words) in [
        (
            "[defaults]\nsize = 16\n\n[[sheet]]\nname = \"walk\"\nmodel = \"m.md2\"\ndirectons = 8\noutput = \"w.png\"\n",
            vec!["[[sheet]] 'walk' (line 4)", "no option named 'directons'; did you mean 'directions'?"],
        ),
        (
            "[[gif]]\nname = \"g\"\nmodel = \"m.md2\"\noutput = \"g.gif\"\nsize = \"big\"\n",
            vec!["[[gif]] 'g' (line 1)", "`size` = \"big\""],
        ),
        ("[[thumbnail]]\nmodel = \"m.md2\"\noutput = \"t.png\"\n", vec!["[[thumbnail]] (line 1)", "needs a `name`"]),
        ("[[thumbnail]]\nname = \"t\"\nmodel = \"m.md2\"\n", vec!["[[thumbnail]] 't' (line 1)", "needs an `output`"]),
        (
            "[[render]]\nname = \"a\"\nmodel = \"m.obj\"\noutput = \"a.png\"\n[[gif]]\nname = \"a\"\nmodel = \"m.obj\"\noutput = \"a.gif\"\n",
            vec!["[[render]] 'a' (line 1) and [[gif]] 'a' (line 5) have the same name"],
        ),
        ("[[sheets]]\nname = \"a\"\n", vec!["no table named 'sheets'; did you mean 'sheet'?"]),
        (
            "[defaults]\nssaa = 9\n[[sheet]]\nname = \"s\"\nmodel = \"m.md2\"\noutput = \"s.png\"\n",
            vec!["[[sheet]] 's' (line 3)", "`ssaa` = 9: must be from 1 to 4"],
        ),
        ("[defaults]\nfov = \"wide\"\n", vec!["[defaults]", "`fov`"]),
        ("[defaults]\noutput = \"x.png\"\n", vec!["[defaults]", "`output` belongs in each entry"]),
        (
            "[[frames]]\nname = \"f\"\nmodel = \"m.md2\"\noutput = \"f.png\"\n",
            vec!["[[frames]] 'f' (line 1)", "needs a {frame} placeholder"],
        ),
    ] {
        std::fs::write(dir.join("spritebake.toml"), text).unwrap();
        let o = bake(&dir, &["spritebake.toml"]);
        assert_eq!(o.status.code(), Some(2), "{text}: {}", printed(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.starts_with("error: spritebake.toml"), "{err}");
        for w in words {
            assert!(err.contains(w), "{text}: missing '{w}' in {err}");
        }
    }
}

#[test]
fn the_example_project_bakes_the_example_robot() {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let dir = scratch_in("project", "example");
    copy_assets(&dir);
    std::fs::copy(examples.join("robot.bake.toml"), dir.join("robot.bake.toml")).unwrap();
    // Smaller and faster than the example's own sizes; everything else as written.
    let o = bake(&dir, &["robot.bake.toml", "--json", "summary.json"]);
    assert_eq!(o.status.code(), Some(0), "{}", printed(&o));
    let summary = json(&dir.join("summary.json"));
    let kinds: Vec<&str> = summary["entries"].as_array().unwrap().iter().filter_map(|e| e["kind"].as_str()).collect();
    assert_eq!(kinds, ["sheet", "gif", "frames", "thumbnail"]);
    assert!(statuses(&summary).values().all(|s| s == "built"), "{summary}");
    let out = dir.join("out/robot");
    for name in ["walk.png", "walk.json", "walk.gif", "thumbnail.png", "frames/walk_3_000.png"] {
        assert!(out.join(name).is_file(), "{name} missing");
    }
    let sheet = spritebake::output::read_png(&out.join("walk.png")).unwrap();
    let cells = (sheet.width / 128) * (sheet.height / 128);
    assert!(cells >= 8, "8 directions of 128 px: {}x{}", sheet.width, sheet.height);
    assert!(dir.join("robot.bake.toml.state.json").is_file());
    let o = bake(&dir, &["robot.bake.toml"]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("0 built, 4 up to date, 0 failed"), "{}", printed(&o));
}

#[test]
fn a_project_folder_with_braces_in_its_name_is_not_a_pattern() {
    let root = scratch_in("project", "braces");
    let dir = root.join("game {frame}");
    copy_assets(&dir);
    let text = "[[frames]]\nname = \"f\"\nmodel = \"assets/robot/robot.md2\"\nclip = \"walk\"\nframes = 2\n\
                size = 16\noutput = \"out/{clip}_{frame}.png\"\n";
    std::fs::write(dir.join("spritebake.toml"), text).unwrap();
    let o = bake(&root, &["game {frame}/spritebake.toml"]);
    assert_eq!(o.status.code(), Some(0), "{}", printed(&o));
    assert_eq!(crate::common::cli::names_in(&dir.join("out")), ["frames.json", "walk_0.png", "walk_1.png"]);
}

#[test]
fn a_sheets_engine_data_files_are_outputs_of_its_entry() {
    let entry = |name: &str, output: &str, format: &str| {
        format!(
            "[[sheet]]\nname = \"{name}\"\nmodel = \"assets/robot/robot.md5mesh\"\nanim = [\"assets/robot/walk.md5anim\"]\n\
             frames = 2\njson_format = \"{format}\"\noutput = \"{output}\"\n"
        )
    };
    let defaults = "[defaults]\nsize = 16\nssaa = 1\n";
    // `walk.png` as Phaser data writes `walk.anims.json`, which is the JSON of `walk.anims.png`.
    let text = [defaults, &entry("a", "out/walk.png", "phaser"), &entry("b", "out/walk.anims.png", "texturepacker")];
    let dir = project("engine-data", &text.concat());
    let o = bake(&dir, &["spritebake.toml"]);
    assert_eq!(o.status.code(), Some(2), "{}", printed(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("'a'") && err.contains("'b'") && err.contains("both write"), "{err}");
    assert!(err.contains("walk.anims.json") && !dir.join("out").exists(), "{err}");

    // Apart, each entry writes its own files, and a missing data file rebuilds its entry only.
    let text = [defaults, &entry("a", "out/walk.png", "phaser"), &entry("b", "out/other.png", "godot")];
    std::fs::write(dir.join("spritebake.toml"), text.concat()).unwrap();
    let o = bake(&dir, &["spritebake.toml"]);
    assert_eq!(o.status.code(), Some(0), "{}", printed(&o));
    let files = ["other.png", "other.tres", "other.tscn", "walk.anims.json", "walk.json", "walk.png"];
    assert_eq!(crate::common::cli::names_in(&dir.join("out")), files);
    std::fs::remove_file(dir.join("out/other.tres")).unwrap();
    let o = bake(&dir, &["spritebake.toml"]);
    assert_eq!(entries_with(&o, "up to date"), set(&["a"]), "{}", printed(&o));
    assert!(dir.join("out/other.tres").is_file());
}

/// `spritebake bake ARGS --json -` in `dir`: the summary, and everything printed.
fn bake_json(dir: &Path, args: &[&str]) -> (serde_json::Value, String) {
    let o = bake(dir, &[args, &["--json", "-"]].concat());
    let summary = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", printed(&o)));
    (summary, printed(&o))
}

/// The `removed` list of entry `name` in a summary, as paths.
pub(crate) fn removed(summary: &serde_json::Value, name: &str) -> BTreeSet<String> {
    let entry = summary["entries"].as_array().unwrap().iter().find(|e| e["name"] == name).unwrap();
    entry["removed"].as_array().unwrap().iter().map(|p| p.as_str().unwrap().to_string()).collect()
}

/// Names of the temporary files left anywhere under `dir`.
fn temporaries(dir: &Path) -> Vec<String> {
    files_under(dir).into_keys().filter(|n| n.rsplit('/').next().unwrap().starts_with(".spritebake-")).collect()
}

#[test]
fn entries_are_recorded_as_they_commit_so_a_stopped_run_keeps_them() {
    // A quick entry first, then a sheet that takes seconds: the run is stopped (SIGTERM, as a
    // CI timeout sends it) once the first entry's file is there.
    let sheet = |name: &str, size: u32| {
        format!(
            "[[sheet]]\nname = \"{name}\"\nmodel = \"assets/robot/robot.md5mesh\"\nanim = [\"assets/robot/walk.md5anim\"]\n\
             directions = 8\nsize = {size}\nssaa = 4\nmax_size = 8192\noutput = \"out/{name}.png\"\n"
        )
    };
    let text = format!(
        "[[thumbnail]]\nname = \"first\"\nmodel = \"assets/tower.obj\"\nsize = 16\noutput = \"out/first.png\"\n{}{}",
        sheet("slow-a", 256),
        sheet("slow-b", 16)
    );
    let dir = project("stopped", &text);
    let mut child = Command::new(env!("CARGO_BIN_EXE_spritebake"))
        .current_dir(&dir)
        .args(["bake", "spritebake.toml", "-q"])
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while !dir.join("out/first.png").exists() && start.elapsed() < std::time::Duration::from_secs(120) {
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    let _ = Command::new("kill").args(["-TERM", &child.id().to_string()]).status();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130), "not stopped by the signal (finished first?)");
    assert!(dir.join("out/first.png").is_file());
    assert_eq!(temporaries(&dir), Vec::<String>::new());

    // What it finished is up to date; what it did not is rebuilt.
    let (summary, text) = bake_json(&dir, &["spritebake.toml", "--dry-run"]);
    let finished = |name: &str| ["png", "json"].iter().all(|ext| dir.join(format!("out/{name}.{ext}")).is_file());
    let mut expected = BTreeMap::from([("first".to_string(), "up-to-date".to_string())]);
    for name in ["slow-a", "slow-b"] {
        let status = if finished(name) { "up-to-date" } else { "would-build" };
        expected.insert(name.into(), status.into());
    }
    assert_eq!(statuses(&summary), expected, "{text}");
    assert!(!text.contains("warning:"), "{text}");

    // The next run builds the rest, writes the state file whole and drops the journal.
    let o = bake(&dir, &["spritebake.toml"]);
    assert_eq!(o.status.code(), Some(0), "{}", printed(&o));
    assert!(entries_with(&o, "up to date").contains("first"), "{}", printed(&o));
    assert!(dir.join(STATE).is_file() && !dir.join("spritebake.toml.state.journal").exists());
    let (summary, _) = bake_json(&dir, &["spritebake.toml", "--dry-run"]);
    assert!(statuses(&summary).values().all(|s| s == "up-to-date"), "{summary}");
}

#[test]
fn files_an_entry_no_longer_writes_are_removed_and_reported() {
    let project_text = |max_size: u32, frames: u32, more: &str| {
        format!(
            "[defaults]\nsize = 24\nssaa = 1\n\
             [[sheet]]\nname = \"walk\"\nmodel = \"assets/robot/robot.md5mesh\"\nanim = [\"assets/robot/walk.md5anim\"]\n\
             directions = 4\nframes = 6\nmax_size = {max_size}\noutput = \"out/walk.png\"\n\
             [[frames]]\nname = \"steps\"\nmodel = \"assets/robot/robot.md2\"\nclip = \"walk\"\nframes = {frames}\n\
             output = \"out/frames/{{clip}}_{{frame:02}}.png\"\n{more}"
        )
    };
    let pages = |dir: &Path| -> Vec<String> {
        crate::common::cli::names_in(&dir.join("out")).into_iter().filter(|n| n.starts_with("walk-")).collect()
    };
    let frame_files = |n: u32| {
        let frames = (0..n).map(|i| format!("walk_{i:02}.png"));
        std::iter::once("frames.json".to_string()).chain(frames).collect::<Vec<_>>()
    };
    let dir = project("stale-outputs", &project_text(60, 8, ""));
    let o = bake(&dir, &["spritebake.toml"]);
    assert_eq!(o.status.code(), Some(0), "{}", printed(&o));
    let paged = pages(&dir);
    assert!(paged.len() >= 6, "several pages, each a PNG and a JSON: {paged:?}");
    assert_eq!(crate::common::cli::names_in(&dir.join("out/frames")), frame_files(8));
    // A file spritebake never wrote, named like a page: never touched.
    std::fs::write(dir.join("out/walk-99.png"), b"mine").unwrap();

    // One page instead of several, 4 frames instead of 8: exactly the new files remain.
    std::fs::write(dir.join("spritebake.toml"), project_text(4096, 4, "")).unwrap();
    let (summary, printed) = bake_json(&dir, &["spritebake.toml"]);
    assert_eq!(statuses(&summary).values().filter(|s| *s == "built").count(), 2, "{printed}");
    let mut expected = vec!["frames".to_string(), "walk-99.png".into(), "walk.json".into(), "walk.png".into()];
    expected.sort();
    assert_eq!(crate::common::cli::names_in(&dir.join("out")), expected);
    assert_eq!(crate::common::cli::names_in(&dir.join("out/frames")), frame_files(4));
    let old_pages: BTreeSet<String> = paged.iter().map(|n| format!("out/{n}")).collect();
    assert_eq!(removed(&summary, "walk"), old_pages);
    let old_frames: BTreeSet<String> = (4..8).map(|i| format!("out/frames/walk_{i:02}.png")).collect();
    assert_eq!(removed(&summary, "steps"), old_frames);
    assert!(printed.contains("walk: removed out/walk-0.json, out/walk-0.png, "), "{printed}");
    assert!(printed.contains("steps: removed out/frames/walk_04.png, "), "{printed}");
    // Nothing more to remove: the next run is a no-op.
    let (summary, _) = bake_json(&dir, &["spritebake.toml"]);
    assert!(statuses(&summary).values().all(|s| s == "up-to-date"), "{summary}");

    // Back to pages and 8 frames (the single page pair goes), then shrink again while a page
    // was edited by hand, one old frame is now a texture of another entry and one an output of
    // another entry: those three stay, the edited one with a warning.
    std::fs::write(dir.join("spritebake.toml"), project_text(60, 8, "")).unwrap();
    let (summary, printed) = bake_json(&dir, &["spritebake.toml"]);
    assert_eq!(removed(&summary, "walk"), set(&["out/walk.json", "out/walk.png"]), "{printed}");
    std::fs::write(dir.join("out/walk-2.png"), b"edited").unwrap();
    let more = "[[thumbnail]]\nname = \"skin\"\nmodel = \"assets/tower.obj\"\ntexture = \"out/frames/walk_05.png\"\n\
                output = \"out/skin.png\"\n\
                [[render]]\nname = \"over\"\nmodel = \"assets/tower.obj\"\noutput = \"out/frames/walk_06.png\"\n";
    std::fs::write(dir.join("spritebake.toml"), project_text(4096, 4, more)).unwrap();
    let (summary, printed) = bake_json(&dir, &["spritebake.toml"]);
    assert!(statuses(&summary).values().all(|s| s == "built"), "{printed}");
    let expected: BTreeSet<String> = paged.iter().filter(|n| *n != "walk-2.png").map(|n| format!("out/{n}")).collect();
    assert_eq!(removed(&summary, "walk"), expected);
    assert_eq!(removed(&summary, "steps"), set(&["out/frames/walk_04.png", "out/frames/walk_07.png"]));
    assert!(printed.contains("warning: walk: out/walk-2.png: ") && printed.contains("changed since"), "{printed}");
    let mut frames = frame_files(4);
    frames.extend(["walk_05.png".into(), "walk_06.png".into()]);
    assert_eq!(crate::common::cli::names_in(&dir.join("out/frames")), frames);
    assert_eq!(std::fs::read(dir.join("out/walk-2.png")).unwrap(), b"edited");
    assert_eq!(std::fs::read(dir.join("out/walk-99.png")).unwrap(), b"mine");
}

#[test]
fn a_run_with_nothing_to_do_over_8000_entries_finds_every_entry_up_to_date() {
    use std::fmt::Write as _;
    let dir = scratch_in("project", "8000");
    std::fs::write(dir.join("tri.obj"), "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n").unwrap();
    let mut text = String::from("[defaults]\nsize = 8\nssaa = 1\n");
    for i in 0..8000 {
        write!(text, "[[thumbnail]]\nname = \"t{i}\"\nmodel = \"tri.obj\"\noutput = \"out/t{i}.png\"\n").unwrap();
    }
    std::fs::write(dir.join("spritebake.toml"), text).unwrap();
    let o = bake(&dir, &["spritebake.toml", "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}", printed(&o));
    // Its time is measured in docs/perf-log/journal.md (issue 27): 0.5 s in a release build, 5.3 s when
    // every output was checked against every input (see `OutputPlan::check_distinct`).
    let o = bake(&dir, &["spritebake.toml"]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("0 built, 8000 up to date, 0 failed"), "{}", printed(&o));
    std::fs::remove_dir_all(dir).unwrap();
}

/// Entry 1 (shard 1 of 2) writes frames `out/walk_00.png`...; entry 2 (shard 2) `more`.
fn two_shards(frames: u32, more: &str) -> String {
    format!(
        "[defaults]\nsize = 32\nssaa = 1\n\n[[frames]]\nname = \"by-clip\"\nmodel = \"assets/robot/robot.md2\"\n\
         clip = \"walk\"\nframes = {frames}\noutput = \"out/{{clip}}_{{frame:02}}.png\"\n\n{more}"
    )
}

#[test]
fn every_shard_refuses_two_entries_on_one_file_as_the_whole_run_does() {
    // Issue 46, R4-14: entry 2 names the files entry 1's pattern expands to; only a plan of
    // both finds it, and each shard plans one.
    let by_name = "[[frames]]\nname = \"by-name\"\nmodel = \"assets/robot/robot.md2\"\nclip = \"walk\"\n\
                   frames = 2\noutput = \"out/walk_{frame:02}.png\"\n";
    let dir = project("shard-clash", &two_shards(2, by_name));
    for args in
        [&["spritebake.toml"][..], &["spritebake.toml", "--shard", "1/2"], &["spritebake.toml", "--shard", "2/2"]]
    {
        let o = bake(&dir, args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", printed(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("'by-clip'") && err.contains("'by-name'") && err.contains("both write"),
            "{args:?}: {err}"
        );
        assert!(!dir.join("out").exists(), "{args:?}: {}", printed(&o));
    }
}

#[test]
fn a_shards_clean_up_leaves_a_file_another_shards_entry_reads() {
    // Issue 46, R4-14: the frame entry 1 no longer makes is a texture entry 2 (shard 2) reads.
    let dir = project("shard-clean-up", &two_shards(3, ""));
    assert_eq!(bake(&dir, &["spritebake.toml", "--shard", "1/2", "-q"]).status.code(), Some(0));
    let frame = std::fs::read(dir.join("out/walk_02.png")).unwrap();
    let reader = "[[thumbnail]]\nname = \"reader\"\nmodel = \"assets/robot/robot.md2\"\n\
                  texture = [\"out/walk_02.png\"]\noutput = \"thumb.png\"\n";
    std::fs::write(dir.join("spritebake.toml"), two_shards(2, reader)).unwrap();
    let o = bake(&dir, &["spritebake.toml", "--shard", "1/2"]);
    assert_eq!(o.status.code(), Some(0), "{}", printed(&o));
    assert_eq!(entries_with(&o, "built"), set(&["by-clip"]), "{}", printed(&o));
    assert_eq!(std::fs::read(dir.join("out/walk_02.png")).unwrap(), frame, "{}", printed(&o));
    let o = bake(&dir, &["spritebake.toml", "--shard", "2/2"]);
    assert_eq!(entries_with(&o, "built"), set(&["reader"]), "{}", printed(&o));
}

/// Waits (up to `limit`) until a temporary file of process `pid` is in `dir`: the run has read
/// the state file and staged its outputs.
fn staged_by(dir: &Path, pid: u32, limit: std::time::Duration) -> bool {
    let start = std::time::Instant::now();
    let mine = |n: &String| n.starts_with(".spritebake-") && n.split('-').nth(2) == Some(pid.to_string().as_str());
    while start.elapsed() < limit {
        if crate::common::cli::names_in(dir).iter().any(mine) {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    false
}

/// The files the state file records, as paths relative to the project.
fn recorded_outputs(dir: &Path) -> BTreeSet<String> {
    let state = json(&dir.join(STATE));
    let entries = state["entries"].as_object().unwrap();
    entries.values().flat_map(|r| r["outputs"].as_object().unwrap().keys().cloned()).collect()
}

#[test]
fn two_versions_baked_at_once_lose_no_record() {
    // Issue 46, R4-08: two runs over two versions of the project (pages, then one page), both
    // having read the state file before either committed; whichever wrote the state file last
    // dropped the other's records, so files on disk were recorded nowhere and never removed.
    // This test holds the output folder's commit lock while both start, so that both would
    // stage (having read the state file) before either commits: every time, not by chance.
    let version = |max_size: u32| {
        format!(
            "[defaults]\nsize = 24\nssaa = 1\n\
             [[sheet]]\nname = \"walk\"\nmodel = \"assets/robot/robot.md5mesh\"\nanim = [\"assets/robot/walk.md5anim\"]\n\
             directions = 4\nframes = 6\nmax_size = {max_size}\noutput = \"out/walk.png\"\n"
        )
    };
    let dir = project("two-at-once", &version(60));
    std::fs::create_dir_all(dir.join("out")).unwrap();
    let out_files = |dir: &Path| -> BTreeSet<String> {
        let names = crate::common::cli::names_in(&dir.join("out"));
        names.into_iter().filter(|n| !n.starts_with(".spritebake-")).map(|n| format!("out/{n}")).collect()
    };
    for trial in 0..2 {
        let held = std::fs::File::open(dir.join("out")).unwrap();
        held.lock().unwrap();
        let spawn = || {
            Command::new(env!("CARGO_BIN_EXE_spritebake"))
                .current_dir(&dir)
                .args(["bake", "spritebake.toml", "-q", "--force"])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        };
        std::fs::write(dir.join("spritebake.toml"), version(60)).unwrap();
        let first = spawn();
        assert!(staged_by(&dir.join("out"), first.id(), std::time::Duration::from_secs(120)), "trial {trial}");
        std::fs::write(dir.join("spritebake.toml"), version(4096)).unwrap();
        let second = spawn();
        // Without a lock on the state, it stages too; with one, it waits for the first run.
        staged_by(&dir.join("out"), second.id(), std::time::Duration::from_secs(3));
        held.unlock().unwrap();
        for child in [first, second] {
            let o = child.wait_with_output().unwrap();
            assert_eq!(o.status.code(), Some(0), "trial {trial}: {}", printed(&o));
        }
        // Every file in the output folder is recorded (so a later run can remove it).
        assert_eq!(out_files(&dir), recorded_outputs(&dir), "trial {trial}");
        assert!(!dir.join("spritebake.toml.state.journal").exists(), "trial {trial}");
        // Either version baked again leaves exactly its own files.
        for max_size in [4096, 60] {
            std::fs::write(dir.join("spritebake.toml"), version(max_size)).unwrap();
            let o = bake(&dir, &["spritebake.toml"]);
            assert_eq!(o.status.code(), Some(0), "{}", printed(&o));
            let files = out_files(&dir);
            let pages = files.iter().filter(|n| n.starts_with("out/walk-")).count();
            let single = files.contains("out/walk.png") as usize;
            assert!(pages >= 6 && single == 0 || pages == 0 && single == 1, "trial {trial}: {files:?}");
            assert_eq!(files, recorded_outputs(&dir), "trial {trial}");
            let o = bake(&dir, &["spritebake.toml"]);
            assert_eq!(entries_with(&o, "up to date"), set(&["walk"]), "{}", printed(&o));
        }
    }
}
