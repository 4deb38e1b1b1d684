//! Aseprite's JSON as its CLI writes it (`--format json-array --list-tags`): `frames` in order,
//! each with its `filename` and TexturePacker's fields and a `duration` in ms, and
//! `meta.frameTags` whose `from`/`to` are frame numbers (indices into `frames`), with
//! `direction` and, for a tag that plays once, Aseprite's `"repeat": "1"` (a string, as Aseprite
//! writes it). A mirrored direction's tag (`--mirror`) says `"data": "flipX"` (a tag's user
//! data, as Aseprite 1.3 writes it), and its frames `"flipX": true`.
//!
//! Phaser's `createFromAseprite` looks every frame of a tag up by its number as a string
//! (`frames["3"]`, then the texture frame named `"3"`), so the frames must be named by number:
//! the default name format for this layout is `{frame}`. An array rather than a hash: a JSON
//! object's key order is not kept (serde_json sorts keys, `"10"` before `"2"`), and `from`/`to`
//! index frames in order; Phaser reads both forms.
//!
//! Aseprite's sheets are one image, and so is this layout: its frame numbers run over the
//! whole atlas, and `meta.image` names the first page.
//!
//! With `--points`, each point is a slice in `meta.slices` (as `--list-slices` writes them),
//! named after it, with a key on every frame: a one-pixel `bounds` on the pixel the point
//! falls in, in the untrimmed frame. Aseprite's slices hold whole pixels; the TexturePacker
//! data keeps the fraction.

use serde_json::{Value, json};

use super::Atlas;
use super::texturepacker::{PageJson, meta};

/// The JSON of the atlas.
pub(super) fn to_json<'a>(atlas: &'a Atlas<'a>) -> PageJson<'a> {
    let tags: Vec<Value> = atlas
        .tags
        .iter()
        .map(|t| {
            let mut tag = json!({
                "name": t.name,
                "from": t.frames.start,
                "to": t.frames.end - 1,
                "direction": "forward",
            });
            if !t.looping {
                tag["repeat"] = json!("1");
            }
            // Aseprite's user data of a tag: a mirrored direction's, drawn flipped.
            if t.flipped {
                tag["data"] = json!("flipX");
            }
            tag
        })
        .collect();
    let mut meta = meta(atlas, 0);
    meta["frameTags"] = Value::Array(tags);
    if !atlas.points.is_empty() {
        meta["slices"] = slices(atlas);
    }
    PageJson::listed(atlas, meta)
}

/// One slice a point, keyed on every frame.
fn slices(atlas: &Atlas) -> Value {
    let slice = |(k, name): (usize, &String)| {
        let keys: Vec<Value> = atlas
            .frames
            .iter()
            .enumerate()
            .filter_map(|(i, f)| f.placement.points.get(k).map(|&(x, y)| (i, x, y)))
            .map(|(i, x, y)| {
                let (x, y) = (x.floor() as i64, y.floor() as i64);
                json!({"frame": i, "bounds": {"x": x, "y": y, "w": 1, "h": 1}})
            })
            .collect();
        json!({"name": name, "color": "#0000ffff", "keys": keys})
    };
    Value::Array(atlas.points.iter().enumerate().map(slice).collect())
}
