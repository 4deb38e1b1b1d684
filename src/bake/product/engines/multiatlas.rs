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

use serde::Serialize;
use serde_json::Value;

use super::Atlas;
use super::texturepacker::{Frames, PageImage, app};

/// A multi-atlas, written straight from the atlas (issue 33: a value tree of thousands of
/// frames was the last thing a sheet waited for).
#[derive(Serialize)]
pub(super) struct MultiAtlasJson<'a> {
    textures: Vec<Texture<'a>>,
    /// Who wrote it; the caller adds the job's entries.
    pub meta: Value,
}

/// One page, its fields in the order TexturePacker writes them.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Texture<'a> {
    #[serde(flatten)]
    image: PageImage<'a>,
    scale: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    normal_map: Option<&'a str>,
    frames: Frames<'a>,
}

/// The multi-atlas JSON of the atlas (`meta` holds who wrote it; the job's entries are added
/// by the caller).
pub(super) fn to_json<'a>(atlas: &'a Atlas<'a>) -> MultiAtlasJson<'a> {
    let textures = atlas
        .pages
        .iter()
        .enumerate()
        .map(|(index, page)| Texture {
            image: PageImage::of(atlas, index),
            scale: 1,
            normal_map: page.normal,
            frames: Frames::Listed(atlas, Some(index)),
        })
        .collect();
    MultiAtlasJson { textures, meta: Value::Object(app()) }
}
