//! Text forms of options, shared by the command line and `check` manifests: sizes (`256x128`),
//! colours (`#rrggbb[aa]`), vectors (`x,y,z`), axes (`+x`), filters and shading names.

use glam::Vec3;

use crate::bounds;
use crate::model::Axis;
use crate::raster::{Filter, Shading, ShadingRate};

/// `WxH`, or a single number for a square; each side within [`bounds::SIDE`].
///
/// # Errors
/// A message saying what was expected.
pub fn size(s: &str) -> Result<(u32, u32), String> {
    let (w, h) = s.split_once(['x', 'X']).unwrap_or((s, s));
    let bad = || format!("bad size '{s}' (expected WxH, e.g. 256x256)");
    let (w, h): (u32, u32) = (w.trim().parse().map_err(|_| bad())?, h.trim().parse().map_err(|_| bad())?);
    let side = |v: u32| bounds::SIDE.check(v).map_err(|e| format!("size '{s}': each side {e}"));
    Ok((side(w)?, side(h)?))
}

/// Three finite numbers `x,y,z`.
///
/// # Errors
/// A message saying what was expected.
pub fn vec3(s: &str) -> Result<Vec3, String> {
    let parts: Result<Vec<f32>, _> = s.split(',').map(|p| p.trim().parse::<f32>()).collect();
    match parts.as_deref() {
        Ok(&[x, y, z]) if x.is_finite() && y.is_finite() && z.is_finite() => Ok(Vec3::new(x, y, z)),
        _ => Err(format!("bad vector '{s}' (expected three finite numbers x,y,z)")),
    }
}

/// `#rrggbb` or `#rrggbbaa` (the `#` is optional).
///
/// # Errors
/// A message saying what was expected.
pub fn color(s: &str) -> Result<[u8; 4], String> {
    let hex = s.strip_prefix('#').unwrap_or(s);
    let bad = || format!("bad colour '{s}' (expected #rrggbb or #rrggbbaa)");
    let byte = |i: usize| hex.get(i..i + 2).and_then(|h| u8::from_str_radix(h, 16).ok()).ok_or_else(bad);
    match hex.len() {
        6 => Ok([byte(0)?, byte(2)?, byte(4)?, 255]),
        8 => Ok([byte(0)?, byte(2)?, byte(4)?, byte(6)?]),
        _ => Err(bad()),
    }
}

/// `+x`, `-y`, `z` ...
///
/// # Errors
/// A message saying what was expected.
pub fn axis(s: &str) -> Result<Axis, String> {
    Axis::parse(s).ok_or_else(|| format!("bad axis '{s}' (expected +x, -x, +y, -y, +z or -z)"))
}

/// `nearest`, `bilinear` or `trilinear`.
///
/// # Errors
/// A message saying what was expected.
pub fn filter(s: &str) -> Result<Filter, String> {
    match s {
        "nearest" => Ok(Filter::Nearest),
        "bilinear" => Ok(Filter::Bilinear),
        "trilinear" => Ok(Filter::Trilinear),
        _ => Err(format!("bad filter '{s}' (expected nearest, bilinear or trilinear)")),
    }
}

/// `pixel` or `sample`: how often supersampled renders shade.
///
/// # Errors
/// A message saying what was expected.
pub fn shading_rate(s: &str) -> Result<ShadingRate, String> {
    match s {
        "pixel" => Ok(ShadingRate::Pixel),
        "sample" => Ok(ShadingRate::Sample),
        _ => Err(format!("bad shading rate '{s}' (expected pixel or sample)")),
    }
}

/// `unlit`, `lambert` or `toon` (with `bands` brightness bands).
///
/// # Errors
/// A message saying what was expected.
pub fn shading(s: &str, bands: u32) -> Result<Shading, String> {
    match s {
        "unlit" => Ok(Shading::Unlit),
        "lambert" => Ok(Shading::Lambert),
        "toon" => Ok(Shading::Toon { bands: bands.max(2) }),
        _ => Err(format!("bad shading '{s}' (expected unlit, lambert or toon)")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_sizes_colours_and_vectors() {
        assert_eq!(size("320x200").unwrap(), (320, 200));
        assert_eq!(size("64").unwrap(), (64, 64));
        assert_eq!(size("0x5"), Err("size '0x5': each side must be from 1 to 8192".into()));
        assert!(size("8192x8193").is_err() && size("8192").is_ok());
        assert_eq!(color("#ff8000").unwrap(), [255, 128, 0, 255]);
        assert_eq!(color("10203040").unwrap(), [16, 32, 48, 64]);
        assert!(color("#fff").is_err());
        assert!(color("#ffé000").is_err());
        assert_eq!(vec3("1,-2,3.5").unwrap(), Vec3::new(1.0, -2.0, 3.5));
        assert!(vec3("1,2").is_err());
        assert!(shading("toon", 4).is_ok() && filter("cubic").is_err());
    }
}
