//! Values with a text form, one type each, so the command line (clap parses them with
//! [`FromStr`]) and manifests and project files (serde reads the same text, or the TOML number
//! or array that says the same) accept exactly the same things: sizes (`256x128` or `96`, for
//! images and for sheet pages),
//! colours (`#rrggbb[aa]`), light directions (`x,y,z`), axes (`+x`), texture overrides
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

/// Reads a size from a number (a square) or its text, through its `FromStr`.
struct SizeVisitor<T>(std::marker::PhantomData<T>);

impl<T: FromStr<Err = String>> Visitor<'_> for SizeVisitor<T> {
    type Value = T;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a size: a number of pixels for a square, or \"WxH\"")
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<T, E> {
        v.to_string().parse().map_err(E::custom)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<T, E> {
        v.to_string().parse().map_err(E::custom)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
        v.parse().map_err(E::custom)
    }
}

impl<'de> Deserialize<'de> for Size {
    /// `size = 96` or `size = "96x64"`.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Size, D::Error> {
        d.deserialize_any(SizeVisitor(std::marker::PhantomData))
    }
}

impl Serialize for Size {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
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
        d.deserialize_any(SizeVisitor(std::marker::PhantomData))
    }
}

impl Serialize for PageSize {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// A colour `#rrggbb` or `#rrggbbaa` (the `#` is optional): straight-alpha sRGB.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Color(pub [u8; 4]);

impl FromStr for Color {
    type Err = String;

    fn from_str(s: &str) -> Result<Color, String> {
        let hex = s.strip_prefix('#').unwrap_or(s);
        let bad = || format!("bad colour '{s}' (expected #rrggbb or #rrggbbaa)");
        let byte = |i: usize| hex.get(i..i + 2).and_then(|h| u8::from_str_radix(h, 16).ok()).ok_or_else(bad);
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
    }
}
