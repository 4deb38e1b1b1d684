//! Engine data: the files written beside a sheet image so that a game engine or its tooling
//! reads the sheet as it is — TexturePacker's JSON-Hash (PixiJS, Phaser's `load.atlas`),
//! Aseprite's JSON (Phaser's `load.aseprite` + `createFromAseprite`), Phaser's multi-atlas JSON
//! (`load.multiatlas`) and animation JSON (`load.animation` / `anims.fromJSON`), Godot 4 and
//! Godot 3 `SpriteFrames` resources with a scene of a sprite node playing them, its pivot at
//! the node's origin, libGDX's texture atlas, and Unity's `.meta` and animation clips.
//!
//! Every writer works from an [`Atlas`]: the sheet's pages (each image with its placements)
//! and, made once for all of them, every frame's name ([`FrameNames`], like Aseprite's
//! `--filename-format`) and the tags (animations: one per clip and direction, a run of
//! consecutive frames). So the formats agree on names, numbering, timing and looping, and a
//! writer never re-derives them. Frames are numbered over the whole atlas, page after page.
//! A sheet of several images is several [`Page`]s: Godot's resource names one texture per
//! page, Phaser's multi-atlas lists them all under one texture key and its animations span
//! them; TexturePacker's JSON describes one page (one file per page, each naming the others in
//! `meta.related_multi_packs`, which PixiJS follows); Aseprite's layout has one image.
//! [`sheet_data_files`] writes the data of a sheet of any number of pages.
//!
//! Timing: a tag's rate is its frames over its length ([`Atlas::fps`], to a thousandth);
//! engines that keep per-frame times (Aseprite, Phaser, Godot 4) get each frame's own, in whole
//! milliseconds that add up to the tag's length where the format counts milliseconds
//! ([`Frame::duration_ms`]); Godot 3 has only the rate. Looping: as the job's
//! [`Looping`](crate::bake::Looping) says — clips loop unless marked to play once,
//! transitions (`A->B` rows) play once.

mod aseprite;
mod atlas;
mod escape;
mod gamemaker;
mod godot;
mod libgdx;
mod multiatlas;
mod phaser;
mod texturepacker;
mod unity;

use std::path::{Path, PathBuf};

use rayon::prelude::*;

pub(crate) use atlas::file_stem;
pub use atlas::{Atlas, Frame, MsClock, Page, Tag, file_name, rate};
pub use gamemaker::{Strips, strip_paths, strip_tags};
pub(crate) use texturepacker::{app, job_fields};

use crate::bake::Sheet;
use crate::bake::look::maps::{self, MapKind};
use crate::error::{Error, Result};
pub use crate::sprite::{FrameFacts, FrameNames, JsonFormat};

/// What the engine data of one frame may take in memory while it is written, besides its name
/// and the title: its record in the atlas and its text, the text's buffer grown by doubling
/// (measured at most 2.3 KiB a frame with tags of 100 bytes, Phaser's the largest, of which
/// the name terms below cover 0.7 KiB); see
/// `alloc_bounds::a_sheets_engine_data_stays_within_its_charge`.
const FRAME_DATA_BYTES: u64 = 2 << 10;

/// Bytes a tag may add to its row's name for the direction (`_3`), allowed generously.
pub const DIRECTION_TAG_BYTES: usize = 32;

/// The longest sheet title: a file name (255 bytes on common file systems), for a charge made
/// before the sheet's file is known.
pub const MAX_TITLE_BYTES: usize = 255;

/// What writing the engine data of `frames` frames whose tags are at most `longest_tag` bytes
/// may allocate, for a sheet whose title (its file's stem) is `title` bytes long; charged to
/// the budget before it is made: the frame names and tags come from options and model files.
pub fn data_bytes(frames: usize, title: usize, longest_tag: usize, names: &FrameNames) -> u64 {
    let name = names.max_len(title, longest_tag) as u64;
    // A frame's name is held in its frame, a JSON key and an animation list, and written again
    // as text; its tag and the title (Phaser's texture key) are written with it too.
    let per_frame = FRAME_DATA_BYTES + 4 * name + 2 * (longest_tag + title) as u64;
    (frames as u64).saturating_mul(per_frame)
}

/// The engine data of a sheet written at `png` (its pages' images are written by the caller,
/// at [`page_path`]): each page's data ([`JsonFormat::page_files`]), then the sheet's
/// ([`JsonFormat::sheet_data_files`]), then the files named after its tags
/// ([`JsonFormat::job_files`]), encoded. The JSON of a page of several lists the other
/// pages' JSON in `meta.related_multi_packs` (TexturePacker's multipack).
///
/// With `normal_maps` each page has a normal map beside it ([`maps::output_of`]), which
/// Godot 4's resource names with the page (a `CanvasTexture`) and Phaser's multi-atlas as the
/// page's `normalMap`.
///
/// # Errors
/// Encoding fails; frame names that collide (see [`Atlas::new`]); an Aseprite layout over
/// several pages.
pub fn sheet_data_files(
    sheet: &Sheet,
    png: &Path,
    format: JsonFormat,
    names: &FrameNames,
    normal_maps: bool,
) -> Result<Vec<(PathBuf, Vec<u8>)>> {
    let count = sheet.pages.len();
    check_pages(format, count)?;
    let title = file_stem(png);
    let pngs: Vec<PathBuf> = (0..count).map(|i| page_path(png, i, count)).collect();
    let image_names: Vec<String> = pngs.iter().map(|p| file_name(p)).collect();
    let normal_names: Vec<String> =
        image_names.iter().map(|name| maps::output_of(name, MapKind::Normal)).filter(|_| normal_maps).collect();
    let pages: Vec<Page> = sheet
        .pages
        .iter()
        .enumerate()
        .map(|(i, page)| Page {
            image: &image_names[i],
            size: page.size,
            placements: &page.placements,
            normal: normal_names.get(i).map(String::as_str),
        })
        .collect();
    let mut atlas = Atlas::new(&title, &pages, sheet.frame_size, names)?;
    atlas.points = &sheet.job.points;
    let tags: Vec<String> = atlas.tags.iter().map(|t| t.name.clone()).collect();
    let job_files = format.job_files(png, &tags, !atlas.points.is_empty());
    let page_jsons: Vec<String> =
        pngs.iter().flat_map(|p| format.page_files(p)).map(|(path, _)| file_name(&path)).collect();
    // What Unity's files refer to each page and frame by, made once for all of them.
    let unity = (format == JsonFormat::Unity).then(|| unity::Ids::new(&atlas, &pngs));
    // Each page's data on its own thread, beside the whole sheet's: a sheet's last page waits
    // for its data.
    let page_json = |(i, png): (usize, &PathBuf)| -> Result<Vec<(PathBuf, Vec<u8>)>> {
        let mut files = Vec::new();
        for (path, _) in format.page_files(png) {
            if let Some(ids) = &unity {
                files.push((path, unity::to_meta(&atlas, i, ids, &sheet.job).into_bytes()));
                continue;
            }
            let mut json = match format {
                JsonFormat::Aseprite => aseprite::to_json(&atlas),
                _ => texturepacker::to_json(&atlas, i),
            };
            texturepacker::add_job_meta(&mut json.meta, sheet);
            if count > 1 {
                let others: Vec<&String> =
                    page_jsons.iter().enumerate().filter(|&(j, _)| j != i).map(|(_, n)| n).collect();
                json.meta["related_multi_packs"] = serde_json::json!(others);
            }
            files.push((path, pretty(&json)?));
        }
        Ok(files)
    };
    let godot = |version| {
        let tres = godot::to_tres(&atlas, version).into_bytes();
        let pivot = (sheet.pivot.x.round() as i64, sheet.pivot.y.round() as i64);
        let tscn = godot::to_tscn(&atlas, &file_name(&png.with_extension("tres")), pivot, version);
        vec![tres, tscn.into_bytes()]
    };
    let whole_sheet = || -> Result<Vec<Vec<u8>>> {
        Ok(match format {
            JsonFormat::Phaser => vec![pretty(&phaser::to_json(&atlas, phaser::Keys::Pages))?],
            JsonFormat::PhaserMultiatlas => {
                let mut json = multiatlas::to_json(&atlas);
                texturepacker::add_job_meta(&mut json.meta, sheet);
                vec![pretty(&json)?, pretty(&phaser::to_json(&atlas, phaser::Keys::Sheet))?]
            }
            JsonFormat::Godot => godot(godot::Version::Godot4),
            JsonFormat::Godot3 => godot(godot::Version::Godot3),
            JsonFormat::Libgdx => vec![libgdx::to_atlas(&atlas, sheet.job.premultiplied).into_bytes()],
            JsonFormat::GameMaker => vec![gamemaker::to_gml(&atlas, png).into_bytes()],
            JsonFormat::Unity => match &unity {
                Some(ids) => unity_clips(&atlas, ids, &job_files, sheet.job.pixels_per_unit)?,
                None => Vec::new(),
            },
            JsonFormat::TexturePacker | JsonFormat::Aseprite => Vec::new(),
        })
    };
    let (per_page, sheet_data) =
        rayon::join(|| pngs.par_iter().enumerate().map(page_json).collect::<Result<Vec<_>>>(), whole_sheet);
    let mut files: Vec<(PathBuf, Vec<u8>)> = per_page?.into_iter().flatten().collect();
    // In the order `sheet_data_files` and then `job_files` name them.
    let paths = format.sheet_data_files(png).into_iter().chain(job_files).map(|(path, _)| path);
    files.extend(paths.zip(sheet_data?));
    Ok(files)
}

/// Unity's clip of every tag of `atlas`, then its points' JSON when the frames have points:
/// the contents of `files` ([`JsonFormat::job_files`]), in their order.
fn unity_clips(
    atlas: &Atlas,
    ids: &unity::Ids,
    files: &[(PathBuf, crate::output::OutputFormat)],
    job_scale: Option<f32>,
) -> Result<Vec<Vec<u8>>> {
    let mut contents: Vec<Vec<u8>> = atlas
        .tags
        .iter()
        .zip(files)
        .map(|(tag, (path, _))| unity::to_anim(atlas, tag, &file_stem(path), ids).into_bytes())
        .collect();
    if !atlas.points.is_empty() {
        let json = unity::points_json(atlas, job_scale).map_err(|e| Error::encode("encoding the sheet's points", e))?;
        contents.push(json);
    }
    Ok(contents)
}

/// `value` as pretty-printed JSON.
fn pretty(value: &impl serde::Serialize) -> Result<Vec<u8>> {
    serde_json::to_vec_pretty(value).map_err(|e| Error::encode("encoding the sheet JSON", e))
}

/// Refuses a layout of `pages` pages that `format` cannot describe: Aseprite's JSON describes
/// one image. Checked before a sheet's pages are written.
///
/// # Errors
/// [`Error::BadOption`] `json_format`.
pub fn check_pages(format: JsonFormat, pages: usize) -> Result<()> {
    if pages > 1 && format == JsonFormat::Aseprite {
        let expected = format!(
            "describes one image, and this sheet needs {pages} pages within `max_size`: raise `max_size`, \
             pack `tight`, or use texturepacker or phaser (one JSON per page) or phaser-multiatlas"
        );
        return Err(Error::bad_option("json_format", "aseprite", expected));
    }
    Ok(())
}

/// The PNG of page `index` of a sheet of `pages` pages written as `png`: `png` itself when
/// there is one page (what TexturePacker writes for a single page), else `NAME-index.EXT`
/// beside it (`walk.png` → `walk-0.png`, `walk-1.png`, ...).
pub fn page_path(png: &Path, index: usize, pages: usize) -> PathBuf {
    if pages <= 1 {
        return png.to_path_buf();
    }
    let mut name = png.file_stem().unwrap_or_default().to_os_string();
    name.push(format!("-{index}"));
    if let Some(ext) = png.extension() {
        name.push(".");
        name.push(ext);
    }
    png.with_file_name(name)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::bake::Placement;

    fn placement(animation: &str, duration: f32, looping: bool) -> Placement {
        let (x, y, w, h, source_x, source_y) = (0, 0, 4, 4, 0, 0);
        Placement {
            name: String::new(),
            animation: animation.into(),
            key: (0, 0, 0),
            flipped: false,
            x,
            y,
            w,
            h,
            source_x,
            source_y,
            pivot: (0.5, 1.0),
            duration,
            looping,
            points: Vec::new(),
        }
    }

    fn atlas<'a>(pages: &'a [Page<'a>], names: &str) -> Result<Atlas<'a>> {
        Atlas::new("s", pages, (4, 4), &FrameNames::parse(names).unwrap())
    }

    #[test]
    fn tags_are_runs_timed_by_their_first_frame_and_each_frame_keeps_its_time() {
        let placements = [
            placement("a->b_0", 0.25, false),
            placement("a->b_0", 0.25, false),
            placement("a->b_0", 0.125, false),
            placement("b_0", 0.125, true),
        ];
        let pages = [Page { image: "s.png", size: (16, 4), placements: &placements, normal: None }];
        let atlas = atlas(&pages, "{tag}_{tagframe}").unwrap();
        let names: Vec<&str> = atlas.frames.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["a->b_0_0", "a->b_0_1", "a->b_0_2", "b_0_0"]);
        let tag = |name: &str, frames, looping| Tag { name: name.into(), frames, looping, flipped: false };
        assert_eq!(atlas.tags, [tag("a->b_0", 0..3, false), tag("b_0", 3..4, true)]);
        // The rate plays each tag for its length: 3 frames in 0.625 s.
        assert_eq!((atlas.fps(&atlas.tags[0]), atlas.fps(&atlas.tags[1])), (4.8, 8.0));
        // Godot 4: the rate, and each frame's time relative to it; Godot 3 has only the rate.
        let tres = godot::to_tres(&atlas, godot::Version::Godot4);
        assert_eq!(tres.matches("\"duration\": 1.2,").count(), 2, "{tres}");
        assert_eq!(tres.matches("\"duration\": 0.6,").count(), 1, "{tres}");
        assert_eq!(tres.matches("\"duration\": 1.0,").count(), 1, "{tres}");
        assert!(tres.contains("\"loop\": false,\n\"name\": &\"a->b_0\",\n\"speed\": 4.8\n}"), "{tres}");
        // Phaser: each frame's own milliseconds; the transition plays once.
        let anims = phaser::to_json(&atlas, phaser::Keys::Pages);
        let durations: Vec<f64> =
            anims["anims"][0]["frames"].as_array().unwrap().iter().map(|f| f["duration"].as_f64().unwrap()).collect();
        assert_eq!(durations, [250.0, 250.0, 125.0]);
        assert_eq!((anims["anims"][0]["repeat"].clone(), anims["anims"][1]["repeat"].clone()), (json!(0), json!(-1)));
        // Aseprite: a tag that plays once repeats once.
        let aseprite = aseprite::to_json(&atlas);
        assert_eq!(aseprite.meta["frameTags"][0]["repeat"], "1");
        assert!(aseprite.meta["frameTags"][1].get("repeat").is_none());
    }

    #[test]
    fn a_multi_atlas_lists_each_page_as_a_texture_and_its_animations_use_the_sheets_key() {
        let at = |animation: &str, cell| Placement { key: (0, 0, cell), ..placement(animation, 0.1, true) };
        let (on_first, on_second) = ([at("a", 0), at("a", 1)], [at("b", 2)]);
        let pages = [
            Page { image: "s-0.png", size: (8, 4), placements: &on_first, normal: Some("s-0_n.png") },
            Page { image: "s-1.png", size: (4, 4), placements: &on_second, normal: Some("s-1_n.png") },
        ];
        let atlas = atlas(&pages, "{tag}_{tagframe}").unwrap();
        let json = serde_json::to_value(multiatlas::to_json(&atlas)).unwrap();
        let textures = json["textures"].as_array().unwrap();
        let listed = |t: &serde_json::Value| -> Vec<String> {
            t["frames"].as_array().unwrap().iter().map(|f| f["filename"].as_str().unwrap().to_string()).collect()
        };
        assert_eq!(textures.len(), 2);
        // TexturePacker's fields, in its order.
        let fields: Vec<&String> = textures[0].as_object().unwrap().keys().collect();
        assert_eq!(fields, ["image", "format", "size", "scale", "normalMap", "frames"]);
        assert_eq!((textures[0]["format"].clone(), textures[0]["scale"].clone()), (json!("RGBA8888"), json!(1)));
        assert_eq!((textures[0]["image"].clone(), textures[1]["image"].clone()), (json!("s-0.png"), json!("s-1.png")));
        assert_eq!(
            (listed(&textures[0]), listed(&textures[1])),
            (vec!["a_0".into(), "a_1".into()], vec!["b_0".into()])
        );
        assert_eq!(textures[1]["size"], json!({"w": 4, "h": 4}));
        assert_eq!(textures[1]["normalMap"], "s-1_n.png");
        assert_eq!(textures[0]["frames"][1]["frame"], json!({"x": 0, "y": 0, "w": 4, "h": 4}));
        // Beside it every frame is under the sheet's key; beside per-page atlases, its page's.
        let keys = |keys| -> Vec<serde_json::Value> {
            let anims = phaser::to_json(&atlas, keys);
            anims["anims"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|a| a["frames"].as_array().unwrap().clone())
                .map(|f| f["key"].clone())
                .collect()
        };
        assert_eq!(keys(phaser::Keys::Sheet), [json!("s"), json!("s"), json!("s")]);
        assert_eq!(keys(phaser::Keys::Pages), [json!("s-0"), json!("s-0"), json!("s-1")]);
    }

    #[test]
    fn frames_are_written_with_texturepackers_fields_in_its_order_as_a_value_tree_would_be() {
        let trimmed =
            Placement { key: (0, 0, 1), w: 3, h: 2, source_x: 1, source_y: 2, ..placement("walk_S", 0.1, true) };
        let placements = [placement("walk_S", 0.1, true), trimmed];
        let pages = [Page { image: "s.png", size: (8, 4), placements: &placements, normal: None }];
        let atlas = atlas(&pages, "{tag}_{tagframe}").unwrap();
        let fields = ["frame", "rotated", "trimmed", "spriteSourceSize", "sourceSize", "pivot", "anchor", "duration"];
        for (json, frame, named) in [
            (texturepacker::to_json(&atlas, 0), "/frames/walk_S_1", false),
            (aseprite::to_json(&atlas), "/frames/1", true),
        ] {
            let text = pretty(&json).unwrap();
            // The same text as the value tree of the same JSON (what every frame once was).
            let tree = serde_json::to_value(&json).unwrap();
            assert_eq!(String::from_utf8(text).unwrap(), serde_json::to_string_pretty(&tree).unwrap());
            let object = tree.pointer(frame).unwrap().as_object().unwrap();
            let keys: Vec<&str> = object.keys().map(String::as_str).collect();
            let expected: Vec<&str> = fields.iter().copied().chain(named.then_some("filename")).collect();
            assert_eq!(keys, expected);
            assert_eq!(object["trimmed"], json!(true));
            assert_eq!(object["spriteSourceSize"], json!({"x": 1, "y": 2, "w": 3, "h": 2}));
            assert_eq!(object["pivot"], json!({"x": 0.5, "y": 1.0}));
            assert_eq!(object["duration"], json!(100));
        }
    }

    #[test]
    fn names_and_tags_that_collide_are_refused() {
        let twice = [placement("a", 0.1, true), placement("b", 0.1, true), placement("a", 0.1, true)];
        let pages = [Page { image: "s.png", size: (12, 4), placements: &twice, normal: None }];
        let e = atlas(&pages, "{frame}").unwrap_err().to_string();
        assert!(e.starts_with("two animations of the sheet are named 'a'"), "{e}");
        // a_1's frame 10 and a_11's frame 0 are both `a_110` without a separator.
        let run: Vec<Placement> =
            (0..11).map(|_| placement("a_1", 0.1, true)).chain([placement("a_11", 0.1, true)]).collect();
        let pages = [Page { image: "s.png", size: (48, 4), placements: &run, normal: None }];
        assert!(atlas(&pages, "{tag}_{tagframe}").is_ok());
        let e = atlas(&pages, "{tag}{tagframe}").unwrap_err().to_string();
        assert!(e.starts_with("`filename_format` = \"{tag}{tagframe}\": names two frames 'a_110'"), "{e}");
    }
}
