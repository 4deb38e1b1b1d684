#![no_main]
//! SMD reference and sequence parsing against the example robot's skeleton (see
//! `spritebake::internal::fuzzing::smd_files`).
use std::sync::LazyLock;

use spritebake::model::Skeleton;

static SKELETON: LazyLock<Skeleton> = LazyLock::new(|| {
    let text = include_str!("../../examples/assets/robot/robot.smd");
    spritebake::internal::fuzzing::Skeletons::parse("", text).smd
});

libfuzzer_sys::fuzz_target!(|data: &[u8]| spritebake::internal::fuzzing::smd_files(data, &SKELETON));
