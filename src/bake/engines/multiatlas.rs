//! Phaser 3's multi-atlas JSON, the form TexturePacker's "Phaser 3" exporter writes and
//! `this.load.multiatlas(key, 'NAME.json')` reads: one file for the whole sheet, `{"textures":
//! [{"image", "format", "size", "scale", "frames": [...]}, ...], "meta"}`, one texture per page
//! in page order. Phaser's loader fetches each texture's `image` (and its `normalMap`, with
//! `--maps normal`, for its light pipeline) beside the JSON and adds them all under the one
//! key as the sources of one texture; its `JSONArray` parser reads each texture's `frames`:
//! `filename`, `frame`, `rotated`, `trimmed`, `sourceSize`, `spriteSourceSize` and `anchor` (or
//! `pivot`), keeping the rest as the frame's `customData`. Frames are the JSON-Hash's objects
//! (with their `duration`), named.
//!
//! So every frame of every page is found by the one key and its name, and the animation JSON
//! written beside it names that key ([`super::phaser::Keys::Sheet`]): however the frames fall
//! on pages, every animation plays whole.

use serde_json::{Map, Value, json};

use super::Atlas;
use super::texturepacker::{app, image_fields, named_frame_object};

/// The multi-atlas JSON of the atlas (`meta` holds who wrote it; the job's entries are added
/// by the caller).
pub(super) fn to_json(atlas: &Atlas) -> Value {
    let textures: Vec<Value> = atlas
        .pages
        .iter()
        .enumerate()
        .map(|(index, page)| {
            let frames: Vec<Value> =
                atlas.frames.iter().filter(|f| f.page == index).map(|f| named_frame_object(atlas, f)).collect();
            let mut texture = image_fields(atlas, index);
            texture.insert("scale".into(), json!(1));
            if let Some(normal) = page.normal {
                texture.insert("normalMap".into(), json!(normal));
            }
            texture.insert("frames".into(), Value::Array(frames));
            Value::Object(texture)
        })
        .collect();
    // Moved in, not through `json!`, which would copy every frame.
    Value::Object(Map::from_iter([("textures".into(), Value::Array(textures)), ("meta".into(), Value::Object(app()))]))
}
