#![no_main]
//! Posing and rendering whatever a parser accepts (see `spritebake::internal::fuzzing::pose_render`).
libfuzzer_sys::fuzz_target!(|data: &[u8]| spritebake::internal::fuzzing::pose_render(data));
