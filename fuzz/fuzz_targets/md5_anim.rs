#![no_main]
//! MD5 anim parsing against the example robot's skeleton must never panic.
use std::sync::LazyLock;

use spritebake::formats::md5;
use spritebake::model::Skeleton;

static SKELETON: LazyLock<Skeleton> = LazyLock::new(|| {
    let text = include_str!("../../examples/assets/robot/robot.md5mesh");
    md5::parse_mesh(text).ok().and_then(|m| m.skeleton).unwrap_or_default()
});

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = md5::parse_anim(&String::from_utf8_lossy(data), "fuzz", &SKELETON);
});
