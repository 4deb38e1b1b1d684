//! Writing results: PNG images, animated GIFs and posed OBJ meshes.
//!
//! Every command plans its outputs first ([`OutputPlan`]: no output on an input, no two outputs
//! on one file, names from model data sanitized by [`sanitize_component`]) and writes them
//! through a [`Transaction`]: temporary files renamed into place together, removed on failure
//! or interrupt, so a run never leaves a half-written output or half a set.

pub mod gif;
mod obj;
mod pattern;
mod plan;
mod png;
mod sanitize;
mod transaction;

pub use obj::{ObjExport, encode_obj};
pub use pattern::FramePattern;
#[doc(hidden)]
pub use pattern::MAX_PAD_WIDTH;
pub(crate) use plan::FileKey;
#[doc(hidden)]
pub use plan::PlannedOutput;
pub use plan::{OutputFormat, OutputPlan};
#[doc(hidden)]
pub use png::{decode_png_within, encode_rgba_png, read_png_within};
pub use png::{encode_png, read_png, write_png};
#[doc(hidden)]
pub use sanitize::{MAX_COMPONENT_BYTES, is_component_char, sanitize_component};
pub use transaction::{Transaction, write_atomic};
#[doc(hidden)]
pub use transaction::{WritesStopped, stop_writing};
