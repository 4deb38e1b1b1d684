#![no_main]
//! glTF/GLB parsing, posing and rendering (see `spritebake::internal::fuzzing::gltf`).
libfuzzer_sys::fuzz_target!(|data: &[u8]| spritebake::internal::fuzzing::gltf(data));
