#![no_main]
//! `check` manifests (see `spritebake::fuzzing::manifest`).
libfuzzer_sys::fuzz_target!(|data: &[u8]| spritebake::fuzzing::manifest(data));
