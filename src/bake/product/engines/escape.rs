//! The escapes the text formats of engine data share inside a double-quoted string: Godot's
//! resources, YAML (Unity) and GML (GameMaker) all read `\"`, `\\`, `\n`, `\t`, `\r` and
//! `\uXXXX`. Names come from model files and may hold anything.

use std::fmt::Write as _;

/// `text` escaped for the inside of a double-quoted string: `"` and `\` escaped, newlines,
/// tabs and carriage returns as `\n`, `\t`, `\r`, every other control character as `\uXXXX`.
pub(super) fn escaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            // Writing to a String cannot fail.
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out
}

/// `text` as a double-quoted string ([`escaped`] inside).
pub(super) fn quoted(text: &str) -> String {
    format!("\"{}\"", escaped(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_backslashes_and_control_characters_are_escaped() {
        assert_eq!(quoted("a\"b\\c\nd\t\r\u{1}é"), "\"a\\\"b\\\\c\\nd\\t\\r\\u0001é\"");
    }
}
