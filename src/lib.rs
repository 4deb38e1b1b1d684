//! spritebake: a headless CPU renderer that turns animated 3D game models into sprites.
//!
//! ```text
//!  file bytes ─► formats::* ─► model::Model ─► anim::pose ─► model::PosedMesh
//!  PosedMesh + Camera + Lights ─► raster::render ─► raster::Image ─► output::{png, gif, sheet}
//!                                                              └──► golden::compare
//! ```
//!
//! Layers only import downward: `model` knows nothing else; `formats`, `anim` and `raster` each
//! use `model` only; `output` and `golden` work on images.

#![forbid(unsafe_code)]

pub mod anim;
pub mod bake;
pub mod bounds;
pub mod budget;
pub mod check;
mod error;
pub mod formats;
pub mod golden;
pub mod model;
pub mod output;
pub mod raster;
pub mod spec;
pub mod text;

pub use spec::BakeSpec;

pub use budget::MemoryBudget;
pub use error::{Error, Result};
