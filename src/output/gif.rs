//! Animated GIF encoding: timing, transparency, colour quantisation.
//!
//! * **Timing.** GIF delays are whole centiseconds and browsers play 0–1 cs as 10 cs, so each
//!   frame's delay is the difference of its rounded start time and the next one's: the
//!   rounding error is carried and the total is exact (24 fps → 4, 4, 5 cs …). Frames that
//!   would get less than 2 cs are dropped, evenly, and the caller is told how many.
//! * **Transparency.** GIF has 1-bit alpha: pixels under the alpha threshold map to a
//!   reserved transparent index, and frames use disposal "restore to background" so earlier
//!   frames never show through.
//! * **Quantisation.** NeuQuant (`color_quant`, MIT) builds the palette: either one global
//!   palette from all frames (the default: colours stay stable across frames, no flicker, a
//!   smaller file) or one per frame. `tests/integration/sprites.rs` compares both by PSNR and size.
//!   libimagequant/gifski are GPL/AGPL and not used. When the frames (a palette's worth, or
//!   pixel art reduced to one palette) hold at most 255 opaque colours, those colours are the
//!   palette exactly and NeuQuant is not run: a pixel-art palette reaches the GIF unchanged.

use std::borrow::Cow;
use std::collections::BTreeMap;

use color_quant::NeuQuant;

use crate::error::{Error, Result};
use crate::raster::Image;

/// Palette strategy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Palette {
    /// One palette for the whole animation (the default).
    #[default]
    Global,
    /// A palette per frame.
    PerFrame,
}

/// GIF settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GifOptions {
    /// Pixels with alpha below this become transparent (the rest opaque). The default is 128.
    pub alpha_threshold: u8,
    /// Floyd–Steinberg dithering. The default is off (cleaner for sprites).
    pub dither: bool,
    /// Palette strategy.
    pub palette: Palette,
}

impl Default for GifOptions {
    fn default() -> Self {
        GifOptions { alpha_threshold: 128, dither: false, palette: Palette::Global }
    }
}

/// Which frames to keep and their delays in centiseconds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Timing {
    /// Indices of the frames kept.
    pub frames: Vec<usize>,
    /// Delay of each kept frame, centiseconds, each at least 2.
    pub delays: Vec<u16>,
}

/// Delays for frames shown `durations` seconds each: rounding carried, none below 2 cs.
pub fn timing(durations: &[f32]) -> Timing {
    let mut start = Vec::with_capacity(durations.len() + 1);
    let mut t = 0.0f64;
    for d in durations {
        start.push((t * 100.0).round() as i64);
        t += f64::from(d.max(0.0));
    }
    let end = (t * 100.0).round() as i64;
    let mut frames: Vec<usize> = Vec::new();
    let mut times: Vec<i64> = Vec::new();
    for (i, &s) in start.iter().enumerate() {
        // Keep a frame only if it starts 2 cs after the last kept one and leaves 2 cs to the end.
        if times.last().is_none_or(|&last| s >= last + 2) && (end - s >= 2 || times.is_empty()) {
            frames.push(i);
            times.push(s);
        }
    }
    let delays = times
        .iter()
        .enumerate()
        .map(|(k, &s)| {
            let next = times.get(k + 1).copied().unwrap_or(end);
            (next - s).clamp(2, u16::MAX as i64) as u16
        })
        .collect();
    Timing { frames, delays }
}

/// Encodes frames (all the same size) as a looping GIF shown `durations` seconds each.
/// Returns the file bytes and the number of frames dropped to respect the 2 cs minimum.
///
/// # Errors
/// No frames, frames of different sizes, or a size over 65535 pixels.
pub fn encode_gif(frames: &[Image], durations: &[f32], options: &GifOptions) -> Result<(Vec<u8>, usize)> {
    let frame = |i: usize| frames.get(i).map(Cow::Borrowed).ok_or_else(|| Error::internal(format!("no GIF frame {i}")));
    encode_gif_from(frames.len(), &frame, durations, options)
}

/// As [`encode_gif`], with frame `i` of `count` made by `frame(i)` when it is needed, so a
/// caller can hold its frames in a smaller form (compressed) and never all of them decoded.
/// Each kept frame is asked for once to learn the palette and once to encode it; dropped
/// frames are never asked for.
///
/// # Errors
/// As [`encode_gif`]; whatever `frame` returns.
pub fn encode_gif_from<'f>(
    count: usize,
    frame: &dyn Fn(usize) -> Result<Cow<'f, Image>>,
    durations: &[f32],
    options: &GifOptions,
) -> Result<(Vec<u8>, usize)> {
    if count == 0 {
        return Err(Error::Invalid("a GIF needs at least one frame".into()));
    }
    let timing = timing(durations.get(..count).unwrap_or(durations));
    let kept: Vec<usize> = timing.frames.iter().copied().filter(|&i| i < count).collect();
    let size = {
        let first = frame(kept.first().copied().unwrap_or(0))?;
        (first.width, first.height)
    };
    let (gw, gh) = (u16::try_from(size.0), u16::try_from(size.1));
    let (Ok(gw), Ok(gh)) = (gw, gh) else {
        return Err(Error::Size(format!("{}x{} is too large for a GIF (65535 at most)", size.0, size.1)));
    };
    let pixels = size.0 as usize * size.1 as usize;
    // Every frame asked for is checked against the first's size.
    let sized = |i: usize| -> Result<Cow<'f, Image>> {
        let f = frame(i)?;
        if (f.width, f.height) != size {
            return Err(Error::Size("GIF frames differ in size".into()));
        }
        Ok(f)
    };
    let gif_error = |e: gif::EncodingError| Error::encode("GIF encoding failed", e);
    let global = (options.palette == Palette::Global)
        .then(|| quantizer(&kept, &sized, pixels, options.alpha_threshold))
        .transpose()?;
    let mut bytes = Vec::new();
    {
        let palette = global.as_ref().map(palette_bytes).unwrap_or_default();
        let mut encoder = gif::Encoder::new(&mut bytes, gw, gh, &palette).map_err(gif_error)?;
        encoder.set_repeat(gif::Repeat::Infinite).map_err(gif_error)?;
        for (&i, &delay) in kept.iter().zip(&timing.delays) {
            let local =
                global.is_none().then(|| quantizer(&[i], &sized, pixels, options.alpha_threshold)).transpose()?;
            let quant = global.as_ref().or(local.as_ref()).ok_or_else(|| Error::internal("no palette"))?;
            let indices = index_frame(sized(i)?.as_ref(), quant, options);
            let f = gif::Frame {
                width: gw,
                height: gh,
                delay,
                dispose: gif::DisposalMethod::Background,
                transparent: Some(TRANSPARENT),
                buffer: std::borrow::Cow::Owned(indices),
                palette: local.as_ref().map(palette_bytes),
                ..gif::Frame::default()
            };
            encoder.write_frame(&f).map_err(gif_error)?;
        }
    }
    Ok((bytes, count - kept.len()))
}

/// The palette index reserved for transparent pixels.
const TRANSPARENT: u8 = 255;
/// Pixels sampled for a palette at most (every k-th pixel beyond that).
const MAX_SAMPLES: usize = 1 << 20;

/// A palette for frames: their own colours when there are at most 255 of them, else learned.
enum Quantizer {
    /// The frames' colours, exactly, with their indices.
    Exact(Vec<[u8; 3]>, BTreeMap<[u8; 3], u8>),
    /// 255 colours learned by NeuQuant.
    Learned(NeuQuant),
}

impl Quantizer {
    /// The palette index for a colour.
    fn index_of(&self, c: [u8; 3]) -> u8 {
        match self {
            Quantizer::Learned(q) => (q.index_of(&[c[0], c[1], c[2], 255]) as u8).min(TRANSPARENT - 1),
            Quantizer::Exact(colours, index) => index.get(&c).copied().unwrap_or_else(|| {
                // Nearest in RGB (only dithered colours get here); ties to the lowest index.
                let d = |p: &[u8; 3]| (0..3).map(|i| (i32::from(p[i]) - i32::from(c[i])).pow(2)).sum::<i32>();
                colours.iter().enumerate().min_by_key(|(i, p)| (d(p), *i)).map_or(0, |(i, _)| i as u8)
            }),
        }
    }

    /// The colour of a palette index.
    fn lookup(&self, i: u8) -> [u8; 3] {
        match self {
            Quantizer::Learned(q) => q.lookup(i as usize).map_or([0; 3], |c| [c[0], c[1], c[2]]),
            Quantizer::Exact(colours, _) => colours.get(i as usize).copied().unwrap_or([0; 3]),
        }
    }
}

/// The palette of the opaque pixels (alpha at least `threshold`) of frames `kept` (each made
/// by `frame`, in order): exactly their colours when there are at most 255, else 255 colours
/// learned by NeuQuant from every k-th pixel of them all.
fn quantizer<'f>(
    kept: &[usize],
    frame: &dyn Fn(usize) -> Result<Cow<'f, Image>>,
    pixels_each: usize,
    threshold: u8,
) -> Result<Quantizer> {
    let mut index: BTreeMap<[u8; 3], u8> = BTreeMap::new();
    let mut few = true;
    // Every `step`-th pixel of the frames one after another (each of `pixels_each`: the
    // caller's `frame` checks every frame has the first's size), for NeuQuant when the colours
    // are too many: gathered in the same pass, so each frame is made once here.
    let step = (kept.len() * pixels_each).div_ceil(MAX_SAMPLES).max(1);
    let mut samples: Vec<u8> = Vec::new();
    for (k, &i) in kept.iter().enumerate() {
        let f = frame(i)?;
        few = few
            && f.rgba.chunks_exact(4).filter(|p| p[3] >= threshold).all(|p| {
                let c = [p[0], p[1], p[2]];
                index.contains_key(&c) || (index.len() < usize::from(TRANSPARENT) && index.insert(c, 0).is_none())
            });
        let first = (step - (k * pixels_each) % step) % step;
        let picked = f.rgba.chunks_exact(4).skip(first).step_by(step).filter(|p| p[3] >= 128);
        samples.extend(picked.flat_map(|p| [p[0], p[1], p[2], 255]));
    }
    if few {
        let colours: Vec<[u8; 3]> = index.keys().copied().collect();
        index.values_mut().enumerate().for_each(|(i, v)| *v = i as u8);
        return Ok(Quantizer::Exact(colours, index));
    }
    // NeuQuant needs some pixels to learn from.
    if samples.len() < 4 * 256 {
        samples.extend(std::iter::repeat_n([0u8, 0, 0, 255], 256).flatten());
    }
    Ok(Quantizer::Learned(NeuQuant::new(10, 255, &samples)))
}

/// 256 RGB entries: the palette's colours and the transparent slot.
fn palette_bytes(q: &Quantizer) -> Vec<u8> {
    let mut p = match q {
        Quantizer::Learned(q) => q.color_map_rgb(),
        Quantizer::Exact(colours, _) => colours.iter().flatten().copied().collect(),
    };
    p.resize(256 * 3, 0);
    p
}

/// Palette indices of a frame, with optional Floyd–Steinberg dithering of the opaque pixels.
fn index_frame(frame: &Image, q: &Quantizer, options: &GifOptions) -> Vec<u8> {
    let (w, h) = (frame.width as usize, frame.height as usize);
    let mut out = vec![TRANSPARENT; w * h];
    // Error buffers for dithering: current and next row, RGB.
    let mut err = vec![[0.0f32; 3]; 2 * (w + 2)];
    for y in 0..h {
        let (cur, next) = if y % 2 == 0 { (0, w + 2) } else { (w + 2, 0) };
        err[next..next + w + 2].iter_mut().for_each(|e| *e = [0.0; 3]);
        for x in 0..w {
            let p = &frame.rgba[(y * w + x) * 4..(y * w + x) * 4 + 4];
            if p[3] < options.alpha_threshold {
                continue;
            }
            let e = if options.dither { err[cur + x + 1] } else { [0.0; 3] };
            let want = [0, 1, 2].map(|c| (p[c] as f32 + e[c]).clamp(0.0, 255.0));
            let index = q.index_of([want[0] as u8, want[1] as u8, want[2] as u8]);
            out[y * w + x] = index;
            if options.dither {
                let got = q.lookup(index);
                let d = [0, 1, 2].map(|c| want[c] - got[c] as f32);
                for (dx, dy, k) in [(1i64, 0usize, 7.0), (-1, 1, 3.0), (0, 1, 5.0), (1, 1, 1.0)] {
                    let row = if dy == 0 { cur } else { next };
                    let slot = (x as i64 + 1 + dx) as usize;
                    for c in 0..3 {
                        err[row + slot][c] += d[c] * k / 16.0;
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_carry_rounding_and_respect_two_centiseconds() {
        let t = timing(&[1.0 / 24.0; 24]);
        assert_eq!(t.frames.len(), 24);
        assert_eq!(t.delays.iter().map(|&d| d as u32).sum::<u32>(), 100);
        assert_eq!(&t.delays[..3], &[4, 4, 5]);
        // 100 fps cannot be shown: every other frame is dropped, the total stays 1 s.
        let t = timing(&[0.01; 100]);
        assert_eq!(t.frames.len(), 50);
        assert!(t.delays.iter().all(|&d| d == 2));
        assert_eq!(timing(&[0.001]).delays, vec![2]);
    }
}
