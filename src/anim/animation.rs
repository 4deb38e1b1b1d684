//! What an animation is made of: the motion that plays and the layers on top of it.

use super::{Attachment, Blend, BoneOverride, FrameTime, Motion, PoseOptions};
use crate::model::Clip;

/// What is layered on top of the motion; the same for every row of a sprite job.
#[derive(Debug, Clone, Default)]
pub struct Layers<'a> {
    /// A second clip mixed in, matched by normalised time.
    pub blend: Option<Blend<'a>>,
    /// Extra joint rotations applied on every frame.
    pub bones: Vec<BoneOverride>,
    /// Models drawn with the body.
    pub attachments: Vec<Attachment<'a>>,
}

/// Everything that says how a model moves: motion, layers and posing options.
#[derive(Debug, Clone, Default)]
pub struct Animation<'a> {
    /// What plays.
    pub motion: Motion<'a>,
    /// What is layered on top.
    pub layers: Layers<'a>,
    /// Looping and root-motion lock.
    pub options: PoseOptions,
}

impl<'a> Animation<'a> {
    /// One clip (or the rest pose) with nothing layered on it.
    pub fn clip(clip: Option<&'a Clip>, options: PoseOptions) -> Animation<'a> {
        Animation { motion: clip.map_or(Motion::Rest, Motion::Clip), layers: Layers::default(), options }
    }

    /// Something sampled from what plays at `time`, mixed as the motion and the blend mix
    /// their clips: `at` samples a clip (`None`: the rest pose) at a time in it, `mix` moves a
    /// value towards another by the second's weight. A transition mixes its two clips (the
    /// second only once it weighs), then the blend's clip is mixed in. Joint poses, posed
    /// vertices, morph weights and tag placements all follow this one recipe.
    pub fn mixed<T>(
        &self,
        time: FrameTime,
        at: impl Fn(Option<&'a Clip>, FrameTime) -> T,
        mix: impl Fn(T, &T, f32) -> T,
    ) -> T {
        let value = match self.motion {
            Motion::Rest => at(None, time),
            Motion::Clip(clip) => at(Some(clip), time),
            Motion::Transition(t) => {
                let (ta, tb, w) = t.sample(time);
                let a = at(Some(t.from), ta);
                if w > 0.0 { mix(a, &at(Some(t.to), tb), w) } else { a }
            }
        };
        match self.layers.blend {
            Some(blend) => mix(value, &at(Some(blend.clip), self.motion.map_time(time, blend.clip)), blend.weight),
            None => value,
        }
    }
}
