//! Replays every input kept under `tests/fixtures/crash/<target>/` (inputs that once crashed
//! or hung a fuzz target) through the same code as that target: each must now return, with an
//! error or a model, without panicking.

use std::path::Path;

use spritebake::formats::{gltf, md2, md5, obj, resolve, smd};

fn replay(target: &str, data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    match target {
        "md2" => drop(md2::parse(data)),
        "md5_mesh" => drop(md5::parse_mesh(&text)),
        "smd" => {
            let model = smd::parse_reference(&text);
            if let Ok(model) = &model {
                let skeleton = model.skeleton.clone().unwrap_or_default();
                let _ = smd::parse_sequence(&text, "crash", &skeleton);
            }
        }
        "md5_anim" | "pose_render" => {
            let _ = md5::parse_mesh(&text);
            let _ = smd::parse_reference(&text);
        }
        "obj" => drop(obj::parse(data, &mut |_| Some(data.to_vec()))),
        "gltf" => drop(gltf::parse(data, &mut |_| None, &Default::default())),
        "texture" => drop(resolve::decode_image(data, Path::new("crash.tga"))),
        "manifest" => drop(spritebake::check::Manifest::parse(&text, Path::new("crash.toml"))),
        other => panic!("unknown fuzz target folder '{other}'"),
    }
}

#[test]
fn kept_crash_inputs_no_longer_crash() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/crash");
    let mut replayed = 0;
    for target in std::fs::read_dir(&root).into_iter().flatten().flatten().filter(|e| e.path().is_dir()) {
        let name = target.file_name().to_string_lossy().into_owned();
        for input in std::fs::read_dir(target.path()).into_iter().flatten().flatten() {
            replay(&name, &std::fs::read(input.path()).unwrap());
            replayed += 1;
        }
    }
    eprintln!("replayed {replayed} kept crash inputs");
}
