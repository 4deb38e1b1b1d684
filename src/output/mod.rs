//! Writing results: PNG images, animated GIFs and posed OBJ meshes.
//!
//! Every command plans its outputs first ([`OutputPlan`]: no output on an input, no two outputs
//! on one file, names from model data sanitized by [`sanitize_component`]) and writes them
//! through a [`Transaction`]: temporary files renamed into place together, removed on failure
//! or interrupt, so a run never leaves a half-written output or half a set.

pub mod gif;
mod names;
mod obj;
mod pattern;
mod plan;
mod png;
mod transaction;

pub use names::{MAX_COMPONENT_BYTES, sanitize_component};
pub use obj::{ObjExport, encode_obj};
pub use pattern::{FramePattern, MAX_PAD_WIDTH};
pub use plan::{OutputFormat, OutputPlan, PlannedOutput};
pub use png::{decode_png_within, encode_png, encode_rgba_png, read_png, read_png_within, write_png};
pub use transaction::{Transaction, WritesStopped, stop_writing, write_atomic};
