//! Baking: the application layer, from a resolved [`crate::spec::Resolved`] to finished
//! images and files — load the model and its attachments ([`load`]), pose, place in the
//! canonical world frame, fit the camera, render, post-process ([`post`]), and make the
//! products ([`products`]: a render, a sprite sheet with its engine data ([`engines`]), a GIF,
//! numbered frames).
//! The command line, `check` manifests and `bake` project files all go through here; the
//! layers below know nothing of each other.

mod chrome;
mod distance;
#[doc(hidden)]
pub mod engines;
pub mod export;
mod frame;
pub mod frames_data;
mod framing;
mod job;
mod load;
#[doc(hidden)]
pub mod maps;
#[doc(hidden)]
pub mod palette;
pub mod pipeline;
#[doc(hidden)]
pub mod pixel_art;
mod points;
#[doc(hidden)]
pub mod post;
pub mod products;
pub mod project;
#[doc(hidden)]
pub mod rig;
mod sheet;

pub use frame::{FrameRequest, render_frame, render_posed};
#[doc(hidden)]
pub use frame::{joint_pixels, model_to_world, render_posed_into, scene, world_points};
pub use job::{Cell, Job, JobInfo, Prepared, SheetTag, WaveSink, reference_ground};
#[doc(hidden)]
pub use load::{ALL_CLIPS, add_all_clip};
pub use load::{Loaded, load, load_within};
pub use maps::{MapKind, Maps};
pub use points::{Follows, Point};
pub use products::{Product, render_moments};
#[doc(hidden)]
pub use sheet::{FinishedPage, SheetBuilder, page_bound};
pub use sheet::{Packed, Page, Placement, Sheet, pack};

pub use crate::sprite::{DEFAULT_MAX_PAGE, Directions, FrameNames, JsonFormat, Layout, Looping, Packing, Sampling};
