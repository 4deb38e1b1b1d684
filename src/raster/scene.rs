use glam::{Mat4, Vec3};

use super::camera::Camera;
use super::texture::Filter;
use crate::model::PosedMesh;

/// A directional light.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Light {
    /// Direction *towards* the light in **view space** (x right, y up, z towards the viewer),
    /// so every camera direction of a sprite sheet is lit the same way. Need not be unit length.
    pub direction: Vec3,
    /// Brightness multiplier (1 = full).
    pub intensity: f32,
}

impl Light {
    /// The default key light: from the upper left, in front of the model.
    pub const KEY: Light = Light { direction: Vec3::new(-0.45, 0.6, 0.65), intensity: 0.85 };
    /// A dimmer fill light from the lower right, for thumbnails.
    pub const FILL: Light = Light { direction: Vec3::new(0.6, -0.1, 0.5), intensity: 0.3 };
}

/// How fragments are lit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Shading {
    /// Base colour × texture, no lighting.
    Unlit,
    /// Lambert diffuse from the lights plus ambient (the default).
    #[default]
    Lambert,
    /// Lambert quantised into this many bands (cel shading).
    Toon {
        /// Number of brightness bands (at least 2).
        bands: u32,
    },
}

/// How often the fragment stage runs when supersampling.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ShadingRate {
    /// Once per pixel for each opaque triangle covering it, at the centroid of the samples it
    /// covers; coverage and depth stay per sample (what GPUs call multisampling). Edges are
    /// anti-aliased exactly as with [`ShadingRate::Sample`]; textures get one trilinear lookup
    /// at the mip level of half a pixel's footprint instead of the average of `ssaa²` finer
    /// lookups, which keeps them nearly as crisp. The default: `ssaa²` times less shading.
    /// Alpha-tested and blended triangles are always shaded per sample.
    #[default]
    Pixel,
    /// Every sample shaded on its own (plain supersampling).
    Sample,
}

/// Everything about a render that is not the scene content.
#[derive(Debug, Clone, PartialEq)]
pub struct RenderOptions {
    /// Output width in pixels.
    pub width: u32,
    /// Output height in pixels.
    pub height: u32,
    /// Supersampling: `ssaa × ssaa` samples per pixel, 1..=4. The default is 4, as every
    /// command's: smooth edges, and with [`ShadingRate::Pixel`] each pixel still shades once per
    /// triangle.
    pub ssaa: u32,
    /// How often fragments are shaded when `ssaa > 1`. The default is [`ShadingRate::Pixel`].
    pub shading_rate: ShadingRate,
    /// Texture filter. The default is trilinear.
    pub filter: Filter,
    /// Whether a material's own filters (glTF `magFilter`, `minFilter`) win over `filter` where
    /// it has them. The default is true; false applies `filter` to every texture.
    pub model_filters: bool,
    /// Lighting model. The default is Lambert.
    pub shading: Shading,
    /// Directional lights. The default is [`Light::KEY`].
    pub lights: Vec<Light>,
    /// Ambient light added to the diffuse term. The default is 0.3.
    pub ambient: f32,
    /// Background colour (sRGB, straight alpha); `None` (the default) is transparent.
    pub background: Option<[u8; 4]>,
    /// Skip triangles facing away from the camera. The default is true; false renders both sides.
    pub cull_back_faces: bool,
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions {
            width: 256,
            height: 256,
            ssaa: 4,
            shading_rate: ShadingRate::Pixel,
            filter: Filter::Trilinear,
            model_filters: true,
            shading: Shading::Lambert,
            lights: vec![Light::KEY],
            ambient: 0.3,
            background: None,
            cull_back_faces: true,
        }
    }
}

/// The largest output side in pixels.
pub const MAX_IMAGE_SIDE: u32 = 16384;
/// The most samples (pixels × ssaa²) one render may take.
pub const MAX_SAMPLES: u64 = 1 << 28;

/// One posed model placed in the world.
#[derive(Debug, Clone, Copy)]
pub struct SceneObject<'a> {
    /// The posed meshes.
    pub posed: &'a PosedMesh<'a>,
    /// Model (file axes) → world (Y up, facing +Z); usually `Orientation::to_canonical`.
    pub model_to_world: Mat4,
}

/// What to draw and from where.
#[derive(Debug, Clone)]
pub struct Scene<'a> {
    /// Objects, drawn in order.
    pub objects: Vec<SceneObject<'a>>,
    /// The camera.
    pub camera: Camera,
}
