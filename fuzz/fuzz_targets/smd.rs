#![no_main]
//! SMD reference and sequence parsing must never panic.
use std::sync::LazyLock;

use spritebake::formats::smd;
use spritebake::model::Skeleton;

static SKELETON: LazyLock<Skeleton> = LazyLock::new(|| {
    let text = include_str!("../../examples/assets/robot/robot.smd");
    smd::parse_reference(text).ok().and_then(|m| m.skeleton).unwrap_or_default()
});

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = smd::parse_reference(&text);
    let _ = smd::parse_sequence(&text, "fuzz", &SKELETON);
});
