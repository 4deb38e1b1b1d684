//! What a bake loads and plays: the model ([`ModelSpec`]), its animation ([`AnimSpec`]), the
//! moment a single image shows ([`MomentSpec`]), and the limits on what the model's files may
//! make spritebake read and allocate ([`LimitsSpec`], [`LimitOverrides`]).
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

#[cfg(feature = "cli")]
use crate::bounds;
use crate::error::Result;
use crate::model::Axis;
use crate::spec::{AttachSpec, BlendSpec, BodySpec, BoneSpec, Offset, TextureSpec, TransitionSpec};

#[cfg(feature = "cli")]
use clap::Args;

#[cfg(doc)]
use crate::formats::Format;

/// The MODEL argument's help: the extensions the loader knows.
#[cfg(feature = "cli")]
fn model_help() -> String {
    format!("The model file ({})", crate::formats::Format::extension_list())
}

/// Which model to load and how.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "cli", derive(Args))]
#[serde(default, deny_unknown_fields)]
pub struct ModelSpec {
    /// The model file, in any format spritebake reads ([`Format::extension_list`]).
    #[cfg_attr(feature = "cli", arg(value_name = "MODEL", help = model_help()))]
    pub model: PathBuf,
    /// Texture for every material (PATH) or one material (MATERIAL=PATH); repeatable.
    #[cfg_attr(feature = "cli", arg(long, value_name = "[MATERIAL=]PATH"))]
    #[serde(deserialize_with = "one_or_many")]
    pub texture: Vec<TextureSpec>,
    /// Playback rate for every clip, frames per second, from 0.01 to 1000 (default: the
    /// file's own).
    #[cfg_attr(feature = "cli", arg(long, value_parser = bounds::FPS.parser()))]
    pub fps: Option<f32>,
    /// The model's front axis in its file (+x, -x, +y, -y, +z, -z), at right angles to its up
    /// axis; default: the format's convention (MD2/MD5 +x, SMD -y, OBJ and glTF +z), turned
    /// along with `--up`.
    #[cfg_attr(feature = "cli", arg(long, allow_hyphen_values = true))]
    pub facing: Option<Axis>,
    /// The model's up axis in its file (+x, -x, +y, -y, +z, -z); default: the format's
    /// convention (MD2, MD5 and SMD +z, OBJ and glTF +y). The front turns with it unless
    /// `--facing` is given: an OBJ declared `--up +z` faces -y.
    #[cfg_attr(feature = "cli", arg(long, allow_hyphen_values = true))]
    pub up: Option<Axis>,
    /// A folder outside the model's own that paths written in the model (textures, material
    /// libraries, buffers) may lead into (repeatable). Without it, paths leading out of the
    /// model's folder (absolute, `..`, symbolic links) are refused.
    #[cfg_attr(feature = "cli", arg(long, value_name = "DIR"))]
    #[serde(deserialize_with = "one_or_many")]
    pub texture_root: Vec<PathBuf>,
    /// `.qc` models: the body a `$bodygroup` shows, 'GROUP=NAME' (NAME a studio file of the
    /// group without folders and `.smd`, any case, or `blank`); repeatable. Default: each
    /// group's first.
    #[cfg_attr(feature = "cli", arg(long, value_name = "GROUP=NAME"))]
    #[serde(deserialize_with = "one_or_many")]
    pub body: Vec<BodySpec>,
    /// `.def` files (Doom 3): the `model` declaration to load. Default: the file's first.
    #[cfg_attr(feature = "cli", arg(long, value_name = "NAME"))]
    pub model_name: Option<String>,
    /// Quake 3 players (`animation.cfg`): the skin, read from `lower_NAME.skin`,
    /// `upper_NAME.skin` and `head_NAME.skin` (letters, digits, `-` and `_`; default: `default`).
    /// Half-Life models (`.mdl`): the skin family, by number (default: 0). Quake 1 models
    /// (`.mdl`): the skin, by number from 0 (default: 0); a skin group plays its images.
    #[cfg_attr(feature = "cli", arg(long, value_name = "NAME"))]
    pub skin: Option<String>,
}

impl Default for ModelSpec {
    fn default() -> Self {
        ModelSpec {
            model: PathBuf::new(),
            texture: Vec::new(),
            fps: None,
            facing: None,
            up: None,
            texture_root: Vec::new(),
            body: Vec::new(),
            model_name: None,
            skin: None,
        }
    }
}

/// What plays: clips, attachments, bone overrides, blend, transitions, root motion.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "cli", derive(Args))]
#[serde(default, deny_unknown_fields)]
pub struct AnimSpec {
    /// Animation: a file to load as a clip (.md5anim, sequence .smd) or the name of a clip in
    /// the model (an MD2 `run`, a glTF `Walk`); repeatable and comma-separated. Sprite sheets
    /// and frames render every one as a row (without any, every clip of the model); commands
    /// that play one clip play `--clip`, else the first. `all` plays every glTF animation of
    /// the model together.
    #[cfg_attr(feature = "cli", arg(long, value_name = "FILE|NAME", value_delimiter = ','))]
    #[serde(deserialize_with = "one_or_many")]
    pub anim: Vec<String>,
    /// The clip to play (a clip name or an animation file's stem); sprite sheets and frames
    /// then render only this clip. Default: the first `--anim`, else the model's first clip
    /// that moves.
    #[cfg_attr(feature = "cli", arg(long, value_name = "NAME"))]
    pub clip: Option<String>,
    /// Attach a model (repeatable). `FILE` follows the body frame for frame with the same clip
    /// names (Quake 2 linked models: `--attach weapon.md2`); `FILE@NAME` hangs FILE's rest pose
    /// on a joint of a skeletal body, origin at the joint, in the joint's local axes; on a
    /// `.qc` or Half-Life `$attachment` point of that name, at the point; or on an MD3 tag,
    /// following it frame by frame (`weapon.md3@tag_weapon`). The name is split at the last
    /// '@'; `info` lists joints, points and tags. Each attachment's textures are found next to
    /// its own file.
    #[cfg_attr(feature = "cli", arg(long, value_name = "FILE[@NAME]"))]
    #[serde(deserialize_with = "one_or_many")]
    pub attach: Vec<AttachSpec>,
    /// Placement of an attachment in its joint's frame (or the body's model space for FILE
    /// attachments): 't=X,Y,Z;r=YAW,PITCH,ROLL;s=SCALE', groups optional and in any order
    /// (degrees, rotation Rz(yaw)·Ry(pitch)·Rx(roll), uniform scale), e.g. 't=0,0,-11;r=0,90,0'.
    /// The i-th offset goes with the i-th --attach.
    #[cfg_attr(
        feature = "cli",
        arg(long, value_name = "t=X,Y,Z;r=YAW,PITCH,ROLL;s=SCALE", allow_hyphen_values = true)
    )]
    #[serde(deserialize_with = "one_or_many")]
    pub attach_offset: Vec<Offset>,
    /// Rotate a joint and its subtree on every frame: 'JOINT:yaw=30,pitch=-10,roll=0' (degrees
    /// about the joint's own Z, Y and X axes, applied as Rz(yaw)·Ry(pitch)·Rx(roll) after the
    /// clip; keys optional; repeatable).
    #[cfg_attr(feature = "cli", arg(long, value_name = "JOINT:yaw=Y,pitch=P,roll=R", allow_hyphen_values = true))]
    #[serde(deserialize_with = "one_or_many")]
    pub bone: Vec<BoneSpec>,
    /// Mix a second clip into the one played: 'CLIP:WEIGHT' (WEIGHT 0..1; CLIP is a clip name
    /// or an animation file; clips of different lengths are matched by normalised time).
    #[cfg_attr(feature = "cli", arg(long, value_name = "CLIP:WEIGHT"))]
    pub blend: Option<BlendSpec>,
    /// Play clip A, then crossfade into B over SECONDS: 'A->B:SECONDS' (names or animation
    /// files). Sprite commands render it as one more row named 'A->B'; commands that play one
    /// motion play the first transition. Repeatable.
    #[cfg_attr(feature = "cli", arg(long, value_name = "A->B:SECONDS"))]
    #[serde(deserialize_with = "one_or_many")]
    pub transition: Vec<TransitionSpec>,
    /// Keep the root's motion (by default walk cycles stay in place: the root's travel is taken
    /// off, except a `.qc` sequence's, whose `LX LY LZ` flags say which travel studiomdl takes
    /// off, and a sequence without them keeps its motion).
    #[cfg_attr(feature = "cli", arg(long, conflicts_with = "in_place"))]
    pub root_motion: bool,
    /// Pin the root's horizontal motion of every clip, a `.qc` sequence without `LX LY LZ`
    /// flags included (whose motion studiomdl keeps, and so does spritebake by default).
    #[cfg_attr(feature = "cli", arg(long))]
    pub in_place: bool,
    /// Clips that play once and hold their last frame in the sheet's engine data (a death, an
    /// attack): clip names or animation files; repeatable and comma-separated. Clips loop unless
    /// their file says otherwise (a QC `$sequence` without `loop` plays once).
    #[cfg_attr(feature = "cli", arg(long, value_name = "CLIP", value_delimiter = ','))]
    #[serde(deserialize_with = "one_or_many")]
    pub once: Vec<String>,
    /// Clips that loop, where their file says they play once; as `once`.
    #[cfg_attr(feature = "cli", arg(long = "loop", value_name = "CLIP", value_delimiter = ','))]
    #[serde(rename = "loop", deserialize_with = "one_or_many")]
    pub looping: Vec<String>,
}

/// Which moment of the motion a single image shows (`render`, `export`, `check` cases).
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "cli", derive(Args))]
#[serde(default, deny_unknown_fields)]
pub struct MomentSpec {
    /// Frame index within the clip, from 0 to 1000000 (fractions interpolate). A `check` case
    /// may list several (`frame = [0, 4, 7.5]`) to compare each.
    #[cfg_attr(feature = "cli", arg(long, conflicts_with = "time", value_parser = bounds::FRAME.parser()))]
    #[serde(deserialize_with = "one_or_many")]
    pub frame: Vec<f32>,
    /// Time in seconds at the clip's rate, from 0 to 100000.
    #[cfg_attr(feature = "cli", arg(long, value_parser = bounds::TIME.parser()))]
    pub time: Option<f32>,
}

/// A repeatable option in a manifest: one value (`frame = 3`, `anim = "walk"`) or a list
/// (`frame = [0, 4.5]`, `anim = ["walk", "run"]`). Errors keep the value's own message.
pub(super) fn one_or_many<'de, D, T>(d: D) -> Result<Vec<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    use serde::de::IntoDeserializer;
    struct OneOrMany<T>(std::marker::PhantomData<T>);
    impl<'de, T: Deserialize<'de>> serde::de::Visitor<'de> for OneOrMany<T> {
        type Value = Vec<T>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a value or a list of values")
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
            let mut values = Vec::new();
            while let Some(v) = seq.next_element()? {
                values.push(v);
            }
            Ok(values)
        }
        fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Vec<T>, E> {
            T::deserialize(v.into_deserializer()).map(|t| vec![t])
        }
        fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Vec<T>, E> {
            T::deserialize(v.into_deserializer()).map(|t| vec![t])
        }
        fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Vec<T>, E> {
            T::deserialize(v.into_deserializer()).map(|t| vec![t])
        }
        fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Vec<T>, E> {
            T::deserialize(v.into_deserializer()).map(|t| vec![t])
        }
    }
    d.deserialize_any(OneOrMany(std::marker::PhantomData))
}

/// Limits on what a model's files may make spritebake read and allocate.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "cli", derive(Args))]
#[serde(default, deny_unknown_fields)]
pub struct LimitsSpec {
    /// Largest file read (model, animation, material library, buffer, texture), MiB, from 1 to
    /// 16384; larger files are refused before reading.
    #[cfg_attr(
        feature = "cli",
        arg(long, value_name = "MIB", default_value_t = LimitsSpec::default().max_file_mib, value_parser = bounds::MAX_FILE_MIB.parser())
    )]
    pub max_file_mib: u64,
    /// Largest texture side accepted, texels, from 1 to 32768.
    #[cfg_attr(
        feature = "cli",
        arg(long, default_value_t = LimitsSpec::default().max_texture_side, value_parser = bounds::MAX_TEXTURE_SIDE.parser())
    )]
    pub max_texture_side: u32,
    /// Memory budget, MiB: what one model's files may make spritebake allocate (decoded
    /// textures with their mip chains, animation frames x joints), and again what a command's
    /// rendered frames or compared images may take, from 1 to 1048576.
    #[cfg_attr(
        feature = "cli",
        arg(long, value_name = "MIB", default_value_t = LimitsSpec::default().max_memory_mib, value_parser = bounds::MAX_MEMORY_MIB.parser())
    )]
    pub max_memory_mib: u64,
}

impl Default for LimitsSpec {
    fn default() -> Self {
        let limits = crate::formats::Limits::default();
        LimitsSpec {
            max_file_mib: limits.max_file_bytes >> 20,
            max_texture_side: limits.max_texture_side,
            max_memory_mib: limits.max_memory_bytes >> 20,
        }
    }
}

impl LimitsSpec {
    /// The library's limits.
    pub fn limits(&self) -> crate::formats::Limits {
        crate::formats::Limits {
            max_file_bytes: self.max_file_mib.saturating_mul(1 << 20),
            max_texture_side: self.max_texture_side,
            max_memory_bytes: self.max_memory_mib.saturating_mul(1 << 20),
        }
    }

    /// A fresh memory budget of this size.
    pub fn budget(&self) -> crate::MemoryBudget {
        self.limits().budget()
    }
}

/// Limits given once for a whole run (`check`'s flags), each replacing what a case sets;
/// unset ones leave each case's own.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(Args))]
pub struct LimitOverrides {
    /// Largest file read, MiB, from 1 to 16384, for every case (default: each case's
    /// `max_file_mib`, else 256).
    #[cfg_attr(feature = "cli", arg(long, value_name = "MIB", value_parser = bounds::MAX_FILE_MIB.parser()))]
    pub max_file_mib: Option<u64>,
    /// Largest texture side, texels, from 1 to 32768, for every case (default: each case's
    /// `max_texture_side`, else 8192).
    #[cfg_attr(feature = "cli", arg(long, value_parser = bounds::MAX_TEXTURE_SIDE.parser()))]
    pub max_texture_side: Option<u32>,
    /// Memory budget, MiB, from 1 to 1048576, for every case's model and again for its frames
    /// and goldens (default: each case's `max_memory_mib`, else 256).
    #[cfg_attr(feature = "cli", arg(long, value_name = "MIB", value_parser = bounds::MAX_MEMORY_MIB.parser()))]
    pub max_memory_mib: Option<u64>,
}

impl LimitOverrides {
    /// `limits` with every override that is set.
    pub fn apply(&self, limits: &LimitsSpec) -> LimitsSpec {
        LimitsSpec {
            max_file_mib: self.max_file_mib.unwrap_or(limits.max_file_mib),
            max_texture_side: self.max_texture_side.unwrap_or(limits.max_texture_side),
            max_memory_mib: self.max_memory_mib.unwrap_or(limits.max_memory_mib),
        }
    }
}
