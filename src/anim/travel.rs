//! Taking a clip's travel off (posing in place): one rigid horizontal shift of the whole
//! model per frame.
//!
//! A rig may have several roots that all travel: three.js RobotExpressive hangs the body under
//! `Body` and the foot IK targets under a sibling `Bone`, both translated over a walk. Pinning
//! each root to its own start would pull the feet away from the legs by however far their
//! strides differ from the body's; taking the *principal* root's travel off every root moves
//! the whole posed model as one piece, so the in-place pose is the travelling pose shifted.

use glam::Vec3;

use crate::model::Skeleton;

/// The root whose travel is taken off: of `candidates` (joint indices), the one with the most
/// descendant joints, the first in joint order on ties.
///
/// The root carrying most of the skeleton is the body; the others carry what moves with it
/// (IK targets, props, a mesh node). Counting joints needs nothing but the hierarchy, so the
/// choice is the same for every frame and clip of the model, and the tie rule keeps it
/// deterministic (a single-root rig always picks its root, as before).
pub(super) fn principal(skeleton: &Skeleton, candidates: &[usize]) -> Option<usize> {
    let descendants = descendant_counts(skeleton);
    let count = |j: usize| descendants.get(j).copied().unwrap_or(0);
    // `max_by_key` keeps the last of equal keys: the reversed index makes that the first joint.
    candidates.iter().copied().max_by_key(|&j| (count(j), std::cmp::Reverse(j)))
}

/// How many joints hang below each joint, at any depth.
fn descendant_counts(skeleton: &Skeleton) -> Vec<usize> {
    let mut counts = vec![0usize; skeleton.joints.len()];
    // Parents precede children, so walking backwards finishes every child before its parent.
    for (j, joint) in skeleton.joints.iter().enumerate().rev() {
        let below = counts[j] + 1;
        if let Some(parent) = joint.parent.and_then(|p| counts.get_mut(p)) {
            *parent += below;
        }
    }
    counts
}

/// `now` (model space) with its horizontal components put back to `start`'s: the vertical one
/// (bobbing) is kept. `up` is the model's up axis with non-negative components.
pub(super) fn pinned(up: Vec3, now: Vec3, start: Vec3) -> Vec3 {
    now * up + start * (Vec3::ONE - up)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Joint, JointPose};

    fn skeleton(parents: &[Option<usize>]) -> Skeleton {
        let joint = |(i, &parent)| Joint { name: format!("j{i}"), parent, rest: JointPose::IDENTITY };
        Skeleton { joints: parents.iter().enumerate().map(joint).collect() }
    }

    #[test]
    fn the_principal_root_carries_most_joints_and_ties_go_to_the_first() {
        // j0 (no children), j1 → j2 → j3, j4 → j5.
        let s = skeleton(&[None, None, Some(1), Some(2), None, Some(4)]);
        assert_eq!(descendant_counts(&s), [0, 2, 1, 0, 1, 0]);
        assert_eq!(principal(&s, &[0, 1, 4]), Some(1));
        assert_eq!(principal(&s, &[4, 2]), Some(2));
        assert_eq!(principal(&s, &[5, 3, 0]), Some(0));
        assert_eq!(principal(&s, &[]), None);
    }
}
