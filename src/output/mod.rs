//! Writing results: PNG images, always atomically (temporary file + rename), so a failure or
//! an interrupted run never leaves a half-written output.

mod atomic;
mod png;

pub use atomic::write_atomic;
pub use png::{encode_png, read_png, write_png};
