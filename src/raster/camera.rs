//! Cameras: an orbit around the model given by yaw and pitch, fitted so the model fills the image.
//!
//! Coordinates are the renderer's canonical world frame: Y up, the model facing +Z. At yaw 0 and
//! pitch 0 the camera sits on +Z looking at the model's front. Positive yaw moves the camera
//! counter-clockwise seen from above (towards +X), positive pitch raises it.

use glam::camera::rh::proj::directx::{orthographic, perspective};
use glam::camera::rh::view::look_at_mat4;
use glam::{Mat3, Mat4, Vec3};

/// How the camera projects.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Projection {
    /// Parallel projection: no foreshortening (sprites, isometric views).
    Orthographic,
    /// Perspective with this vertical field of view in degrees.
    Perspective {
        /// Vertical field of view, degrees.
        fov_y_degrees: f32,
    },
}

impl Default for Projection {
    fn default() -> Self {
        Projection::Perspective { fov_y_degrees: 30.0 }
    }
}

/// Where to look from and how much room to leave around the model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OrbitView {
    /// Rotation around the vertical axis, degrees. 0 looks at the model's front.
    pub yaw_degrees: f32,
    /// Elevation above the horizon, degrees (clamped to ±89.9).
    pub pitch_degrees: f32,
    /// Projection.
    pub projection: Projection,
    /// Empty border on each side, as a fraction of the image (0.05 = 5%).
    pub margin: f32,
}

impl Default for OrbitView {
    /// The model's front seen from 15° above, perspective with a 30° field of view, 5% margin:
    /// the defaults of every command (`crate::spec::ViewSpec` takes its defaults from here).
    fn default() -> Self {
        OrbitView { yaw_degrees: 0.0, pitch_degrees: 15.0, projection: Projection::default(), margin: 0.05 }
    }
}

impl OrbitView {
    /// 2:1 pixel-art "isometric": orthographic, 30° elevation, the model's front facing the
    /// camera. The classic 45° is between the camera and the game's tile grid, not the model:
    /// a character facing the viewer faces down the screen, along a grid diagonal; a
    /// grid-aligned building shows its corner at yaw 45.
    pub const ISOMETRIC_2_1: OrbitView =
        OrbitView { yaw_degrees: 0.0, pitch_degrees: 30.0, projection: Projection::Orthographic, margin: 0.05 };

    /// Rotation from world to view axes (camera looking down −Z, Y up).
    pub fn world_to_view_rotation(&self) -> Mat3 {
        let yaw = self.yaw_degrees.to_radians();
        let pitch = self.pitch_degrees.clamp(-89.9, 89.9).to_radians();
        // Turning the camera by +yaw around Y is turning the world by −yaw; likewise pitch.
        Mat3::from_rotation_x(pitch) * Mat3::from_rotation_y(-yaw)
    }
}

/// A camera: the world → view and view → clip transforms.
///
/// Clip space follows glam's `*_rh` conventions: depth 0 at the near plane, 1 at the far plane.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Camera {
    /// World → view (camera looks down −Z, Y up).
    pub world_to_view: Mat4,
    /// View → clip.
    pub view_to_clip: Mat4,
}

impl Camera {
    /// A camera at `eye` looking at `target`.
    pub fn look_at(eye: Vec3, target: Vec3, projection: Projection, aspect: f32, near: f32, far: f32) -> Camera {
        let world_to_view = look_at_mat4(eye, target, Vec3::Y);
        let view_to_clip = match projection {
            Projection::Perspective { fov_y_degrees } => perspective(fov_y_degrees.to_radians(), aspect, near, far),
            Projection::Orthographic => {
                let half_h = (target - eye).length() * 0.5;
                orthographic(-half_h * aspect, half_h * aspect, -half_h, half_h, near, far)
            }
        };
        Camera { world_to_view, view_to_clip }
    }

    /// World → clip.
    pub fn world_to_clip(&self) -> Mat4 {
        self.view_to_clip * self.world_to_view
    }

    /// Pixel position (x right, y down, pixel centres at .5) of a world point in a
    /// `width × height` image.
    pub fn world_to_pixel(&self, p: Vec3, width: u32, height: u32) -> glam::Vec2 {
        let ndc = self.world_to_clip().project_point3(p);
        glam::Vec2::new((ndc.x * 0.5 + 0.5) * width as f32, (0.5 - ndc.y * 0.5) * height as f32)
    }

    /// The camera of `view` orbiting a bounding sphere: it looks at `center` from far enough
    /// that the sphere of `radius` fits the vertical field of view, with `1 + view.margin` to
    /// spare (margin 0.05 is the framing of the glrender peer and of most model viewers).
    ///
    /// Unlike [`Camera::fit`], the framing does not depend on the yaw or on the pose, so an orbit
    /// or an animation keeps one scale; it leaves more empty space around tall, thin models.
    pub fn orbit_sphere(view: &OrbitView, center: Vec3, radius: f32, aspect: f32) -> Camera {
        let radius = if radius.is_finite() && radius > 0.0 { radius } else { 1.0 };
        let center = if center.is_finite() { center } else { Vec3::ZERO };
        let aspect = if aspect.is_finite() && aspect > 0.0 { aspect } else { 1.0 };
        let grow = 1.0 + view.margin.clamp(0.0, 1.0);
        let rotation = view.world_to_view_rotation();
        let (distance, view_to_clip) = match view.projection {
            Projection::Perspective { fov_y_degrees } => {
                let half = (fov_y_degrees.clamp(1.0, 170.0) * 0.5).to_radians();
                // A sphere of radius r seen from distance d subtends asin(r / d) each side.
                let d = radius / half.sin() * grow;
                // The peer's near and far planes: 10% of the radius beyond the sphere.
                let near = (d - 1.1 * radius).max(d * 0.01);
                (d, perspective(2.0 * half, aspect, near, d + 1.1 * radius))
            }
            Projection::Orthographic => {
                let h = radius * grow;
                let d = 2.0 * h;
                (d, orthographic(-h * aspect, h * aspect, -h, h, d - 1.1 * radius, d + 1.1 * radius))
            }
        };
        let eye_view = rotation * center + Vec3::new(0.0, 0.0, distance);
        let world_to_view = Mat4::from_translation(-eye_view) * Mat4::from_mat3(rotation);
        Camera { world_to_view, view_to_clip }
    }

    /// An orthographic camera of `view` at a fixed scale: one world unit spans
    /// `pixels_per_unit` pixels and `anchor` (world space) lands on pixel `pivot` (x right, y
    /// down; integer values are pixel corners) of a `width × height` image, whatever the yaw
    /// or pose. `reach` bounds how far anything drawn lies from `anchor` (it sets the depth
    /// range).
    pub fn orthographic_at_scale(
        view: &OrbitView,
        anchor: Vec3,
        pixels_per_unit: f32,
        pivot: glam::Vec2,
        (width, height): (u32, u32),
        reach: f32,
    ) -> Camera {
        let rotation = view.world_to_view_rotation();
        let reach = if reach.is_finite() { reach.max(1e-3) } else { 1.0 };
        let scale = if pixels_per_unit.is_finite() && pixels_per_unit > 0.0 { pixels_per_unit } else { 1.0 };
        // The eye sits `2 × reach` in front of the anchor, so everything within `reach` of it
        // lies between the near and far planes.
        let eye_view = rotation * anchor + Vec3::new(0.0, 0.0, 2.0 * reach);
        let world_to_view = Mat4::from_translation(-eye_view) * Mat4::from_mat3(rotation);
        // View x = (pixel x − pivot x) / scale; view y = (pivot y − pixel y) / scale.
        let (w, h) = (width as f32, height as f32);
        let (left, right) = (-pivot.x / scale, (w - pivot.x) / scale);
        let (bottom, top) = ((pivot.y - h) / scale, pivot.y / scale);
        Camera { world_to_view, view_to_clip: orthographic(left, right, bottom, top, reach, 3.0 * reach) }
    }

    /// The camera that shows the window `(x, y, w, h)` (pixels, x right, y down) of what this
    /// camera shows in a `width × height` image, as a whole `w × h` image: the same view cut
    /// (or extended) to the window. Works for both projections (it remaps clip x and y).
    pub fn cropped(&self, (width, height): (u32, u32), (x, y, w, h): (f32, f32, f32, f32)) -> Camera {
        let (cw, ch, w, h) = (width as f32, height as f32, w.max(1e-6), h.max(1e-6));
        // Old pixel X = (ndc.x + 1) · cw / 2; new ndc.x = 2 (X − x) / w − 1, and likewise for y
        // with y pointing down: an affine map of ndc, applied to clip space as ndc · clip.w.
        let (sx, tx) = (cw / w, (cw - 2.0 * x) / w - 1.0);
        let (sy, ty) = (ch / h, 1.0 - (ch - 2.0 * y) / h);
        let remap = Mat4::from_cols(
            glam::Vec4::new(sx, 0.0, 0.0, 0.0),
            glam::Vec4::new(0.0, sy, 0.0, 0.0),
            glam::Vec4::Z,
            glam::Vec4::new(tx, ty, 0.0, 1.0),
        );
        Camera { world_to_view: self.world_to_view, view_to_clip: remap * self.view_to_clip }
    }

    /// The camera of `view` fitted to `points` (world space) for an image of `aspect` = width /
    /// height: every point lands inside the image with `view.margin` to spare, centred.
    /// With no finite point the camera looks at a unit box at the origin.
    pub fn fit(view: &OrbitView, points: &[Vec3], aspect: f32) -> Camera {
        let rotation = view.world_to_view_rotation();
        let mut lo = Vec3::splat(f32::INFINITY);
        let mut hi = Vec3::splat(f32::NEG_INFINITY);
        for p in points.iter().filter(|p| p.is_finite()) {
            let v = rotation * *p;
            lo = lo.min(v);
            hi = hi.max(v);
        }
        if lo.x > hi.x {
            lo = Vec3::splat(-0.5);
            hi = Vec3::splat(0.5);
        }
        let aspect = if aspect.is_finite() && aspect > 0.0 { aspect } else { 1.0 };
        let fill = (1.0 - 2.0 * view.margin.clamp(0.0, 0.45)).max(0.1);
        let center = (lo + hi) * 0.5;
        // Keep a sane size for flat or point-like models.
        let depth = (hi.z - lo.z).max((hi - lo).max_element() * 0.01).max(1e-3);
        let view_to_clip;
        let eye_view; // eye position in the rotated (view-axis) frame
        match view.projection {
            Projection::Orthographic => {
                let half_h = ((hi.y - lo.y) * 0.5).max((hi.x - lo.x) * 0.5 / aspect).max(1e-4) / fill;
                let pad = depth * 0.5 + half_h;
                eye_view = Vec3::new(center.x, center.y, hi.z + pad);
                view_to_clip =
                    orthographic(-half_h * aspect, half_h * aspect, -half_h, half_h, pad * 0.5, pad + depth + pad);
            }
            Projection::Perspective { fov_y_degrees } => {
                let fov = fov_y_degrees.clamp(1.0, 170.0).to_radians();
                let tan_y = (fov * 0.5).tan() * fill;
                let tan_x = tan_y * aspect;
                // The camera must be far enough back that every point is inside the frustum:
                // |p.x − c.x| ≤ tan_x · (eye.z − p.z), likewise for y.
                let mut eye_z = hi.z + 1e-3;
                for p in points.iter().filter(|p| p.is_finite()) {
                    let v = rotation * *p;
                    eye_z = eye_z.max(v.z + (v.x - center.x).abs() / tan_x).max(v.z + (v.y - center.y).abs() / tan_y);
                }
                let near = ((eye_z - hi.z) * 0.5).max(1e-4);
                let far = (eye_z - lo.z) * 1.5 + near;
                eye_view = Vec3::new(center.x, center.y, eye_z);
                view_to_clip = perspective(fov, aspect, near, far);
            }
        }
        // World → view: rotate into view axes, then move the eye to the origin.
        let world_to_view = Mat4::from_translation(-eye_view) * Mat4::from_mat3(rotation);
        Camera { world_to_view, view_to_clip }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project(camera: &Camera, p: Vec3) -> Vec3 {
        camera.world_to_clip().project_point3(p)
    }

    #[test]
    fn fitted_box_fills_the_frame_within_the_margin() {
        let pts: Vec<Vec3> =
            crate::model::Aabb { min: Vec3::new(-1.0, 0.0, -0.5), max: Vec3::new(1.0, 3.0, 0.5) }.corners().to_vec();
        for projection in [Projection::Orthographic, Projection::Perspective { fov_y_degrees: 40.0 }] {
            for (yaw, pitch) in [(0.0, 0.0), (45.0, 30.0), (200.0, -60.0), (90.0, 89.0)] {
                let view = OrbitView { yaw_degrees: yaw, pitch_degrees: pitch, projection, margin: 0.1 };
                let cam = Camera::fit(&view, &pts, 1.5);
                let mut max = 0.0f32;
                for p in &pts {
                    let ndc = project(&cam, *p);
                    assert!(ndc.x.abs() <= 0.8 + 1e-4 && ndc.y.abs() <= 0.8 + 1e-4, "{ndc} {yaw} {pitch}");
                    assert!((0.0..=1.0).contains(&ndc.z), "depth {ndc}");
                    max = max.max(ndc.x.abs()).max(ndc.y.abs());
                }
                // It fills the frame: some point touches the margin.
                assert!(max > 0.79, "{projection:?} yaw {yaw} pitch {pitch}: largest |ndc| {max}");
            }
        }
    }

    #[test]
    fn sphere_orbit_keeps_the_sphere_inside_at_every_yaw() {
        let (center, radius) = (Vec3::new(1.0, 2.0, -3.0), 2.5);
        for projection in [Projection::Orthographic, Projection::Perspective { fov_y_degrees: 40.0 }] {
            for yaw in [0.0, 90.0, 210.0] {
                let view = OrbitView { yaw_degrees: yaw, pitch_degrees: 15.0, projection, margin: 0.05 };
                let cam = Camera::orbit_sphere(&view, center, radius, 1.0);
                let c = project(&cam, center);
                assert!(c.x.abs() < 1e-5 && c.y.abs() < 1e-5, "centre at {c}");
                for dir in [Vec3::X, Vec3::Y, Vec3::Z, -Vec3::X, -Vec3::Y, -Vec3::Z] {
                    let p = project(&cam, center + dir * radius);
                    assert!(p.x.abs() < 1.0 && p.y.abs() < 1.0 && (0.0..=1.0).contains(&p.z), "{p} {yaw}");
                }
            }
        }
    }

    #[test]
    fn a_fixed_scale_puts_the_anchor_on_its_pixel_at_any_yaw() {
        let anchor = Vec3::new(1.0, -2.0, 0.5);
        for yaw in [0.0, 45.0, 200.0] {
            let view = OrbitView { yaw_degrees: yaw, pitch_degrees: 30.0, ..OrbitView::ISOMETRIC_2_1 };
            let cam = Camera::orthographic_at_scale(&view, anchor, 16.0, glam::Vec2::new(20.0, 50.0), (64, 80), 5.0);
            let at = |p: Vec3| cam.world_to_pixel(p, 64, 80);
            assert!(at(anchor).distance(glam::Vec2::new(20.0, 50.0)) < 1e-3, "{}", at(anchor));
            // One unit straight up is 16 px × cos(pitch) higher on screen; depth stays inside.
            let up = at(anchor) - at(anchor + Vec3::Y);
            assert!((up.y - 16.0 * 30f32.to_radians().cos()).abs() < 1e-3 && up.x.abs() < 1e-3, "{up}");
            for corner in [Vec3::splat(4.9), Vec3::splat(-4.9)] {
                let z = project(&cam, anchor + corner / 3f32.sqrt()).z;
                assert!((0.0..=1.0).contains(&z), "depth {z}");
            }
        }
    }

    #[test]
    fn a_cropped_camera_shows_the_window() {
        let pts = [Vec3::new(-1.0, 0.0, -1.0), Vec3::new(1.0, 2.0, 1.0), Vec3::new(0.3, 0.7, -0.2)];
        for projection in [Projection::Orthographic, Projection::Perspective { fov_y_degrees: 40.0 }] {
            let view = OrbitView { yaw_degrees: 30.0, pitch_degrees: 20.0, projection, margin: 0.1 };
            let cam = Camera::fit(&view, &pts, 1.0);
            let crop = cam.cropped((100, 100), (12.0, 30.0, 50.0, 40.0));
            for p in pts {
                let (before, after) = (cam.world_to_pixel(p, 100, 100), crop.world_to_pixel(p, 50, 40));
                assert!(after.distance(before - glam::Vec2::new(12.0, 30.0)) < 1e-3, "{before} {after}");
                let (z0, z1) = (project(&cam, p).z, project(&crop, p).z);
                assert!((z0 - z1).abs() < 1e-6, "depth changed {z0} {z1}");
            }
        }
    }

    #[test]
    fn yaw_zero_sees_the_front() {
        let cam = Camera::fit(&OrbitView::default(), &[Vec3::ZERO, Vec3::ONE], 1.0);
        let eye = cam.world_to_view.inverse().transform_point3(Vec3::ZERO);
        assert!(eye.z > 1.0 && eye.x.abs() < 1.0, "eye {eye}");
        let view = OrbitView { yaw_degrees: 90.0, ..OrbitView::default() };
        let cam = Camera::fit(&view, &[Vec3::ZERO, Vec3::ONE], 1.0);
        let eye = cam.world_to_view.inverse().transform_point3(Vec3::ZERO);
        assert!(eye.x > 1.0, "yaw 90 moves the camera towards +X: eye {eye}");
    }
}
