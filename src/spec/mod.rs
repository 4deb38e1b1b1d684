//! [`BakeSpec`]: one typed description of a bake — model, animation, view, render, look,
//! layout — that the command line, `check` manifests and `bake` project files all fill.
//!
//! Each group of options is one struct that derives both `serde::Deserialize` (manifests and
//! project files, keys in snake_case) and, with the `cli` feature, `clap::Args` (flags: the same
//! names in kebab-case, `--pixel-art` ↔ `pixel_art`). The defaults are each group's `Default`,
//! which clap shows and uses too, so there is one set of defaults and one spelling of every
//! option. [`BakeSpec::resolve`] validates everything (ranges, options that need each other,
//! paths) and returns the typed settings the library runs on ([`Resolved`]).
//!
//! A TOML table becomes a spec with [`BakeSpec::from_table`]: its keys are split among the
//! groups by name and each group reads its own, so an unknown key is an error naming the
//! closest known key, and a bad value an error naming its key.

mod bake_spec;
pub(crate) mod controls;
pub(crate) mod file;
mod groups;
pub(crate) mod paths;
mod playing;
mod profile;
pub(crate) mod resolved;
mod values;

pub use bake_spec::BakeSpec;
pub(crate) use bake_spec::show;
pub use controls::{AttachSpec, BlendSpec, BoneSpec, Controls, Offset, TransitionSpec};
pub use groups::{
    AlphaName, AnimSpec, FilterName, Fit, GifPaletteName, GifSpec, JsonFormatName, LayoutSpec, LimitOverrides,
    LimitsSpec, LookSpec, MapKind, ModelSpec, MomentSpec, NormalY, PackName, PixelArtFilter, RenderSpec, ShadingName,
    ShadingRateName, SpriteSpec, ViewPreset, ViewSpec,
};
pub use profile::Profile;
pub(crate) use resolved::Look;
pub use resolved::Resolved;
pub(crate) use resolved::{map_name, shown_maps};
pub(crate) use values::hex_byte;
pub use values::{BodySpec, Color, DirectionRef, Ground, LightDirection, PageSize, Size, SizeSpec, TextureSpec};
