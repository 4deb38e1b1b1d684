//! Godot's `SpriteFrames` resource in its text form (`.tres`), as the editor saves it, for
//! Godot 4 (`format=3`) and Godot 3 (`format=2`): one `ext_resource` texture per page, one
//! `AtlasTexture` sub-resource per frame, and one animation per tag; and a scene (`.tscn`) of
//! a sprite node playing it with the pivot at the node's origin ([`to_tscn`]).
//!
//! * The sheet is named by a path relative to the `.tres` (`walk.png`): Godot's text loader
//!   resolves a relative path against the resource's own folder (Godot 3 and 4), so the pair
//!   works wherever it is put in a project, where `res://walk.png` would tie it to the root.
//! * `region` is the frame's rectangle on its page; a trimmed frame adds `margin` — its offset
//!   in the untrimmed frame and the size trimmed away — so every frame keeps the untrimmed
//!   size and its place in it (Godot draws an AtlasTexture at `margin.position` and sizes it
//!   `region.size + margin.size`), and the pivot stays put. `filter_clip` keeps filtering from
//!   reading the neighbours' pixels.
//! * `resource_name` is the frame's name (the editor shows it).
//! * With a normal map (`--maps normal`), Godot 4's resource pairs each page with its map in a
//!   `CanvasTexture` (`diffuse_texture`, `normal_texture`) and the frames' `AtlasTexture`s cut
//!   from that, so 2D lights use the map with no setup (TexturePacker's Godot importer does the
//!   same; an `AtlasTexture` *inside* a `CanvasTexture` loses its region in Godot 4,
//!   godot#67936). Godot 3's `SpriteFrames` has no normal maps: set `normal_map` on the node.
//! * Timing: `speed` is the tag's rate in frames per second, its frames over its length (so
//!   Godot 3, which has only the rate, plays a tag for its length); Godot 4 adds each frame's
//!   `duration` relative to it (1.0 unless frames differ). `loop` is false for transitions and
//!   clips that play once.
//!
//! * With `--points`, each frame's `AtlasTexture` carries them as metadata `points`: a
//!   dictionary of the point names to `Vector2`s, pixels of the untrimmed frame
//!   (`frames.get_frame(animation, i).get_meta("points")["hand_R"]`); Godot 4 writes it as
//!   `metadata/points`, Godot 3 inside `__meta__`.
//!
//! Strings are written with Godot's escapes (`\"`, `\\`, `\n` ...): clip names come from model
//! files and may hold anything.

use std::fmt::Write as _;

use super::Atlas;
use super::atlas::thousandths;
use super::escape::quoted;
use super::texturepacker::hundredths;

/// Which Godot reads the resource.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Version {
    /// Godot 3: `format=2`, `Texture`, integer ids, animations list sub-resources.
    Godot3,
    /// Godot 4: `format=3`, `Texture2D`, string ids, frames with durations, `&"names"`.
    Godot4,
}

/// The resource text.
pub(super) fn to_tres(atlas: &Atlas, version: Version) -> String {
    let v4 = version == Version::Godot4;
    let mut out = String::new();
    // Each page's normal map (Godot 4), loaded after the pages, and its CanvasTexture.
    let normals: Vec<&str> = atlas.pages.iter().filter_map(|p| p.normal).filter(|_| v4).collect();
    let canvas = normals.len() == atlas.pages.len() && !normals.is_empty();
    // `load_steps` counts the resources the file loads: external, internal, and itself.
    let extra = if canvas { 2 * normals.len() } else { 0 };
    let steps = atlas.pages.len() + atlas.frames.len() + extra + 1;
    let format = if v4 { 3 } else { 2 };
    // Writing to a String cannot fail.
    let _ = writeln!(out, "[gd_resource type=\"SpriteFrames\" load_steps={steps} format={format}]\n");
    for (i, page) in atlas.pages.iter().enumerate() {
        let (path, id) = (quoted(page.image), i + 1);
        let _ = match version {
            Version::Godot4 => writeln!(out, "[ext_resource type=\"Texture2D\" path={path} id=\"{id}\"]"),
            Version::Godot3 => writeln!(out, "[ext_resource path={path} type=\"Texture\" id={id}]"),
        };
    }
    let pages = atlas.pages.len();
    for (i, normal) in normals.iter().enumerate().filter(|_| canvas) {
        let _ = writeln!(out, "[ext_resource type=\"Texture2D\" path={} id=\"{}\"]", quoted(normal), pages + i + 1);
    }
    for i in (0..pages).filter(|_| canvas) {
        let _ = writeln!(out);
        let _ = writeln!(out, "[sub_resource type=\"CanvasTexture\" id=\"CanvasTexture_{}\"]", i + 1);
        let _ = writeln!(out, "diffuse_texture = ExtResource(\"{}\")", i + 1);
        let _ = writeln!(out, "normal_texture = ExtResource(\"{}\")", pages + i + 1);
    }
    let (fw, fh) = atlas.frame_size;
    for (i, frame) in atlas.frames.iter().enumerate() {
        let p = frame.placement;
        let _ = writeln!(out);
        let _ = writeln!(out, "[sub_resource type=\"AtlasTexture\" id={}]", sub_id(version, i));
        let _ = writeln!(out, "resource_name = {}", quoted(&frame.name));
        let texture = match canvas {
            true => format!("SubResource(\"CanvasTexture_{}\")", frame.page + 1),
            false => call(version, "ExtResource", &ext_id(version, frame.page)),
        };
        let _ = writeln!(out, "atlas = {texture}");
        let _ = writeln!(out, "region = {}", rect2(version, [p.x, p.y, p.w, p.h]));
        if (p.w, p.h) != (fw, fh) {
            let margin = [p.source_x, p.source_y, fw.saturating_sub(p.w), fh.saturating_sub(p.h)];
            let _ = writeln!(out, "margin = {}", rect2(version, margin));
        }
        let _ = writeln!(out, "filter_clip = true");
        if !atlas.points.is_empty() {
            let _ = writeln!(out, "{}", points_metadata(version, atlas.points, &p.points));
        }
    }
    let _ = writeln!(out, "\n[resource]");
    let animations: Vec<String> = atlas
        .tags
        .iter()
        .map(|tag| {
            let fps = atlas.fps(tag);
            let frames: Vec<String> = tag
                .frames
                .clone()
                .filter_map(|i| atlas.frames.get(i).map(|f| (i, f)))
                .map(|(i, f)| {
                    let texture = call(version, "SubResource", &sub_id(version, i));
                    match version {
                        Version::Godot4 => {
                            // Relative to the rate: 1.0 for a frame of 1/speed seconds.
                            let duration = real(thousandths(f64::from(f.placement.duration) * fps));
                            format!("{{\n\"duration\": {duration},\n\"texture\": {texture}\n}}")
                        }
                        Version::Godot3 => texture,
                    }
                })
                .collect();
            let (name, frames) = match version {
                Version::Godot4 => (format!("&{}", quoted(&tag.name)), format!("[{}]", frames.join(", "))),
                Version::Godot3 => (quoted(&tag.name), format!("[ {} ]", frames.join(", "))),
            };
            format!(
                "{{\n\"frames\": {frames},\n\"loop\": {},\n\"name\": {name},\n\"speed\": {}\n}}",
                tag.looping,
                real(fps)
            )
        })
        .collect();
    let (open, close) = if v4 { ("[", "]") } else { ("[ ", " ]") };
    let _ = writeln!(out, "animations = {open}{}{close}", animations.join(", "));
    out
}

/// A scene (`.tscn`) of one sprite node playing the resource `tres` (a file name beside the
/// scene), as the editor saves it: an `AnimatedSprite2D` (Godot 4) or `AnimatedSprite`
/// (Godot 3) named after the sheet, not centred, its `offset` minus the frames' `pivot`
/// (pixels of the untrimmed frame), so the pivot — the ground under the model — is at the
/// node's origin and placing the node places the feet. It starts playing the first animation.
///
/// With mirrored directions (`--mirror`) the node has a script that draws their animations
/// flipped about the pivot: `flip_h` (which flips the frame over its `offset` corner) and the
/// offset's `x` turned over, so the pivot stays at the origin.
pub(super) fn to_tscn(atlas: &Atlas, tres: &str, pivot: (i64, i64), version: Version) -> String {
    let first = quoted(atlas.tags.first().map_or("", |t| t.name.as_str()));
    let (node, tres) = (quoted(&node_name(atlas.title)), quoted(tres));
    let frames = call(version, "ExtResource", &ext_id(version, 0));
    let offset = call(version, "Vector2", &format!("{}, {}", -pivot.0, -pivot.1));
    let flipped: Vec<String> = atlas.tags.iter().filter(|t| t.flipped).map(|t| quoted(&t.name)).collect();
    let steps = if flipped.is_empty() { 2 } else { 3 };
    let (class, script_id) = match version {
        Version::Godot4 => ("AnimatedSprite2D", "\"GDScript_1\""),
        Version::Godot3 => ("AnimatedSprite", "1"),
    };
    let script = match flipped.is_empty() {
        true => String::new(),
        false => {
            let source = flip_script(class, &flipped);
            format!("\n[sub_resource type=\"GDScript\" id={script_id}]\nscript/source = {}\n", quoted(&source))
        }
    };
    // Each editor's own spelling: header, resource line, node type, and how it plays.
    let (head, playing) = match version {
        Version::Godot4 => (
            format!(
                "[gd_scene load_steps={steps} format=3]\n\n[ext_resource type=\"SpriteFrames\" path={tres} id=\"1\"]\n\
                 {script}\n[node name={node} type=\"{class}\"]\nsprite_frames = {frames}\nanimation = &{first}"
            ),
            format!("autoplay = {first}"),
        ),
        Version::Godot3 => (
            format!(
                "[gd_scene load_steps={steps} format=2]\n\n[ext_resource path={tres} type=\"SpriteFrames\" id=1]\n\
                 {script}\n[node name={node} type=\"{class}\"]\nframes = {frames}\nanimation = {first}"
            ),
            "playing = true".to_string(),
        ),
    };
    let mut scene = format!("{head}\n{playing}\ncentered = false\noffset = {offset}\n");
    if !flipped.is_empty() {
        let _ = writeln!(scene, "script = {}", call(version, "SubResource", script_id));
    }
    scene
}

/// The GDScript of a sprite node of `class` that draws the animations `flipped` (quoted
/// names) flipped about its origin; the same text in Godot 3 and 4.
fn flip_script(class: &str, flipped: &[String]) -> String {
    format!(
        "extends {class}\n\n\
         # Animations drawn as another's frames flipped left to right (spritebake --mirror),\n\
         # about the pivot at the node's origin.\n\
         const FLIPPED = [{}]\n\n\
         func _process(_delta):\n\
         \tvar flipped = String(animation) in FLIPPED\n\
         \tif flipped != flip_h:\n\
         \t\tflip_h = flipped\n\
         \t\toffset.x = -offset.x\n",
        flipped.join(", ")
    )
}

/// A frame's points as its `AtlasTexture`'s metadata `points`.
fn points_metadata(version: Version, names: &[String], at: &[(f32, f32)]) -> String {
    let entries: Vec<String> = names
        .iter()
        .zip(at)
        .map(|(name, &(x, y))| {
            let [x, y] = [x, y].map(|v| real(hundredths(v)));
            format!("{}: {}", quoted(name), call(version, "Vector2", &format!("{x}, {y}")))
        })
        .collect();
    let points = format!("{{\n{}\n}}", entries.join(",\n"));
    match version {
        Version::Godot4 => format!("metadata/points = {points}"),
        Version::Godot3 => format!("__meta__ = {{\n\"points\": {points}\n}}"),
    }
}

/// A node name Godot accepts: the characters it refuses in one (`. : @ / " %`) become `_`.
fn node_name(title: &str) -> String {
    let name: String = title.chars().map(|c| if ".:@/\"%".contains(c) { '_' } else { c }).collect();
    if name.is_empty() { "Sprite".into() } else { name }
}

/// A sub-resource's id: `"AtlasTexture_1"` (Godot 4) or `1` (Godot 3).
fn sub_id(version: Version, index: usize) -> String {
    match version {
        Version::Godot4 => format!("\"AtlasTexture_{}\"", index + 1),
        Version::Godot3 => (index + 1).to_string(),
    }
}

/// A page's texture id: `"1"` (Godot 4) or `1` (Godot 3).
fn ext_id(version: Version, page: usize) -> String {
    match version {
        Version::Godot4 => format!("\"{}\"", page + 1),
        Version::Godot3 => (page + 1).to_string(),
    }
}

/// `Name("id")` (Godot 4) or `Name( id )` (Godot 3), as each editor writes calls.
fn call(version: Version, name: &str, args: &str) -> String {
    match version {
        Version::Godot4 => format!("{name}({args})"),
        Version::Godot3 => format!("{name}( {args} )"),
    }
}

fn rect2(version: Version, [x, y, w, h]: [u32; 4]) -> String {
    call(version, "Rect2", &format!("{x}, {y}, {w}, {h}"))
}

/// A float as Godot writes one: always with a fraction (`16.0`, `0.5`).
fn real(x: f64) -> String {
    if x.is_finite() { format!("{x:?}") } else { "1.0".into() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_and_numbers_are_written_as_godot_reads_them() {
        assert_eq!(quoted("a\"b\\c\nd\u{1}é"), "\"a\\\"b\\\\c\\nd\\u0001é\"");
        assert_eq!((real(16.0), real(0.5), real(f64::NAN)), ("16.0".into(), "0.5".into(), "1.0".into()));
        assert_eq!(rect2(Version::Godot3, [1, 2, 3, 4]), "Rect2( 1, 2, 3, 4 )");
        assert_eq!(rect2(Version::Godot4, [1, 2, 3, 4]), "Rect2(1, 2, 3, 4)");
    }
}
