//! Wavefront OBJ + MTL. Placeholder until the loader lands.

use super::FormatError;
use crate::model::Model;

/// Parses an OBJ file; `load_mtl` returns the bytes of a material library named by `mtllib`.
///
/// # Errors
/// Always, until implemented.
pub fn parse(_src: &[u8], _load_mtl: &mut dyn FnMut(&str) -> Option<Vec<u8>>) -> Result<Model, FormatError> {
    Err(FormatError::whole_file("OBJ", "not supported yet"))
}
