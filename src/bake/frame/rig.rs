//! Animation controls resolved against a loaded model: attachment models loaded, clip and
//! joint names looked up, and the result turned into an [`anim::Animation`].
//!
//! Loading is separate from resolving because an [`anim::Animation`] borrows the models:
//! [`load_attachments`] returns the attachment models, the caller keeps them alive, and
//! [`layers`] / [`transitions`] borrow from them.

use std::path::Path;

use glam::Affine3A;

use crate::anim::{self, Animation, Attachment, Blend, BoneOverride, Layers, Motion, Mount, PoseOptions, Transition};
use crate::budget::MemoryBudget;
use crate::error::suggest;
use crate::error::{Error, Result};
use crate::formats::{self, Format, LoadOptions};
use crate::model::{Clip, Model};
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
        suggest::UnknownName::new("joint", name, joints, "`spritebake info` lists the joints").into()
    })
}

/// Where `FILE@NAME` hangs on `model`: an attachment point (`.qc` `$attachment`: its joint
/// and the point's offset in the joint's frame), a tag (MD3) or a joint (no offset).
///
/// # Errors
/// None of them has that name (the message names the closest of all).
pub fn find_mount(model: &Model, name: &str) -> Result<(Mount, Affine3A)> {
    let point = |p: &crate::model::AttachmentPoint| (Mount::Joint(p.joint), Affine3A::from_translation(p.offset));
    // Exact names first (an attachment point, then a joint), then a point in any case; tags
    // in any case, as Quake 3 compares them.
    if let Some(p) = model.attachment_points.iter().find(|p| p.name == name) {
        return Ok(point(p));
    }
    if let Some(t) = model.tag(name) {
        return Ok((Mount::Tag(t), Affine3A::IDENTITY));
    }
    let joint = find_joint(model, name);
    if (model.attachment_points.is_empty() && model.tags.is_empty()) || joint.is_ok() {
        return joint.map(|j| (Mount::Joint(j), Affine3A::IDENTITY));
    }
    if let Some(p) = model.attachment_point(name) {
        return Ok(point(p));
    }
    let hint = "`spritebake info` lists attachment points, tags and joints";
    Err(suggest::UnknownName::new("attachment point, tag or joint", name, mount_names(model), hint).into())
}

/// The names [`find_mount`] finds: attachment points, tags and joints.
pub fn mount_names(model: &Model) -> impl Iterator<Item = &str> {
    let points = model.attachment_points.iter().map(|p| p.name.as_str());
    let tags = model.tags.iter().map(|t| t.name.as_str());
    let joints = model.skeleton.iter().flat_map(|s| s.joints.iter().map(|j| j.name.as_str()));
    points.chain(tags).chain(joints)
}

/// Loads every attachment model (paths as given), each with its own textures resolved next to
/// it. `body_path` and `body` tell linked models of the body's own format to take the body's
/// orientation; `options` give the rate, texture roots and limits (animations, texture
/// overrides and facing are the body's own and are not passed on). The attachments share
/// `budget`: however many there are, together they fit in it.
///
/// # Errors
/// An attachment that cannot be loaded, or the attachments together over the budget.
pub fn load_attachments(
    controls: &Controls,
    body_path: &Path,
    body: &Model,
    options: &LoadOptions,
    budget: &MemoryBudget,
) -> Result<Vec<Model>> {
    let body_format = Format::detect(body_path, &[]);
    let prop_options = LoadOptions {
        fps: options.fps,
        texture_roots: options.texture_roots.clone(),
        limits: options.limits,
        ..LoadOptions::default()
    };
    controls
        .attachments
        .iter()
        .map(|a| {
            let mut model = formats::load_within(&a.path, &prop_options, budget)?;
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
        let mut offset = spec.offset.to_affine();
        let mount = match &spec.joint {
            Some(joint) => {
                let (mount, point) = find_mount(body, joint)
                    .map_err(|e| Error::Invalid(format!("attachment '{}@{joint}': {e}", spec.path.display())))?;
                offset = point * offset;
                mount
            }
            None => {
                if !model.clips.is_empty() && !anim::shares_key_shapes(body, model) {
                    let wanted = motions.iter().flat_map(|m| m.clips()).chain(blend.map(|b| b.clip));
                    for clip in wanted {
                        if model.clip(&clip.name).is_none() {
                            let list: Vec<&str> = model.clips.iter().map(|c| c.name.as_str()).collect();
                            let hint = suggest::did_you_mean(&clip.name, list.iter().copied());
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
        attachments.push(Attachment { model, mount, offset });
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
