//! Reading the TOML files that hold specs — `check` manifests and `bake` project files: bounded
//! UTF-8 text, syntax errors with their line, a `[defaults]` table merged under each
//! `[[entry]]` table, and the line of each entry's header for messages.

use std::path::Path;

use crate::confine::read_file;
use crate::error::{Error, Result};

/// Largest spec file read, in bytes (about 10,000 entries of a few lines each). Parsed TOML
/// tables take about 75 times their text (2.7 MB of bare `[[case]]` lines took 200 MB), so
/// this limit is what bounds a file's memory; larger suites are split into several files.
pub(crate) const MAX_TOML_BYTES: u64 = 2 << 20;

/// Reads a TOML file of at most `max` bytes as UTF-8 text: a regular file, bounded (a FIFO or
/// a huge file must not hang or exhaust the command).
///
/// # Errors
/// Unreadable, not a regular file, over `max`, not UTF-8.
pub(crate) fn read_toml_text(path: &Path, max: u64, what: &str) -> Result<String> {
    let size = std::fs::metadata(path).map_or(0, |m| m.len());
    if size > max {
        return Err(Error::Refused(format!(
            "{}: {size} bytes, over the {max} byte limit for {what} (split it into several)",
            path.display()
        )));
    }
    let bytes = read_file(path, max)?;
    String::from_utf8(bytes)
        .map_err(|e| Error::in_file(path, format!("not UTF-8 text (byte {})", e.utf8_error().valid_up_to())))
}

/// Parses TOML text into a table, naming the line of a syntax error.
///
/// # Errors
/// TOML syntax.
fn parse_toml(text: &str, path: &Path) -> Result<toml::Table> {
    text.parse::<toml::Table>().map_err(|e| {
        let line = e.span().map(|s| line_of(text, s.start));
        let at = line.map(|l| format!(" line {l}")).unwrap_or_default();
        Error::Invalid(format!("{}{at}: {}", path.display(), e.message()))
    })
}

/// The 1-based line of byte `at`.
fn line_of(text: &str, at: usize) -> usize {
    text.as_bytes().iter().take(at).filter(|&&b| b == b'\n').count() + 1
}

/// The lines of the `[[NAME]]` headers of `text`, in order.
pub(crate) fn header_lines(text: &str, name: &str) -> Vec<usize> {
    let header = format!("[[{name}]]");
    text.lines().enumerate().filter(|(_, l)| l.trim_start().starts_with(&header)).map(|(i, _)| i + 1).collect()
}

/// `defaults` with `entry`'s keys on top.
pub(crate) fn merged(defaults: Option<&toml::Table>, entry: &toml::Table) -> toml::Table {
    let mut table = defaults.cloned().unwrap_or_default();
    table.extend(entry.iter().map(|(k, v)| (k.clone(), v.clone())));
    table
}

/// Parses a spec file's text (see [`parse_toml`]) and takes its `[defaults]` table out of it:
/// the rest of the top-level table, and the defaults.
///
/// # Errors
/// TOML syntax; `defaults` is not a table.
pub(crate) fn parse_with_defaults(text: &str, path: &Path) -> Result<(toml::Table, Option<toml::Table>)> {
    let mut table = parse_toml(text, path)?;
    match table.remove("defaults") {
        None => Ok((table, None)),
        Some(toml::Value::Table(t)) => Ok((table, Some(t))),
        Some(_) => Err(Error::in_file(path, "`defaults` must be a table")),
    }
}

/// Takes the `[[NAME]]` tables out of a file's top-level table, in file order (each still to be
/// checked to be a table).
///
/// # Errors
/// `NAME` is not an array.
pub(crate) fn take_entries(table: &mut toml::Table, name: &str, path: &Path) -> Result<Vec<toml::Value>> {
    match table.remove(name) {
        None => Ok(Vec::new()),
        Some(toml::Value::Array(a)) => Ok(a),
        Some(_) => Err(Error::in_file(path, format!("`{name}` must be [[{name}]] tables"))),
    }
}
