#![no_main]
//! glTF/GLB parsing, posing and rendering (see `spritebake::fuzzing::gltf`).
libfuzzer_sys::fuzz_target!(|data: &[u8]| spritebake::fuzzing::gltf(data));
