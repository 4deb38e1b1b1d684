//! TexturePacker's JSON-Hash layout, as PixiJS and Phaser's `load.atlas` read it: `frames`
//! keyed by name, each with `frame`, `rotated` (always false: Godot's importers cannot read
//! rotated frames), `trimmed`, `spriteSourceSize`, `sourceSize`, `pivot` as 0..1 fractions,
//! PixiJS's `anchor` and a `duration` in ms; `animations` (frame names per tag, as PixiJS reads
//! them); and `meta`, whose `playback` says how each animation on the page plays (`loop`,
//! `fps`, `ms`). Frames are named `CLIP_DIRECTION_FRAME` by default (`walk_SW_007`, see
//! [`super::FrameNames`]), animations `CLIP_DIRECTION`; `meta.directions` lists each
//! direction's `index`, `name` and `angle` (degrees the model is turned clockwise seen from
//! above, from facing the viewer), and a job at a fixed scale adds `meta.pixelsPerUnit` and
//! `meta.pivot` (the pivot in pixels, the same in every frame). Aseprite's layout carries the
//! same `meta` entries.

use serde_json::{Map, Value, json};

use super::{Atlas, Frame, Tag};
use crate::bake::{JobInfo, Sheet};

/// One frame's object, shared with the array layouts (which have the same fields).
fn frame_object(atlas: &Atlas, frame: &Frame) -> Value {
    let p = frame.placement;
    let (fw, fh) = atlas.frame_size;
    json!({
        "frame": {"x": p.x, "y": p.y, "w": p.w, "h": p.h},
        "rotated": false,
        "trimmed": (p.w, p.h) != (fw, fh),
        "spriteSourceSize": {"x": p.source_x, "y": p.source_y, "w": p.w, "h": p.h},
        "sourceSize": {"w": fw, "h": fh},
        "pivot": {"x": fraction(p.pivot.0), "y": fraction(p.pivot.1)},
        "anchor": {"x": fraction(p.pivot.0), "y": fraction(p.pivot.1)},
        "duration": frame.duration_ms,
    })
}

/// A pivot fraction to six decimals, as written: `0.825` (33 of 40 pixels), not the
/// `0.824999988079071` of the 32-bit float it was computed in.
fn fraction(x: f32) -> f64 {
    (f64::from(x) * 1e6).round() / 1e6
}

/// One frame's object with its name as `filename`, as the array layouts (Aseprite's, Phaser's
/// multi-atlas) list frames.
pub(super) fn named_frame_object(atlas: &Atlas, frame: &Frame) -> Value {
    let mut object = frame_object(atlas, frame);
    object["filename"] = json!(frame.name);
    object
}

/// `meta` for one page, shared with Aseprite's layout: the writer and the page's image.
pub(super) fn meta(atlas: &Atlas, page: usize) -> Value {
    let mut meta = app();
    meta.extend(image_fields(atlas, page));
    meta.insert("scale".into(), json!("1"));
    Value::Object(meta)
}

/// Who wrote the data: `app` and `version`.
pub(crate) fn app() -> Map<String, Value> {
    Map::from_iter([("app".into(), json!("spritebake")), ("version".into(), json!(env!("CARGO_PKG_VERSION")))])
}

/// Page `page`'s image as TexturePacker describes one: `image` (its file name), `format` and
/// `size`.
pub(super) fn image_fields(atlas: &Atlas, page: usize) -> Map<String, Value> {
    let (image, (w, h)) = atlas.pages.get(page).map_or(("", (0, 0)), |p| (p.image, p.size));
    Map::from_iter([
        ("image".into(), json!(image)),
        ("format".into(), json!("RGBA8888")),
        ("size".into(), json!({"w": w, "h": h})),
    ])
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
    let playback: Map<String, Value> = atlas
        .tags
        .iter()
        .filter(|t| atlas.tag_frames(t).iter().any(|f| on_page(&f)))
        .map(|t| (t.name.clone(), playback(atlas, t)))
        .collect();
    let mut meta = meta(atlas, page);
    meta["playback"] = Value::Object(playback);
    json!({"frames": frames, "animations": animations, "meta": meta})
}

/// How an animation plays, which PixiJS's `animations` (frame names only) cannot say:
/// `{"loop": bool, "fps": frames per second, "ms": its length in whole milliseconds}`, for an
/// `AnimatedSprite`'s `loop` and `animationSpeed` (`fps / 60`).
fn playback(atlas: &Atlas, tag: &Tag) -> Value {
    let ms: u64 = atlas.tag_frames(tag).iter().map(|f| u64::from(f.duration_ms)).sum();
    json!({"loop": tag.looping, "fps": atlas.fps(tag), "ms": ms})
}

/// Adds what the job knows to a page's `meta`: the directions table, and with a fixed scale
/// the pixels per unit and the pivot in pixels.
pub(super) fn add_job_meta(meta: &mut Value, sheet: &Sheet) {
    if let Value::Object(meta) = meta {
        meta.extend(job_fields(&sheet.job));
    }
    if sheet.job.pixels_per_unit.is_some() {
        meta["pivot"] = json!({"x": sheet.pivot.x, "y": sheet.pivot.y});
    }
}

/// What the job says of every frame: `directions`, and `pixelsPerUnit` with a fixed scale.
pub(crate) fn job_fields(job: &JobInfo) -> Map<String, Value> {
    let mut fields = Map::from_iter([("directions".into(), job.directions.to_json())]);
    if let Some(p) = job.pixels_per_unit {
        // As written (`0.1`, not the f32's `0.10000000149011612`).
        fields.insert("pixelsPerUnit".into(), p.to_string().parse::<f64>().map_or(json!(p), |p| json!(p)));
    }
    fields
}
