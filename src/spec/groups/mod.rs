//! The option groups of a [`BakeSpec`](super::BakeSpec): model, animation, moment, view, sprite,
//! render, look, layout, GIF and limits, each with its defaults, its TOML keys and (with the
//! `cli` feature) its flags.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::{
    AttachSpec, BlendSpec, BodySpec, BoneSpec, Color, DirectionRef, LightDirection, Offset, PageSize, Size, SizeSpec,
    TextureSpec, TransitionSpec,
};
#[cfg(feature = "cli")]
use crate::bounds;
use crate::error::Result;
use crate::model::Axis;

#[cfg(feature = "cli")]
use clap::Args;

/// Which model to load and how.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "cli", derive(Args))]
#[serde(default, deny_unknown_fields)]
pub struct ModelSpec {
    /// The model file (.obj, .md2, .md5mesh, .smd, .qc, .def, .gltf, .glb).
    #[cfg_attr(feature = "cli", arg(value_name = "MODEL"))]
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
    /// and frames render every one as a row; commands that play one clip play `--clip`, else
    /// the first. `all` plays every glTF animation of the model together.
    #[cfg_attr(feature = "cli", arg(long, value_name = "FILE|NAME", value_delimiter = ','))]
    #[serde(deserialize_with = "one_or_many")]
    pub anim: Vec<String>,
    /// The clip to play (a clip name or an animation file's stem); sprite sheets and frames
    /// then render only this clip. Default: the first `--anim`, else the model's first clip.
    #[cfg_attr(feature = "cli", arg(long, value_name = "NAME"))]
    pub clip: Option<String>,
    /// Attach a model (repeatable). `FILE` follows the body frame for frame with the same clip
    /// names (Quake 2 linked models: `--attach weapon.md2`); `FILE@JOINT` hangs FILE's rest pose
    /// on a joint of an MD5/SMD body, origin at the joint, in the joint's local axes, or on a
    /// `.qc` `$attachment` point of that name, at the point (the name is split at the last '@';
    /// `info` lists joints and points). Each attachment's textures are found next to its own
    /// file.
    #[cfg_attr(feature = "cli", arg(long, value_name = "FILE[@JOINT]"))]
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
    /// Keep the root's horizontal motion (by default every command renders walk cycles in
    /// place).
    #[cfg_attr(feature = "cli", arg(long))]
    pub root_motion: bool,
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
fn one_or_many<'de, D, T>(d: D) -> Result<Vec<T>, D::Error>
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

/// Camera presets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "kebab-case")]
pub enum ViewPreset {
    /// 2:1 pixel-art isometric: orthographic, 30° elevation; `--yaw` still turns the model (0:
    /// its front faces the camera; 45 shows a grid-aligned building corner-on).
    Iso,
}

/// The camera and the image size.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "cli", derive(Args))]
#[serde(default, deny_unknown_fields)]
pub struct ViewSpec {
    /// Image (or cell) size, WxH or one number for a square, each side from 1 to 8192; or
    /// `auto[:MAX]`: cells cut to the content of the whole job plus the margin, at most MAX
    /// (`auto` is `auto:256`). Without `--pixels-per-unit` the scale is the one that fits MAX.
    #[cfg_attr(feature = "cli", arg(long, value_name = "WxH|auto[:MAX]", default_value_t = ViewSpec::default().size))]
    pub size: SizeSpec,
    /// Camera yaw in degrees, from -360 to 360 (0 = the model's front, 90 = its left side).
    #[cfg_attr(
        feature = "cli",
        arg(long, default_value_t = ViewSpec::default().yaw, allow_hyphen_values = true, value_parser = bounds::YAW.parser())
    )]
    pub yaw: f32,
    /// Camera pitch in degrees above the horizon, from -90 to 90.
    #[cfg_attr(
        feature = "cli",
        arg(long, default_value_t = ViewSpec::default().pitch, allow_hyphen_values = true, value_parser = bounds::PITCH.parser())
    )]
    pub pitch: f32,
    /// Orthographic projection instead of perspective.
    #[cfg_attr(feature = "cli", arg(long, conflicts_with = "fov"))]
    pub ortho: bool,
    /// Vertical field of view in degrees for the perspective camera, from 1 to 179.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = ViewSpec::default().fov, value_parser = bounds::FOV.parser()))]
    pub fov: f32,
    /// Empty border around the model, as a fraction of the image, from 0 to 1.
    #[cfg_attr(
        feature = "cli",
        arg(long, default_value_t = ViewSpec::default().margin, value_parser = bounds::MARGIN.parser())
    )]
    pub margin: f32,
    /// Camera preset: replaces --pitch and the projection (--yaw still turns the model).
    #[cfg_attr(feature = "cli", arg(long, value_enum))]
    pub view: Option<ViewPreset>,
}

impl Default for ViewSpec {
    /// 256×256, and the camera of [`crate::raster::OrbitView::default`].
    fn default() -> Self {
        let camera = crate::raster::OrbitView::default();
        let (ortho, fov) = match camera.projection {
            crate::raster::Projection::Orthographic => (true, 30.0),
            crate::raster::Projection::Perspective { fov_y_degrees } => (false, fov_y_degrees),
        };
        ViewSpec {
            size: SizeSpec::Fixed(Size::square(256)),
            yaw: camera.yaw_degrees,
            pitch: camera.pitch_degrees,
            ortho,
            fov,
            margin: camera.margin,
            view: None,
        }
    }
}

/// How the cells of a sprite job are framed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "kebab-case")]
pub enum Fit {
    /// One framing for every cell of the job: no jitter (the default).
    #[default]
    Shared,
    /// Each cell fitted to its own frame.
    PerFrame,
}

/// Directions and frames of a multi-frame sprite job (`sheet`, `gif`, `frames`).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "cli", derive(Args))]
#[serde(default, deny_unknown_fields)]
pub struct SpriteSpec {
    /// Directions: the model turned in steps of 360/N degrees, N one of 1, 2, 4, 8 or 16.
    /// Direction 0 faces the camera; they are named by compass, screen-relative (S faces the
    /// viewer, W screen-left): S, SW, W, NW, N, NE, E, SE for 8.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = SpriteSpec::default().directions))]
    pub directions: u32,
    /// Names for the directions instead of the compass, one per direction in turning order,
    /// comma-separated (`front,left,back,right`): ASCII letters, digits, '-' and '_', at most
    /// 32 bytes, unique ignoring case.
    #[cfg_attr(feature = "cli", arg(long, value_name = "NAME,...", value_delimiter = ','))]
    #[serde(deserialize_with = "one_or_many")]
    pub direction_names: Vec<String>,
    /// Framing: one for the whole job, or per frame.
    #[cfg_attr(feature = "cli", arg(long, value_enum, default_value_t = SpriteSpec::default().fit))]
    pub fit: Fit,
    /// Fixed scale: exactly P pixels per model unit, from 0.0001 to 100000, the same for every
    /// model baked with it, the ground point under the model's origin on one pixel of every
    /// cell. Orthographic views only (--ortho, --view iso); with a fixed --size the frames must
    /// fit it (refused otherwise), with --size auto the cells are cut to them.
    #[cfg_attr(feature = "cli", arg(long, value_name = "P", value_parser = bounds::PIXELS_PER_UNIT.parser()))]
    pub pixels_per_unit: Option<f32>,
    /// Resample each clip at this many frames per second, from 0.01 to 1000 (at most 10000
    /// frames per clip).
    #[cfg_attr(feature = "cli", arg(long, conflicts_with = "frames", value_parser = bounds::SAMPLE_FPS.parser()))]
    pub sample_fps: Option<f32>,
    /// Resample each clip to exactly this many frames, from 1 to 10000.
    #[cfg_attr(feature = "cli", arg(long, value_parser = bounds::FRAMES.parser()))]
    pub frames: Option<usize>,
}

impl Default for SpriteSpec {
    fn default() -> Self {
        SpriteSpec {
            directions: 1,
            direction_names: Vec::new(),
            fit: Fit::default(),
            pixels_per_unit: None,
            sample_fps: None,
            frames: None,
        }
    }
}

/// Texture filters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "kebab-case")]
pub enum FilterName {
    /// The nearest texel.
    Nearest,
    /// Bilinear.
    Bilinear,
    /// Mipmapped trilinear (the default).
    #[default]
    Trilinear,
}

/// Shading models.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "kebab-case")]
pub enum ShadingName {
    /// No lighting.
    Unlit,
    /// Lambert + ambient (the default).
    #[default]
    Lambert,
    /// Banded Lambert (see --bands).
    Toon,
}

/// How often supersampled renders shade.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "kebab-case")]
pub enum ShadingRateName {
    /// Each pixel once per triangle; coverage and depth per sample (GPU multisampling).
    #[default]
    Pixel,
    /// Every sample (plain supersampling, up to ssaa² times slower).
    Sample,
}

/// Rendering: sampling, filtering, shading, lights, background, culling.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "cli", derive(Args))]
#[serde(default, deny_unknown_fields)]
pub struct RenderSpec {
    /// Supersampling: N×N samples per pixel, N from 1 to 4 (default 4: edges are smooth, and
    /// with --shading-rate pixel each pixel is still shaded once per triangle).
    #[cfg_attr(feature = "cli", arg(long, default_value_t = RenderSpec::default().ssaa, value_parser = bounds::SSAA.parser()))]
    pub ssaa: u32,
    /// With --ssaa above 1: `pixel` shades each pixel once per triangle (coverage and depth stay
    /// per sample, as GPU multisampling), `sample` shades every sample.
    #[cfg_attr(feature = "cli", arg(long, value_enum, default_value_t = RenderSpec::default().shading_rate))]
    pub shading_rate: ShadingRateName,
    /// Texture filter.
    #[cfg_attr(feature = "cli", arg(long, value_enum, default_value_t = RenderSpec::default().filter))]
    pub filter: FilterName,
    /// Shading model.
    #[cfg_attr(feature = "cli", arg(long, value_enum, default_value_t = RenderSpec::default().shading))]
    pub shading: ShadingName,
    /// Brightness bands for --shading toon, from 2 to 64.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = RenderSpec::default().bands, value_parser = bounds::BANDS.parser()))]
    pub bands: u32,
    /// Directional light towards x,y,z in view space (x right, y up, z towards the viewer);
    /// repeatable; the lights share an intensity of 1. Default: one key light from the upper
    /// left.
    #[cfg_attr(feature = "cli", arg(long, value_name = "X,Y,Z", allow_hyphen_values = true))]
    pub light: Vec<LightDirection>,
    /// Ambient light level, from 0 to 1.
    #[cfg_attr(
        feature = "cli",
        arg(long, default_value_t = RenderSpec::default().ambient, value_parser = bounds::AMBIENT.parser())
    )]
    pub ambient: f32,
    /// Background colour '#rrggbb' or '#rrggbbaa' (default: transparent).
    #[cfg_attr(feature = "cli", arg(long))]
    pub background: Option<Color>,
    /// Draw back faces too (default: back faces are culled).
    #[cfg_attr(feature = "cli", arg(long))]
    pub two_sided: bool,
}

impl Default for RenderSpec {
    fn default() -> Self {
        // The renderer's own defaults, so a spec and `RenderOptions::default()` render alike
        // (held equal by `every_default_is_the_librarys`).
        let options = crate::raster::RenderOptions::default();
        RenderSpec {
            ssaa: options.ssaa,
            shading_rate: ShadingRateName::default(),
            filter: FilterName::default(),
            shading: ShadingName::default(),
            bands: 3,
            light: Vec::new(),
            ambient: options.ambient,
            background: None,
            two_sided: false,
        }
    }
}

/// Companion images for 2D lighting, in the colour image's layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, Serialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "kebab-case")]
pub enum MapKind {
    /// View-space normals, `walk_n.png`.
    Normal,
    /// Linear view depth, `walk_depth.png`.
    Depth,
}

/// Which way a normal map's green channel points.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "kebab-case")]
pub enum NormalY {
    /// Green up, "OpenGL" (Godot 4, Unity; the default).
    #[default]
    Up,
    /// Green down, "DirectX" (Godot 3's 2D lights).
    Down,
}

/// Post-processing of finished images: pixel art, palette, outline, skeleton overlay, maps.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "cli", derive(Args))]
#[serde(default, deny_unknown_fields)]
pub struct LookSpec {
    /// Pixel art: render SCALE× larger and downscale with hard edges, SCALE from 1 to 16.
    #[cfg_attr(feature = "cli", arg(long, value_name = "SCALE", value_parser = bounds::PIXEL_ART.parser()))]
    pub pixel_art: Option<u32>,
    /// With --pixel-art: reduce to at most N colours, N from 2 to 256: one palette for the whole
    /// output (every cell and frame), built from all of them (k-means in Oklab).
    #[cfg_attr(feature = "cli", arg(long, value_name = "N", value_parser = bounds::PALETTE.parser()))]
    pub palette: Option<usize>,
    /// With --pixel-art: use exactly the colours of a palette file: GIMP `.gpl`, Lospec `.hex`
    /// (one `rrggbb` a line) or JASC `.pal`. Not with --palette.
    #[cfg_attr(feature = "cli", arg(long, value_name = "PATH"))]
    pub palette_file: Option<PathBuf>,
    /// With --palette or --palette-file: ordered (4×4 Bayer) dithering when mapping to the palette.
    #[cfg_attr(feature = "cli", arg(long))]
    pub palette_dither: bool,
    /// Outline width in pixels around the silhouette, from 0 (none) to 256.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 0, value_parser = bounds::OUTLINE.parser()))]
    pub outline: u32,
    /// Outline colour.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = LookSpec::default().outline_color))]
    pub outline_color: Color,
    /// Draw joints and bones over each image (the animator's debug view).
    #[cfg_attr(feature = "cli", arg(long))]
    pub skeleton: bool,
    /// Companion images for 2D lights in the colour output's layout (`sheet`, `frames`,
    /// `render`): `normal` writes `NAME_n.png` (view-space normals, RGB = n·0.5+0.5, x right,
    /// z towards the viewer), `depth` writes `NAME_depth.png` (linear depth over the whole
    /// output, white nearest); comma-separated. Default: none.
    #[cfg_attr(feature = "cli", arg(long, value_enum, value_delimiter = ','))]
    #[serde(deserialize_with = "one_or_many")]
    pub maps: Vec<MapKind>,
    /// Which way the normal map's y (green) points: `up` for Godot 4 and Unity, `down` for
    /// Godot 3's 2D lights. Needs `--maps normal`.
    #[cfg_attr(feature = "cli", arg(long, value_enum, default_value_t = LookSpec::default().normal_y))]
    pub normal_y: NormalY,
}

impl Default for LookSpec {
    fn default() -> Self {
        LookSpec {
            pixel_art: None,
            palette: None,
            palette_file: None,
            palette_dither: false,
            outline: 0,
            outline_color: Color([0, 0, 0, 255]),
            skeleton: false,
            maps: Vec::new(),
            normal_y: NormalY::default(),
        }
    }
}

/// Engine data written beside a sheet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "kebab-case")]
pub enum JsonFormatName {
    /// TexturePacker JSON-Hash with PixiJS `animations`: NAME.json (the default).
    #[default]
    Texturepacker,
    /// Aseprite's JSON with `frameTags`, frames named by number (Phaser's createFromAseprite).
    Aseprite,
    /// TexturePacker JSON-Hash plus Phaser's animation JSON (anims.fromJSON): NAME.json and
    /// NAME.anims.json.
    Phaser,
    /// A Godot 4 SpriteFrames resource: NAME.tres.
    Godot,
    /// A Godot 3 SpriteFrames resource: NAME.tres.
    Godot3,
}

/// How frames are placed on sheet pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "kebab-case")]
pub enum PackName {
    /// One row per clip and direction, frames left to right, wrapping at the page width
    /// (easy to slice by hand; the default).
    #[default]
    Rows,
    /// Frames packed as densely as they go (MaxRects), largest first; with --trim the sheet
    /// is much smaller.
    Tight,
}

/// Sprite-sheet layout (`sheet`).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "cli", derive(Args))]
#[serde(default, deny_unknown_fields)]
pub struct LayoutSpec {
    /// Transparent pixels between cells and around the sheet, from 0 to 256.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = LayoutSpec::default().padding, value_parser = bounds::PADDING.parser()))]
    pub padding: u32,
    /// Repeat each frame's edge pixels this far into the padding, from 0 to 64.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 0, value_parser = bounds::EXTRUDE.parser()))]
    pub extrude: u32,
    /// Crop frames to their opaque pixels (the JSON records the offsets).
    #[cfg_attr(feature = "cli", arg(long))]
    pub trim: bool,
    /// Engine data beside the sheet, same stem.
    #[cfg_attr(feature = "cli", arg(long, value_enum, default_value_t = LayoutSpec::default().json_format))]
    pub json_format: JsonFormatName,
    /// Frame names, like Aseprite's --filename-format: {title} (the sheet's file name without
    /// extension), {tag} (clip and direction), {frame} (number in the sheet), {tagframe}
    /// (number in its tag), {duration} (ms); digits after a counter pad it and set its first
    /// number ({frame000}: 000, 001...; {frame1}: 1, 2...). Names every format's frames. Default:
    /// {frame} for aseprite (Phaser looks frames up by number), else {tag}_{tagframe000}.
    #[cfg_attr(feature = "cli", arg(long, value_name = "FORMAT"))]
    pub filename_format: Option<String>,
    /// Largest sheet page, WxH or one number for a square, each side from 1 to 16384. Frames
    /// that do not fit one page go on more: NAME-0.png, NAME-1.png, ... each with its JSON
    /// (TexturePacker multipack); a sheet that fits one page is NAME.png.
    #[cfg_attr(feature = "cli", arg(long, value_name = "W[xH]", default_value_t = LayoutSpec::default().max_size))]
    pub max_size: PageSize,
    /// Round every page's width and height up to powers of two (pages then stay within the
    /// largest power of two of --max-size).
    #[cfg_attr(feature = "cli", arg(long))]
    pub pot: bool,
    /// Frame placement: rows (one per clip and direction) or tight.
    #[cfg_attr(feature = "cli", arg(long, value_enum, default_value_t = LayoutSpec::default().pack))]
    pub pack: PackName,
    /// Store identical frames (same kept pixels at the same offset) once; every frame name
    /// stays in the JSON, pointing at the shared rectangle.
    #[cfg_attr(feature = "cli", arg(long))]
    pub dedupe: bool,
}

impl Default for LayoutSpec {
    fn default() -> Self {
        LayoutSpec {
            padding: 2,
            extrude: 0,
            trim: false,
            json_format: JsonFormatName::default(),
            filename_format: None,
            max_size: PageSize(Size::square(crate::sprite::DEFAULT_MAX_PAGE)),
            pot: false,
            pack: PackName::default(),
            dedupe: false,
        }
    }
}

/// GIF palettes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "kebab-case")]
pub enum GifPaletteName {
    /// One palette for the whole GIF: stable colours, smaller file (the default).
    #[default]
    Global,
    /// A palette per frame.
    PerFrame,
}

/// Animated GIF settings (`gif`).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "cli", derive(Args))]
#[serde(default, deny_unknown_fields)]
pub struct GifSpec {
    /// Which direction of --directions to show: its index, from 0 to directions - 1, or its
    /// name (`SW`, or one of --direction-names).
    #[cfg_attr(feature = "cli", arg(long, value_name = "INDEX|NAME", default_value_t = DirectionRef::Index(0)))]
    pub direction: DirectionRef,
    /// Floyd–Steinberg dithering.
    #[cfg_attr(feature = "cli", arg(long))]
    pub dither: bool,
    /// Pixels with alpha below this become transparent, from 0 to 255.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = GifSpec::default().alpha_threshold))]
    pub alpha_threshold: u8,
    /// Palette strategy.
    #[cfg_attr(feature = "cli", arg(long, value_enum, default_value_t = GifSpec::default().gif_palette))]
    pub gif_palette: GifPaletteName,
}

impl Default for GifSpec {
    fn default() -> Self {
        GifSpec {
            direction: DirectionRef::Index(0),
            dither: false,
            alpha_threshold: 128,
            gif_palette: GifPaletteName::default(),
        }
    }
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
