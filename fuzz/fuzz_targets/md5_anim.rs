#![no_main]
//! MD5 anim parsing against the example robot's skeleton (see `spritebake::internal::fuzzing::md5_anim`).
use std::sync::LazyLock;

use spritebake::model::Skeleton;

static SKELETON: LazyLock<Skeleton> = LazyLock::new(|| {
    let text = include_str!("../../examples/assets/robot/robot.md5mesh");
    spritebake::internal::fuzzing::Skeletons::parse(text, "").md5
});

libfuzzer_sys::fuzz_target!(|data: &[u8]| spritebake::internal::fuzzing::md5_anim(data, &SKELETON));
