#![no_main]
//! `check` manifests (see `spritebake::internal::fuzzing::manifest`).
libfuzzer_sys::fuzz_target!(|data: &[u8]| spritebake::internal::fuzzing::manifest(data));
