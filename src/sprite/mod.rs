//! What a sprite job is made of: the directions it turns through, which clips loop, the frames
//! of each clip it samples, how its cells are laid out on pages, and how its frames and engine
//! data files are named.
//!
//! Plain settings: [`crate::spec`] resolves options into them and [`crate::bake`] runs on them,
//! so they sit below both and neither imports the other for them. `bake` re-exports them
//! (`bake::Directions`, `bake::Layout`, `bake::engines::JsonFormat` ...).

mod directions;
mod frame_names;
mod json_format;
mod layout;
mod looping;
mod sampling;

pub use directions::Directions;
pub use frame_names::{FrameFacts, FrameNames};
pub use json_format::JsonFormat;
pub(crate) use json_format::{gamemaker_sprite, gml_identifier};
pub use layout::{DEFAULT_MAX_PAGE, Layout, Packing};
pub use looping::Looping;
pub use sampling::Sampling;
