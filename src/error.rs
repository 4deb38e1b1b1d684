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

/// Bytes as MiB rounded up, for messages.
pub(crate) fn mib(bytes: u64) -> u64 {
    bytes.div_ceil(1 << 20)
}

impl Error {
    /// A refused option value (see [`Error::BadOption`]).
    pub fn bad_option(option: &str, value: impl std::fmt::Display, expected: impl Into<String>) -> Error {
        Error::BadOption { option: option.to_string(), value: value.to_string(), expected: expected.into() }
    }

    /// An I/O error on `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Error {
        Error::Io { path: path.into(), source }
    }
}

/// Result with spritebake's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
