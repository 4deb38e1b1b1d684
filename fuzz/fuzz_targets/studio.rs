#![no_main]
//! Half-Life studio models, posed and rendered (see `spritebake::fuzzing::studio`).
libfuzzer_sys::fuzz_target!(|data: &[u8]| spritebake::fuzzing::studio(data));
