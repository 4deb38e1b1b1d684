//! Command-line flags (clap derive) and their conversion into library options.

use std::path::PathBuf;

use anyhow::{Result, bail};
use clap::{Args, ValueEnum};
use glam::Vec3;
use spritebake::bounds;
use spritebake::formats::{LoadOptions, TextureOverride};
use spritebake::model::Axis;
use spritebake::raster::{Filter, Light, OrbitView, Projection, RenderOptions, Shading, ShadingRate};
use spritebake::rig::{AttachSpec, BlendSpec, BoneSpec, Controls, Offset, TransitionSpec};

/// Flags that say which model to load and how.
#[derive(Debug, Args)]
pub struct ModelArgs {
    /// The model file (.obj, .md2, .md5mesh, .smd, .gltf, .glb).
    pub model: PathBuf,
    /// Animation: a file to load as a clip (.md5anim, sequence .smd) or the name of a clip in
    /// the model (e.g. an MD2 `run`, a glTF `Walk`); repeatable. Commands that play one clip
    /// play the last. `all` plays every glTF animation of the model together.
    #[arg(long, value_name = "FILE|NAME")]
    pub anim: Vec<String>,
    /// Texture for every material (PATH) or one material (MATERIAL=PATH); repeatable.
    #[arg(long, value_name = "[MATERIAL=]PATH")]
    pub texture: Vec<String>,
    /// Playback rate for every clip, frames per second, from 0.01 to 1000 (default: the
    /// file's own).
    #[arg(long, value_parser = bounds::FPS.parser())]
    pub fps: Option<f32>,
    /// The model's front axis in its file (+x, -x, +y, -y, +z, -z); default: the format's
    /// convention (MD2/MD5 +x, SMD -y, OBJ +z).
    #[arg(long, value_parser = parse_axis, allow_hyphen_values = true)]
    pub facing: Option<Axis>,
    /// A folder outside the model's own that paths written in the model (textures, material
    /// libraries, buffers) may lead into (repeatable). Without it, paths leading out of the
    /// model's folder (absolute, `..`, symbolic links) are refused.
    #[arg(long, value_name = "DIR")]
    pub texture_root: Vec<PathBuf>,
    /// Resource limits.
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// Limits on what a model's files may make spritebake read and allocate.
#[derive(Debug, Args)]
pub struct LimitArgs {
    /// Largest file read (model, animation, material library, buffer, texture), MiB, from 1 to
    /// 16384; larger files are refused before reading.
    #[arg(long, default_value_t = 256, value_parser = bounds::MAX_FILE_MIB.parser())]
    pub max_file_mib: u64,
    /// Largest texture side accepted, texels, from 1 to 32768.
    #[arg(long, default_value_t = 8192, value_parser = bounds::MAX_TEXTURE_SIDE.parser())]
    pub max_texture_side: u32,
    /// Memory budget.
    #[command(flatten)]
    pub memory: MemoryArgs,
}

impl LimitArgs {
    /// The library's limits.
    pub fn limits(&self) -> spritebake::formats::Limits {
        spritebake::formats::Limits {
            max_file_bytes: self.max_file_mib.saturating_mul(1 << 20),
            max_texture_side: self.max_texture_side,
            max_memory_bytes: self.memory.bytes(),
        }
    }
}

/// The memory budget flag.
#[derive(Debug, Args)]
pub struct MemoryArgs {
    /// Memory budget, MiB: what one model's files may make spritebake allocate (decoded
    /// textures with their mip chains, animation frames x joints), and again what a command's
    /// rendered frames or compared images may take, from 1 to 1048576. Raise it for unusually
    /// large assets.
    #[arg(
        long,
        default_value_t = spritebake::budget::DEFAULT_MAX_MEMORY_BYTES >> 20,
        value_name = "MIB",
        value_parser = bounds::MAX_MEMORY_MIB.parser()
    )]
    pub max_memory_mib: u64,
}

impl MemoryArgs {
    /// The budget in bytes.
    pub fn bytes(&self) -> u64 {
        self.max_memory_mib.saturating_mul(1 << 20)
    }

    /// A fresh budget.
    pub fn budget(&self) -> spritebake::MemoryBudget {
        spritebake::MemoryBudget::new(self.bytes())
    }
}

impl ModelArgs {
    /// Every `--anim` value, with comma-separated lists split (`--anim walk,run`).
    fn anim_values(&self) -> impl Iterator<Item = &str> {
        self.anim.iter().flat_map(|a| a.split(',')).map(str::trim).filter(|a| !a.is_empty())
    }

    /// The `--anim` values that are files (loaded as clips).
    pub fn anim_files(&self) -> Vec<PathBuf> {
        self.anim_values().filter_map(|a| clip_reference(a).1).collect()
    }

    /// The files `--texture` names.
    pub fn texture_files(&self) -> Vec<PathBuf> {
        self.load_options().texture_overrides.into_iter().map(|o| o.path).collect()
    }

    /// The clips named by `--anim`, in order: a file's stem, or the name as given.
    pub fn clip_names(&self) -> Vec<String> {
        self.anim_values().map(|a| clip_reference(a).0).collect()
    }

    /// The clip to play: the last `--anim`.
    pub fn clip_name(&self) -> Option<String> {
        self.clip_names().pop()
    }

    /// Library load options, with `extra` animation files added (deduplicated).
    pub fn load_options_with(&self, extra: Vec<PathBuf>) -> LoadOptions {
        let mut options = self.load_options();
        for path in extra {
            if !options.animations.contains(&path) {
                options.animations.push(path);
            }
        }
        options
    }

    /// Library load options.
    pub fn load_options(&self) -> LoadOptions {
        let texture_overrides = self
            .texture
            .iter()
            .map(|t| match t.split_once('=') {
                Some((material, path)) if !material.is_empty() => {
                    TextureOverride { material: Some(material.to_string()), path: PathBuf::from(path) }
                }
                _ => TextureOverride { material: None, path: PathBuf::from(t) },
            })
            .collect();
        LoadOptions {
            animations: self.anim_files(),
            texture_overrides,
            fps: self.fps,
            facing: self.facing,
            texture_roots: self.texture_root.clone(),
            limits: self.limits.limits(),
        }
    }
}

/// Animation control flags, shared by every command that poses a model.
#[derive(Debug, Args, Default)]
pub struct AnimArgs {
    /// Attach a model (repeatable). `FILE` follows the body frame for frame with the same clip
    /// names (Quake 2 linked models: `--attach weapon.md2`); `FILE@JOINT` hangs FILE's rest pose
    /// on a joint of an MD5/SMD body, origin at the joint, in the joint's local axes (the name
    /// is split at the last '@'; `info` lists joints). Each attachment's textures are found
    /// next to its own file.
    #[arg(long, value_name = "FILE[@JOINT]")]
    pub attach: Vec<AttachSpec>,
    /// Placement of an attachment in its joint's frame (or the body's model space for FILE
    /// attachments): 't=X,Y,Z;r=YAW,PITCH,ROLL;s=SCALE', groups optional and in any order
    /// (degrees, rotation Rz(yaw)·Ry(pitch)·Rx(roll), uniform scale), e.g. 't=0,0,-11;r=0,90,0'.
    /// The i-th offset goes with the i-th --attach.
    #[arg(long, value_name = "t=X,Y,Z;r=YAW,PITCH,ROLL;s=SCALE", allow_hyphen_values = true)]
    pub attach_offset: Vec<Offset>,
    /// Rotate a joint and its subtree on every frame: 'JOINT:yaw=30,pitch=-10,roll=0' (degrees
    /// about the joint's own Z, Y and X axes, applied as Rz(yaw)·Ry(pitch)·Rx(roll) after the
    /// clip; keys optional; repeatable).
    #[arg(long, value_name = "JOINT:yaw=Y,pitch=P,roll=R", allow_hyphen_values = true)]
    pub bone: Vec<BoneSpec>,
    /// Mix a second clip into the one played: 'CLIP:WEIGHT' (WEIGHT 0..1; CLIP is a clip name
    /// or an animation file; clips of different lengths are matched by normalised time).
    #[arg(long, value_name = "CLIP:WEIGHT")]
    pub blend: Option<BlendSpec>,
    /// Play clip A, then crossfade into B over SECONDS: 'A->B:SECONDS' (names or animation
    /// files). Sprite commands render it as one more clip named 'A->B'; render/export pick
    /// its frame with --frame/--time. Repeatable.
    #[arg(long, value_name = "A->B:SECONDS")]
    pub transition: Vec<TransitionSpec>,
}

/// The clip a value names — the stem of an animation file that exists (with its path, to
/// load), or the value itself as a clip name.
fn clip_reference(s: &str) -> (String, Option<PathBuf>) {
    let path = PathBuf::from(s);
    match path.file_stem().filter(|_| path.is_file()) {
        Some(stem) => (stem.to_string_lossy().into_owned(), Some(path)),
        None => (s.to_string(), None),
    }
}

impl AnimArgs {
    /// Animation files named by --blend and --transition, to load as clips.
    pub fn animation_files(&self) -> Vec<PathBuf> {
        let names = self.blend.iter().map(|b| b.clip.as_str());
        let names = names.chain(self.transition.iter().flat_map(|t| [t.from.as_str(), t.to.as_str()]));
        names.filter_map(|n| clip_reference(n).1).collect()
    }

    /// The library's controls, animation files replaced by their clip names.
    pub fn controls(&self) -> Result<Controls> {
        let mut controls = Controls {
            attachments: self.attach.clone(),
            bones: self.bone.clone(),
            blend: self.blend.clone().map(|b| BlendSpec { clip: clip_reference(&b.clip).0, ..b }),
            transitions: self
                .transition
                .iter()
                .map(|t| TransitionSpec { from: clip_reference(&t.from).0, to: clip_reference(&t.to).0, ..t.clone() })
                .collect(),
        };
        controls.set_offsets(&self.attach_offset)?;
        Ok(controls)
    }
}

/// Texture filters on the command line.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum FilterArg {
    /// Nearest texel.
    Nearest,
    /// Bilinear.
    Bilinear,
    /// Mipmapped trilinear.
    Trilinear,
}

/// Shading models on the command line.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ShadingArg {
    /// No lighting.
    Unlit,
    /// Lambert + ambient.
    Lambert,
    /// Banded Lambert (see --bands).
    Toon,
}

/// Camera and image flags shared by every rendering command.
#[derive(Debug, Args)]
pub struct ViewArgs {
    /// Output size, WxH or a single number for a square; each side from 1 to 8192.
    #[arg(long, default_value = "256x256", value_parser = parse_size)]
    pub size: (u32, u32),
    /// Camera yaw in degrees, from -360 to 360 (0 = the model's front, 90 = its left side
    /// seen from +X).
    #[arg(long, default_value_t = 0.0, allow_hyphen_values = true, value_parser = bounds::YAW.parser())]
    pub yaw: f32,
    /// Camera pitch in degrees above the horizon, from -90 to 90.
    #[arg(long, default_value_t = 15.0, allow_hyphen_values = true, value_parser = bounds::PITCH.parser())]
    pub pitch: f32,
    /// Orthographic projection instead of perspective.
    #[arg(long, conflicts_with = "fov")]
    pub ortho: bool,
    /// Vertical field of view in degrees for the perspective camera, from 1 to 179.
    #[arg(long, default_value_t = 30.0, value_parser = bounds::FOV.parser())]
    pub fov: f32,
    /// Empty border around the model, as a fraction of the image, from 0 to 1.
    #[arg(long, default_value_t = 0.05, value_parser = bounds::MARGIN.parser())]
    pub margin: f32,
    /// Supersampling: N×N samples per pixel, N from 1 to 4.
    #[arg(long, default_value_t = 1, value_parser = bounds::SSAA.parser())]
    pub ssaa: u32,
    /// With --ssaa above 1: `pixel` shades each pixel once per triangle (coverage and depth stay
    /// per sample, as GPU multisampling), `sample` shades every sample (plain supersampling,
    /// up to ssaa² times slower).
    #[arg(long, default_value = "pixel", value_parser = spritebake::parse::shading_rate)]
    pub shading_rate: ShadingRate,
    /// Texture filter.
    #[arg(long, value_enum, default_value = "trilinear")]
    pub filter: FilterArg,
    /// Shading model.
    #[arg(long, value_enum, default_value = "lambert")]
    pub shading: ShadingArg,
    /// Brightness bands for --shading toon, from 2 to 64.
    #[arg(long, default_value_t = 3, value_parser = bounds::BANDS.parser())]
    pub bands: u32,
    /// Directional light towards x,y,z in view space (x right, y up, z towards the viewer); repeatable.
    #[arg(long, value_parser = parse_vec3, allow_hyphen_values = true)]
    pub light: Vec<Vec3>,
    /// Ambient light level, from 0 to 1.
    #[arg(long, default_value_t = 0.3, value_parser = bounds::AMBIENT.parser())]
    pub ambient: f32,
    /// Background colour '#rrggbb' or '#rrggbbaa' (default: transparent).
    #[arg(long, value_parser = parse_color)]
    pub background: Option<[u8; 4]>,
    /// Draw back faces too (default: back faces are culled).
    #[arg(long)]
    pub two_sided: bool,
}

impl ViewArgs {
    /// The orbit camera.
    pub fn orbit(&self) -> OrbitView {
        let projection =
            if self.ortho { Projection::Orthographic } else { Projection::Perspective { fov_y_degrees: self.fov } };
        OrbitView { yaw_degrees: self.yaw, pitch_degrees: self.pitch, projection, margin: self.margin }
    }

    /// Library render options.
    pub fn render_options(&self) -> RenderOptions {
        let lights = if self.light.is_empty() {
            vec![Light::KEY]
        } else {
            self.light.iter().map(|&direction| Light { direction, intensity: 1.0 / self.light.len() as f32 }).collect()
        };
        RenderOptions {
            width: self.size.0,
            height: self.size.1,
            ssaa: self.ssaa,
            shading_rate: self.shading_rate,
            filter: match self.filter {
                FilterArg::Nearest => Filter::Nearest,
                FilterArg::Bilinear => Filter::Bilinear,
                FilterArg::Trilinear => Filter::Trilinear,
            },
            shading: match self.shading {
                ShadingArg::Unlit => Shading::Unlit,
                ShadingArg::Lambert => Shading::Lambert,
                ShadingArg::Toon => Shading::Toon { bands: self.bands.max(2) },
            },
            lights,
            ambient: self.ambient,
            background: self.background,
            cull_back_faces: !self.two_sided,
        }
    }
}

/// Which moment of which clip.
#[derive(Debug, Args)]
pub struct FrameArgs {
    /// Frame index within the clip, from 0 to 1000000 (fractions interpolate).
    #[arg(long, conflicts_with = "time", value_parser = bounds::FRAME.parser())]
    pub frame: Option<f32>,
    /// Time in seconds at the clip's rate, from 0 to 100000.
    #[arg(long, value_parser = bounds::TIME.parser())]
    pub time: Option<f32>,
    /// Remove the root's horizontal motion so the model stays in place.
    #[arg(long)]
    pub in_place: bool,
}

fn parse_directions(s: &str) -> Result<u32> {
    match s.parse::<u32>() {
        Ok(n @ (1 | 2 | 4 | 8 | 16)) => Ok(n),
        _ => bail!("directions must be 1, 2, 4, 8 or 16, got '{s}'"),
    }
}

fn parse_axis(s: &str) -> Result<Axis> {
    spritebake::parse::axis(s).map_err(anyhow::Error::msg)
}

fn parse_size(s: &str) -> Result<(u32, u32)> {
    spritebake::parse::size(s).map_err(anyhow::Error::msg)
}

fn parse_vec3(s: &str) -> Result<Vec3> {
    spritebake::parse::vec3(s).map_err(anyhow::Error::msg)
}

fn parse_color(s: &str) -> Result<[u8; 4]> {
    spritebake::parse::color(s).map_err(anyhow::Error::msg)
}

/// JSON layouts for sheets.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum JsonFormatArg {
    /// TexturePacker JSON-Hash with PixiJS `animations`.
    Texturepacker,
    /// Aseprite JSON with `frameTags`.
    Aseprite,
}

/// Camera presets.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ViewPreset {
    /// 2:1 pixel-art isometric: orthographic, 30° elevation, 45° yaw.
    Iso,
}

/// Framing modes.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum FitArg {
    /// One framing for every cell (no jitter).
    Shared,
    /// Each cell fitted to its own frame.
    PerFrame,
}

/// Flags of every multi-frame sprite command (sheet, gif, frames).
#[derive(Debug, Args)]
pub struct SpriteArgs {
    /// Directions: yaw steps of 360/N degrees, N one of 1, 2, 4, 8 or 16 (direction 0 faces
    /// the camera).
    #[arg(long, default_value_t = 1, value_parser = parse_directions)]
    pub directions: u32,
    /// Camera preset (overrides --yaw, --pitch and the projection).
    #[arg(long, value_enum)]
    pub view: Option<ViewPreset>,
    /// Framing: one for the whole job, or per frame.
    #[arg(long, value_enum, default_value = "shared")]
    pub fit: FitArg,
    /// Resample the clip at this many frames per second, from 0.01 to 1000 (at most 10000
    /// frames per clip).
    #[arg(long = "sample-fps", conflicts_with = "frames", value_parser = bounds::SAMPLE_FPS.parser())]
    pub sample_fps: Option<f32>,
    /// Resample the clip to exactly this many frames, from 1 to 10000.
    #[arg(long, value_parser = bounds::FRAMES.parser())]
    pub frames: Option<usize>,
    /// Keep the root's horizontal motion (by default walk cycles are rendered in place).
    #[arg(long)]
    pub root_motion: bool,
    /// Outline width in pixels around the silhouette, from 0 (none) to 256.
    #[arg(long, default_value_t = 0, value_parser = bounds::OUTLINE.parser())]
    pub outline: u32,
    /// Outline colour.
    #[arg(long, default_value = "#000000", value_parser = parse_color)]
    pub outline_color: [u8; 4],
    /// Pixel art: render SCALE× larger and downscale with hard edges, SCALE from 1 to 16.
    #[arg(long, value_name = "SCALE", value_parser = bounds::PIXEL_ART.parser())]
    pub pixel_art: Option<u32>,
    /// With --pixel-art: reduce to at most N colours, N from 2 to 256.
    #[arg(long, value_name = "N", value_parser = bounds::PALETTE.parser())]
    pub palette: Option<usize>,
    /// Draw joints and bones over each frame.
    #[arg(long)]
    pub skeleton: bool,
    /// No progress output.
    #[arg(long, short)]
    pub quiet: bool,
}

/// What every multi-frame sprite command (sheet, gif, frames) takes.
#[derive(Debug, Args)]
pub struct SpriteJobArgs {
    /// Model selection; `--anim walk,run` renders several clips.
    #[command(flatten)]
    pub model: ModelArgs,
    /// Attachments, bone overrides, blend, transitions.
    #[command(flatten)]
    pub anim: AnimArgs,
    /// Camera and frame size.
    #[command(flatten)]
    pub view: ViewArgs,
    /// Directions, framing, looks.
    #[command(flatten)]
    pub sprite: SpriteArgs,
    /// Worker threads, from 1 to 1024 (default: all cores).
    #[arg(long, value_parser = bounds::THREADS.parser())]
    pub threads: Option<usize>,
}
