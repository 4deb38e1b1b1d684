#![no_main]
//! `bake` project files (see `spritebake::fuzzing::project`).
libfuzzer_sys::fuzz_target!(|data: &[u8]| spritebake::fuzzing::project(data));
