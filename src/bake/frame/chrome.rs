//! GoldSrc chrome: texture coordinates that follow the view.
//!
//! A studio model's chrome texture (`STUDIO_NF_CHROME`) is an environment map: Half-Life
//! draws it with coordinates made each frame from the vertex normals and the direction the
//! bone is seen from (`R_StudioChrome`): with `d` that direction and `right` the view's right,
//! `up = d × right` and `side = d × up` (both normalised), a vertex takes
//! `s = (n · side + 1) · 32 / width` and `t = (n · up + 1) · 32 / height`. In view space (the
//! camera looks down −Z, X right) `up` is −Y and `side` −X, so `s = (1 − n_x) · 32 / width`,
//! `t = (1 − n_y) · 32 / height` for the view-space normal `n`. The sprite camera's forward
//! stands for every bone's direction: exact for orthographic cameras, and what a distant
//! perspective camera sees.

use glam::{Mat3, Mat4, Vec2, Vec3};

use crate::model::PosedMesh;
use crate::raster::Camera;

/// Texture coordinates of every chrome part of `posed` seen by `camera` (`model_to_world`
/// placing the model), one list per part: `None` for a part drawn with its stored
/// coordinates, and `None` overall when no part is chrome.
pub(in crate::bake) fn view_uvs(
    posed: &PosedMesh,
    model_to_world: Mat4,
    camera: &Camera,
) -> Option<Vec<Option<Vec<Vec2>>>> {
    if !posed.parts.iter().any(|p| p.material.chrome) {
        return None;
    }
    let to_view = Mat3::from_mat4(camera.world_to_view) * Mat3::from_mat4(model_to_world);
    let normals_to_view = to_view.inverse().transpose();
    let parts = posed.parts.iter().map(|part| {
        let texture = part.material.texture.as_ref().filter(|_| part.material.chrome)?;
        let scale = Vec2::new(32.0 / texture.width.max(1) as f32, 32.0 / texture.height.max(1) as f32);
        let uv = |n: &Vec3| {
            let n = (normals_to_view * *n).normalize_or_zero();
            (Vec2::ONE - n.truncate()) * scale
        };
        Some(part.normals.iter().map(uv).collect())
    });
    Some(parts.collect())
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;
    use std::sync::Arc;

    use super::*;
    use crate::model::{Material, PosedPart, Texture};
    use crate::raster::Projection;

    /// Where a normal lands on a 64 x 128 chrome texture, seen from a camera at `eye`
    /// looking at the origin.
    fn uv_of(normal: Vec3, eye: Vec3, chrome: bool) -> Option<Vec2> {
        let texture = Texture::new(64, 128, vec![255; 64 * 128 * 4], false).unwrap();
        let material = Material { texture: Some(Arc::new(texture)), chrome, ..Material::default() };
        let (normals, uvs, indices) = ([normal], [Vec2::ZERO], [[0, 0, 0]]);
        let part = PosedPart {
            positions: Cow::Borrowed(&[Vec3::ZERO]),
            normals: Cow::Borrowed(&normals),
            uvs: &uvs,
            colors: &[],
            indices: &indices,
            material: &material,
            shared: None,
        };
        let camera = Camera::look_at(eye, Vec3::ZERO, Projection::Orthographic, 1.0, 0.1, 100.0);
        let uvs = view_uvs(&PosedMesh { parts: vec![part] }, Mat4::IDENTITY, &camera)?;
        uvs.into_iter().next().flatten().map(|uv| uv[0])
    }

    #[test]
    fn chrome_coordinates_follow_the_view_as_half_life_makes_them() {
        let close = |a: Vec2, b: Vec2| (a - b).abs().max_element() < 1e-5;
        // Seen from +Z and from +X: a normal facing the camera takes the middle of the first
        // 64 x 64 texels, one facing the view's right the left edge, one facing up the top.
        for (eye, right) in [(Vec3::Z * 5.0, Vec3::X), (Vec3::X * 5.0, Vec3::NEG_Z)] {
            let facing = eye.normalize();
            assert!(close(uv_of(facing, eye, true).unwrap(), Vec2::new(0.5, 0.25)), "{eye}");
            assert!(close(uv_of(right, eye, true).unwrap(), Vec2::new(0.0, 0.25)), "{eye}");
            assert!(close(uv_of(Vec3::Y, eye, true).unwrap(), Vec2::new(0.5, 0.0)), "{eye}");
            assert!(close(uv_of(-right, eye, true).unwrap(), Vec2::new(1.0, 0.25)), "{eye}");
        }
        // Nothing to do without chrome.
        assert_eq!(uv_of(Vec3::Z, Vec3::Z * 5.0, false), None);
    }
}
