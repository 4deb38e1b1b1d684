//! Which frames of a clip (or transition) a sprite job renders, and how long each shows.
//!
//! **Exact loops.** A looping clip's frames are N evenly spaced moments of one pass, the last a
//! step before the first comes round again, and their durations add up to the clip's authored
//! length: a keyed (glTF) clip of 0.7083 s at 30 fps is 21 frames of 33.7 ms, not 22 frames of
//! 33.3 ms whose last nearly repeats the first at the seam. A clip that plays once ends on its
//! last pose instead (N + 1 moments from the first pose to the last). Clips of stored frames
//! (MD2, MD5, SMD) show every stored frame at the clip's rate either way.

use crate::anim::Motion;
use crate::bounds;
use crate::model::{Clip, ClipFrames};

/// Which frames of a clip to render.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Sampling {
    /// Every stored frame at the clip's own rate (the default); a keyed clip at its rate,
    /// rounded to whole frames over its length.
    #[default]
    ClipFrames,
    /// Resampled at this many frames per second over one pass of the clip.
    Fps(f32),
    /// Exactly this many frames spread evenly over one pass of the clip.
    Count(usize),
}

/// What sampling needs to know of a clip, in the clip's frames (position `f` is `f / fps`
/// seconds in).
struct Extent {
    /// Frames per second.
    fps: f64,
    /// The stored frames, `None` for a keyed clip (sampled at any moment).
    stored: Option<usize>,
    /// How far the sampled moments reach: one loop (to the first frame again) when looping,
    /// from the first pose to the last when playing once.
    span: f64,
}

impl Extent {
    fn of(clip: &Clip, looping: bool) -> Option<Extent> {
        let fps = f64::from(clip.fps.max(1e-3));
        match &clip.frames {
            ClipFrames::Keyed(k) => {
                let seconds = f64::from(k.duration);
                let span = if seconds.is_finite() { seconds.max(0.0) * fps } else { 0.0 };
                Some(Extent { fps, stored: None, span })
            }
            _ => {
                let n = clip.frame_count();
                let span = if looping { n as f64 } else { n.saturating_sub(1) as f64 };
                (n > 0).then_some(Extent { fps, stored: Some(n), span })
            }
        }
    }
}

impl Sampling {
    /// The resampling rate, if it is one (a rate that is not finite and positive samples the
    /// clip's own frames).
    fn rate(self) -> Option<f32> {
        match self {
            Sampling::Fps(f) if f.is_finite() && f > 0.0 => Some(f),
            _ => None,
        }
    }

    /// Whether the frames are chosen anew (a count, or a rate) rather than the clip's own.
    fn resamples(self) -> bool {
        matches!(self, Sampling::Count(_)) || self.rate().is_some()
    }

    /// How many frames [`Sampling::frames`] gives, without allocating them (a clip's frame
    /// count comes from its file and may be anything the budget has to refuse first).
    pub fn count(self, clip: Option<&Clip>, looping: bool) -> usize {
        let Some(extent) = clip.and_then(|c| Extent::of(c, looping)) else { return 1 };
        // Moments across the span: a loop's last stops a step short, a single pass ends on it.
        let ends = usize::from(!looping);
        match (self, self.rate()) {
            (_, Some(f)) => (resampled_count(extent.span / extent.fps * f64::from(f)) + ends).min(bounds::FRAMES.max),
            (Sampling::Count(c), _) => c.clamp(bounds::FRAMES.min, bounds::FRAMES.max),
            // Not capped: the job refuses a row longer than a sprite row may be, naming its
            // length, where a cap would silently sample an hour-long clip 10000 times.
            _ => match extent.stored {
                Some(n) => n,
                None if extent.span > 0.0 => (extent.span.round().max(1.0) as usize).saturating_add(ends),
                None => 1,
            },
        }
    }

    /// Frame positions (in clip frames) and the duration of each in seconds.
    pub fn frames(self, clip: Option<&Clip>, looping: bool) -> Vec<(f32, f32)> {
        let count = self.count(clip, looping);
        let Some(extent) = clip.and_then(|c| Extent::of(c, looping)) else { return vec![(0.0, 0.1)] };
        if let (false, Some(n)) = (self.resamples(), extent.stored) {
            return (0..n).map(|f| (f as f32, (1.0 / extent.fps) as f32)).collect();
        }
        let steps = if looping { count } else { count - 1 };
        if steps == 0 || extent.span <= 0.0 {
            return vec![(0.0, (1.0 / extent.fps) as f32); count];
        }
        let step = extent.span / steps as f64;
        (0..count).map(|i| ((i as f64 * step) as f32, (step / extent.fps) as f32)).collect()
    }

    /// As [`Sampling::count`] for any motion (a transition plays once whatever `looping` says).
    pub fn motion_count(self, motion: &Motion, looping: bool) -> usize {
        let t = match motion {
            Motion::Rest => return self.count(None, looping),
            Motion::Clip(c) => return self.count(Some(c), looping),
            Motion::Transition(t) => t,
        };
        let n = t.frame_count();
        match (self, self.rate()) {
            _ if n == 0 => 1,
            (_, Some(f)) => resampled_count(f64::from(t.duration() * f)),
            (Sampling::Count(c), _) => c.clamp(bounds::FRAMES.min, bounds::FRAMES.max),
            _ => n,
        }
    }

    /// As [`Sampling::frames`] for any motion; a transition's frame positions count A's
    /// frames, then B's (see [`Transition`](crate::anim::Transition)).
    pub fn motion_frames(self, motion: &Motion, looping: bool) -> Vec<(f32, f32)> {
        let count = self.motion_count(motion, looping);
        let t = match motion {
            Motion::Rest => return self.frames(None, looping),
            Motion::Clip(c) => return self.frames(Some(c), looping),
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
fn resampled_count(frames: f64) -> usize {
    let most = bounds::FRAMES.max as f64;
    if frames.is_finite() { frames.round().clamp(1.0, most) as usize } else { bounds::FRAMES.max }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::KeyedClip;

    fn keyed(seconds: f32) -> Clip {
        Clip {
            name: "walk".into(),
            fps: 30.0,
            frames: ClipFrames::Keyed(KeyedClip { channels: Vec::new(), duration: seconds }),
            frame_bounds: Vec::new(),
            retarget: None,
            plays_once: false,
        }
    }

    fn stored(n: usize) -> Clip {
        Clip { fps: 10.0, frames: ClipFrames::Morph((0..n).collect()), ..keyed(0.0) }
    }

    fn total(frames: &[(f32, f32)]) -> f64 {
        frames.iter().map(|&(_, d)| f64::from(d)).sum()
    }

    #[test]
    fn a_keyed_loop_lasts_its_authored_length_with_no_seam_frame() {
        // The Fox's Walk: 0.7083 s at 30 fps.
        let walk = keyed(0.708_333_3);
        let frames = Sampling::ClipFrames.frames(Some(&walk), true);
        assert_eq!(frames.len(), 21);
        assert!((total(&frames) - 0.708_333).abs() < 1e-5, "{}", total(&frames));
        // The last moment is a step before the loop point (21.25 frames), not on it.
        let last = frames.last().unwrap().0;
        assert!((last - 20.0 * 21.25 / 21.0).abs() < 1e-4, "{last}");
        // Played once, it ends on the last pose.
        let once = Sampling::ClipFrames.frames(Some(&walk), false);
        assert_eq!(once.len(), 22);
        assert!((once.last().unwrap().0 - 21.25).abs() < 1e-4);
        // Resampled at 12 fps: 8.5 steps round to 8, a loop's 8 frames or a single pass's 9.
        assert_eq!(Sampling::Fps(12.0).count(Some(&walk), true), 8);
        assert_eq!(Sampling::Fps(12.0).count(Some(&walk), false), 9);
        let resampled = Sampling::Fps(12.0).frames(Some(&walk), true);
        assert!((total(&resampled) - 0.708_333).abs() < 1e-5);
    }

    #[test]
    fn stored_frames_are_every_frame_and_resampling_ends_on_the_last_pose_once() {
        let run = stored(6);
        let every = Sampling::ClipFrames.frames(Some(&run), true);
        assert_eq!(every, Sampling::ClipFrames.frames(Some(&run), false));
        assert_eq!(every.iter().map(|f| f.0).collect::<Vec<_>>(), [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
        assert!((total(&every) - 0.6).abs() < 1e-6);
        // Three frames of a loop: 0, 2, 4 (0.2 s each); three of a single pass: 0, 2.5, 5.
        let looped: Vec<f32> = Sampling::Count(3).frames(Some(&run), true).iter().map(|f| f.0).collect();
        let once: Vec<f32> = Sampling::Count(3).frames(Some(&run), false).iter().map(|f| f.0).collect();
        assert_eq!((looped, once), (vec![0.0, 2.0, 4.0], vec![0.0, 2.5, 5.0]));
        // A clip of one pose is one frame of 1/fps, however it is sampled.
        assert_eq!(Sampling::Count(3).frames(Some(&stored(1)), false), vec![(0.0, 0.1); 3]);
        assert_eq!(Sampling::ClipFrames.frames(Some(&keyed(0.0)), true), vec![(0.0, 1.0 / 30.0)]);
    }
}
