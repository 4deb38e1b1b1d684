//! One frame of a model: posed, placed in the canonical world frame, seen by a camera and
//! rendered.

use std::borrow::Cow;

use glam::{Mat4, Vec3};

use crate::anim::{self, Animation, FrameTime, PoseOptions};
use crate::bake::frame::chrome;
use crate::error::Result;
use crate::model::{Clip, Model, PosedMesh, PosedPart};
use crate::raster::{Camera, Image, OrbitView, PixelRows, RenderOptions, Renderer, Scene, SceneObject};

/// Model (file axes) → world (Y up, facing +Z).
pub fn model_to_world(model: &Model) -> Mat4 {
    Mat4::from_mat3(model.orientation.to_canonical())
}

/// Posed positions in world space, for fitting a camera.
pub fn world_points(model: &Model, posed: &PosedMesh) -> Vec<Vec3> {
    into_world(model, posed.parts.iter().flat_map(|p| p.positions.iter().copied()).collect())
}

/// `points` of `model` (in its file's axes) moved into world space.
pub(crate) fn into_world(model: &Model, mut points: Vec<Vec3>) -> Vec<Vec3> {
    let m = model_to_world(model);
    points.iter_mut().for_each(|p| *p = m.transform_point3(*p));
    points
}

/// One frame to render: what plays (clip, transition, blend, overrides, attachments) and when.
#[derive(Debug, Clone)]
pub struct FrameRequest<'a> {
    /// The animation; the default is the rest pose.
    pub animation: Animation<'a>,
    /// When in its motion.
    pub time: FrameTime,
}

impl Default for FrameRequest<'_> {
    fn default() -> Self {
        FrameRequest { animation: Animation::default(), time: FrameTime::Frame(0.0) }
    }
}

impl<'a> FrameRequest<'a> {
    /// One clip (or the rest pose) at `time`, nothing layered on it.
    pub fn clip(clip: Option<&'a Clip>, time: FrameTime, pose: PoseOptions) -> FrameRequest<'a> {
        FrameRequest { animation: Animation::clip(clip, pose), time }
    }

    /// Poses the model for this request.
    pub fn pose(&self, model: &'a Model) -> PosedMesh<'a> {
        anim::animate(model, &self.animation, self.time)
    }
}

/// Renders one frame of `model` seen from `view`, with the camera fitted to that frame's posed
/// geometry.
///
/// # Errors
/// Invalid render options (see [`Renderer::render`]).
pub fn render_frame(
    renderer: &Renderer,
    model: &Model,
    frame: &FrameRequest,
    view: &OrbitView,
    options: &RenderOptions,
) -> Result<Image> {
    let posed = frame.pose(model);
    let aspect = options.width as f32 / options.height.max(1) as f32;
    let camera = Camera::fit(view, &world_points(model, &posed), aspect);
    render_posed(renderer, model, &posed, camera, options)
}

/// Renders an already posed model with a given camera.
///
/// # Errors
/// Invalid render options (see [`Renderer::render`]).
pub fn render_posed(
    renderer: &Renderer,
    model: &Model,
    posed: &PosedMesh,
    camera: Camera,
    options: &RenderOptions,
) -> Result<Image> {
    let mut image = Image::default();
    render_posed_into(renderer, model, posed, camera, options, &mut image)?;
    Ok(image)
}

/// [`render_posed`] into an existing image (see [`Renderer::render_into`]).
///
/// # Errors
/// Invalid render options (see [`Renderer::render`]).
pub fn render_posed_into(
    renderer: &Renderer,
    model: &Model,
    posed: &PosedMesh,
    camera: Camera,
    options: &RenderOptions,
    image: &mut Image,
) -> Result<()> {
    with_scene(model, posed, camera, |scene| renderer.render_into(scene, options, image))
}

/// [`render_posed`] into rows of pixels where the image goes (see
/// [`Renderer::render_into_rows`]).
///
/// # Errors
/// Invalid render options (see [`Renderer::render`]); rows of another size.
pub(in crate::bake) fn render_posed_into_rows(
    renderer: &Renderer,
    model: &Model,
    posed: &PosedMesh,
    camera: Camera,
    options: &RenderOptions,
    rows: &mut PixelRows,
) -> Result<()> {
    with_scene(model, posed, camera, |scene| renderer.render_into_rows(scene, options, rows))
}

/// Calls `draw` with the scene a posed model is rendered as: its chrome parts with the
/// coordinates the view gives them, the rest as posed.
fn with_scene<R>(model: &Model, posed: &PosedMesh, camera: Camera, draw: impl FnOnce(&Scene) -> R) -> R {
    match chrome::view_uvs(posed, model_to_world(model), &camera) {
        None => draw(&scene(model, posed, camera)),
        Some(uvs) => {
            let parts = posed.parts.iter().zip(&uvs).map(|(part, uvs)| PosedPart {
                positions: Cow::Borrowed(&part.positions),
                normals: Cow::Borrowed(&part.normals),
                uvs: uvs.as_deref().unwrap_or(part.uvs),
                ..*part
            });
            let chromed = PosedMesh { parts: parts.collect() };
            draw(&scene(model, &chromed, camera))
        }
    }
}

/// The scene of one posed model seen by `camera`.
pub fn scene<'a>(model: &Model, posed: &'a PosedMesh<'a>, camera: Camera) -> Scene<'a> {
    Scene { objects: vec![SceneObject { posed, model_to_world: model_to_world(model) }], camera }
}

/// Pixel positions of every joint (with parent indices) at a moment of a clip, seen by
/// `camera` in a `width × height` image: what the skeleton overlay draws.
pub fn joint_pixels(
    model: &Model,
    frame: &FrameRequest,
    camera: &Camera,
    width: u32,
    height: u32,
) -> Vec<(glam::Vec2, Option<usize>)> {
    let Some(skeleton) = &model.skeleton else { return Vec::new() };
    let to_world = model_to_world(model);
    anim::animated_joint_transforms(model, &frame.animation, frame.time)
        .iter()
        .zip(&skeleton.joints)
        .map(|(m, j)| {
            let world = to_world.transform_point3(m.translation.into());
            (camera.world_to_pixel(world, width, height), j.parent)
        })
        .collect()
}
