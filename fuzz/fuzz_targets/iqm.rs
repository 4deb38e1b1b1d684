#![no_main]
//! IQM parsing, posing and rendering (see `spritebake::internal::fuzzing::iqm`).
libfuzzer_sys::fuzz_target!(|data: &[u8]| spritebake::internal::fuzzing::iqm(data));
