//! What every tile needs to draw one render: the set-up triangles, their materials and what
//! the fragment stage needs of each.

use super::scene::{RenderOptions, ShadingRate};
use super::setup::{ColourPlanes, PlaneNeeds, Triangle};
use super::shade::{DrawMaterial, Fragments, Shader};

/// What every tile needs to draw.
pub(super) struct DrawContext<'a> {
    /// All set-up triangles.
    pub triangles: &'a [Triangle],
    /// Their vertex colours, by triangle index; empty when no part of the draw has any.
    colours: &'a [ColourPlanes],
    /// Materials indexed by `Triangle::material`.
    pub materials: &'a [DrawMaterial],
    /// Fragment stage.
    pub shader: &'a Shader,
    /// The fragment stage of unlit materials ([`Shader::unlit`]).
    unlit: Shader,
    /// Samples per pixel side.
    pub ssaa: i32,
    /// Side in samples of the square that opaque triangles shade once: `ssaa` when shading per
    /// pixel, 1 when shading every sample.
    pub shading_block: i32,
    /// What the fragment stage needs of each material, decided once per render.
    needs: Vec<FragmentNeeds>,
    /// The background the resolve composites every pixel over (linear, premultiplied), which
    /// an additive surface adds to.
    pub background: Option<[f32; 4]>,
}

impl<'a> DrawContext<'a> {
    /// The context of one render.
    pub(super) fn new(
        triangles: &'a [Triangle],
        colours: &'a [ColourPlanes],
        materials: &'a [DrawMaterial],
        shader: &'a Shader,
        options: &RenderOptions,
    ) -> DrawContext<'a> {
        let shading_block = match options.shading_rate {
            ShadingRate::Pixel => options.ssaa as i32,
            ShadingRate::Sample => 1,
        };
        let unlit = shader.unlit();
        let needs = materials.iter().map(|m| FragmentNeeds::of(if m.unlit { &unlit } else { shader }, m)).collect();
        let background = options.background.map(super::resolve::linear_background);
        let ssaa = options.ssaa as i32;
        DrawContext { triangles, colours, materials, shader, unlit, ssaa, shading_block, needs, background }
    }

    /// The fragment stage that draws `material`.
    #[inline(always)]
    pub(super) fn shader_for(&self, material: &DrawMaterial) -> &Shader {
        if material.unlit { &self.unlit } else { self.shader }
    }

    /// Triangle `id` with its material and what shading that material needs.
    #[inline]
    pub(super) fn triangle(&self, id: u32) -> Option<(&'a Triangle, &'a DrawMaterial, FragmentNeeds)> {
        let tri = self.triangles.get(id as usize)?;
        let m = tri.material as usize;
        Some((tri, self.materials.get(m)?, *self.needs.get(m)?))
    }

    /// The colour planes of triangle `id`, whose material needs `needs`: `None` unless its
    /// part has vertex colours.
    #[inline(always)]
    pub(super) fn vertex_colours(&self, id: u32, needs: FragmentNeeds) -> Option<&'a ColourPlanes> {
        if needs.vertex_colours { self.colours.get(id as usize) } else { None }
    }
}

/// What the fragment stage of one material needs.
#[derive(Clone, Copy)]
pub(super) struct FragmentNeeds {
    pub(super) uv: bool,
    pub(super) normals: bool,
    pub(super) derivatives: bool,
    /// Its part has vertex colours.
    pub(super) vertex_colours: bool,
    /// The draw writes view depth, which needs each fragment's clip z.
    pub(super) depth: bool,
    /// An untextured, unlit material has one colour for the whole triangle.
    pub(super) constant: Option<[f32; 4]>,
}

impl FragmentNeeds {
    #[inline]
    pub(super) fn of(shader: &Shader, material: &DrawMaterial) -> FragmentNeeds {
        let uv = material.texture.is_some();
        let normals = shader.needs_normals();
        let flat = Fragments::default();
        let vertex_colours = material.vertex_colours;
        let depth = shader.needs_depth();
        let varies = uv || normals || vertex_colours || depth;
        let constant = (!varies).then(|| shader.shade(material, &flat, None, || [0.0])).flatten();
        let derivatives = shader.needs_derivatives(material);
        FragmentNeeds { uv, normals, derivatives, vertex_colours, depth, constant }
    }

    /// The planes setup builds for the triangles of a material that needs `self`: those
    /// `interpolate.rs` reads for it (uv derivatives are of textured uvs).
    pub(super) fn planes(&self) -> PlaneNeeds {
        PlaneNeeds { uv: self.uv, normals: self.normals, inv_w: self.uv || self.vertex_colours || self.depth }
    }
}
