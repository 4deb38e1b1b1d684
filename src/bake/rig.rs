//! Animation controls resolved against a loaded model: attachment models loaded, clip and
//! joint names looked up, and the result turned into an [`anim::Animation`].
//!
//! Loading is separate from resolving because an [`anim::Animation`] borrows the models:
//! [`load_attachments`] returns the attachment models, the caller keeps them alive, and
//! [`layers`] / [`transitions`] borrow from them.

use std::path::Path;

use crate::anim::{self, Animation, Attachment, Blend, BoneOverride, Layers, Motion, Mount, PoseOptions, Transition};
use crate::error::{Error, Result};
use crate::formats::{self, Format, LoadOptions};
use crate::model::{Clip, Model, names};
use crate::spec::Controls;

/// Index of the joint called `name`.
///
/// # Errors
/// The model has no skeleton, or no joint has that name (the message names the closest).
pub fn find_joint(model: &Model, name: &str) -> Result<usize> {
    let Some(skeleton) = &model.skeleton else {
        return Err(Error::Invalid(format!(
            "no joint named '{name}': {} has no skeleton (joints exist in MD5 and SMD models)",
            model.name
        )));
    };
    skeleton.find(name).ok_or_else(|| {
        let joints = skeleton.joints.iter().map(|j| j.name.as_str());
        names::UnknownName::new("joint", name, joints, "`spritebake info` lists the joints").into()
    })
}

/// Loads every attachment model (paths as given), each with its own textures resolved next to
/// it. `body_path` and `body` tell linked models of the body's own format to take the body's
/// orientation; `options` give the rate, texture roots and limits (animations, texture
/// overrides and facing are the body's own and are not passed on). The attachments share one
/// memory budget of the limits' size: however many there are, together they fit in it.
///
/// # Errors
/// An attachment that cannot be loaded, or the attachments together over the budget.
pub fn load_attachments(
    controls: &Controls,
    body_path: &Path,
    body: &Model,
    options: &LoadOptions,
) -> Result<Vec<Model>> {
    let body_format = Format::detect(body_path, &[]);
    let prop_options = LoadOptions {
        fps: options.fps,
        texture_roots: options.texture_roots.clone(),
        limits: options.limits,
        ..LoadOptions::default()
    };
    let budget = crate::budget::MemoryBudget::new(options.limits.max_memory_bytes);
    controls
        .attachments
        .iter()
        .map(|a| {
            let mut model = formats::load_within(&a.path, &prop_options, &budget)?;
            if a.joint.is_none() && body_format.is_some() && Format::detect(&a.path, &[]) == body_format {
                model.orientation = body.orientation;
            }
            Ok(model)
        })
        .collect()
}

/// The layers (blend, bone overrides, attachments) for `body`, with `props` the models
/// [`load_attachments`] returned for the same `controls`. `motions` are every motion they
/// will be played with: lockstep attachments must have each of their clips.
///
/// # Errors
/// Unknown clip or joint names, joints on a model without skeleton, a lockstep attachment
/// missing one of the body's clips.
pub fn layers<'a>(
    body: &'a Model,
    props: &'a [Model],
    controls: &Controls,
    motions: &[Motion<'a>],
) -> Result<Layers<'a>> {
    let blend = controls
        .blend
        .as_ref()
        .map(|b| body.find_clip(&b.clip).map(|clip| Blend { clip, weight: b.weight }))
        .transpose()?;
    let bones = controls
        .bones
        .iter()
        .map(|b| find_joint(body, &b.joint).map(|j| BoneOverride::from_degrees(j, b.yaw, b.pitch, b.roll)))
        .collect::<Result<Vec<_>>>()?;
    let mut attachments = Vec::new();
    for (spec, model) in controls.attachments.iter().zip(props) {
        let mount = match &spec.joint {
            Some(joint) => Mount::Joint(
                find_joint(body, joint)
                    .map_err(|e| Error::Invalid(format!("attachment '{}@{joint}': {e}", spec.path.display())))?,
            ),
            None => {
                if !model.clips.is_empty() && !anim::shares_key_shapes(body, model) {
                    let wanted = motions.iter().flat_map(|m| m.clips()).chain(blend.map(|b| b.clip));
                    for clip in wanted {
                        if model.clip(&clip.name).is_none() {
                            let list: Vec<&str> = model.clips.iter().map(|c| c.name.as_str()).collect();
                            let hint = names::did_you_mean(&clip.name, list.iter().copied());
                            return Err(Error::Invalid(format!(
                                "attachment {} has no clip '{}' to follow the body's (its clips: {}){hint} \
                                 To hang it on a joint instead, write FILE@JOINT.",
                                spec.path.display(),
                                clip.name,
                                list.join(", ")
                            )));
                        }
                    }
                }
                Mount::Lockstep
            }
        };
        attachments.push(Attachment { model, mount, offset: spec.offset.to_affine() });
    }
    Ok(Layers { blend, bones, attachments })
}

/// The one animation of a single-frame render: the first transition of `controls` if there
/// is one, else `clip`, else the rest pose; with the controls' layers.
///
/// # Errors
/// As [`layers`] and [`transitions`].
pub fn animation<'a>(
    body: &'a Model,
    props: &'a [Model],
    controls: &Controls,
    clip: Option<&'a Clip>,
    options: PoseOptions,
) -> Result<Animation<'a>> {
    let motion = match transitions(body, controls)?.first() {
        Some(t) => Motion::Transition(*t),
        None => clip.map_or(Motion::Rest, Motion::Clip),
    };
    let layers = layers(body, props, controls, &[motion])?;
    Ok(Animation { motion, layers, options })
}

/// The controls' transitions resolved against `body`'s clips.
///
/// # Errors
/// Unknown clip names.
pub fn transitions<'a>(body: &'a Model, controls: &Controls) -> Result<Vec<Transition<'a>>> {
    controls
        .transitions
        .iter()
        .map(|t| Ok(Transition { from: body.find_clip(&t.from)?, to: body.find_clip(&t.to)?, seconds: t.seconds }))
        .collect()
}
