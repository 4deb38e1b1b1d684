#![no_main]
//! Texture decoding through the resolver's decoder (PNG, JPEG, BMP, TGA by extension, PCX) must
//! never panic or allocate more than the size limits allow.
use std::path::Path;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = spritebake::formats::resolve::decode_image(data, Path::new("fuzz.tga"));
});
