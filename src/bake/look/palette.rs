//! Pixel-art palettes: one palette for a whole output (every cell of a sprite job, every moment
//! of a render), so a colour never maps to different palette entries in different cells.
//!
//! * **Built** (`palette = N`): every opaque pixel of every (already pixelated) cell feeds one
//!   quantizer run — `quantette`'s Wu initialisation refined by k-means in Oklab, single-threaded
//!   and seeded, so the palette is the same for any thread count. When the cells have at most N
//!   colours, the palette is exactly those colours.
//! * **Read** (`palette_file`): GIMP `.gpl`, Lospec `.hex` (one `rrggbb` a line) or JASC `.pal`;
//!   every opaque pixel becomes exactly one of the file's colours.
//!
//! Mapping is a nearest-colour lookup in Oklab (ties to the lowest index), so the same colour
//! gives the same entry everywhere. With `palette_dither`, a 4×4 Bayer threshold is added to
//! each pixel (by its position in its cell) before the lookup. Alpha stays binary: pixels with
//! alpha ≥ 128 become opaque palette colours, the rest transparent black.

use std::collections::BTreeMap;
use std::path::Path;

use quantette::deps::palette::Srgb;
use quantette::{Pipeline, QuantizeMethod};

use crate::error::{Error, Result};
use crate::raster::Image;
use crate::spec::Look;

/// Largest palette file read (a 256-colour GIMP palette with names is a few kilobytes).
pub const MAX_PALETTE_FILE_BYTES: u64 = 256 * 1024;

/// Most colours a palette file may have.
pub const MAX_PALETTE_COLOURS: usize = 256;

/// The 4×4 Bayer matrix (thresholds 0..16).
const BAYER: [[u8; 4]; 4] = [[0, 8, 2, 10], [12, 4, 14, 6], [3, 11, 1, 9], [15, 7, 13, 5]];

/// A palette: sRGB colours and their Oklab coordinates for nearest-colour lookups.
#[derive(Debug, Clone, PartialEq)]
pub struct Palette {
    colours: Vec<[u8; 3]>,
    lab: Vec<[f32; 3]>,
}

impl Palette {
    /// A palette of `colours` (duplicates kept: the first one wins lookups).
    pub fn new(colours: Vec<[u8; 3]>) -> Palette {
        let lab = colours.iter().map(|&c| oklab(c)).collect();
        Palette { colours, lab }
    }

    /// The colours, in order.
    pub fn colours(&self) -> &[[u8; 3]] {
        &self.colours
    }

    /// The index of the entry nearest `colour` in Oklab; ties go to the lowest index.
    pub fn nearest(&self, colour: [u8; 3]) -> usize {
        let p = oklab(colour);
        let mut best = (0, f32::INFINITY);
        for (i, q) in self.lab.iter().enumerate() {
            let d = (p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2) + (p[2] - q[2]).powi(2);
            if d < best.1 {
                best = (i, d);
            }
        }
        best.0
    }
}

/// sRGB (8-bit) to Oklab, computed in f32 the same way on every platform and thread.
pub fn oklab(c: [u8; 3]) -> [f32; 3] {
    let lin = |v: u8| {
        let v = f32::from(v) / 255.0;
        if v <= 0.04045 { v / 12.92 } else { ((v + 0.055) / 1.055).powf(2.4) }
    };
    let (r, g, b) = (lin(c[0]), lin(c[1]), lin(c[2]));
    let l = (0.412_221_46 * r + 0.536_332_55 * g + 0.051_445_995 * b).cbrt();
    let m = (0.211_903_5 * r + 0.680_699_5 * g + 0.107_396_96 * b).cbrt();
    let s = (0.088_302_46 * r + 0.281_718_85 * g + 0.629_978_7 * b).cbrt();
    [
        0.210_454_26 * l + 0.793_617_8 * m - 0.004_072_047 * s,
        1.977_998_5 * l - 2.428_592_2 * m + 0.450_593_7 * s,
        0.025_904_037 * l + 0.782_771_77 * m - 0.808_675_77 * s,
    ]
}

/// Whether `look` reduces colours to a palette (built or read from a file).
pub fn wanted(look: &Look) -> bool {
    look.pixel_art.is_some() && (look.palette.is_some() || look.palette_file.is_some())
}

/// Reads `look`'s palette file, if it names one (before anything is rendered, so a bad file
/// is refused at once).
///
/// # Errors
/// The file is missing, too large, or not a palette ([`parse`]).
pub fn load(look: &Look) -> Result<Option<Palette>> {
    let Some(path) = look.palette_file.as_deref() else { return Ok(None) };
    let bytes = crate::confine::read_file(path, MAX_PALETTE_FILE_BYTES)?;
    parse(path, &bytes).map(|colours| Some(Palette::new(colours)))
}

/// Parses a palette file by its extension (`.gpl`, `.hex`, `.pal`), or by its first line when
/// the extension is none of those.
///
/// # Errors
/// [`Error::InFile`] naming the file and the line: a malformed colour, a missing header, a
/// JASC count that does not match, no colours, more than [`MAX_PALETTE_COLOURS`].
pub fn parse(path: &Path, bytes: &[u8]) -> Result<Vec<[u8; 3]>> {
    let fail = |line: usize, message: String| Error::at_line(path, line, message);
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let line = bytes[..e.valid_up_to()].iter().filter(|&&b| b == b'\n').count() + 1;
        fail(line, "not text (invalid UTF-8)".into())
    })?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let lines: Vec<(usize, &str)> = text.lines().enumerate().map(|(i, l)| (i + 1, l.trim())).collect();
    let first = lines.first().map_or("", |l| l.1);
    let ext = path.extension().map(|e| e.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
    let kind = match ext.as_str() {
        "gpl" | "hex" | "pal" => ext.clone(),
        _ if first.eq_ignore_ascii_case("GIMP Palette") => "gpl".into(),
        _ if first.eq_ignore_ascii_case("JASC-PAL") => "pal".into(),
        _ => "hex".into(),
    };
    let byte = |line: usize, word: &str| {
        word.parse::<u8>().map_err(|_| fail(line, format!("'{word}' is not a colour channel (0 to 255)")))
    };
    let rgb = |line: usize, words: &[&str]| -> Result<[u8; 3]> {
        match words {
            [r, g, b, ..] => Ok([byte(line, r)?, byte(line, g)?, byte(line, b)?]),
            _ => Err(fail(line, format!("'{}' is not a colour (R G B, each 0 to 255)", words.join(" ")))),
        }
    };
    let mut colours = Vec::new();
    let last_line = lines.len().max(1);
    match kind.as_str() {
        "gpl" => {
            if !first.eq_ignore_ascii_case("GIMP Palette") {
                return Err(fail(1, "a GIMP palette starts with 'GIMP Palette'".into()));
            }
            for &(n, line) in &lines[1..] {
                let is_header = ["Name:", "Columns:"].iter().any(|h| line.starts_with(h));
                if line.is_empty() || line.starts_with('#') || is_header {
                    continue;
                }
                colours.push(rgb(n, &line.split_whitespace().collect::<Vec<_>>())?);
            }
        }
        "pal" => {
            if !first.eq_ignore_ascii_case("JASC-PAL") {
                let why = if bytes.starts_with(b"RIFF") { " (this is a binary RIFF palette)" } else { "" };
                return Err(fail(1, format!("a JASC palette starts with 'JASC-PAL'{why}")));
            }
            let mut body = lines[1..].iter().filter(|l| !l.1.is_empty());
            let Some(&(n, version)) = body.next() else { return Err(fail(last_line, "no version line".into())) };
            if version != "0100" {
                return Err(fail(n, format!("'{version}': the JASC version line is '0100'")));
            }
            let Some(&(n, count)) = body.next() else { return Err(fail(last_line, "no colour count".into())) };
            let count: usize = count
                .parse()
                .ok()
                .filter(|c| (1..=MAX_PALETTE_COLOURS).contains(c))
                .ok_or_else(|| fail(n, format!("'{count}' is not a colour count (1 to {MAX_PALETTE_COLOURS})")))?;
            for &(n, line) in body {
                colours.push(rgb(n, &line.split_whitespace().collect::<Vec<_>>())?);
            }
            if colours.len() != count {
                return Err(fail(last_line, format!("{} colours, the header says {count}", colours.len())));
            }
        }
        _ => {
            for &(n, line) in &lines {
                if line.is_empty() || line.starts_with(';') {
                    continue;
                }
                let hex = line.strip_prefix('#').unwrap_or(line);
                let channel = |i: usize| crate::spec::hex_byte(hex, i);
                match (hex.len(), channel(0), channel(2), channel(4)) {
                    (6, Some(r), Some(g), Some(b)) => colours.push([r, g, b]),
                    _ => return Err(fail(n, format!("'{line}' is not a colour (rrggbb)"))),
                }
            }
        }
    }
    if colours.is_empty() {
        return Err(fail(last_line, "no colours".into()));
    }
    if colours.len() > MAX_PALETTE_COLOURS {
        return Err(fail(last_line, format!("{} colours, at most {MAX_PALETTE_COLOURS}", colours.len())));
    }
    Ok(colours)
}

/// The palette of at most `n` colours for every opaque pixel of `images`: the pixels' own
/// colours when there are at most `n`, else Wu + k-means in Oklab over all of them.
pub fn build<'a>(images: impl IntoIterator<Item = &'a Image>, n: usize) -> Option<Palette> {
    let mut pixels: Vec<Srgb<u8>> = Vec::new();
    let mut unique: BTreeMap<[u8; 3], ()> = BTreeMap::new();
    for image in images {
        for p in image.rgba.chunks_exact(4).filter(|p| p[3] >= 128) {
            pixels.push(Srgb::new(p[0], p[1], p[2]));
            unique.insert([p[0], p[1], p[2]], ());
        }
    }
    if unique.is_empty() {
        return None;
    }
    if unique.len() <= n {
        return Some(Palette::new(unique.into_keys().collect()));
    }
    let size = u16::try_from(n.clamp(1, 256)).ok()?.try_into().ok()?;
    let pipeline = Pipeline::new().palette_size(size).quantize_method(QuantizeMethod::kmeans()).dedup(true);
    let built = pipeline.input_slice(&pixels).ok()?.output_srgb8_palette().into_vec();
    let mut colours: Vec<[u8; 3]> = Vec::with_capacity(built.len());
    for c in built {
        let c = [c.red, c.green, c.blue];
        if !colours.contains(&c) {
            colours.push(c);
        }
    }
    Some(Palette::new(colours))
}

/// Maps every pixel of `image` to `palette` (alpha made binary), dithered with a 4×4 Bayer
/// matrix when `dither` is set.
pub fn map(image: &mut Image, palette: &Palette, dither: bool, cache: &mut BTreeMap<[u8; 3], usize>) {
    // The dither spread: about half the distance between neighbouring palette colours if they
    // were spread evenly over the RGB cube.
    let spread = 0.5 * 255.0 / (palette.colours.len().max(1) as f32).cbrt();
    let width = image.width.max(1) as usize;
    for (i, p) in image.rgba.chunks_exact_mut(4).enumerate() {
        if p[3] < 128 {
            p.copy_from_slice(&[0, 0, 0, 0]);
            continue;
        }
        let mut c = [p[0], p[1], p[2]];
        let index = if dither {
            let (x, y) = (i % width, i / width);
            let t = (f32::from(BAYER[y % 4][x % 4]) + 0.5) / 16.0 - 0.5;
            c = c.map(|v| (f32::from(v) + t * spread).round().clamp(0.0, 255.0) as u8);
            palette.nearest(c)
        } else {
            *cache.entry(c).or_insert_with(|| palette.nearest(c))
        };
        let [r, g, b] = palette.colours[index];
        p.copy_from_slice(&[r, g, b, 255]);
    }
}

/// Applies `look`'s palette to every image of one output together: `fixed` (the palette file,
/// from [`load`]) or one palette built from all of them. Nothing happens unless the look has
/// pixel art and a palette.
pub fn apply(look: &Look, fixed: Option<&Palette>, images: &mut [&mut Image]) {
    if !wanted(look) {
        return;
    }
    let built;
    let palette = match (fixed, look.palette) {
        (Some(p), _) => p,
        (None, Some(n)) => match build(images.iter().map(|i| &**i), n) {
            Some(p) => {
                built = p;
                &built
            }
            None => return,
        },
        (None, None) => return,
    };
    let mut cache = BTreeMap::new();
    for image in images.iter_mut() {
        map(image, palette, look.palette_dither, &mut cache);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_three_formats() {
        let gpl = "GIMP Palette\nName: t\nColumns: 2\n# c\n255   0   0 red\n0 255 0\tgreen\n";
        assert_eq!(parse(Path::new("a.gpl"), gpl.as_bytes()).unwrap(), [[255, 0, 0], [0, 255, 0]]);
        let hex = "ff0000\n#00FF00\n\n";
        assert_eq!(parse(Path::new("a.hex"), hex.as_bytes()).unwrap(), [[255, 0, 0], [0, 255, 0]]);
        let pal = "JASC-PAL\r\n0100\r\n2\r\n255 0 0\r\n0 255 0\r\n";
        assert_eq!(parse(Path::new("a.pal"), pal.as_bytes()).unwrap(), [[255, 0, 0], [0, 255, 0]]);
    }

    #[test]
    fn errors_name_the_file_and_line() {
        let e = parse(Path::new("p.gpl"), b"GIMP Palette\n1 2 3\n1 2 300\n").unwrap_err().to_string();
        assert!(e.starts_with("p.gpl: line 3:"), "{e}");
        let e = parse(Path::new("p.hex"), b"ffffff\nxyz\n").unwrap_err().to_string();
        assert!(e.starts_with("p.hex: line 2:"), "{e}");
        let e = parse(Path::new("p.pal"), b"JASC-PAL\n0100\n3\n1 2 3\n").unwrap_err().to_string();
        assert!(e.contains("p.pal: line 4:") && e.contains("says 3"), "{e}");
    }

    #[test]
    fn nearest_breaks_ties_by_index() {
        let p = Palette::new(vec![[10, 10, 10], [10, 10, 10], [200, 0, 0]]);
        assert_eq!(p.nearest([12, 12, 12]), 0);
        assert_eq!(p.nearest([250, 0, 0]), 2);
    }

    #[test]
    fn a_built_palette_keeps_few_colours_exactly_and_caps_many() {
        let mut img = Image::new(16, 16).unwrap();
        for (i, p) in img.rgba.chunks_exact_mut(4).enumerate() {
            p.copy_from_slice(&[(i * 7) as u8, (i * 13) as u8, (i * 29) as u8, if i % 5 == 0 { 0 } else { 255 }]);
        }
        let few = build([&img], 256).unwrap();
        assert_eq!(few.colours().len(), img.rgba.chunks_exact(4).filter(|p| p[3] == 255).count());
        let many = build([&img], 8).unwrap();
        assert!(many.colours().len() <= 8);
        let mut mapped = img.clone();
        map(&mut mapped, &many, false, &mut BTreeMap::new());
        assert!(mapped.rgba.chunks_exact(4).all(|p| p[3] == 0 || many.colours().contains(&[p[0], p[1], p[2]])));
    }
}
