//! Quake 3 player models: a folder's `lower.md3`, `upper.md3` and `head.md3`, joined by their
//! tags into one character, with the clips of its `animation.cfg` (the file a user loads).
//!
//! * **Joining.** The upper body hangs on the lower body's `tag_torso` and the head on the
//!   upper body's `tag_head`, each tag taken in the frame its part is showing, as Quake 3 joins
//!   them every frame.
//! * **Clips.** `animation.cfg` lists, after optional settings (`sex`, `headoffset`,
//!   `footsteps`, `fixedlegs`, `fixedtorso`), one line a clip: first frame, frame count, looping
//!   frames and fps, in Quake 3's fixed order (`BOTH_DEATH1` ... `LEGS_TURN`, named in lower
//!   case). `BOTH_` clips play on both parts; a `TORSO_` clip plays on the upper body over the
//!   legs' `legs_idle`, a `LEGS_` clip on the lower body under the torso's `torso_stand`, each
//!   of those looping under it. As in Quake 3, the legs' frames are numbered after the torso's
//!   in the file: `LEGS_` first frames are moved back by `LEGS_WALKCR`'s first minus
//!   `TORSO_GESTURE`'s. A clip with no looping frames plays once.
//! * **Skins.** `lower_NAME.skin`, `upper_NAME.skin` and `head_NAME.skin` (`NAME` is
//!   `--skin`, `default` by default) name each surface's texture (`surface,path` lines; `tag_`
//!   lines are skipped), a shader name as an MD3's own are ([`q3shader`](super::q3shader)).
//!   A part without its skin file keeps its shaders' names, with a warning when a skin other
//!   than `default` was asked for.
//!
//! The joined frames are made once, each part's vertices carried through its tags, so the
//! character is an ordinary vertex-animated model; they are charged to the budget first. The
//! parts' own tags are carried the same way, so `--attach weapon.md3@tag_weapon` hangs a
//! weapon in the hand of the joined character.

use std::path::{Path, PathBuf};

use glam::Affine3A;

use super::md3;
use super::{Files, FormatError};
use crate::budget::{MemoryBudget, bytes_for};
use crate::error::{Error, Result};
use crate::model::{Clip, ClipFrames, Mesh, Model, MorphFrame, Orientation, Tag};

const FORMAT: &str = "animation.cfg";
/// Quake 3's animations in `animation.cfg` order.
const ANIMATIONS: [&str; 25] = [
    "both_death1",
    "both_dead1",
    "both_death2",
    "both_dead2",
    "both_death3",
    "both_dead3",
    "torso_gesture",
    "torso_attack",
    "torso_attack2",
    "torso_drop",
    "torso_raise",
    "torso_stand",
    "torso_stand2",
    "legs_walkcr",
    "legs_walk",
    "legs_run",
    "legs_back",
    "legs_swim",
    "legs_jump",
    "legs_land",
    "legs_jumpb",
    "legs_landb",
    "legs_idle",
    "legs_idlecr",
    "legs_turn",
];
const TORSO_GESTURE: usize = 6;
const TORSO_STAND: usize = 11;
const LEGS_WALKCR: usize = 13;
const LEGS_IDLE: usize = 22;
/// Most frames the joined character may have (Quake 3's players have a few hundred).
const MAX_JOINED_FRAMES: usize = 1 << 14;

/// Whether `path` names a player's `animation.cfg` (any case).
pub fn is_animation_cfg(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n.eq_ignore_ascii_case("animation.cfg"))
}

/// What the `animation.cfg` at `path` is when no Quake 3 player stands beside it, its folder
/// lacking one of the `lower.md3`, `upper.md3` and `head.md3` that [`load`] joins (Tremulous
/// and Unvanquished models, MD5 ones among them, carry an `animation.cfg` of another layout);
/// `None` beside a player's three parts.
pub fn not_a_player(path: &Path) -> Option<&'static str> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let has_parts = ["lower", "upper", "head"].iter().all(|part| dir.join(format!("{part}.md3")).is_file());
    (!has_parts).then_some("animation.cfg of no Quake 3 player (no lower.md3, upper.md3 and head.md3 beside it)")
}

/// One line of `animation.cfg`.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Animation {
    first: usize,
    count: usize,
    looping: usize,
    fps: f32,
}

/// Reads the animation lines: four numbers each, settings and comments skipped.
fn animations(cfg: &str) -> std::result::Result<Vec<Animation>, FormatError> {
    let mut out = Vec::new();
    for (n, line) in cfg.lines().enumerate() {
        let text = line.split("//").next().unwrap_or_default();
        let words: Vec<&str> = text.split_whitespace().collect();
        let Some(first) = words.first() else { continue };
        if !first.starts_with(|c: char| c.is_ascii_digit() || c == '-') {
            continue;
        }
        let number = |k: usize| words.get(k).and_then(|w| w.parse::<f32>().ok()).filter(|v| v.is_finite());
        let (Some(a), Some(b), Some(c), Some(fps)) = (number(0), number(1), number(2), number(3)) else {
            return Err(FormatError::at_line(
                FORMAT,
                n + 1,
                "expected first frame, frame count, looping frames and fps",
            ));
        };
        if a < 0.0 || b < 1.0 || c < 0.0 || fps <= 0.0 {
            return Err(FormatError::at_line(FORMAT, n + 1, "frames and fps must be positive"));
        }
        out.push(Animation { first: a as usize, count: b as usize, looping: c as usize, fps });
        if out.len() == ANIMATIONS.len() {
            break;
        }
    }
    if out.len() < ANIMATIONS.len() {
        let message = format!("{} animation lines, Quake 3 players have {}", out.len(), ANIMATIONS.len());
        return Err(FormatError::whole_file(FORMAT, message));
    }
    Ok(out)
}

/// A part's `.md3` beside the cfg.
fn part(dir: &Path, name: &str, files: &mut Files, budget: &MemoryBudget) -> Result<(Model, PathBuf)> {
    let path = dir.join(format!("{name}.md3"));
    let (path, bytes) =
        files.read(&path).map_err(|denied| denied.into_error(&path, format!("the player's {name}.md3")))?;
    budget.charge((bytes.len() as u64).saturating_mul(2), || format!("{}: reading", path.display()))?;
    let model = md3::parse_within(&bytes, budget).map_err(|e| super::files::in_file(e, &path))?;
    Ok((model, path))
}

/// Names the textures of `model`'s surfaces from `PART_SKIN.skin` beside the cfg, when there
/// is one; says so in `warnings` when there is none and `skin` was asked for.
fn skin(dir: &Path, part: &str, skin: &str, model: &mut Model, files: &mut Files, warnings: &mut Vec<String>) {
    let path = dir.join(format!("{part}_{skin}.skin"));
    let Ok((_, bytes)) = files.read(&path) else {
        if skin != "default" {
            warnings.push(format!("{} was not found: the {part} keeps its shaders' textures", path.display()));
        }
        return;
    };
    for line in String::from_utf8_lossy(&bytes).lines() {
        let Some((surface, texture)) = line.split_once(',') else { continue };
        let (surface, texture) = (surface.trim(), texture.trim());
        if surface.starts_with("tag_") || texture.is_empty() {
            continue;
        }
        for mesh in model.meshes.iter().filter(|m| m.name.eq_ignore_ascii_case(surface)) {
            if let Some(material) = model.materials.get_mut(mesh.material) {
                material.texture_name = Some(texture.to_string());
            }
        }
    }
}

/// Loads the player whose `animation.cfg` is `cfg` (at `path`): its parts, the skin
/// `skin_name` and its clips; its textures are looked for in the cfg's folder.
///
/// # Errors
/// A missing or malformed part, a missing `tag_torso` or `tag_head`, a malformed cfg, a clip
/// past a part's frames, or the budget.
pub fn load(cfg: &str, path: &Path, skin_name: &str, files: &mut Files, budget: &MemoryBudget) -> Result<Model> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let anims = animations(cfg).map_err(|e| e.in_file(path))?;
    let (mut lower, lower_path) = part(dir, "lower", files, budget)?;
    let (mut upper, upper_path) = part(dir, "upper", files, budget)?;
    let (mut head, _) = part(dir, "head", files, budget)?;
    let mut warnings = Vec::new();
    for (model, part) in [(&mut lower, "lower"), (&mut upper, "upper"), (&mut head, "head")] {
        skin(dir, part, skin_name, model, files, &mut warnings);
    }
    // Each clip's frames of the lower and the upper body, in the parts' own numbering.
    let skip = anims[LEGS_WALKCR].first.saturating_sub(anims[TORSO_GESTURE].first);
    let legs = |a: &Animation| a.first.saturating_sub(skip);
    let mut clips = Vec::with_capacity(ANIMATIONS.len());
    let mut joined: Vec<(usize, usize)> = Vec::new();
    for (k, (name, a)) in ANIMATIONS.iter().zip(&anims).enumerate() {
        let (idle, stand) = (&anims[LEGS_IDLE], &anims[TORSO_STAND]);
        let start = joined.len();
        // Counted before the frames are listed: a cfg line may claim a billion frames.
        if start.saturating_add(a.count) > MAX_JOINED_FRAMES {
            let message =
                format!("the clips add up to more than {MAX_JOINED_FRAMES} frames ('{name}': {} frames)", a.count);
            return Err(FormatError::whole_file(FORMAT, message).in_file(path).into());
        }
        for i in 0..a.count {
            joined.push(if k < TORSO_GESTURE {
                (a.first + i, a.first + i)
            } else if k < LEGS_WALKCR {
                (legs(idle) + i % idle.count, a.first + i)
            } else {
                (legs(a) + i, stand.first + i % stand.count)
            });
        }
        clips.push(Clip {
            name: name.to_string(),
            fps: a.fps,
            frames: ClipFrames::Morph((start..joined.len()).collect()),
            frame_bounds: Vec::new(),
            retarget: None,
            plays_once: a.looping == 0,
        });
    }
    let frames_of = |m: &Model| m.meshes.first().map_or(0, |mesh| mesh.morph_frames.len());
    let (lower_frames, upper_frames) = (frames_of(&lower), frames_of(&upper));
    if let Some(&(l, u)) = joined.iter().find(|&&(l, u)| l >= lower_frames || u >= upper_frames) {
        let (file, frame, count) =
            if l >= lower_frames { (&lower_path, l, lower_frames) } else { (&upper_path, u, upper_frames) };
        let message = format!("a clip plays frame {frame} of {}, which has {count}", file.display());
        return Err(FormatError::whole_file(FORMAT, message).in_file(path).into());
    }
    let vertices: usize = [&lower, &upper, &head].iter().flat_map(|m| &m.meshes).map(|m| m.positions.len()).sum();
    let tags: usize = [&lower, &upper, &head].iter().map(|m| m.tags.len()).sum();
    // A vertex's position and normal, and a tag's placement, in every joined frame.
    let bytes =
        bytes_for((joined.len() * vertices) as u64, 24).saturating_add(bytes_for((joined.len() * tags) as u64, 48));
    budget.charge(bytes, || {
        format!("{}: {} joined frames x {vertices} vertices and {tags} tags", path.display(), joined.len())
    })?;
    let tag = |part: &Model, name: &str, frame: usize, file: &str| {
        part.tag(name).and_then(|t| part.tags[t].frames.get(frame).copied()).ok_or_else(|| {
            Error::from(FormatError::whole_file(FORMAT, format!("{file}.md3 has no {name}")).in_file(path))
        })
    };
    // Where each part stands in each joined frame: the frame it shows and the tags it hangs
    // on, found once for all of its meshes.
    let placed = joined
        .iter()
        .map(|&(l, u)| {
            let torso = tag(&lower, "tag_torso", l, "lower")?;
            let head = torso * tag(&upper, "tag_head", u, "upper")?;
            Ok([(l, Affine3A::IDENTITY), (u, torso), (0, head)])
        })
        .collect::<Result<Vec<_>>>()?;
    let mut model = Model { orientation: Orientation::Z_UP_FACING_X, clips, warnings, ..Model::default() };
    let missing = MorphFrame::default();
    for (which, part) in [&lower, &upper, &head].into_iter().enumerate() {
        for mesh in &part.meshes {
            let morph_frames: Vec<MorphFrame> = placed
                .iter()
                .map(|parts| {
                    let (own, place) = parts[which];
                    let frame = mesh.morph_frames.get(own).unwrap_or(&missing);
                    MorphFrame {
                        name: frame.name.clone(),
                        positions: frame.positions.iter().map(|&p| place.transform_point3(p)).collect(),
                        normals: frame
                            .normals
                            .iter()
                            .map(|&n| place.transform_vector3(n).normalize_or_zero())
                            .collect(),
                    }
                })
                .collect();
            let (uvs, indices) = (mesh.uvs.clone(), mesh.indices.clone());
            model.meshes.push(Mesh::morphed(mesh.name.clone(), model.materials.len(), uvs, indices, morph_frames));
            model.materials.push(part.materials.get(mesh.material).cloned().unwrap_or_default());
        }
        // The part's tags carried like its vertices (`tag_weapon` is the upper body's); where
        // two parts have a tag of one name, the lower part's is kept.
        for t in &part.tags {
            if model.tag(&t.name).is_none() {
                let frames = placed.iter().map(|parts| {
                    let (own, place) = parts[which];
                    place * t.frames.get(own).copied().unwrap_or(Affine3A::IDENTITY)
                });
                model.tags.push(Tag { name: t.name.clone(), frames: frames.collect() });
            }
        }
    }
    Ok(model)
}
