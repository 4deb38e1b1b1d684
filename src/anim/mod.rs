//! Posing: evaluate a clip at a time and produce the posed mesh.
//!
//! * **Time → frames.** A time maps to two neighbouring frames and a fraction. Looping clips
//!   wrap and interpolate the last frame back into frame 0; clamped clips hold the last frame.
//!   A whole frame number returns that frame's stored data untouched (bit-exact), so a sprite
//!   of frame 3 is exactly frame 3.
//! * **Skeletal clips** interpolate the *parent-relative* joint poses (lerp translation and
//!   scale, shortest-path slerp rotation) and only then build the hierarchy. This is what Doom 3,
//!   assimp and Blender do; interpolating finished model-space joints instead shortens limbs
//!   mid-frame (a rotating arm cuts the corner of its arc).
//! * **Skinning** is linear blend skinning with joint-space influence positions (see
//!   [`crate::model::Influence`]), parallel over vertices for large meshes. Each vertex is
//!   computed independently in the same order of operations, so the result is bit-identical
//!   for any thread count.
//! * **Morph clips** (MD2) lerp positions and normals between key shapes.
//! * **Animation control** ([`Animation`], posed by [`animate`]): what plays ([`Motion`]: the
//!   rest pose, a clip or a [`Transition`]) plus [`Layers`] on top — a [`Blend`] with a
//!   second clip, [`BoneOverride`]s and [`Attachment`]s. Skeletal layers compose on the
//!   parent-relative poses from [`local_poses`] in this order: motion (transition mix), blend,
//!   overrides; then the hierarchy is built and the mesh skinned; then attachments are posed
//!   against the finished joints. See `blend.rs`, `overrides.rs` and `attach.rs` for each.
//!   [`pose`] is the plain case (one clip, no layers) and gives the same result as [`animate`].
//! * **Cycling materials** ([`crate::model::MaterialCycle`], a Quake 1 skin group): both show
//!   each cycle's turn at the motion's time in seconds.

mod animation;
pub(crate) mod attach;
mod blend;
pub(crate) mod clip;
pub(crate) mod compose;
pub(crate) mod keyed;
mod overrides;
mod sample;
mod skin;
mod travel;

pub use animation::{Animation, Layers};
pub(crate) use attach::shares_key_shapes;
pub(crate) use attach::to_body_axes;
pub use attach::{Attachment, Mount};
pub(crate) use blend::blend_poses;
pub use blend::{Blend, Motion, Transition};
pub(crate) use clip::local_poses;
pub use clip::{pose, rest_pose};
use clip::{pose_shape, show_turns};
pub use compose::animate;
pub(crate) use compose::{animate_points, animated_joint_transforms, mount_placement, root_travel};
pub use overrides::BoneOverride;
pub(crate) use overrides::{apply_overrides, rotation_from_degrees};
pub(crate) use sample::frame_pair;
pub use sample::{FrameTime, PoseOptions};
