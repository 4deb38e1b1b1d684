//! Blending two clips and crossfading from one clip into another.
//!
//! * **What is mixed.** Skeletal clips mix their *parent-relative* joint poses — lerp of
//!   translation and scale, shortest-path slerp of rotation — exactly as interpolation between
//!   frames does, and only then is the hierarchy built. Mixing model-space joints instead
//!   shortens limbs half way (the same defect as interpolating finished joints). Morph (MD2)
//!   clips mix the posed vertices (lerp, normals renormalised), which is what Quake 2 does
//!   between two frames.
//! * **Weights at the ends are exact.** Weight 0 returns the first pose untouched and weight 1
//!   the second, bit for bit (slerp at 0 or 1 need not be).
//! * **Clips of different lengths** are matched by normalised time: the blended clip is
//!   sampled at the same fraction of its duration as the main motion. Clips with the same
//!   frame count and rate are matched frame for frame, exactly.
//! * **Transitions.** `A->B` over `S` seconds plays A once, then starts B while A keeps playing
//!   at its own rate (wrapping when the pose options loop, holding its last frame otherwise);
//!   B's weight ramps linearly from 0 to 1 over B's first `S` seconds; then B plays alone. The
//!   sequence is `frames(A) + max(frames(B), ⌈S · fps(B)⌉ + 1)` frames long, so its last frame
//!   is B alone. Frame positions below `frames(A)` are A's frames, the rest are B's, so every
//!   stored frame of A shows up unchanged before the crossfade and B's after it. Both clips
//!   move continuously and the weight is continuous, so the sequence has no jump; each step
//!   adds at most `|B − A| / (S · fps)` to the clips' own motion, so a short fade between very
//!   different poses moves fast (a 0-second fade is a cut). (Rejected: fading over the *last*
//!   S seconds of A — it shortens A and makes the sequence length depend on S in a way users
//!   found surprising in engines that do it.)
//!
//! Everything is written against [`super::local_poses`] per clip and [`Clip::duration`] /
//! [`Clip::frame_count`], so clip kinds added later (keyed glTF clips) blend without changes here.

use super::FrameTime;
use crate::model::{Clip, JointPose};

/// A second clip mixed into the main motion.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Blend<'a> {
    /// The clip mixed in.
    pub clip: &'a Clip,
    /// Its weight: 0 = the main motion only, 1 = this clip only.
    pub weight: f32,
}

/// A crossfade from the end of one clip into another.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Transition<'a> {
    /// The clip played first.
    pub from: &'a Clip,
    /// The clip faded into.
    pub to: &'a Clip,
    /// Length of the crossfade in seconds (0 = a cut).
    pub seconds: f32,
}

/// What plays: nothing (the rest pose), one clip, or a transition.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Motion<'a> {
    /// The rest (bind) pose.
    #[default]
    Rest,
    /// One clip.
    Clip(&'a Clip),
    /// A crossfade sequence from one clip into another.
    Transition(Transition<'a>),
}

fn frames(clip: &Clip) -> f32 {
    clip.frame_count() as f32
}

/// Frames per second, or 0 for a clip without a rate.
fn rate(clip: &Clip) -> f32 {
    if clip.fps.is_finite() && clip.fps > 0.0 { clip.fps } else { 0.0 }
}

fn frames_to_seconds(clip: &Clip, f: f32) -> f32 {
    let r = rate(clip);
    if r > 0.0 { f / r } else { 0.0 }
}

impl Transition<'_> {
    fn fade_seconds(&self) -> f32 {
        if self.seconds.is_finite() { self.seconds.max(0.0) } else { 0.0 }
    }

    /// Frames of B's part of the sequence: all of B, or the whole crossfade if that is longer.
    fn b_frames(&self) -> f32 {
        // One frame past the crossfade, so the sequence ends on B alone.
        frames(self.to).max((self.fade_seconds() * rate(self.to)).ceil() + 1.0)
    }

    /// Number of frames in the sequence.
    pub fn frame_count(&self) -> usize {
        (frames(self.from) + self.b_frames()) as usize
    }

    /// Length of the sequence in seconds.
    pub fn duration(&self) -> f32 {
        self.from.duration() + frames_to_seconds(self.to, self.b_frames())
    }

    /// Seconds from the sequence's start at `time`.
    pub fn seconds(&self, time: FrameTime) -> f32 {
        match time {
            FrameTime::Seconds(s) => s,
            FrameTime::Frame(f) if f < frames(self.from) => frames_to_seconds(self.from, f),
            FrameTime::Frame(f) => self.from.duration() + frames_to_seconds(self.to, f - frames(self.from)),
        }
    }

    /// Frame position in the sequence at `seconds` from its start.
    pub fn position_at(&self, seconds: f32) -> f32 {
        let d = self.from.duration();
        if seconds < d { seconds * rate(self.from) } else { frames(self.from) + (seconds - d) * rate(self.to) }
    }

    /// Frames per second of the sequence at frame position `position` (A's rate, then B's).
    pub fn fps_at(&self, position: f32) -> f32 {
        if position < frames(self.from) { rate(self.from) } else { rate(self.to) }
    }

    /// When to sample each clip at `time` of the sequence, and B's weight.
    pub fn sample(&self, time: FrameTime) -> (FrameTime, FrameTime, f32) {
        let (a, b, into_b) = match time {
            FrameTime::Frame(f) => {
                let u = f - frames(self.from);
                if u < 0.0 {
                    (time, FrameTime::Frame(u), -1.0)
                } else {
                    // Past A's end the positions count B's frames: A goes on at its own rate.
                    (FrameTime::Seconds(self.seconds(time)), FrameTime::Frame(u), frames_to_seconds(self.to, u))
                }
            }
            FrameTime::Seconds(s) => {
                let u = s - self.from.duration();
                (FrameTime::Seconds(s), FrameTime::Seconds(u), u)
            }
        };
        let fade = self.fade_seconds();
        // NaN times fall through every comparison to weight 0: all A.
        let weight = if into_b >= 0.0 { if fade > 0.0 { (into_b / fade).min(1.0) } else { 1.0 } } else { 0.0 };
        (a, b, weight)
    }
}

impl<'a> Motion<'a> {
    /// The name shown in sheets and file names: the clip's, `from->to`, or `rest`.
    pub fn name(&self) -> String {
        match self {
            Motion::Rest => "rest".to_string(),
            Motion::Clip(c) => c.name.clone(),
            Motion::Transition(t) => format!("{}->{}", t.from.name, t.to.name),
        }
    }

    /// Every clip the motion plays.
    pub fn clips(&self) -> Vec<&'a Clip> {
        match *self {
            Motion::Rest => Vec::new(),
            Motion::Clip(c) => vec![c],
            Motion::Transition(t) => vec![t.from, t.to],
        }
    }

    /// Frames in one pass (0 for the rest pose).
    pub fn frame_count(&self) -> usize {
        match self {
            Motion::Rest => 0,
            Motion::Clip(c) => c.frame_count(),
            Motion::Transition(t) => t.frame_count(),
        }
    }

    /// Seconds of one pass (0 for the rest pose).
    pub fn duration(&self) -> f32 {
        match self {
            Motion::Rest => 0.0,
            Motion::Clip(c) => c.duration(),
            Motion::Transition(t) => t.duration(),
        }
    }

    /// Seconds from the start at `time`.
    pub fn seconds(&self, time: FrameTime) -> f32 {
        match (self, time) {
            (_, FrameTime::Seconds(s)) => s,
            (Motion::Rest, FrameTime::Frame(_)) => 0.0,
            (Motion::Clip(c), FrameTime::Frame(f)) => frames_to_seconds(c, f),
            (Motion::Transition(t), time) => t.seconds(time),
        }
    }

    /// When to sample `clip` so that it is at the same fraction of its length as this motion
    /// is at `time`. A clip with this clip's frame count and rate gets `time` itself.
    pub fn map_time(&self, time: FrameTime, clip: &Clip) -> FrameTime {
        if let Motion::Clip(c) = self
            && c.frame_count() == clip.frame_count()
            && c.fps == clip.fps
        {
            return time;
        }
        let d = self.duration();
        if d <= 0.0 || !d.is_finite() {
            return FrameTime::Frame(0.0);
        }
        FrameTime::Seconds(self.seconds(time) / d * clip.duration())
    }
}

/// Mixes two sets of parent-relative joint poses: `b`'s weight is `w` (exact at 0 and 1).
pub(crate) fn blend_poses(a: Vec<JointPose>, b: &[JointPose], w: f32) -> Vec<JointPose> {
    if w.is_nan() || w <= 0.0 {
        return a;
    }
    if w >= 1.0 && a.len() == b.len() {
        return b.to_vec();
    }
    a.iter().zip(b).map(|(p, q)| if w >= 1.0 { *q } else { p.lerp(*q, w) }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ClipFrames;

    fn clip(name: &str, n: usize, fps: f32) -> Clip {
        Clip {
            name: name.into(),
            fps,
            frames: ClipFrames::Morph((0..n).collect()),
            frame_bounds: Vec::new(),
            retarget: None,
            plays_once: false,
        }
    }

    #[test]
    fn transition_timeline() {
        let (a, b) = (clip("a", 10, 10.0), clip("b", 4, 4.0));
        let t = Transition { from: &a, to: &b, seconds: 0.5 };
        assert_eq!(t.frame_count(), 14);
        assert_eq!(t.duration(), 2.0);
        assert_eq!(t.sample(FrameTime::Frame(3.0)), (FrameTime::Frame(3.0), FrameTime::Frame(-7.0), 0.0));
        assert_eq!(t.sample(FrameTime::Frame(11.0)), (FrameTime::Seconds(1.25), FrameTime::Frame(1.0), 0.5));
        assert_eq!(t.sample(FrameTime::Frame(13.0)).2, 1.0);
        assert_eq!(t.sample(FrameTime::Seconds(1.25)).2, 0.5);
        assert_eq!(t.seconds(FrameTime::Frame(12.0)), 1.5);
        assert_eq!(t.position_at(1.5), 12.0);
        // A crossfade longer than B stretches B's part.
        let long = Transition { seconds: 2.0, ..t };
        assert_eq!(long.frame_count(), 19);
        assert_eq!(long.sample(FrameTime::Frame(18.0)).2, 1.0);
        let motion = Motion::Clip(&a);
        assert_eq!(motion.map_time(FrameTime::Frame(5.0), &b), FrameTime::Seconds(0.5));
        assert_eq!(motion.map_time(FrameTime::Frame(5.0), &a), FrameTime::Frame(5.0));
    }
}
