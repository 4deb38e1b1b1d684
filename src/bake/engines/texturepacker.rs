//! TexturePacker's JSON-Hash layout, as PixiJS and Phaser's `load.atlas` read it: `frames`
//! keyed by name, each with `frame`, `rotated` (always false: Godot's importers cannot read
//! rotated frames), `trimmed`, `spriteSourceSize`, `sourceSize`, `pivot` as 0..1 fractions,
//! PixiJS's `anchor` and a `duration` in ms; `animations` (frame names per tag, as PixiJS reads
//! them); and `meta`.

use serde_json::{Map, Value, json};

use super::{Atlas, Frame, duration_ms};

/// One frame's object, shared with Aseprite's layout (which has the same fields).
pub(super) fn frame_object(atlas: &Atlas, frame: &Frame) -> Value {
    let p = frame.placement;
    let (fw, fh) = atlas.frame_size;
    json!({
        "frame": {"x": p.x, "y": p.y, "w": p.w, "h": p.h},
        "rotated": false,
        "trimmed": (p.w, p.h) != (fw, fh),
        "spriteSourceSize": {"x": p.source_x, "y": p.source_y, "w": p.w, "h": p.h},
        "sourceSize": {"w": fw, "h": fh},
        "pivot": {"x": p.pivot.0, "y": p.pivot.1},
        "anchor": {"x": p.pivot.0, "y": p.pivot.1},
        "duration": duration_ms(p),
    })
}

/// `meta` for one page, shared with Aseprite's layout.
pub(super) fn meta(atlas: &Atlas, page: usize) -> Value {
    let (image, (w, h)) = atlas.pages.get(page).map_or(("", (0, 0)), |p| (p.image, p.size));
    json!({
        "app": "spritebake",
        "version": env!("CARGO_PKG_VERSION"),
        "image": image,
        "format": "RGBA8888",
        "size": {"w": w, "h": h},
        "scale": "1",
    })
}

/// The JSON of page `page`.
pub(super) fn to_json(atlas: &Atlas, page: usize) -> Value {
    let on_page = |f: &&Frame| f.page == page;
    let frames: Map<String, Value> =
        atlas.frames.iter().filter(on_page).map(|f| (f.name.clone(), frame_object(atlas, f))).collect();
    let animations: Map<String, Value> = atlas
        .tags
        .iter()
        .map(|t| (t.name.clone(), atlas.tag_frames(t).iter().filter(on_page).map(|f| json!(f.name)).collect()))
        .filter(|(_, names): &(String, Vec<Value>)| !names.is_empty())
        .map(|(name, names)| (name, Value::Array(names)))
        .collect();
    json!({"frames": frames, "animations": animations, "meta": meta(atlas, page)})
}
