//! Image post-processing for sprites: silhouette outlines, the pixel-art downscale (in
//! [`crate::bake::look::pixel_art`]), trimming and edge extrusion. All work on straight-alpha sRGB
//! [`Image`]s.

use glam::Vec2;

use crate::bake::look::distance;
use crate::bake::look::maps::{self, Maps, SurfaceMaps};
use crate::bake::look::palette::{self, Palette};
use crate::bake::look::pixel_art::pixelate;
use crate::raster::Image;
use crate::spec::{AlphaName, Look};

/// Applies a [`Look`] to a freshly rendered image (rendered `pixel_art` times larger when pixel
/// art is on): skeleton overlay, pixel-art downscale, outline, in that order; `maps` (the
/// image's surface maps, if any) follow the downscale and the outline; then, with premultiplied
/// alpha, the colour is multiplied by it (the maps never are). The palette is not
/// applied here: it is one for every image of an output ([`crate::bake::look::palette::apply`], after all
/// of them are finished). `pivot`
/// is a pixel of the render, returned in the finished image's pixels; `joints` gives the
/// skeleton's pixels, asked for only when the look draws it.
pub fn finish(
    look: &Look,
    mut image: Image,
    mut pivot: Vec2,
    joints: impl FnOnce() -> Vec<(Vec2, Option<usize>)>,
    maps: &mut SurfaceMaps,
) -> (Image, Vec2) {
    if look.skeleton {
        image = skeleton_overlay(&image, &joints());
    }
    if let Some(scale) = look.pixel_art {
        let small = pixelate(&image, scale, look.pixel_art_filter);
        maps.pixelate(&image, &small, scale, look.pixel_art_filter);
        image = small;
        pivot /= scale as f32;
    }
    if look.outline > 0 {
        let [r, g, b, _] = look.outline_color.0;
        let outlined = outline(&image, look.outline, [r, g, b], look.pixel_art.is_none());
        maps.outline(&image, &outlined);
        image = outlined;
    }
    if look.alpha == AlphaName::Premultiplied {
        premultiply(&mut image);
    }
    (image, pivot)
}

/// Multiplies each pixel's colour by its alpha, rounded to the nearest level.
pub fn premultiply(image: &mut Image) {
    for pixel in image.rgba.chunks_exact_mut(4) {
        let alpha = u32::from(pixel[3]);
        for channel in &mut pixel[..3] {
            *channel = ((u32::from(*channel) * alpha + 127) / 255) as u8;
        }
    }
}

/// Whether [`finish`] and [`finish_output`] leave every image of `look` as it was rendered (no
/// skeleton overlay, pixel-art scaling, outline, premultiplied alpha or palette), so that it
/// can be rendered straight where it goes.
pub fn keeps_render(look: &Look) -> bool {
    let straight = look.alpha == AlphaName::Straight;
    !look.skeleton && look.pixel_art.is_none() && look.outline == 0 && straight && !palette::wanted(look)
}

/// What is done once every image of an output is finished, because they share it: one palette
/// for all of them (`palette`, the look's file's, if any), and one depth range for their maps
/// (`surfaces`, in image order), which come back finished. In image order on one thread, so
/// the same for any thread count.
pub fn finish_output(
    look: &Look,
    palette: Option<&Palette>,
    images: &mut [&mut Image],
    surfaces: Vec<SurfaceMaps>,
) -> Vec<Maps> {
    palette::apply(look, palette, images);
    maps::finish(surfaces, look.normal_y)
}

/// Draws an outline exactly `width` pixels wide around the opaque silhouette, under the sprite:
/// every transparent pixel whose centre lies within `width` of a pixel with alpha ≥ 128 gets
/// `color`, composited beneath what is there. With `soft` (every look but pixel art, whose
/// edges stay hard), the pixels up to one more pixel out get the colour too, as much as they
/// are within `width + 1` (its anti-aliased outer edge). Linear in the pixels for any width (an
/// exact distance transform).
pub fn outline(image: &Image, width: u32, color: [u8; 3], soft: bool) -> Image {
    if width == 0 {
        return image.clone();
    }
    let alpha = |i: usize| image.rgba.get(i * 4 + 3).copied().unwrap_or(0);
    let (w, h) = (image.width as usize, image.height as usize);
    let reach = u64::from(width) + u64::from(soft);
    let near = distance::squared_distances(w, h, |i| alpha(i) >= 128, reach);
    let (r2, reach2) = (u64::from(width) * u64::from(width), reach.saturating_mul(reach));
    let mut out = image.clone();
    for (i, (pixel, &d2)) in out.rgba.chunks_exact_mut(4).zip(&near).enumerate() {
        let a = alpha(i);
        if a == 255 || d2 > reach2 {
            continue;
        }
        if d2 <= r2 {
            // The sprite pixel (straight alpha a) over the opaque outline colour.
            let af = a as u32;
            for (c, &oc) in pixel.iter_mut().zip(&color) {
                *c = ((*c as u32 * af + oc as u32 * (255 - af) + 127) / 255) as u8;
            }
            pixel[3] = 255;
            continue;
        }
        // The fringe: the outline colour as much as the pixel is within `width + 1`.
        let cover = (f64::from(width) + 1.0 - (d2 as f64).sqrt()).clamp(0.0, 1.0);
        let sa = f64::from(a) / 255.0;
        let out_alpha = sa + cover * (1.0 - sa);
        if out_alpha <= 0.0 {
            continue;
        }
        for (c, &oc) in pixel.iter_mut().zip(&color) {
            let mixed = (f64::from(*c) * sa + f64::from(oc) * cover * (1.0 - sa)) / out_alpha;
            *c = mixed.round().clamp(0.0, 255.0) as u8;
        }
        pixel[3] = (out_alpha * 255.0).round() as u8;
    }
    out
}

/// Copies the `(x, y, w, h)` rectangle out of an image.
pub fn crop(image: &Image, x: u32, y: u32, w: u32, h: u32) -> Image {
    let mut rgba = Vec::with_capacity((w * h * 4) as usize);
    for row in y..y + h {
        let start = ((row * image.width + x) * 4) as usize;
        rgba.extend_from_slice(image.rgba.get(start..start + (w * 4) as usize).unwrap_or(&[]));
    }
    Image { width: w, height: h, rgba }
}

/// Blits `src` into `dst` at (`x`, `y`), repeating its edge pixels `extrude` pixels outward
/// (so texture filtering in the engine never samples a neighbour's pixels).
pub fn blit_extruded(dst: &mut Image, src: &Image, x: u32, y: u32, extrude: u32) {
    let blit = Blit { src, rect: (0, 0, src.width, src.height), at: (x, y) };
    blit.draw_rows(&mut dst.rgba, dst.width, 0, extrude);
}

/// The kept rectangle `(x, y, w, h)` of a source image and the page position of its top left
/// corner: one frame drawn on a sheet page, straight from the cell (no cropped copy).
#[derive(Debug, Clone, Copy)]
pub struct Blit<'a> {
    /// The whole source image.
    pub src: &'a Image,
    /// The rectangle of `src` drawn.
    pub rect: (u32, u32, u32, u32),
    /// Where its top left corner goes.
    pub at: (u32, u32),
}

/// Sets pixel `x` of an RGBA row (nothing outside it).
fn put(row: &mut [u8], x: usize, pixel: &[u8]) {
    if let Some(d) = row.get_mut(x * 4..x * 4 + 4) {
        d.copy_from_slice(pixel);
    }
}

impl Blit<'_> {
    /// Draws the rows of this blit (its rectangle with `extrude` edge pixels repeated outward)
    /// that fall in `rows`: RGBA rows `width` pixels wide, the first of them row `first_row`
    /// of the page. Parts outside the page are dropped. Drawing a page in bands of rows, each
    /// band every blit in one order, gives the bytes of drawing it whole in that order.
    pub fn draw_rows(&self, rows: &mut [u8], width: u32, first_row: u32, extrude: u32) {
        let (rx, ry, rw, rh) = self.rect;
        let (sw, width) = (self.src.width as usize, width as usize);
        if rw == 0 || rh == 0 || width == 0 || rx + rw > self.src.width || ry + rh > self.src.height {
            return;
        }
        let (x, y, e) = (i64::from(self.at.0), i64::from(self.at.1), i64::from(extrude));
        let band_end = i64::from(first_row) + (rows.len() / (width * 4)) as i64;
        let (top, bottom) = ((y - e).max(i64::from(first_row)), (y + i64::from(rh) + e).min(band_end));
        // Destination columns: extrusion left, the rectangle, extrusion right, within the page.
        let (left, right) = ((x - e).max(0) as usize, ((x + i64::from(rw) + e) as usize).min(width));
        let (x, rw) = (x as usize, rw as usize);
        for ty in top..bottom {
            // Rows above and below the rectangle repeat its first and last row.
            let sy = (ty - y).clamp(0, i64::from(rh) - 1) as usize + ry as usize;
            let src_start = (sy * sw + rx as usize) * 4;
            let Some(src) = self.src.rgba.get(src_start..src_start + rw * 4) else { continue };
            let dst_start = (ty - i64::from(first_row)) as usize * width * 4;
            let Some(dst) = rows.get_mut(dst_start..dst_start + width * 4) else { continue };
            let (Some(first), Some(last)) = (src.get(..4), src.get(src.len() - 4..)) else { continue };
            // Left extrusion, the rectangle's row copied whole, right extrusion.
            let (middle_start, middle_end) = (x.min(right), (x + rw).min(right));
            for tx in left..middle_start {
                put(dst, tx, first);
            }
            // Empty when the rectangle starts right of the page; else it starts at `x`.
            if middle_start < middle_end {
                let n = (middle_end - middle_start) * 4;
                if let (Some(d), Some(s)) = (dst.get_mut(middle_start * 4..middle_start * 4 + n), src.get(..n)) {
                    d.copy_from_slice(s);
                }
            }
            for tx in (x + rw).max(middle_start)..right {
                put(dst, tx, last);
            }
        }
    }
}

/// The median distance from each joint to its nearest other joint, in pixels (infinite for
/// fewer than two joints). Of a skeleton of thousands of joints, a spread of 256 is measured:
/// the work stays small whatever the file holds.
fn typical_gap(joints: &[(glam::Vec2, Option<usize>)]) -> f32 {
    let step = joints.len().div_ceil(256).max(1);
    let sampled: Vec<glam::Vec2> = joints.iter().step_by(step).map(|(p, _)| *p).collect();
    let mut nearest: Vec<f32> = sampled
        .iter()
        .map(|p| sampled.iter().map(|q| q.distance(*p)).filter(|&d| d > 0.0).fold(f32::INFINITY, f32::min))
        .filter(|d| d.is_finite())
        .collect();
    nearest.sort_by(f32::total_cmp);
    nearest.get(nearest.len() / 2).copied().unwrap_or(f32::INFINITY)
}

/// Draws a skeleton over an image with tiny-skia (anti-aliased): bones as lines from each joint
/// to its parent, joints as dots. `joints` are pixel positions with parent indices.
pub fn skeleton_overlay(image: &Image, joints: &[(glam::Vec2, Option<usize>)]) -> Image {
    use tiny_skia::{Color, FillRule, Paint, PathBuilder, Pixmap, Stroke, Transform};
    let Some(size) = tiny_skia::IntSize::from_wh(image.width, image.height) else { return image.clone() };
    // tiny-skia works in premultiplied alpha.
    let premultiplied: Vec<u8> = image
        .rgba
        .chunks_exact(4)
        .flat_map(|p| {
            let a = p[3] as u32;
            [0, 1, 2].map(|c| ((p[c] as u32 * a + 127) / 255) as u8).into_iter().chain([p[3]])
        })
        .collect();
    let Some(mut pixmap) = Pixmap::from_vec(premultiplied, size) else { return image.clone() };
    // Dots of 2 px at 128 px, never so large that they cover their neighbours (a hand's 20
    // joints in a 64 px sprite): at most a third of the typical gap between joints.
    let scale = (image.width.min(image.height) as f32 / 128.0).max(0.5);
    let radius = (2.0 * scale).min(typical_gap(joints) / 3.0).max(0.5);
    let mut bones = Paint::default();
    bones.set_color(Color::from_rgba8(255, 220, 40, 230));
    bones.anti_alias = true;
    let mut dots = Paint::default();
    dots.set_color(Color::from_rgba8(230, 40, 40, 255));
    dots.anti_alias = true;
    let stroke = Stroke { width: (1.5 * scale).min(radius), ..Stroke::default() };
    let mut lines = PathBuilder::new();
    for &(p, parent) in joints {
        if let Some(&(q, _)) = parent.and_then(|i| joints.get(i)) {
            lines.move_to(q.x, q.y);
            lines.line_to(p.x, p.y);
        }
    }
    if let Some(path) = lines.finish() {
        pixmap.stroke_path(&path, &bones, &stroke, Transform::identity(), None);
    }
    for &(p, _) in joints {
        if let Some(circle) = PathBuilder::from_circle(p.x, p.y, radius) {
            pixmap.fill_path(&circle, &dots, FillRule::Winding, Transform::identity(), None);
        }
    }
    let rgba = pixmap
        .data()
        .chunks_exact(4)
        .flat_map(|p| {
            let a = p[3] as u32;
            let un = |c: u8| (c as u32 * 255 + a / 2).checked_div(a).map_or(0, |v| v.min(255) as u8);
            [un(p[0]), un(p[1]), un(p[2]), p[3]]
        })
        .collect();
    Image { width: image.width, height: image.height, rgba }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dot(size: u32) -> Image {
        let mut img = Image::new(size, size).unwrap();
        let c = size / 2;
        img.pixel_mut(c, c).unwrap().copy_from_slice(&[255, 255, 255, 255]);
        img
    }

    #[test]
    fn skeleton_dots_never_cover_their_neighbours() {
        // 30 joints 1.5 px apart down the middle of pixel column 32 of a 64 px sprite (a hand's
        // fingers, far away): the 128 px size's 2 px dots, halved, would paint a bar 2 px wide;
        // dots a third of the gap (down to half a pixel) keep to the column.
        let joints: Vec<(glam::Vec2, Option<usize>)> =
            (0..30usize).map(|i| (glam::Vec2::new(32.5, 10.0 + 1.5 * i as f32), i.checked_sub(1))).collect();
        assert_eq!(typical_gap(&joints), 1.5);
        let drawn = skeleton_overlay(&Image::new(64, 64).unwrap(), &joints);
        for y in 12..50 {
            let beside = drawn.pixel(33, y).unwrap()[3];
            assert!(beside < 40, "row {y}: the column beside the joints has alpha {beside}");
            assert!(drawn.pixel(32, y).unwrap()[3] > 0, "row {y}: the joints are drawn");
        }
        assert_eq!(typical_gap(&joints[..1]), f32::INFINITY);
    }

    #[test]
    fn outline_is_exactly_the_requested_width() {
        for width in [1u32, 2, 3] {
            let img = outline(&dot(11), width, [255, 0, 0], false);
            for y in 0..11i64 {
                for x in 0..11i64 {
                    let d2 = (x - 5).pow(2) + (y - 5).pow(2);
                    let p = img.pixel(x as u32, y as u32).unwrap();
                    let expect_outline = d2 > 0 && d2 <= (width * width) as i64;
                    assert_eq!(p == [255, 0, 0, 255], expect_outline, "width {width} at ({x},{y})");
                }
            }
        }
    }

    /// The outline as it was first written (a disc of offsets tested around every pixel,
    /// O(pixels × width²)): the specification the distance transform must match byte for byte.
    fn outline_by_disc_search(image: &Image, width: u32, color: [u8; 3]) -> Image {
        let (w, h) = (image.width as i64, image.height as i64);
        let solid =
            |x: i64, y: i64| x >= 0 && y >= 0 && x < w && y < h && image.rgba[((y * w + x) * 4 + 3) as usize] >= 128;
        let (r, r2) = (width as i64, (width * width) as i64);
        let mut out = image.clone();
        for y in 0..h {
            for x in 0..w {
                let i = ((y * w + x) * 4) as usize;
                let a = image.rgba[i + 3];
                let near = (-r..=r).any(|dy| (-r..=r).any(|dx| dx * dx + dy * dy <= r2 && solid(x + dx, y + dy)));
                if a != 255 && near {
                    for (c, &oc) in color.iter().enumerate() {
                        let v = image.rgba[i + c] as u32 * a as u32 + oc as u32 * (255 - a as u32) + 127;
                        out.rgba[i + c] = (v / 255) as u8;
                    }
                    out.rgba[i + 3] = 255;
                }
            }
        }
        out
    }

    #[test]
    fn outline_matches_the_disc_search_byte_for_byte() {
        // Blobs with soft (partly transparent) edges, pixels of every alpha, near the borders.
        let (w, h) = (37u32, 29u32);
        let mut img = Image::new(w, h).unwrap();
        let mut seed = 7u32;
        for y in 0..h {
            for x in 0..w {
                seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                let blob = (x as i32 - 12).pow(2) + (y as i32 - 10).pow(2) < 40 || (x > 30 && y > 22);
                let a = if blob {
                    255
                } else if seed >> 28 == 0 {
                    (seed >> 8) as u8
                } else {
                    0
                };
                img.pixel_mut(x, y).unwrap().copy_from_slice(&[(seed >> 3) as u8, 90, (seed >> 13) as u8, a]);
            }
        }
        for width in [1u32, 2, 3, 4, 5, 8, 13, 40] {
            assert_eq!(outline(&img, width, [10, 200, 30], false), outline_by_disc_search(&img, width, [10, 200, 30]));
        }
    }

    #[test]
    fn a_soft_outline_fades_over_one_more_pixel_and_keeps_its_width() {
        let (hard, soft) = (outline(&dot(11), 2, [255, 0, 0], false), outline(&dot(11), 2, [255, 0, 0], true));
        for y in 0..11i64 {
            for x in 0..11i64 {
                let d = (((x - 5).pow(2) + (y - 5).pow(2)) as f64).sqrt();
                let (h, s) = (hard.pixel(x as u32, y as u32).unwrap(), soft.pixel(x as u32, y as u32).unwrap());
                if d <= 2.0 {
                    // The band itself is the hard outline's, byte for byte.
                    assert_eq!(s, h, "({x},{y})");
                } else {
                    // Beyond it, the red fades as the pixel leaves width + 1, and nothing else.
                    let expected = ((3.0 - d).clamp(0.0, 1.0) * 255.0).round() as u8;
                    assert_eq!(s[3], expected, "({x},{y}) at {d:.2}");
                    assert!(s[3] == 0 || s[..3] == [255, 0, 0], "({x},{y}): {s:?}");
                    assert_eq!(h[3], 0);
                }
            }
        }
    }

    #[test]
    fn a_huge_outline_width_is_cheap_and_covers_everything() {
        // The disc search would test about 7·10¹⁹ offsets per pixel; the transform does not care.
        let img = outline(&dot(9), u32::MAX, [255, 0, 0], true);
        assert!(img.rgba.chunks_exact(4).all(|p| p[3] == 255));
        assert_eq!(img.pixel(0, 0).unwrap(), [255, 0, 0, 255]);
    }
}
