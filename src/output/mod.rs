//! Writing results: PNG images, animated GIFs and posed OBJ meshes.
//!
//! Every command plans its outputs first ([`OutputPlan`]: no output on an input, no two outputs
//! on one file, names from model data sanitized by [`sanitize_component`]) and writes them
//! through a [`Transaction`]: temporary files renamed into place together, removed on failure
//! or interrupt, so a run never leaves a half-written output or half a set.

pub mod gif;
mod obj;
pub(crate) mod pattern;
pub(crate) mod plan;
pub(crate) mod png;
pub(crate) mod sanitize;
pub(crate) mod transaction;
mod uses;

pub(crate) use obj::encode_obj;
pub(crate) use pattern::FramePattern;
pub(crate) use plan::FileKey;
pub use plan::{OutputFormat, OutputPlan};
pub(crate) use png::{decode_png_within, encode_rgba_png, read_png_within};
pub use png::{encode_png, read_png, write_png};
pub(crate) use sanitize::{MAX_COMPONENT_BYTES, is_component_char, sanitize_component};
pub use transaction::{Transaction, write_atomic};
pub(crate) use uses::{Role, Use, Uses};
