//! `spritebake thumbnail` on real asset trees (issue 28): a copy of the shared corpus, Quake 2's
//! `players/*/tris.md2` layout and a GoldSrc folder with its `.qc`. Skips with a note when the
//! corpus is absent.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

use crate::common::cli::{copy_dir, printed, scratch_in};
use crate::common::html::{attributes, percent_decode, unescape};
use crate::common::{browser, corpus};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_spritebake")).args(args).output().expect("run spritebake")
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Every file under `dir` with extension `ext`, relative to `dir`, `/`-separated.
fn files_under(dir: &Path, ext: &str) -> BTreeSet<String> {
    fn walk(root: &Path, dir: &Path, ext: &str, out: &mut BTreeSet<String>) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(root, &path, ext, out);
            } else if path.extension().is_some_and(|e| e == ext) {
                out.insert(path.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/"));
            }
        }
    }
    let mut out = BTreeSet::new();
    walk(dir, dir, ext, &mut out);
    out
}

/// The share of a thumbnail's covered pixels that are the magenta of a missing texture.
fn magenta_share(png: &Path) -> f64 {
    let image = spritebake::output::read_png(png).unwrap();
    let (mut covered, mut magenta) = (0usize, 0usize);
    for y in 0..image.height {
        for x in 0..image.width {
            let [r, g, b, a] = image.pixel(x, y).unwrap();
            if a > 0 {
                covered += 1;
                magenta += usize::from(r > 150 && b > 150 && g < 90);
            }
        }
    }
    magenta as f64 / covered.max(1) as f64
}

#[test]
fn a_copy_of_the_corpus_gives_every_model_a_thumbnail_named_after_its_path() {
    let Some(corpus) = corpus(".") else { return };
    let dir = scratch_in("thumbnail-tree", "corpus");
    let tree = dir.join("corpus");
    copy_dir(&corpus, &tree);
    let out = dir.join("out");
    let json = dir.join("records.json");
    let o = run(&["thumbnail", s(&tree), "--size", "32", "-o", s(&out), "--html", "--json", s(&json)]);
    let text = stdout(&o);
    // Exit 1, and only for the deliberately broken models of the `edge` folders.
    assert_eq!(o.status.code(), Some(1), "{}", printed(&o));
    let mut written = BTreeSet::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("FAIL  ") {
            assert!(rest.contains("/edge/"), "a model that should load failed: {line}");
        } else if let Some(rest) = line.strip_prefix("ok    ") {
            // `MODEL -> OUT`: OUT mirrors MODEL's path below the folder given.
            let (model, output) = rest.split_once(" -> ").unwrap();
            let output = output.split(" (").next().unwrap();
            let rel = Path::new(model).strip_prefix(&tree).unwrap().with_extension("png");
            assert_eq!(Path::new(output), out.join(&rel), "{line}");
            written.insert(rel.to_string_lossy().replace('\\', "/"));
        }
    }
    // Parts of models — sequence SMDs (animations), Half-Life sequence groups and texture
    // files — are no FAIL lines, and neither is a file the QC reads; both are counted on one
    // line: 4 SMDs, manT.mdl, man01.mdl and the 9 group files of duplicate_sequence_groups.
    for part in [
        "smd/headcrab/walk.smd",
        "smd/bst_cube/anim_X_Axis.smd",
        "smd/combine_soldier_lod4/body_poses_lean.smd",
        "mdl/hl1/manT.mdl",
        "mdl/hl1/man01.mdl",
        "mdl/hl1/duplicate_sequence_groups/duplicate_sequence_groups04.mdl",
    ] {
        assert!(!text.contains(&*tree.join(part).to_string_lossy()), "{part} listed:\n{text}");
    }
    assert!(text.contains("skipped 15 parts of models (sequence SMDs, Half-Life sequence groups and texture files: no triangles of their own) and 7 files a .qc or .def script"), "{text}");
    // Every loadable model of each format that is read is there, and no other PNG.
    for expected in [
        "md2/sydney/sydney.png",
        "md5/bob_lamp/boblampclean.png",
        "gltf/fox/Fox.png",
        "obj/spider/spider.png",
        "iqm/mrfixit/mrfixit.png",
        "mdl/quake1/tekmechbot/tekmechbot.png",
        "mdl/hl1/man.png",
        "mdl/hl1/duplicate_sequence_groups/duplicate_sequence_groups.png",
        "fbx/flair/Flair.png",
    ] {
        assert!(written.contains(expected), "{expected} missing from {written:?}");
    }
    assert_eq!(files_under(&out, "png"), written);
    // The GoldSrc folder: the QC's textured model, not the bare reference SMD.
    assert!(written.contains("smd/headcrab/headcrab.png") && !written.contains("smd/headcrab/reference.png"));
    let share = magenta_share(&out.join("smd/headcrab/headcrab.png"));
    assert!(share < 0.05, "the headcrab is {:.0}% missing-texture magenta", share * 100.0);
    // The index page shows every PNG written (relative links), and every failed model with its
    // reason.
    let page = std::fs::read_to_string(out.join("index.html")).unwrap();
    let shown: BTreeSet<String> =
        attributes(&page, "src").into_iter().map(|src| percent_decode(&unescape(src))).collect();
    assert_eq!(shown, written);
    let failures: Vec<&str> = text.lines().filter_map(|l| l.strip_prefix("FAIL  ")).collect();
    // The 14 broken models in the `edge` folders.
    assert_eq!(failures.len(), 14, "{text}");
    for failure in &failures {
        let (model, reason) = failure.split_once(": ").unwrap();
        assert!(unescape(&page).contains(model) && unescape(&page).contains(reason), "{failure} not on the page");
    }
    // One JSON record per model, agreeing with the lines.
    let records: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let records = records.as_array().unwrap();
    assert_eq!(records.len(), written.len() + failures.len());
    for record in records {
        let input = record["input"].as_str().unwrap();
        match record["status"].as_str().unwrap() {
            "ok" => {
                let output = Path::new(record["output"].as_str().unwrap());
                assert!(output.is_file(), "{record}");
                assert!(record["triangles"].as_u64().unwrap() > 0, "{record}");
            }
            "failed" => {
                assert!(input.contains("/edge/") && record["output"].is_null(), "{record}");
                assert!(failures.iter().any(|f| f.contains(record["reason"].as_str().unwrap())), "{record}");
            }
            other => panic!("status {other} in {record}"),
        }
        assert!(record["seconds"].as_f64().unwrap() >= 0.0 && record["warnings"].is_array(), "{record}");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// A green model's thumbnail, seen in the index page in headless Chromium: the page loads its
/// images from the output folder (a page whose links were wrong would show no green).
#[test]
fn the_index_page_shows_the_thumbnails_in_a_browser() {
    let Some(chromium) = browser::chromium() else { return };
    let dir = scratch_in("thumbnail-tree", "browser");
    let models = dir.join("models with spaces #1");
    std::fs::create_dir_all(&models).unwrap();
    std::fs::write(models.join("green.mtl"), "newmtl g\nKd 0 1 0\n").unwrap();
    std::fs::write(
        models.join("crate%20.obj"),
        "mtllib green.mtl\nusemtl g\nv -1 0 0\nv 1 0 0\nv 1 2 0\nv -1 2 0\nf 1 2 3 4\n",
    )
    .unwrap();
    std::fs::write(models.join("broken.obj"), "f 1 2 3\n").unwrap();
    let out = dir.join("out");
    let o = run(&["thumbnail", s(&models), "--size", "128", "--yaw", "0", "--pitch", "0", "-o", s(&out), "--html"]);
    assert_eq!(o.status.code(), Some(1), "{}", printed(&o));
    let page = std::fs::canonicalize(out.join("index.html")).unwrap();
    let shot = dir.join("page.png");
    browser::screenshot(&chromium, &format!("file://{}", page.display()), &shot);
    let image = spritebake::output::read_png(&shot).unwrap();
    let green = image.rgba.chunks_exact(4).filter(|p| p[1] > 120 && p[0] < 80 && p[2] < 80).count();
    assert!(green > 2000, "only {green} green pixels: the thumbnail is not on the page");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn quake2_players_give_one_thumbnail_each() {
    let Some(md2) = corpus("md2") else { return };
    let dir = scratch_in("thumbnail-tree", "players");
    let players = dir.join("baseq2/players");
    for (player, from) in [("male", "ogro/ogro.md2"), ("female", "sydney/sydney.md2"), ("cyborg", "faerie/faerie.md2")]
    {
        std::fs::create_dir_all(players.join(player)).unwrap();
        std::fs::copy(md2.join(from), players.join(player).join("tris.md2")).unwrap();
    }
    let out = dir.join("thumbs");
    let o = run(&["thumbnail", s(&dir.join("baseq2")), "--size", "24", "-o", s(&out)]);
    assert_eq!(o.status.code(), Some(0), "{}", printed(&o));
    let expected: BTreeSet<String> =
        ["cyborg", "female", "male"].iter().map(|p| format!("players/{p}/tris.png")).collect();
    assert_eq!(files_under(&out, "png"), expected);
    // Three different pictures, not one written three times.
    let bytes: BTreeSet<Vec<u8>> = expected.iter().map(|p| std::fs::read(out.join(p)).unwrap()).collect();
    assert_eq!(bytes.len(), 3);
    std::fs::remove_dir_all(dir).unwrap();
}

/// A scanned folder where the QC fails to load: its reference SMD is rendered on its own (the
/// QC reads nothing the batch knows of), the QC fails alone.
#[test]
fn a_qc_that_fails_leaves_its_files_to_be_thumbnailed_alone() {
    let Some(smd) = corpus("smd") else { return };
    let dir = scratch_in("thumbnail-tree", "bad-qc");
    let folder = dir.join("crab");
    copy_dir(&smd.join("headcrab"), &folder);
    std::fs::write(folder.join("headcrab.qc"), "$body studio \"missing\"\n").unwrap();
    let out = dir.join("out");
    let o = run(&["thumbnail", s(&folder), "--size", "16", "-o", s(&out)]);
    assert_eq!(o.status.code(), Some(1), "{}", printed(&o));
    let text = stdout(&o);
    assert!(text.contains(&format!("FAIL  {}", s(&folder.join("headcrab.qc")))), "{text}");
    assert_eq!(files_under(&out, "png"), BTreeSet::from(["reference.png".to_string()]));
    std::fs::remove_dir_all(dir).unwrap();
}
