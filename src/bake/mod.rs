//! Baking: the application layer, from a resolved [`crate::spec::Resolved`] to finished
//! images and files — load the model and its attachments ([`load`]), pose, place in the
//! canonical world frame, fit the camera, render, post-process (`post`), and make the
//! products (`products`: a render, a sprite sheet with its engine data (`engines`), a GIF,
//! numbered frames).
//! The command line, `check` manifests and `bake` project files all go through here; the
//! layers below know nothing of each other.

mod chrome;
mod distance;
pub(crate) mod engines;
pub(crate) mod export;
pub(crate) mod frame;
pub(crate) mod frames_data;
mod framing;
pub(crate) mod job;
pub(crate) mod load;
pub(crate) mod maps;
pub(crate) mod palette;
pub mod pipeline;
pub(crate) mod pixel_art;
mod points;
pub(crate) mod post;
pub(crate) mod products;
pub mod project;
pub(crate) mod rig;
pub(crate) mod sheet;

pub use export::write_obj;
pub use frame::{FrameRequest, render_frame, render_posed};
pub(crate) use frame::{joint_pixels, scene, world_points};
pub use frames_data::{FramesData, data_path};
pub(crate) use job::{Cell, Job, JobInfo, Prepared, SheetTag, WaveSink};
pub(crate) use load::add_all_clip;
pub use load::{Loaded, load, load_within};
pub use maps::{MapKind, Maps};
pub use points::{Follows, Point};
pub use products::{Product, render_moments};
pub(crate) use sheet::{FinishedPage, SheetBuilder, page_bound};
pub use sheet::{Placement, Sheet};

pub use crate::sprite::{DEFAULT_MAX_PAGE, Directions, FrameNames, JsonFormat, Layout, Looping, Packing, Sampling};
