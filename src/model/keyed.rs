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

impl Channel {
    /// Whether the channel reads the same value at every time: every key holds the first
    /// key's value bit for bit (and, for a cubic spline, every tangent is zero, or the curve
    /// would leave the value between keys). A malformed channel (values short of its keys or
    /// of a whole key) counts as changing.
    pub fn is_constant(&self) -> bool {
        let w = self.width;
        let cubic = self.interpolation == Interpolation::CubicSpline;
        let per_key = if cubic { 3 * w } else { w };
        if per_key == 0 {
            return true;
        }
        if !self.values.len().is_multiple_of(per_key) || self.values.len() / per_key < self.times.len() {
            return false;
        }
        // Cubic keys are three elements: in-tangent, value, out-tangent.
        let elements = self.values.chunks_exact(w);
        let mut values = elements.clone().skip(usize::from(cubic)).step_by(if cubic { 3 } else { 1 });
        let mut tangents = elements.enumerate().filter(|(i, _)| cubic && i % 3 != 1);
        let first = values.next();
        tangents.all(|(_, t)| t.iter().all(|&x| x == 0.0)) && values.all(|v| Some(v) == first)
    }
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
