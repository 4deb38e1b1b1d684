//! One frame of a bake: the rig that poses it, the camera fitted to its job, the points it
//! follows, and the render.

pub(crate) mod chrome;
pub(crate) mod framing;
pub(crate) mod points;
pub(crate) mod render;
pub(crate) mod rig;
