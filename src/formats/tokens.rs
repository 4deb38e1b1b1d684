//! The one tokenizer of the text formats: MD5 files and the scripts that name other files
//! (studiomdl's `.qc`, Doom 3's `.def`). Words are separated by whitespace; `"quoted
//! strings"` are one token (no escapes, ended by the closing quote or the end of the line);
//! `//` comments run to the end of the line; `{` `}` are tokens of their own. A [`Syntax`] says
//! what differs between the formats: `/* */` comments, and whether `(` `)` are tokens. The line
//! of every token is kept for error messages, and nothing is allocated per token, so a file of a
//! million braces costs no more memory than its text.

use super::FormatError;
use crate::error::excerpt;

/// What a text format's tokens look like besides the common rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Syntax {
    /// `/* */` comments (to their close, or the end of the file); a comment start also ends a
    /// word.
    pub block_comments: bool,
    /// `(` and `)` are tokens of their own (else they are part of words).
    pub parens: bool,
}

impl Syntax {
    /// MD5 mesh and animation files: `( x y z )` vectors, `//` comments only.
    pub(super) const MD5: Syntax = Syntax { block_comments: false, parens: true };
    /// studiomdl `.qc` scripts: C comments; parentheses are part of words.
    pub(super) const QC: Syntax = Syntax { block_comments: true, parens: false };
    /// Doom 3 `.def` declarations: C comments and `channel ( ... )` groups.
    pub(super) const DEF: Syntax = Syntax { block_comments: true, parens: true };
}

/// One token and the 1-based line it starts on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Token<'a> {
    /// The text (without quotes for strings).
    pub text: &'a str,
    /// True for a quoted string.
    pub quoted: bool,
    /// 1-based line.
    pub line: usize,
}

impl Token<'_> {
    /// True for the unquoted punctuation or word `word`.
    pub(super) fn is(&self, word: &str) -> bool {
        !self.quoted && self.text == word
    }

    /// True for an unquoted word equal to `word` without regard to ASCII case.
    pub(super) fn is_keyword(&self, word: &str) -> bool {
        !self.quoted && self.text.eq_ignore_ascii_case(word)
    }
}

/// A cursor over the tokens of a text, with typed reads that report the line on failure.
#[derive(Debug, Clone)]
pub(super) struct Tokens<'a> {
    format: &'static str,
    syntax: Syntax,
    src: &'a str,
    pos: usize,
    line: usize,
    peeked: Option<Token<'a>>,
}

impl<'a> Tokens<'a> {
    /// Tokens of `src` in `syntax`; errors are reported as `format`.
    pub(super) fn new(format: &'static str, syntax: Syntax, src: &'a str) -> Tokens<'a> {
        Tokens { format, syntax, src, pos: 0, line: 1, peeked: None }
    }

    /// The line of the next token (or the end of the text).
    pub(super) fn line(&mut self) -> usize {
        self.peek().map_or(self.line, |t| t.line)
    }

    /// An error at the current line.
    #[cold]
    pub(super) fn error(&mut self, message: impl Into<String>) -> FormatError {
        let line = self.line();
        FormatError::at_line(self.format, line, message)
    }

    /// Bytes of text not yet read: a bound for how many items can still follow.
    pub(super) fn remaining_bytes(&self) -> usize {
        self.src.len().saturating_sub(self.pos)
    }

    /// The next token without consuming it.
    pub(super) fn peek(&mut self) -> Option<Token<'a>> {
        if self.peeked.is_none() {
            self.peeked = self.scan();
        }
        self.peeked
    }

    /// The next token.
    pub(super) fn next_token(&mut self) -> Option<Token<'a>> {
        self.peek();
        self.peeked.take()
    }

    /// The next token outside any block, in a file of `NAME { ... }` declarations (Doom 3
    /// materials, Quake 3 shaders): a block without a name (a stray one) is skipped; `None` at
    /// the end of the text.
    ///
    /// # Errors
    /// A `}` with no block to close.
    pub(super) fn next_declaration(&mut self) -> Result<Option<Token<'a>>, FormatError> {
        while let Some(token) = self.next_token() {
            if token.is("}") {
                return Err(FormatError::at_line(self.format, token.line, "`}` without a declaration to close"));
            }
            if !token.is("{") {
                return Ok(Some(token));
            }
            self.skip_block();
        }
        Ok(None)
    }

    /// Skips to the `}` closing a block whose `{` was just read (nested blocks included), or
    /// to the end of the file. Iterative: any depth of nesting is fine.
    pub(super) fn skip_block(&mut self) {
        self.skip_nested("{", "}");
    }

    /// Skips to the `)` closing a group whose `(` was just read, or to the end of the file.
    pub(super) fn skip_group(&mut self) {
        self.skip_nested("(", ")");
    }

    fn skip_nested(&mut self, open: &str, close: &str) {
        let mut depth = 1usize;
        while let Some(t) = self.next_token() {
            if t.is(open) {
                depth += 1;
            } else if t.is(close) {
                depth -= 1;
                if depth == 0 {
                    return;
                }
            }
        }
    }

    fn punctuation(&self, c: u8) -> bool {
        matches!(c, b'{' | b'}') || (self.syntax.parens && matches!(c, b'(' | b')'))
    }

    /// Skips whitespace and comments, counting lines.
    fn skip_blank(&mut self) {
        let bytes = self.src.as_bytes();
        while let Some(&c) = bytes.get(self.pos) {
            match c {
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
                b'/' if self.syntax.block_comments && bytes.get(self.pos + 1) == Some(&b'*') => {
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
                _ => return,
            }
        }
    }

    fn scan(&mut self) -> Option<Token<'a>> {
        self.skip_blank();
        let bytes = self.src.as_bytes();
        let (start, line) = (self.pos, self.line);
        let c = *bytes.get(start)?;
        if c == b'"' {
            let end = self.src[start + 1..].find(['"', '\n']).map_or(self.src.len(), |i| start + 1 + i);
            // The closing quote is consumed; a newline ending an unclosed string is not (it is
            // counted as a line like any other).
            self.pos = if bytes.get(end) == Some(&b'"') { end + 1 } else { end };
            return Some(Token { text: &self.src[start + 1..end], quoted: true, line });
        }
        if self.punctuation(c) {
            self.pos += 1;
            return Some(Token { text: &self.src[start..start + 1], quoted: false, line });
        }
        while bytes.get(self.pos).is_some_and(|&c| {
            let comment =
                self.syntax.block_comments && c == b'/' && matches!(bytes.get(self.pos + 1), Some(b'/' | b'*'));
            !(c.is_ascii_whitespace() || c == b'"' || self.punctuation(c) || comment)
        }) {
            self.pos += 1;
        }
        Some(Token { text: &self.src[start..self.pos], quoted: false, line })
    }

    /// Consumes the exact word or punctuation `expected`.
    pub(super) fn expect(&mut self, expected: &str) -> Result<(), FormatError> {
        match self.next_token() {
            Some(t) if t.text == expected && !t.quoted => Ok(()),
            Some(t) => Err(FormatError::at_line(
                self.format,
                t.line,
                format!("expected `{expected}`, found `{}`", excerpt(t.text)),
            )),
            None => Err(self.error(format!("expected `{expected}`, found the end of the file"))),
        }
    }

    /// Consumes a quoted string.
    pub(super) fn string(&mut self) -> Result<&'a str, FormatError> {
        match self.next_token() {
            Some(t) if t.quoted => Ok(t.text),
            Some(t) => Err(FormatError::at_line(
                self.format,
                t.line,
                format!("expected a quoted string, found `{}`", excerpt(t.text)),
            )),
            None => Err(self.error("expected a quoted string, found the end of the file")),
        }
    }

    /// Consumes a finite number.
    pub(super) fn number(&mut self) -> Result<f32, FormatError> {
        match self.next_token() {
            Some(t) => match t.text.parse::<f32>() {
                Ok(x) if x.is_finite() && !t.quoted => Ok(x),
                _ => Err(FormatError::at_line(
                    self.format,
                    t.line,
                    format!("expected a finite number, found `{}`", excerpt(t.text)),
                )),
            },
            None => Err(self.error("expected a number, found the end of the file")),
        }
    }

    /// Consumes an integer in `min..=max`.
    pub(super) fn integer(&mut self, min: i64, max: i64) -> Result<i64, FormatError> {
        match self.next_token() {
            Some(t) => match t.text.parse::<i64>() {
                Ok(x) if (min..=max).contains(&x) && !t.quoted => Ok(x),
                Ok(x) => Err(FormatError::at_line(
                    self.format,
                    t.line,
                    format!("expected an integer in {min}..={max}, found {x}"),
                )),
                Err(_) => Err(FormatError::at_line(
                    self.format,
                    t.line,
                    format!("expected an integer, found `{}`", excerpt(t.text)),
                )),
            },
            None => Err(self.error("expected an integer, found the end of the file")),
        }
    }

    /// Consumes `( a b c )` with `n` numbers.
    pub(super) fn vector<const N: usize>(&mut self) -> Result<[f32; N], FormatError> {
        self.expect("(")?;
        let mut out = [0.0; N];
        for v in &mut out {
            *v = self.number()?;
        }
        self.expect(")")?;
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_track_lines_and_skip_comments() {
        let mut t = Tokens::new("MD5", Syntax::MD5, "a \"b c\" // x\n( 1.5 )\n{");
        assert_eq!(t.next_token().unwrap().text, "a");
        let s = t.next_token().unwrap();
        assert!(s.quoted && s.text == "b c");
        assert_eq!(t.vector::<1>().unwrap(), [1.5]);
        assert_eq!(t.next_token().unwrap().line, 3);
        assert!(t.next_token().is_none());
        let e = Tokens::new("MD5", Syntax::MD5, "\n\nnan").number().unwrap_err();
        assert!(e.to_string().contains("line 3"), "{e}");
        // MD5 has no block comments, and a `//` inside a word does not start one.
        assert_eq!(texts("a /* b */ c//d", Syntax::MD5).len(), 5);
    }

    fn texts(src: &str, syntax: Syntax) -> Vec<(String, bool, usize)> {
        let mut s = Tokens::new("test", syntax, src);
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
        let got = texts(src, Syntax::QC);
        assert_eq!(got, want.map(|(t, q, l)| (t.to_string(), q, l)));
        // Parentheses are words unless asked for; an unclosed string ends at its line.
        assert_eq!(texts("a(b)", Syntax::QC).len(), 1);
        assert_eq!(texts("channel torso ( *Waist )", Syntax::DEF).len(), 5);
        assert_eq!(texts("\"open\nnext", Syntax::QC), [("open".into(), true, 1), ("next".into(), false, 2)]);
        // An unclosed block comment ends the file.
        assert_eq!(texts("a /* b", Syntax::QC).len(), 1);
    }

    #[test]
    fn blocks_skip_nested_braces_to_their_close() {
        let mut s = Tokens::new("test", Syntax::QC, "{ a { b { c } } d } e");
        s.next_token();
        s.skip_block();
        assert_eq!(s.next_token().map(|t| t.text), Some("e"));
        let deep = "{".repeat(100_000);
        let mut s = Tokens::new("test", Syntax::QC, &deep);
        s.next_token();
        s.skip_block();
        assert_eq!(s.next_token(), None);
    }
}
