//! The fragment stage: material colour × texture, then lighting. Chosen once per draw by enum,
//! never through a dynamic call per pixel.

use std::sync::Arc;

use glam::{Vec2, Vec3};

use super::scene::{RenderOptions, Shading};
use super::texture::{Filter, MipChain};
use crate::model::AlphaMode;

/// A material as the fragment stage sees it.
#[derive(Debug, Clone)]
pub struct DrawMaterial {
    /// Base colour, linear, premultiplied by its own alpha.
    pub base: [f32; 4],
    /// The prepared texture, if any.
    pub texture: Option<Arc<MipChain>>,
    /// Full-size texture dimensions in texels (for the level of detail).
    pub texture_size: Vec2,
    /// Alpha handling.
    pub alpha: AlphaMode,
    /// Sample the texture at the nearest texel, whatever the render's filter.
    pub nearest: bool,
}

/// Per-draw shading state.
#[derive(Debug, Clone)]
pub struct Shader {
    shading: Shading,
    /// Unit directions towards each light, scaled by intensity.
    lights: Vec<Vec3>,
    ambient: f32,
    filter: Filter,
}

/// Inputs of one fragment.
#[derive(Clone, Copy, Default)]
pub struct Fragment {
    /// Texture coordinate.
    pub uv: Vec2,
    /// Screen-space derivatives of `uv` per sample: (du/dx, dv/dx) and (du/dy, dv/dy).
    pub duv: [Vec2; 2],
    /// Interpolated (not yet normalised) view-space normal.
    pub normal: Vec3,
    /// The triangle faces away from the camera: light its back side.
    pub back_facing: bool,
}

impl Shader {
    /// Shading state for a draw.
    pub fn new(options: &RenderOptions) -> Shader {
        let lights = options
            .lights
            .iter()
            .filter_map(|l| l.direction.try_normalize().map(|d| d * l.intensity))
            .filter(|d| d.is_finite())
            .collect();
        let ambient = if options.ambient.is_finite() { options.ambient } else { 0.0 };
        Shader { shading: options.shading, lights, ambient, filter: options.filter }
    }

    /// True when fragments need normals (lit shading).
    pub fn needs_normals(&self) -> bool {
        self.shading != Shading::Unlit
    }

    /// True when the material needs uv derivatives (trilinear filtering of a texture).
    pub fn needs_derivatives(&self, material: &DrawMaterial) -> bool {
        self.filter == Filter::Trilinear && !material.nearest && material.texture.is_some()
    }

    /// Colour of a fragment, linear premultiplied RGBA; `None` when alpha testing discards it.
    #[inline(always)]
    pub fn shade(&self, material: &DrawMaterial, f: &Fragment) -> Option<[f32; 4]> {
        self.surface(material, f).map(|c| self.lit(c, f))
    }

    /// The unlit colour of a fragment (material × texture, alpha mode applied); `None` when
    /// alpha testing discards it. [`Shader::shade`] is `surface` then [`Shader::lit`]; spans
    /// run the two stages as separate loops.
    #[inline(always)]
    pub fn surface(&self, material: &DrawMaterial, f: &Fragment) -> Option<[f32; 4]> {
        let mut c = material.base;
        if let Some(tex) = &material.texture {
            let size = material.texture_size;
            let footprint_squared = (f.duv[0] * size).length_squared().max((f.duv[1] * size).length_squared());
            let filter = if material.nearest { Filter::Nearest } else { self.filter };
            let t = tex.sample(filter, f.uv, footprint_squared);
            c = [c[0] * t[0], c[1] * t[1], c[2] * t[2], c[3] * t[3]];
        }
        match material.alpha {
            AlphaMode::Opaque => c = opaque(c),
            AlphaMode::Mask(cutoff) => {
                if c[3] < cutoff {
                    return None;
                }
                c = opaque(c);
            }
            AlphaMode::Blend => {}
        }
        Some(c)
    }

    /// A surface colour lit at a fragment.
    #[inline(always)]
    pub fn lit(&self, c: [f32; 4], f: &Fragment) -> [f32; 4] {
        let light = self.light(f);
        [c[0] * light, c[1] * light, c[2] * light, c[3]]
    }

    #[inline(always)]
    fn light(&self, f: &Fragment) -> f32 {
        let bands = match self.shading {
            Shading::Unlit => return 1.0,
            Shading::Lambert => None,
            Shading::Toon { bands } => Some(bands.max(2) as f32),
        };
        let len2 = f.normal.length_squared();
        let n = if len2 > 0.0 && len2.is_finite() { f.normal * len2.sqrt().recip() } else { Vec3::Z };
        let n = if f.back_facing { -n } else { n };
        let diffuse: f32 = self.lights.iter().map(|l| n.dot(*l).max(0.0)).sum();
        let diffuse = match bands {
            // Cel shading: snap the diffuse term to `bands` levels from unlit to fully lit.
            Some(b) => (diffuse.min(1.0) * (b - 1.0)).round() / (b - 1.0),
            None => diffuse,
        };
        self.ambient + diffuse
    }
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
