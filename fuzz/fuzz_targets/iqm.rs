#![no_main]
//! IQM parsing, posing and rendering (see `spritebake::fuzzing::iqm`).
libfuzzer_sys::fuzz_target!(|data: &[u8]| spritebake::fuzzing::iqm(data));
