//! The format's name in glTF errors, and errors about the file as a whole.

use crate::formats::FormatError;

pub(super) const FORMAT: &str = "glTF";

/// A glTF error about the file as a whole (glTF's JSON has no useful byte offsets).
#[cold]
pub(super) fn err(message: impl Into<String>) -> FormatError {
    FormatError::whole_file(FORMAT, message)
}
