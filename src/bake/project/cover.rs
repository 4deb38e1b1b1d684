//! The files an entry's output can name, as the state file records them: what a record must
//! hold to be believed, and what an earlier run's record may have a run remove.
//!
//! The state file is untrusted, so a record of an entry's settings as they are now must cover
//! what a bake of it writes: exactly its files for a render, thumbnail or GIF; for a sheet
//! every file of one page or of its pages `NAME-0` up to the last recorded (its page count
//! comes from its model), with the files its format names after the sheet's tags (Unity's
//! clips: at least one, each a name its output can make) and its points' file; for frames at
//! least one frame, each one its pattern can name, with its maps, and the data file. A record
//! that does not is not believed (its entry is rebuilt, with a warning). What cannot be told
//! without loading the model is taken from the record: how many pages a sheet has, which tags
//! it has and which frames a `frames` entry makes. An earlier run's record (of other settings)
//! only ever names files to remove, and only those the entry's output can name now are
//! ([`Names::could_write`]).
//!
//! Everything here compares names as the state file records them (`Project::stored`, handed
//! in, so that this module needs nothing of its parent's). A frame pattern is matched by a
//! linear pass per piece over the name (no backtracking), so no name a state file holds can
//! make it slow.

use std::collections::BTreeSet;
use std::path::Path;

use super::state::Written;
use super::{Entry, Kind};
use crate::bake::JsonFormat;
use crate::bake::look::maps::{MapKind, output_of};
use crate::bake::product::engines::page_path;
use crate::bake::product::frames_data;
use crate::output::is_component_char;

/// Longer names are no file's (`PATH_MAX`), and are never matched.
const MAX_NAME_BYTES: usize = 4096;

/// The files an entry's output can name, as `stored` records a path the project file writes.
pub(super) struct Names<S> {
    stored: S,
    shape: Shape,
    /// The maps written beside each image, in the order they are written.
    maps: Vec<MapKind>,
}

enum Shape {
    /// A render's, a thumbnail's or a GIF's: always the same files.
    Fixed(BTreeSet<String>),
    /// A sheet written as this `output`, its engine data in this format; `points`: its frames
    /// record points (a format may write them in a file of their own).
    Sheet { output: String, format: JsonFormat, points: bool },
    /// Frames: the colour frames' pattern, then each map's, and the data file beside them.
    Frames { colour: Pattern, maps: Vec<Pattern>, data: String },
}

impl<S: Fn(&Path) -> String> Names<S> {
    /// The names `entry`'s output can make, each as `stored` records a path written relative
    /// to the project's folder.
    pub(super) fn of(entry: &Entry, stored: S) -> Names<S> {
        let spec = &entry.spec;
        let maps = [MapKind::Normal, MapKind::Depth].into_iter().filter(|m| spec.look.maps.contains(m)).collect();
        let format = spec.layout.json_format.into();
        let shape = match entry.kind {
            Kind::Sheet => {
                Shape::Sheet { output: entry.output.clone(), format, points: !spec.sprite.points.is_empty() }
            }
            Kind::Frames => {
                let pattern = |text: &str| Pattern::parse(&stored(Path::new(text)));
                let maps = spec.look.maps.iter().map(|&m| pattern(&output_of(&entry.output, m))).collect();
                let data = stored(&frames_data::data_path(&entry.output));
                Shape::Frames { colour: pattern(&entry.output), maps, data }
            }
            _ => {
                let plan = entry.kind.product().fixed_plan(&entry.output, format, &spec.look.maps);
                Shape::Fixed(plan.iter().flat_map(|p| p.outputs()).map(|o| stored(&o.path)).collect())
            }
        };
        Names { stored, shape, maps }
    }

    fn stored(&self, path: &Path) -> String {
        (self.stored)(path)
    }

    /// The files of a sheet of `pages` pages: each page's image, data and maps, then the
    /// sheet's own data (as [`crate::bake::Product::plan`] and the sheet's writer name them).
    fn sheet(&self, output: &str, format: JsonFormat, pages: usize) -> BTreeSet<String> {
        let png = Path::new(output);
        let mut files: BTreeSet<String> = (0..pages).flat_map(|i| self.page(png, format, i, pages)).collect();
        files.extend(format.sheet_data_files(png).iter().map(|(p, _)| self.stored(p)));
        files
    }

    /// The files of page `index` of `pages` of a sheet written as `png`.
    fn page(&self, png: &Path, format: JsonFormat, index: usize, pages: usize) -> Vec<String> {
        let page = page_path(png, index, pages);
        let mut files = vec![self.stored(&page)];
        files.extend(format.page_files(&page).iter().map(|(p, _)| self.stored(p)));
        files.extend(self.maps.iter().map(|&m| self.stored(Path::new(&output_of(&page.to_string_lossy(), m)))));
        files
    }

    /// Whether a bake of the entry can write `name`, whatever its model: what an earlier run's
    /// record may have a run remove.
    pub(super) fn could_write(&self, name: &str) -> bool {
        if name.len() > MAX_NAME_BYTES {
            return false;
        }
        match &self.shape {
            Shape::Fixed(files) => files.contains(name),
            Shape::Sheet { output, format, .. } => {
                let in_page = |i| self.page(Path::new(output), *format, i, 2).iter().any(|f| f == name);
                self.sheet(output, *format, 1).contains(name)
                    || self.page_index(output, name).is_some_and(in_page)
                    || self.job_file(output, *format, name)
            }
            Shape::Frames { colour, maps, data } => {
                name == data || colour.matches(name) || maps.iter().any(|m| m.matches(name))
            }
        }
    }

    /// Whether a sheet written as `output` in `format` can write `name` after one of its tags
    /// (Unity's `walk_walk_S.anim`: any sanitized name between the format's affixes).
    fn tag_file(&self, output: &str, format: JsonFormat, name: &str) -> bool {
        let png = Path::new(output);
        format.tag_file_affixes(png).is_some_and(|(before, after)| {
            let before = self.stored(&png.with_file_name(before));
            Pattern { pieces: vec![Piece::Text(before), Piece::Name, Piece::Text(after.into())] }.matches(name)
        })
    }

    /// Whether `name` is a file a sheet written as `output` in `format` names after its job:
    /// one after a tag, or its points' file.
    fn job_file(&self, output: &str, format: JsonFormat, name: &str) -> bool {
        let points = format.points_file(Path::new(output)).is_some_and(|p| self.stored(&p) == name);
        points || self.tag_file(output, format, name)
    }

    /// The page a file of a sheet written as `output` would belong to by its name
    /// (`walk-12.json`: 12).
    fn page_index(&self, output: &str, name: &str) -> Option<usize> {
        let stem = Path::new(output).file_stem()?.to_string_lossy().into_owned();
        let file = Path::new(name).file_name()?.to_string_lossy().into_owned();
        let digits: String = file.strip_prefix(&format!("{stem}-"))?.chars().take_while(char::is_ascii_digit).collect();
        digits.parse().ok()
    }

    /// Why a record of the entry's present settings that wrote `outputs` cannot be an honest
    /// one (see the module notes), if it cannot.
    pub(super) fn uncovered(&self, outputs: &std::collections::BTreeMap<String, Written>) -> Option<String> {
        let recorded: BTreeSet<&str> = outputs.keys().map(String::as_str).collect();
        if recorded.is_empty() {
            return Some("records no output".into());
        }
        match &self.shape {
            Shape::Fixed(files) => differs(&recorded, files),
            Shape::Sheet { output, format, points } => {
                // Its pages, when it has more than one, are NAME-0, NAME-1... with no gap.
                let page = |i| self.stored(&page_path(Path::new(output), i, 2));
                let pages = (0..recorded.len()).take_while(|&i| recorded.contains(page(i).as_str())).count();
                let mut expected = self.sheet(output, *format, pages.max(1));
                // Files named after its tags (at least one tag: a sheet has frames), whichever
                // its model has, and its points' file.
                let png = Path::new(output);
                let tagged: Vec<&str> =
                    recorded.iter().copied().filter(|f| self.tag_file(output, *format, f)).collect();
                if format.tag_file_affixes(png).is_some() && tagged.is_empty() {
                    return Some("records no animation".into());
                }
                expected.extend(tagged.into_iter().map(String::from));
                expected.extend(format.points_file(png).filter(|_| *points).map(|p| self.stored(&p)));
                differs(&recorded, &expected)
            }
            Shape::Frames { colour, data, .. } => self.uncovered_frames(&recorded, colour, data),
        }
    }

    fn uncovered_frames(&self, recorded: &BTreeSet<&str>, colour: &Pattern, data: &str) -> Option<String> {
        let maps_of = |frame: &str| self.maps.iter().map(|&m| output_of(frame, m)).collect::<Vec<_>>();
        // A colour frame is a recorded file that is no map of another, nor the data file.
        let maps: BTreeSet<String> = recorded.iter().flat_map(|f| maps_of(f)).collect();
        let frames: Vec<&str> = recorded.iter().copied().filter(|f| !maps.contains(*f) && *f != data).collect();
        if frames.is_empty() {
            return Some("records no frame".into());
        }
        let mut expected = BTreeSet::from([data.to_string()]);
        for frame in frames {
            if !colour.matches(frame) {
                return Some(format!("records {frame}, which its pattern cannot name"));
            }
            expected.insert(frame.to_string());
            expected.extend(maps_of(frame));
        }
        differs(recorded, &expected)
    }
}

/// What tells `recorded` from the `expected` files, if anything does.
fn differs(recorded: &BTreeSet<&str>, expected: &BTreeSet<String>) -> Option<String> {
    if let Some(missing) = expected.iter().find(|f| !recorded.contains(f.as_str())) {
        return Some(format!("does not record {missing}, which the entry writes"));
    }
    let extra = recorded.iter().find(|f| !expected.contains(**f))?;
    Some(format!("records {extra}, which the entry does not write"))
}

/// A frame pattern (`out/{clip}_{dir}_{frame:03}.png`, already accepted by
/// [`crate::output::FramePattern::parse`]) as a matcher of the names it expands to.
struct Pattern {
    pieces: Vec<Piece>,
}

enum Piece {
    Text(String),
    /// `{clip}`, `{dirname}`: a sanitized name ([`crate::output::sanitize_component`]), one or more
    /// characters, never a separator, never beginning with a `.`.
    Name,
    /// `{dir:N}`, `{frame:N}`: at least N digits (and at least one).
    Number(usize),
}

impl Pattern {
    fn parse(pattern: &str) -> Pattern {
        let mut pieces = Vec::new();
        let mut rest = pattern;
        while let Some((text, tail)) = rest.split_once('{') {
            let Some((spec, after)) = tail.split_once('}') else { break };
            if !text.is_empty() {
                pieces.push(Piece::Text(text.into()));
            }
            let (key, width) = spec.split_once(':').unwrap_or((spec, "0"));
            pieces.push(match key {
                "dir" | "frame" => Piece::Number(width.parse::<usize>().unwrap_or(0).max(1)),
                _ => Piece::Name,
            });
            rest = after;
        }
        if !rest.is_empty() {
            pieces.push(Piece::Text(rest.into()));
        }
        Pattern { pieces }
    }

    /// Whether the pattern expands to `name`: each piece takes the set of positions the pieces
    /// before it can end at to the set it can end at, in one pass over the name.
    fn matches(&self, name: &str) -> bool {
        let bytes = name.as_bytes();
        if bytes.len() > MAX_NAME_BYTES {
            return false;
        }
        let mut ends = vec![false; bytes.len() + 1];
        if let Some(start) = ends.first_mut() {
            *start = true;
        }
        for piece in &self.pieces {
            let mut next = vec![false; bytes.len() + 1];
            match piece {
                Piece::Text(text) => {
                    for (at, _) in ends.iter().enumerate().filter(|(_, e)| **e) {
                        if bytes.get(at..).is_some_and(|b| b.starts_with(text.as_bytes())) {
                            next[at + text.len()] = true;
                        }
                    }
                }
                Piece::Name => {
                    // Whether a field that began where an earlier piece ended runs through
                    // this character. A field is a sanitized name: never `.` or `..` (it
                    // cannot begin with a dot), never a separator, so no recorded name can
                    // climb out of the pattern's folders through one.
                    let mut open = false;
                    for (at, c) in name.char_indices() {
                        let begins = ends[at] && is_component_char(c, true);
                        open = (open && is_component_char(c, false)) || begins;
                        next[at + c.len_utf8()] = open;
                    }
                }
                Piece::Number(width) => {
                    // How many starts are reachable before each position, and where the run of
                    // digits ending at each position began.
                    let mut reachable = vec![0usize; bytes.len() + 2];
                    for (at, &e) in ends.iter().enumerate() {
                        reachable[at + 1] = reachable[at] + usize::from(e);
                    }
                    let mut run = 0;
                    for (end, &byte) in bytes.iter().enumerate() {
                        if !byte.is_ascii_digit() {
                            run = end + 1;
                            continue;
                        }
                        // A start in run..=end + 1 - width.
                        if let Some(last) = (end + 1).checked_sub(*width).filter(|&last| last >= run) {
                            next[end + 1] = reachable[last + 1] > reachable[run];
                        }
                    }
                }
            }
            ends = next;
        }
        ends.last().copied().unwrap_or(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_match_exactly_the_names_they_expand_to() {
        let pattern = Pattern::parse("out/{clip}_{dir}_{frame:03}.png");
        for name in ["out/walk_2_007.png", "out/a_b_0_1234.png", "out/_.._escape_0_000.png", "out/w.k_2_007.png"] {
            assert!(pattern.matches(name), "{name}");
        }
        for name in [
            "out/walk_2_07.png",
            "out/walk__007.png",
            "out/x/y_2_007.png",
            "out/walk_2_007.pngx",
            "walk_2_007.png",
            "out/.hidden_2_007.png",
            "out/a\\b_2_007.png",
        ] {
            assert!(!pattern.matches(name), "{name}");
        }
        let pattern = Pattern::parse("f{frame}{dirname}{clip}.png");
        assert!(pattern.matches("f12SWwalk.png") && pattern.matches("f0ab.png") && !pattern.matches("f0a.png"));
        assert!(!pattern.matches("fSWwalk.png") && !pattern.matches(&format!("f1{}.png", "a".repeat(MAX_NAME_BYTES))));
        // Issue 46, R4-06: no field is `.` or `..`, so no name leaves the pattern's folders.
        let pattern = Pattern::parse("out/{clip}/{frame}.png");
        assert!(pattern.matches("out/walk/7.png") && pattern.matches("out/wälk/7.png"));
        for name in ["out/../7.png", "out/./7.png", "out/.walk/7.png", "out//7.png", "out/a/b/7.png"] {
            assert!(!pattern.matches(name), "{name}");
        }
    }
}
