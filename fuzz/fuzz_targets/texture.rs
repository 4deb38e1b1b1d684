#![no_main]
//! Texture decoding (see `spritebake::internal::fuzzing::texture`).
libfuzzer_sys::fuzz_target!(|data: &[u8]| spritebake::internal::fuzzing::texture(data));
