//! Writing results: PNG images, animated GIFs and posed OBJ meshes, always atomically (temporary file + rename), so a failure or
//! an interrupted run never leaves a half-written output.

mod atomic;
pub mod gif;
mod obj;
mod png;

pub use atomic::{remove_temporary_files, write_atomic};
pub use obj::write_obj;
pub use png::{encode_png, read_png, read_png_within, write_png};
