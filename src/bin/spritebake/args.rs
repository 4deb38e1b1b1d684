//! Command-line flags (clap derive) and their conversion into library options.

use std::path::PathBuf;

use anyhow::{Result, bail};
use clap::{Args, ValueEnum};
use glam::Vec3;
use spritebake::formats::{LoadOptions, TextureOverride};
use spritebake::model::Axis;
use spritebake::raster::{Filter, Light, OrbitView, Projection, RenderOptions, Shading, ShadingRate};

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
    /// Playback rate for every clip, frames per second (default: the file's own).
    #[arg(long)]
    pub fps: Option<f32>,
    /// The model's front axis in its file (+x, -x, +y, -y, +z, -z); default: the format's
    /// convention (MD2/MD5 +x, SMD -y, OBJ +z).
    #[arg(long, value_parser = parse_axis, allow_hyphen_values = true)]
    pub facing: Option<Axis>,
    /// A folder outside the model's own that texture paths written in the model may reach
    /// (repeatable). Without it, absolute and `..` paths are refused.
    #[arg(long, value_name = "DIR")]
    pub texture_root: Vec<PathBuf>,
    /// Largest model, animation or material file read, MiB.
    #[arg(long, default_value_t = 256)]
    pub max_file_mib: u64,
    /// Largest texture side accepted, texels.
    #[arg(long, default_value_t = 8192)]
    pub max_texture_side: u32,
}

impl ModelArgs {
    /// Every `--anim` value, with comma-separated lists split (`--anim walk,run`).
    fn anim_values(&self) -> impl Iterator<Item = &str> {
        self.anim.iter().flat_map(|a| a.split(',')).map(str::trim).filter(|a| !a.is_empty())
    }

    /// The `--anim` values that are files (loaded as clips).
    pub fn anim_files(&self) -> Vec<PathBuf> {
        self.anim_values().map(PathBuf::from).filter(|p| p.is_file()).collect()
    }

    /// The clips named by `--anim`, in order: a file's stem, or the name as given.
    pub fn clip_names(&self) -> Vec<String> {
        self.anim_values()
            .map(|a| {
                let path = PathBuf::from(a);
                match path.file_stem().filter(|_| path.is_file()) {
                    Some(stem) => stem.to_string_lossy().into_owned(),
                    None => a.to_string(),
                }
            })
            .collect()
    }

    /// The clip to play: the last `--anim`.
    pub fn clip_name(&self) -> Option<String> {
        self.clip_names().pop()
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
            limits: spritebake::formats::Limits {
                max_file_bytes: self.max_file_mib.saturating_mul(1 << 20),
                max_texture_side: self.max_texture_side,
            },
        }
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
    /// Output size, WxH or a single number for a square.
    #[arg(long, default_value = "256x256", value_parser = parse_size)]
    pub size: (u32, u32),
    /// Camera yaw in degrees (0 = the model's front, 90 = its left side seen from +X).
    #[arg(long, default_value_t = 0.0, allow_hyphen_values = true)]
    pub yaw: f32,
    /// Camera pitch in degrees above the horizon.
    #[arg(long, default_value_t = 15.0, allow_hyphen_values = true)]
    pub pitch: f32,
    /// Orthographic projection instead of perspective.
    #[arg(long, conflicts_with = "fov")]
    pub ortho: bool,
    /// Vertical field of view in degrees for the perspective camera.
    #[arg(long, default_value_t = 30.0)]
    pub fov: f32,
    /// Empty border around the model, as a fraction of the image.
    #[arg(long, default_value_t = 0.05)]
    pub margin: f32,
    /// Supersampling: N×N samples per pixel (1-4).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=4))]
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
    /// Brightness bands for --shading toon.
    #[arg(long, default_value_t = 3)]
    pub bands: u32,
    /// Directional light towards x,y,z in view space (x right, y up, z towards the viewer); repeatable.
    #[arg(long, value_parser = parse_vec3, allow_hyphen_values = true)]
    pub light: Vec<Vec3>,
    /// Ambient light level.
    #[arg(long, default_value_t = 0.3)]
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
    /// Frame index within the clip (fractions interpolate).
    #[arg(long, conflicts_with = "time")]
    pub frame: Option<f32>,
    /// Time in seconds at the clip's rate.
    #[arg(long)]
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
    /// Directions: yaw steps of 360/N degrees (direction 0 faces the camera).
    #[arg(long, default_value_t = 1, value_parser = parse_directions)]
    pub directions: u32,
    /// Camera preset (overrides --yaw, --pitch and the projection).
    #[arg(long, value_enum)]
    pub view: Option<ViewPreset>,
    /// Framing: one for the whole job, or per frame.
    #[arg(long, value_enum, default_value = "shared")]
    pub fit: FitArg,
    /// Resample the clip at this many frames per second.
    #[arg(long = "sample-fps", conflicts_with = "frames")]
    pub sample_fps: Option<f32>,
    /// Resample the clip to exactly this many frames.
    #[arg(long)]
    pub frames: Option<usize>,
    /// Keep the root's horizontal motion (by default walk cycles are rendered in place).
    #[arg(long)]
    pub root_motion: bool,
    /// Outline width in pixels around the silhouette (0 = none).
    #[arg(long, default_value_t = 0)]
    pub outline: u32,
    /// Outline colour.
    #[arg(long, default_value = "#000000", value_parser = parse_color)]
    pub outline_color: [u8; 4],
    /// Pixel art: render SCALE× larger and downscale with hard edges.
    #[arg(long, value_name = "SCALE")]
    pub pixel_art: Option<u32>,
    /// With --pixel-art: reduce to at most N colours.
    #[arg(long, value_name = "N")]
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
    /// Camera and frame size.
    #[command(flatten)]
    pub view: ViewArgs,
    /// Directions, framing, looks.
    #[command(flatten)]
    pub sprite: SpriteArgs,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
}
