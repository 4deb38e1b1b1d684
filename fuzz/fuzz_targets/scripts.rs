#![no_main]
//! `.qc`, `.def`, `.mtr` and `.shader` scripts (see `spritebake::fuzzing::scripts`).
libfuzzer_sys::fuzz_target!(|data: &[u8]| spritebake::fuzzing::scripts(data));
