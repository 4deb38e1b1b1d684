//! Baking: the application layer, from a resolved [`crate::spec::Resolved`] to finished
//! images and files — load the model and its attachments ([`load`]), pose, place in the
//! canonical world frame, fit the camera, render, post-process ([`post`]), and make the
//! products ([`products`]: a render, a sprite sheet with its engine data ([`engines`]), a GIF,
//! numbered frames).
//! The command line, `check` manifests and `bake` project files all go through here; the
//! layers below know nothing of each other.

mod distance;
pub mod engines;
pub mod export;
mod frame;
mod framing;
mod job;
mod load;
pub mod maps;
pub mod palette;
pub mod pipeline;
pub mod post;
pub mod products;
pub mod project;
pub mod rig;
mod sheet;

pub use frame::{
    FrameRequest, joint_pixels, model_to_world, render_frame, render_posed, render_posed_into, scene, world_points,
};
pub use job::{Cell, Job, JobInfo, Prepared};
pub use load::{ALL_CLIPS, Loaded, add_all_clip, load};
pub use maps::{MapKind, Maps};
pub use products::{Baked, Product};
pub use sheet::{FinishedPage, Packed, Page, Placement, Sheet, SheetBuilder, pack, page_bound};

pub use crate::sprite::{DEFAULT_MAX_PAGE, Directions, FrameNames, JsonFormat, Layout, Packing, Sampling};
