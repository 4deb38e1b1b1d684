mod format;
pub(crate) mod suggest;

use std::path::PathBuf;

pub(crate) use format::excerpt;
pub use format::{FormatError, Location};
pub use suggest::UnknownName;

/// Everything that can go wrong in spritebake's library calls.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// A model or animation file is malformed.
    #[error(transparent)]
    Format(#[from] FormatError),
    /// The file's format is not recognised.
    #[error("{}: unsupported model format (expected one of {expected})", path.display())]
    UnsupportedFormat {
        /// The file.
        path: PathBuf,
        /// The model files spritebake reads (`Format::extension_list`).
        expected: String,
    },
    /// An image could not be encoded or decoded.
    #[error("{}: {message}", path.display())]
    Image {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// A request that cannot be carried out (no frames to put in a sheet...).
    #[error("{0}")]
    Invalid(String),
    /// Something refused in a file the command reads (a check manifest, project file, spec file,
    /// palette, QC file, golden, animation file...), with the place in it where there is one.
    #[error("{}", in_file_message(path, entry.as_deref(), *line, message))]
    InFile {
        /// The file.
        path: PathBuf,
        /// The entry of the file at fault, as the file's own messages label it (`case #2`,
        /// `[[sheet]] 'walk'`, `[defaults]`).
        entry: Option<String>,
        /// The 1-based line at fault.
        line: Option<usize>,
        /// What is wrong there.
        message: String,
    },
    /// An output (JSON data, a GIF) could not be encoded.
    #[error("{what}: {message}")]
    Encode {
        /// What was being encoded, as the message leads with it ("encoding the sheet JSON",
        /// "GIF encoding failed").
        what: String,
        /// The encoder's error.
        message: String,
    },
    /// An image size out of range or not the one expected: an image too large to allocate, a
    /// render over its sample limit, a GIF side over 65535, a frame larger than a sheet page,
    /// images of differing sizes.
    #[error("{0}")]
    Size(String),
    /// An internal inconsistency (a sheet frame that was not planned, a GIF frame that is not
    /// there...): a bug in spritebake, please report it with the command that gave it.
    #[error("{0}")]
    Internal(String),
    /// A clip, joint or other name that matches nothing, with the closest known names.
    #[error(transparent)]
    UnknownName(#[from] UnknownName),
    /// An option (a command-line flag, or the manifest or project key of the same name) whose
    /// value is refused. The message names the option in the key form (`pixel_art`); the
    /// command line shows it as its flag (`--pixel-art`).
    #[error("`{option}` = {value}: {expected}")]
    BadOption {
        /// The option's key (`sample_fps`), as [`crate::BakeSpec`] and manifests name it.
        option: String,
        /// The value as given (or `(unset)`).
        value: String,
        /// What is accepted, e.g. "must be from 1 to 16" or "needs `pixel_art`".
        expected: String,
    },
    /// A count over one of a job's limits (frames a row, frames a job), found from the count
    /// before anything it sizes is allocated. `remedy` names options by their key in backticks
    /// (`frames`); the command line shows them as flags.
    #[error("{what} is {count}, more than the {limit} allowed: {remedy}")]
    OverLimit {
        /// What was counted ("the frame count of 'walk'").
        what: String,
        /// The count.
        count: usize,
        /// The limit.
        limit: usize,
        /// What brings it under the limit.
        remedy: String,
    },
    /// A read or write refused by the security model (a path leaving the allowed folders, a
    /// file that is not a regular file, an output that cannot be written...).
    #[error("{0}")]
    Refused(String),
    /// A folder or glob pattern of a batch's model arguments that holds no model file (and no
    /// folder the scan could not read).
    #[error("{}", no_models_message(argument, *pattern, extensions))]
    NoModels {
        /// The folder or pattern as given.
        argument: PathBuf,
        /// Whether it is a glob pattern (else a folder).
        pattern: bool,
        /// The model file extensions looked for, as a list to show.
        extensions: String,
    },
    /// An output planned on a file the command reads, or on another of its outputs: refused
    /// before anything is written. A batch names the items involved from `output` and `other`.
    #[error("{}", clash_message(output, other, *kind))]
    Clash {
        /// The output refused.
        output: PathBuf,
        /// The input it would overwrite, or the earlier output it would share a file with.
        other: PathBuf,
        /// Which of the two.
        kind: ClashKind,
    },
    /// Loading or rendering would allocate more than a memory budget allows.
    #[error("{what} needs {} MiB, over the {} MiB budget (raise it with `{option}`)", mib(*needed), mib(*budget))]
    Budget {
        /// What needs the memory ("texture skin.png (8192x8192)", "walk.md5anim: 5000 frames x 300 joints").
        what: String,
        /// Bytes needed.
        needed: u64,
        /// Bytes allowed.
        budget: u64,
        /// The option that raises the budget, as a key (`max_memory_mib`); the command line
        /// names it as its flag.
        option: &'static str,
    },
}

/// What an output clashes with ([`Error::Clash`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClashKind {
    /// A file the command reads (a model, texture, animation, manifest...).
    Input,
    /// Another output of the command (the same file, however spelled).
    Output,
}

fn no_models_message(argument: &std::path::Path, pattern: bool, extensions: &str) -> String {
    let found =
        if pattern { "the pattern matches no model files" } else { "no model files in this folder or its subfolders" };
    format!("{}: {found} ({extensions})", argument.display())
}

fn clash_message(output: &std::path::Path, other: &std::path::Path, kind: ClashKind) -> String {
    match kind {
        ClashKind::Input => format!("{}: refusing to overwrite an input file ({})", output.display(), other.display()),
        ClashKind::Output => format!(
            "{} and {} are the same file: two outputs of this command would overwrite each other",
            other.display(),
            output.display()
        ),
    }
}

/// [`Error::InFile`]'s message: `PATH: MESSAGE`, `PATH: line N: MESSAGE`,
/// `PATH: ENTRY (line N): MESSAGE` or `PATH: ENTRY: MESSAGE`.
fn in_file_message(path: &std::path::Path, entry: Option<&str>, line: Option<usize>, message: &str) -> String {
    let path = path.display();
    match (entry, line) {
        (None, None) => format!("{path}: {message}"),
        (None, Some(line)) => format!("{path}: line {line}: {message}"),
        (Some(entry), Some(line)) => format!("{path}: {entry} (line {line}): {message}"),
        (Some(entry), None) => format!("{path}: {entry}: {message}"),
    }
}

/// Bytes as MiB rounded up, for messages.
pub(crate) fn mib(bytes: u64) -> u64 {
    bytes.div_ceil(1 << 20)
}

impl Error {
    /// A refused option value (see [`Error::BadOption`]).
    pub fn bad_option(option: &str, value: impl std::fmt::Display, expected: impl Into<String>) -> Error {
        Error::BadOption { option: option.to_string(), value: value.to_string(), expected: expected.into() }
    }

    /// Something refused in the file `path` as a whole (see [`Error::InFile`]).
    pub fn in_file(path: impl Into<PathBuf>, message: impl Into<String>) -> Error {
        Error::InFile { path: path.into(), entry: None, line: None, message: message.into() }
    }

    /// Something refused on line `line` of the file `path` (see [`Error::InFile`]).
    pub fn at_line(path: impl Into<PathBuf>, line: usize, message: impl Into<String>) -> Error {
        Error::InFile { path: path.into(), entry: None, line: Some(line), message: message.into() }
    }

    /// Something refused in the entry `entry` of the file `path`, starting on `line` where
    /// known (see [`Error::InFile`]).
    pub fn in_entry(
        path: impl Into<PathBuf>,
        entry: impl Into<String>,
        line: Option<usize>,
        message: impl Into<String>,
    ) -> Error {
        Error::InFile { path: path.into(), entry: Some(entry.into()), line, message: message.into() }
    }

    /// An output that could not be encoded (see [`Error::Encode`]).
    pub fn encode(what: impl Into<String>, error: impl std::fmt::Display) -> Error {
        Error::Encode { what: what.into(), message: error.to_string() }
    }

    /// An internal inconsistency: a bug (see [`Error::Internal`]).
    pub fn internal(message: impl Into<String>) -> Error {
        Error::Internal(message.into())
    }

    /// An I/O error on `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Error {
        Error::Io { path: path.into(), source }
    }
}

/// Result with spritebake's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_variants_display_as_the_messages_they_replace() {
        let cases = [
            (Error::in_file("p.toml", "`defaults` must be a table"), "p.toml: `defaults` must be a table"),
            (Error::at_line("p.gpl", 3, "not a colour"), "p.gpl: line 3: not a colour"),
            (Error::in_entry("m.toml", "case #2", Some(7), "no `golden`"), "m.toml: case #2 (line 7): no `golden`"),
            (
                Error::in_entry("p.toml", "[[sheet]] 'walk'", Some(4), "needs an `output`"),
                "p.toml: [[sheet]] 'walk' (line 4): needs an `output`",
            ),
            (
                Error::in_entry("p.toml", "[defaults]", None, "`name` belongs in each entry"),
                "p.toml: [defaults]: `name` belongs in each entry",
            ),
            (
                Error::encode("encoding the sheet JSON", "key must be a string"),
                "encoding the sheet JSON: key must be a string",
            ),
            (Error::encode("GIF encoding failed", "format error"), "GIF encoding failed: format error"),
            (
                Error::Size("70000x1 is too large for a GIF (65535 at most)".into()),
                "70000x1 is too large for a GIF (65535 at most)",
            ),
            (Error::internal("sheet frame 3 was not placed"), "sheet frame 3 was not placed"),
        ];
        for (error, shown) in cases {
            assert_eq!(error.to_string(), shown);
        }
    }
}
