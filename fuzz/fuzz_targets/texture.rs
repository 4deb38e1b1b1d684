#![no_main]
//! Texture decoding (see `spritebake::fuzzing::texture`).
libfuzzer_sys::fuzz_target!(|data: &[u8]| spritebake::fuzzing::texture(data));
