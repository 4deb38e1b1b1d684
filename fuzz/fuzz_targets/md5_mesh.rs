#![no_main]
//! MD5 mesh parsing (see `spritebake::internal::fuzzing::md5_mesh`).
libfuzzer_sys::fuzz_target!(|data: &[u8]| spritebake::internal::fuzzing::md5_mesh(data));
