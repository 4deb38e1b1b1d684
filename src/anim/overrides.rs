//! Bone overrides: extra rotations of chosen joints on top of every frame, as the Half-Life
//! model viewers' controller sliders turn a head towards a target.
//!
//! An override rotates the joint **in its own local frame**, after the clip is sampled and
//! blended and before the hierarchy is built: `local = T · R · R_override · S`. The whole
//! subtree below the joint follows; nothing else moves. Angles are degrees about the joint's
//! own axes, composed like Half-Life's `AngleMatrix` (and SMD bone rotations):
//! `R_override = Rz(yaw) · Ry(pitch) · Rx(roll)`, right-handed (positive = counter-clockwise
//! looking down the axis). In the Quake/Half-Life family, where joint frames usually follow
//! the Z-up model, yaw turns about up, pitch about the left/right axis, roll about the front.

use glam::Quat;

use crate::model::JointPose;

/// A rotation added to one joint's parent-relative pose.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoneOverride {
    /// Index into the skeleton's joints.
    pub joint: usize,
    /// Rotation in the joint's local frame.
    pub rotation: Quat,
}

impl BoneOverride {
    /// An override from yaw, pitch and roll in degrees: `Rz(yaw) · Ry(pitch) · Rx(roll)`.
    pub fn from_degrees(joint: usize, yaw: f32, pitch: f32, roll: f32) -> BoneOverride {
        BoneOverride { joint, rotation: rotation_from_degrees(yaw, pitch, roll) }
    }
}

/// `Rz(yaw) · Ry(pitch) · Rx(roll)` with angles in degrees.
pub(crate) fn rotation_from_degrees(yaw: f32, pitch: f32, roll: f32) -> Quat {
    Quat::from_rotation_z(yaw.to_radians())
        * Quat::from_rotation_y(pitch.to_radians())
        * Quat::from_rotation_x(roll.to_radians())
}

/// Applies overrides to parent-relative poses (unknown joint indices are ignored).
pub(crate) fn apply_overrides(locals: &mut [JointPose], overrides: &[BoneOverride]) {
    for o in overrides {
        if let Some(pose) = locals.get_mut(o.joint) {
            pose.rotation = (pose.rotation * o.rotation).normalize();
        }
    }
}
