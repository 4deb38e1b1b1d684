//! The option groups of a [`BakeSpec`](super::BakeSpec): model, animation, moment, view, sprite,
//! render, look, layout, GIF and limits, each with its defaults, its TOML keys and (with the
//! `cli` feature) its flags.

mod input;
mod output;
mod rendering;

pub use input::{AnimSpec, LimitOverrides, LimitsSpec, ModelSpec, MomentSpec};
pub use output::{GifPaletteName, GifSpec, JsonFormatName, LayoutSpec, PackName};
pub use rendering::{
    AlphaName, FilterName, Fit, LookSpec, MapKind, NormalY, PixelArtFilter, RenderSpec, ShadingName, ShadingRateName,
    SpriteSpec, ViewPreset, ViewSpec,
};
