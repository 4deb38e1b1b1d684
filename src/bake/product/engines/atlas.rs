//! What every engine writer works from: a sheet's pages with every frame named and grouped
//! into tags.

use std::collections::HashSet;
use std::ops::Range;
use std::path::Path;

use crate::bake::Placement;
use crate::error::{Error, Result};
use crate::sprite::{FrameFacts, FrameNames};

/// One image of a sheet, as the data files name it.
#[derive(Debug, Clone, Copy)]
pub struct Page<'a> {
    /// The image's file name, as the data refers to it (beside the data files).
    pub image: &'a str,
    /// Its size in pixels.
    pub size: (u32, u32),
    /// Its normal map's file name (`--maps normal`), which Godot 4's resource pairs with it.
    pub normal: Option<&'a str>,
    /// The frames on it, in cell order.
    pub placements: &'a [Placement],
}

/// A named frame of an [`Atlas`].
#[derive(Debug, Clone)]
pub struct Frame<'a> {
    /// Index of its page in [`Atlas::pages`].
    pub page: usize,
    /// Where it is.
    pub placement: &'a Placement,
    /// Its name ([`FrameNames`]).
    pub name: String,
    /// Its display time in whole milliseconds, as Aseprite and TexturePacker write it: rounded
    /// where it ends in its tag, so a tag's frames add up to the tag's length rounded (21
    /// frames of 33.73 ms are 34, 34, 33, ... = 708 ms, not 21 × 34 = 714).
    pub duration_ms: u32,
}

/// A tag: an animation (clip and direction), a run of consecutive frames.
#[derive(Debug, Clone, PartialEq)]
pub struct Tag {
    /// Its name (`walk_S`).
    pub name: String,
    /// Its frames, indices into [`Atlas::frames`].
    pub frames: Range<usize>,
    /// Whether it loops (clips) or plays once (transitions).
    pub looping: bool,
    /// Whether its frames are another animation's drawn flipped (a mirrored direction).
    pub flipped: bool,
}

/// The pages of a sheet with every frame named and grouped into tags.
#[derive(Debug, Clone)]
pub struct Atlas<'a> {
    /// The sheet's title: its image's file name without extension; Phaser's texture key.
    pub title: &'a str,
    /// The pages, in order.
    pub pages: &'a [Page<'a>],
    /// The untrimmed frame size.
    pub frame_size: (u32, u32),
    /// Every frame of every page, in order: a frame's index is its number (Aseprite's).
    pub frames: Vec<Frame<'a>>,
    /// The tags, in order.
    pub tags: Vec<Tag>,
    /// The names of the points every frame records ([`Placement::points`]), in their order.
    pub points: &'a [String],
}

impl<'a> Atlas<'a> {
    /// Names and tags the frames of `pages`.
    ///
    /// # Errors
    /// [`Error::BadOption`] (`filename_format`) when two frames get the same name;
    /// [`Error::Invalid`] when two runs of frames have the same animation name (a transition
    /// given twice).
    pub fn new(title: &'a str, pages: &'a [Page<'a>], frame_size: (u32, u32), names: &FrameNames) -> Result<Atlas<'a>> {
        // In cell order (clip, direction, frame), whichever page each frame went to: tags are
        // runs of consecutive cells even when tight packing scatters them over pages.
        let mut placed: Vec<(usize, &Placement)> =
            pages.iter().enumerate().flat_map(|(i, p)| p.placements.iter().map(move |pl| (i, pl))).collect();
        placed.sort_by_key(|&(_, p)| p.key);
        let mut tags: Vec<Tag> = Vec::new();
        let mut frames = Vec::new();
        let mut clock = MsClock::default();
        for (index, (page, placement)) in placed.into_iter().enumerate() {
            match tags.last_mut() {
                Some(tag) if tag.name == placement.animation => tag.frames.end = index + 1,
                _ => {
                    clock = MsClock::default();
                    if tags.iter().any(|t| t.name == placement.animation) {
                        return Err(Error::Invalid(format!(
                            "two animations of the sheet are named '{}' (is a transition given twice?)",
                            placement.animation
                        )));
                    }
                    tags.push(Tag {
                        name: placement.animation.clone(),
                        frames: index..index + 1,
                        looping: placement.looping,
                        flipped: placement.flipped,
                    });
                }
            }
            let tag_start = tags.last().map_or(0, |t| t.frames.start);
            let duration_ms = clock.next(placement.duration);
            let facts = FrameFacts {
                title,
                tag: &placement.animation,
                frame: index,
                tag_frame: index - tag_start,
                duration_ms,
            };
            frames.push(Frame { page, placement, name: names.name(&facts), duration_ms });
        }
        let mut seen = HashSet::new();
        if let Some(twice) = frames.iter().find(|f| !seen.insert(f.name.as_str())) {
            let expected = format!(
                "names two frames '{}': a frame name must be unique (put a separator between {{tag}} and \
                 {{tagframe}}, or use {{frame}})",
                twice.name
            );
            return Err(Error::bad_option("filename_format", format!("\"{}\"", names.as_str()), expected));
        }
        Ok(Atlas { title, pages, frame_size, frames, tags, points: &[] })
    }

    /// The texture key a frame is on in Phaser: its page image's file name without extension
    /// (each page is loaded as an atlas of its own; one page's key is the title).
    pub fn texture_key(&self, frame: &Frame) -> &str {
        let image = self.pages.get(frame.page).map_or(self.title, |p| p.image);
        image.rsplit_once('.').map_or(image, |(stem, _)| stem)
    }

    /// The frames of one tag.
    pub fn tag_frames(&self, tag: &Tag) -> &[Frame<'a>] {
        self.frames.get(tag.frames.clone()).unwrap_or_default()
    }

    /// A tag's length in seconds: its frames' durations added up.
    pub fn seconds(&self, tag: &Tag) -> f64 {
        self.tag_frames(tag).iter().map(|f| f64::from(f.placement.duration)).sum()
    }

    /// A tag's rate in frames per second: its frames over its length (so an engine that keeps
    /// only a rate plays the tag for its length), to a thousandth of a frame per second, so
    /// 30 fps reads `30.0` and not the `29.999998` of a reciprocal in 32-bit floats.
    pub fn fps(&self, tag: &Tag) -> f64 {
        rate(tag.frames.len(), self.seconds(tag))
    }
}

/// The rate of `frames` frames lasting `seconds` in all, to a thousandth (1.0 for no time).
pub fn rate(frames: usize, seconds: f64) -> f64 {
    if seconds > 0.0 && seconds.is_finite() { thousandths(frames as f64 / seconds) } else { 1.0 }
}

/// Whole milliseconds of the consecutive frames of one animation, each rounded where it ends,
/// so they add up to the animation's length rounded.
#[derive(Debug, Clone, Copy, Default)]
pub struct MsClock {
    /// Seconds from the animation's start to the next frame's.
    seconds: f64,
}

impl MsClock {
    /// The whole milliseconds of the next frame, lasting `duration` seconds.
    pub fn next(&mut self, duration: f32) -> u32 {
        let start = whole_ms(self.seconds);
        self.seconds += f64::from(duration);
        u32::try_from(whole_ms(self.seconds).saturating_sub(start)).unwrap_or(u32::MAX)
    }
}

/// `x` rounded to three decimals.
pub(super) fn thousandths(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// Whole milliseconds in `seconds`, rounded.
fn whole_ms(seconds: f64) -> i64 {
    (seconds * 1000.0).round() as i64
}

/// A path's file name, as a data file names its neighbours.
pub fn file_name(path: &Path) -> String {
    path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}

/// A path's file name without its extension: a sheet's title (Phaser's texture key, the
/// Godot node's name, the prefix of GameMaker's sprites).
pub(crate) fn file_stem(path: &Path) -> String {
    path.file_stem().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}
