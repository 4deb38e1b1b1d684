//! A tokenizer for the id Software text formats (MD5): words, quoted strings and the
//! punctuation `( ) { }`, with `//` comments skipped and the line of every token kept for
//! error messages.

use super::FormatError;

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

/// A cursor over the tokens of a text, with typed reads that report the line on failure.
pub struct Tokens<'a> {
    format: &'static str,
    src: &'a str,
    pos: usize,
    line: usize,
    peeked: Option<Token<'a>>,
}

impl<'a> Tokens<'a> {
    /// Tokens of `src`; errors are reported as `format`.
    pub fn new(format: &'static str, src: &'a str) -> Tokens<'a> {
        Tokens { format, src, pos: 0, line: 1, peeked: None }
    }

    /// The line of the next token (or the end of the text).
    pub fn line(&mut self) -> usize {
        self.peek().map_or(self.line, |t| t.line)
    }

    /// An error at the current line.
    #[cold]
    pub fn error(&mut self, message: impl Into<String>) -> FormatError {
        let line = self.line();
        FormatError::at_line(self.format, line, message)
    }

    /// Bytes of text not yet read: a bound for how many items can still follow.
    pub fn remaining_bytes(&self) -> usize {
        self.src.len().saturating_sub(self.pos)
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
                _ => break,
            }
        }
        let start = self.pos;
        let line = self.line;
        let c = bytes[start];
        if c == b'"' {
            let end = self.src[start + 1..].find(['"', '\n']).map_or(self.src.len(), |i| start + 1 + i);
            self.pos = (end + 1).min(self.src.len());
            return Some(Token { text: &self.src[start + 1..end], quoted: true, line });
        }
        if matches!(c, b'(' | b')' | b'{' | b'}') {
            self.pos += 1;
            return Some(Token { text: &self.src[start..start + 1], quoted: false, line });
        }
        while bytes
            .get(self.pos)
            .is_some_and(|&c| !c.is_ascii_whitespace() && !matches!(c, b'(' | b')' | b'{' | b'}' | b'"'))
        {
            self.pos += 1;
        }
        Some(Token { text: &self.src[start..self.pos], quoted: false, line })
    }

    /// Consumes the exact word or punctuation `expected`.
    pub fn expect(&mut self, expected: &str) -> Result<(), FormatError> {
        match self.next_token() {
            Some(t) if t.text == expected && !t.quoted => Ok(()),
            Some(t) => {
                Err(FormatError::at_line(self.format, t.line, format!("expected `{expected}`, found `{}`", t.text)))
            }
            None => Err(self.error(format!("expected `{expected}`, found the end of the file"))),
        }
    }

    /// Consumes a quoted string.
    pub fn string(&mut self) -> Result<&'a str, FormatError> {
        match self.next_token() {
            Some(t) if t.quoted => Ok(t.text),
            Some(t) => {
                Err(FormatError::at_line(self.format, t.line, format!("expected a quoted string, found `{}`", t.text)))
            }
            None => Err(self.error("expected a quoted string, found the end of the file")),
        }
    }

    /// Consumes a finite number.
    pub fn number(&mut self) -> Result<f32, FormatError> {
        match self.next_token() {
            Some(t) => match t.text.parse::<f32>() {
                Ok(x) if x.is_finite() && !t.quoted => Ok(x),
                _ => Err(FormatError::at_line(
                    self.format,
                    t.line,
                    format!("expected a finite number, found `{}`", t.text),
                )),
            },
            None => Err(self.error("expected a number, found the end of the file")),
        }
    }

    /// Consumes an integer in `min..=max`.
    pub fn integer(&mut self, min: i64, max: i64) -> Result<i64, FormatError> {
        match self.next_token() {
            Some(t) => match t.text.parse::<i64>() {
                Ok(x) if (min..=max).contains(&x) && !t.quoted => Ok(x),
                Ok(x) => Err(FormatError::at_line(
                    self.format,
                    t.line,
                    format!("expected an integer in {min}..={max}, found {x}"),
                )),
                Err(_) => {
                    Err(FormatError::at_line(self.format, t.line, format!("expected an integer, found `{}`", t.text)))
                }
            },
            None => Err(self.error("expected an integer, found the end of the file")),
        }
    }

    /// Consumes `( a b c )` with `n` numbers.
    pub fn vector<const N: usize>(&mut self) -> Result<[f32; N], FormatError> {
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
        let mut t = Tokens::new("MD5", "a \"b c\" // x\n( 1.5 )\n{");
        assert_eq!(t.next_token().unwrap().text, "a");
        let s = t.next_token().unwrap();
        assert!(s.quoted && s.text == "b c");
        assert_eq!(t.vector::<1>().unwrap(), [1.5]);
        assert_eq!(t.next_token().unwrap().line, 3);
        assert!(t.next_token().is_none());
        let e = Tokens::new("MD5", "\n\nnan").number().unwrap_err();
        assert!(e.to_string().contains("line 3"), "{e}");
    }
}
