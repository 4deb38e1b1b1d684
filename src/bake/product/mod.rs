//! The products of a bake and the one road that writes them: a render, a sprite sheet with its
//! engine data, a GIF, numbered frames with their JSON, an OBJ export; the sprite jobs whose
//! cells they are made of, and the sheet's layout.

pub(crate) mod engines;
pub(crate) mod export;
pub(crate) mod frames_data;
pub(crate) mod job;
pub mod pipeline;
pub(crate) mod products;
pub(crate) mod sheet;
