#![no_main]
//! `.qc`, `.def`, `.mtr` and `.shader` scripts (see `spritebake::internal::fuzzing::scripts`).
libfuzzer_sys::fuzz_target!(|data: &[u8]| spritebake::internal::fuzzing::scripts(data));
