use crate::model::Clip;

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
    /// Wrap times past the end back to the start (true, the default) or hold the last frame.
    pub looping: bool,
    /// Take the principal root's horizontal travel (relative to frame 0) off the whole model,
    /// one rigid shift for every root, so walk cycles stay in place; vertical motion (bobbing)
    /// is kept. The default is false.
    pub in_place: bool,
}

impl Default for PoseOptions {
    fn default() -> Self {
        PoseOptions { looping: true, in_place: false }
    }
}

/// Where a time falls in a clip: blend `t` (0..1) of the way from frame `from` to frame `to`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct FramePair {
    /// The frame at or before the time.
    pub from: usize,
    /// The next frame (frame 0 again at the end of a looping clip).
    pub to: usize,
    /// Fraction of the way from `from` to `to`; exactly 0 on a whole frame.
    pub t: f32,
}

/// Maps a time to the two frames around it. Non-finite times count as frame 0.
pub(crate) fn frame_pair(clip: &Clip, time: FrameTime, looping: bool) -> FramePair {
    let n = clip.frame_count();
    if n <= 1 {
        return FramePair { from: 0, to: 0, t: 0.0 };
    }
    let position = match time {
        FrameTime::Frame(f) => f,
        FrameTime::Seconds(s) => s * clip.fps,
    };
    let position = if position.is_finite() { position as f64 } else { 0.0 };
    let last = (n - 1) as f64;
    let position = if looping { position.rem_euclid(n as f64) } else { position.clamp(0.0, last) };
    let from = position.floor();
    let t = (position - from) as f32;
    let from = (from as usize).min(n - 1);
    let to = if from + 1 < n {
        from + 1
    } else if looping {
        0
    } else {
        from
    };
    FramePair { from, to, t: if to == from { 0.0 } else { t } }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ClipFrames;

    fn clip(n: usize) -> Clip {
        Clip {
            name: "c".into(),
            fps: 10.0,
            frames: ClipFrames::Morph((0..n).collect()),
            frame_bounds: Vec::new(),
            retarget: None,
            plays_once: false,
        }
    }

    #[test]
    fn whole_frames_are_exact_and_loops_wrap() {
        let c = clip(4);
        assert_eq!(frame_pair(&c, FrameTime::Frame(2.0), true), FramePair { from: 2, to: 3, t: 0.0 });
        assert_eq!(frame_pair(&c, FrameTime::Seconds(0.25), true), FramePair { from: 2, to: 3, t: 0.5 });
        assert_eq!(frame_pair(&c, FrameTime::Frame(3.5), true), FramePair { from: 3, to: 0, t: 0.5 });
        assert_eq!(frame_pair(&c, FrameTime::Frame(-0.5), true), FramePair { from: 3, to: 0, t: 0.5 });
        assert_eq!(frame_pair(&c, FrameTime::Frame(9.0), false), FramePair { from: 3, to: 3, t: 0.0 });
        assert_eq!(frame_pair(&c, FrameTime::Frame(f32::NAN), true), FramePair { from: 0, to: 1, t: 0.0 });
        assert_eq!(frame_pair(&clip(0), FrameTime::Frame(5.0), true), FramePair { from: 0, to: 0, t: 0.0 });
    }
}
