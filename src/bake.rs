//! Baking: the whole path from a loaded model to images — pose, place in the canonical world
//! frame, fit the camera, render. The command line and the examples call this; the layers
//! below know nothing of each other.

use glam::{Mat4, Vec3};

use crate::anim::{self, FrameTime, PoseOptions};
use crate::error::{Error, Result};
use crate::model::{Clip, Model, PosedMesh};
use crate::raster::{Camera, Image, OrbitView, RenderOptions, Renderer, Scene, SceneObject};

/// Model (file axes) → world (Y up, facing +Z).
pub fn model_to_world(model: &Model) -> Mat4 {
    Mat4::from_mat3(model.orientation.to_canonical())
}

/// Posed positions in world space, for fitting a camera.
pub fn world_points(model: &Model, posed: &PosedMesh) -> Vec<Vec3> {
    let m = model_to_world(model);
    posed.parts.iter().flat_map(|p| p.positions.iter().map(move |v| m.transform_point3(*v))).collect()
}

/// Finds a clip by name, with a helpful error listing the clips there are.
///
/// # Errors
/// No clip has that name.
pub fn find_clip<'m>(model: &'m Model, name: &str) -> Result<&'m Clip> {
    model.clip(name).ok_or_else(|| {
        let names: Vec<&str> = model.clips.iter().map(|c| c.name.as_str()).collect();
        if names.is_empty() {
            Error::Invalid(format!("no clip named '{name}': the model has no animation clips"))
        } else {
            Error::Invalid(format!("no clip named '{name}'; clips: {}", names.join(", ")))
        }
    })
}

/// One frame to render: which clip, when, how posed.
#[derive(Debug, Clone, Copy)]
pub struct FrameRequest<'a> {
    /// The clip, or `None` for the rest pose.
    pub clip: Option<&'a Clip>,
    /// When in the clip.
    pub time: FrameTime,
    /// Looping, root-motion lock.
    pub pose: PoseOptions,
}

impl Default for FrameRequest<'_> {
    fn default() -> Self {
        FrameRequest { clip: None, time: FrameTime::Frame(0.0), pose: PoseOptions::default() }
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
    let posed = anim::pose(model, frame.clip, frame.time, &frame.pose);
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
    let scene = Scene { objects: vec![SceneObject { posed, model_to_world: model_to_world(model) }], camera };
    renderer.render_into(&scene, options, image)
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
    anim::joint_transforms(model, frame.clip, frame.time, &frame.pose)
        .iter()
        .zip(&skeleton.joints)
        .map(|(m, j)| {
            let world = to_world.transform_point3(m.translation.into());
            (camera.world_to_pixel(world, width, height), j.parent)
        })
        .collect()
}
