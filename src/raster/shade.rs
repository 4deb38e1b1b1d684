//! The fragment stage: material colour × texture, then lighting — or, for the surface maps of
//! 2D lighting, the fragment's normal or view depth in place of the lit colour. Chosen once per
//! draw by enum, never through a dynamic call per pixel.
//!
//! Every output is premultiplied by the surface's alpha (coverage and alpha testing are the
//! colour's), so the resolve averages a normal or a depth exactly as it averages a colour, and
//! a map's alpha is the colour image's alpha.

use std::sync::Arc;

use glam::{Vec2, Vec3};

use super::scene::{RenderOptions, Shading};
use super::texture::{Filter, MipChain};
use crate::model::AlphaMode;

/// A material as the fragment stage sees it.
#[derive(Debug, Clone)]
pub(super) struct DrawMaterial {
    /// Base colour, linear, premultiplied by its own alpha.
    pub base: [f32; 4],
    /// The prepared texture, if any.
    pub texture: Option<Arc<MipChain>>,
    /// The part of the texture that glows whatever the light ([`MipChain::glow`]), if any.
    pub glow: Option<Arc<MipChain>>,
    /// Full-size texture dimensions in texels (for the level of detail).
    pub texture_size: Vec2,
    /// Alpha handling.
    pub alpha: AlphaMode,
    /// Its part has vertex colours, which multiply the base colour and texture.
    pub vertex_colours: bool,
    /// Drawn in its own colour whatever the light ([`crate::model::Material::unlit`]): shaded
    /// by the draw's unlit shader ([`Shader::unlit`]).
    pub unlit: bool,
    /// Sample the texture at the nearest texel where it is magnified, whatever the render's
    /// filter.
    pub nearest: bool,
    /// The filter where the texture is minified, if the model chose one.
    pub minify: Option<Filter>,
}

#[cfg(test)]
impl DrawMaterial {
    /// An untextured opaque material of colour `base` (tests).
    pub(super) fn opaque(base: [f32; 4]) -> DrawMaterial {
        DrawMaterial {
            base,
            texture: None,
            glow: None,
            texture_size: Vec2::ONE,
            alpha: AlphaMode::Opaque,
            vertex_colours: false,
            unlit: false,
            nearest: false,
            minify: None,
        }
    }
}

/// What the fragment stage writes for each fragment, before the resolve averages it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum FragmentOutput {
    /// The lit colour (linear, premultiplied).
    Color,
    /// The view-space unit normal, the one lighting uses (flipped on back faces), times alpha.
    Normal,
    /// The linear view depth (distance in front of the camera along its axis), times alpha.
    ViewDepth {
        /// The projection's `z_clip = a · z_view + b` (perspective and orthographic cameras
        /// take clip z from view z alone), inverted per fragment.
        a: f32,
        /// See `a`.
        b: f32,
    },
}

/// Per-draw shading state.
#[derive(Debug, Clone)]
pub(super) struct Shader {
    shading: Shading,
    /// Unit directions towards each light, scaled by intensity.
    lights: Vec<Vec3>,
    ambient: f32,
    filter: Filter,
    /// Whether materials' own filters win over `filter` ([`RenderOptions::model_filters`]).
    model_filters: bool,
    output: FragmentOutput,
}

/// The inputs of `L` fragments of one triangle, structure-of-arrays so that loops over the
/// lanes compile to vector instructions; one fragment is `Fragments<1>`. Unused attributes
/// stay zero (normals: +Z).
#[derive(Clone, Copy)]
pub(super) struct Fragments<const L: usize> {
    /// Texture coordinates.
    pub u: [f32; L],
    /// Texture coordinates.
    pub v: [f32; L],
    /// Screen-space derivatives of the texture coordinates per sample.
    pub du_dx: [f32; L],
    /// As `du_dx`.
    pub dv_dx: [f32; L],
    /// As `du_dx`.
    pub du_dy: [f32; L],
    /// As `du_dx`.
    pub dv_dy: [f32; L],
    /// Interpolated (not yet normalised) view-space normals.
    pub nx: [f32; L],
    /// As `nx`.
    pub ny: [f32; L],
    /// As `nx`.
    pub nz: [f32; L],
    /// The triangle faces away from the camera.
    pub back_facing: bool,
}

impl<const L: usize> Default for Fragments<L> {
    fn default() -> Self {
        let zero = [0.0; L];
        Fragments {
            u: zero,
            v: zero,
            du_dx: zero,
            dv_dx: zero,
            du_dy: zero,
            dv_dy: zero,
            nx: zero,
            ny: zero,
            nz: [1.0; L],
            back_facing: false,
        }
    }
}

impl<const L: usize> Fragments<L> {
    /// Scales the uv derivatives (supersampling shades a pixel for a finer footprint).
    pub(super) fn scale_derivatives(&mut self, scale: f32) {
        for d in [&mut self.du_dx, &mut self.dv_dx, &mut self.du_dy, &mut self.dv_dy] {
            *d = d.map(|x| x * scale);
        }
    }
}

impl Shader {
    /// Shading state for a draw writing `output`.
    pub(super) fn new(options: &RenderOptions, output: FragmentOutput) -> Shader {
        let lights = options
            .lights
            .iter()
            .filter_map(|l| l.direction.try_normalize().map(|d| d * l.intensity))
            .filter(|d| d.is_finite())
            .collect();
        let ambient = if options.ambient.is_finite() { options.ambient } else { 0.0 };
        let model_filters = options.model_filters;
        Shader { shading: options.shading, lights, ambient, filter: options.filter, model_filters, output }
    }

    /// This shader with its lighting off: what an unlit material is drawn with. A shader of
    /// its own rather than a test in the fragment loop, which cost a dense draw 8%. Made for
    /// every draw, so it takes no lights (an unlit shader reads none): no allocation.
    pub(super) fn unlit(&self) -> Shader {
        let Shader { ambient, filter, model_filters, output, .. } = *self;
        Shader { shading: Shading::Unlit, lights: Vec::new(), ambient, filter, model_filters, output }
    }

    /// True when fragments need normals (lit colour, or the normal itself).
    pub(super) fn needs_normals(&self) -> bool {
        match self.output {
            FragmentOutput::Color => self.shading != Shading::Unlit,
            FragmentOutput::Normal => true,
            FragmentOutput::ViewDepth { .. } => false,
        }
    }

    /// True when the output is view depth, which needs each fragment's clip z.
    pub(super) fn needs_depth(&self) -> bool {
        matches!(self.output, FragmentOutput::ViewDepth { .. })
    }

    /// True when the material needs uv derivatives: trilinear filtering of a texture, or
    /// another filter where it is magnified than where it is minified.
    pub(super) fn needs_derivatives(&self, material: &DrawMaterial) -> bool {
        let (magnify, minify) = self.filters(material);
        material.texture.is_some() && (magnify != minify || minify == Filter::Trilinear)
    }

    /// The filters of `material`'s texture where it is magnified and where it is minified: the
    /// model's own where it chose them (glTF `magFilter`, `minFilter`) unless the render's
    /// filter was given, else the render's. A
    /// pixel-art model's `magFilter: NEAREST` keeps texels crisp up close and still minifies
    /// through mip levels (a 1-texel checker far away is grey, not noise).
    fn filters(&self, material: &DrawMaterial) -> (Filter, Filter) {
        if !self.model_filters {
            return (self.filter, self.filter);
        }
        let magnify = if material.nearest { Filter::Nearest } else { self.filter };
        (magnify, material.minify.unwrap_or(self.filter))
    }

    /// Whether the fragments are lit colours (not a surface map's normals or depths).
    pub(super) fn draws_color(&self) -> bool {
        matches!(self.output, FragmentOutput::Color)
    }

    /// Output of a fragment (see [`FragmentOutput`]), premultiplied RGBA; `None` when alpha
    /// testing discards it. `clip_z` gives the fragment's clip z, asked for only by depth.
    #[inline(always)]
    pub(super) fn shade(
        &self,
        material: &DrawMaterial,
        f: &Fragments<1>,
        vertex_colour: Option<&[[f32; 4]; 1]>,
        clip_z: impl FnOnce() -> [f32; 1],
    ) -> Option<[f32; 4]> {
        let surfaces = self.surface(material, f, vertex_colour, 1);
        let glow = self.glow(material, f, 1);
        let [out] = self.finish(&surfaces, glow.as_ref(), f, clip_z);
        surfaces[0].map(|_| out)
    }

    /// The unlit colours of the first `count` of `L` fragments (material × their
    /// `vertex_colours`, where the part has them, × texture, alpha mode applied; the other lanes
    /// `None`); `None` where alpha testing discards a fragment.
    /// [`Shader::shade`] is `surface` (and [`Shader::glow`]), then [`Shader::finish`]; spans run
    /// the stages as separate loops.
    #[inline(always)]
    pub(super) fn surface<const L: usize>(
        &self,
        material: &DrawMaterial,
        f: &Fragments<L>,
        vertex_colours: Option<&[[f32; 4]; L]>,
        count: usize,
    ) -> [Option<[f32; 4]>; L] {
        let count = count.min(L);
        let mut colors = [material.base; L];
        if let Some(vertex) = vertex_colours {
            for (c, v) in colors.iter_mut().zip(vertex) {
                *c = [c[0] * v[0], c[1] * v[1], c[2] * v[2], c[3] * v[3]];
            }
        }
        if let Some(tex) = &material.texture {
            let texels = self.sample(tex, material, f, footprints(material, f), count);
            for (c, t) in colors.iter_mut().zip(&texels) {
                *c = [c[0] * t[0], c[1] * t[1], c[2] * t[2], c[3] * t[3]];
            }
        }
        let mut out = [None; L];
        for (o, &c) in out.iter_mut().zip(&colors).take(count) {
            *o = match material.alpha {
                AlphaMode::Opaque => Some(opaque(c)),
                AlphaMode::Mask(cutoff) if c[3] < cutoff => None,
                AlphaMode::Mask(_) => Some(opaque(c)),
                AlphaMode::Blend | AlphaMode::Additive | AlphaMode::Multiply => Some(c),
            };
        }
        out
    }

    /// The glowing part of the first `count` of `L` fragments' colours, scaled as
    /// [`Shader::surface`] scales the colours; `None` for a material without glow.
    #[inline(always)]
    pub(super) fn glow<const L: usize>(
        &self,
        material: &DrawMaterial,
        f: &Fragments<L>,
        count: usize,
    ) -> Option<[[f32; 3]; L]> {
        material.glow.as_ref().map(|chain| self.glow_lanes(chain, material, f, count.min(L)))
    }

    /// [`Shader::glow`] from `chain`, a texture's glowing texels with the colour chain's alpha
    /// ([`MipChain::glow`]). Out of line: only Quake 1 skins glow, and their sampling beside
    /// the colours' in every draw's loop cost the others 5% (ogro.md2's bench).
    #[inline(never)]
    fn glow_lanes<const L: usize>(
        &self,
        chain: &MipChain,
        material: &DrawMaterial,
        f: &Fragments<L>,
        count: usize,
    ) -> [[f32; 3]; L] {
        let b = material.base;
        let texels = self.sample(chain, material, f, footprints(material, f), count);
        // The glowing part follows its colour to straight alpha where the colour goes.
        let blended = material.alpha.is_blended();
        texels.map(|t| {
            let scale = if blended { 1.0 } else { straight(b[3] * t[3]) };
            [b[0] * t[0] * scale, b[1] * t[1] * scale, b[2] * t[2] * scale]
        })
    }

    /// `chain` sampled at the first `count` of `L` fragments with `material`'s filters.
    #[inline(always)]
    fn sample<const L: usize>(
        &self,
        chain: &MipChain,
        material: &DrawMaterial,
        f: &Fragments<L>,
        footprint_squared: [f32; L],
        count: usize,
    ) -> [[f32; 4]; L] {
        let (magnify, minify) = self.filters(material);
        if magnify == minify {
            return chain.sample_lanes(minify, f.u, f.v, footprint_squared, count);
        }
        // A texel spanning at most one pixel is magnified.
        let near = chain.sample_lanes(magnify, f.u, f.v, footprint_squared, count);
        let far = chain.sample_lanes(minify, f.u, f.v, footprint_squared, count);
        std::array::from_fn(|k| if footprint_squared[k] <= 1.0 { near[k] } else { far[k] })
    }

    /// What the draw writes for `L` fragments whose surfaces are `surfaces` (transparent
    /// where `None`): the lit colour, or the normal or view depth with the surface's alpha,
    /// premultiplied. `clip_z` gives the fragments' clip z; only depth calls it, so the colour
    /// draw does no work for the maps.
    #[inline(always)]
    pub(super) fn finish<const L: usize>(
        &self,
        surfaces: &[Option<[f32; 4]>; L],
        glow: Option<&[[f32; 3]; L]>,
        f: &Fragments<L>,
        clip_z: impl FnOnce() -> [f32; L],
    ) -> [[f32; 4]; L] {
        if !matches!(self.output, FragmentOutput::Color) {
            return self.finish_map(surfaces, f, clip_z);
        }
        let light = self.light(f.nx, f.ny, f.nz, f.back_facing);
        let mut out = [[0.0; 4]; L];
        match glow {
            None => {
                for ((o, surface), light) in out.iter_mut().zip(surfaces).zip(light) {
                    *o = surface.map_or([0.0; 4], |c| lit(c, light));
                }
            }
            Some(glow) => {
                for (((o, surface), light), g) in out.iter_mut().zip(surfaces).zip(light).zip(glow) {
                    *o = surface.map_or([0.0; 4], |c| lit_glowing(c, *g, light));
                }
            }
        }
        out
    }

    /// [`Shader::finish`] for the maps, kept out of line so that the colour draw's code stays
    /// as it is without them.
    #[inline(never)]
    fn finish_map<const L: usize>(
        &self,
        surfaces: &[Option<[f32; 4]>; L],
        f: &Fragments<L>,
        clip_z: impl FnOnce() -> [f32; L],
    ) -> [[f32; 4]; L] {
        let mut out = [[0.0; 4]; L];
        match self.output {
            FragmentOutput::Color => {}
            FragmentOutput::Normal => {
                let (x, y, z) = unit_normals(f.nx, f.ny, f.nz, f.back_facing);
                for (k, (o, surface)) in out.iter_mut().zip(surfaces).enumerate() {
                    *o = surface.map_or([0.0; 4], |c| [x[k] * c[3], y[k] * c[3], z[k] * c[3], c[3]]);
                }
            }
            FragmentOutput::ViewDepth { a, b } => {
                for ((o, surface), z) in out.iter_mut().zip(surfaces).zip(clip_z()) {
                    // z_clip = a · z_view + b, and the camera looks down −z.
                    let depth = (b - z) / a;
                    *o = surface.map_or([0.0; 4], |c| [depth * c[3], 0.0, 0.0, c[3]]);
                }
            }
        }
        out
    }

    /// The light falling on `L` fragments with (not yet normalised) normals `nx`, `ny`, `nz`:
    /// ambient plus the diffuse term of each light, banded for toon shading.
    #[inline(always)]
    pub(super) fn light<const L: usize>(
        &self,
        nx: [f32; L],
        ny: [f32; L],
        nz: [f32; L],
        back_facing: bool,
    ) -> [f32; L] {
        let bands = match self.shading {
            Shading::Unlit => return [1.0; L],
            Shading::Lambert => None,
            Shading::Toon { bands } => Some(bands.max(2) as f32),
        };
        let (x, y, z) = unit_normals(nx, ny, nz, back_facing);
        let mut diffuse = [0.0f32; L];
        for l in &self.lights {
            for k in 0..L {
                diffuse[k] += (x[k] * l.x + y[k] * l.y + z[k] * l.z).max(0.0);
            }
        }
        let mut light = [0.0; L];
        for k in 0..L {
            let d = match bands {
                // Cel shading: snap the diffuse term to `bands` levels from unlit to fully lit.
                Some(b) => (diffuse[k].min(1.0) * (b - 1.0)).round() / (b - 1.0),
                None => diffuse[k],
            };
            light[k] = self.ambient + d;
        }
        light
    }
}

/// Interpolated normals made unit length and turned towards the viewer on back faces; a
/// degenerate normal faces the camera (+Z).
#[inline(always)]
#[allow(clippy::type_complexity)] // three lanes of coordinates, as the caller holds them
fn unit_normals<const L: usize>(
    mut x: [f32; L],
    mut y: [f32; L],
    mut z: [f32; L],
    back_facing: bool,
) -> ([f32; L], [f32; L], [f32; L]) {
    let sign = if back_facing { -1.0 } else { 1.0 };
    for k in 0..L {
        let len2 = x[k] * x[k] + y[k] * y[k] + z[k] * z[k];
        let scale = if len2 > 0.0 && len2.is_finite() { 1.0 / len2.sqrt() } else { 0.0 };
        (x[k], y[k], z[k]) = if scale > 0.0 {
            (sign * (x[k] * scale), sign * (y[k] * scale), sign * (z[k] * scale))
        } else {
            (0.0, 0.0, sign)
        };
    }
    (x, y, z)
}

/// A surface colour under `light`.
#[inline(always)]
pub(super) fn lit(c: [f32; 4], light: f32) -> [f32; 4] {
    [c[0] * light, c[1] * light, c[2] * light, c[3]]
}

/// How many texels of `material`'s texture (squared) each of `L` fragments spans, for the
/// level of detail.
#[inline(always)]
fn footprints<const L: usize>(material: &DrawMaterial, f: &Fragments<L>) -> [f32; L] {
    let size = material.texture_size;
    std::array::from_fn(|k| {
        let (dx, dy) = (Vec2::new(f.du_dx[k], f.dv_dx[k]), Vec2::new(f.du_dy[k], f.dv_dy[k]));
        (dx * size).length_squared().max((dy * size).length_squared())
    })
}

/// A surface colour whose glowing part is `glow` under `light`: the rest lit, the glowing
/// part as it is (exact at light 0 and 1).
#[inline(always)]
fn lit_glowing(c: [f32; 4], glow: [f32; 3], light: f32) -> [f32; 4] {
    let dark = 1.0 - light;
    [c[0] * light + glow[0] * dark, c[1] * light + glow[1] * dark, c[2] * light + glow[2] * dark, c[3]]
}

/// What [`opaque`] multiplies a colour of alpha `a` by.
#[inline]
fn straight(a: f32) -> f32 {
    if a > 0.0 && a != 1.0 { 1.0 / a } else { 1.0 }
}

/// Drops a premultiplied colour's alpha to 1, keeping its straight colour.
#[inline]
fn opaque(c: [f32; 4]) -> [f32; 4] {
    if c[3] > 0.0 && c[3] != 1.0 {
        let inv = 1.0 / c[3];
        [c[0] * inv, c[1] * inv, c[2] * inv, 1.0]
    } else {
        [c[0], c[1], c[2], 1.0]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::raster::scene::Light;

    #[test]
    fn lanes_light_each_fragment_as_one_fragment_alone() {
        let lights = vec![
            Light { direction: Vec3::new(0.3, 0.8, 0.5), intensity: 0.9 },
            Light { direction: Vec3::new(-0.6, 0.1, 0.4), intensity: 0.35 },
        ];
        // Normals of every kind: unnormalised, facing away from both lights, degenerate.
        let nx = [0.2, -3.0, 0.0, 1e-30, 0.5, f32::NAN, 7.0, -0.1];
        let ny = [0.9, 0.5, 0.0, 0.0, -0.5, 0.0, 0.01, -0.9];
        let nz = [0.1, 2.0, 0.0, 0.0, 0.5, 1.0, -3.0, -0.2];
        for shading in [Shading::Lambert, Shading::Toon { bands: 3 }, Shading::Unlit] {
            let options = RenderOptions { shading, lights: lights.clone(), ssaa: 1, ..RenderOptions::default() };
            let shader = Shader::new(&options, FragmentOutput::Color);
            for back_facing in [false, true] {
                let lanes = shader.light(nx, ny, nz, back_facing);
                for k in 0..8 {
                    let [one] = shader.light([nx[k]], [ny[k]], [nz[k]], back_facing);
                    assert_eq!(lanes[k].to_bits(), one.to_bits(), "{shading:?} lane {k}");
                }
            }
        }
    }
}
