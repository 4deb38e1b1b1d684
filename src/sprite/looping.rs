//! Which rows of a sprite job loop and which play once.
//!
//! A clip loops unless its source marks it as playing once ([`Clip::plays_once`]: a QC
//! `$sequence` without `loop`); `once` and `looping` (`--once`, `--loop`, the same keys in
//! manifests and project files) override the source by clip name. A transition (`A->B`) plays
//! once; the rest pose loops (it is one frame).
//!
//! Engines read the answer from the data (Godot's `loop`, Phaser's `repeat`, Aseprite's tag
//! `repeat`, the TexturePacker JSON's `meta.playback`), and the frames are sampled for it: a loop
//! stops one step short of its first frame again, a clip that plays once ends on its last pose
//! (see [`super::Sampling`]).

use crate::anim::Motion;
use crate::model::Clip;

/// The clips whose looping the user chose, by name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Looping {
    /// Clips that play once and hold their last frame.
    pub once: Vec<String>,
    /// Clips that loop.
    pub looping: Vec<String>,
}

impl Looping {
    /// Whether `clip` loops.
    pub fn clip_loops(&self, clip: &Clip) -> bool {
        if self.once.contains(&clip.name) {
            false
        } else if self.looping.contains(&clip.name) {
            true
        } else {
            !clip.plays_once
        }
    }

    /// Whether a row playing `motion` loops.
    pub fn loops(&self, motion: &Motion) -> bool {
        match motion {
            Motion::Rest => true,
            Motion::Clip(clip) => self.clip_loops(clip),
            Motion::Transition(_) => false,
        }
    }

    /// Every clip name given, with the key it was given under.
    pub fn named(&self) -> impl Iterator<Item = (&'static str, &str)> {
        let once = self.once.iter().map(|n| ("once", n.as_str()));
        once.chain(self.looping.iter().map(|n| ("loop", n.as_str())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ClipFrames;

    fn clip(name: &str, plays_once: bool) -> Clip {
        Clip {
            name: name.into(),
            fps: 10.0,
            frames: ClipFrames::Morph(vec![0, 1]),
            frame_bounds: Vec::new(),
            retarget: None,
            plays_once,
        }
    }

    #[test]
    fn the_source_decides_unless_a_name_is_given() {
        let (die, walk) = (clip("die", true), clip("walk", false));
        let none = Looping::default();
        assert_eq!((none.clip_loops(&die), none.clip_loops(&walk)), (false, true));
        let swapped = Looping { once: vec!["walk".into()], looping: vec!["die".into()] };
        assert_eq!((swapped.clip_loops(&die), swapped.clip_loops(&walk)), (true, false));
        assert!(none.loops(&Motion::Rest));
    }
}
