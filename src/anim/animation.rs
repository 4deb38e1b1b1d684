//! What an animation is made of: the motion that plays and the layers on top of it.

use super::{Attachment, Blend, BoneOverride, Motion, PoseOptions};
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
}
