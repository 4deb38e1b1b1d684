use std::path::PathBuf;
use std::sync::Arc;

/// An RGBA8 image used as a texture, rows top to bottom.
#[derive(Debug, Clone, PartialEq)]
pub struct Texture {
    /// Width in texels.
    pub width: u32,
    /// Height in texels.
    pub height: u32,
    /// `width * height * 4` bytes, straight (not premultiplied) alpha.
    pub rgba: Vec<u8>,
    /// True when the colour channels are sRGB-encoded (the usual case for colour maps);
    /// the renderer then filters in linear light.
    pub srgb: bool,
    /// For an 8-bit paletted BMP, the colour of its last palette entry (index 255), which a
    /// GoldSrc masked texture draws transparent ([`Material::palette_mask`]); `None` otherwise.
    pub mask_colour: Option<[u8; 3]>,
    /// Which texels glow, one flag a texel: they keep their colour whatever the light (Quake
    /// 1's fullbright palette entries). `None` when none does.
    pub glow: Option<Vec<bool>>,
}

impl Texture {
    /// Builds a texture, returning `None` when `rgba` does not hold exactly `width * height`
    /// texels or a dimension is zero.
    pub fn new(width: u32, height: u32, rgba: Vec<u8>, srgb: bool) -> Option<Texture> {
        let expected = (width as usize).checked_mul(height as usize)?.checked_mul(4)?;
        (width > 0 && height > 0 && rgba.len() == expected).then_some(Texture {
            width,
            height,
            rgba,
            srgb,
            mask_colour: None,
            glow: None,
        })
    }

    /// This texture with the texels of `colour` transparent (a GoldSrc masked texture's).
    pub fn masked(&self, colour: [u8; 3]) -> Texture {
        let mut rgba = self.rgba.clone();
        for texel in rgba.chunks_exact_mut(4).filter(|t| t[..3] == colour) {
            texel[3] = 0;
        }
        Texture {
            width: self.width,
            height: self.height,
            rgba,
            srgb: self.srgb,
            mask_colour: None,
            glow: self.glow.clone(),
        }
    }

    /// Turns its alpha over (255 − alpha): what a material of [`Material::inverted_alpha`]
    /// reads.
    pub fn invert_alpha(&mut self) {
        for texel in self.rgba.chunks_exact_mut(4) {
            texel[3] = 255 - texel[3];
        }
    }

    /// Bytes a `width`×`height` texture holds once decoded and prepared for rendering: the
    /// RGBA8 texels plus the renderer's mip chain (linear premultiplied RGBA, 16 bits a channel:
    /// 8 bytes a texel, each level half the previous, odd sides rounded down, down to 1×1).
    /// About 15 bytes a texel: what a texture's declared size is charged against a memory budget. The
    /// decoder's own buffers are smaller and freed before the chain is built.
    pub fn prepared_bytes(width: u32, height: u32) -> u64 {
        let (mut w, mut h) = (u64::from(width.max(1)), u64::from(height.max(1)));
        let mut texels = w * h;
        while w > 1 || h > 1 {
            (w, h) = ((w / 2).max(1), (h / 2).max(1));
            texels += w * h;
        }
        u64::from(width) * u64::from(height) * 4 + texels * 8
    }

    /// The visible stand-in for a texture that could not be found: a magenta and black checker,
    /// the colour every engine uses for "missing".
    pub fn missing() -> Texture {
        const N: u32 = 8;
        let mut rgba = Vec::with_capacity((N * N * 4) as usize);
        for y in 0..N {
            for x in 0..N {
                let on = (x / 2 + y / 2) % 2 == 0;
                rgba.extend_from_slice(if on { &[255, 0, 255, 255] } else { &[0, 0, 0, 255] });
            }
        }
        Texture { width: N, height: N, rgba, srgb: true, mask_colour: None, glow: None }
    }
}

/// How a material's alpha is used.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum AlphaMode {
    /// Alpha ignored: every covered pixel is opaque, and the texture's colour is its stored
    /// RGB wherever its alpha is (as GL and Blender draw an opaque material).
    #[default]
    Opaque,
    /// Fragments with alpha below the cutoff are discarded, the rest are opaque.
    Mask(f32),
    /// Fragments are blended over what is behind them, back to front.
    Blend,
    /// Fragments are added to what is behind them (glows, flames: GoldSrc `additive`), with the
    /// blended ones, back to front: black adds nothing. Over nothing, a fragment's brightest
    /// channel is its alpha, so a sprite's glow fades out where it darkens.
    Additive,
    /// What is behind is multiplied by the fragments' colour (Quake 3's `blendFunc filter`:
    /// light maps, shadows, stains), with the blended ones, back to front: white changes
    /// nothing. It covers nothing of its own, so over nothing it shows nothing.
    Multiply,
}

impl AlphaMode {
    /// Whether fragments mix with what is behind them instead of hiding it: drawn after the
    /// surfaces that hide, back to front, without writing depth.
    pub fn is_blended(self) -> bool {
        matches!(self, AlphaMode::Blend | AlphaMode::Additive | AlphaMode::Multiply)
    }
}

/// What became of the texture a material names.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum TextureStatus {
    /// The material names no texture.
    #[default]
    None,
    /// Found and decoded from this file.
    Found(PathBuf),
    /// Decoded from data inside the model file (a GLB buffer or a data URI); the text says which
    /// image.
    Embedded(String),
    /// Named (the name as written in the model) but not found or not decodable; the reason says
    /// which. A visible fallback texture is used instead.
    Missing {
        /// The name the model gave.
        name: String,
        /// Why it could not be used.
        reason: String,
    },
}

/// Where a found texture came from: the step of the loader's lookup order that found it
/// (`--texture`, the name the model gives, a search folder, a search of the model's folder,
/// the only image beside a model that names none).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextureSource {
    /// Given by the user, for this material or every material (`--texture`).
    Override,
    /// The file the model names, at the path it gives (relative to the model's folder, or
    /// inside a `--texture-root`).
    Named,
    /// The name the model gives, found in one of the loader's extra search folders (the
    /// texture folders a format's own script names, such as a QC's `$cdtexture`).
    SearchFolder,
    /// Found by searching the model's folder for the name the model gives: in another case,
    /// with another image extension, its file name alone, or in a direct subfolder; for a
    /// model that names no skin, the model's own stem (`sydney.md2` → `sydney.bmp`).
    ModelFolder,
    /// The model names no texture and its folder holds exactly one image: that image (the
    /// loader warns, naming it).
    OnlyImage,
}

impl TextureSource {
    /// How `info` says where the texture came from.
    pub fn describe(self) -> &'static str {
        match self {
            TextureSource::Override => "--texture",
            TextureSource::Named => "named by the model",
            TextureSource::SearchFolder => "found in a texture search folder",
            TextureSource::ModelFolder => "found in the model folder",
            TextureSource::OnlyImage => "the only image in the model folder",
        }
    }
}

/// A surface description: base colour, optional texture, alpha handling.
#[derive(Debug, Clone, PartialEq)]
pub struct Material {
    /// Name as written in the model.
    pub name: String,
    /// Base colour multiplier, linear RGB + alpha.
    pub base_color: [f32; 4],
    /// Texture file name exactly as the model wrote it (resolved later by the loader).
    pub texture_name: Option<String>,
    /// The decoded texture, shared between materials that name the same file.
    pub texture: Option<Arc<Texture>>,
    /// Where the texture came from, or why it is missing.
    pub texture_status: TextureStatus,
    /// For a texture found as a file ([`TextureStatus::Found`]), which step of the lookup
    /// found it; `None` otherwise.
    pub texture_source: Option<TextureSource>,
    /// Alpha handling.
    pub alpha_mode: AlphaMode,
    /// True when the texture should repeat outside 0..1 (the default), false to clamp.
    pub wrap: bool,
    /// True when the model asks for its texture to be sampled at the nearest texel where it is
    /// magnified, whatever the render's filter (glTF `magFilter: NEAREST`, as pixel-art models
    /// use). The default is false.
    pub nearest: bool,
    /// How the model asks for its texture to be filtered where it is minified (glTF
    /// `minFilter`); `None`, the default, leaves it to the render's filter.
    pub minify: Option<MinFilter>,
    /// A GoldSrc masked texture (`$texrendermode TEXTURE masked`, or a texture named `{...`):
    /// the texels of its palette's last colour ([`Texture::mask_colour`]) are transparent, and
    /// the material is alpha-tested. The default is false.
    pub palette_mask: bool,
    /// An image that cuts the texture out (OBJ `map_d` naming another image than `map_Kd`),
    /// as the model wrote it: its alpha, or its luminance, multiplies the texture's.
    pub alpha_texture_name: Option<String>,
    /// A GoldSrc chrome texture (`STUDIO_NF_CHROME`): an environment map whose texture
    /// coordinates follow the view, not the mesh's stored ones (see `bake::chrome`). The
    /// default is false.
    pub chrome: bool,
    /// Both sides are drawn, whatever the render's back-face culling (Quake 3's `cull
    /// disable`: leaves, flags, grates). The default is false.
    pub two_sided: bool,
    /// Drawn in its own colour whatever the light (glTF's `KHR_materials_unlit`: flat-shaded
    /// and baked-lighting models). The default is false.
    pub unlit: bool,
    /// The texture's alpha counts the other way: it is turned over (255 − alpha) once the
    /// texture is loaded, so a mask keeps the texels whose alpha is low (Quake 3's `alphaFunc
    /// LT128`). The default is false.
    pub inverted_alpha: bool,
}

/// A texture's filter where it is minified, as a model file asks for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MinFilter {
    /// The nearest texel of the full-size image.
    Nearest,
    /// Bilinear on the full-size image.
    Linear,
    /// Filtered from mip levels (any of glTF's `*_MIPMAP_*` filters).
    Mipmapped,
}

impl Default for Material {
    fn default() -> Self {
        Material {
            name: String::new(),
            base_color: [1.0; 4],
            texture_name: None,
            texture: None,
            texture_status: TextureStatus::None,
            texture_source: None,
            alpha_mode: AlphaMode::Opaque,
            wrap: true,
            nearest: false,
            minify: None,
            palette_mask: false,
            alpha_texture_name: None,
            chrome: false,
            two_sided: false,
            unlit: false,
            inverted_alpha: false,
        }
    }
}

impl Material {
    /// A plain material with a name and white base colour.
    pub fn named(name: impl Into<String>) -> Material {
        Material { name: name.into(), ..Material::default() }
    }
}
