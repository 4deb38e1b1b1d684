#![no_main]
//! MD5 mesh parsing (see `spritebake::fuzzing::md5_mesh`).
libfuzzer_sys::fuzz_target!(|data: &[u8]| spritebake::fuzzing::md5_mesh(data));
