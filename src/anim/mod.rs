//! Posing: evaluate a clip at a time and produce the posed mesh. Placeholder until it lands.

use std::borrow::Cow;

use crate::model::{Clip, Model, PosedMesh, PosedPart};

/// When to sample a clip.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FrameTime {
    /// A frame index within the clip; fractions interpolate between neighbouring frames.
    Frame(f32),
    /// Seconds from the clip's start at its own rate.
    Seconds(f32),
}

/// How to pose.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PoseOptions {
    /// Wrap times past the end back to the start (true) or hold the last frame (false).
    pub looping: bool,
    /// Remove the root joint's horizontal translation so walk cycles stay in place.
    pub in_place: bool,
}

impl Default for PoseOptions {
    fn default() -> Self {
        PoseOptions { looping: true, in_place: false }
    }
}

/// Poses `model` at `time` of `clip` (rest pose when `clip` is `None`).
pub fn pose<'a>(model: &'a Model, clip: Option<&Clip>, time: FrameTime, options: &PoseOptions) -> PosedMesh<'a> {
    let _ = (clip, time, options);
    rest_pose(model)
}

/// The model's rest pose: positions and normals as stored.
pub fn rest_pose(model: &Model) -> PosedMesh<'_> {
    PosedMesh {
        parts: model
            .meshes
            .iter()
            .filter_map(|m| {
                Some(PosedPart {
                    positions: Cow::Borrowed(&m.positions),
                    normals: Cow::Borrowed(&m.normals),
                    uvs: &m.uvs,
                    indices: &m.indices,
                    material: model.materials.get(m.material)?,
                })
            })
            .collect(),
    }
}
