#![no_main]
//! MD2 parsing must never panic or allocate beyond the input's size.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = spritebake::formats::md2::parse(data);
});
