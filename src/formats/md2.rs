//! Quake 2 MD2 (binary). Placeholder until the parser lands.

use super::FormatError;
use crate::model::Model;

/// Parses an MD2 file.
///
/// # Errors
/// Always, until implemented.
pub fn parse(_bytes: &[u8]) -> Result<Model, FormatError> {
    Err(FormatError::whole_file("MD2", "not supported yet"))
}
