//! Tokens of the script formats that name other files: studiomdl's `.qc` and Doom 3's `.def`.
//!
//! Words are separated by whitespace; `"quoted strings"` are one token (no escapes, ended by
//! the closing quote or the end of the line); `//` comments run to the end of the line and
//! `/* */` comments to their close (or the end of the file); `{` and `}` are tokens of their
//! own, and so are `(` and `)` when the format asks for them (Doom 3's `channel ( ... )`).
//! The scanner streams: nothing is allocated per token, so a file of a million braces costs no
//! more memory than its text.

/// One token and the 1-based line it starts on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token<'a> {
    /// The text (without quotes for strings).
    pub text: &'a str,
    /// True for a quoted string.
    pub quoted: bool,
    /// 1-based line.
    pub line: usize,
}

impl Token<'_> {
    /// True for the unquoted punctuation or word `word`.
    pub fn is(&self, word: &str) -> bool {
        !self.quoted && self.text == word
    }

    /// True for an unquoted word equal to `word` without regard to ASCII case.
    pub fn is_keyword(&self, word: &str) -> bool {
        !self.quoted && self.text.eq_ignore_ascii_case(word)
    }
}

/// A cursor over the tokens of a script.
#[derive(Debug, Clone)]
pub struct Script<'a> {
    src: &'a str,
    pos: usize,
    line: usize,
    parens: bool,
    peeked: Option<Token<'a>>,
}

impl<'a> Script<'a> {
    /// Tokens of `src`; with `parens`, `(` and `)` are tokens of their own.
    pub fn new(src: &'a str, parens: bool) -> Script<'a> {
        Script { src, pos: 0, line: 1, parens, peeked: None }
    }

    /// The line of the next token (or the last line).
    pub fn line(&mut self) -> usize {
        self.peek().map_or(self.line, |t| t.line)
    }

    /// The next token without consuming it.
    pub fn peek(&mut self) -> Option<Token<'a>> {
        if self.peeked.is_none() {
            self.peeked = self.scan();
        }
        self.peeked
    }

    /// The next token.
    pub fn next_token(&mut self) -> Option<Token<'a>> {
        self.peek();
        self.peeked.take()
    }

    /// Skips to the `}` closing a block whose `{` was just read (nested blocks included), or
    /// to the end of the file. Iterative: any depth of nesting is fine.
    pub fn skip_block(&mut self) {
        let mut depth = 1usize;
        while let Some(t) = self.next_token() {
            if t.is("{") {
                depth += 1;
            } else if t.is("}") {
                depth -= 1;
                if depth == 0 {
                    return;
                }
            }
        }
    }

    /// Skips to the `)` closing a group whose `(` was just read, or to the end of the file.
    pub fn skip_group(&mut self) {
        let mut depth = 1usize;
        while let Some(t) = self.next_token() {
            if t.is("(") {
                depth += 1;
            } else if t.is(")") {
                depth -= 1;
                if depth == 0 {
                    return;
                }
            }
        }
    }

    fn punctuation(&self, c: u8) -> bool {
        matches!(c, b'{' | b'}') || (self.parens && matches!(c, b'(' | b')'))
    }

    fn scan(&mut self) -> Option<Token<'a>> {
        let bytes = self.src.as_bytes();
        loop {
            match bytes.get(self.pos)? {
                b'\n' => {
                    self.line += 1;
                    self.pos += 1;
                }
                c if c.is_ascii_whitespace() => self.pos += 1,
                b'/' if bytes.get(self.pos + 1) == Some(&b'/') => {
                    while bytes.get(self.pos).is_some_and(|&c| c != b'\n') {
                        self.pos += 1;
                    }
                }
                b'/' if bytes.get(self.pos + 1) == Some(&b'*') => {
                    self.pos += 2;
                    loop {
                        match bytes.get(self.pos) {
                            None => break,
                            Some(b'*') if bytes.get(self.pos + 1) == Some(&b'/') => {
                                self.pos += 2;
                                break;
                            }
                            Some(b'\n') => {
                                self.line += 1;
                                self.pos += 1;
                            }
                            Some(_) => self.pos += 1,
                        }
                    }
                }
                _ => break,
            }
        }
        let start = self.pos;
        let line = self.line;
        let c = *bytes.get(start)?;
        if c == b'"' {
            let end = self.src[start + 1..].find(['"', '\n']).map_or(self.src.len(), |i| start + 1 + i);
            // The closing quote is consumed; a newline ending an unclosed string is not.
            self.pos = if bytes.get(end) == Some(&b'"') { end + 1 } else { end };
            return Some(Token { text: &self.src[start + 1..end], quoted: true, line });
        }
        if self.punctuation(c) {
            self.pos += 1;
            return Some(Token { text: &self.src[start..start + 1], quoted: false, line });
        }
        while bytes.get(self.pos).is_some_and(|&c| {
            let comment = c == b'/' && matches!(bytes.get(self.pos + 1), Some(b'/' | b'*'));
            !(c.is_ascii_whitespace() || c == b'"' || self.punctuation(c) || comment)
        }) {
            self.pos += 1;
        }
        Some(Token { text: &self.src[start..self.pos], quoted: false, line })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(src: &str, parens: bool) -> Vec<(String, bool, usize)> {
        let mut s = Script::new(src, parens);
        std::iter::from_fn(|| s.next_token()).map(|t| (t.text.to_string(), t.quoted, t.line)).collect()
    }

    #[test]
    fn words_strings_comments_and_braces() {
        let src = "$body \"studio\" \"my ref\" // comment\n/* block\ncomment */ $sequence walk{ fps 30 }\nx/*c*/y";
        let want = [
            ("$body", false, 1),
            ("studio", true, 1),
            ("my ref", true, 1),
            ("$sequence", false, 3),
            ("walk", false, 3),
            ("{", false, 3),
            ("fps", false, 3),
            ("30", false, 3),
            ("}", false, 3),
            ("x", false, 4),
            ("y", false, 4),
        ];
        let got = texts(src, false);
        assert_eq!(got, want.map(|(t, q, l)| (t.to_string(), q, l)));
        // Parentheses are words unless asked for; an unclosed string ends at its line.
        assert_eq!(texts("a(b)", false).len(), 1);
        assert_eq!(texts("channel torso ( *Waist )", true).len(), 5);
        assert_eq!(texts("\"open\nnext", false), [("open".into(), true, 1), ("next".into(), false, 2)]);
        // An unclosed block comment ends the file.
        assert_eq!(texts("a /* b", false).len(), 1);
    }

    #[test]
    fn blocks_skip_nested_braces_to_their_close() {
        let mut s = Script::new("{ a { b { c } } d } e", false);
        s.next_token();
        s.skip_block();
        assert_eq!(s.next_token().map(|t| t.text), Some("e"));
        let deep = "{".repeat(100_000);
        let mut s = Script::new(&deep, false);
        s.next_token();
        s.skip_block();
        assert_eq!(s.next_token(), None);
    }
}
