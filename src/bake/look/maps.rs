//! Surface maps for 2D lighting: a normal map and a depth map beside a colour image, in
//! exactly its layout (the same cells, trim, padding and extrusion on a sheet; the same names
//! with a suffix for frames and renders).
//!
//! * **Rendering.** Each map is a draw of the cell's scene with the cell's camera
//!   ([`crate::raster::Renderer::render_normals`], [`crate::raster::Renderer::render_depth`]),
//!   so its coverage and alpha are the colour's. Nothing is drawn unless a map is asked for.
//! * **Normals** are view-space unit normals (the ones shading uses), renormalised after the
//!   supersampling resolve, encoded RGB = n·0.5+0.5 with x right, z towards the viewer and y up
//!   ("OpenGL", what Godot 4's `CanvasTexture` and Unity's 2D lights read), or down with
//!   [`NormalY::Down`] (Godot 3's 2D lights). Transparent pixels are (128, 128, 255, 0): an
//!   engine filtering across an edge blends towards "facing the viewer".
//! * **Depth** is linear view depth normalised over the whole output (every cell of a job),
//!   8-bit grey, white nearest: near-white reads as raised, as height maps are drawn, and the
//!   transparent background is black. Eight bits: one image format for every file of a sheet,
//!   and 256 steps over a character's depth are finer than a sprite's pixels.
//! * **Pixel art** follows the colour's filter: by area a map pixel is the alpha-weighted mean
//!   of its block's covered pixels, by mode the mean over the block's pixels of the colour it
//!   kept (renormalised for normals), so the maps keep the colour's hard edges and alpha.
//!   Maps are never reduced to a palette.
//! * **Outline** pixels face the viewer in the normal map and take the depth of the nearest
//!   sprite pixel; sprite pixels the outline made opaque keep their own values. The maps keep
//!   the colour's alpha.
//!
//! Rejected alternative: depth normalised per cell. Each cell would span black to white, so
//! the same point of the model would change grey from frame to frame and between directions.

use std::collections::VecDeque;

use glam::Vec3;

use crate::bake::look::pixel_art;
use crate::budget::bytes_for;
use crate::error::Result;
use crate::raster::{DepthImage, DepthPixel, Image, RenderOptions, Renderer, Scene};
use crate::spec::PixelArtFilter;
pub use crate::spec::{MapKind, NormalY};

/// The normal-map pixel of nothing: the flat normal, transparent.
const EMPTY_NORMAL: [u8; 4] = [128, 128, 255, 0];

/// The finished maps of one colour image (a cell, a sheet, a render).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Maps {
    /// The normal map, if asked for.
    pub normal: Option<Image>,
    /// The depth map, if asked for.
    pub depth: Option<Image>,
}

impl Maps {
    /// The map of `kind`, if present.
    pub fn get(&self, kind: MapKind) -> Option<&Image> {
        match kind {
            MapKind::Normal => self.normal.as_ref(),
            MapKind::Depth => self.depth.as_ref(),
        }
    }

    /// The maps present, normal first.
    pub fn iter(&self) -> impl Iterator<Item = (MapKind, &Image)> {
        [MapKind::Normal, MapKind::Depth].into_iter().filter_map(|k| self.get(k).map(|i| (k, i)))
    }
}

/// The file suffix of a map: TexturePacker's default `_n` for normal maps, `_depth`.
pub fn suffix(kind: MapKind) -> &'static str {
    match kind {
        MapKind::Normal => "_n",
        MapKind::Depth => "_depth",
    }
}

/// The output of a map beside the colour output `output` (a file or a frame pattern): the
/// suffix goes before the file name's extension, `walk.png` → `walk_n.png`,
/// `out/{clip}_{frame}.png` → `out/{clip}_{frame}_depth.png`.
pub fn output_of(output: &str, kind: MapKind) -> String {
    let name_start = output.rfind(std::path::is_separator).map_or(0, |i| i + 1);
    let at = match output[name_start..].rfind('.') {
        Some(dot) if dot > 0 => name_start + dot,
        _ => output.len(),
    };
    format!("{}{}{}", &output[..at], suffix(kind), &output[at..])
}

/// Gives every uncovered pixel of a sheet page's normal map (padding, gaps) the flat normal,
/// as TexturePacker fills its normal-map sheets.
pub(in crate::bake) fn fill_empty_normals(image: &mut Image) {
    image.rgba.chunks_exact_mut(4).filter(|p| p[3] == 0).for_each(|p| p.copy_from_slice(&EMPTY_NORMAL));
}

/// Bytes the maps add per pixel of every image of an output, held until it is written: the
/// finished map and the sheet or frame it goes into, and a depth render's floats until the
/// output's depth range is known.
pub fn bytes_per_pixel(maps: &[MapKind]) -> u64 {
    maps.iter()
        .map(|m| match m {
            MapKind::Normal => 2 * 4,
            MapKind::Depth => 2 * 4 + size_of::<DepthPixel>() as u64,
        })
        .sum()
}

/// Bytes the maps of images of `pixels` pixels in all take (see [`bytes_per_pixel`]).
pub fn bytes_for_images(maps: &[MapKind], pixels: u64) -> u64 {
    bytes_for(pixels, bytes_per_pixel(maps) as usize)
}

/// The maps of one image as rendered, before post-processing and before the output's depth
/// range is known.
#[derive(Debug, Clone, Default)]
pub struct SurfaceMaps {
    /// Normal-map bytes, y up.
    pub normal: Option<Image>,
    /// View depths.
    pub depth: Option<DepthImage>,
}

impl SurfaceMaps {
    /// Renders the `maps` of `scene` (none: nothing is drawn).
    ///
    /// # Errors
    /// Invalid render options (see [`Renderer::render`]).
    pub fn render(
        renderer: &Renderer,
        scene: &Scene,
        options: &RenderOptions,
        maps: &[MapKind],
    ) -> Result<SurfaceMaps> {
        let normal = maps.contains(&MapKind::Normal).then(|| renderer.render_normals(scene, options)).transpose()?;
        let depth = maps.contains(&MapKind::Depth).then(|| renderer.render_depth(scene, options)).transpose()?;
        Ok(SurfaceMaps { normal, depth })
    }

    /// Follows the pixel-art downscale of `source` (the colour render) to `small` by `filter`:
    /// each kept pixel of `small` takes the weighted mean of its block's map pixels
    /// ([`block_weights`]), renormalised for normals.
    pub fn pixelate(&mut self, source: &Image, small: &Image, factor: u32, filter: PixelArtFilter) {
        let f = factor.max(1);
        let chosen = |bx: u32, by: u32| block_weights(source, small, (bx, by, f), filter);
        if let Some(normal) = &mut self.normal {
            let mut rgba = Vec::with_capacity(small.rgba.len());
            for (bx, by) in pixels_of(small) {
                let n: Vec3 = chosen(bx, by)
                    .into_iter()
                    .filter_map(|(x, y, weight)| normal.pixel(x, y).filter(|p| p[3] > 0).map(|p| (p, weight)))
                    .map(|(p, weight)| decode_normal(p) * weight)
                    .sum();
                rgba.extend_from_slice(&n.try_normalize().map_or(EMPTY_NORMAL, encode_normal));
            }
            *normal = Image { width: small.width, height: small.height, rgba };
        }
        if let Some(depth) = &mut self.depth {
            let mut pixels = Vec::with_capacity(small.rgba.len() / 4);
            for (bx, by) in pixels_of(small) {
                let (sum, total) = chosen(bx, by)
                    .into_iter()
                    .filter_map(|(x, y, weight)| depth.pixel(x, y).filter(|p| p.alpha > 0).map(|p| (p, weight)))
                    .fold((0.0f64, 0.0f64), |(s, t), (p, w)| (s + f64::from(p.depth) * f64::from(w), t + f64::from(w)));
                pixels.push(if total > 0.0 {
                    DepthPixel { depth: (sum / total) as f32, alpha: 255 }
                } else {
                    DepthPixel::EMPTY
                });
            }
            *depth = DepthImage { width: small.width, height: small.height, pixels };
        }
    }

    /// Follows the outline that turned `before` into `after`: pixels the outline made opaque
    /// become opaque in the maps too, keeping their own values where the sprite covered them
    /// partly; pure outline pixels face the viewer and take the depth of the nearest sprite
    /// pixel.
    pub fn outline(&mut self, before: &Image, after: &Image) {
        let alpha = |image: &Image, i: usize| image.rgba.get(i * 4 + 3).copied().unwrap_or(0);
        let outlined: Vec<bool> =
            (0..after.rgba.len() / 4).map(|i| alpha(before, i) < 255 && alpha(after, i) == 255).collect();
        if let Some(normal) = &mut self.normal {
            for (pixel, _) in normal.rgba.chunks_exact_mut(4).zip(&outlined).filter(|(_, o)| **o) {
                if pixel[3] == 0 {
                    pixel.copy_from_slice(&encode_normal(Vec3::Z));
                }
                pixel[3] = 255;
            }
        }
        if let Some(depth) = &mut self.depth {
            let nearest = nearest_site_depths(depth);
            for ((pixel, _), near) in depth.pixels.iter_mut().zip(&outlined).zip(nearest).filter(|((_, o), _)| **o) {
                if pixel.alpha == 0 {
                    pixel.depth = near;
                }
                pixel.alpha = 255;
            }
        }
    }
}

/// The pixels (x, y) of block (`bx`, `by`) of `source` (`f` its pixel-art factor) that make
/// map pixel (`bx`, `by`) of the pixelated `small`, each with its weight; none when that pixel
/// is transparent. By area: every covered pixel, weighted by its alpha (as the colour was
/// averaged). By mode: the pixels of the colour the block kept, weighted alike.
fn block_weights(
    source: &Image,
    small: &Image,
    (bx, by, f): (u32, u32, u32),
    filter: PixelArtFilter,
) -> Vec<(u32, u32, f32)> {
    let Some(kept) = small.pixel(bx, by).filter(|p| p[3] > 0) else { return Vec::new() };
    let weight = |p: [u8; 4]| match filter {
        PixelArtFilter::Area => (p[3] > 0).then_some(f32::from(p[3])),
        PixelArtFilter::Mode => (p[3] >= 128 && p[..3] == kept[..3]).then_some(1.0),
    };
    pixel_art::block(bx, by, f).filter_map(|(x, y)| source.pixel(x, y).and_then(weight).map(|w| (x, y, w))).collect()
}

/// Every pixel position of an image, row by row.
fn pixels_of(image: &Image) -> impl Iterator<Item = (u32, u32)> {
    let w = image.width;
    (0..image.height).flat_map(move |y| (0..w).map(move |x| (x, y)))
}

/// A normal-map pixel's vector (y up).
fn decode_normal(p: [u8; 4]) -> Vec3 {
    Vec3::new(p[0] as f32, p[1] as f32, p[2] as f32) / 127.5 - Vec3::ONE
}

/// A unit normal's opaque normal-map pixel (y up), as the renderer encodes it.
fn encode_normal(n: Vec3) -> [u8; 4] {
    let byte = |c: f32| ((c * 0.5 + 0.5).clamp(0.0, 1.0) * 255.0 + 0.5) as u8;
    [byte(n.x), byte(n.y), byte(n.z), 255]
}

/// For every pixel, the depth of a nearest covered pixel (by steps to the 8 neighbours, ties
/// to the first reached in row order): a breadth-first search from every covered pixel at
/// once, linear in the pixels. Pixels of an image with nothing covered get 0.
fn nearest_site_depths(depth: &DepthImage) -> Vec<f32> {
    let (w, h) = (depth.width as usize, depth.height as usize);
    let mut nearest: Vec<Option<f32>> = depth.pixels.iter().map(|p| (p.alpha > 0).then_some(p.depth)).collect();
    let mut queue: VecDeque<usize> = (0..nearest.len()).filter(|&i| nearest[i].is_some()).collect();
    while let Some(i) = queue.pop_front() {
        let (x, y) = ((i % w) as i64, (i / w) as i64);
        let value = nearest[i];
        for (dx, dy) in [(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)] {
            let (nx, ny) = (x + dx, y + dy);
            if nx < 0 || ny < 0 || nx >= w as i64 || ny >= h as i64 {
                continue;
            }
            let j = ny as usize * w + nx as usize;
            if nearest[j].is_none() {
                nearest[j] = value;
                queue.push_back(j);
            }
        }
    }
    nearest.into_iter().map(|d| d.unwrap_or(0.0)).collect()
}

/// Finishes the maps of every image of one output (all cells of a job, all moments of a
/// render): the depth range is the whole output's, so one grey is one depth in every cell;
/// the normal map's y is flipped for [`NormalY::Down`].
pub fn finish(surfaces: Vec<SurfaceMaps>, normal_y: NormalY) -> Vec<Maps> {
    let covered = surfaces.iter().flat_map(|s| s.depth.iter().flat_map(|d| &d.pixels)).filter(|p| p.alpha > 0);
    let (near, far) =
        covered.fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), p| (lo.min(p.depth), hi.max(p.depth)));
    surfaces
        .into_iter()
        .map(|s| Maps {
            normal: s.normal.map(|mut image| {
                if normal_y == NormalY::Down {
                    // Negating y is mirroring its byte: (255 − g) / 127.5 − 1 = −(g / 127.5 − 1).
                    image.rgba.chunks_exact_mut(4).filter(|p| p[3] > 0).for_each(|p| p[1] = 255 - p[1]);
                }
                image
            }),
            depth: s.depth.map(|d| grey_depth(&d, near, far)),
        })
        .collect()
}

/// A depth image as 8-bit grey over `near..=far`, white nearest (all white when the range is
/// empty); uncovered pixels transparent black.
fn grey_depth(depth: &DepthImage, near: f32, far: f32) -> Image {
    let range = far - near;
    let rgba = depth
        .pixels
        .iter()
        .flat_map(|p| {
            if p.alpha == 0 {
                return [0; 4];
            }
            let t = if range > 0.0 { ((far - p.depth) / range).clamp(0.0, 1.0) } else { 1.0 };
            let v = (t * 255.0 + 0.5) as u8;
            [v, v, v, p.alpha]
        })
        .collect();
    Image { width: depth.width, height: depth.height, rgba }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn map_outputs_put_the_suffix_before_the_extension() {
        assert_eq!(output_of("walk.png", MapKind::Normal), "walk_n.png");
        assert_eq!(output_of("out/sheets.v2/walk.png", MapKind::Depth), "out/sheets.v2/walk_depth.png");
        assert_eq!(output_of("out/{clip}_{dir}_{frame:03}.png", MapKind::Normal), "out/{clip}_{dir}_{frame:03}_n.png");
        assert_eq!(output_of("out.d/walk", MapKind::Normal), "out.d/walk_n");
        assert_eq!(output_of(".hidden", MapKind::Depth), ".hidden_depth");
    }

    fn depth_image(depths: &[Option<f32>], width: u32) -> DepthImage {
        let pixels = depths
            .iter()
            .map(|d| d.map_or(DepthPixel::EMPTY, |depth| DepthPixel { depth, alpha: 255 }))
            .collect::<Vec<_>>();
        DepthImage { width, height: pixels.len() as u32 / width, pixels }
    }

    #[test]
    fn depth_is_normalised_over_every_image_of_the_output_white_nearest() {
        let a = SurfaceMaps { normal: None, depth: Some(depth_image(&[Some(2.0), None, Some(3.0)], 3)) };
        let b = SurfaceMaps { normal: None, depth: Some(depth_image(&[Some(4.0), Some(3.0), None], 3)) };
        let maps = finish(vec![a, b], NormalY::Up);
        let grey = |m: &Maps| m.depth.as_ref().unwrap().rgba.clone();
        assert_eq!(grey(&maps[0]), [255, 255, 255, 255, 0, 0, 0, 0, 128, 128, 128, 255]);
        assert_eq!(grey(&maps[1]), [0, 0, 0, 255, 128, 128, 128, 255, 0, 0, 0, 0]);
    }

    #[test]
    fn outline_pixels_take_the_depth_of_the_nearest_sprite_pixel_and_face_the_viewer() {
        // One row: sprite pixels at x = 1 (depth 5) and x = 5 (depth 9); the outline fills the rest.
        let depth = depth_image(&[None, Some(5.0), None, None, None, Some(9.0), None], 7);
        let before = Image::from_rgba(7, 1, depth.pixels.iter().flat_map(|p| [9, 9, 9, p.alpha]).collect()).unwrap();
        let after = Image::from_rgba(7, 1, [9, 9, 9, 255].repeat(7)).unwrap();
        let normal = Image::from_rgba(7, 1, before.rgba.chunks(4).flat_map(|p| [200, 60, 128, p[3]]).collect());
        let mut maps = SurfaceMaps { normal, depth: Some(depth) };
        maps.outline(&before, &after);
        let depths: Vec<f32> = maps.depth.unwrap().pixels.iter().map(|p| p.depth).collect();
        assert_eq!(depths, [5.0, 5.0, 5.0, 5.0, 9.0, 9.0, 9.0]);
        let normal = maps.normal.unwrap();
        assert_eq!(normal.pixel(0, 0), Some([128, 128, 255, 255]));
        assert_eq!(normal.pixel(1, 0), Some([200, 60, 128, 255]));
    }

    #[test]
    fn pixel_art_maps_average_what_the_colour_averaged() {
        // One 2×2 block: red and blue samples (normals tilted left and right, depths 2 and 4),
        // a faint one (alpha 85, depth 8) and an empty one.
        let source = Image::from_rgba(2, 2, [[250, 0, 0, 255], [0, 0, 250, 255], [9, 9, 9, 85], [0; 4]].concat());
        let source = source.unwrap();
        let (left, right) = (Vec3::new(-0.6, 0.0, 0.8), Vec3::new(0.6, 0.0, 0.8));
        let normals = [encode_normal(left), encode_normal(right), encode_normal(Vec3::Y), EMPTY_NORMAL].concat();
        let depth = depth_image(&[Some(2.0), Some(4.0), Some(8.0), None], 2);
        let follow = |filter: PixelArtFilter| {
            let small = pixel_art::pixelate(&source, 2, filter);
            let normal = Image::from_rgba(2, 2, normals.clone());
            let mut maps = SurfaceMaps { normal, depth: Some(depth.clone()) };
            maps.pixelate(&source, &small, 2, filter);
            (maps.normal.unwrap().rgba, maps.depth.unwrap().pixels[0])
        };
        // By area: every covered sample, weighted by its alpha.
        let (normal, depth) = follow(PixelArtFilter::Area);
        let decoded = |n: Vec3| decode_normal(encode_normal(n));
        let expected = decoded(left) * 255.0 + decoded(right) * 255.0 + decoded(Vec3::Y) * 85.0;
        assert_eq!(normal, encode_normal(expected.normalize()));
        assert!((depth.depth - (2.0 * 255.0 + 4.0 * 255.0 + 8.0 * 85.0) / 595.0).abs() < 1e-5, "{depth:?}");
        // By mode: the samples of the colour kept (red, the first of a tie).
        let (normal, depth) = follow(PixelArtFilter::Mode);
        assert_eq!(normal, encode_normal(decoded(left).normalize()));
        assert_eq!(depth, DepthPixel { depth: 2.0, alpha: 255 });
    }

    #[test]
    fn y_down_mirrors_the_green_of_covered_pixels_only() {
        let normal = Image::from_rgba(2, 1, vec![40, 200, 220, 255, 128, 128, 255, 0]).unwrap();
        let [maps] = finish(vec![SurfaceMaps { normal: Some(normal), depth: None }], NormalY::Down).try_into().unwrap();
        assert_eq!(maps.normal.unwrap().rgba, [40, 55, 220, 255, 128, 128, 255, 0]);
    }
}
