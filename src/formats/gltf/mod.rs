//! glTF 2.0 (`.gltf` with external or data-URI buffers, `.glb`): meshes, materials, node
//! hierarchy, skins, keyed animations and morph targets.
//!
//! The `gltf` crate parses and validates the JSON (every index points at something); this
//! module maps the document onto [`Model`]:
//!
//! * **Nodes → joints.** When the file has skins or animations, *every* node of the scene
//!   becomes a [`Joint`] (depth-first, so parents precede children). Non-joint ancestors of a
//!   skeleton (an armature node that turns Blender's Z-up rig upright) are then respected for
//!   free, and animations that move plain nodes work too. Without skins or animations the node
//!   transforms are baked into the vertices and the model has no skeleton.
//! * **Meshes.** One [`crate::model::Mesh`] per primitive per node that instances it. Skinned primitives use
//!   their skin (the node's own transform is ignored, as the spec says); others are rigidly
//!   bound to their node's joint with weight 1. Rest positions are the skinned rest pose.
//! * **Animations** become [`crate::model::ClipFrames::Keyed`] clips sampled exactly by `anim::keyed`.
//! * glTF is Y-up and faces +Z: [`Orientation::Y_UP_FACING_Z`].
//!
//! [`Joint`]: crate::model::Joint

mod animation;
mod buffers;
mod document;
mod error;
mod mesh;
mod nodes;

use error::{FORMAT, err};
use nodes::Nodes;

use super::{FormatError, Limits};
use crate::budget::MemoryBudget;
use crate::model::{Model, Orientation};

/// Parses a `.gltf` or `.glb` file. External buffers and images are named relative to the
/// model; `load_external` reads buffers (images go through the texture resolver later).
///
/// # Errors
/// Malformed JSON or GLB chunks, missing or truncated buffers, accessors outside their
/// buffers, bad skins or animation samplers, non-base64 data URIs.
pub fn parse(
    bytes: &[u8],
    load_external: &mut dyn FnMut(&str) -> Option<std::sync::Arc<Vec<u8>>>,
    limits: &Limits,
) -> crate::Result<Model> {
    parse_within(bytes, load_external, limits, &limits.budget())
}

/// As [`parse`], charging embedded images to `budget` (the model's, shared with the textures
/// the resolver decodes later).
///
/// # Errors
/// As [`parse`]; [`crate::Error::Budget`] when an embedded image would go over the budget.
pub fn parse_within(
    bytes: &[u8],
    load_external: &mut dyn FnMut(&str) -> Option<std::sync::Arc<Vec<u8>>>,
    limits: &Limits,
    budget: &MemoryBudget,
) -> crate::Result<Model> {
    if let Some(declared) = bytes.strip_prefix(b"glTF").and_then(|b| b.get(4..8)) {
        let declared = u32::from_le_bytes([declared[0], declared[1], declared[2], declared[3]]) as usize;
        if declared > bytes.len() {
            return Err(FormatError::at_offset(
                FORMAT,
                8,
                format!("GLB header declares {declared} bytes but the file has {} (truncated?)", bytes.len()),
            )
            .into());
        }
    }
    // The document's own structs, charged before the gltf crate builds them.
    let json = document::json_of(bytes);
    if let Some(cost) = document::built_bytes(json) {
        budget.charge(cost, || format!("glTF document ({} KiB of JSON)", json.len().div_ceil(1024)))?;
    }
    document::check_positions(json).map_err(err)?;
    let gltf = gltf::Gltf::from_slice(bytes).map_err(|e| {
        let message = format!("not a valid glTF 2.0 file: {e}");
        match &e {
            // A text .gltf's JSON error knows its line (in a GLB it would be the JSON chunk's).
            gltf::Error::Deserialize(json) if json.line() > 0 && !bytes.starts_with(b"glTF") => {
                FormatError::at_line(FORMAT, json.line(), message)
            }
            _ => err(message),
        }
    })?;
    let doc = &gltf.document;
    // External buffers are charged by `load_external` before they are read: a file naming many
    // large buffers stops at the first one over the budget.
    let buffers = buffers::Buffers::load(doc, gltf.blob.clone(), load_external)?;
    let nodes = Nodes::walk(doc)?;
    let skinned = doc.skins().len() > 0 || doc.animations().len() > 0;
    let mut model = Model { orientation: Orientation::Y_UP_FACING_Z, ..Model::default() };
    if skinned {
        model.skeleton = Some(nodes.skeleton(doc));
    }
    let instances = mesh::build(doc, &buffers, &nodes, skinned, limits, budget, &mut model)?;
    let mut budget = animation::MAX_KEY_VALUES;
    for a in doc.animations() {
        let clip = animation::build(doc.as_json(), &a, &buffers, &nodes, &instances, &mut budget, &mut model.warnings)?;
        model.clips.push(clip);
    }
    Ok(model)
}
