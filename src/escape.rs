//! Text from files, made safe for where it is written: HTML and XML documents (the `check` and
//! `thumbnail` reports, JUnit files) and POSIX shell command lines (the commands a report or
//! `info` tells a user to run). One function each, so every report escapes alike. Terminals
//! have their own: [`crate::terminal::escape_control`].

/// `text` for HTML or XML element content and attribute values: `& < > " '` as entities
/// (`'` as `&#39;`, which every HTML and XML version reads), control characters other than
/// newline and tab as spaces, and the noncharacters XML 1.0 forbids (U+FFFE, U+FFFF;
/// surrogates cannot be in a `str`) as U+FFFD: a name holding them would make a JUnit file not
/// well formed.
pub fn markup(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if c.is_control() && !matches!(c, '\n' | '\t') => out.push(' '),
            '\u{FFFE}' | '\u{FFFF}' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

/// One word quoted for a POSIX shell: unchanged when it is made only of characters no shell
/// treats specially, else in single quotes (a `'` inside written `'\''`).
pub fn shell_word(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_@%+=:,./-".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_characters_become_entities_and_what_xml_cannot_hold_is_replaced() {
        assert_eq!(
            markup("<a href=\"x\">O'Neil & co</a>"),
            "&lt;a href=&quot;x&quot;&gt;O&#39;Neil &amp; co&lt;/a&gt;"
        );
        assert_eq!(markup("a\u{FFFE}b\u{FFFF}<\u{1}\u{7f}\u{85}\n\t"), "a\u{FFFD}b\u{FFFD}&lt;   \n\t");
        // Every other character above the controls is kept, astral ones too.
        assert_eq!(markup("é\u{FFFD}\u{1F600}\u{E000}"), "é\u{FFFD}\u{1F600}\u{E000}");
    }

    #[test]
    fn shell_words_are_bare_when_plain_and_single_quoted_otherwise() {
        assert_eq!(shell_word("cases/robot-walk_1.toml"), "cases/robot-walk_1.toml");
        assert_eq!(shell_word("a b"), "'a b'");
        assert_eq!(shell_word("it's"), "'it'\\''s'");
        assert_eq!(shell_word(""), "''");
        assert_eq!(shell_word("$(rm -rf ~)"), "'$(rm -rf ~)'");
    }
}
