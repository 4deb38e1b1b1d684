use std::fmt;
use std::path::PathBuf;

/// Where in a file a problem was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Location {
    /// No finer position than the file.
    File,
    /// 1-based line of a text format.
    Line(usize),
    /// Byte offset into a binary format.
    Offset(u64),
}

/// A model file that could not be parsed: which format, which file, where, and what was expected.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct FormatError {
    /// Short format name (`MD2`, `MD5`, `SMD`, `OBJ`, ...).
    pub format: &'static str,
    /// The file, once known (parsers work on bytes; the loader fills this in).
    pub file: Option<PathBuf>,
    /// Position of the problem.
    pub location: Location,
    /// What was expected and what was found.
    pub message: String,
}

impl FormatError {
    /// Error at a 1-based line of a text file.
    #[cold]
    pub fn at_line(format: &'static str, line: usize, message: impl Into<String>) -> FormatError {
        FormatError { format, file: None, location: Location::Line(line), message: message.into() }
    }

    /// Error at a byte offset of a binary file.
    #[cold]
    pub fn at_offset(format: &'static str, offset: u64, message: impl Into<String>) -> FormatError {
        FormatError { format, file: None, location: Location::Offset(offset), message: message.into() }
    }

    /// Error about the file as a whole.
    #[cold]
    pub fn whole_file(format: &'static str, message: impl Into<String>) -> FormatError {
        FormatError { format, file: None, location: Location::File, message: message.into() }
    }

    /// The same error, naming the file it came from.
    pub fn in_file(mut self, file: impl Into<PathBuf>) -> FormatError {
        self.file = Some(file.into());
        self
    }
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(file) = &self.file {
            write!(f, "{}: ", file.display())?;
        }
        match self.location {
            Location::File => write!(f, "{}: {}", self.format, self.message),
            Location::Line(n) => write!(f, "{} line {}: {}", self.format, n, self.message),
            Location::Offset(o) => write!(f, "{} byte offset {}: {}", self.format, o, self.message),
        }
    }
}

impl std::error::Error for FormatError {}

/// How much of a file's text a message quotes.
const EXCERPT_BYTES: usize = 32;

/// File text a message quotes (a token that did not parse, a line that is not what was
/// expected), shown as its first [`EXCERPT_BYTES`] bytes and `…` when longer: a hostile file's
/// 20 MB line must not become a 20 MB error on the terminal, in an index page and in a JSON
/// report.
pub(crate) fn excerpt(text: &str) -> Excerpt<'_> {
    Excerpt(text)
}

/// See [`excerpt`].
pub(crate) struct Excerpt<'a>(&'a str);

impl fmt::Display for Excerpt<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.len() <= EXCERPT_BYTES {
            return f.write_str(self.0);
        }
        // Cut on a character boundary at or below the limit (one of the 4 bytes before it).
        let end = (0..=EXCERPT_BYTES).rev().find(|&i| self.0.is_char_boundary(i)).unwrap_or(0);
        write!(f, "{}…", &self.0[..end])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn message_names_file_format_and_line() {
        let e = FormatError::at_line("OBJ", 12, "expected 3 numbers after `v`, found 2").in_file("a/b.obj");
        assert_eq!(e.to_string(), "a/b.obj: OBJ line 12: expected 3 numbers after `v`, found 2");
        let e = FormatError::at_offset("MD2", 68, "bad count");
        assert_eq!(e.to_string(), "MD2 byte offset 68: bad count");
    }

    #[test]
    fn quoted_file_text_is_cut_to_an_excerpt_on_a_character_boundary() {
        assert_eq!(excerpt("short").to_string(), "short");
        assert_eq!(excerpt(&"A".repeat(1 << 20)).to_string(), format!("{}…", "A".repeat(EXCERPT_BYTES)));
        // 'é' is 2 bytes: byte 32 falls inside the 17th.
        assert_eq!(excerpt(&format!("A{}", "é".repeat(40))).to_string(), format!("A{}…", "é".repeat(15)));
    }
}
