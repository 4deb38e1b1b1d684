//! spritebake: a headless CPU renderer that turns animated 3D game models (Quake 1 and
//! Half-Life MDL, Quake 2 MD2, Quake 3 MD3 and players, Doom 3 MD5 and DEF, Half-Life SMD and
//! QC, IQM, OBJ, glTF, FBX) into sprites: renders, sprite sheets with engine data, animated
//! GIFs and frame sequences.
//!
//! # Baking a sprite sheet
//!
//! A bake is described by one [`BakeSpec`] — the same options, with the same defaults, as the
//! command line's flags and the keys of `check` manifests and `bake` project files. Resolve it
//! (every option checked), load what it names, and write a [`Product`] through the one
//! pipeline every command uses ([`bake::pipeline::write`]: cells stream into their pages and
//! files, so memory holds a page and the cells in flight, not the job):
//!
//! ```
//! use spritebake::{BakeSpec, MemoryBudget, Product, bake};
//!
//! # fn main() -> spritebake::Result<()> {
//! let mut spec = BakeSpec::default();
//! spec.model.model = "examples/assets/robot/robot.md5mesh".into();
//! spec.anim.anim = vec!["examples/assets/robot/walk.md5anim".into()];
//! spec.sprite.directions = 8;
//! spec.view.size = "64".parse().map_err(spritebake::Error::Invalid)?;
//! spec.view.ortho = true;
//!
//! let (resolved, out) = (spec.resolve()?, std::env::temp_dir().join("spritebake-doc-walk.png"));
//! let loaded = bake::load(&resolved)?;
//! // The PNG and its JSON, staged as they are made and renamed into place together (or neither).
//! let mut files = spritebake::output::Transaction::new();
//! bake::pipeline::write(Product::Sheet, &loaded, &resolved, &out.to_string_lossy(), &MemoryBudget::default(), &|| {}, &mut files)?;
//! files.commit()?;
//! # Ok(())
//! # }
//! ```
//!
//! A [`BakeSpec`] also reads from TOML ([`BakeSpec::from_table`]: `--pixel-art 3` is
//! `pixel_art = 3`) and, with the default `cli` feature, from clap flags (each option group
//! derives `clap::Args`).
//!
//! # Layers
//!
//! ```text
//!  file bytes ─► formats::load ─► model::Model ─► anim::animate ─► model::PosedMesh
//!  PosedMesh + Camera + Lights ─► raster::Renderer ─► raster::Image ─► output::{png, gif}
//!  spec::BakeSpec ─► resolve ─► bake::{load, pipeline} (the application layer)
//!  check: bake products compared with goldens (golden::compare_perceptual)
//!  thumbnail::ThumbnailBatch: many models' thumbnails on one memory pool, with their records
//! ```
//!
//! Layers only import downward: `model` knows nothing else; `formats` (which reads through the
//! confined reader, `confine`), `anim` and `raster` each use `model`; `output` and `golden` work
//! on images; `sprite` (directions, sampling, sheet layout, engine formats) sits below `spec`
//! and `bake`, which sit on top. `tests/integration/architecture.rs` holds the source tree free
//! of import circles.

#![forbid(unsafe_code)]
// What nothing outside the crate can reach says so (`pub(crate)`), so that `pub` marks the
// library's surface. Without the `internal` feature, the items only `internal` re-exports are
// reachable from nowhere (and some used by nothing in the library itself): the lints speak for
// the build that has it, the one every test and the binary use.
#![warn(unreachable_pub)]
#![cfg_attr(not(feature = "internal"), allow(unreachable_pub, dead_code, unused_imports))]

pub mod anim;
pub mod bake;
mod bounds;
mod budget;
pub mod check;
mod confine;
mod error;
mod escape;
pub mod formats;
#[cfg(feature = "internal")]
mod fuzzing;
pub mod golden;
#[cfg(feature = "internal")]
#[doc(hidden)]
pub mod internal;
pub mod model;
pub mod output;
pub mod raster;
pub mod spec;
mod sprite;
mod terminal;
pub mod thumbnail;

/// The README's and the library guide's examples run as doctests, so the book cannot drift
/// from the API.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
mod readme {}
#[cfg(doctest)]
#[doc = include_str!("../docs/library.md")]
mod library_guide {}

pub use bake::{Loaded, Product, load};
pub use budget::MemoryBudget;
pub use error::{ClashKind, Error, Result};
pub use formats::{LoadOptions, load as load_model};
pub use model::Model;
pub use raster::{Image, OrbitView, RenderOptions, Renderer};
pub use spec::{BakeSpec, Resolved};
