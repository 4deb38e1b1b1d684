//! How each image is made: the camera and image size ([`ViewSpec`]), the directions and frames
//! a sprite job samples ([`SpriteSpec`]), the rasterizer's settings ([`RenderSpec`]), and the
//! post-processing of every finished image ([`LookSpec`]).
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::input::one_or_many;
#[cfg(feature = "cli")]
use crate::bounds;
use crate::spec::{Color, Ground, LightDirection, Size, SizeSpec};

#[cfg(feature = "cli")]
use clap::Args;

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
    /// Directions: the model turned in steps of 360/N degrees, N from 1 to 64. Direction 0
    /// faces the camera; 1, 2, 4, 8 and 16 are named by compass, screen-relative (S faces the
    /// viewer, W screen-left): S, SW, W, NW, N, NE, E, SE for 8; other counts by their angle
    /// in degrees (6: 0, 60, 120, 180, 240, 300; a fraction's point is `_`: 32 has 11_25).
    #[cfg_attr(feature = "cli", arg(long, default_value_t = SpriteSpec::default().directions, value_parser = bounds::DIRECTIONS.parser()))]
    pub directions: u32,
    /// Names for the directions instead of the compass, one per direction in turning order,
    /// comma-separated (`front,left,back,right`): ASCII letters, digits, '-' and '_', at most
    /// 32 bytes, unique ignoring case.
    #[cfg_attr(feature = "cli", arg(long, value_name = "NAME,...", value_delimiter = ','))]
    #[serde(deserialize_with = "one_or_many")]
    pub direction_names: Vec<String>,
    /// Mirror: render the directions from the front round to the back (S, SW, W, NW, N of 8)
    /// and write each one past the back (NE, E, SE) as its mirror image's frame with a flag
    /// to draw it flipped about its pivot: half the render time and sheet space. Only right for
    /// a model that looks the same flipped (a symmetric character, lit from the front or
    /// unlit): a sword hand or a side light changes sides. Sheets only; 3 or more directions.
    #[cfg_attr(feature = "cli", arg(long))]
    pub mirror: bool,
    /// Framing: one for the whole job, or per frame.
    #[cfg_attr(feature = "cli", arg(long, value_enum, default_value_t = SpriteSpec::default().fit))]
    pub fit: Fit,
    /// Fixed scale: exactly P pixels per model unit, from 0.0001 to 100000, the same for every
    /// model baked with it, the ground point under the model's origin on one pixel of every
    /// cell. Orthographic views only (--ortho, --view iso); with a fixed --size the frames must
    /// fit it (refused otherwise), with --size auto the cells are cut to them.
    #[cfg_attr(feature = "cli", arg(long, value_name = "P", value_parser = bounds::PIXELS_PER_UNIT.parser()))]
    pub pixels_per_unit: Option<f32>,
    /// The ground the pivot stands on: auto (the lowest point of the model's rest pose, or of
    /// the first frame of its first clip for MD2, MDL and MD3: the same whichever clips share
    /// the job), origin (height 0), lowest (the lowest point of every frame of the job) or a
    /// height in model units.
    #[cfg_attr(feature = "cli", arg(long, value_name = "auto|origin|lowest|Y", default_value_t = Ground::Auto))]
    pub ground: Ground,
    /// Resample each clip at this many frames per second, from 0.01 to 1000 (at most 10000
    /// frames per clip).
    #[cfg_attr(feature = "cli", arg(long, conflicts_with = "frames", value_parser = bounds::SAMPLE_FPS.parser()))]
    pub sample_fps: Option<f32>,
    /// Resample each clip to exactly this many frames, from 1 to 10000.
    #[cfg_attr(feature = "cli", arg(long, value_parser = bounds::FRAMES.parser()))]
    pub frames: Option<usize>,
    /// Joints, attachment points or MD3 tags whose pixel in each frame the data records (where to spawn
    /// a bullet or hang a hat), comma-separated: `points` in the TexturePacker JSON's frames
    /// and the frames JSON, Aseprite slices, Godot metadata `points`, in pixels of the untrimmed
    /// frame (`info` lists the names). `root` is the clip's travel: the pivot carried as far as
    /// the clip walks the model (posed in place, where the game moves the sprite).
    #[cfg_attr(feature = "cli", arg(long, value_name = "NAME,...", value_delimiter = ','))]
    #[serde(deserialize_with = "one_or_many")]
    pub points: Vec<String>,
}

impl Default for SpriteSpec {
    fn default() -> Self {
        SpriteSpec {
            directions: 1,
            direction_names: Vec::new(),
            mirror: false,
            fit: Fit::default(),
            pixels_per_unit: None,
            ground: Ground::Auto,
            sample_fps: None,
            frames: None,
            points: Vec::new(),
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
    /// Texture filter, for every texture. Default: trilinear, except where a model chooses its
    /// own (glTF `magFilter`, `minFilter`: a pixel-art model's NEAREST), which a given filter
    /// overrides.
    #[cfg_attr(feature = "cli", arg(long, value_enum))]
    pub filter: Option<FilterName>,
    /// Shading model.
    #[cfg_attr(feature = "cli", arg(long, value_enum, default_value_t = RenderSpec::default().shading))]
    pub shading: ShadingName,
    /// Brightness bands for --shading toon, from 2 to 64.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = RenderSpec::default().bands, value_parser = bounds::BANDS.parser()))]
    pub bands: u32,
    /// Directional light towards x,y,z in view space (x right, y up, z towards the viewer);
    /// repeatable; the lights share an intensity of 1. None given: the defaults shown, or else
    /// one key light from the upper left.
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
            filter: None,
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

/// How a PNG's colour relates to its alpha.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "kebab-case")]
pub enum AlphaName {
    /// Colour as it is, alpha beside it (PNG's own meaning; the default).
    #[default]
    Straight,
    /// Colour multiplied by alpha, rounded, as engines that blend premultiplied textures load
    /// them without a pass of their own (libGDX's `pma`, Spine, Pixi's `premultiplied-alpha`).
    Premultiplied,
}

/// How pixel art turns each SCALE×SCALE block of its large render into one pixel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "kebab-case")]
pub enum PixelArtFilter {
    /// The block's average colour in linear light, weighted by alpha (the default): a textured
    /// model keeps its colours from frame to frame instead of showing one sample per block.
    #[default]
    Area,
    /// The block's most frequent colour: an untextured, flat- or toon-shaded model keeps its
    /// exact colours, with no in-between colour where two faces meet.
    Mode,
}

/// Post-processing of finished images: pixel art, palette, outline, skeleton overlay, maps.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "cli", derive(Args))]
#[serde(default, deny_unknown_fields)]
pub struct LookSpec {
    /// Pixel art: render SCALE× larger and downscale with hard edges, SCALE from 1 to 16.
    #[cfg_attr(feature = "cli", arg(long, value_name = "SCALE", value_parser = bounds::PIXEL_ART.parser()))]
    pub pixel_art: Option<u32>,
    /// With --pixel-art: how each block becomes one pixel. `area`: the block's average in linear
    /// light (alpha-weighted); `mode`: its most frequent colour (exact flat colours of an
    /// untextured model). Either way the pixel is opaque when at least half the block is
    /// covered, else transparent.
    #[cfg_attr(feature = "cli", arg(long, value_enum, default_value_t = LookSpec::default().pixel_art_filter))]
    pub pixel_art_filter: PixelArtFilter,
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
    /// The colour images' alpha: `straight` (PNG's own) or `premultiplied` (colour times
    /// alpha, for engines that blend premultiplied textures; a libGDX atlas says `pma:true`).
    /// Not for GIF, whose pixels are opaque or transparent. Maps are never premultiplied.
    #[cfg_attr(feature = "cli", arg(long, value_enum, default_value_t = LookSpec::default().alpha))]
    pub alpha: AlphaName,
}

impl Default for LookSpec {
    fn default() -> Self {
        LookSpec {
            pixel_art: None,
            pixel_art_filter: PixelArtFilter::default(),
            palette: None,
            palette_file: None,
            palette_dither: false,
            outline: 0,
            outline_color: Color([0, 0, 0, 255]),
            skeleton: false,
            maps: Vec::new(),
            normal_y: NormalY::default(),
            alpha: AlphaName::default(),
        }
    }
}
