#![no_main]
//! Quake 1 MDL parsing, posing and rendering (see `spritebake::fuzzing::mdl`).
libfuzzer_sys::fuzz_target!(|data: &[u8]| spritebake::fuzzing::mdl(data));
