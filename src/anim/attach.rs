//! Attachments: other models posed with the body and drawn as part of it.
//!
//! * **Lockstep** (Quake 2 linked models): the attachment plays the body's motion frame for
//!   frame, with the body's interpolation, blend and transition. When both are morph models
//!   with the same number of key shapes — how Quake 2 builds `weapon.md2` for a player model —
//!   the body's clips play on the attachment by key-shape *index*, as Quake 2 draws the weapon
//!   with the player's frame number (so `salute_alt` on ogro drives the weapon's `salutewep`:
//!   the frame names differ, the indices agree). Otherwise the attachment's clips of the same
//!   *names* play. An attachment without clips is a static prop placed in the body's model
//!   space.
//! * **Joint** (skeletal bodies): the attachment's rest pose follows one joint: every vertex
//!   is `joint_to_model(t) · offset · to_body_axes · v` and every normal the same with the
//!   inverse-transpose, renormalised. So the attachment is authored with its origin at the
//!   grip, in the joint's local frame; `offset` moves it from there.
//! * **Tag** (morph bodies: MD3's `tag_weapon`): as a joint mount, on the tag's placement in
//!   the key shapes the body is showing, lerped between them as Quake 3 does (`R_LerpTag`);
//!   a transition or blend mixes the placements of its two clips the same way.
//! * **Axes.** An attachment keeps its own file's orientation; `to_body_axes` turns its up and
//!   front onto the body's (an OBJ prop authored Y-up comes out pointing along the body's up
//!   axis, i.e. upright in the joint's frame at the rest pose of the usual Quake/Half-Life
//!   skeletons whose joint frames follow the model). Linked models of the body's own format
//!   are given the body's orientation when loaded, so they need no turn.
//!
//! The posed parts borrow from the attachment model (uvs, indices, materials), so one
//! [`PosedMesh`](crate::model::PosedMesh) holds the body and its attachments as long as all the models outlive it.

use glam::{Affine3A, Mat3};

use crate::model::Model;

/// Where an attachment hangs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Mount {
    /// Plays the body's motion frame for frame (Quake 2 linked models; see the module notes).
    Lockstep,
    /// Rigidly on this joint (index into the body's skeleton).
    Joint(usize),
    /// Rigidly on this tag (index into the body's [`Model::tags`]).
    Tag(usize),
}

/// A model drawn with the body.
#[derive(Debug, Clone)]
pub struct Attachment<'a> {
    /// The attached model.
    pub model: &'a Model,
    /// How it follows the body.
    pub mount: Mount,
    /// Extra placement in the joint's or tag's frame (joint and tag mounts) or the body's model space
    /// (lockstep), applied after turning the attachment into the body's axes.
    pub offset: Affine3A,
}

/// Rotation from `attachment`'s file axes into `body`'s file axes.
pub fn to_body_axes(body: &Model, attachment: &Model) -> Mat3 {
    // Both orientations map to the canonical frame; the inverse of a rotation is its transpose.
    body.orientation.to_canonical().transpose() * attachment.orientation.to_canonical()
}

/// True when `body` and `attachment` are morph models with the same number of key shapes in
/// every mesh: the body's clips index the attachment's key shapes too (Quake 2 linked models).
pub(crate) fn shares_key_shapes(body: &Model, attachment: &Model) -> bool {
    let count = |m: &Model| {
        let first = m.meshes.first().map(|mesh| mesh.morph_frames.len()).filter(|&n| n > 0)?;
        m.meshes.iter().all(|mesh| mesh.morph_frames.len() == first).then_some(first)
    };
    count(body).is_some() && count(body) == count(attachment)
}
