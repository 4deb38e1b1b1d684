//! Vertex colours as files store them, to what a mesh keeps.

/// A vertex colour as a mesh keeps it ([`crate::model::Mesh::colors`]), from the `r g b a` a
/// file stores: each channel kept to 0..1 (a non-finite one white), the colour decoded to
/// linear light where the format writes it in sRGB (OBJ and FBX, as Blender writes and reads
/// them; glTF's `COLOR_0` is linear).
pub(crate) fn vertex_colour([r, g, b, a]: [f32; 4], srgb: bool) -> [f32; 4] {
    let unit = |v: f32| if v.is_finite() { v.clamp(0.0, 1.0) } else { 1.0 };
    let colour = |v: f32| if srgb { crate::raster::srgb_to_linear_exact(unit(v)) } else { unit(v) };
    [colour(r), colour(g), colour(b), unit(a)]
}
