#![no_main]
//! Palette files: `.gpl`, `.hex`, `.pal` (see `spritebake::fuzzing::palette`).
libfuzzer_sys::fuzz_target!(|data: &[u8]| spritebake::fuzzing::palette(data));
