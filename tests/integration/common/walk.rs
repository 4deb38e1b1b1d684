//! A rig with two travelling roots, as three.js RobotExpressive has them (the body under
//! `Body`, the foot IK targets under a sibling `Bone`): a body with a head below it, and feet
//! under a sibling root, both carried forward (+Z) over a one-second walk with different
//! strides, the body bobbing. The format tests write it as glTF and as FBX;
//! [`assert_walks_in_place_rigidly`] says what posing it in place must give.

use glam::Vec3;
use spritebake::anim::{FrameTime, PoseOptions, pose};
use spritebake::model::{Aabb, Model};

/// Key times, in seconds.
pub const TIMES: [f32; 3] = [0.0, 0.5, 1.0];
/// The body root's model-space place at each key (Y up): forward steadily, bobbing.
pub const BODY: [[f32; 3]; 3] = [[0.0, 1.0, 0.0], [0.0, 1.05, 0.5], [0.0, 1.0, 1.0]];
/// The feet root's: a short step, then a long one.
pub const FEET: [[f32; 3]; 3] = [[0.0, 0.0, 0.0], [0.0, 0.0, 0.1], [0.0, 0.0, 1.0]];
/// The head joint's offset from the body, in model axes.
pub const HEAD: [f32; 3] = [0.0, 0.5, 0.0];
/// The rest vertices, in model space: three triangles, the feet's, the body's and the head's,
/// each vertex bound wholly to its triangle's joint (joints in the order feet, body, head).
pub const VERTICES: [[f32; 3]; 9] = [
    [-0.3, 0.0, 0.0],
    [0.3, 0.0, 0.0],
    [0.0, 0.2, 0.0],
    [-0.3, 0.8, 0.0],
    [0.3, 0.8, 0.0],
    [0.0, 1.3, 0.0],
    [-0.2, 1.4, 0.0],
    [0.2, 1.4, 0.0],
    [0.0, 1.7, 0.0],
];

/// The joint (0 feet, 1 body, 2 head) vertex `v` is bound to.
pub fn joint_of(v: usize) -> usize {
    v / 3
}

/// The head's rest place in model space.
pub fn head_at_rest() -> [f32; 3] {
    (Vec3::from(BODY[0]) + Vec3::from(HEAD)).to_array()
}

/// Asserts, for every frame of `clip`: posed in place, the model is its travelling pose
/// (`--root-motion`) shifted as one piece (what is left after taking the mean offset off is
/// within 1e-4 of the model's size), the shift is horizontal, and the body stays where it
/// starts; with root motion the body walks.
pub fn assert_walks_in_place_rigidly(model: &Model, clip: &str) {
    let clip = model.clip(clip).unwrap_or_else(|| panic!("no clip '{clip}'"));
    let up = model.orientation.up.to_vec3().abs();
    let posed = |frame: usize, in_place: bool| -> Vec<Vec3> {
        let options = PoseOptions { looping: false, in_place };
        let posed = pose(model, Some(clip), FrameTime::Frame(frame as f32), &options);
        posed.parts.iter().flat_map(|p| p.positions.iter().copied()).collect()
    };
    let rest = posed(0, true);
    let size = Aabb::from_points(rest.iter().copied()).size().length();
    // The body and head: everything above the feet.
    let body: Vec<usize> = (0..rest.len()).filter(|&i| rest[i].dot(up) > 0.5).collect();
    let centre = |points: &[Vec3]| body.iter().map(|&i| points[i]).sum::<Vec3>() / body.len() as f32;
    let flat = |p: Vec3| p - p.dot(up) * up;
    let start = centre(&rest);
    let mut walked = 0.0f32;
    for frame in 0..clip.frame_count() {
        let (here, travelling) = (posed(frame, true), posed(frame, false));
        let offsets: Vec<Vec3> = travelling.iter().zip(&here).map(|(a, b)| *a - *b).collect();
        let mean = offsets.iter().sum::<Vec3>() / offsets.len() as f32;
        let bent = offsets.iter().map(|o| (*o - mean).length()).fold(0.0, f32::max) / size;
        assert!(bent <= 1e-4, "frame {frame}: in place is the travelling pose bent by {bent:.2e} of the size");
        assert!(mean.dot(up).abs() <= 1e-4 * size, "frame {frame}: the shift {mean} is not horizontal");
        let drift = flat(centre(&here) - start).length() / size;
        assert!(drift <= 1e-4, "frame {frame}: in place, the body travels {drift:.2e} of the size");
        walked = walked.max(flat(centre(&travelling) - start).length());
    }
    assert!(walked > 0.9, "with root motion the body walks only {walked}");
}
