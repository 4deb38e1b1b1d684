//! TexturePacker's JSON-Hash layout, as PixiJS and Phaser's `load.atlas` read it: `frames`
//! keyed by name, each with `frame`, `rotated` (always false: Godot's importers cannot read
//! rotated frames), `trimmed`, `spriteSourceSize`, `sourceSize`, `pivot` as 0..1 fractions,
//! PixiJS's `anchor` and a `duration` in ms; `animations` (frame names per tag, as PixiJS reads
//! them); and `meta`, whose `playback` says how each animation of the sheet plays (`loop`,
//! `fps`, `ms`): every animation on every page, so that the first page's, which is what
//! PixiJS's `sheet.data` holds, answers for an animation whose frames are all on a later one. Frames are named `CLIP_DIRECTION_FRAME` by default (`walk_SW_007`, see
//! [`super::FrameNames`]), animations `CLIP_DIRECTION`; `meta.directions` lists each
//! direction's `index`, `name` and `angle` (degrees the model is turned clockwise seen from
//! above, from facing the viewer; a mirrored one's `flippedFrom`, the direction whose frames
//! it shows flipped, whose frames carry `"flipX": true`), and a job at a fixed scale adds `meta.pixelsPerUnit` and
//! `meta.pivot` (the pivot in pixels, the same in every frame). Aseprite's layout carries the
//! same `meta` entries.

use serde::{Serialize, Serializer};
use serde_json::{Map, Value, json};

use super::{Atlas, Frame, Tag};
use crate::bake::{JobInfo, Sheet};

/// One frame's fields, shared with the array layouts (which add its name as `filename`).
/// Written straight from the atlas: a sheet has thousands of frames, and a JSON value tree of
/// them took most of the time a sheet's last page is waited for (issue 33).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FrameFields<'a> {
    frame: Rect,
    rotated: bool,
    trimmed: bool,
    sprite_source_size: Rect,
    source_size: Size,
    pivot: Point,
    anchor: Point,
    duration: u32,
    /// A mirrored direction's frame: its rectangle is drawn flipped left to right about its
    /// pivot (a negative x scale), rectangle, trim and pivot as given (a field of our own;
    /// only on such frames, `--mirror`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    flip_x: bool,
    /// The job's points by name, in pixels of the untrimmed frame (a field of our own; only
    /// with `--points`).
    #[serde(skip_serializing_if = "Option::is_none")]
    points: Option<Points<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    filename: Option<&'a str>,
}

/// A frame's points by name: `{"hand_R": {"x": 41.5, "y": 30.25}}`.
struct Points<'a> {
    names: &'a [String],
    at: &'a [(f32, f32)],
}

impl Serialize for Points<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let point = |&(x, y): &(f32, f32)| Point { x: hundredths(x), y: hundredths(y) };
        serializer.collect_map(self.names.iter().zip(self.at.iter().map(point)))
    }
}

/// `x` to two decimals: a point's pixel, finer than any engine places a sprite.
pub(super) fn hundredths(x: f32) -> f64 {
    (f64::from(x) * 100.0).round() / 100.0
}

#[derive(Serialize)]
struct Rect {
    x: u32,
    y: u32,
    w: u32,
    h: u32,
}

/// A width and height, as `sourceSize` and a page's `size` are written.
#[derive(Serialize)]
struct Size {
    w: u32,
    h: u32,
}

#[derive(Serialize)]
struct Point {
    x: f64,
    y: f64,
}

impl<'a> FrameFields<'a> {
    /// `frame`'s fields, named as the array layouts list them when `named`.
    fn of(atlas: &Atlas<'a>, frame: &'a Frame, named: bool) -> FrameFields<'a> {
        let p = frame.placement;
        let (fw, fh) = atlas.frame_size;
        let pivot = || Point { x: fraction(p.pivot.0), y: fraction(p.pivot.1) };
        FrameFields {
            frame: Rect { x: p.x, y: p.y, w: p.w, h: p.h },
            rotated: false,
            trimmed: (p.w, p.h) != (fw, fh),
            sprite_source_size: Rect { x: p.source_x, y: p.source_y, w: p.w, h: p.h },
            source_size: Size { w: fw, h: fh },
            pivot: pivot(),
            anchor: pivot(),
            duration: frame.duration_ms,
            flip_x: p.flipped,
            points: (!atlas.points.is_empty()).then_some(Points { names: atlas.points, at: &p.points }),
            filename: named.then_some(frame.name.as_str()),
        }
    }
}

/// The frames of a page's JSON: keyed by name (JSON-Hash) or listed with their names (the
/// array layouts), serialized as they are written.
pub(super) enum Frames<'a> {
    /// Page `page`'s frames, keyed by name.
    ByName(&'a Atlas<'a>, usize),
    /// The frames of the atlas in order, each with its `filename`: every one, or page `page`'s
    /// (a multi-atlas texture's).
    Listed(&'a Atlas<'a>, Option<usize>),
}

impl Serialize for Frames<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match *self {
            Frames::ByName(atlas, page) => serializer.collect_map(
                atlas.frames.iter().filter(|f| f.page == page).map(|f| (&f.name, FrameFields::of(atlas, f, false))),
            ),
            Frames::Listed(atlas, page) => serializer.collect_seq(
                atlas
                    .frames
                    .iter()
                    .filter(|f| page.is_none_or(|page| f.page == page))
                    .map(|f| FrameFields::of(atlas, f, true)),
            ),
        }
    }
}

/// A page's JSON, in the order TexturePacker writes it: `frames`, `animations` (JSON-Hash
/// only) and `meta`, which the caller may add to before it is written.
#[derive(Serialize)]
pub(super) struct PageJson<'a> {
    frames: Frames<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    animations: Option<Value>,
    pub meta: Value,
}

impl<'a> PageJson<'a> {
    /// Aseprite's layout: every frame listed, then `meta`.
    pub(super) fn listed(atlas: &'a Atlas<'a>, meta: Value) -> PageJson<'a> {
        PageJson { frames: Frames::Listed(atlas, None), animations: None, meta }
    }
}

/// A pivot fraction to six decimals, as written: `0.825` (33 of 40 pixels), not the
/// `0.824999988079071` of the 32-bit float it was computed in.
fn fraction(x: f32) -> f64 {
    (f64::from(x) * 1e6).round() / 1e6
}

/// `meta` for one page, shared with Aseprite's layout: the writer and the page's image.
pub(super) fn meta(atlas: &Atlas, page: usize) -> Value {
    let mut meta = app();
    // Strings and numbers always convert.
    if let Ok(Value::Object(image)) = serde_json::to_value(PageImage::of(atlas, page)) {
        meta.extend(image);
    }
    meta.insert("scale".into(), json!("1"));
    Value::Object(meta)
}

/// Who wrote the data: `app` and `version`.
pub(crate) fn app() -> Map<String, Value> {
    Map::from_iter([("app".into(), json!("spritebake")), ("version".into(), json!(env!("CARGO_PKG_VERSION")))])
}

/// A page's image as TexturePacker describes one: `image` (its file name), `format` and
/// `size`; in a page's `meta`, and in each texture of a multi-atlas.
#[derive(Serialize)]
pub(super) struct PageImage<'a> {
    image: &'a str,
    format: &'static str,
    size: Size,
}

impl<'a> PageImage<'a> {
    /// Page `page`'s image.
    pub(super) fn of(atlas: &Atlas<'a>, page: usize) -> PageImage<'a> {
        let (image, (w, h)) = atlas.pages.get(page).map_or(("", (0, 0)), |p| (p.image, p.size));
        PageImage { image, format: "RGBA8888", size: Size { w, h } }
    }
}

/// The JSON of page `page`.
pub(super) fn to_json<'a>(atlas: &'a Atlas<'a>, page: usize) -> PageJson<'a> {
    let on_page = |f: &&Frame| f.page == page;
    let animations: Map<String, Value> = atlas
        .tags
        .iter()
        .map(|t| (t.name.clone(), atlas.tag_frames(t).iter().filter(on_page).map(|f| json!(f.name)).collect()))
        .filter(|(_, names): &(String, Vec<Value>)| !names.is_empty())
        .map(|(name, names)| (name, Value::Array(names)))
        .collect();
    let playback: Map<String, Value> = atlas.tags.iter().map(|t| (t.name.clone(), playback(atlas, t))).collect();
    let mut meta = meta(atlas, page);
    meta["playback"] = Value::Object(playback);
    PageJson { frames: Frames::ByName(atlas, page), animations: Some(Value::Object(animations)), meta }
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
