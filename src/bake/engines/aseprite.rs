//! Aseprite's JSON as its CLI writes it (`--format json-array --list-tags`): `frames` in order,
//! each with its `filename` and TexturePacker's fields and a `duration` in ms, and
//! `meta.frameTags` whose `from`/`to` are frame numbers (indices into `frames`), with
//! `direction` and, for a tag that plays once, Aseprite's `"repeat": "1"` (a string, as Aseprite
//! writes it).
//!
//! Phaser's `createFromAseprite` looks every frame of a tag up by its number as a string
//! (`frames["3"]`, then the texture frame named `"3"`), so the frames must be named by number:
//! the default name format for this layout is `{frame}`. An array rather than a hash: a JSON
//! object's key order is not kept (serde_json sorts keys, `"10"` before `"2"`), and `from`/`to`
//! index frames in order; Phaser reads both forms.
//!
//! Aseprite's sheets are one image, and so is this layout: its frame numbers run over the
//! whole atlas, and `meta.image` names the first page.

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
            tag
        })
        .collect();
    let mut meta = meta(atlas, 0);
    meta["frameTags"] = Value::Array(tags);
    PageJson::listed(atlas, meta)
}
