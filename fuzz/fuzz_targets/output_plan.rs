#![no_main]
//! Output planning with names from model files (see `spritebake::internal::fuzzing::output_plan`).
libfuzzer_sys::fuzz_target!(|data: &[u8]| spritebake::internal::fuzzing::output_plan(data));
