//! [`build`]: the model a parsed QC describes, from the reference and sequence SMDs it names
//! (read through the loader's [`Files`]).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use glam::Affine3A;

use super::script::{
    AttachmentDef, BodyChoice, BodyEntry, BodyGroup, FORMAT, Placement, Qc, Sequence, TextureMode, err,
};
use crate::budget::MemoryBudget;
use crate::confine::Denied;
use crate::error::suggest;
use crate::error::{Error, Result};
use crate::formats::files::in_file;
use crate::formats::{Files, Format, FormatError, MAX_MESHES, smd};
use crate::model::{AttachmentPoint, ClipFrames, MarkedMotion, Model, Skeleton};

/// Most bones a model merged from several references may have.
const MAX_JOINTS: usize = 4096;

/// What [`build`] made: the model and where its textures may be.
#[derive(Debug)]
pub struct Built {
    /// The model.
    pub model: Model,
    /// Texture folders to search after the QC's own.
    pub texture_folders: Vec<PathBuf>,
    /// The placement for animation files added on top (`--anim walk.smd`).
    pub placement: Placement,
}

/// The chosen entry of every group.
fn chosen<'q>(qc: &'q Qc, choices: &[BodyChoice]) -> Result<Vec<(&'q BodyGroup, &'q BodyEntry)>> {
    for choice in choices {
        if !qc.groups.iter().any(|g| g.name.eq_ignore_ascii_case(&choice.group)) {
            let known = qc.groups.iter().map(|g| g.name.as_str());
            let list: Vec<&str> = qc.groups.iter().map(|g| g.name.as_str()).collect();
            return Err(suggest::UnknownName::new(
                "body group",
                &choice.group,
                known,
                format!("groups: {}", list.join(", ")),
            )
            .into());
        }
    }
    let mut out = Vec::new();
    for group in &qc.groups {
        let pick = choices.iter().rev().find(|c| c.group.eq_ignore_ascii_case(&group.name));
        let entry = match pick {
            Some(c) => {
                let found = group.entries.iter().find(|e| e.choice_name().eq_ignore_ascii_case(&c.choice));
                let Some(entry) = found else {
                    let entries: Vec<String> = group.entries.iter().map(BodyEntry::choice_name).collect();
                    let context = format!("group '{}' has: {}", group.name, entries.join(", "));
                    let known = entries.iter().map(String::as_str);
                    return Err(suggest::UnknownName::new("body", &c.choice, known, context).into());
                };
                entry
            }
            None => match group.entries.first() {
                Some(e) => e,
                None => continue,
            },
        };
        out.push((group, entry));
    }
    Ok(out)
}

/// Builds the model a parsed QC describes: the chosen bodies (reference SMDs, placed and
/// merged), every sequence as a clip, the attachment points. Files are read through `files`;
/// what they make spritebake allocate is charged to `budget`.
///
/// # Errors
/// A `--body` choice naming no group or entry, a chosen body file that is missing, refused or
/// malformed, a malformed sequence file, no body at all, the budget.
pub fn build(qc: Qc, choices: &[BodyChoice], files: &mut Files, budget: &MemoryBudget) -> Result<Built> {
    let mut model = Model::default();
    let mut warnings = qc.warnings.clone();
    for (group, entry) in chosen(&qc, choices)? {
        let BodyEntry::Studio { path, placement, name } = entry else { continue };
        let subject = format!("{}: body '{}' file '{name}'", group.at, group.name);
        let (_, bytes) = files.read(path).map_err(|d| match d {
            Denied::Missing(_) => err(&group.at, format!("body '{}': {} is missing", group.name, path.display())),
            refused => refused.into_error(path, &subject),
        })?;
        let cost = (bytes.len() as u64).saturating_mul(Format::Smd.parse_bytes_per_byte());
        budget.charge(cost, || format!("{}: parsing {} KiB of SMD", path.display(), bytes.len().div_ceil(1024)))?;
        let mut part =
            smd::parse_reference(&String::from_utf8_lossy(&bytes)).map_err(|e| Error::Format(e.in_file(path)))?;
        warnings.extend(part.warnings.drain(..).map(|w| format!("{}: {w}", path.display())));
        placement.place_model(&mut part);
        merge(&mut model, part, path, &mut warnings)?;
    }
    if model.meshes.is_empty() {
        let message = "no body to show: a $body, $model or $bodygroup must name a reference SMD";
        return Err(FormatError::whole_file(FORMAT, message).in_file(&qc.file).into());
    }
    let skeleton = model.skeleton.clone().unwrap_or_default();
    let mut missing = Vec::new();
    let mut names = HashSet::new();
    for sequence in &qc.sequences {
        if !names.insert(sequence.name.as_str()) {
            warnings.push(format!("{}: a second sequence '{}' skipped", sequence.at, sequence.name));
            continue;
        }
        if !add_sequence(&mut model, &skeleton, sequence, files, budget, &mut warnings)? {
            missing.push(sequence);
        }
    }
    if let Some(first) = missing.first() {
        // One folder for all (the usual case) is named once; otherwise each file in full.
        let folder_of = |s: &&Sequence| s.path.as_deref().and_then(Path::parent).map(Path::to_path_buf);
        let folder = folder_of(first).filter(|f| missing.iter().all(|s| folder_of(s).as_ref() == Some(f)));
        let list: Vec<String> = missing
            .iter()
            .map(|s| {
                let path = s.path.as_deref().unwrap_or(Path::new(""));
                let file = match &folder {
                    Some(_) => path.file_name().unwrap_or_default().to_string_lossy(),
                    None => path.to_string_lossy(),
                };
                format!("{} ({file}, line {})", s.name, s.at.line)
            })
            .collect();
        let from = folder.map(|f| format!(" from {}", f.display())).unwrap_or_default();
        warnings.push(format!(
            "{}: {} sequence(s) skipped, their files are missing{from}: {}",
            first.at.file.display(),
            missing.len(),
            list.join(", ")
        ));
    }
    for def in &qc.attachments {
        match attachment_point(&skeleton, def) {
            Some(point) => model.attachment_points.push(point),
            None => warnings.push(format!("{}: attachment '{}': no bone '{}'; skipped", def.at, def.name, def.bone)),
        }
    }
    for material in &mut model.materials {
        let texture = material.texture_name.as_deref().unwrap_or(&material.name);
        let file = texture.rsplit(['/', '\\']).next().unwrap_or(texture).to_lowercase();
        let modes = || qc.texture_modes.iter().filter(|(name, _)| *name == file).map(|&(_, mode)| mode);
        // Of masked and additive, the texture's last `$texrendermode` wins, as studiomdl
        // applies them in order; chrome goes with either.
        match modes().rfind(|&mode| mode != TextureMode::Chrome) {
            Some(TextureMode::Masked) => smd::mask(material),
            Some(TextureMode::Additive) => smd::add_light(material),
            _ => {}
        }
        material.chrome = modes().any(|mode| mode == TextureMode::Chrome);
    }
    model.warnings.extend(warnings);
    Ok(Built { model, texture_folders: qc.texture_folders, placement: qc.placement })
}

/// Adds a sequence's clip; `Ok(false)` when its file is missing (the caller lists those in
/// one warning).
fn add_sequence(
    model: &mut Model,
    skeleton: &Skeleton,
    sequence: &Sequence,
    files: &mut Files,
    budget: &MemoryBudget,
    warnings: &mut Vec<String>,
) -> Result<bool> {
    let at = &sequence.at;
    let name = &sequence.name;
    let Some(path) = &sequence.path else {
        warnings.push(format!("{at}: sequence '{name}' names no file; skipped"));
        return Ok(true);
    };
    let bytes = match files.read(path) {
        Ok((_, bytes)) => bytes,
        Err(Denied::Missing(_)) => return Ok(false),
        Err(refused) => {
            warnings.push(format!("{at}: sequence '{name}': {} {refused}; skipped", path.display()));
            return Ok(true);
        }
    };
    let reading = (bytes.len() as u64).saturating_mul(2);
    budget.charge(reading, || format!("{}: reading {} KiB", path.display(), bytes.len().div_ceil(1024)))?;
    let text = String::from_utf8_lossy(&bytes);
    let (mut clip, seq_warnings) =
        smd::parse_sequence_within(&text, name, skeleton, budget).map_err(|e| in_file(e, path))?;
    warnings.extend(seq_warnings.into_iter().map(|w| format!("{}: {w}", path.display())));
    clip.fps = sequence.fps;
    clip.plays_once = !sequence.loops;
    if let (Some((first, last)), ClipFrames::Skeletal(frames)) = (sequence.frames, &mut clip.frames) {
        if first < frames.len() {
            frames.truncate(last.saturating_add(1));
            frames.drain(..first);
        } else {
            warnings.push(format!(
                "{at}: sequence '{name}': frame {first} {last} is past its {} frames; every frame kept",
                frames.len()
            ));
        }
    }
    sequence.placement.place_clip(skeleton, &mut clip);
    // Every sequence says which travel studiomdl takes off: none, without flags (its motion
    // is kept, as the compiled model plays it). The compiled model faces +X: its X is the
    // source's Y (turned 90° about Z).
    let [lx, ly, lz] = sequence.travel;
    model.marked_motion.push(MarkedMotion { clip: name.clone(), axes: [ly, lx, lz] });
    model.clips.push(clip);
    Ok(true)
}

/// The attachment point `def` makes on `skeleton`'s rest pose.
fn attachment_point(skeleton: &Skeleton, def: &AttachmentDef) -> Option<AttachmentPoint> {
    let joint = skeleton
        .find(&def.bone)
        .or_else(|| skeleton.joints.iter().position(|j| j.name.eq_ignore_ascii_case(&def.bone)))?;
    let offset = if def.absolute {
        let rest = skeleton.to_model_space(&skeleton.rest_pose());
        let at = rest.get(joint).copied().unwrap_or(Affine3A::IDENTITY);
        at.inverse().transform_point3(def.placement.point(def.offset))
    } else {
        def.offset * def.placement.scale
    };
    Some(AttachmentPoint { name: def.name.clone(), joint, offset })
}

/// Merges a reference `part` into `model`: bones by name (the first file's rest pose and
/// parent win; a different parent is a warning), meshes and materials appended.
fn merge(model: &mut Model, mut part: Model, path: &Path, warnings: &mut Vec<String>) -> Result<()> {
    let Some(skeleton) = &mut model.skeleton else {
        *model = part;
        return Ok(());
    };
    let part_skeleton = part.skeleton.take().unwrap_or_default();
    let mut map = Vec::with_capacity(part_skeleton.joints.len());
    for joint in &part_skeleton.joints {
        let parent = joint.parent.and_then(|p| map.get(p).copied());
        match skeleton.find(&joint.name) {
            Some(i) => {
                if skeleton.joints.get(i).map(|j| j.parent) != Some(parent) {
                    warnings.push(format!(
                        "{}: bone '{}' has another parent than in the first body; the first's is kept",
                        path.display(),
                        joint.name
                    ));
                }
                map.push(i);
            }
            None => {
                if skeleton.joints.len() >= MAX_JOINTS {
                    return Err(Error::in_file(path, format!("the bodies together have more than {MAX_JOINTS} bones")));
                }
                map.push(skeleton.joints.len());
                skeleton.joints.push(crate::model::Joint { parent, ..joint.clone() });
            }
        }
    }
    if model.meshes.len() + part.meshes.len() > MAX_MESHES {
        return Err(Error::in_file(path, format!("the bodies together have more than {MAX_MESHES} materials")));
    }
    let material_base = model.materials.len();
    model.materials.append(&mut part.materials);
    for mut mesh in part.meshes {
        mesh.material += material_base;
        for influence in &mut mesh.influences {
            influence.joint = map.get(influence.joint as usize).copied().unwrap_or(0) as u32;
        }
        model.meshes.push(mesh);
    }
    Ok(())
}
