/// How a keyed channel's values change between two keys (the glTF sampler modes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interpolation {
    /// Hold each key's value until the next key.
    Step,
    /// Lerp vectors and weights; shortest-path slerp for rotations.
    Linear,
    /// Cubic Hermite spline: every key stores in-tangent, value, out-tangent.
    CubicSpline,
}

/// What a keyed channel animates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChannelTarget {
    /// A joint's parent-relative translation (3 values per element).
    Translation(usize),
    /// A joint's parent-relative rotation, quaternion x, y, z, w (4 values per element).
    Rotation(usize),
    /// A joint's parent-relative scale (3 values per element).
    Scale(usize),
    /// The morph-target weights of these meshes (indices into [`crate::model::Model::meshes`]),
    /// one value per morph target.
    MorphWeights(Vec<usize>),
}

/// One animated property: key times and values.
#[derive(Debug, Clone, PartialEq)]
pub struct Channel {
    /// What is animated.
    pub target: ChannelTarget,
    /// How values are interpolated between keys.
    pub interpolation: Interpolation,
    /// Key times in seconds, non-decreasing, at least one.
    pub times: Vec<f32>,
    /// Values per element (3, 4, or the morph-target count).
    pub width: usize,
    /// `times.len()` elements of `width` values (three elements per key — in-tangent, value,
    /// out-tangent — for [`Interpolation::CubicSpline`]).
    pub values: Vec<f32>,
}

/// A clip stored as keys at arbitrary times (glTF; FBX stacks that animate blend shapes),
/// sampled exactly at any time.
///
/// Properties no channel animates keep their rest values. Frames for sheets and GIFs are taken
/// every `1 / fps` seconds from 0 (see [`crate::model::Clip::frame_count`]).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct KeyedClip {
    /// The channels.
    pub channels: Vec<Channel>,
    /// Length in seconds: the latest key time of any channel.
    pub duration: f32,
}
