//! Output path patterns of `frames`: `out/{clip}_{dirname}_{frame:03}.png`.
//!
//! A pattern is parsed once, before anything is loaded or rendered, so a mistake in it is one
//! clear error rather than a panic halfway through a job. `{clip}` is filled with
//! [`sanitize_component`] of the clip's name: the name comes from the model file and must not
//! add folders (`../../x`) or leave the pattern's folder (`/tmp/x`). `{dir}` is the direction's
//! index (as it always was, so existing patterns keep their file names), `{dirname}` its name
//! (`SW`, or one of `--direction-names`), sanitized the same way.

use std::path::PathBuf;

use super::sanitize_component;
use crate::error::{Error, Result};

/// Widest zero padding `{dir:N}` and `{frame:N}` accept: enough for any frame count a job can
/// have, and small enough that a typo cannot ask for a gigabyte of zeros.
pub const MAX_PAD_WIDTH: usize = 9;

#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Text(String),
    Clip,
    Dir(usize),
    DirName,
    Frame(usize),
}

/// A parsed output pattern with `{clip}`, `{dir}`, `{dirname}` and `{frame}` placeholders.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FramePattern {
    pieces: Vec<Piece>,
}

impl FramePattern {
    /// Parses a pattern. `{dir}` and `{frame}` take an optional zero-padding width (`{frame:03}`
    /// and `{frame:3}` both give `007`), at most [`MAX_PAD_WIDTH`].
    ///
    /// # Errors
    /// [`Error::Invalid`] for a pattern without `{frame}`, an unknown placeholder, an unclosed
    /// `{`, or a bad or too large width.
    pub fn parse(pattern: &str) -> Result<FramePattern> {
        let invalid = |why: String| Error::Invalid(format!("output pattern '{pattern}': {why}"));
        let mut pieces = Vec::new();
        let mut rest = pattern;
        while let Some(open) = rest.find('{') {
            let (text, tail) = rest.split_at(open);
            if !text.is_empty() {
                pieces.push(Piece::Text(text.to_string()));
            }
            let close = tail.find('}').ok_or_else(|| invalid("a '{' is not closed".into()))?;
            let spec = &tail[1..close];
            let (key, width) = match spec.split_once(':') {
                Some((key, w)) => (key, Some(w)),
                None => (spec, None),
            };
            let width = match width {
                None => 0,
                Some(w) => match w.parse::<usize>() {
                    Ok(n) if n <= MAX_PAD_WIDTH => n,
                    _ => return Err(invalid(format!("'{{{spec}}}': the width must be 0 to {MAX_PAD_WIDTH}"))),
                },
            };
            pieces.push(match key {
                "clip" if width == 0 => Piece::Clip,
                "dirname" if width == 0 => Piece::DirName,
                "dir" => Piece::Dir(width),
                "frame" => Piece::Frame(width),
                _ => {
                    return Err(invalid(format!(
                        "unknown placeholder '{{{spec}}}' (expected {{clip}}, {{dir}}, {{dirname}} or {{frame}}, with a width as {{frame:03}})"
                    )));
                }
            });
            rest = &tail[close + 1..];
        }
        if !rest.is_empty() {
            pieces.push(Piece::Text(rest.to_string()));
        }
        if !pieces.iter().any(|p| matches!(p, Piece::Frame(_))) {
            return Err(invalid("it needs a {frame} placeholder".into()));
        }
        Ok(FramePattern { pieces })
    }

    /// What the pattern lacks to give each frame of a job with `rows` clips and `directions`
    /// directions a file of its own: `{clip}` for several clips, `{dir}` or `{dirname}` for
    /// several directions (`{frame}` is always there). `None` when it has what it needs.
    pub fn missing_for(&self, rows: usize, directions: u32) -> Option<&'static str> {
        let has = |f: fn(&Piece) -> bool| self.pieces.iter().any(f);
        if directions > 1 && !has(|p| matches!(p, Piece::Dir(_) | Piece::DirName)) {
            return Some("{dir} or {dirname}");
        }
        if rows > 1 && !has(|p| matches!(p, Piece::Clip)) {
            return Some("{clip}");
        }
        None
    }

    /// The path of one frame: row `clip`, direction `dir` named `dir_name`, frame `frame`;
    /// the names are sanitized (see [`sanitize_component`]).
    pub fn path(&self, clip: &str, dir: u32, dir_name: &str, frame: usize) -> PathBuf {
        let clip = sanitize_component(clip);
        let dir_name = sanitize_component(dir_name);
        let mut out = String::new();
        for piece in &self.pieces {
            match piece {
                Piece::Text(t) => out.push_str(t),
                Piece::Clip => out.push_str(&clip),
                Piece::Dir(w) => out.push_str(&format!("{dir:0w$}")),
                Piece::DirName => out.push_str(&dir_name),
                Piece::Frame(w) => out.push_str(&format!("{frame:0w$}")),
            }
        }
        PathBuf::from(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expand(pattern: &str, clip: &str, dir: u32, frame: usize) -> String {
        FramePattern::parse(pattern).unwrap().path(clip, dir, "SW", frame).display().to_string()
    }

    #[test]
    fn patterns_expand_with_padding() {
        assert_eq!(expand("out/{clip}_{dir}_{frame:03}.png", "walk", 2, 7), "out/walk_2_007.png");
        assert_eq!(expand("f{frame}.png", "c", 0, 12), "f12.png");
        assert_eq!(expand("{dir:2}-{frame:2}", "c", 3, 3), "03-03");
        assert_eq!(expand("{frame:9}", "c", 0, 1), "000000001");
        assert_eq!(expand("out/{clip}_{dirname}_{frame:03}.png", "walk", 1, 7), "out/walk_SW_007.png");
    }

    #[test]
    fn clip_names_from_the_model_stay_one_component() {
        assert_eq!(expand("out/{clip}_{frame}.png", "../../escape", 0, 1), "out/___.._escape_1.png");
        assert_eq!(expand("out/{clip}_{frame}.png", "/tmp/abs", 0, 1), "out/_tmp_abs_1.png");
        assert_eq!(expand("out/{clip}_{frame}.png", "idle->walk", 0, 1), "out/idle-to-walk_1.png");
    }

    #[test]
    fn bad_patterns_are_clear_errors_not_panics() {
        for (pattern, words) in [
            ("out/{frame:999999999}.png", "width must be 0 to 9"),
            ("out/{frame:99999999999999999999999}.png", "width must be 0 to 9"),
            ("out/{frame:x}.png", "width must be 0 to 9"),
            ("out/{clip}.png", "needs a {frame} placeholder"),
            ("out/{frame}{other}.png", "unknown placeholder '{other}'"),
            ("out/{clip:3}{frame}.png", "unknown placeholder '{clip:3}'"),
            ("out/{dirname:2}{frame}.png", "unknown placeholder '{dirname:2}'"),
            ("out/{frame.png", "a '{' is not closed"),
        ] {
            let e = FramePattern::parse(pattern).unwrap_err().to_string();
            assert!(e.contains(words) && e.contains(pattern), "{pattern}: {e}");
        }
    }
}
