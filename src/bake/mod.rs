//! Baking: the application layer, from a resolved [`crate::spec::Resolved`] to finished
//! images and files. Its modules go by job:
//!
//! * `load`: the model with its animation files and attachments, and what the products
//!   render from it ([`load`]);
//! * `frame`: one frame — posed by the rig, placed in the canonical world frame, framed by a
//!   camera fitted to the job, rendered — and the points it follows;
//! * `look`: what is done to a rendered image — outlines, the pixel-art downscale and its
//!   palette, trimming, normal and depth maps;
//! * `product`: the products — a render, a sprite sheet with its engine data, a GIF, numbered
//!   frames, an OBJ export — the sprite jobs that draw their cells, the sheet's layout, and
//!   the one road that writes them ([`pipeline::write`]);
//! * [`project`]: `bake` project files, many entries baked and recorded.
//!
//! The command line, `check` manifests and `bake` project files all go through here; the
//! layers below know nothing of each other.

pub(crate) mod frame;
pub(crate) mod load;
pub(crate) mod look;
pub(crate) mod product;
pub mod project;

pub use frame::points::{Follows, Point};
pub use frame::render::{FrameRequest, render_frame, render_posed};
pub(crate) use frame::render::{joint_pixels, scene, world_points};
pub(crate) use load::add_all_clip;
pub use load::{Loaded, load, load_within};
pub use look::maps::{MapKind, Maps};
pub use product::export::write_obj;
pub(crate) use product::job::{Cell, Job, JobInfo, Prepared, SheetTag, WaveSink};
pub use product::pipeline;
pub use product::products::{Product, render_moments};
pub(crate) use product::sheet::{FinishedPage, SheetBuilder, page_bound};
pub use product::sheet::{Placement, Sheet};

pub use crate::sprite::{DEFAULT_MAX_PAGE, Directions, FrameNames, JsonFormat, Layout, Looping, Packing, Sampling};
