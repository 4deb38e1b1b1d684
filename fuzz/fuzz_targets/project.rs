#![no_main]
//! `bake` project files (see `spritebake::internal::fuzzing::project`).
libfuzzer_sys::fuzz_target!(|data: &[u8]| spritebake::internal::fuzzing::project(data));
