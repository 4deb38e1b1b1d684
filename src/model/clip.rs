use super::{Aabb, Channel, JointPose, KeyedClip, Mesh};

/// The frames of a clip, by animation kind.
#[derive(Debug, Clone, PartialEq)]
pub enum ClipFrames {
    /// Skeletal: `poses[frame][joint]`, parent-relative, one entry per skeleton joint.
    Skeletal(Vec<Vec<JointPose>>),
    /// Morph (MD2): indices into every mesh's [`crate::model::Mesh::morph_frames`].
    Morph(Vec<usize>),
    /// Keys at arbitrary times (glTF; FBX stacks that animate blend shapes), sampled exactly;
    /// `Clip::fps` only sets the frame spacing.
    Keyed(KeyedClip),
}

impl ClipFrames {
    /// Bytes `frames` skeletal frames of `joints` poses hold: each frame is its own heap block,
    /// so a frame costs its `Vec` and the allocator's header (16 bytes) besides its poses —
    /// for a one-bone skeleton that is more than the poses themselves.
    pub fn skeletal_bytes(frames: u64, joints: u64) -> u64 {
        let per_frame = joints.saturating_mul(size_of::<JointPose>() as u64) + size_of::<Vec<JointPose>>() as u64 + 16;
        frames.saturating_mul(per_frame)
    }
}

/// A named animation clip sampled at a fixed rate.
#[derive(Debug, Clone, PartialEq)]
pub struct Clip {
    /// Clip name (MD2 frame-name stem, MD5/SMD file stem, glTF animation or FBX stack name).
    pub name: String,
    /// Frames per second.
    pub fps: f32,
    /// The frames.
    pub frames: ClipFrames,
    /// Per-frame bounds stored in the file (MD5 `bounds`), in file axes; empty when absent.
    pub frame_bounds: Vec<Aabb>,
    /// How the clip's own skeleton was mapped onto the model's, when the two differ (an SMD
    /// sequence with another hierarchy than its reference); `None` when they match bone for
    /// bone or the format has no such mapping.
    pub retarget: Option<Retarget>,
    /// The source marks the clip as playing once and holding its last frame (a QC
    /// `$sequence` without `loop`); every other clip loops, as no format says otherwise.
    pub plays_once: bool,
}

/// How an animation written for one skeleton was mapped onto the model's: the clip's bones are
/// matched to the model's joints by name, each frame is evaluated in the clip's own hierarchy,
/// and every matched joint takes the model-space transform of its namesake (studiomdl's rule
/// for SMD sequences).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Retarget {
    /// Clip bones mapped onto the model joint of the same name.
    pub mapped: usize,
    /// Of the mapped bones, those whose parent differs from their joint's parent in the model
    /// (their poses went through model space).
    pub reparented: usize,
    /// Clip bones the model lacks that carry mapped bones, in the clip's order: evaluated, and
    /// typically above the model's root (`ValveBiped.Bip01` above the pelvis).
    pub above_root: Vec<String>,
    /// Clip bones the model lacks that carry no mapped bone: they change nothing.
    pub ignored: usize,
    /// Model joints the clip lacks, as indices into the model's skeleton, in its order: kept at
    /// their rest pose relative to their (animated) parent. (Indices, not names: a sequence of
    /// one bone on a skeleton of thousands would otherwise keep thousands of names per clip.)
    pub missing: Vec<usize>,
}

impl Retarget {
    /// The bytes the report holds (a name's heap block counted at 32 bytes at least, as
    /// allocators hand them out).
    pub fn held_bytes(&self) -> usize {
        let names: usize = self.above_root.iter().map(|name| size_of::<String>() + name.len().max(32)).sum();
        names + self.missing.len() * size_of::<usize>()
    }
}

impl Clip {
    /// Number of frames.
    pub fn frame_count(&self) -> usize {
        match &self.frames {
            ClipFrames::Skeletal(f) => f.len(),
            ClipFrames::Morph(f) => f.len(),
            // One frame every 1/fps seconds up to (not including) the loop point.
            ClipFrames::Keyed(k) => ((k.duration * self.fps.max(0.0) - 1e-3).ceil().max(0.0) as usize).max(1),
        }
    }

    /// Whether the clip holds one pose throughout (Mixamo's `Take 001`): every skeletal frame
    /// equal to the first, every keyed channel constant ([`Channel::is_constant`]), every morph
    /// frame's shape in each of `meshes` (positions and normals) equal to the first's. The
    /// comparison is exact and stops at the first change, so a moving clip costs a frame or
    /// two. A clip without frames holds one pose too.
    pub fn is_static(&self, meshes: &[Mesh]) -> bool {
        match &self.frames {
            ClipFrames::Skeletal(frames) => {
                frames.split_first().is_none_or(|(first, rest)| rest.iter().all(|frame| frame == first))
            }
            ClipFrames::Keyed(keyed) => keyed.channels.iter().all(Channel::is_constant),
            ClipFrames::Morph(frames) => frames.split_first().is_none_or(|(&first, rest)| {
                rest.iter().all(|&frame| meshes.iter().all(|mesh| same_shape(mesh, first, frame)))
            }),
        }
    }

    /// Length in seconds of one pass through the clip played as a loop (`frames / fps`; the
    /// latest key time for a keyed clip).
    pub fn duration(&self) -> f32 {
        if let ClipFrames::Keyed(k) = &self.frames {
            return k.duration;
        }
        if self.fps > 0.0 { self.frame_count() as f32 / self.fps } else { 0.0 }
    }
}

/// Whether key shapes `a` and `b` of `mesh` are the same (both absent: the rest shape).
fn same_shape(mesh: &Mesh, a: usize, b: usize) -> bool {
    if a == b {
        return true;
    }
    match (mesh.morph_frames.get(a), mesh.morph_frames.get(b)) {
        (Some(x), Some(y)) => x.positions == y.positions && x.normals == y.normals,
        (x, y) => x.is_none() && y.is_none(),
    }
}

/// The axes on which a clip's root motion is marked as travel (studiomdl's `LX`, `LY`, `LZ`
/// on a `$sequence`), in the model file's axes. Posing in place removes that travel the way
/// studiomdl extracts it: the roots move by the first root joint's offset from the first to the
/// last frame, spread evenly over the frames, on the marked axes only; everything else (a
/// sway, a bob) stays. A `.qc` sequence is recorded even with no axis marked: its motion is
/// kept, as studiomdl keeps it. Clips of other sources have no record and lose the roots'
/// horizontal motion instead.
#[derive(Debug, Clone, PartialEq)]
pub struct MarkedMotion {
    /// The clip's name.
    pub clip: String,
    /// Marked axes: x, y, z.
    pub axes: [bool; 3],
}

/// `name`, or, when one of `clips` has it, the first of `name_1`, `name_2` ... that none has
/// (as studiomdl names two sequences that share a name).
pub(crate) fn unique_clip_name(name: String, clips: &[Clip]) -> String {
    let taken = |n: &str| clips.iter().any(|c| c.name == n);
    if !taken(&name) {
        return name;
    }
    (1..).map(|k| format!("{name}_{k}")).find(|n| !taken(n)).unwrap_or(name)
}

#[cfg(test)]
mod tests {
    use glam::Vec3;

    use super::*;
    use crate::model::{ChannelTarget, Interpolation, MorphFrame};

    fn clip(frames: ClipFrames) -> Clip {
        Clip { name: "c".into(), fps: 10.0, frames, frame_bounds: Vec::new(), retarget: None, plays_once: false }
    }

    fn keyed(interpolation: Interpolation, values: Vec<f32>) -> Clip {
        let keys = if interpolation == Interpolation::CubicSpline { values.len() / 3 } else { values.len() };
        let channel = Channel {
            target: ChannelTarget::MorphWeights(vec![0]),
            interpolation,
            times: (0..keys).map(|k| k as f32).collect(),
            width: 1,
            values,
        };
        clip(ClipFrames::Keyed(KeyedClip { channels: vec![channel], duration: 1.0 }))
    }

    #[test]
    fn a_clip_is_static_when_every_frame_poses_alike() {
        let pose = |x: f32| vec![JointPose { translation: Vec3::new(x, 0.0, 0.0), ..JointPose::IDENTITY }];
        assert!(clip(ClipFrames::Skeletal(vec![pose(1.0); 100])).is_static(&[]));
        assert!(!clip(ClipFrames::Skeletal(vec![pose(1.0), pose(1.0), pose(1.5)])).is_static(&[]));
        assert!(clip(ClipFrames::Skeletal(Vec::new())).is_static(&[]));
        // Keyed: constant keys; a cubic spline also needs flat tangents; short values change.
        assert!(keyed(Interpolation::Linear, vec![0.5, 0.5, 0.5]).is_static(&[]));
        assert!(!keyed(Interpolation::Step, vec![0.5, 0.5, 0.6]).is_static(&[]));
        assert!(keyed(Interpolation::CubicSpline, vec![0.0, 0.5, 0.0, 0.0, 0.5, 0.0]).is_static(&[]));
        assert!(!keyed(Interpolation::CubicSpline, vec![0.0, 0.5, 0.1, 0.0, 0.5, 0.0]).is_static(&[]));
        let mut short = keyed(Interpolation::Linear, vec![0.5, 0.5]);
        if let ClipFrames::Keyed(k) = &mut short.frames {
            k.channels[0].times.push(2.0);
        }
        assert!(!short.is_static(&[]));
        // Morph: two key shapes alike under different names hold one pose; a third differs.
        let shape = |name: &str, y: f32| MorphFrame {
            name: name.into(),
            positions: vec![Vec3::new(0.0, y, 0.0)],
            normals: vec![Vec3::Y],
        };
        let mesh = Mesh { morph_frames: vec![shape("a1", 1.0), shape("a2", 1.0), shape("b", 2.0)], ..Mesh::default() };
        let meshes = std::slice::from_ref(&mesh);
        assert!(clip(ClipFrames::Morph(vec![0, 1, 0])).is_static(meshes));
        assert!(!clip(ClipFrames::Morph(vec![0, 1, 2])).is_static(meshes));
    }
}
