#![no_main]
//! OBJ loading (with the input also offered as its material library) must never panic.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let mut mtl = |_: &str| Some(data.to_vec());
    let _ = spritebake::formats::obj::parse(data, &mut mtl);
});
