//! Text as Unity's YAML writes it.

use super::super::escape::quoted;

/// `text` as a YAML scalar that reads back as the same string: plain where it is a word of
/// letters, digits and ` _-.()>~+` (as Unity writes names: `walk_S_000`, `spritesheet (2)_0`),
/// double-quoted with escapes otherwise (a name from a model file may hold `:`, `#`, quotes or
/// control characters, or look like a number).
pub(super) fn scalar(text: &str) -> String {
    let word = |c: char| c.is_alphanumeric() || " _-.()>~+".contains(c);
    let starts_as_word = text.chars().next().is_some_and(|c| c == '_' || (c.is_alphabetic()));
    let keyword = ["y", "n", "yes", "no", "true", "false", "on", "off", "null"].contains(&text.to_lowercase().as_str());
    if starts_as_word && !keyword && !text.ends_with(' ') && text.chars().all(word) {
        return text.to_string();
    }
    quoted(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_plain_where_unity_writes_them_so_and_quoted_where_yaml_needs_it() {
        for plain in ["walk_S_000", "spritesheet (2)_0", "walk->run_S_001", "ходьба_S_000"] {
            assert_eq!(scalar(plain), plain);
        }
        assert_eq!(scalar("0"), "\"0\"");
        assert_eq!(scalar("yes"), "\"yes\"");
        assert_eq!(scalar("a: b #c"), "\"a: b #c\"");
        assert_eq!(scalar("-x"), "\"-x\"");
        assert_eq!(scalar("q\"\\\n\u{1}"), "\"q\\\"\\\\\\n\\u0001\"");
        assert_eq!(scalar(""), "\"\"");
    }
}
