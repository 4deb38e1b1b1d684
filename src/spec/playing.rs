//! What plays: the animation group resolved, animation files replaced by their clip names.

use super::paths::clip_name;
use super::{AnimSpec, BlendSpec, Controls, TransitionSpec};
use crate::error::{Error, Result};
use crate::sprite::Looping;

/// What plays, animation files replaced by their clip names.
pub(super) struct Playing {
    pub(super) controls: Controls,
    pub(super) rows: Vec<String>,
    pub(super) looping: Looping,
    pub(super) clip: Option<String>,
}

/// The animation group: controls, the clips named (none empty), root motion kept or pinned,
/// and which clips loop.
pub(super) fn playing(a: &AnimSpec) -> Result<Playing> {
    let controls = controls(a)?;
    // An empty name is no clip and no file (`anim = [""]` is a slip, not "the first clip").
    let empty = a.anim.iter().map(|e| ("anim", e.as_str())).chain(a.clip.as_deref().map(|c| ("clip", c)));
    if let Some((key, _)) = empty.into_iter().find(|(_, name)| name.trim().is_empty()) {
        return Err(Error::bad_option(key, "\"\"", "a clip name or an animation file, not empty"));
    }
    let mut names: Vec<String> = Vec::new();
    for name in a.anim.iter().map(|e| clip_name(e)) {
        if !names.contains(&name) {
            names.push(name);
        }
    }
    let clip = a.clip.as_deref().map(clip_name);
    if a.root_motion && a.in_place {
        return Err(Error::bad_option("in_place", "true", "pins the motion `root_motion` keeps: give one of them"));
    }
    let looping = looping(a)?;
    let rows = match &clip {
        Some(c) => vec![c.clone()],
        None => names.clone(),
    };
    Ok(Playing { controls, rows, looping, clip: clip.or_else(|| names.first().cloned()) })
}

/// Attachments, bones, the blend and the transitions (one per pair of clips), with an offset
/// for each attachment at most.
fn controls(a: &AnimSpec) -> Result<Controls> {
    let mut controls = Controls {
        attachments: a.attach.clone(),
        bones: a.bone.clone(),
        blend: a.blend.clone().map(|b| BlendSpec { clip: clip_name(&b.clip), ..b }),
        transitions: a
            .transition
            .iter()
            .map(|t| TransitionSpec { from: clip_name(&t.from), to: clip_name(&t.to), ..t.clone() })
            .collect(),
    };
    // A transition is a sheet row named `A->B`: a second one of the same clips would give
    // two rows (animations, frame names) one name.
    for (i, t) in controls.transitions.iter().enumerate() {
        if controls.transitions.iter().take(i).any(|u| (&u.from, &u.to) == (&t.from, &t.to)) {
            let expected = format!("gives a second row named '{}->{}': one transition per pair of clips", t.from, t.to);
            return Err(Error::bad_option("transition", t, expected));
        }
    }
    controls.set_offsets(&a.attach_offset).map_err(|_| {
        let expected = format!("one per `attach` ({} given)", a.attach.len());
        Error::bad_option("attach_offset", format!("({} offsets)", a.attach_offset.len()), expected)
    })?;
    Ok(controls)
}

/// Which clips loop and which play once (`once`, `loop`): none empty, none both.
fn looping(a: &AnimSpec) -> Result<Looping> {
    let looping = Looping {
        once: a.once.iter().map(|e| clip_name(e)).collect(),
        looping: a.looping.iter().map(|e| clip_name(e)).collect(),
    };
    if let Some((key, name)) = looping.named().find(|(_, name)| name.trim().is_empty()) {
        return Err(Error::bad_option(key, format!("\"{name}\""), "a clip name or an animation file, not empty"));
    }
    if let Some(both) = looping.once.iter().find(|n| looping.looping.contains(n)) {
        return Err(Error::bad_option("once", both, "is also given to `loop`: a clip either loops or plays once"));
    }
    Ok(looping)
}
