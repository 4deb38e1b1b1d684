//! The points a sprite job follows from frame to frame (`--points`): joints, tags and
//! attachment points, and the root's travel; where each is in the world in a frame.

use glam::Vec3;

use crate::anim::{self, Animation, FrameTime, Mount};
use crate::bake::frame::render::model_to_world;
use crate::model::Model;

/// A point of the model followed from frame to frame: a joint or a tag, a place fixed to a
/// joint (an attachment point), or the root's travel.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    /// Its name, as the data writes it.
    pub name: String,
    /// What it follows.
    pub follows: Follows,
}

/// What a [`Point`] follows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Follows {
    /// A place on a joint or tag: where, in its space.
    Mount(Mount, Vec3),
    /// The ground under the model's origin carried by the clip's travel
    /// ([`anim::root_travel`]): where a game moves the sprite of a clip posed in place, the
    /// pivot itself for a clip that does not travel (and a model without a skeleton).
    RootTravel,
}

/// Where each of `points` of `model` is in the world at `time` of `row`, the frame's pivot
/// standing on `ground` (empty without points: the joints are not posed for nothing).
pub(in crate::bake) fn positions(
    model: &Model,
    points: &[Point],
    row: &Animation,
    time: FrameTime,
    ground: impl Fn() -> Vec3,
) -> Vec<Vec3> {
    if points.is_empty() {
        return Vec::new();
    }
    let on_joints = points.iter().any(|p| matches!(p.follows, Follows::Mount(Mount::Joint(_), _)));
    let joints = if on_joints { anim::animated_joint_transforms(model, row, time) } else { Vec::new() };
    let to_world = model_to_world(model);
    let at = |p: &Point| match p.follows {
        Follows::Mount(mount, offset) => {
            let placement = anim::mount_placement(model, mount, row, time, &joints);
            to_world.transform_point3(placement.transform_point3(offset))
        }
        Follows::RootTravel => ground() + to_world.transform_vector3(anim::root_travel(model, row, time)),
    };
    points.iter().map(at).collect()
}
