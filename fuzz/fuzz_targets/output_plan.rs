#![no_main]
//! Output planning with names taken from model files: whatever the clip names and the
//! pattern, parsing and expanding never panic, a sanitized name is one plain path component,
//! and a path planned from a fixed pattern never leaves the pattern's folder.
//!
//! Input: the pattern, then clip names, separated by NUL bytes.
use std::path::{Component, Path};

use spritebake::output::{FramePattern, MAX_COMPONENT_BYTES, OutputFormat, OutputPlan, sanitize_component};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut parts = text.split('\0');
    let pattern = parts.next().unwrap_or_default();
    let names: Vec<&str> = parts.collect();
    if let Ok(p) = FramePattern::parse(pattern) {
        for (i, name) in names.iter().enumerate() {
            let _ = p.path(name, i as u32, i);
        }
    }
    let Ok(fixed) = FramePattern::parse("out/{clip}_{dir:02}_{frame:03}.png") else { return };
    let mut plan = OutputPlan::new();
    for (i, name) in names.iter().enumerate() {
        let safe = sanitize_component(name);
        let mut components = Path::new(&safe).components();
        assert!(
            matches!(components.next(), Some(Component::Normal(_))) && components.next().is_none(),
            "{name:?} sanitized to {safe:?}, not one component"
        );
        assert!(safe.len() <= MAX_COMPONENT_BYTES, "{safe:?} is too long");
        assert!(!safe.starts_with('.') && !safe.chars().any(char::is_control), "{safe:?}");
        let path = fixed.path(name, (i % 16) as u32, i);
        let components: Vec<Component> = path.components().collect();
        assert!(
            components.len() == 2
                && components[0] == Component::Normal("out".as_ref())
                && matches!(components[1], Component::Normal(_)),
            "{name:?} planned {path:?}"
        );
        plan.add(path, OutputFormat::Png);
    }
    // Names that sanitize alike collide; checking the plan reports it and never panics.
    let _ = plan.check(&[]);
});
