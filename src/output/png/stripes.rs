//! The parallel PNG encoder for large images (the technique of mtpng and pigz).
//!
//! The rows are cut into stripes of a fixed number of rows, which depends only on the image
//! width ([`rows_per_stripe`]), never on the thread count, so the bytes are the same on any
//! pool. Each stripe is filtered and compressed on its own (in parallel):
//!
//! * Filtering: the png crate's `Adaptive` heuristic (per row, the one of Up, Sub, Average and
//!   Paeth with the least sum of absolute signed bytes, ties to the later one, stopping at a
//!   zero sum), each candidate summed as it is written. A stripe's first row filters against
//!   the previous stripe's last row, which is in the input, so the filtered bytes are exactly
//!   the png crate's (but for stripes that fall back to stored blocks, see below).
//! * Compression: fdeflate's ultra-fast compressor (what the png crate uses for
//!   `Compression::Fast`: one dynamic Huffman block with a fixed table tuned for filtered
//!   data, literals and runs of zeros only), fed row by row as the png crate feeds it, so each
//!   row's bits are the same as in the serial stream. fdeflate only writes whole zlib
//!   streams, so each stripe's stream is cut open: its zlib header and Adler-32 are dropped,
//!   its block is made non-final, and an empty stored block (a sync flush) byte-aligns its end.
//!   Its end-of-block code ends with a 1 bit and is followed by zero padding, so the last set
//!   bit shows where the block ends. The stream's shape is checked, and anything unexpected
//!   (another fdeflate version) sends the image back to the serial encoder.
//! * Assembly: each stripe becomes its own IDAT chunk (with its CRC, computed in parallel);
//!   a last IDAT holds a final empty stored block and the Adler-32, combined from the stripes'.
//!
//! Rejected (measured on a 4032x2082 sprite sheet, 33.6 MB of filtered bytes): raw deflate
//! with miniz_oxide (flate2's backend, which has the sync flush) takes 32 ms at level 1 for
//! 3% more bytes than fdeflate's 7.4 ms, and 64 ms at level 2 (11% fewer bytes): even halved
//! on two threads, more than the whole serial encode (16 ms). Filtering in parallel and
//! compressing serially would leave fdeflate's share serial. A cheaper fixed filter (Up,
//! Paeth) makes the files 2% to 16% larger.

use rayon::prelude::*;

/// Bytes per pixel (RGBA8).
const BPP: usize = 4;

/// How many raw bytes a stripe aims at: large enough that a stripe's overhead (a 52-byte
/// Huffman block header, a sync flush and a 12-byte chunk frame) is lost in its compressed
/// size, small enough to share a sprite sheet among a few threads.
const STRIPE_BYTES: usize = 256 * 1024;

/// The zlib header fdeflate writes (deflate, 32K window, fastest level).
const ZLIB_HEADER: [u8; 2] = [0x78, 0x01];

/// An empty stored block, final: ends the zlib data after the stripes' non-final blocks.
const FINAL_EMPTY_BLOCK: [u8; 5] = [0x01, 0x00, 0x00, 0xFF, 0xFF];

/// Rows per stripe for an image `width` pixels wide: depends only on the width, so the output
/// does not depend on the number of threads.
pub(super) fn rows_per_stripe(width: u32) -> usize {
    (STRIPE_BYTES / (width as usize).saturating_mul(BPP).max(1)).max(1)
}

/// Encodes `width`×`height` RGBA8 `rgba` as a PNG, striped by `stripe_rows` rows, in parallel.
/// `None` if `rgba` has the wrong size, or fdeflate's output is not what this splices (the
/// caller then uses the serial encoder, which reports the former).
pub(super) fn encode(width: u32, height: u32, rgba: &[u8], stripe_rows: usize) -> Option<Vec<u8>> {
    encode_with(width, height, rgba, stripe_rows, MAX_CHUNK)
}

/// [`encode`], with at most `max_chunk` bytes in an IDAT chunk (tests make it small).
fn encode_with(width: u32, height: u32, rgba: &[u8], stripe_rows: usize, max_chunk: usize) -> Option<Vec<u8>> {
    let row_len = (width as usize).checked_mul(BPP)?;
    if width == 0 || height == 0 || row_len.checked_mul(height as usize)? != rgba.len() {
        return None;
    }
    let stripe_len = row_len.checked_mul(stripe_rows.max(1))?;
    let stripes: Vec<Stripe> = rgba
        .par_chunks(stripe_len)
        .enumerate()
        .map(|(i, rows)| {
            // The row above the stripe (none above the first: it filters against zeros).
            let above = match i.checked_mul(stripe_len) {
                Some(0) => None,
                Some(start) => Some(rgba.get(start.checked_sub(row_len)?..start)?),
                None => return None,
            };
            Stripe::encode(above, rows, row_len, i == 0, max_chunk)
        })
        .collect::<Option<_>>()?;

    let mut adler = 1;
    for stripe in &stripes {
        adler = adler32_combine(adler, stripe.adler, stripe.filtered_len);
    }
    let mut tail = Vec::with_capacity(FINAL_EMPTY_BLOCK.len() + 4);
    tail.extend_from_slice(&FINAL_EMPTY_BLOCK);
    tail.extend_from_slice(&adler.to_be_bytes());

    let mut ihdr = Vec::with_capacity(13);
    ihdr.extend_from_slice(&width.to_be_bytes());
    ihdr.extend_from_slice(&height.to_be_bytes());
    // 8 bits per sample, colour type 6 (RGBA), deflate, adaptive filtering, not interlaced.
    ihdr.extend_from_slice(&[8, 6, 0, 0, 0]);

    let mut head = Vec::with_capacity(8 + 25);
    head.extend_from_slice(b"\x89PNG\r\n\x1a\n");
    push_chunk(&mut head, *b"IHDR", &ihdr, MAX_CHUNK);
    let mut end = Vec::with_capacity(12 + tail.len() + 12);
    push_chunk(&mut end, *b"IDAT", &tail, max_chunk);
    push_chunk(&mut end, *b"IEND", &[], MAX_CHUNK);
    let parts: Vec<&[u8]> =
        std::iter::once(&head[..]).chain(stripes.iter().map(|s| &s.chunks[..])).chain([&end[..]]).collect();
    Some(concat(&parts))
}

/// `parts` one after another, copied side by side: a sheet page's PNG is megabytes, which one
/// thread copies (and faults in) while the others wait for the page.
fn concat(parts: &[&[u8]]) -> Vec<u8> {
    let mut out = vec![0; parts.iter().map(|p| p.len()).sum()];
    let mut places = Vec::with_capacity(parts.len());
    let mut rest = &mut out[..];
    for part in parts {
        let (place, after) = rest.split_at_mut(part.len());
        places.push(place);
        rest = after;
    }
    places.into_par_iter().zip(parts).for_each(|(place, part)| place.copy_from_slice(part));
    out
}

/// One stripe, encoded.
struct Stripe {
    /// The stripe's IDAT chunk(s): its deflate blocks (after the zlib header, for the first
    /// stripe), ending byte-aligned and non-final.
    chunks: Vec<u8>,
    /// The Adler-32 of the stripe's filtered bytes (filter-type bytes included).
    adler: u32,
    /// How many filtered bytes the stripe has.
    filtered_len: u64,
}

impl Stripe {
    /// Filters and compresses `rows` (whole rows of `row_len` bytes), the first of which
    /// filters against `above` (zeros if `None`). `None` if fdeflate's stream is not as
    /// expected.
    fn encode(above: Option<&[u8]>, rows: &[u8], row_len: usize, first: bool, max_chunk: usize) -> Option<Stripe> {
        let zeros;
        let mut previous = match above {
            Some(row) => row,
            None => {
                zeros = vec![0; row_len];
                &zeros
            }
        };
        let n_rows = rows.len().checked_div(row_len)?;
        let filtered_len = rows.len().checked_add(n_rows)?;
        let mut line = vec![0; row_len.checked_add(1)?];
        let mut compressor = fdeflate::Compressor::new(Vec::with_capacity(rows.len() / 8)).ok()?;
        for row in rows.chunks_exact(row_len) {
            let (kind, out) = line.split_first_mut()?;
            *kind = filter_row(previous, row, out);
            // One call per row, as the png crate makes them: fdeflate's runs of zeros stop at
            // the end of a call, so each row compresses to the same bits as in its stream.
            compressor.write_data(&line).ok()?;
            previous = row;
        }
        let stream = compressor.finish().ok()?;

        let (header, rest) = stream.split_at_checked(ZLIB_HEADER.len())?;
        let (block, adler) = rest.split_at_checked(rest.len().checked_sub(4)?)?;
        let adler = u32::from_be_bytes(adler.try_into().ok()?);
        let (&block_head, block_rest) = block.split_first()?;
        let &last = block.last()?;
        // A final (bit 0) dynamic-Huffman (bits 1-2: 0b10) block, ending in a set bit.
        if header != ZLIB_HEADER || block_head & 0b111 != 0b101 || last == 0 {
            return None;
        }
        // Zero bits after the end-of-block code, in its last byte: the header of an empty
        // stored block takes 3 bits, and then needs the next byte boundary.
        let padding = last.leading_zeros();
        let sync: &[u8] = if padding >= 3 { &[0x00, 0x00, 0xFF, 0xFF] } else { &[0x00, 0x00, 0x00, 0xFF, 0xFF] };

        let zlib_header: &[u8] = if first { &ZLIB_HEADER } else { &[] };
        let stored_len = filtered_len + filtered_len.div_ceil(usize::from(u16::MAX)) * 5;
        let mut data = Vec::with_capacity(zlib_header.len() + (block.len() + sync.len()).min(stored_len));
        data.extend_from_slice(zlib_header);
        let adler = if block.len() + sync.len() <= stored_len {
            data.push(block_head & !1);
            data.extend_from_slice(block_rest);
            data.extend_from_slice(sync);
            adler
        } else {
            // Noise, which fdeflate's fixed code makes larger: stored blocks of the raw rows
            // (filter type 0), as the png crate then writes.
            let mut hasher = simd_adler32::Adler32::new();
            let mut raw = Vec::with_capacity(filtered_len);
            for row in rows.chunks_exact(row_len) {
                raw.push(0);
                raw.extend_from_slice(row);
            }
            hasher.write(&raw);
            for piece in raw.chunks(usize::from(u16::MAX)) {
                let len = u16::try_from(piece.len()).ok()?;
                data.push(0x00);
                data.extend_from_slice(&len.to_le_bytes());
                data.extend_from_slice(&(!len).to_le_bytes());
                data.extend_from_slice(piece);
            }
            hasher.finish()
        };
        let mut chunks = Vec::with_capacity(data.len() + 12);
        push_chunk(&mut chunks, *b"IDAT", &data, max_chunk);
        Some(Stripe { chunks, adler, filtered_len: filtered_len as u64 })
    }
}

/// The most data this puts in a chunk (the format allows 2³¹ - 1 bytes).
const MAX_CHUNK: usize = 1 << 30;

/// Appends chunks of type `kind` holding `data` to `out`: one, unless `data` is over `max`
/// bytes (IDAT data may be split anywhere; other chunks are small).
fn push_chunk(out: &mut Vec<u8>, kind: [u8; 4], data: &[u8], max: usize) {
    let mut write = |piece: &[u8]| {
        out.extend_from_slice(&(piece.len() as u32).to_be_bytes());
        let mut crc = crc32fast::Hasher::new();
        crc.update(&kind);
        crc.update(piece);
        out.extend_from_slice(&kind);
        out.extend_from_slice(piece);
        out.extend_from_slice(&crc.finalize().to_be_bytes());
    };
    if data.is_empty() {
        write(data);
    }
    for piece in data.chunks(max.max(1)) {
        write(piece);
    }
}

/// The Adler-32 of `a`'s data followed by `b`'s `b_len` bytes, from the checksums of each.
fn adler32_combine(a: u32, b: u32, b_len: u64) -> u32 {
    const MOD: u64 = 65521;
    let n = b_len % MOD;
    let (a_lo, a_hi) = (u64::from(a & 0xFFFF), u64::from(a >> 16));
    let (b_lo, b_hi) = (u64::from(b & 0xFFFF), u64::from(b >> 16));
    // Each running sum of `b` gains `a_lo - 1`; the sum of sums gains that `n` times.
    let lo = (a_lo + b_lo + MOD - 1) % MOD;
    let hi = (a_hi + b_hi + n * a_lo + MOD - n) % MOD;
    ((hi << 16) | lo) as u32
}

/// Filters `current` against `previous` (the row above) into `out` with the png crate's
/// adaptive choice, returning the filter type.
fn filter_row(previous: &[u8], current: &[u8], out: &mut [u8]) -> u8 {
    // The png crate's order and ties: the later filter wins a tie, a zero cost stops. Each
    // candidate is written out and summed in one pass: a single pass costing all four, then
    // writing the best, measured 1.7 times slower (the compiler spills its 4 sums).
    let mut best = (UP, u64::MAX);
    for kind in [UP, SUB, AVG, PAETH] {
        let cost = apply_filter(kind, previous, current, out);
        if cost <= best.1 {
            best = (kind, cost);
            if cost == 0 {
                return kind;
            }
        }
    }
    if best.0 != PAETH {
        apply_filter(best.0, previous, current, out);
    }
    best.0
}

const UP: u8 = 2;
const SUB: u8 = 1;
const AVG: u8 = 3;
const PAETH: u8 = 4;

/// The Paeth predictor, in the png crate's (FPNGE's) 8-bit formulation.
#[inline(always)]
fn paeth(a: u8, b: u8, c: u8) -> u8 {
    let pa = b.max(c) - b.min(c);
    let pb = a.max(c) - a.min(c);
    let pc = if (a < c) == (c < b) { pa.max(pb) - pa.min(pb) } else { 255 };
    if pa <= pb && pa <= pc {
        a
    } else if pb <= pc {
        b
    } else {
        c
    }
}

/// The png crate's cost of a filtered byte: its absolute value as a signed byte.
#[inline(always)]
fn cost(byte: u8) -> u8 {
    // `(byte as i8).unsigned_abs()`, as the smaller of the byte and its negation.
    byte.min(byte.wrapping_neg())
}

/// Bytes filtered together: fixed-size arrays, which the compiler turns into vector code.
const LANES: usize = 32;

/// The rest of a row after its first pixel, with the bytes each filter predicts from: `x`
/// the bytes, `b` those above, `a` those to the left, `c` those above left.
struct Tail<'r> {
    x: &'r [u8],
    b: &'r [u8],
    a: &'r [u8],
    c: &'r [u8],
}

impl<'r> Tail<'r> {
    fn new(previous: &'r [u8], current: &'r [u8]) -> Self {
        let n = current.len();
        let back = n.saturating_sub(BPP);
        Tail {
            x: current.get(BPP..).unwrap_or_default(),
            b: previous.get(BPP..n).unwrap_or_default(),
            a: current.get(..back).unwrap_or_default(),
            c: previous.get(..back).unwrap_or_default(),
        }
    }

    /// Calls `whole` on each run of [`LANES`] bytes (`x`, `a`, `b`, `c` and the output), then
    /// `single` on each byte left, returning the sum of what they return.
    #[inline(always)]
    fn for_each(
        &self,
        out: &mut [u8],
        whole: impl Fn(&[u8; LANES], &[u8; LANES], &[u8; LANES], &[u8; LANES], &mut [u8; LANES]) -> u64,
        single: impl Fn(u8, u8, u8, u8, &mut u8) -> u64,
    ) -> u64 {
        let mut sum = 0;
        let mut xs = self.x.chunks_exact(LANES);
        let mut bs = self.b.chunks_exact(LANES);
        let mut as_ = self.a.chunks_exact(LANES);
        let mut cs = self.c.chunks_exact(LANES);
        let mut outs = out.chunks_exact_mut(LANES);
        for ((((x, b), a), c), o) in (&mut xs).zip(&mut bs).zip(&mut as_).zip(&mut cs).zip(&mut outs) {
            if let (Ok(x), Ok(b), Ok(a), Ok(c), Ok(o)) =
                (x.try_into(), b.try_into(), a.try_into(), c.try_into(), <&mut [u8; LANES]>::try_from(o))
            {
                sum += whole(x, a, b, c, o);
            }
        }
        for ((((&x, &b), &a), &c), o) in xs
            .remainder()
            .iter()
            .zip(bs.remainder())
            .zip(as_.remainder())
            .zip(cs.remainder())
            .zip(outs.into_remainder())
        {
            sum += single(x, a, b, c, o);
        }
        sum
    }
}

/// Writes `current` filtered with filter type `kind` (1 to 4) against `previous` to `out`,
/// returning the png crate's cost of the result: the sum of its bytes' absolute values as
/// signed bytes.
fn apply_filter(kind: u8, previous: &[u8], current: &[u8], out: &mut [u8]) -> u64 {
    let mut sum = 0;
    let split = BPP.min(out.len());
    let (out_head, out_tail) = out.split_at_mut(split);
    // The first pixel: nothing to its left, so Sub keeps it, and Average and Paeth predict
    // from above alone (half of it, and all of it).
    for ((o, &x), &b) in out_head.iter_mut().zip(current).zip(previous) {
        *o = match kind {
            SUB => x,
            AVG => x.wrapping_sub(b >> 1),
            _ => x.wrapping_sub(b),
        };
        sum += u64::from(cost(*o));
    }
    let tail = Tail::new(previous, current);
    macro_rules! filter {
        ($predict:expr) => {
            sum += tail.for_each(
                out_tail,
                |x, a, b, c, o| {
                    for i in 0..LANES {
                        o[i] = x[i].wrapping_sub($predict(a[i], b[i], c[i]));
                    }
                    // At most 32 * 128: the compiler sums in whatever lanes it likes.
                    o.iter().map(|&v| u64::from(cost(v))).sum::<u64>()
                },
                |x, a, b, c, o| {
                    *o = x.wrapping_sub($predict(a, b, c));
                    u64::from(cost(*o))
                },
            )
        };
    }
    match kind {
        SUB => filter!(|a, _, _| a),
        UP => filter!(|_, b, _| b),
        AVG => filter!(|a: u8, b: u8, _| (a & b) + ((a ^ b) >> 1)),
        _ => filter!(paeth),
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::budget::MemoryBudget;

    /// Deterministic RGBA content of a few kinds.
    fn content(kind: &str, width: u32, height: u32) -> Vec<u8> {
        let (w, h) = (width as usize, height as usize);
        let mut state = 0x9E37_79B9_7F4A_7C15_u64 ^ (w * 31 + h) as u64;
        let mut noise = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state as u8
        };
        let mut rgba = Vec::with_capacity(w * h * 4);
        for y in 0..h {
            for x in 0..w {
                let px = match kind {
                    "noise" => [noise(), noise(), noise(), noise()],
                    "flat" => [200, 30, 90, 255],
                    "transparent" => [0; 4],
                    "gradient" => [(x * 255 / w.max(1)) as u8, (y * 255 / h.max(1)) as u8, ((x + y) % 256) as u8, 255],
                    // A sprite: an opaque disc with soft noisy shading on transparency.
                    _ => {
                        let (dx, dy) = (x as i64 - w as i64 / 2, y as i64 - h as i64 / 2);
                        if dx * dx + dy * dy < (w.min(h) as i64 / 2).pow(2) {
                            [(100 + x % 50) as u8, (60 + y % 90) as u8, 40 + noise() % 4, 255]
                        } else {
                            [0; 4]
                        }
                    }
                };
                rgba.extend_from_slice(&px);
            }
        }
        rgba
    }

    const KINDS: [&str; 5] = ["noise", "flat", "transparent", "gradient", "sprite"];

    /// The chunks of `png` (type, data), checking the signature and every CRC.
    fn chunks(png: &[u8]) -> Vec<([u8; 4], &[u8])> {
        assert_eq!(png[..8], *b"\x89PNG\r\n\x1a\n");
        let mut rest = &png[8..];
        let mut out = Vec::new();
        while !rest.is_empty() {
            let len = u32::from_be_bytes(rest[..4].try_into().unwrap()) as usize;
            let kind: [u8; 4] = rest[4..8].try_into().unwrap();
            let data = &rest[8..8 + len];
            let crc = u32::from_be_bytes(rest[8 + len..12 + len].try_into().unwrap());
            let mut hasher = crc32fast::Hasher::new();
            hasher.update(&rest[4..8 + len]);
            assert_eq!(hasher.finalize(), crc, "CRC of a {} chunk", String::from_utf8_lossy(&kind));
            out.push((kind, data));
            rest = &rest[12 + len..];
        }
        out
    }

    /// The filtered bytes of `png`, inflated by fdeflate, which checks the Adler-32 (the png
    /// decoder does not).
    fn filtered(png: &[u8]) -> Vec<u8> {
        let zlib: Vec<u8> =
            chunks(png).into_iter().filter(|(kind, _)| kind == b"IDAT").flat_map(|(_, data)| data.to_vec()).collect();
        fdeflate::decompress_to_vec(&zlib).unwrap()
    }

    fn decode(png: &[u8]) -> crate::raster::Image {
        super::super::decode_png_within(png, std::path::Path::new("<test>"), &MemoryBudget::default()).unwrap()
    }

    fn idat_count(png: &[u8]) -> usize {
        chunks(png).iter().filter(|(kind, _)| kind == b"IDAT").count()
    }

    #[test]
    fn round_trips_every_size_content_and_stripe_height() {
        // 1x1, one row, one column, odd widths, rows a multiple of the stripe (64 of 16, 9 of
        // 3) and not (17 of 4), one stripe for all.
        for (w, h) in [(1, 1), (5, 1), (1, 7), (3, 5), (33, 9), (7, 64), (100, 17), (257, 12)] {
            for kind in KINDS {
                let rgba = content(kind, w, h);
                for stripe_rows in [1, 3, 4, 16, rows_per_stripe(w)] {
                    let png = encode(w, h, &rgba, stripe_rows).unwrap();
                    let image = decode(&png);
                    let what = format!("{kind} {w}x{h} in stripes of {stripe_rows}");
                    assert_eq!((image.width, image.height), (w, h), "{what}");
                    assert!(image.rgba == rgba, "{what}");
                    assert_eq!(filtered(&png).len(), (w as usize * 4 + 1) * h as usize, "{what}");
                    // One IDAT per stripe, and the last one.
                    assert_eq!(idat_count(&png), (h as usize).div_ceil(stripe_rows) + 1, "{what}");
                }
            }
        }
    }

    #[test]
    fn filters_as_the_png_crate_does() {
        // Same filter choices, so the same filtered bytes, the stored fallback of noise
        // included, since every stripe of noise is stored. (Not with stripes of a few bytes,
        // where the sync flush can tip the choice between compressing and storing.)
        for (w, h, stripe_rows) in [(1, 1, 1), (31, 20, 20), (61, 40, 7), (61, 40, 40), (256, 33, 4), (256, 33, 33)] {
            for kind in KINDS {
                let rgba = content(kind, w, h);
                let reference = filtered(&super::super::encode_serial(w, h, &rgba).unwrap());
                {
                    let png = encode(w, h, &rgba, stripe_rows).unwrap();
                    assert!(filtered(&png) == reference, "{kind} {w}x{h} in stripes of {stripe_rows}");
                }
            }
        }
    }

    #[test]
    fn splits_large_chunks() {
        let rgba = content("noise", 40, 30);
        for max in [1, 7, 1000] {
            let png = encode_with(40, 30, &rgba, 8, max).unwrap();
            assert!(chunks(&png).iter().all(|(_, data)| data.len() <= max.max(13)));
            assert!(decode(&png).rgba == rgba);
            assert_eq!(filtered(&png).len(), 161 * 30);
        }
    }

    #[test]
    fn same_bytes_on_any_number_of_threads() {
        let (w, h) = (300, 500);
        let rgba = content("sprite", w, h);
        let on = |threads: usize, stripe_rows: usize| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            pool.install(|| {
                (encode(w, h, &rgba, stripe_rows).unwrap(), super::super::encode_rgba_png(w, h, &rgba).unwrap())
            })
        };
        for stripe_rows in [1, 9, 64] {
            let one = on(1, stripe_rows);
            assert!(on(2, stripe_rows) == one && on(7, stripe_rows) == one, "stripes of {stripe_rows}");
        }
    }

    #[test]
    fn large_images_take_the_parallel_path() {
        // Over the threshold: striped (one IDAT per stripe, and the last), and round trips.
        let (w, h) = (640, 480);
        assert!(w as usize * h as usize * 4 >= super::super::PARALLEL_MIN_BYTES);
        let rgba = content("sprite", w, h);
        let png = super::super::encode_rgba_png(w, h, &rgba).unwrap();
        assert_eq!(idat_count(&png), (h as usize).div_ceil(rows_per_stripe(w)) + 1);
        assert!(idat_count(&png) > 2);
        assert!(decode(&png).rgba == rgba);
        // Within a few percent of the png crate's size, which is also what it filters.
        let serial = super::super::encode_serial(w, h, &rgba).unwrap();
        assert!(png.len() as f64 <= serial.len() as f64 * 1.03, "{} vs {}", png.len(), serial.len());
        assert!(filtered(&png) == filtered(&serial));
        // Under it: the png crate's bytes.
        let small = content("sprite", 64, 64);
        assert_eq!(
            super::super::encode_rgba_png(64, 64, &small).unwrap(),
            super::super::encode_serial(64, 64, &small).unwrap()
        );
    }

    #[test]
    fn refuses_the_wrong_number_of_texels() {
        assert!(encode(4, 4, &[0; 63], 2).is_none());
        assert!(encode(0, 4, &[], 2).is_none());
        assert!(super::super::encode_rgba_png(512, 512, &vec![0; 512 * 512 * 4 - 4]).is_err());
    }

    #[test]
    fn combines_adler32() {
        let data = content("noise", 50, 50);
        let whole = simd_adler32::adler32(&data.as_slice());
        for cut in [0, 1, 2, 4000, 9999, 10000] {
            let (a, b) = data.split_at(cut);
            let combined = adler32_combine(simd_adler32::adler32(&a), simd_adler32::adler32(&b), b.len() as u64);
            assert_eq!(combined, whole, "cut at {cut}");
        }
        // Long runs of 0xFF push the sums through the modulus.
        let ones = vec![0xFF; 200_000];
        let (a, b) = ones.split_at(70_000);
        assert_eq!(
            adler32_combine(simd_adler32::adler32(&a), simd_adler32::adler32(&b), b.len() as u64),
            simd_adler32::adler32(&ones.as_slice())
        );
    }
}
