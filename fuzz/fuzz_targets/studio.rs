#![no_main]
//! Half-Life studio models, posed and rendered (see `spritebake::internal::fuzzing::studio`).
libfuzzer_sys::fuzz_target!(|data: &[u8]| spritebake::internal::fuzzing::studio(data));
