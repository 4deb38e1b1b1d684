//! `spritebake info`: what a model holds.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use spritebake::formats;
use spritebake::internal::escape::shell_word;
use spritebake::internal::terminal::escape_control;
use spritebake::model::{ClipFrames, Model, Retarget, TextureStatus};

use spritebake::spec::{AnimSpec, BakeSpec, LimitsSpec, ModelSpec};

/// `spritebake info`.
#[derive(Debug, Args)]
pub struct InfoArgs {
    /// Model selection.
    #[command(flatten)]
    pub model: ModelSpec,
    /// Animation files to load with the model (.md5anim, sequence .smd), so their clips are
    /// listed; repeatable and comma-separated.
    #[arg(long, value_name = "FILE", value_delimiter = ',')]
    pub anim: Vec<String>,
    /// Resource limits.
    #[command(flatten)]
    pub limits: LimitsSpec,
}

/// Writes one line of output with model text escaped (names may hold newlines and escape
/// sequences; see [`escape_control`]).
fn line(out: &mut impl Write, text: String) -> std::io::Result<()> {
    writeln!(out, "{}", escape_control(&text))
}

/// At most this many bone names in a list; the rest show as `...`.
const NAMES_SHOWN: usize = 4;

/// `a, b, c, d, ...`: the first names of a list.
fn some_names(names: &[String]) -> String {
    let mut shown: Vec<String> = names.iter().take(NAMES_SHOWN).map(|n| shell_word(n)).collect();
    if names.len() > NAMES_SHOWN {
        shown.push("...".into());
    }
    shown.join(", ")
}

/// One line saying how a sequence was mapped onto the model's skeleton.
fn retarget_line(clip: &str, r: &Retarget) -> String {
    let reparented = if r.reparented > 0 { format!(" ({} under another parent)", r.reparented) } else { String::new() };
    let above = if r.above_root.is_empty() { String::new() } else { format!(" ({})", some_names(&r.above_root)) };
    format!(
        "sequence {}: {} bones mapped{reparented}, {} added above the root{above}, {} ignored (not in the reference), \
         {} missing (kept at their reference pose)",
        shell_word(clip),
        r.mapped,
        r.above_root.len(),
        r.ignored,
        r.missing.len()
    )
}

/// Runs the command.
pub fn run(args: &InfoArgs) -> Result<ExitCode> {
    let mut stdout = std::io::stdout();
    let spec = BakeSpec {
        model: args.model.clone(),
        anim: AnimSpec { anim: args.anim.clone(), ..AnimSpec::default() },
        limits: args.limits.clone(),
        ..BakeSpec::default()
    };
    let resolved = spec.resolve()?;
    let model = formats::load(&resolved.model, &resolved.load)?;
    line(&mut stdout, format!("model: {} ({})", args.model.model.display(), model.name))?;
    meshes_and_materials(&mut stdout, &model)?;
    joints_and_points(&mut stdout, &model)?;
    clips(&mut stdout, &model)?;
    bounds_and_facing(&mut stdout, &model)?;
    for w in &model.warnings {
        line(&mut stdout, format!("warning: {w}"))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The meshes (sizes, material, vertex colours) and the materials (each one's texture and
/// where it was found).
fn meshes_and_materials(out: &mut impl Write, model: &Model) -> std::io::Result<()> {
    line(
        out,
        format!(
            "meshes: {}  vertices: {}  triangles: {}",
            model.meshes.len(),
            model.vertex_count(),
            model.triangle_count()
        ),
    )?;
    for (i, mesh) in model.meshes.iter().enumerate() {
        let material = model.materials.get(mesh.material).map(|m| m.name.as_str()).unwrap_or("?");
        let colours = if mesh.colors.is_empty() { "" } else { ", vertex colours" };
        line(
            out,
            format!(
                "  mesh {i} '{}': {} vertices, {} triangles, material '{material}'{colours}",
                mesh.name,
                mesh.positions.len(),
                mesh.indices.len()
            ),
        )?;
    }
    line(out, format!("materials: {}", model.materials.len()))?;
    for m in &model.materials {
        let texture = match &m.texture_status {
            TextureStatus::None => "no texture".to_string(),
            TextureStatus::Found(path) => {
                let source = m.texture_source.map_or("found", |s| s.describe());
                format!("texture {} ({source})", path.display())
            }
            TextureStatus::Embedded(what) => format!("texture {what} (embedded in the model)"),
            TextureStatus::Missing { name, reason } => format!("texture '{name}' MISSING ({reason})"),
        };
        line(out, format!("  '{}': {texture}", m.name))?;
    }
    Ok(())
}

/// The names `--bone` and `--attach` take: joints with their parents, attachment points and
/// tags, each with where it is.
fn joints_and_points(out: &mut impl Write, model: &Model) -> std::io::Result<()> {
    if let Some(skeleton) = &model.skeleton {
        line(
            out,
            format!("joints: {} (names as --bone NAME:yaw=.. and --attach FILE@NAME take them)", skeleton.joints.len()),
        )?;
        for (i, joint) in skeleton.joints.iter().enumerate() {
            let parent = joint.parent.and_then(|p| skeleton.joints.get(p)).map(|p| p.name.as_str());
            line(
                out,
                format!("  {i:3} {} (parent: {})", shell_word(&joint.name), parent.map_or("none".into(), shell_word)),
            )?;
        }
    }
    if !model.attachment_points.is_empty() {
        line(out, format!("attachment points: {} (as --attach FILE@NAME takes them)", model.attachment_points.len()))?;
        let joints = model.skeleton.as_ref().map(|s| s.joints.as_slice()).unwrap_or_default();
        for point in &model.attachment_points {
            let joint = joints.get(point.joint).map_or("?", |j| j.name.as_str());
            let o = point.offset;
            line(
                out,
                format!("  {} on {} at {:.3} {:.3} {:.3}", shell_word(&point.name), shell_word(joint), o.x, o.y, o.z),
            )?;
        }
    }
    if !model.tags.is_empty() {
        line(out, format!("tags: {} (as --attach FILE@NAME takes them)", model.tags.len()))?;
        for tag in &model.tags {
            let o = tag.frames.first().map(|f| f.translation).unwrap_or_default();
            line(out, format!("  {} at {:.3} {:.3} {:.3} in the first frame", shell_word(&tag.name), o.x, o.y, o.z))?;
        }
    }
    Ok(())
}

/// The clips (frames, rate, length, kind, root travel, once) and how each sequence was mapped
/// onto the skeleton.
fn clips(out: &mut impl Write, model: &Model) -> std::io::Result<()> {
    line(out, format!("clips: {}", model.clips.len()))?;
    for clip in &model.clips {
        let kind = match clip.frames {
            ClipFrames::Skeletal(_) => "skeletal",
            ClipFrames::Morph(_) => "morph",
            ClipFrames::Keyed(_) => "keyed",
        };
        let travel = match model.marked_axes(&clip.name).filter(|axes| axes.contains(&true)) {
            Some(axes) => {
                let marked: Vec<&str> = ["x", "y", "z"].iter().zip(axes).filter(|(_, m)| *m).map(|(a, _)| *a).collect();
                format!(", root travel on {}", marked.join(", "))
            }
            None => String::new(),
        };
        let once = if clip.plays_once { ", plays once" } else { "" };
        line(
            out,
            format!(
                "  '{}': {} frames at {} fps, {:.3} s ({kind}{travel}{once})",
                clip.name,
                clip.frame_count(),
                clip.fps,
                clip.duration()
            ),
        )?;
    }
    for clip in &model.clips {
        if let Some(r) = &clip.retarget {
            line(out, retarget_line(&clip.name, r))?;
        }
    }
    Ok(())
}

/// Where the model stands: its bounds, the way it faces (checked against what the model
/// shows) and the ground `--ground auto` takes.
fn bounds_and_facing(out: &mut impl Write, model: &Model) -> std::io::Result<()> {
    let b = model.rest_bounds();
    if b.is_empty() {
        line(out, "bounds: empty".to_string())?;
    } else {
        line(
            out,
            format!(
                "bounds: min {:.4} {:.4} {:.4}  max {:.4} {:.4} {:.4}",
                b.min.x, b.min.y, b.min.z, b.max.x, b.max.y, b.max.z
            ),
        )?;
    }
    let front = model.orientation.forward;
    let facing = match model.seeming_front() {
        Some(sign) if sign.axis == front => format!("facing: {front} ({} agree)", sign.evidence),
        Some(sign) => format!("facing: {front}, but {} show {}: try --facing {}", sign.evidence, sign.axis, sign.axis),
        None => format!("facing: {front} (nothing in the model to check it by)"),
    };
    line(out, facing)?;
    if let Some((y, pose)) = spritebake::internal::bake::reference_ground(model) {
        // What `--ground auto` stands a sheet on, in world units (y up).
        line(out, format!("ground: {y:.4} (the lowest point of {pose}; --ground auto)"))?;
    }
    Ok(())
}
