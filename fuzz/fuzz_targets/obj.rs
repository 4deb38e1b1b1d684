#![no_main]
//! OBJ loading (see `spritebake::fuzzing::obj`).
libfuzzer_sys::fuzz_target!(|data: &[u8]| spritebake::fuzzing::obj(data));
