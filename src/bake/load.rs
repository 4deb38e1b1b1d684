//! Loading what a resolved spec names — the model with its animation files, and its
//! attachments — and building from it what the products render: the one animation of a single
//! image, or the sprite job of a sheet, GIF or frame sequence.

use std::path::PathBuf;

use super::frame::rig;
use super::{Directions, Follows, Job, Point};
use crate::anim::{Animation, Motion};
use crate::budget::MemoryBudget;
use crate::error::{Error, Result};
use crate::formats;
use crate::model::{Channel, ChannelTarget, Clip, ClipFrames, KeyedClip, Model, UnknownName};
use crate::spec::Resolved;

/// A body with its attachment models, as a resolved spec asked for them.
#[derive(Debug)]
pub struct Loaded {
    /// The body.
    pub model: Model,
    /// Attachment models, in `attach` order.
    pub props: Vec<Model>,
    /// Every warning of the body and its attachments, and hints about the spec.
    pub warnings: Vec<String>,
    /// Every file read: what the spec names (in case one was refused before the loader
    /// recorded it) and what the loader recorded for the body and each attachment.
    pub inputs: Vec<PathBuf>,
}

/// Loads the model, its animation files and attachments (within the spec's limits).
///
/// # Errors
/// A file that cannot be read or parsed, a budget exceeded, `all` on a model without glTF
/// animations.
pub fn load(resolved: &Resolved) -> Result<Loaded> {
    let limits = &resolved.load.limits;
    load_within(resolved, &limits.budget(), &limits.budget())
}

/// As [`load`], the body's files charged to `body` and its attachments' to `attachments`
/// (a batch draws both on its shared pool, [`crate::MemoryBudget::drawing_on`]).
///
/// # Errors
/// As [`load`].
pub fn load_within(resolved: &Resolved, body: &MemoryBudget, attachments: &MemoryBudget) -> Result<Loaded> {
    let mut model = formats::load_within(&resolved.model, &resolved.load, body)?;
    let controls = &resolved.controls;
    let named = resolved.rows.iter().chain(&resolved.clip);
    let named = named.chain(controls.blend.iter().map(|b| &b.clip));
    let mut named = named.chain(controls.transitions.iter().flat_map(|t| [&t.from, &t.to]));
    // `all` (every glTF animation together) is made on demand, wherever a clip is named.
    if named.any(|n| n == ALL_CLIPS) {
        add_all_clip(&mut model)?;
    }
    refuse_motion_options_without_clips(&model, resolved)?;
    if resolved.look.skeleton && model.skeleton.is_none() {
        // An overlay of nothing would pass silently.
        let expected = format!(
            "draws the joints of a skeletal model (MD5, SMD, QC, glTF with a skin), and {} has none \
             (MD2 and OBJ animate vertices, not joints)",
            resolved.model.display()
        );
        return Err(Error::bad_option("skeleton", "true", expected));
    }
    if resolved.spec.anim.in_place {
        // Pinned like any clip: a sequence whose file marks no travel loses its mark.
        model.marked_motion.retain(|m| m.axes.contains(&true));
    }
    let props = rig::load_attachments(controls, &resolved.model, &model, &resolved.load, attachments)?;
    let mut warnings: Vec<String> =
        model.warnings.iter().chain(props.iter().flat_map(|p| &p.warnings)).cloned().collect();
    warnings.extend(facing_hint(&model, resolved.load.facing.is_some()));
    if resolved.clip.is_none() {
        warnings.extend(split_motion_hint(&model));
        if controls.transitions.is_empty() {
            warnings.extend(still_clips_note(&model));
        }
    }
    let mut inputs = resolved.spec.named_files();
    inputs.extend(model.sources.iter().chain(props.iter().flat_map(|p| &p.sources)).cloned());
    Ok(Loaded { model, props, warnings, inputs })
}

/// `frame`, `time`, `fps` and `root_motion` choose or play a moment of a clip: on a model with
/// none they would change nothing, silently (a typo'd model, or the wrong file). Frame and time
/// 0, the first moment, are every model's own, so they pass.
fn refuse_motion_options_without_clips(model: &Model, resolved: &Resolved) -> Result<()> {
    if !model.clips.is_empty() {
        return Ok(());
    }
    let spec = &resolved.spec;
    let given: [(&str, Option<String>); 4] = [
        ("frame", spec.moment.frame.iter().find(|&&f| f != 0.0).map(f32::to_string)),
        ("time", spec.moment.time.filter(|&t| t != 0.0).map(|t| t.to_string())),
        ("fps", spec.model.fps.map(|f| f.to_string())),
        ("root_motion", spec.anim.root_motion.then(|| "true".to_string())),
    ];
    match given.into_iter().find_map(|(key, value)| Some((key, value?))) {
        Some((key, value)) => Err(Error::bad_option(
            key,
            value,
            format!("needs a clip to play, and {} has none", resolved.model.display()),
        )),
        None => Ok(()),
    }
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
        // Its clips are frame sequences (MD2, MD5, FBX takes...): they play one at a time.
        let names: Vec<&str> = model.clips.iter().map(|c| c.name.as_str()).collect();
        let clips = match names.len() {
            0 => String::from("this model has no clips"),
            _ => format!("this model's clips play one at a time: {}", names.join(", ")),
        };
        return Err(Error::Invalid(format!(
            "clip '{ALL_CLIPS}' plays every keyed (glTF-style) animation together, but {clips}; name one or several with --anim"
        )));
    };
    model.clips.push(Clip {
        name: ALL_CLIPS.into(),
        fps,
        frames: ClipFrames::Keyed(merged),
        frame_bounds: Vec::new(),
        retarget: None,
        plays_once: false,
    });
    Ok(())
}

/// Whether a keyed clip drives at most one joint (its translation, rotation and scale count
/// as one) or is a single channel.
fn drives_one_joint(clip: &KeyedClip) -> bool {
    let joint = |c: &Channel| match c.target {
        ChannelTarget::Translation(j) | ChannelTarget::Rotation(j) | ChannelTarget::Scale(j) => Some(j),
        ChannelTarget::MorphWeights(_) => None,
    };
    let mut joints = clip.channels.iter().map(joint);
    match joints.next() {
        None => true,
        Some(first) => clip.channels.len() == 1 || (first.is_some() && joints.all(|j| j == first)),
    }
}

/// Files such as CesiumMan store one walk as many animations of one joint each (its
/// translation, rotation and scale channels), and their first clip alone barely moves: say how
/// to play them together.
fn split_motion_hint(model: &Model) -> Option<String> {
    let single = |c: &&Clip| matches!(&c.frames, ClipFrames::Keyed(k) if drives_one_joint(k));
    let split = model.clips.iter().filter(single).count();
    (split >= 3 && model.clip(ALL_CLIPS).is_none()).then(|| {
        format!(
            "{} has {split} animations that each drive one joint; the first plays alone. \
             Use `--anim all` (manifests: anim = [\"all\"]) to play them together",
            model.name
        )
    })
}

/// The point name of the root's travel ([`Follows::RootTravel`]).
const ROOT_TRAVEL: &str = "root";

/// The points `names` asks each frame to record: attachment points, tags (MD3's
/// `tag_weapon`) and joints, found as `--attach FILE@NAME` finds where to hang a model, and
/// `root`, the root's travel.
///
/// # Errors
/// [`Error::BadOption`] `points` for a name the model has as none of them (with the closest
/// names).
fn points_of(model: &Model, names: &[String]) -> Result<Vec<Point>> {
    let point = |name: &String| match rig::find_mount(model, name) {
        // `root` is the root's travel, whatever the model names its joints.
        _ if name == ROOT_TRAVEL => Ok(Point { name: name.clone(), follows: Follows::RootTravel }),
        Ok((mount, placement)) => {
            Ok(Point { name: name.clone(), follows: Follows::Mount(mount, placement.translation.into()) })
        }
        Err(_) if rig::mount_names(model).next().is_none() => Err(Error::bad_option(
            "points",
            name,
            "names a joint, attachment point or tag, and this model has none (MD2 and OBJ have none)",
        )),
        Err(_) => {
            let known = rig::mount_names(model);
            let unknown = UnknownName::new("joint, attachment point or tag", name, known, "spritebake info lists them");
            Err(Error::bad_option("points", name, unknown.to_string()))
        }
    };
    names.iter().map(point).collect()
}

/// A warning when the model's rest pose shows it facing another way than it is rendered
/// ([`Model::seeming_front`]; `declared`: the front was given with `facing`): the `S`
/// direction would show its back or side, and every direction's name would be wrong.
fn facing_hint(model: &Model, declared: bool) -> Option<String> {
    let sign = model.seeming_front()?;
    let front = model.orientation.forward;
    if sign.axis == front {
        return None;
    }
    let whose = if declared { "as `--facing` says" } else { "its format's convention" };
    let shows = if sign.axis == -front { "back" } else { "side" };
    Some(format!(
        "{}: {} show it facing {} in its file, but it is rendered facing {front} ({whose}), so the S \
         direction shows its {shows}; `--facing {}` turns it round",
        model.name, sign.evidence, sign.axis, sign.axis
    ))
}

/// The clips a command plays when none is named, in the file's order, and those it leaves
/// out: every clip that moves, unless none does (a file of poses), then every clip. A clip
/// that holds one pose throughout, as Mixamo's `Take 001` before its motion, would make a
/// still row of a sheet or a still default render; naming it still plays it.
fn default_clips(model: &Model) -> (Vec<&Clip>, Vec<&Clip>) {
    let (moving, still): (Vec<&Clip>, Vec<&Clip>) = model.clips.iter().partition(|c| !c.is_static(&model.meshes));
    if moving.is_empty() { (still, Vec::new()) } else { (moving, still) }
}

/// Says which clips [`default_clips`] leaves out, and how to play them.
fn still_clips_note(model: &Model) -> Option<String> {
    let (_, left_out) = default_clips(model);
    let first = left_out.first()?;
    let names: Vec<String> = left_out.iter().map(|c| format!("'{}'", c.name)).collect();
    let (holds, is) = if left_out.len() == 1 { ("holds", "is") } else { ("hold", "are") };
    Some(format!(
        "{}: {} {holds} one pose throughout and {is} left out when no clip is named; \
         `--anim \"{}\"` (manifests: anim = [\"{}\"]) plays it by name",
        model.name,
        names.join(", "),
        first.name,
        first.name,
    ))
}

impl Loaded {
    /// The clip a single-motion command plays: the resolved clip, else the model's first
    /// clip that moves ([`default_clips`]).
    fn clip<'m>(&'m self, resolved: &Resolved) -> Result<Option<&'m Clip>> {
        match &resolved.clip {
            Some(name) => Ok(Some(self.model.find_clip(name)?)),
            None => Ok(default_clips(&self.model).0.first().copied()),
        }
    }

    /// The one animation of a single-image command (render, export, thumbnail, `check` render
    /// cases): the first transition if there is one, else the clip, with every layer.
    ///
    /// # Errors
    /// Unknown clip or joint names, attachments that cannot follow the clip.
    pub fn animation(&self, resolved: &Resolved) -> Result<Animation<'_>> {
        let clip = self.clip(resolved)?;
        rig::animation(&self.model, &self.props, &resolved.controls, clip, resolved.pose)
    }

    /// The sprite job of a sheet or frame sequence: every row (clip, then transition), every
    /// direction; without rows or transitions, every clip of the model that moves (every clip
    /// when none does).
    ///
    /// # Errors
    /// As [`Loaded::animation`]; a clip named to `once` or `loop` that the model lacks.
    pub fn job(&self, resolved: &Resolved) -> Result<Job<'_>> {
        let model = &self.model;
        let transitions = rig::transitions(model, &resolved.controls)?;
        let clips = if resolved.rows.is_empty() && transitions.is_empty() {
            // Every clip that moves, in the file's order, as Aseprite exports every tag; the
            // rest pose of a model without any.
            if model.clips.is_empty() { vec![None] } else { default_clips(model).0.into_iter().map(Some).collect() }
        } else {
            resolved.rows.iter().map(|n| model.find_clip(n).map(Some)).collect::<Result<_, _>>()?
        };
        self.job_of(resolved, clips, transitions, resolved.directions.clone())
    }

    /// The sprite job of a GIF: one motion (the first transition, else the clip) seen from one
    /// direction (`gif_direction` of `directions`, keeping the yaw it has among them).
    ///
    /// # Errors
    /// As [`Loaded::animation`].
    pub fn gif_job(&self, resolved: &Resolved) -> Result<Job<'_>> {
        let (clips, transitions) = match self.animation(resolved)?.motion {
            Motion::Transition(t) => (Vec::new(), vec![t]),
            Motion::Clip(c) => (vec![Some(c)], Vec::new()),
            Motion::Rest => (vec![None], Vec::new()),
        };
        // One direction, whose yaw is the chosen direction's.
        let mut job = self.job_of(resolved, clips, transitions, Directions::compass(1))?;
        job.view.yaw_degrees += resolved.directions.angle(resolved.gif_direction);
        Ok(job)
    }

    fn job_of<'m>(
        &'m self,
        resolved: &Resolved,
        clips: Vec<Option<&'m Clip>>,
        transitions: Vec<crate::anim::Transition<'m>>,
        directions: Directions,
    ) -> Result<Job<'m>> {
        // A misspelt name would silently loop a death.
        for (key, name) in resolved.looping.named() {
            self.model.find_clip(name).map_err(|e| Error::bad_option(key, name, e.to_string()))?;
        }
        let mut job = Job {
            model: &self.model,
            clips,
            transitions,
            layers: Default::default(),
            directions,
            view: resolved.view,
            options: resolved.render_options(),
            fit: resolved.fit,
            pixels_per_unit: resolved.pixels_per_unit,
            ground: resolved.ground,
            auto_size: resolved.auto_size,
            sampling: resolved.sampling,
            looping: resolved.looping.clone(),
            pose: resolved.pose,
            look: resolved.look.clone(),
            points: points_of(&self.model, &resolved.spec.sprite.points)?,
        };
        // The layers are checked against every row (lockstep attachments need each clip).
        job.layers = rig::layers(&self.model, &self.props, &resolved.controls, &job.motions())?;
        Ok(job)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Interpolation, KeyedClip};

    /// A keyed clip with one channel per target.
    fn keyed(name: &str, targets: Vec<ChannelTarget>) -> Clip {
        let channel = |target| Channel {
            target,
            interpolation: Interpolation::Step,
            times: vec![0.0],
            width: 3,
            values: vec![0.0; 3],
        };
        let channels = targets.into_iter().map(channel).collect();
        Clip {
            name: name.into(),
            fps: 30.0,
            frames: ClipFrames::Keyed(KeyedClip { channels, duration: 0.0 }),
            frame_bounds: Vec::new(),
            retarget: None,
            plays_once: false,
        }
    }

    #[test]
    fn clips_that_never_move_are_left_out_of_the_defaults_unless_none_moves() {
        let still = |name: &str| keyed(name, vec![ChannelTarget::Translation(0)]);
        let mut walk = still("walk");
        if let ClipFrames::Keyed(k) = &mut walk.frames {
            let channel = &mut k.channels[0];
            channel.times.push(1.0);
            channel.values.extend([1.0, 0.0, 0.0]);
        }
        let mut model =
            Model { name: "m".into(), clips: vec![still("Take 001"), walk, still("pose")], ..Model::default() };
        let names = |clips: Vec<&Clip>| clips.iter().map(|c| c.name.clone()).collect::<Vec<_>>();
        let (played, left_out) = default_clips(&model);
        assert_eq!(
            (names(played), names(left_out)),
            (vec!["walk".to_string()], vec!["Take 001".into(), "pose".into()])
        );
        let note = still_clips_note(&model).expect("a note naming the clips left out");
        assert!(note.contains("'Take 001', 'pose' hold one pose") && note.contains("--anim \"Take 001\""), "{note}");
        // A file of poses: every clip plays, nothing is said.
        model.clips.remove(1);
        assert_eq!(names(default_clips(&model).0), ["Take 001", "pose"]);
        assert_eq!(still_clips_note(&model), None);
    }

    #[test]
    fn the_split_motion_hint_counts_joints_not_channels() {
        use ChannelTarget::{Rotation, Scale, Translation};
        // CesiumMan: each animation drives one joint through its translation, rotation and scale.
        let clips = (0..3).map(|j| keyed(&format!("anim{j}"), vec![Translation(j), Rotation(j), Scale(j)]));
        let mut model = Model { clips: clips.collect(), ..Model::default() };
        let hint = split_motion_hint(&model).expect("a hint for three one-joint animations");
        assert!(hint.contains("3 animations") && hint.contains("--anim all"), "{hint}");
        // Animations that each drive several joints are whole motions: no hint.
        model.clips = (0..3).map(|j| keyed(&format!("anim{j}"), vec![Rotation(j), Rotation(j + 1)])).collect();
        assert_eq!(split_motion_hint(&model), None);
    }
}
