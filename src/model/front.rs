//! Which way a model seems to face, read from its rest pose rather than from the axes its
//! format declares: a file that breaks its format's convention (three.js's Soldier faces −Z
//! where glTF's front is +Z) otherwise renders its back in the `S` direction, silently.
//!
//! Only a sign that holds for the rigs people bring is used, and only when it is clear:
//!
//! * **Toes.** A joint named `*toe*` whose parent is named `*foot*` or `*ankle*` (Mixamo's
//!   `LeftFoot` → `LeftToeBase`, Blender's `foot.L` → `toe.L`) points forward from the ankle:
//!   each such bone must lie mostly level (its level part at least half its length) and
//!   within 30° of one of the four level axes, and every foot must agree.
//! * **Head and tail.** Without toes, a rig with a `*head*` and a `*tail*` joint faces from
//!   the tail to the head (four-legged rigs), under the same test.
//!
//! A model without a skeleton, or whose joints show no clear sign, gets no answer: never a
//! guess.

use glam::Vec3;

use super::orientation::{Axis, Orientation};
use super::skeleton::Skeleton;

/// Shortest bone that counts, as a share of the model's height: a zero-length toe (an end
/// marker on the ankle) points nowhere.
const MIN_BONE_SHARE: f32 = 0.01;
/// Smallest level part of a bone, as a share of its length.
const MIN_LEVEL_SHARE: f32 = 0.5;
/// Cosine of the largest angle between a bone's level part and the axis it votes for (30°).
const MIN_AXIS_COSINE: f32 = 0.866;

/// A model's front as its rest pose shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrontSign {
    /// The axis of the model's file it faces.
    pub axis: Axis,
    /// What showed it: `"its toes"`, `"its head and tail"`.
    pub evidence: &'static str,
}

/// Which way a model with `skeleton`, turned into the renderer's frame by `orientation` and
/// `height` tall, seems to face in its file's axes, when its rest pose shows it clearly (see
/// the module notes); `None` otherwise.
pub(super) fn seeming_front(skeleton: &Skeleton, orientation: Orientation, height: f32) -> Option<FrontSign> {
    let world = skeleton.to_model_space(&skeleton.rest_pose());
    let at = |i: usize| world.get(i).map(|m| Vec3::from(m.translation));
    let name = |i: usize| skeleton.joints.get(i).map(|j| j.name.to_ascii_lowercase()).unwrap_or_default();
    let toes: Vec<(Vec3, Vec3)> = skeleton
        .joints
        .iter()
        .enumerate()
        .filter(|(_, j)| j.name.to_ascii_lowercase().contains("toe"))
        .filter_map(|(i, j)| {
            let parent = j.parent?;
            let foot = name(parent);
            (foot.contains("foot") || foot.contains("ankle")).then_some((at(parent)?, at(i)?))
        })
        .collect();
    let to_canonical = orientation.to_canonical();
    let min_length = height * MIN_BONE_SHARE;
    let vote = |bones: &[(Vec3, Vec3)]| -> Option<Axis> {
        let votes: Vec<Option<Axis>> =
            bones.iter().map(|(from, to)| level_axis(to_canonical * (*to - *from), min_length)).collect();
        let first = (*votes.first()?)?;
        votes.iter().all(|v| *v == Some(first)).then_some(first)
    };
    // The axis of the file that the orientation turns onto `canonical`.
    let file_axis =
        |canonical: Axis| Axis::ALL.into_iter().find(|a| (to_canonical * a.to_vec3()).dot(canonical.to_vec3()) > 0.5);
    if !toes.is_empty() {
        return Some(FrontSign { axis: file_axis(vote(&toes)?)?, evidence: "its toes" });
    }
    let find = |part: &str| (0..skeleton.joints.len()).find(|&i| name(i).contains(part));
    let (head, tail) = (find("head")?, find("tail")?);
    Some(FrontSign { axis: file_axis(vote(&[(at(tail)?, at(head)?)])?)?, evidence: "its head and tail" })
}

/// The level axis (±X or ±Z of the renderer's Y-up frame) that `bone` clearly points along,
/// if it is at least `min_length` long and mostly level.
fn level_axis(bone: Vec3, min_length: f32) -> Option<Axis> {
    let length = bone.length();
    let level = Vec3::new(bone.x, 0.0, bone.z);
    if !(length >= min_length && length > 0.0) || level.length() < MIN_LEVEL_SHARE * length {
        return None;
    }
    let direction = level.normalize();
    [Axis::PosX, Axis::NegX, Axis::PosZ, Axis::NegZ].into_iter().find(|a| direction.dot(a.to_vec3()) >= MIN_AXIS_COSINE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_level_bone_votes_for_the_axis_it_points_along() {
        assert_eq!(level_axis(Vec3::new(0.0, -0.2, 1.0), 0.1), Some(Axis::PosZ));
        assert_eq!(level_axis(Vec3::new(-1.0, 0.0, 0.3), 0.1), Some(Axis::NegX));
        // Between two axes, mostly upright, or too short: no vote.
        assert_eq!(level_axis(Vec3::new(1.0, 0.0, 1.0), 0.1), None);
        assert_eq!(level_axis(Vec3::new(0.0, 1.0, 0.3), 0.1), None);
        assert_eq!(level_axis(Vec3::new(0.0, 0.0, 0.05), 0.1), None);
    }
}
