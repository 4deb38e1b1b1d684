//! Values with a text form, one type each, so the command line (clap parses them with
//! [`FromStr`]) and manifests and project files (serde reads the same text, or the TOML number
//! or array that says the same) accept exactly the same things: sizes (`256x128`, `96`,
//! `auto:128`; sheet pages `4096x2048`), sprite directions (`3` or `NE`), colours
//! (`#rrggbb[aa]`), light directions (`x,y,z`), axes (`+x`), texture overrides
//! (`[MATERIAL=]PATH`) and body choices (`GROUP=NAME`).

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use glam::Vec3;
use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

use crate::bounds;
use crate::model::Axis;

/// Implements `Deserialize` for types whose text form is their `FromStr`, and `Serialize` as
/// their `Display`, so a spec written back out (the `bake` state file) reads in the same.
macro_rules! text_serde {
    ($($t:ty),* $(,)?) => {$(
        impl<'de> ::serde::Deserialize<'de> for $t {
            fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let text = <String as ::serde::Deserialize>::deserialize(d)?;
                text.parse().map_err(<D::Error as ::serde::de::Error>::custom)
            }
        }
        impl ::serde::Serialize for $t {
            fn serialize<S: ::serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }
    )*};
}
pub(crate) use text_serde;

/// An image size: `WxH`, or a single number for a square; each side within [`bounds::SIDE`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Size {
    /// Pixels across.
    pub width: u32,
    /// Pixels down.
    pub height: u32,
}

impl Size {
    /// A square.
    pub const fn square(side: u32) -> Size {
        Size { width: side, height: side }
    }
}

impl FromStr for Size {
    type Err = String;

    fn from_str(s: &str) -> Result<Size, String> {
        parse_size(s, bounds::SIDE)
    }
}

/// `WxH` or one number for a square, each side within `bound`.
fn parse_size(s: &str, bound: bounds::Bound<u32>) -> Result<Size, String> {
    let (w, h) = s.split_once(['x', 'X']).unwrap_or((s, s));
    let bad = || format!("bad size '{s}' (expected WxH or one number for a square, e.g. 256x128 or 96)");
    let (w, h): (u32, u32) = (w.trim().parse().map_err(|_| bad())?, h.trim().parse().map_err(|_| bad())?);
    let side = |v: u32| bound.check(v).map_err(|e| format!("size '{s}': each side {e}"));
    Ok(Size { width: side(w)?, height: side(h)? })
}

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}", self.width, self.height)
    }
}

/// Deserializes a type with a text form that manifests may also write as a bare number
/// (`size = 96`, `direction = 3`): the number's text is parsed like any other.
fn number_or_text<'de, D: Deserializer<'de>, T: FromStr<Err = String>>(
    d: D,
    expecting: &'static str,
) -> Result<T, D::Error> {
    struct NumberOrText<T>(&'static str, std::marker::PhantomData<T>);
    impl<T: FromStr<Err = String>> Visitor<'_> for NumberOrText<T> {
        type Value = T;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str(self.0)
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<T, E> {
            v.to_string().parse().map_err(E::custom)
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<T, E> {
            v.to_string().parse().map_err(E::custom)
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<T, E> {
            v.to_string().parse().map_err(E::custom)
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
            v.parse().map_err(E::custom)
        }
    }
    d.deserialize_any(NumberOrText(expecting, std::marker::PhantomData))
}

impl<'de> Deserialize<'de> for Size {
    /// `size = 96` or `size = "96x64"`.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Size, D::Error> {
        number_or_text(d, "a size: a number of pixels for a square, or \"WxH\"")
    }
}

impl Serialize for Size {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// The size of an image or sprite cell: a [`Size`], or `auto` — sized to the content of the
/// whole job, at most `auto:MAX` (a size; `auto` alone is `auto:256`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SizeSpec {
    /// Exactly this size.
    Fixed(Size),
    /// As small as the content (with its margin) allows, at most this size.
    Auto(Size),
}

impl SizeSpec {
    /// The largest cell `auto` alone gives: the default size.
    pub const AUTO_MAX: Size = Size::square(256);

    /// The size, or the largest an auto size may give (what the memory budget is charged for).
    pub fn largest(self) -> Size {
        match self {
            SizeSpec::Fixed(s) | SizeSpec::Auto(s) => s,
        }
    }

    /// Whether the size follows the content.
    pub fn is_auto(self) -> bool {
        matches!(self, SizeSpec::Auto(_))
    }
}

impl From<Size> for SizeSpec {
    fn from(size: Size) -> SizeSpec {
        SizeSpec::Fixed(size)
    }
}

impl FromStr for SizeSpec {
    type Err = String;

    fn from_str(s: &str) -> Result<SizeSpec, String> {
        let lower = s.trim().to_ascii_lowercase();
        match lower.strip_prefix("auto") {
            Some("") => Ok(SizeSpec::Auto(SizeSpec::AUTO_MAX)),
            Some(rest) => match rest.strip_prefix(':') {
                Some(max) => max.parse().map(SizeSpec::Auto).map_err(|e| format!("auto size '{s}': {e}")),
                None => Err(format!("bad size '{s}' (expected WxH, one number, auto or auto:MAX)")),
            },
            None => s.parse().map(SizeSpec::Fixed),
        }
    }
}

impl fmt::Display for SizeSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SizeSpec::Fixed(size) => write!(f, "{size}"),
            SizeSpec::Auto(max) => write!(f, "auto:{max}"),
        }
    }
}

impl<'de> Deserialize<'de> for SizeSpec {
    /// `size = 96`, `size = "96x64"`, `size = "auto"` or `size = "auto:128"`.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<SizeSpec, D::Error> {
        number_or_text(d, "a size: a number of pixels for a square, \"WxH\", \"auto\" or \"auto:MAX\"")
    }
}

/// The height a sprite job stands on (`--ground`): where the pivot is, the ground line every
/// frame of every clip is placed against.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Ground {
    /// The lowest point of the model's reference pose — its rest pose, or the first frame of
    /// its first clip for a model animated by its vertices (MD2, MDL, MD3): the same ground
    /// whichever clips share the job, so a death clip that sinks below it does not lift the
    /// others (the default).
    #[default]
    Auto,
    /// The model's origin: height 0, where a game places it.
    Origin,
    /// The lowest point of every frame of the job: a clip that dips below the floor lowers
    /// the ground of every other clip.
    Lowest,
    /// This height, in model units, world up.
    Height(f32),
}

impl FromStr for Ground {
    type Err = String;

    fn from_str(s: &str) -> Result<Ground, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(Ground::Auto),
            "origin" => Ok(Ground::Origin),
            "lowest" => Ok(Ground::Lowest),
            text => match text.parse::<f32>() {
                Ok(y) if y.is_finite() && y.abs() <= bounds::GROUND_HEIGHT => Ok(Ground::Height(y)),
                _ => Err(format!(
                    "bad ground '{s}' (expected auto, origin, lowest or a height from -{0} to {0})",
                    bounds::GROUND_HEIGHT
                )),
            },
        }
    }
}

impl fmt::Display for Ground {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ground::Auto => f.write_str("auto"),
            Ground::Origin => f.write_str("origin"),
            Ground::Lowest => f.write_str("lowest"),
            Ground::Height(y) => write!(f, "{y}"),
        }
    }
}

impl<'de> Deserialize<'de> for Ground {
    /// `ground = "auto"`, `"origin"`, `"lowest"` or a height (`ground = -0.5`).
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Ground, D::Error> {
        number_or_text(d, "a ground: \"auto\", \"origin\", \"lowest\" or a height")
    }
}

impl Serialize for Ground {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// A direction of a sprite job, by index (`3`) or by name (`NE`, `--direction-names`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DirectionRef {
    /// Its index, from 0.
    Index(u32),
    /// Its name.
    Name(String),
}

impl FromStr for DirectionRef {
    type Err = String;

    fn from_str(s: &str) -> Result<DirectionRef, String> {
        let s = s.trim();
        match s.parse::<u32>() {
            Ok(i) => Ok(DirectionRef::Index(i)),
            Err(_) if s.is_empty() => Err("bad direction '' (expected an index or a direction name)".into()),
            Err(_) => Ok(DirectionRef::Name(s.to_string())),
        }
    }
}

impl fmt::Display for DirectionRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DirectionRef::Index(i) => write!(f, "{i}"),
            DirectionRef::Name(n) => f.write_str(n),
        }
    }
}

impl<'de> Deserialize<'de> for DirectionRef {
    /// `direction = 3` or `direction = "NE"`.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<DirectionRef, D::Error> {
        number_or_text(d, "a direction: its index or its name")
    }
}

/// The largest sheet page: `WxH` or one number for a square, each side within
/// [`bounds::PAGE_SIDE`] (pages may be larger than one image: up to 16384).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageSize(pub Size);

impl FromStr for PageSize {
    type Err = String;

    fn from_str(s: &str) -> Result<PageSize, String> {
        parse_size(s, bounds::PAGE_SIDE).map(PageSize)
    }
}

impl fmt::Display for PageSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl<'de> Deserialize<'de> for PageSize {
    /// `max_size = 4096` or `max_size = "4096x2048"`.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<PageSize, D::Error> {
        number_or_text(d, "a page size: a number of pixels for a square, or \"WxH\"")
    }
}

impl Serialize for PageSize {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// The byte written as two hex digits at `hex[i..i + 2]`. Only digits: `u8::from_str_radix`
/// alone takes `+1` as 1, so `+1+2+3` read as a colour.
pub(crate) fn hex_byte(hex: &str, i: usize) -> Option<u8> {
    let pair = hex.get(i..i + 2).filter(|p| p.bytes().all(|b| b.is_ascii_hexdigit()))?;
    u8::from_str_radix(pair, 16).ok()
}

/// A colour `#rrggbb` or `#rrggbbaa` (the `#` is optional): straight-alpha sRGB.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Color(pub [u8; 4]);

impl FromStr for Color {
    type Err = String;

    fn from_str(s: &str) -> Result<Color, String> {
        let hex = s.strip_prefix('#').unwrap_or(s);
        let bad = || format!("bad colour '{s}' (expected #rrggbb or #rrggbbaa)");
        let byte = |i: usize| hex_byte(hex, i).ok_or_else(bad);
        match hex.len() {
            6 => Ok(Color([byte(0)?, byte(2)?, byte(4)?, 255])),
            8 => Ok(Color([byte(0)?, byte(2)?, byte(4)?, byte(6)?])),
            _ => Err(bad()),
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [r, g, b, a] = self.0;
        write!(f, "#{r:02x}{g:02x}{b:02x}")?;
        if a != 255 {
            write!(f, "{a:02x}")?;
        }
        Ok(())
    }
}

/// A light direction `x,y,z` in view space (x right, y up, z towards the viewer); three finite
/// numbers, not all zero. Manifests may also write it as an array `[x, y, z]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LightDirection(pub Vec3);

impl FromStr for LightDirection {
    type Err = String;

    fn from_str(s: &str) -> Result<LightDirection, String> {
        let parts: Result<Vec<f32>, _> = s.split(',').map(|p| p.trim().parse::<f32>()).collect();
        match parts.as_deref() {
            Ok(&[x, y, z]) if [x, y, z].iter().all(|v| v.is_finite()) && [x, y, z] != [0.0; 3] => {
                Ok(LightDirection(Vec3::new(x, y, z)))
            }
            _ => Err(format!("bad light direction '{s}' (expected three finite numbers x,y,z, not all 0)")),
        }
    }
}

impl fmt::Display for LightDirection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{},{},{}", self.0.x, self.0.y, self.0.z)
    }
}

impl<'de> Deserialize<'de> for LightDirection {
    /// `light = ["0,1,1"]` or `light = [[0, 1, 1]]`.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<LightDirection, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Form {
            Text(String),
            Numbers([f32; 3]),
        }
        let text = match Form::deserialize(d)? {
            Form::Text(t) => t,
            Form::Numbers([x, y, z]) => format!("{x},{y},{z}"),
        };
        text.parse().map_err(de::Error::custom)
    }
}

impl FromStr for Axis {
    type Err = String;

    fn from_str(s: &str) -> Result<Axis, String> {
        Axis::parse(s).ok_or_else(|| format!("bad axis '{s}' (expected +x, -x, +y, -y, +z or -z)"))
    }
}

impl fmt::Display for Axis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Axis::PosX => "+x",
            Axis::NegX => "-x",
            Axis::PosY => "+y",
            Axis::NegY => "-y",
            Axis::PosZ => "+z",
            Axis::NegZ => "-z",
        })
    }
}

/// A texture for every material (`PATH`) or for one (`MATERIAL=PATH`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextureSpec {
    /// The material it replaces the texture of; `None` for every material.
    pub material: Option<String>,
    /// The image file.
    pub path: PathBuf,
}

impl FromStr for TextureSpec {
    type Err = String;

    fn from_str(s: &str) -> Result<TextureSpec, String> {
        let (material, path) = match s.split_once('=') {
            Some((m, p)) if !m.is_empty() => (Some(m.to_string()), p),
            _ => (None, s),
        };
        if path.trim().is_empty() {
            return Err(format!("bad texture '{s}' (expected PATH or MATERIAL=PATH)"));
        }
        Ok(TextureSpec { material, path: PathBuf::from(path) })
    }
}

impl fmt::Display for TextureSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.material {
            Some(m) => write!(f, "{m}={}", self.path.display()),
            None => write!(f, "{}", self.path.display()),
        }
    }
}

/// A `.qc` body choice: `GROUP=NAME`, NAME a studio file of the `$bodygroup` GROUP (without
/// folders and `.smd`) or `blank`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BodySpec {
    /// The group.
    pub group: String,
    /// The entry.
    pub choice: String,
}

impl FromStr for BodySpec {
    type Err = String;

    fn from_str(s: &str) -> Result<BodySpec, String> {
        match s.split_once('=') {
            Some((group, choice)) if !group.trim().is_empty() && !choice.trim().is_empty() => {
                Ok(BodySpec { group: group.trim().to_string(), choice: choice.trim().to_string() })
            }
            _ => Err(format!("bad body '{s}' (expected GROUP=NAME, NAME a studio file of the group or `blank`)")),
        }
    }
}

impl fmt::Display for BodySpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}={}", self.group, self.choice)
    }
}

text_serde!(Color, Axis, TextureSpec, BodySpec);

impl Serialize for SizeSpec {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl Serialize for DirectionRef {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            DirectionRef::Index(i) => s.serialize_u32(*i),
            DirectionRef::Name(n) => s.serialize_str(n),
        }
    }
}

impl Serialize for LightDirection {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_sizes_colours_directions_and_textures() {
        assert_eq!("320x200".parse::<Size>().unwrap(), Size { width: 320, height: 200 });
        assert_eq!("64".parse::<Size>().unwrap(), Size::square(64));
        assert_eq!("0x5".parse::<Size>(), Err("size '0x5': each side must be from 1 to 8192".into()));
        assert!("8192x8193".parse::<Size>().is_err() && "8192".parse::<Size>().is_ok());
        assert_eq!("16384x2048".parse::<PageSize>().unwrap().0, Size { width: 16384, height: 2048 });
        assert_eq!("16385".parse::<PageSize>(), Err("size '16385': each side must be from 1 to 16384".into()));
        assert_eq!("#ff8000".parse::<Color>().unwrap(), Color([255, 128, 0, 255]));
        assert_eq!("10203040".parse::<Color>().unwrap(), Color([16, 32, 48, 64]));
        assert_eq!(Color([16, 32, 48, 64]).to_string(), "#10203040");
        assert!("#fff".parse::<Color>().is_err() && "#ffé000".parse::<Color>().is_err());
        assert!("+1+2+3".parse::<Color>().is_err() && "#-1-2-3".parse::<Color>().is_err());
        assert_eq!("1,-2,3.5".parse::<LightDirection>().unwrap().0, Vec3::new(1.0, -2.0, 3.5));
        assert!("1,2".parse::<LightDirection>().is_err() && "0,0,0".parse::<LightDirection>().is_err());
        let t: TextureSpec = "skin=a/b.png".parse().unwrap();
        assert_eq!((t.material.as_deref(), t.path), (Some("skin"), PathBuf::from("a/b.png")));
        assert_eq!("b.png".parse::<TextureSpec>().unwrap().material, None);
        assert_eq!("-y".parse::<Axis>().unwrap().to_string(), "-y");
        let b: BodySpec = "heads = head2".parse().unwrap();
        assert_eq!((b.group.as_str(), b.choice.as_str(), b.to_string()), ("heads", "head2", "heads=head2".into()));
        assert!("head2".parse::<BodySpec>().is_err() && "=x".parse::<BodySpec>().is_err());
    }

    #[test]
    fn manifests_write_the_same_values_as_numbers_arrays_or_text() {
        #[derive(Debug, Deserialize)]
        struct T {
            size: Size,
            light: Vec<LightDirection>,
        }
        let t: T = toml::from_str("size = 96\nlight = [[0, 1, 1], \"1,0,0\"]").unwrap();
        assert_eq!(t.size, Size::square(96));
        assert_eq!(t.light, vec![LightDirection(Vec3::new(0.0, 1.0, 1.0)), LightDirection(Vec3::X)]);
        let t: Result<T, _> = toml::from_str("size = \"96x9000\"\nlight = []");
        assert!(t.unwrap_err().to_string().contains("each side must be from 1 to 8192"));
        let page: PageSize = toml::from_str::<toml::Value>("p = 512").unwrap()["p"].clone().try_into().unwrap();
        assert_eq!(page, PageSize(Size::square(512)));
        #[derive(Debug, Deserialize)]
        struct U {
            size: SizeSpec,
            direction: DirectionRef,
        }
        let u: U = toml::from_str("size = 96\ndirection = 3").unwrap();
        assert_eq!((u.size, u.direction), (SizeSpec::Fixed(Size::square(96)), DirectionRef::Index(3)));
        let u: U = toml::from_str("size = \"auto\"\ndirection = \"NE\"").unwrap();
        assert_eq!((u.size, u.direction), (SizeSpec::Auto(SizeSpec::AUTO_MAX), DirectionRef::Name("NE".into())));
    }

    #[test]
    fn auto_sizes_have_a_bounded_maximum() {
        assert_eq!("auto:128x64".parse::<SizeSpec>(), Ok(SizeSpec::Auto(Size { width: 128, height: 64 })));
        assert_eq!("AUTO".parse::<SizeSpec>().unwrap().to_string(), "auto:256x256");
        assert_eq!(
            "auto:9000".parse::<SizeSpec>(),
            Err("auto size 'auto:9000': size '9000': each side must be from 1 to 8192".into())
        );
        assert!("autox".parse::<SizeSpec>().unwrap_err().contains("auto or auto:MAX"));
        assert_eq!("auto:96".parse::<SizeSpec>().unwrap().largest(), Size::square(96));
    }
}
