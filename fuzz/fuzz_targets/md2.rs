#![no_main]
//! MD2 parsing (see `spritebake::internal::fuzzing::md2`).
libfuzzer_sys::fuzz_target!(|data: &[u8]| spritebake::internal::fuzzing::md2(data));
