//! GameMaker: a strip image per animation and a script that sets the sprites up.
//!
//! * **Strips.** GameMaker's IDE imports a PNG whose name ends `_stripN` as a sprite of `N`
//!   frames laid out left to right, each the image's width over `N`, and names the sprite
//!   without the suffix (the manual's "Strip Images"; `sprite_add` reads the same at run time).
//!   Each animation (tag) of a sheet is written so beside the sheet's image: `walk.png`'s
//!   `walk_S` is `spr_walk_walk_S_strip16.png`, its frames untrimmed (a trimmed frame is put
//!   back at its place in the frame, so every frame keeps the pivot where the sheet's data has
//!   it), no gaps. A sprite's name is letters, digits and `_` (GameMaker's asset names): other
//!   characters of the sheet's or the tag's name become `_`.
//! * **The script** (`walk.gml`, GameMaker 2.3 and later): `spritebake_walk()` gives each
//!   imported sprite its origin (the pivot: the ground under the model) and its speed in
//!   frames per second, and returns every animation by its tag as `{sprite, xscale, loop}`, so
//!   a game plays `walk_S` as `sprite_index = a.sprite; image_xscale = a.xscale`. A mirrored
//!   direction (`--mirror`) has no strip of its own: its entry is its source's sprite with
//!   `xscale` -1, which GameMaker draws flipped about the origin. GameMaker sprites loop;
//!   `loop` says which animations a game should stop on their last frame (Animation End).
//!
//! GameMaker has one origin a sprite: each sprite takes its first frame's pivot, which is every
//! frame's with shared framing (`--fit per-frame` moves it from frame to frame).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::atlas::{Atlas, Frame, Tag, file_name, file_stem};
use super::escape::escaped;
use crate::bake::look::post::Blit;
use crate::bake::{Placement, SheetTag};
use crate::error::{Error, Result};
use crate::output::encode_png;
use crate::raster::Image;
use crate::sprite::{gamemaker_sprite, gml_identifier};

/// The strip of animation `tag`, `frames` frames long, of the sheet written as `png`: beside
/// it, `SPRITE_stripN.png`.
pub(super) fn strip_path(png: &Path, tag: &str, frames: usize) -> PathBuf {
    png.with_file_name(format!("{}_strip{frames}.png", gamemaker_sprite(&file_stem(png), tag)))
}

/// The animations of `tags` that get a strip, with their frame counts: those with frames, not
/// mirrored.
pub fn strip_tags(tags: &[SheetTag]) -> Vec<(String, usize)> {
    tags.iter().filter(|t| !t.flipped && t.frames > 0).map(|t| (t.name.clone(), t.frames)).collect()
}

/// The strips of the sheet written as `png` for its animations `tags` (each with its frame
/// count: [`strip_tags`]), in order.
///
/// # Errors
/// Two animations whose sprite names are the same once sanitised (`a.b` and `a_b`).
pub fn strip_paths(png: &Path, tags: &[(String, usize)]) -> Result<Vec<PathBuf>> {
    let mut seen: HashMap<String, &str> = HashMap::new();
    let mut paths = Vec::with_capacity(tags.len());
    for (tag, frames) in tags {
        let sprite = gamemaker_sprite(&file_stem(png), tag);
        if let Some(other) = seen.insert(sprite.clone(), tag) {
            let expected = format!(
                "names GameMaker sprites by letters, digits and '_', and animations '{other}' and '{tag}' would \
                 both be the sprite {sprite}: rename a clip or choose --direction-names"
            );
            return Err(Error::bad_option("json_format", "gamemaker", expected));
        }
        paths.push(strip_path(png, tag, *frames));
    }
    Ok(paths)
}

/// A strip being drawn: its image and how many of its frames are on it.
struct Strip {
    image: Image,
    drawn: usize,
}

/// Draws each animation's strip from the sheet's finished pages as they come, page after page
/// (an animation may span pages), and hands over each strip, encoded, once its last frame is
/// on it: at most the strips of the animations the pages so far hold part of are held.
pub struct Strips {
    png: PathBuf,
    frame: (u32, u32),
    /// Each animation's frame count (mirrored ones have no strip).
    frames: HashMap<String, usize>,
    drawing: HashMap<String, Strip>,
}

impl Strips {
    /// The strips of the sheet written as `png` of frames of `frame` size, for its animations
    /// `tags` with their frame counts.
    pub fn new(png: &Path, frame: (u32, u32), tags: &[(String, usize)]) -> Strips {
        let frames = tags.iter().cloned().collect();
        Strips { png: png.to_path_buf(), frame, frames, drawing: HashMap::new() }
    }

    /// The bytes the strips hold at most: every one at once (tight packing may leave part of
    /// each on every page until the last).
    pub fn bytes(&self) -> u64 {
        let (w, h) = self.frame;
        let frames: u64 = self.frames.values().map(|&n| n as u64).sum();
        frames.saturating_mul(u64::from(w) * u64::from(h) * 4)
    }

    /// Draws the frames `placements` of a finished page `image` into their strips and returns
    /// the strips now complete, encoded, in the order their last frames came.
    ///
    /// # Errors
    /// A strip too large to allocate; encoding fails.
    pub fn add_page(&mut self, image: &Image, placements: &[Placement]) -> Result<Vec<(PathBuf, Vec<u8>)>> {
        let (fw, fh) = self.frame;
        let mut done = Vec::new();
        for p in placements.iter().filter(|p| !p.flipped) {
            let Some(&count) = self.frames.get(&p.animation) else { continue };
            let strip = match self.drawing.get_mut(&p.animation) {
                Some(strip) => strip,
                None => {
                    let width = fw.checked_mul(count as u32).filter(|_| count <= u32::MAX as usize);
                    let width = width.ok_or_else(|| Error::Size(format!("a strip of {count} frames")))?;
                    let image = Image::new(width, fh)?;
                    self.drawing.entry(p.animation.clone()).or_insert(Strip { image, drawn: 0 })
                }
            };
            // The kept rectangle back at its place in its frame.
            let at = (p.key.2 as u32 * fw + p.source_x, p.source_y);
            let blit = Blit { src: image, rect: (p.x, p.y, p.w, p.h), at };
            let width = strip.image.width;
            blit.draw_rows(&mut strip.image.rgba, width, 0, 0);
            strip.drawn += 1;
            if strip.drawn == count {
                let strip = self.drawing.remove(&p.animation).map(|s| s.image).unwrap_or_default();
                done.push((strip_path(&self.png, &p.animation, count), encode_png(&strip)?));
            }
        }
        Ok(done)
    }
}

/// The script of the sheet of `atlas` written as `png`: see the module notes.
pub(super) fn to_gml(atlas: &Atlas, png: &Path) -> String {
    let title = file_stem(png);
    let function = gml_identifier(&format!("spritebake_{title}"));
    let (fw, fh) = atlas.frame_size;
    let mut text = format!(
        "/// The sprites of {image} from spritebake: import each {prefix}*_strip*.png beside it into\n\
         /// GameMaker (drag it into the IDE: the sprite is named without \"_stripN\"), add this\n\
         /// script, and call {function}() once before drawing them. It gives each sprite its\n\
         /// origin (the ground under the model) and speed, and returns every animation by name:\n\
         /// var a = {function}()[$ \"{first}\"]; sprite_index = a.sprite; image_xscale = a.xscale;\n\
         /// (`xscale` -1: a mirrored direction, its source drawn flipped; `loop` false: stop on\n\
         /// the last frame). Frames are {fw}x{fh}.\n\
         function {function}() {{\n\
         \tvar animations = {{}};\n\
         \tvar s;\n",
        image = file_name(png),
        prefix = gamemaker_sprite(&title, ""),
        first = escaped(atlas.tags.first().map_or("", |t| t.name.as_str())),
    );
    for tag in &atlas.tags {
        let Some(first) = atlas.tag_frames(tag).first() else { continue };
        let p = first.placement;
        // A mirrored animation is its source's sprite: the same row, its first frame on the
        // same rectangle of the same page.
        let place = |f: &Frame| (f.placement.key.0, f.page, f.placement.x, f.placement.y);
        let shares_first = |t: &&Tag| !t.flipped && atlas.tag_frames(t).first().map(place) == Some(place(first));
        let source = if p.flipped { atlas.tags.iter().find(shares_first) } else { Some(tag) };
        let Some(source) = source else { continue };
        let sprite = gamemaker_sprite(&title, &source.name);
        let origin = ((p.pivot.0 * fw as f32).round() as i64, (p.pivot.1 * fh as f32).round() as i64);
        let _ = writeln!(text, "\ts = asset_get_index(\"{sprite}\");");
        if !tag.flipped {
            let _ = writeln!(
                text,
                "\tif (s != -1) {{ sprite_set_offset(s, {}, {}); sprite_set_speed(s, {}, spritespeed_framespersecond); }}",
                origin.0,
                origin.1,
                gml_number(atlas.fps(tag))
            );
        }
        let xscale = if tag.flipped { -1 } else { 1 };
        let _ = writeln!(
            text,
            "\tanimations[$ \"{}\"] = {{ sprite: s, xscale: {xscale}, loop: {} }};",
            escaped(&tag.name),
            tag.looping
        );
    }
    text.push_str("\treturn animations;\n}\n");
    text
}

/// A number as GML writes one: `16`, `12.5`.
fn gml_number(x: f64) -> String {
    if x.is_finite() { format!("{x}") } else { "1".into() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sprite_names_are_gamemaker_asset_names_and_strips_say_their_frame_count() {
        assert_eq!(gamemaker_sprite("walk", "walk->run_S"), "spr_walk_walk__run_S");
        assert_eq!(gamemaker_sprite("hero v2", "mixamo.com_NE"), "spr_hero_v2_mixamo_com_NE");
        let png = Path::new("out/walk.png");
        assert_eq!(strip_path(png, "walk_S", 16), Path::new("out/spr_walk_walk_S_strip16.png"));
        let tags = [("a.b_S".to_string(), 2), ("a_b_S".to_string(), 3)];
        let err = strip_paths(png, &tags).unwrap_err().to_string();
        assert!(err.contains("'a.b_S' and 'a_b_S'") && err.contains("spr_walk_a_b_S"), "{err}");
        assert_eq!((gml_number(16.0), gml_number(12.5)), ("16".to_string(), "12.5".to_string()));
    }
}
