//! Text from files, made safe to print on a terminal.
//!
//! Names inside models (clips, materials, joints, meshes, textures), file names and the
//! messages built from them are untrusted. Printed raw, an escape sequence (`\x1b[2J`,
//! `\x1b]8;;…`) drives the terminal, a newline forges a second `error:` line for whoever reads
//! or parses the output, a carriage return overwrites the line, and bidirectional overrides
//! reorder what is shown. [`escape_control`] is applied where the command line prints, so every
//! message is one honest line whatever the library put in it.
//!
//! The mapping: `\n`, `\r`, `\t` as those two-character escapes; other ASCII controls and DEL
//! as `\xHH` (ESC is `\x1b`); C1 controls (U+0080–U+009F, which some terminals obey as ESC
//! sequences), the Unicode line and paragraph separators and the invisible format characters
//! that reorder or hide text (bidi embeddings, overrides and isolates, zero-width characters,
//! the byte-order mark) as `\u{HHHH}`. Everything else, including every printable non-ASCII
//! character and the backslash itself, is kept, so ordinary messages and paths are unchanged.

use std::borrow::Cow;
use std::fmt::Write;

/// `text` with every control or invisible formatting character written as a visible escape
/// (see the module documentation); borrowed unchanged when there is none.
pub fn escape_control(text: &str) -> Cow<'_, str> {
    if !text.chars().any(needs_escape) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_ascii_control() => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if needs_escape(c) => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Controls (C0, DEL, C1), line/paragraph separators, and the format characters that hide or
/// reorder text on screen.
fn needs_escape(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{200b}'..='\u{200f}' // zero-width space/joiners, LRM, RLM
                | '\u{2028}'..='\u{202e}' // line/paragraph separators, bidi embeddings and overrides
                | '\u{2060}'..='\u{2069}' // word joiner, invisible operators, bidi isolates
                | '\u{feff}' // byte-order mark / zero-width no-break space
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_become_visible_escapes() {
        assert_eq!(escape_control("red\x1b[31m\nerror: forged"), "red\\x1b[31m\\nerror: forged");
        assert_eq!(escape_control("a\tb\rc\0d\x7f"), "a\\tb\\rc\\x00d\\x7f");
        assert_eq!(escape_control("csi\u{9b}2J"), "csi\\u{9b}2J");
        assert_eq!(escape_control("abc\u{202e}txt.exe"), "abc\\u{202e}txt.exe");
        assert_eq!(escape_control("line\u{2028}two\u{feff}"), "line\\u{2028}two\\u{feff}");
    }

    #[test]
    fn ordinary_text_is_borrowed_unchanged() {
        for text in ["walk.md5anim line 12: expected `}`", "Bip01 R Hand", "ＴＥＸ.png", "C:\\x\\y", "é ü 中"] {
            assert!(matches!(escape_control(text), Cow::Borrowed(t) if t == text), "{text}");
        }
    }
}
