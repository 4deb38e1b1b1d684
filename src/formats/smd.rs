//! Half-Life / Source SMD (text). Placeholder until the parser lands.

use super::FormatError;
use crate::model::{Clip, Model, Skeleton};

/// Parses a reference SMD (skeleton + triangles).
///
/// # Errors
/// Always, until implemented.
pub fn parse_reference(_src: &str) -> Result<Model, FormatError> {
    Err(FormatError::whole_file("SMD", "not supported yet"))
}

/// Parses a sequence SMD into a clip named `name`, matching bones to `skeleton` by name.
/// Returns the clip and warnings.
///
/// # Errors
/// Always, until implemented.
pub fn parse_sequence(_src: &str, _name: &str, _skeleton: &Skeleton) -> Result<(Clip, Vec<String>), FormatError> {
    Err(FormatError::whole_file("SMD", "not supported yet"))
}
