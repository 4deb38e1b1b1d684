//! Frame names from a format like Aseprite's `--filename-format`: `{tag}_{tagframe000}`,
//! `{frame}`, `{title}-{frame01}`.
//!
//! Placeholders, as Aseprite's CLI fills them: `{title}` (Aseprite: the sprite's file name
//! without folder and extension; here the sheet's), `{tag}` (the frame's tag; `{innertag}` and
//! `{outertag}` are the same, tags do not nest here), `{frame}` (the frame's number in the
//! sheet, from 0), `{tagframe}` (its number in its tag) and `{duration}` (milliseconds). A
//! counter may carry digits, read as Aseprite reads them: as many as are written is the width
//! it is zero-padded to, and their value is the first number (`{frame000}` counts 000, 001 ...;
//! `{frame1}` 1, 2 ...; `{tagframe01}` 01, 02 ...).
//!
//! Aseprite's placeholders for files, layers and slices (`{path}`, `{layer}` ...) have no value
//! in a baked sheet and are refused by name, as is anything else in braces: a typo would
//! otherwise become part of every name. A format must tell frames apart (a `{frame}`, or a
//! `{tagframe}` with the tag); names that still collide are refused when the sheet is named
//! ([`Atlas::new`](crate::bake::product::engines::Atlas::new)).

use std::fmt::Write as _;

/// Longest format accepted, in bytes.
const MAX_FORMAT_BYTES: usize = 256;

/// Most digits a counter may be padded to.
const MAX_WIDTH: usize = 9;

/// Aseprite's placeholders that have no value in a baked sheet.
const ASEPRITE_ONLY: [&str; 7] = ["fullname", "path", "name", "extension", "layer", "group", "slice"];

/// What the placeholders accept, for refusals.
const KNOWN: &str = "{title}, {tag}, {frame}, {tagframe}, {duration} ({frame000}: padded to 3 digits; {frame1}: \
                     counting from 1)";

/// A parsed frame-name format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameNames {
    format: String,
    parts: Vec<Part>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Text(String),
    Title,
    Tag,
    Duration,
    Frame(Counter),
    TagFrame(Counter),
}

/// A counter's zero-padding and first number (`{frame01}`: width 2, from 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Counter {
    width: usize,
    base: usize,
}

impl Counter {
    /// `{frame}`'s rest after the name: `""`, or digits.
    fn parse(digits: &str) -> Option<Counter> {
        if digits.is_empty() {
            return Some(Counter { width: 0, base: 0 });
        }
        let all_digits = digits.len() <= MAX_WIDTH && digits.bytes().all(|b| b.is_ascii_digit());
        all_digits.then(|| Counter { width: digits.len(), base: digits.parse().unwrap_or(0) })
    }
}

/// What a frame's name can say about it.
#[derive(Debug, Clone, Copy)]
pub struct FrameFacts<'a> {
    /// The sheet's file name without folder and extension.
    pub title: &'a str,
    /// The frame's tag (animation: clip and direction).
    pub tag: &'a str,
    /// The frame's number in the sheet, from 0.
    pub frame: usize,
    /// The frame's number in its tag, from 0.
    pub tag_frame: usize,
    /// How long it shows, in milliseconds.
    pub duration_ms: u32,
}

impl FrameNames {
    /// Parses a format.
    ///
    /// # Errors
    /// What is wrong and what is accepted, for [`crate::Error::BadOption`]: an unknown or
    /// Aseprite-only placeholder, an unclosed `{`, a format that cannot tell frames apart, a
    /// format over 256 bytes.
    pub fn parse(format: &str) -> Result<FrameNames, String> {
        if format.len() > MAX_FORMAT_BYTES {
            return Err(format!("at most {MAX_FORMAT_BYTES} bytes"));
        }
        let mut parts = Vec::new();
        let mut rest = format;
        while let Some(open) = rest.find('{') {
            let (text, placeholder) = rest.split_at(open);
            if !text.is_empty() {
                parts.push(Part::Text(text.to_string()));
            }
            let close =
                placeholder.find('}').ok_or_else(|| format!("'{{' opens no placeholder (no '}}'); use {KNOWN}"))?;
            let inner = &placeholder[1..close];
            parts.push(Part::parse(inner)?);
            rest = &placeholder[close + 1..];
        }
        if !rest.is_empty() {
            parts.push(Part::Text(rest.to_string()));
        }
        let has = |f: fn(&Part) -> bool| parts.iter().any(f);
        let distinct = has(|p| matches!(p, Part::Frame(_)))
            || (has(|p| matches!(p, Part::TagFrame(_))) && has(|p| matches!(p, Part::Tag)));
        if !distinct {
            return Err("must tell frames apart: include {frame}, or {tag} with {tagframe}".into());
        }
        Ok(FrameNames { format: format.to_string(), parts })
    }

    /// The format as given.
    pub fn as_str(&self) -> &str {
        &self.format
    }

    /// The longest name this format gives a frame whose title and tag are at most `title` and
    /// `tag` bytes long.
    pub fn max_len(&self, title: usize, tag: usize) -> usize {
        self.parts
            .iter()
            .map(|part| match part {
                Part::Text(text) => text.len(),
                Part::Title => title,
                Part::Tag => tag,
                // Numbers: at most 20 digits (u64), or the padded width.
                Part::Duration => 20,
                Part::Frame(c) | Part::TagFrame(c) => c.width.max(20),
            })
            .sum()
    }

    /// The name of one frame.
    pub fn name(&self, facts: &FrameFacts) -> String {
        let mut name = String::new();
        for part in &self.parts {
            // Writing to a String cannot fail.
            let _ = match part {
                Part::Text(text) => write!(name, "{text}"),
                Part::Title => write!(name, "{}", facts.title),
                Part::Tag => write!(name, "{}", facts.tag),
                Part::Duration => write!(name, "{}", facts.duration_ms),
                Part::Frame(c) => write!(name, "{:0w$}", c.base + facts.frame, w = c.width),
                Part::TagFrame(c) => write!(name, "{:0w$}", c.base + facts.tag_frame, w = c.width),
            };
        }
        name
    }
}

impl Part {
    /// The placeholder between `{` and `}`.
    fn parse(inner: &str) -> Result<Part, String> {
        let counter = |prefix: &str| inner.strip_prefix(prefix).map(Counter::parse);
        if let Some(counter) = counter("tagframe") {
            return counter.map(Part::TagFrame).ok_or_else(|| bad_counter(inner));
        }
        if let Some(counter) = counter("frame") {
            return counter.map(Part::Frame).ok_or_else(|| bad_counter(inner));
        }
        match inner {
            "title" => Ok(Part::Title),
            "tag" | "innertag" | "outertag" => Ok(Part::Tag),
            "duration" => Ok(Part::Duration),
            _ if ASEPRITE_ONLY.contains(&inner) => Err(format!(
                "{{{inner}}} is Aseprite's for its files, layers and slices, which a baked sheet does not have; \
                 use {KNOWN}"
            )),
            _ => Err(format!("unknown placeholder {{{inner}}}; use {KNOWN}")),
        }
    }
}

fn bad_counter(inner: &str) -> String {
    format!("{{{inner}}}: a counter takes at most {MAX_WIDTH} digits after its name; use {KNOWN}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(format: &str, tag: &str, frame: usize, tag_frame: usize) -> String {
        let facts = FrameFacts { title: "walk", tag, frame, tag_frame, duration_ms: 63 };
        FrameNames::parse(format).unwrap().name(&facts)
    }

    #[test]
    fn placeholders_are_filled_as_aseprite_fills_them() {
        assert_eq!(name("{frame}", "walk_S", 17, 1), "17");
        assert_eq!(name("{tag}_{tagframe000}", "walk_S", 17, 1), "walk_S_001");
        assert_eq!(name("{tag}_{tagframe000}", "walk_S", 17, 1234), "walk_S_1234");
        assert_eq!(name("{title} #{innertag} {frame1}.png", "run", 0, 0), "walk #run 1.png");
        assert_eq!(name("{outertag}-{tagframe01}-{duration}ms", "run", 4, 8), "run-09-63ms");
        assert_eq!(name("{frame0}}x", "a", 3, 0), "3}x");
        let names = FrameNames::parse("{title}-{tag}-{frame000}").unwrap();
        assert_eq!(names.max_len(10, 7), 10 + 1 + 7 + 1 + 20);
    }

    #[test]
    fn refusals_say_what_is_accepted() {
        let refused = |f: &str| FrameNames::parse(f).unwrap_err();
        assert!(refused("{layer} {frame}").starts_with("{layer} is Aseprite's"), "{}", refused("{layer} {frame}"));
        assert!(refused("{tag}_{fram}").starts_with("unknown placeholder {fram}; use {title}"));
        assert!(refused("{tag}_{frame").starts_with("'{' opens no placeholder"));
        assert!(refused("{tag}_{frameX}").contains("at most 9 digits"));
        assert!(refused("{tag}_{frame0000000000}").contains("at most 9 digits"));
        assert!(refused("{tag}").starts_with("must tell frames apart"));
        assert!(refused("{tagframe}").starts_with("must tell frames apart"));
        assert!(refused(&"{frame}".repeat(40)).starts_with("at most 256 bytes"));
    }
}
