//! Phaser 3's animation JSON, the form `AnimationManager.toJSON` writes and `fromJSON` (and
//! the loader's `load.animation`) reads: `{"anims": [{"key", "type": "frame", "frames": [{"key":
//! TEXTURE, "frame": NAME, "duration": MS}], "frameRate", "repeat"}]}`, one animation per tag.
//!
//! The texture key ([`Keys`]) is, beside TexturePacker's JSON, the page's title (`walk` for
//! `walk.png`; `walk-1` for the second page of a sheet of several): the key to load that page's
//! atlas under; beside the multi-atlas, the sheet's title for every frame, the key its one
//! `load.multiatlas` loads every page under. Each frame carries its own duration, which Phaser
//! shows instead of `1000 / frameRate` while the animation plays at its own rate; `repeat` is
//! -1 (forever) for a clip, 0 for a transition.

use serde_json::{Map, Value, json};

use super::{Atlas, Frame};

/// Which texture key the frames are under in Phaser.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Keys {
    /// Each page's own atlas (`load.atlas` per page): the page image's name without extension.
    Pages,
    /// One multi-atlas for the whole sheet (`load.multiatlas`): the sheet's title.
    Sheet,
}

impl Keys {
    fn of<'a>(self, atlas: &'a Atlas, frame: &Frame) -> &'a str {
        match self {
            Keys::Pages => atlas.texture_key(frame),
            Keys::Sheet => atlas.title,
        }
    }
}

/// The animations of the atlas, each frame under its key in `keys`.
pub(super) fn to_json(atlas: &Atlas, keys: Keys) -> Value {
    let anims: Vec<Value> = atlas
        .tags
        .iter()
        .map(|tag| {
            let frames: Vec<Value> = atlas
                .tag_frames(tag)
                .iter()
                .map(|f| {
                    // Milliseconds to the microsecond: 1/16 s is 62.5 ms, not 63.
                    let ms = (f64::from(f.placement.duration) * 1e6).round() / 1e3;
                    json!({"key": keys.of(atlas, f), "frame": f.name, "duration": ms})
                })
                .collect();
            // Built, not written as `json!`, which would copy the frames.
            Value::Object(Map::from_iter([
                ("key".into(), json!(tag.name)),
                ("type".into(), json!("frame")),
                ("frames".into(), Value::Array(frames)),
                ("frameRate".into(), json!(atlas.fps(tag))),
                ("repeat".into(), json!(if tag.looping { -1 } else { 0 })),
            ]))
        })
        .collect();
    Value::Object(Map::from_iter([("anims".into(), Value::Array(anims))]))
}
