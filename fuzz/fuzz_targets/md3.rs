#![no_main]
//! Quake 3 MD3 files, posed and rendered (see `spritebake::internal::fuzzing::md3`).
libfuzzer_sys::fuzz_target!(|data: &[u8]| spritebake::internal::fuzzing::md3(data));
