//! Baking: the application layer, from a resolved [`crate::spec::Resolved`] to finished
//! images and files — load the model and its attachments ([`load`]), pose, place in the
//! canonical world frame, fit the camera, render, post-process ([`post`]), and make the
//! products ([`products`]: a render, a sprite sheet with its engine data ([`engines`]), a GIF,
//! numbered frames).
//! The command line, `check` manifests and `bake` project files all go through here; the
//! layers below know nothing of each other.

mod distance;
pub mod engines;
pub mod export;
mod framing;
mod job;
mod load;
pub mod maps;
pub mod palette;
pub mod pipeline;
pub mod post;
pub mod products;
pub mod project;
pub mod rig;
mod sheet;

use glam::{Mat4, Vec3};

pub use job::{Cell, Job, JobInfo, Prepared};
pub use load::{Loaded, load};
pub use maps::{MapKind, Maps};
pub use products::{Baked, Product};
pub use sheet::{FinishedPage, Packed, Page, Placement, Sheet, SheetBuilder, pack, page_bound};

use crate::anim::{self, Animation, FrameTime, PoseOptions};
use crate::error::{Error, Result};
use crate::model::{Clip, Model, PosedMesh};
use crate::raster::{Camera, Image, OrbitView, RenderOptions, Renderer, Scene, SceneObject};
pub use crate::sprite::{DEFAULT_MAX_PAGE, Directions, FrameNames, JsonFormat, Layout, Packing, Sampling};

/// Model (file axes) → world (Y up, facing +Z).
pub fn model_to_world(model: &Model) -> Mat4 {
    Mat4::from_mat3(model.orientation.to_canonical())
}

/// Posed positions in world space, for fitting a camera.
pub fn world_points(model: &Model, posed: &PosedMesh) -> Vec<Vec3> {
    let m = model_to_world(model);
    posed.parts.iter().flat_map(|p| p.positions.iter().map(move |v| m.transform_point3(*v))).collect()
}

/// The clip name that plays every keyed (glTF) animation of a model together.
pub const ALL_CLIPS: &str = "all";

/// Adds the clip [`ALL_CLIPS`] to `model`: the channels of every keyed clip merged, for files
/// that split one motion into many animations of one joint each (CesiumMan has 19). Where two
/// animations drive the same property, the later one wins. Nothing happens when the model
/// already has a clip of that name.
///
/// # Errors
/// The model has no keyed clips (`all` is a glTF feature: MD2, MD5 and SMD clips are frame
/// sequences that cannot be merged channel by channel).
pub fn add_all_clip(model: &mut Model) -> Result<()> {
    use crate::model::{ClipFrames, KeyedClip};
    if model.clip(ALL_CLIPS).is_some() {
        return Ok(());
    }
    let mut merged = KeyedClip::default();
    let mut fps = None;
    for clip in &model.clips {
        if let ClipFrames::Keyed(k) = &clip.frames {
            merged.channels.extend(k.channels.iter().cloned());
            merged.duration = merged.duration.max(k.duration);
            fps = fps.or(Some(clip.fps));
        }
    }
    let Some(fps) = fps else {
        return Err(Error::Invalid(format!(
            "clip '{ALL_CLIPS}' plays every glTF animation together, but this model has no glTF animations"
        )));
    };
    model.clips.push(Clip {
        name: ALL_CLIPS.into(),
        fps,
        frames: ClipFrames::Keyed(merged),
        frame_bounds: Vec::new(),
        retarget: None,
    });
    Ok(())
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
    renderer.render_into(&scene(model, posed, camera), options, image)
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
