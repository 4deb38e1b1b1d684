//! What a QC script asks for, as [`parse`](super::parse) reads it: bodies, sequences and
//! attachments, each with where it was written and how its file is placed.

use std::path::PathBuf;

use glam::{Quat, Vec3};

use crate::error::Error;
use crate::formats::FormatError;
use crate::model::{Clip, ClipFrames, JointPose, Model, Skeleton};

pub(super) const FORMAT: &str = "QC";

/// Which body of a `$bodygroup` to show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BodyChoice {
    /// The group's name (any case).
    pub group: String,
    /// A studio entry's file name without folders and `.smd` (any case), or `blank`.
    pub choice: String,
}

/// Where a command was written: the QC or include file, and the line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct At {
    /// The file as the loader named it.
    pub file: PathBuf,
    /// 1-based line.
    pub line: usize,
}

impl std::fmt::Display for At {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} line {}", self.file.display(), self.line)
    }
}

/// How a source file is placed in the model: studiomdl's `$scale`, `$origin` and turn.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Placement {
    /// Uniform scale.
    pub scale: f32,
    /// Subtracted from every point before turning and scaling.
    pub origin: Vec3,
    /// Degrees about Z beyond the 90° the model's orientation already carries.
    pub turn_degrees: f32,
}

impl Default for Placement {
    fn default() -> Self {
        Placement { scale: 1.0, origin: Vec3::ZERO, turn_degrees: 0.0 }
    }
}

impl Placement {
    fn is_identity(&self) -> bool {
        *self == Placement::default()
    }

    fn rotation(&self) -> Quat {
        Quat::from_rotation_z(self.turn_degrees.to_radians())
    }

    /// A model-space point of the source, placed.
    pub(super) fn point(&self, p: Vec3) -> Vec3 {
        self.rotation() * (p - self.origin) * self.scale
    }

    /// A joint's parent-relative pose, placed: roots move with the model, every translation
    /// scales.
    fn pose(&self, pose: &mut JointPose, root: bool) {
        if root {
            pose.translation = self.point(pose.translation);
            pose.rotation = (self.rotation() * pose.rotation).normalize();
        } else {
            pose.translation *= self.scale;
        }
    }

    /// Places a reference model: its rest pose, vertices and normals. Influence positions are
    /// in their joint's frame, which turns with the model, so only the scale reaches them.
    pub fn place_model(&self, model: &mut Model) {
        if self.is_identity() {
            return;
        }
        let rotation = self.rotation();
        if let Some(skeleton) = &mut model.skeleton {
            for joint in &mut skeleton.joints {
                self.pose(&mut joint.rest, joint.parent.is_none());
            }
        }
        for mesh in &mut model.meshes {
            for p in &mut mesh.positions {
                *p = self.point(*p);
            }
            for n in &mut mesh.normals {
                *n = rotation * *n;
            }
            for influence in &mut mesh.influences {
                influence.position *= self.scale;
            }
        }
    }

    /// Places every frame of a skeletal clip of `skeleton`.
    pub fn place_clip(&self, skeleton: &Skeleton, clip: &mut Clip) {
        if self.is_identity() {
            return;
        }
        if let ClipFrames::Skeletal(frames) = &mut clip.frames {
            for frame in frames {
                for (pose, joint) in frame.iter_mut().zip(&skeleton.joints) {
                    self.pose(pose, joint.parent.is_none());
                }
            }
        }
    }
}

/// One entry of a body group.
#[derive(Debug, Clone, PartialEq)]
pub enum BodyEntry {
    /// A reference SMD.
    Studio {
        /// The file as written (the name `--body` matches, without folders and `.smd`).
        name: String,
        /// The file.
        path: PathBuf,
        /// Its placement.
        placement: Placement,
    },
    /// Nothing.
    Blank,
}

impl BodyEntry {
    /// The name a [`BodyChoice`] picks this entry by.
    pub fn choice_name(&self) -> String {
        match self {
            BodyEntry::Studio { name, .. } => {
                let base = name.rsplit('/').next().unwrap_or(name);
                strip_smd(base).to_string()
            }
            BodyEntry::Blank => "blank".to_string(),
        }
    }
}

/// A `$body`, `$model` or `$bodygroup`.
#[derive(Debug, Clone, PartialEq)]
pub struct BodyGroup {
    /// The group's name.
    pub name: String,
    /// Its entries; the first shows by default.
    pub entries: Vec<BodyEntry>,
    /// Where it was written.
    pub at: At,
}

/// A `$sequence`.
#[derive(Debug, Clone, PartialEq)]
pub struct Sequence {
    /// The clip's name.
    pub name: String,
    /// The SMD file (`None`: the sequence names no file).
    pub path: Option<PathBuf>,
    /// Frames per second.
    pub fps: f32,
    /// `LX`, `LY`, `LZ`: travel marked on the compiled model's axes.
    pub travel: [bool; 3],
    /// `frame A B`: the frames kept.
    pub frames: Option<(usize, usize)>,
    /// `loop`: the sequence loops (studiomdl's `STUDIO_LOOPING`); without it, it plays once.
    pub loops: bool,
    /// Its placement.
    pub placement: Placement,
    /// Where it was written.
    pub at: At,
}

/// An `$attachment`.
#[derive(Debug, Clone, PartialEq)]
pub struct AttachmentDef {
    /// Its name.
    pub name: String,
    /// The bone it hangs on.
    pub bone: String,
    /// Position in the bone's frame (model space with `absolute`), before placement.
    pub offset: Vec3,
    /// `absolute`: `offset` is a model-space position.
    pub absolute: bool,
    /// The placement in force when it was written.
    pub placement: Placement,
    /// Where it was written.
    pub at: At,
}

/// What a QC script asks for.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Qc {
    /// The QC file.
    pub file: PathBuf,
    /// Bodies, in order.
    pub groups: Vec<BodyGroup>,
    /// Sequences, in order.
    pub sequences: Vec<Sequence>,
    /// Attachment points.
    pub attachments: Vec<AttachmentDef>,
    /// Folders searched for textures, in order (`$cdtexture`, `$texturepath`, `$cdmaterials`,
    /// then the last `$cd`).
    pub texture_folders: Vec<PathBuf>,
    /// The placement in force at the end of the script (files added with `--anim` get it).
    pub placement: Placement,
    /// Texture file names (lower case) `$texrendermode` gives a render mode spritebake draws.
    pub texture_modes: Vec<(String, TextureMode)>,
    /// Non-fatal problems.
    pub warnings: Vec<String>,
}

/// The `$texrendermode`s a sprite shows (`fullbright` and `flatshade` change lighting a
/// sprite's key light stands in for, and only warn).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextureMode {
    /// The palette's last colour is transparent ([`smd::mask`](crate::formats::smd::mask)).
    Masked,
    /// Added to what is behind it ([`smd::add_light`](crate::formats::smd::add_light)).
    Additive,
    /// An environment map whose coordinates follow the view ([`Material::chrome`](crate::model::Material::chrome)).
    Chrome,
}

/// An included file as the include callback read it: its path and text.
pub type Included = (PathBuf, String);

/// `name` without a final `.smd` (any case).
fn strip_smd(name: &str) -> &str {
    match name.len().checked_sub(4) {
        Some(cut) if name.is_char_boundary(cut) && name[cut..].eq_ignore_ascii_case(".smd") => &name[..cut],
        _ => name,
    }
}

pub(super) fn err(at: &At, message: impl Into<String>) -> Error {
    FormatError::at_line(FORMAT, at.line, message).in_file(&at.file).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placement_moves_roots_and_scales_every_translation() {
        let p = Placement { scale: 2.0, origin: Vec3::new(1.0, 0.0, 0.0), turn_degrees: 90.0 };
        assert!((p.point(Vec3::new(2.0, 0.0, 0.0)) - Vec3::new(0.0, 2.0, 0.0)).length() < 1e-5);
        let mut root = JointPose { translation: Vec3::new(1.0, 1.0, 0.0), ..JointPose::IDENTITY };
        p.pose(&mut root, true);
        assert!((root.translation - Vec3::new(-2.0, 0.0, 0.0)).length() < 1e-5);
        let mut child = JointPose { translation: Vec3::new(1.0, 1.0, 0.0), ..JointPose::IDENTITY };
        p.pose(&mut child, false);
        assert_eq!(child.translation, Vec3::new(2.0, 2.0, 0.0));
    }
}
