//! One `BakeSpec` behind every front end: the commands' flags and the manifest keys are one set,
//! options are refused alike with their flag and range, one clip rule for every command, the
//! `check` kinds catch what they compare, and the same options make the same bytes whether a
//! command or a `check` case bakes them.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, SystemTime};

use spritebake::BakeSpec;
use spritebake::check::Manifest;
use spritebake::internal::check::CASE_KEYS;
use spritebake::output::{read_png, write_png};

use crate::common;
use crate::common::cli::{assert_refused, names_in, printed, run_in};

fn scratch(name: &str) -> PathBuf {
    common::cli::scratch_in("spec", name)
}

/// `spritebake ARGS`, run in `dir` (relative outputs land there).
fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn assets() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/assets")
}

fn asset(name: &str) -> String {
    assets().join(name).to_str().unwrap().to_string()
}

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

// ---------------------------------------------------------------------------------------------
// 1. Flags and keys are one set.
// ---------------------------------------------------------------------------------------------

/// The commands whose flags are checked against the spec's keys (`bench` measures, it bakes
/// nothing a manifest could name).
const COMMANDS: &[&str] = &["render", "sheet", "gif", "frames", "export", "thumbnail", "info", "compare", "check"];

/// Flags that are neither spec keys nor case keys, each with why it has no manifest key.
const COMMAND_ONLY: &[(&str, &str)] = &[
    ("help", "clap's own --help"),
    ("output", "where a command writes; a case writes its `golden`"),
    ("threads", "how many workers run, not what is baked (check has it too, for the whole run)"),
    ("quiet", "progress bar and summary chatter, not what is baked"),
    ("keep_axes", "export's axes for the written OBJ; no image depends on it"),
    ("diff", "compare's diff image path (check writes diffs with --out)"),
    ("bless", "check: rewrite goldens, a choice of the run, not of a case"),
    ("out", "check: folder for actual and diff images of the run"),
    ("junit", "check: the run's JUnit report"),
    ("github", "check: the run's GitHub Actions annotations and job summary"),
    ("html", "check: the run's HTML report; thumbnail: the batch's index page"),
    ("json", "check: the run's per-case results as JSON; thumbnail: one record per model"),
    ("flat", "thumbnail: how the batch names its files, not what is rendered"),
    ("shard", "check: which cases this run takes"),
    ("allow_dir", "check: folders the manifest may reach, granted by whoever runs it, never by the manifest"),
    ("case", "check: which cases this run takes, by name"),
];

/// The case keys a `compare` takes as flags: a case's tolerance is `compare`'s.
const TOLERANCE_KEYS: &[&str] = &["threshold", "max_pixels", "max_percent", "ignore_aa"];

/// The long flags of one `--help` page, snake_case: every `--name` that opens an option entry
/// (`  -o, --output <OUTPUT>`, `      --pixel-art <SCALE>`), not one in a description (indented
/// further, or after the entry's first word).
fn long_flags(help: &str) -> BTreeSet<String> {
    let mut flags = BTreeSet::new();
    for line in help.lines() {
        let entry = line.trim_start();
        let indent = line.len() - entry.len();
        if !(1..=6).contains(&indent) {
            continue;
        }
        // `-o, --output`: the short form first.
        let entry = match entry.as_bytes() {
            [b'-', c, b',', b' ', ..] if *c != b'-' => &entry[4..],
            _ => entry,
        };
        let Some(rest) = entry.strip_prefix("--") else { continue };
        let name: String =
            rest.chars().take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-').collect();
        let after = rest[name.len()..].chars().next();
        if !name.is_empty() && after.is_none_or(|c| c == ' ' || c == '=') {
            flags.insert(name.replace('-', "_"));
        }
    }
    flags
}

/// Each command's long flags, from its `--help`.
fn flags_by_command() -> BTreeMap<&'static str, BTreeSet<String>> {
    let here = std::env::temp_dir();
    COMMANDS
        .iter()
        .map(|&command| {
            let o = run_in(&here, &[command, "--help"]);
            assert!(o.status.success(), "{command} --help: {}", printed(&o));
            let flags = long_flags(&String::from_utf8_lossy(&o.stdout));
            assert!(flags.contains("help"), "{command}: no flags parsed from --help: {flags:?}");
            (command, flags)
        })
        .collect()
}

/// The spec's keys by group (`view` → size, yaw, ...), read from what `BakeSpec` serializes:
/// each group a table of its keys (an unset option serializes as null, so every key is there).
fn keys_by_group() -> BTreeMap<String, Vec<String>> {
    let value = serde_json::to_value(BakeSpec::default()).unwrap();
    let groups = value.as_object().expect("BakeSpec serializes as a table of groups");
    let by_group: BTreeMap<String, Vec<String>> = groups
        .iter()
        .map(|(group, keys)| {
            let keys = keys.as_object().unwrap_or_else(|| panic!("group {group} is not a table"));
            (group.clone(), keys.keys().cloned().collect())
        })
        .collect();
    // The groups hold exactly the keys the spec reads, each once.
    let mut all: Vec<&str> = by_group.values().flatten().map(String::as_str).collect();
    let mut keys = BakeSpec::keys();
    all.sort();
    keys.sort();
    assert_eq!(all, keys, "the serialized groups and BakeSpec::keys() disagree");
    by_group
}

#[test]
fn flags_and_keys_are_one_set() {
    let flags = flags_by_command();
    let keys = BakeSpec::keys();
    let only: BTreeSet<&str> = COMMAND_ONLY.iter().map(|(flag, _)| *flag).collect();

    // (a) Every flag is a spec key, a case key, or listed with its reason.
    let mut strays = Vec::new();
    for (command, flags) in &flags {
        for flag in flags {
            let f = flag.as_str();
            if !keys.contains(&f) && !CASE_KEYS.contains(&f) && !only.contains(f) {
                strays.push(format!("{command} --{}", flag.replace('_', "-")));
            }
        }
    }
    assert!(strays.is_empty(), "flags that are not BakeSpec keys, case keys or COMMAND_ONLY: {strays:?}");
    // The list stays minimal: each entry is a flag somewhere, and none is a key after all.
    let every_flag: BTreeSet<&str> = flags.values().flatten().map(String::as_str).collect();
    for (flag, reason) in COMMAND_ONLY {
        assert!(every_flag.contains(flag), "COMMAND_ONLY lists {flag} ({reason}), which no command has");
        assert!(!keys.contains(flag) && !CASE_KEYS.contains(flag), "{flag} is a key, not command-only");
    }

    // (b) Every key but the positional MODEL is a flag of some command; the tolerance keys are
    // `compare`'s flags.
    let missing: Vec<&str> = keys.iter().copied().filter(|k| *k != "model" && !every_flag.contains(k)).collect();
    assert!(missing.is_empty(), "BakeSpec keys no command takes as a flag: {missing:?}");
    for key in TOLERANCE_KEYS {
        assert!(CASE_KEYS.contains(key), "{key} is not a case key");
        assert!(flags["compare"].contains(*key), "compare has no --{}", key.replace('_', "-"));
    }

    // (c) The sprite commands take exactly their groups' keys, plus how they run and write.
    let groups = keys_by_group();
    let run = ["help", "output", "threads", "quiet"];
    let job = ["model", "anim", "view", "sprite", "render", "look", "limits"];
    for (command, own) in [("sheet", Some("layout")), ("gif", Some("gif")), ("frames", None)] {
        let mut expected: BTreeSet<String> =
            job.iter().chain(&own).flat_map(|g| &groups[*g]).filter(|k| *k != "model").cloned().collect();
        expected.extend(run.map(String::from));
        if command == "gif" {
            // A GIF refuses maps and premultiplied alpha, and its help does not offer them.
            expected.retain(|k| !["maps", "normal_y", "alpha", "points"].contains(&k.as_str()));
        }
        assert_eq!(flags[command], expected, "{command}'s flags");
    }
    // Spelled out: a sheet takes every key but the moment's (one image), the GIF's and MODEL
    // (positional); the GIF keys are `gif`'s alone.
    let not_sheet: Vec<&String> = groups["moment"].iter().chain(&groups["gif"]).collect();
    for key in keys.iter().filter(|k| **k != "model" && !not_sheet.iter().any(|n| n == *k)) {
        assert!(flags["sheet"].contains(*key), "sheet has no --{key}");
    }
    assert_eq!(groups["moment"], ["frame", "time"]);
    for key in ["direction", "dither", "alpha_threshold", "gif_palette"] {
        assert!(groups["gif"].iter().any(|k| k == key) && flags["gif"].contains(key), "gif --{key}");
        assert!(!flags["sheet"].contains(key) && !flags["frames"].contains(key), "--{key} on sheet or frames");
    }
}

#[test]
fn help_entries_are_parsed_and_descriptions_are_not() {
    let help = "Options:\n      --pixel-art <SCALE>\n          Pixel art; see --palette\n  -o, --output <OUTPUT>\n      --two-sided\n  -h, --help  Print help\n      --max-pixels <MAX_PIXELS>    Allowed\n";
    let flags: Vec<String> = long_flags(help).into_iter().collect();
    assert_eq!(flags, ["help", "max_pixels", "output", "pixel_art", "two_sided"]);
}

/// A valid value for every spec key, as a manifest writes it, and the keys it needs beside it
/// (`palette` needs `pixel_art`). Each value differs from the default, so a key that a case
/// dropped would show. A key missing here fails `a_manifest_case_takes_every_spec_key`.
const KEY_VALUES: &[(&str, &str, &str)] = &[
    ("model", "\"other.md2\"", ""),
    ("texture", "[\"skin=skin.png\"]", ""),
    ("fps", "12", ""),
    ("facing", "\"-y\"", ""),
    ("up", "\"+z\"", "facing = \"-y\""),
    ("texture_root", "\"textures\"", ""),
    ("body", "[\"helmet=visor\"]", ""),
    ("model_name", "\"imp\"", ""),
    ("skin", "\"red\"", ""),
    ("anim", "[\"walk.md5anim\", \"run\"]", ""),
    ("clip", "\"run\"", ""),
    ("attach", "[\"sword.obj@hand\"]", ""),
    ("attach_offset", "[\"t=0,0,-11;r=0,90,0\"]", "attach = \"sword.obj@hand\""),
    ("bone", "[\"head:yaw=30\"]", ""),
    ("blend", "\"run:0.5\"", ""),
    ("transition", "[\"walk->run:0.5\"]", ""),
    ("root_motion", "true", ""),
    ("in_place", "true", ""),
    ("once", "[\"walk\"]", ""),
    ("loop", "\"walk\"", ""),
    ("frame", "[0, 2.5]", ""),
    ("time", "0.5", ""),
    ("size", "\"24x16\"", ""),
    ("yaw", "30", ""),
    ("pitch", "-10", ""),
    ("ortho", "true", ""),
    ("fov", "50", ""),
    ("margin", "0.2", ""),
    ("view", "\"iso\"", ""),
    ("directions", "8", ""),
    ("direction_names", "[\"front\", \"back\"]", "directions = 2"),
    ("mirror", "true", "directions = 8"),
    ("fit", "\"per-frame\"", ""),
    ("pixels_per_unit", "32", "ortho = true"),
    ("ground", "-0.5", ""),
    ("sample_fps", "12", ""),
    ("frames", "6", ""),
    ("ssaa", "2", ""),
    ("shading_rate", "\"sample\"", ""),
    ("filter", "\"nearest\"", ""),
    ("shading", "\"toon\"", ""),
    ("bands", "5", "shading = \"toon\""),
    ("light", "[[0, 1, 1], [1, 0, 0]]", ""),
    ("ambient", "0.5", ""),
    ("background", "\"#203040\"", ""),
    ("two_sided", "true", ""),
    ("pixel_art", "3", ""),
    ("pixel_art_filter", "\"mode\"", "pixel_art = 3"),
    ("palette", "16", "pixel_art = 3"),
    ("palette_file", "\"game.hex\"", "pixel_art = 3"),
    ("palette_dither", "true", "pixel_art = 3\npalette = 16"),
    ("outline", "1", ""),
    ("outline_color", "\"#ff0000\"", "outline = 2"),
    ("skeleton", "true", ""),
    ("maps", "[\"normal\", \"depth\"]", ""),
    ("normal_y", "\"down\"", "maps = \"normal\""),
    ("alpha", "\"premultiplied\"", ""),
    ("points", "[\"head\"]", ""),
    ("padding", "4", ""),
    ("extrude", "1", ""),
    ("trim", "true", ""),
    ("json_format", "\"aseprite\"", ""),
    ("filename_format", "\"{tag}-{tagframe}\"", ""),
    ("max_size", "\"1024x512\"", ""),
    ("pot", "true", ""),
    ("pack", "\"tight\"", ""),
    ("dedupe", "true", ""),
    ("direction", "3", "directions = 4"),
    ("dither", "true", ""),
    ("alpha_threshold", "64", ""),
    ("gif_palette", "\"per-frame\"", ""),
    ("max_file_mib", "64", ""),
    ("max_texture_side", "1024", ""),
    ("max_memory_mib", "128", ""),
];

#[test]
fn a_manifest_case_takes_every_spec_key() {
    let keys = BakeSpec::keys();
    let missing: Vec<&str> = keys.iter().copied().filter(|k| !KEY_VALUES.iter().any(|(key, ..)| key == k)).collect();
    assert!(missing.is_empty(), "no test value for these BakeSpec keys (add them to KEY_VALUES): {missing:?}");
    let stale: Vec<&str> = KEY_VALUES.iter().map(|(key, ..)| *key).filter(|k| !keys.contains(k)).collect();
    assert!(stale.is_empty(), "KEY_VALUES has keys BakeSpec no longer reads: {stale:?}");

    let path = Path::new("cases.toml");
    let case = |lines: &str| {
        let text = format!("[defaults]\nmodel = \"m.obj\"\n\n[[case]]\nname = \"k\"\ngolden = \"k.png\"\n{lines}\n");
        Manifest::parse(&text, path).map(|m| m.cases[0].spec.clone())
    };
    for (key, value, beside) in KEY_VALUES {
        let without = case(beside).unwrap_or_else(|e| panic!("{key}: the case without it is refused: {e}"));
        let with = case(&format!("{beside}\n{key} = {value}"))
            .unwrap_or_else(|e| panic!("a case with `{key} = {value}` is refused: {e}"));
        assert_ne!(with, without, "`{key} = {value}` did not reach the case's spec");
    }
}

// ---------------------------------------------------------------------------------------------
// 2. Refusals.
// ---------------------------------------------------------------------------------------------

#[test]
fn refusals_name_the_flag_and_what_it_accepts_and_write_nothing() {
    let tower = asset("tower.obj");
    let t = tower.as_str();
    let cases: &[(&[&str], &[&str])] = &[
        (&["sheet", t, "--palette", "16", "-o", "s.png"], &["--palette", "--pixel-art"]),
        (&["sheet", t, "--pixel-art", "40", "-o", "s.png"], &["--pixel-art", "1 to 16"]),
        (&["render", t, "--fps", "0", "-o", "r.png"], &["--fps", "0.01 to 1000"]),
        (&["sheet", t, "--sample-fps", "0", "-o", "s.png"], &["--sample-fps", "0.01 to 1000"]),
        (&["sheet", t, "--frames", "0", "-o", "s.png"], &["--frames", "1 to 10000"]),
        (&["gif", t, "--directions", "8", "--direction", "9", "-o", "g.gif"], &["--direction 9", "0 to 7"]),
        (&["sheet", t, "--extrude", "4", "--padding", "2", "-o", "s.png"], &["--extrude 4", "--padding", "at most"]),
        (
            &["sheet", t, "--filename-format", "{layer}_{frame}", "-o", "s.png"],
            &["--filename-format", "{layer}", "{tag}"],
        ),
        (&["sheet", t, "--filename-format", "{tag}", "-o", "s.png"], &["--filename-format", "tell frames apart"]),
        // Options that tune another one, given alone, and moments of a model with no clips.
        (&["render", t, "--bands", "8", "-o", "r.png"], &["--bands 8", "--shading toon"]),
        (&["sheet", t, "--outline-color", "#ff0000", "-o", "s.png"], &["--outline-color", "needs --outline"]),
        (&["sheet", t, "--pixel-art-filter", "mode", "-o", "s.png"], &["--pixel-art-filter mode", "needs --pixel-art"]),
        (&["render", t, "--frame", "3", "-o", "r.png"], &["--frame 3", "needs a clip", "tower.obj has none"]),
        (&["gif", t, "--fps", "10", "-o", "g.gif"], &["--fps 10", "needs a clip"]),
        (&["sheet", t, "--root-motion", "-o", "s.png"], &["--root-motion", "needs a clip"]),
        (&["sheet", t, "--anim", "", "-o", "s.png"], &["--anim", "not empty"]),
    ];
    for (args, words) in cases {
        let dir = scratch("refused");
        let o = run_in(&dir, args);
        assert_refused(&o, words);
        assert!(names_in(&dir).is_empty(), "{args:?} wrote {:?}", names_in(&dir));
        std::fs::remove_dir_all(dir).unwrap();
    }
    // compare: two differing images, and a diff it would have written.
    let dir = scratch("refused-compare");
    write_png(&dir.join("a.png"), &spritebake::Image::new(4, 4).unwrap()).unwrap();
    let mut b = spritebake::Image::new(4, 4).unwrap();
    b.rgba.fill(255);
    write_png(&dir.join("b.png"), &b).unwrap();
    let o = run_in(&dir, &["compare", "a.png", "b.png", "--threshold", "5", "--diff", "d.png"]);
    assert_refused(&o, &["--threshold", "0 to 1"]);
    assert_eq!(names_in(&dir), ["a.png", "b.png"]);
    std::fs::remove_dir_all(dir).unwrap();
}

// ---------------------------------------------------------------------------------------------
// 3. One clip rule.
// ---------------------------------------------------------------------------------------------

/// An MD5 animation with its frames (and their bounds) in reverse order: the same poses, so
/// the same framing, but frame 3 is the original's frame N-4.
fn reversed_md5anim(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let block = |start: usize| start + lines[start..].iter().position(|l| l.trim() == "}").unwrap();
    let mut out: Vec<String> = Vec::new();
    let mut frames: Vec<Vec<&str>> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if line.starts_with("bounds {") {
            let end = block(i);
            out.push(line.to_string());
            out.extend(lines[i + 1..end].iter().rev().map(|l| l.to_string()));
            out.push("}".into());
            i = end + 1;
        } else if line.starts_with("frame ") && line.trim_end().ends_with('{') {
            let end = block(i);
            frames.push(lines[i + 1..end].to_vec());
            i = end + 1;
        } else {
            if frames.is_empty() {
                out.push(line.to_string());
            }
            i += 1;
        }
    }
    assert!(frames.len() > 4, "frames parsed: {}", frames.len());
    for (n, body) in frames.iter().rev().enumerate() {
        out.push(format!("frame {n} {{"));
        out.extend(body.iter().map(|l| l.to_string()));
        out.push("}\n".into());
    }
    out.join("\n")
}

/// A folder with the MD5 robot, its walk, and `wave.md5anim`: the walk played backwards.
fn robot_with_two_anims(name: &str) -> PathBuf {
    let dir = scratch(name);
    for file in ["robot.md5mesh", "robot.png", "walk.md5anim"] {
        std::fs::copy(assets().join("robot").join(file), dir.join(file)).unwrap();
    }
    let walk = std::fs::read_to_string(dir.join("walk.md5anim")).unwrap();
    std::fs::write(dir.join("wave.md5anim"), reversed_md5anim(&walk)).unwrap();
    dir
}

/// `spritebake ARGS -o NAME` in `dir`: the bytes written.
fn bake_bytes(dir: &Path, args: &[&str], name: &str) -> Vec<u8> {
    let mut all = args.to_vec();
    all.extend(["-o", name, "--quiet"]);
    let o = run_in(dir, &all);
    assert!(o.status.success(), "{all:?}: {}", printed(&o));
    std::fs::read(dir.join(name)).unwrap()
}

#[test]
fn commands_that_play_one_clip_play_the_first_anim_or_the_clip() {
    let dir = robot_with_two_anims("one-clip");
    // `render` at frame 3, and a `gif` of the whole clip.
    for (command, moment, ext) in [("render", &["--frame", "3"][..], "png"), ("gif", &[][..], "gif")] {
        let bake = |anim: &[&str], name: &str| {
            let args = [&[command, "robot.md5mesh", "--size", "32"][..], anim, moment].concat();
            bake_bytes(&dir, &args, &format!("{command}-{name}.{ext}"))
        };
        let walk = bake(&["--anim", "walk.md5anim"], "walk");
        let wave = bake(&["--anim", "wave.md5anim"], "wave");
        assert_ne!(walk, wave, "{command}: the two animations must differ for this test to mean anything");
        let both = bake(&["--anim", "walk.md5anim,wave.md5anim"], "both");
        assert!(both == walk, "{command} with two anims must play the first (walk)");
        let repeated = bake(&["--anim", "walk.md5anim", "--anim", "wave.md5anim"], "repeated");
        assert!(repeated == walk, "{command} with --anim given twice must play the first (walk)");
        let chosen = bake(&["--anim", "walk.md5anim,wave.md5anim", "--clip", "wave"], "clip");
        assert!(chosen == wave, "{command} --clip wave must play wave");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn every_command_supersamples_4x4_unless_told_otherwise() {
    let dir = robot_with_two_anims("ssaa-default");
    for (command, ext) in [("render", "png"), ("sheet", "png"), ("gif", "gif")] {
        let bake = |extra: &[&str], name: &str| {
            let args = [&[command, "robot.md5mesh", "--anim", "walk.md5anim", "--size", "32"][..], extra].concat();
            bake_bytes(&dir, &args, &format!("{command}-{name}.{ext}"))
        };
        let default = bake(&[], "default");
        assert!(default == bake(&["--ssaa", "4"], "ssaa4"), "{command}: the default must be --ssaa 4");
        assert!(default != bake(&["--ssaa", "1"], "ssaa1"), "{command}: --ssaa 1 must still be available and differ");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn reversing_an_md5anim_keeps_its_header_and_reverses_its_frames() {
    let text = "numFrames 2\nbounds {\n\t( 0 ) ( 1 )\n\t( 2 ) ( 3 )\n}\n\nbaseframe {\n\t( 0 0 0 )\n}\n\nframe 0 {\n\t1 1\n}\n\nframe 1 {\n\t2 2\n}\n\nframe 2 {\n\t3 3\n}\n\nframe 3 {\n\t4 4\n}\n\nframe 4 {\n\t5 5\n}\n";
    let r = reversed_md5anim(text);
    assert!(
        r.starts_with("numFrames 2\nbounds {\n\t( 2 ) ( 3 )\n\t( 0 ) ( 1 )\n}\n\nbaseframe {\n\t( 0 0 0 )\n}\n"),
        "{r}"
    );
    assert!(r.contains("frame 0 {\n\t5 5\n}") && r.contains("frame 4 {\n\t1 1\n}"), "{r}");
}

// ---------------------------------------------------------------------------------------------
// 4. The CesiumMan hint.
// ---------------------------------------------------------------------------------------------

#[test]
fn cesium_man_hints_at_anim_all_until_it_is_given() {
    let Some(folder) = common::corpus("gltf/cesiumman") else { return };
    let model = std::fs::read_dir(&folder)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "glb" || e == "gltf"))
        .unwrap_or_else(|| panic!("no .glb or .gltf in {}", folder.display()));
    let dir = scratch("cesium");
    let o = run_in(&dir, &["render", p(&model), "-o", "x.png", "--size", "32"]);
    assert!(o.status.success(), "{}", printed(&o));
    let err = stderr(&o);
    let hint: Vec<&str> = err.lines().filter(|l| l.contains("--anim all")).map(str::trim).collect();
    assert_eq!(hint.len(), 1, "one warning naming --anim all: {err}");
    assert!(hint[0].starts_with("warning: "), "{}", hint[0]);
    let o = run_in(&dir, &["render", p(&model), "-o", "y.png", "--size", "32", "--anim", "all"]);
    assert!(o.status.success(), "{}", printed(&o));
    assert!(!stderr(&o).contains("--anim all"), "{}", stderr(&o));
    std::fs::remove_dir_all(dir).unwrap();
}

// ---------------------------------------------------------------------------------------------
// 5. check kinds catch regressions.
// ---------------------------------------------------------------------------------------------

/// `spritebake check MANIFEST ARGS --allow-dir <assets>`.
fn check(manifest: &Path, args: &[&str]) -> Output {
    let assets = assets();
    let mut all = vec!["check", p(manifest)];
    all.extend_from_slice(args);
    all.extend(["--allow-dir", p(&assets)]);
    run_in(manifest.parent().unwrap(), &all)
}

/// A TOML string for a path (quoted and escaped: a JSON string is a TOML basic string).
fn toml_path(path: &str) -> String {
    serde_json::to_string(path).unwrap()
}

/// The `FAIL` line of case `name` in a check's output: the labels after `failing: `.
fn failing(o: &Output, name: &str) -> Vec<String> {
    let out = String::from_utf8_lossy(&o.stdout);
    let line = out
        .lines()
        .find(|l| l.starts_with(&format!("FAIL  {name}:")))
        .unwrap_or_else(|| panic!("no FAIL line for {name}: {}", printed(o)));
    let list = line.rsplit_once("; failing: ").unwrap_or_else(|| panic!("{line}")).1;
    list.split(", ").map(String::from).collect()
}

/// The GIF with frame `index`'s delay changed by `by` centiseconds, everything else as it was
/// (indices, palettes, disposal, looping).
fn with_delay_changed(bytes: &[u8], index: usize, by: u16) -> Vec<u8> {
    let mut options = gif::DecodeOptions::new();
    options.set_color_output(gif::ColorOutput::Indexed);
    let mut decoder = options.read_info(bytes).unwrap();
    let (width, height) = (decoder.width(), decoder.height());
    let palette = decoder.global_palette().unwrap_or_default().to_vec();
    let mut frames = Vec::new();
    while let Some(frame) = decoder.read_next_frame().unwrap() {
        frames.push(frame.clone());
    }
    let repeat = decoder.repeat();
    assert!(index < frames.len(), "{} frames", frames.len());
    frames[index].delay += by;
    let mut encoder = gif::Encoder::new(Vec::new(), width, height, &palette).unwrap();
    encoder.set_repeat(repeat).unwrap();
    for frame in &frames {
        encoder.write_frame(frame).unwrap();
    }
    encoder.into_inner().unwrap()
}

/// Every file under `dir` with its bytes and modification time.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, (Vec<u8>, SystemTime)> {
    let mut files = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(snapshot(&path));
        } else {
            files.insert(path.clone(), (std::fs::read(&path).unwrap(), path.metadata().unwrap().modified().unwrap()));
        }
    }
    files
}

/// Sets every file under `dir` to an old modification time, so any rewrite shows.
fn age(dir: &Path) {
    let old = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
    for path in snapshot(dir).into_keys() {
        std::fs::File::options().write(true).open(&path).unwrap().set_modified(old).unwrap();
    }
}

#[test]
fn check_kinds_catch_what_they_compare_and_bless_case_rewrites_one() {
    let dir = scratch("kinds");
    let (md5, walk, md2) = (asset("robot/robot.md5mesh"), asset("robot/walk.md5anim"), asset("robot/robot.md2"));
    let manifest = dir.join("cases.toml");
    std::fs::write(
        &manifest,
        format!(
            "[defaults]\nsize = 24\n\n\
             [[case]]\nname = \"sheet\"\nkind = \"sheet\"\nmodel = {}\nanim = [{}]\ndirections = 2\nframes = 4\ngolden = \"g/sheet.png\"\n\n\
             [[case]]\nname = \"gif\"\nkind = \"gif\"\nmodel = {}\nanim = \"walk\"\nframes = 6\ngolden = \"g/walk.gif\"\n\n\
             [[case]]\nname = \"frames\"\nkind = \"frames\"\nmodel = {}\nanim = \"walk\"\ndirections = 2\nframes = 3\ngolden = \"g/frames/\"\n",
            toml_path(&md5),
            toml_path(&walk),
            toml_path(&md2),
            toml_path(&md2)
        ),
    )
    .unwrap();
    let golden = dir.join("g");

    // New, blessed, passing.
    let o = check(&manifest, &[]);
    assert_eq!(o.status.code(), Some(1), "{}", printed(&o));
    assert!(printed(&o).contains("0 passed, 3 failed, 0 errors"), "{}", printed(&o));
    let o = check(&manifest, &["--bless"]);
    assert_eq!(o.status.code(), Some(0), "{}", printed(&o));
    assert_eq!(names_in(&golden), ["frames", "sheet.json", "sheet.png", "walk.gif"]);
    let frames = (0..2).flat_map(|d| (0..3).map(move |f| format!("walk_{d}_{f:03}.png")));
    let files: Vec<String> = std::iter::once("frames.json".to_string()).chain(frames).collect();
    assert_eq!(names_in(&golden.join("frames")), files);
    let o = check(&manifest, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", printed(&o));
    assert!(printed(&o).contains("3 passed, 0 failed, 0 errors"), "{}", printed(&o));
    let blessed_json = std::fs::read_to_string(golden.join("sheet.json")).unwrap();

    // One regression in each golden: a frame name in the sheet's JSON, one GIF delay, one frame.
    assert!(blessed_json.contains("\"walk_N_002\""), "{blessed_json}");
    std::fs::write(golden.join("sheet.json"), blessed_json.replacen("\"walk_N_002\"", "\"walk_N_02\"", 1)).unwrap();
    let gif = std::fs::read(golden.join("walk.gif")).unwrap();
    std::fs::write(golden.join("walk.gif"), with_delay_changed(&gif, 2, 3)).unwrap();
    let frame = golden.join("frames/walk_1_001.png");
    let mut image = read_png(&frame).unwrap();
    for px in image.rgba.chunks_exact_mut(4).take(24) {
        px.copy_from_slice(&[255, 0, 0, 255]);
    }
    write_png(&frame, &image).unwrap();
    let o = check(&manifest, &[]);
    assert_eq!(o.status.code(), Some(1), "{}", printed(&o));
    assert_eq!(failing(&o, "sheet"), ["sheet.json"]);
    assert_eq!(failing(&o, "gif"), ["delays"]);
    assert_eq!(failing(&o, "frames"), ["walk_1_001"]);
    assert!(printed(&o).contains("0 passed, 3 failed, 0 errors"), "{}", printed(&o));

    // An unknown case name is refused with the closest name, and nothing is rewritten.
    age(&golden);
    let before = snapshot(&golden);
    let o = check(&manifest, &["--bless", "--case", "shet"]);
    assert_refused(&o, &["shet", "did you mean 'sheet'?"]);
    assert!(snapshot(&golden) == before, "a refused --case rewrote goldens");

    // --bless --case sheet rewrites the sheet's golden only: the other failing goldens keep
    // their bytes and times.
    let o = check(&manifest, &["--bless", "--case", "sheet"]);
    assert_eq!(o.status.code(), Some(0), "{}", printed(&o));
    assert_eq!(std::fs::read_to_string(golden.join("sheet.json")).unwrap(), blessed_json);
    let after = snapshot(&golden);
    let sheet = [golden.join("sheet.png"), golden.join("sheet.json")];
    assert_ne!(after[&sheet[1]], before[&sheet[1]]);
    for (path, file) in &before {
        if !sheet.contains(path) {
            assert!(after[path] == *file, "{} changed", path.display());
        }
    }
    assert_eq!(after.keys().collect::<Vec<_>>(), before.keys().collect::<Vec<_>>());
    let o = check(&manifest, &[]);
    assert!(printed(&o).contains("PASS  sheet"), "{}", printed(&o));
    assert_eq!(failing(&o, "gif"), ["delays"]);
    assert_eq!(failing(&o, "frames"), ["walk_1_001"]);
    std::fs::remove_dir_all(dir).unwrap();
}

// ---------------------------------------------------------------------------------------------
// 6. Same options, same bytes.
// ---------------------------------------------------------------------------------------------

/// The sheet every front end bakes, as manifest keys and TOML values (the flags are the same
/// names in kebab-case, the values unquoted).
fn same_sheet_options() -> Vec<(&'static str, String)> {
    vec![
        ("model", toml_path(&asset("robot/robot.md5mesh"))),
        ("anim", toml_path(&asset("robot/walk.md5anim"))),
        ("view", "\"iso\"".into()),
        ("directions", "8".into()),
        ("pixel_art", "3".into()),
        ("palette", "16".into()),
        ("outline", "1".into()),
        ("size", "32".into()),
    ]
}

/// A sheet as one front end baked it: the PNG's bytes and the JSON with `meta.image` (the
/// image's file name, which each front end chooses) removed.
struct BakedSheet {
    via: &'static str,
    png: Vec<u8>,
    json: serde_json::Value,
}

impl BakedSheet {
    fn read(via: &'static str, png: &Path) -> BakedSheet {
        let mut json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(png.with_extension("json")).unwrap()).unwrap();
        let meta = json["meta"].as_object_mut().unwrap_or_else(|| panic!("{via}: no meta in the JSON"));
        assert!(meta.remove("image").is_some(), "{via}: no meta.image");
        BakedSheet { via, png: std::fs::read(png).unwrap(), json }
    }
}

/// A manifest value as a flag's value: strings unquoted, lists comma-separated.
fn cli_value(value: &toml::Value) -> String {
    match value {
        toml::Value::String(s) => s.clone(),
        toml::Value::Integer(i) => i.to_string(),
        toml::Value::Float(f) => f.to_string(),
        toml::Value::Boolean(b) => b.to_string(),
        toml::Value::Array(a) => a.iter().map(cli_value).collect::<Vec<_>>().join(","),
        other => panic!("no flag value for {other:?}"),
    }
}

/// `spritebake sheet` with `options` as flags, in `dir`.
fn sheet_via_cli(dir: &Path, options: &[(&str, String)]) -> BakedSheet {
    let mut args = vec!["sheet".to_string()];
    for (key, value) in options {
        let value = cli_value(&toml::from_str::<toml::Table>(&format!("v = {value}")).unwrap()["v"]);
        if *key != "model" {
            args.push(format!("--{}", key.replace('_', "-")));
        }
        args.push(value);
    }
    args.extend(["-o", "a.png", "--quiet"].map(String::from));
    let o = run_in(dir, &args.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(o.status.success(), "{args:?}: {}", printed(&o));
    BakedSheet::read("sheet command", &dir.join("a.png"))
}

/// A `kind = "sheet"` case with `options` as keys, blessed into a golden in `dir`.
fn sheet_via_check(dir: &Path, options: &[(&str, String)]) -> BakedSheet {
    let keys: String = options.iter().map(|(k, v)| format!("{k} = {v}\n")).collect();
    let manifest = dir.join("cases.toml");
    std::fs::write(&manifest, format!("[[case]]\nname = \"same\"\nkind = \"sheet\"\ngolden = \"g/same.png\"\n{keys}"))
        .unwrap();
    let o = check(&manifest, &["--bless"]);
    assert!(o.status.success() && printed(&o).contains("BLESS same"), "{}", printed(&o));
    BakedSheet::read("check case", &dir.join("g/same.png"))
}

/// A `[[sheet]]` entry of a `bake` project with `options` as keys, baked into `dir`.
fn sheet_via_bake(dir: &Path, options: &[(&str, String)]) -> BakedSheet {
    let keys: String = options.iter().map(|(k, v)| format!("{k} = {v}\n")).collect();
    let project = dir.join("spritebake.toml");
    std::fs::write(&project, format!("[[sheet]]\nname = \"same\"\noutput = \"out/same.png\"\n{keys}")).unwrap();
    let assets = assets();
    let o = run_in(dir, &["bake", p(&project), "--allow-dir", p(&assets)]);
    assert!(o.status.success(), "{}", printed(&o));
    BakedSheet::read("project entry", &dir.join("out/same.png"))
}

/// Every sheet equals the first, byte for byte and JSON for JSON.
fn assert_same_sheets(sheets: &[BakedSheet]) {
    let first = &sheets[0];
    for other in &sheets[1..] {
        assert!(other.png == first.png, "the {} and the {} baked different PNGs", first.via, other.via);
        assert_eq!(other.json, first.json, "the {} and the {} wrote different JSON", first.via, other.via);
    }
}

#[test]
fn the_same_options_bake_the_same_sheet() {
    let options = same_sheet_options();
    let (cli, case, project) = (scratch("same-cli"), scratch("same-check"), scratch("same-bake"));
    let sheets = [sheet_via_cli(&cli, &options), sheet_via_check(&case, &options), sheet_via_bake(&project, &options)];
    assert_same_sheets(&sheets);
    // Meaningful: eight directions of the walk, in pixel art.
    let frames = sheets[0].json["frames"].as_object().unwrap();
    assert!(frames.contains_key("walk_SE_000"), "{:?}", frames.keys().collect::<Vec<_>>());
    for dir in [cli, case, project] {
        std::fs::remove_dir_all(dir).unwrap();
    }
}

/// Every option group of the command line, as clap parses it with nothing given.
#[derive(Debug, clap::Parser)]
struct AllFlags {
    #[command(flatten)]
    model: spritebake::spec::ModelSpec,
    #[command(flatten)]
    anim: spritebake::spec::AnimSpec,
    #[command(flatten)]
    moment: spritebake::spec::MomentSpec,
    #[command(flatten)]
    view: spritebake::spec::ViewSpec,
    #[command(flatten)]
    sprite: spritebake::spec::SpriteSpec,
    #[command(flatten)]
    render: spritebake::spec::RenderSpec,
    #[command(flatten)]
    look: spritebake::spec::LookSpec,
    #[command(flatten)]
    layout: spritebake::spec::LayoutSpec,
    #[command(flatten)]
    gif: spritebake::spec::GifSpec,
    #[command(flatten)]
    limits: spritebake::spec::LimitsSpec,
    #[command(flatten)]
    tolerance: spritebake::check::Tolerance,
}

#[test]
fn every_default_is_the_librarys() {
    use clap::Parser;
    // clap's defaults are the spec's.
    let flags = AllFlags::try_parse_from(["spritebake", "m.obj"]).unwrap();
    let parsed = BakeSpec {
        model: flags.model,
        anim: flags.anim,
        moment: flags.moment,
        view: flags.view,
        sprite: flags.sprite,
        render: flags.render,
        look: flags.look,
        layout: flags.layout,
        gif: flags.gif,
        limits: flags.limits,
    };
    let mut spec = BakeSpec::default();
    spec.model.model = "m.obj".into();
    assert_eq!(parsed, spec);
    // A manifest or project entry naming only its model is the same spec.
    let table: toml::Table = toml::from_str("model = \"m.obj\"").unwrap();
    assert_eq!(BakeSpec::from_table(&table, &[]).unwrap(), spec);
    // `compare`'s flags and a case's keys are one tolerance, with one default.
    assert_eq!(flags.tolerance, spritebake::check::Tolerance::default());
    let case: spritebake::check::CaseKeys = toml::from_str("name = \"c\"\ngolden = \"g.png\"").unwrap();
    let keys = (case.threshold, case.max_pixels, case.max_percent, case.ignore_aa);
    let default = spritebake::check::Tolerance::default();
    assert_eq!(keys, (default.threshold, default.max_pixels, default.max_percent, default.ignore_aa));
    // The spec resolves to the library's own defaults, group by group.
    let resolved = spec.resolve().unwrap();
    let options = spritebake::RenderOptions::default();
    assert_eq!(resolved.options, options);
    assert_eq!(resolved.view, spritebake::OrbitView::default());
    assert_eq!(resolved.layout, spritebake::bake::Layout::default());
    assert_eq!(resolved.json_format, spritebake::bake::JsonFormat::default());
    assert_eq!(resolved.gif, spritebake::output::gif::GifOptions::default());
    assert_eq!(resolved.sampling, spritebake::bake::Sampling::default());
    assert_eq!(resolved.fit, spritebake::spec::Fit::default());
    assert_eq!(resolved.directions.count(), 1);
}
