//! How the images are written: sheet pages and the engine data beside them ([`LayoutSpec`]),
//! and animated GIFs ([`GifSpec`]).
use serde::{Deserialize, Serialize};

#[cfg(feature = "cli")]
use crate::bounds;
use crate::spec::{DirectionRef, PageSize, Size};
use crate::sprite::JsonFormat;

#[cfg(feature = "cli")]
use clap::Args;

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
    /// Phaser's multi-atlas JSON for the whole sheet, every page in it (load.multiatlas), plus
    /// Phaser's animation JSON under its one texture key: NAME.json and NAME.anims.json.
    PhaserMultiatlas,
    /// A Godot 4 SpriteFrames resource: NAME.tres.
    Godot,
    /// A Godot 3 SpriteFrames resource: NAME.tres.
    Godot3,
    /// libGDX's texture atlas, which Spine's runtimes read too: NAME.atlas.
    Libgdx,
    /// Unity's sprite import settings and animation clips: NAME.png.meta (every frame a
    /// sprite) and NAME_TAG.anim per animation, plus NAME.points.json with --points.
    Unity,
    /// GameMaker: a strip per animation, spr_NAME_TAG_stripN.png (the IDE imports it as a
    /// sprite of N frames), and NAME.gml setting their origins and speeds.
    Gamemaker,
}

impl From<JsonFormatName> for JsonFormat {
    fn from(name: JsonFormatName) -> JsonFormat {
        match name {
            JsonFormatName::Texturepacker => JsonFormat::TexturePacker,
            JsonFormatName::Aseprite => JsonFormat::Aseprite,
            JsonFormatName::Phaser => JsonFormat::Phaser,
            JsonFormatName::PhaserMultiatlas => JsonFormat::PhaserMultiatlas,
            JsonFormatName::Godot => JsonFormat::Godot,
            JsonFormatName::Godot3 => JsonFormat::Godot3,
            JsonFormatName::Libgdx => JsonFormat::Libgdx,
            JsonFormatName::Unity => JsonFormat::Unity,
            JsonFormatName::Gamemaker => JsonFormat::GameMaker,
        }
    }
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
    /// name (`SW`, one of --direction-names, or an angle such as `120` of 6 directions: a
    /// number past the last index is taken as a name).
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
