#![no_main]
//! OBJ loading (see `spritebake::internal::fuzzing::obj`).
libfuzzer_sys::fuzz_target!(|data: &[u8]| spritebake::internal::fuzzing::obj(data));
