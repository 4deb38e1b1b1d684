#![no_main]
//! `.qc` and `.def` scripts must never panic: the QC parser reads the input as the script and
//! as every `$include` it names (so include nesting and the include limits are exercised),
//! and the DEF parser reads it and follows `inherit` for every model it declares.
use std::path::Path;

use spritebake::formats::{def, qc};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = qc::parse(&text, Path::new("fuzz/m.qc"), &mut |p| Ok(Ok((p.to_path_buf(), text.to_string()))));
    if let Ok(models) = def::parse(&text) {
        let _ = def::declared(&models, None, Path::new("m.def"));
        for m in models.iter().take(8) {
            let _ = def::declared(&models, Some(&m.name), Path::new("m.def"));
        }
    }
});
