#![no_main]
//! MD5 mesh parsing must never panic.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = spritebake::formats::md5::parse_mesh(&String::from_utf8_lossy(data));
});
