#![no_main]
//! `check` manifests must parse or fail cleanly.
use std::path::Path;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = spritebake::check::Manifest::parse(&String::from_utf8_lossy(data), Path::new("fuzz.toml"));
});
