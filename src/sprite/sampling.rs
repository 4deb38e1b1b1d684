//! Which frames of a clip (or transition) a sprite job renders.

use crate::anim::Motion;
use crate::bounds;
use crate::model::Clip;

/// Which frames of a clip to render.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Sampling {
    /// Every stored frame at the clip's own rate (the default).
    #[default]
    ClipFrames,
    /// Resampled at this many frames per second over one pass of the clip.
    Fps(f32),
    /// Exactly this many frames spread evenly over one pass of the clip.
    Count(usize),
}

impl Sampling {
    /// How many frames [`Sampling::frames`] gives, without allocating them (a clip's frame
    /// count comes from its file and may be anything the budget has to refuse first).
    pub fn count(self, clip: Option<&Clip>) -> usize {
        let Some(clip) = clip.filter(|c| c.frame_count() > 0) else { return 1 };
        let (n, fps) = (clip.frame_count() as f32, clip.fps.max(1e-3));
        match self {
            Sampling::Fps(f) if f.is_finite() && f > 0.0 => resampled_count((n / fps) * f),
            Sampling::Count(c) => c.clamp(bounds::FRAMES.min, bounds::FRAMES.max),
            Sampling::ClipFrames | Sampling::Fps(_) => clip.frame_count(),
        }
    }

    /// Frame positions (in clip frames) and the duration of each in seconds.
    pub fn frames(self, clip: Option<&Clip>) -> Vec<(f32, f32)> {
        let count = self.count(clip);
        let Some(clip) = clip.filter(|c| c.frame_count() > 0) else { return vec![(0.0, 0.1)] };
        let (n, fps) = (clip.frame_count() as f32, clip.fps.max(1e-3));
        if matches!(self, Sampling::ClipFrames) {
            return (0..count).map(|f| (f as f32, 1.0 / fps)).collect();
        }
        let duration = n / fps / count as f32;
        (0..count).map(|i| (i as f32 * n / count as f32, duration)).collect()
    }

    /// As [`Sampling::count`] for any motion.
    pub fn motion_count(self, motion: &Motion) -> usize {
        let t = match motion {
            Motion::Rest => return self.count(None),
            Motion::Clip(c) => return self.count(Some(c)),
            Motion::Transition(t) => t,
        };
        let n = t.frame_count();
        match self {
            _ if n == 0 => 1,
            Sampling::Fps(f) if f.is_finite() && f > 0.0 => resampled_count(t.duration() * f),
            Sampling::Count(c) => c.clamp(bounds::FRAMES.min, bounds::FRAMES.max),
            Sampling::ClipFrames | Sampling::Fps(_) => n,
        }
    }

    /// As [`Sampling::frames`] for any motion; a transition's frame positions count A's
    /// frames, then B's (see [`Transition`](crate::anim::Transition)).
    pub fn motion_frames(self, motion: &Motion) -> Vec<(f32, f32)> {
        let count = self.motion_count(motion);
        let t = match motion {
            Motion::Rest => return self.frames(None),
            Motion::Clip(c) => return self.frames(Some(c)),
            Motion::Transition(t) => t,
        };
        if t.frame_count() == 0 {
            return vec![(0.0, 0.1)];
        }
        if matches!(self, Sampling::ClipFrames) {
            return (0..count).map(|f| (f as f32, 1.0 / t.fps_at(f as f32).max(1e-3))).collect();
        }
        let step = t.duration() / count as f32;
        (0..count).map(|i| (t.position_at(i as f32 * step), step)).collect()
    }
}

/// Frames of a clip resampled at a rate: `seconds × fps` rounded, within [`bounds::FRAMES`].
/// The duration comes from the file (a clip of 4096 frames at 0.001 fps lasts 47 days), so the
/// cap is what keeps `--sample-fps` from asking for billions of frames.
fn resampled_count(frames: f32) -> usize {
    let most = bounds::FRAMES.max as f32;
    if frames.is_finite() { frames.round().clamp(1.0, most) as usize } else { bounds::FRAMES.max }
}
