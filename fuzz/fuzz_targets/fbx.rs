#![no_main]
//! FBX files through ufbx into a model, posed and rendered (see `spritebake::internal::fuzzing::fbx`).
libfuzzer_sys::fuzz_target!(|data: &[u8]| spritebake::internal::fuzzing::fbx(data));
