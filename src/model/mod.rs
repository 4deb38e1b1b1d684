//! Format-free model data: what every parser produces and what posing and rendering consume.
//!
//! A [`Model`] holds meshes in the *source file's own axes* plus an [`Orientation`] that says
//! which way is up and which way the model faces; the renderer converts to its canonical frame
//! (Y up, facing +Z towards a camera at yaw 0) so every format stands upright.
//!
//! Animation data comes in two kinds, matching the formats:
//! * skeletal ([`Skeleton`] + [`Clip`] with per-frame local joint poses, vertices carrying
//!   [`Influence`]s) for MD5, SMD and glTF;
//! * morph ([`Mesh::morph_frames`], clips listing frame indices) for MD2.
//!
//! [`PosedMesh`] is the plain data that posing produces and the rasterizer draws.

mod aabb;
mod clip;
mod cycle;
mod front;
mod keyed;
mod material;
mod mesh;
mod orientation;
mod posed;
mod skeleton;
mod tag;

pub use crate::error::UnknownName;
pub use aabb::Aabb;
pub(crate) use clip::unique_clip_name;
pub use clip::{Clip, ClipFrames, MarkedMotion, Retarget};
pub use cycle::MaterialCycle;
pub use front::FrontSign;
pub use keyed::{Channel, ChannelTarget, Interpolation, KeyedClip};
pub use material::{AlphaMode, Material, MinFilter, Texture, TextureSource, TextureStatus};
pub use mesh::{Influence, Mesh, MorphFrame, MorphTarget};
pub use orientation::{Axis, Orientation};
pub use posed::{PosedMesh, PosedPart, SharedPositions};
pub use skeleton::{AttachmentPoint, Joint, JointPose, Skeleton};
pub use tag::Tag;

/// A loaded model: meshes, materials, optional skeleton and animation clips.
#[derive(Debug, Clone, Default)]
pub struct Model {
    /// Display name (usually the file stem).
    pub name: String,
    /// Meshes, each drawn with one material.
    pub meshes: Vec<Mesh>,
    /// Materials indexed by [`Mesh::material`].
    pub materials: Vec<Material>,
    /// Materials that take turns over time in place of the one a mesh names (a Quake 1 skin
    /// group); posing shows the turn of its time.
    pub material_cycles: Vec<MaterialCycle>,
    /// Up and forward axes of the source file.
    pub orientation: Orientation,
    /// Joint hierarchy for skeletal formats.
    pub skeleton: Option<Skeleton>,
    /// Animation clips in file order.
    pub clips: Vec<Clip>,
    /// Named points on joints (`.qc` `$attachment`s), usable as `--attach FILE@NAME`.
    pub attachment_points: Vec<AttachmentPoint>,
    /// Frames of reference that follow a morph model's key shapes (MD3 tags), usable as
    /// `--attach FILE@NAME` too.
    pub tags: Vec<Tag>,
    /// Clips whose root travel is marked on chosen axes (`.qc` `LX`/`LY`/`LZ`); see
    /// [`MarkedMotion`].
    pub marked_motion: Vec<MarkedMotion>,
    /// Non-fatal problems met while loading (missing textures, skipped blocks...).
    pub warnings: Vec<String>,
    /// Every file read (or opened and refused) to build this model: the model file, material
    /// libraries, buffers, textures and animation files, as canonical paths. Commands check
    /// their planned outputs against this list so no output lands on an input.
    pub sources: Vec<std::path::PathBuf>,
}

impl Model {
    /// Which way the model seems to face in its file's axes, when its rest pose shows it
    /// clearly (its toes, or a four-legged rig's head and tail; see `front.rs`); `None`
    /// otherwise, never a guess.
    pub fn seeming_front(&self) -> Option<FrontSign> {
        let height = self.rest_bounds().size().max_element();
        front::seeming_front(self.skeleton.as_ref()?, self.orientation, height)
    }

    /// Renames every clip whose name an earlier clip has to the first `name_1`, `name_2` ...
    /// no clip has (`unique_clip_name`), and says so in one warning per clip renamed: two
    /// clips of one name (glTF animations, FBX stacks) would merge into one animation in a
    /// sheet's data, the second unreachable by name.
    pub fn rename_duplicate_clips(&mut self) -> Vec<String> {
        let mut warnings = Vec::new();
        for i in 1..self.clips.len() {
            let name = &self.clips[i].name;
            if self.clips[..i].iter().any(|c| &c.name == name) {
                // Free of every name, later ones included: the file's own `walk_1` stays.
                let renamed = unique_clip_name(name.clone(), &self.clips);
                warnings.push(format!("two clips are named '{name}': the later one is '{renamed}'"));
                self.clips[i].name = renamed;
            }
        }
        warnings
    }

    /// Total vertex count over all meshes.
    pub fn vertex_count(&self) -> usize {
        self.meshes.iter().map(|m| m.positions.len()).sum()
    }

    /// Total triangle count over all meshes.
    pub fn triangle_count(&self) -> usize {
        self.meshes.iter().map(|m| m.indices.len()).sum()
    }

    /// Bounds of the rest (bind) pose in the file's own axes; empty for a model with no vertices.
    pub fn rest_bounds(&self) -> Aabb {
        Aabb::from_points(self.meshes.iter().flat_map(|m| m.positions.iter().copied()))
    }

    /// The axes a clip's root travel is marked on (see [`MarkedMotion`]), if any.
    pub fn marked_axes(&self, clip: &str) -> Option<[bool; 3]> {
        self.marked_motion.iter().find(|m| m.clip == clip).map(|m| m.axes)
    }

    /// Looks an attachment point up by exact name, else without regard to ASCII case.
    pub fn attachment_point(&self, name: &str) -> Option<&AttachmentPoint> {
        let points = &self.attachment_points;
        points.iter().find(|p| p.name == name).or_else(|| points.iter().find(|p| p.name.eq_ignore_ascii_case(name)))
    }

    /// Index of the tag `name`, matched exactly, else without regard to ASCII case (Quake 3
    /// compares tag names that way).
    pub fn tag(&self, name: &str) -> Option<usize> {
        let tags = &self.tags;
        tags.iter().position(|t| t.name == name).or_else(|| tags.iter().position(|t| t.name.eq_ignore_ascii_case(name)))
    }

    /// Looks a clip up by exact name.
    pub fn clip(&self, name: &str) -> Option<&Clip> {
        self.clips.iter().find(|c| c.name == name)
    }

    /// Looks a clip up by exact name, or says which clips are close and lists them all.
    ///
    /// # Errors
    /// No clip has that name.
    pub fn find_clip(&self, name: &str) -> Result<&Clip, UnknownName> {
        self.clip(name).ok_or_else(|| {
            let known: Vec<&str> = self.clips.iter().map(|c| c.name.as_str()).collect();
            let context = if known.is_empty() {
                "the model has no animation clips".to_string()
            } else {
                format!("clips: {}", known.join(", "))
            };
            UnknownName::new("clip", name, known.iter().copied(), context)
        })
    }
}
