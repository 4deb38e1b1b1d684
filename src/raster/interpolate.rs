//! Attribute interpolation: the perspective-correct texture coordinates, derivatives and
//! normals of the samples a pass shades, their vertex colours, and their clip depth for the
//! depth map.

use super::setup::{ColourPlanes, Triangle};
use super::shade::Fragments;

/// Perspective-correct attributes of the sample at offset (`ox`, `oy`) from the triangle's
/// bounding-box origin; only what the shader will use is computed.
#[inline(always)]
pub(super) fn interpolate(tri: &Triangle, ox: f32, oy: f32, uv: bool, normal: bool, derivatives: bool) -> Fragments<1> {
    interpolate_lanes(tri, [ox], [oy], uv, normal, derivatives)
}

/// [`interpolate`] for `L` samples at once (offsets `ox`, `oy`; a row of samples, or the
/// centroids of mixed pixels' triangles): the same arithmetic per sample, in loops over lanes
/// that compile to vector instructions.
#[inline(always)]
#[allow(clippy::needless_range_loop)] // lane loops index several arrays in step
pub(super) fn interpolate_lanes<const L: usize>(
    tri: &Triangle,
    ox: [f32; L],
    oy: [f32; L],
    uv: bool,
    normal: bool,
    derivatives: bool,
) -> Fragments<L> {
    let mut f = Fragments::<L> { back_facing: tri.back_facing, ..Fragments::default() };
    let (a, b, q) = (&tri.attrs[0], &tri.attrs[1], &tri.inv_w);
    if uv {
        // Attributes were interpolated as a/w; dividing by the interpolated 1/w restores them.
        let mut w = [0.0; L];
        for k in 0..L {
            w[k] = 1.0 / q.at(ox[k], oy[k]);
            f.u[k] = a.at(ox[k], oy[k]) * w[k];
            f.v[k] = b.at(ox[k], oy[k]) * w[k];
        }
        if derivatives {
            // d(a/w ÷ 1/w)/dx = (d(a/w)/dx − a · d(1/w)/dx) · w, likewise for y.
            for k in 0..L {
                f.du_dx[k] = (a.dx - f.u[k] * q.dx) * w[k];
                f.dv_dx[k] = (b.dx - f.v[k] * q.dx) * w[k];
                f.du_dy[k] = (a.dy - f.u[k] * q.dy) * w[k];
                f.dv_dy[k] = (b.dy - f.v[k] * q.dy) * w[k];
            }
        }
    }
    if normal {
        // Normals skip the division: they are renormalised, and a/w is parallel to a.
        for k in 0..L {
            f.nx[k] = tri.attrs[2].at(ox[k], oy[k]);
            f.ny[k] = tri.attrs[3].at(ox[k], oy[k]);
            f.nz[k] = tri.attrs[4].at(ox[k], oy[k]);
        }
    }
    f
}

/// The vertex colours (linear, premultiplied) of `L` samples (offsets as
/// [`interpolate_lanes`]) of a triangle whose colour planes are `planes`: perspective-correct,
/// kept to the corners' range (a pixel's centroid may lie just outside the triangle). Apart
/// from the [`Fragments`], so that draws without colours move no more data per fragment.
#[inline(always)]
pub(super) fn colour_lanes<const L: usize>(
    tri: &Triangle,
    planes: &ColourPlanes,
    ox: [f32; L],
    oy: [f32; L],
) -> [[f32; 4]; L] {
    std::array::from_fn(|k| {
        let w = 1.0 / tri.inv_w.at(ox[k], oy[k]);
        let alpha = (planes[3].at(ox[k], oy[k]) * w).clamp(0.0, 1.0);
        let channel = |c: usize| (planes[c].at(ox[k], oy[k]) * w).clamp(0.0, alpha);
        [channel(0), channel(1), channel(2), alpha]
    })
}

/// Clip z of `L` samples (offsets as [`interpolate_lanes`]): depth z/w and 1/w are both affine
/// in screen space, and their ratio is clip z. Only the depth map asks for it.
#[inline(always)]
pub(super) fn clip_z_lanes<const L: usize>(tri: &Triangle, ox: [f32; L], oy: [f32; L]) -> [f32; L] {
    std::array::from_fn(|k| tri.z.at(ox[k], oy[k]) / tri.inv_w.at(ox[k], oy[k]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::raster::setup::{Edge, Plane};

    #[test]
    fn lanes_interpolate_each_sample_as_one_sample_alone() {
        let plane = |base: f32, dx: f32, dy: f32| Plane { base, dx, dy };
        let edge = Edge { dx: 0, dy: 0, c: 0 };
        let tri = Triangle {
            edges: [edge; 3],
            bbox: [3, 5, 40, 50],
            z: plane(0.5, 0.0, 0.0),
            centroid_depth: 0.5,
            inv_w: plane(0.9, -0.0131, 0.0077),
            attrs: [
                plane(0.31, 0.0173, -0.0041),
                plane(0.77, -0.0029, 0.0113),
                plane(0.1, 0.03, -0.02),
                plane(-0.4, 0.011, 0.005),
                plane(0.8, -0.007, 0.013),
            ],
            material: 0,
            back_facing: true,
        };
        let ox: [f32; 8] = std::array::from_fn(|k| 2.0 + k as f32);
        let oy: [f32; 8] = std::array::from_fn(|k| 7.0 + (k % 3) as f32 * 0.25);
        let lanes = interpolate_lanes(&tri, ox, oy, true, true, true);
        for (k, (&x, &y)) in ox.iter().zip(&oy).enumerate() {
            let one = interpolate(&tri, x, y, true, true, true);
            let bits = |f: &Fragments<8>, k: usize| {
                [f.u[k], f.v[k], f.du_dx[k], f.dv_dx[k], f.du_dy[k], f.dv_dy[k], f.nx[k], f.ny[k], f.nz[k]]
                    .map(f32::to_bits)
            };
            let one_bits = [one.u, one.v, one.du_dx, one.dv_dx, one.du_dy, one.dv_dy, one.nx, one.ny, one.nz]
                .map(|[x]| x.to_bits());
            assert_eq!(clip_z_lanes(&tri, ox, oy)[k].to_bits(), clip_z_lanes(&tri, [x], [y])[0].to_bits());
            assert_eq!(bits(&lanes, k), one_bits, "lane {k}");
            let colours =
                [plane(0.4, 0.01, -0.003), plane(0.2, -0.002, 0.004), plane(0.9, 0.0, 0.0), plane(0.9, 0.0, 0.001)];
            let [one_colour] = colour_lanes(&tri, &colours, [x], [y]);
            assert_eq!(colour_lanes(&tri, &colours, ox, oy)[k].map(f32::to_bits), one_colour.map(f32::to_bits));
            assert!(one.back_facing);
        }
        assert!(lanes.back_facing);
    }
}
