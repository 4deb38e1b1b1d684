#![no_main]
//! Palette files: `.gpl`, `.hex`, `.pal` (see `spritebake::internal::fuzzing::palette`).
libfuzzer_sys::fuzz_target!(|data: &[u8]| spritebake::internal::fuzzing::palette(data));
