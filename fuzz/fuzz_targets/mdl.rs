#![no_main]
//! Quake 1 MDL parsing, posing and rendering (see `spritebake::internal::fuzzing::mdl`).
libfuzzer_sys::fuzz_target!(|data: &[u8]| spritebake::internal::fuzzing::mdl(data));
