//! pixelmatch's perceptual colour difference and anti-aliasing detection.
//!
//! `color_delta` is pixelmatch's YIQ distance (Kotsarenko & Ramos, "Measuring perceived color
//! difference using YIQ NTSC transmission color space"), with translucent pixels blended over
//! white as pixelmatch does; its threshold is the same 0..1 scale (0.1 by default). Because the
//! blend hides the difference between transparent and white, alpha is compared separately by
//! the caller. `antialiased` is pixelmatch's neighbourhood test: a pixel counts as an
//! anti-aliasing artefact when it lies between darker and brighter neighbours, one of which
//! sits in a flat region of both images.

use crate::raster::Image;

/// The largest possible YIQ delta; a threshold `t` allows `MAX_DELTA · t²`.
pub const MAX_DELTA: f64 = 35215.0;

fn px(img: &Image, x: i64, y: i64) -> [f64; 4] {
    let i = ((y * img.width as i64 + x) * 4) as usize;
    let p = img.rgba.get(i..i + 4).unwrap_or(&[0, 0, 0, 0]);
    [p[0] as f64, p[1] as f64, p[2] as f64, p[3] as f64]
}

fn blend_over_white(c: f64, a: f64) -> f64 {
    255.0 + (c - 255.0) * a
}

fn yiq(p: [f64; 4]) -> (f64, f64, f64) {
    let a = p[3] / 255.0;
    let (r, g, b) = (blend_over_white(p[0], a), blend_over_white(p[1], a), blend_over_white(p[2], a));
    (
        r * 0.298_895_31 + g * 0.586_622_47 + b * 0.114_482_23,
        r * 0.595_977_99 - g * 0.274_176_10 - b * 0.321_801_89,
        r * 0.211_470_17 - g * 0.522_617_11 + b * 0.311_146_94,
    )
}

/// Signed YIQ difference of pixel (x, y) between two images (negative when the first is
/// brighter), or only the brightness difference with `y_only`.
pub fn color_delta(a: &Image, b: &Image, x: i64, y: i64, y_only: bool) -> f64 {
    let (p, q) = (px(a, x, y), px(b, x, y));
    if p == q {
        return 0.0;
    }
    let ((y1, i1, q1), (y2, i2, q2)) = (yiq(p), yiq(q));
    let dy = y1 - y2;
    if y_only {
        return dy;
    }
    let (di, dq) = (i1 - i2, q1 - q2);
    let delta = 0.5053 * dy * dy + 0.299 * di * di + 0.1957 * dq * dq;
    if y1 > y2 { -delta } else { delta }
}

/// True when pixel (x, y) of `img` is likely an anti-aliased edge pixel (compared with `other`).
pub fn antialiased(img: &Image, other: &Image, x: i64, y: i64) -> bool {
    let (w, h) = (img.width as i64, img.height as i64);
    let (x0, y0, x1, y1) = ((x - 1).max(0), (y - 1).max(0), (x + 1).min(w - 1), (y + 1).min(h - 1));
    let mut zeroes = if x == x0 || x == x1 || y == y0 || y == y1 { 1 } else { 0 };
    let (mut min, mut max) = (0.0f64, 0.0f64);
    let (mut min_at, mut max_at) = (None, None);
    for ny in y0..=y1 {
        for nx in x0..=x1 {
            if nx == x && ny == y {
                continue;
            }
            let delta = brightness_delta(img, x, y, nx, ny);
            if delta == 0.0 {
                zeroes += 1;
                if zeroes > 2 {
                    return false; // more than two identical siblings: a flat area, not an edge
                }
            } else if delta < min {
                min = delta;
                min_at = Some((nx, ny));
            } else if delta > max {
                max = delta;
                max_at = Some((nx, ny));
            }
        }
    }
    let (Some((minx, miny)), Some((maxx, maxy))) = (min_at, max_at) else { return false };
    (has_many_siblings(img, minx, miny) && has_many_siblings(other, minx, miny))
        || (has_many_siblings(img, maxx, maxy) && has_many_siblings(other, maxx, maxy))
}

fn brightness_delta(img: &Image, x: i64, y: i64, nx: i64, ny: i64) -> f64 {
    let (a, b) = (px(img, x, y), px(img, nx, ny));
    if a == b {
        return 0.0;
    }
    yiq(a).0 - yiq(b).0
}

/// True when at least three of the pixel's neighbours are identical to it.
fn has_many_siblings(img: &Image, x: i64, y: i64) -> bool {
    let (w, h) = (img.width as i64, img.height as i64);
    let (x0, y0, x1, y1) = ((x - 1).max(0), (y - 1).max(0), (x + 1).min(w - 1), (y + 1).min(h - 1));
    let mut zeroes = if x == x0 || x == x1 || y == y0 || y == y1 { 1 } else { 0 };
    let p = px(img, x, y);
    for ny in y0..=y1 {
        for nx in x0..=x1 {
            if (nx, ny) != (x, y) && px(img, nx, ny) == p {
                zeroes += 1;
                if zeroes > 2 {
                    return true;
                }
            }
        }
    }
    false
}
