//! What is done to a rendered image: silhouette outlines (over an exact distance transform),
//! the pixel-art downscale and its palette, trimming and edge extrusion, and the normal and
//! depth maps that follow the colour image cell for cell.

pub(crate) mod distance;
pub(crate) mod maps;
pub(crate) mod palette;
pub(crate) mod pixel_art;
pub(crate) mod post;
