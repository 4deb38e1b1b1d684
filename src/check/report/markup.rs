//! Text escaped for XML and HTML (attribute values and element text).

/// `s` with `& < > " '` escaped, control characters other than newline and tab as spaces, and
/// the noncharacters XML 1.0 forbids (U+FFFE, U+FFFF; surrogates cannot be in a `str`) as
/// U+FFFD: a case or clip name holding them would make the JUnit file not well formed.
pub(super) fn escape(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '&' => "&amp;".into(),
            '<' => "&lt;".into(),
            '>' => "&gt;".into(),
            '"' => "&quot;".into(),
            '\'' => "&apos;".into(),
            c if (c as u32) < 0x20 && !matches!(c, '\n' | '\t') => " ".into(),
            '\u{FFFE}' | '\u{FFFF}' => '\u{FFFD}'.to_string(),
            c => c.to_string(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_xml_cannot_hold_is_replaced() {
        assert_eq!(escape("a\u{FFFE}b\u{FFFF}<\u{1}"), "a\u{FFFD}b\u{FFFD}&lt; ");
        // Every other character above the controls is kept, astral ones too.
        assert_eq!(escape("é\u{FFFD}\u{1F600}\u{E000}"), "é\u{FFFD}\u{1F600}\u{E000}");
    }
}
