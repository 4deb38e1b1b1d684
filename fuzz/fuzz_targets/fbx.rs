#![no_main]
//! FBX files through ufbx into a model, posed and rendered (see `spritebake::fuzzing::fbx`).
libfuzzer_sys::fuzz_target!(|data: &[u8]| spritebake::fuzzing::fbx(data));
