//! Doom 3 MD5 mesh and anim (text). Placeholder until the parser lands.

use super::FormatError;
use crate::model::{Clip, Model, Skeleton};

/// Parses an `.md5mesh` file.
///
/// # Errors
/// Always, until implemented.
pub fn parse_mesh(_src: &str) -> Result<Model, FormatError> {
    Err(FormatError::whole_file("MD5", "not supported yet"))
}

/// Parses an `.md5anim` file into a clip named `name`, checked against `skeleton`.
///
/// # Errors
/// Always, until implemented.
pub fn parse_anim(_src: &str, _name: &str, _skeleton: &Skeleton) -> Result<Clip, FormatError> {
    Err(FormatError::whole_file("MD5", "not supported yet"))
}
