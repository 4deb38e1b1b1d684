//! Half-Life / Source SMD (text): reference files (skeleton + triangles) and sequence files
//! (skeleton frames only).
//!
//! Conventions (see DESIGN.md): bone local matrix `T(p) · Rz · Ry · Rx` in radians; a reference
//! holds the mesh at the pose of its `time 0` frame, so skinning uses
//! `anim_abs · inverse(ref_abs) · v`, stored here as joint-space influence positions; UVs are
//! bottom-left based and flipped to top-left; Source vertex lines may list (bone, weight) links,
//! and what they leave short of 1 goes to the vertex's own parent bone. Sequences are
//! retargeted as studiomdl does: each frame is evaluated in the sequence's own hierarchy (a
//! bone a frame omits keeps its previous value), and every bone's model-space transform is
//! mapped onto the reference bone **of the same name** (HL2 sequences put `ValveBiped.Bip01`
//! above the pelvis and list fingers the reference lacks). Unknown blocks
//! (`vertexanimation`, ...) are skipped with a warning.

use std::collections::HashMap;

use glam::{Affine3A, Quat, Vec2, Vec3};

use super::FormatError;
use crate::budget::MemoryBudget;
use crate::error::excerpt;
use crate::model::{
    Clip, ClipFrames, Influence, Joint, JointPose, Material, Mesh, Model, Orientation, Retarget, Skeleton,
};

const FORMAT: &str = "SMD";
/// Default sequence rate: studiomdl's default.
pub const DEFAULT_FPS: f32 = 30.0;
const MAX_BONES: usize = 4096;

/// Numbered, trimmed, non-empty lines with `//` comments removed.
fn lines(src: &str) -> impl Iterator<Item = (usize, &str)> {
    src.lines().enumerate().filter_map(|(i, l)| {
        let l = l.split("//").next().unwrap_or("").trim();
        (!l.is_empty()).then_some((i + 1, l))
    })
}

fn err(line: usize, message: impl Into<String>) -> FormatError {
    FormatError::at_line(FORMAT, line, message)
}

fn numbers<const N: usize>(line: usize, words: &[&str]) -> Result<[f32; N], FormatError> {
    let mut out = [0.0; N];
    if words.len() < N {
        return Err(err(line, format!("expected {N} numbers, found {}", words.len())));
    }
    for (o, w) in out.iter_mut().zip(words) {
        *o = match w.parse::<f32>() {
            Ok(x) if x.is_finite() => x,
            _ => return Err(err(line, format!("expected a finite number, found `{}`", excerpt(w)))),
        };
    }
    Ok(out)
}

fn integer(line: usize, word: Option<&&str>, what: &str) -> Result<i64, FormatError> {
    let word = word.ok_or_else(|| err(line, format!("expected {what}, found the end of the line")))?;
    word.parse().map_err(|_| err(line, format!("expected {what}, found `{}`", excerpt(word))))
}

/// A node list: names and parents, in file order.
struct Nodes {
    names: Vec<String>,
    parents: Vec<Option<usize>>,
}

/// A block that runs to the end of the file: the error names the line that opened it.
#[cold]
fn unclosed(block: &str, opened: usize) -> FormatError {
    err(opened, format!("`{block}` block opened here has no `end`"))
}

/// Parses `id "name" parent` lines until `end` (the block opened on line `opened`).
fn parse_nodes<'a>(it: &mut impl Iterator<Item = (usize, &'a str)>, opened: usize) -> Result<Nodes, FormatError> {
    let mut nodes = Nodes { names: Vec::new(), parents: Vec::new() };
    for (n, l) in it.by_ref() {
        if l == "end" {
            return Ok(nodes);
        }
        let (id, rest) = l.split_once(char::is_whitespace).ok_or_else(|| err(n, "expected `id \"name\" parent`"))?;
        let id: usize = id.parse().map_err(|_| err(n, format!("expected a node id, found `{}`", excerpt(id))))?;
        let rest = rest.trim();
        let (name, parent) = match rest.strip_prefix('"').and_then(|r| r.split_once('"')) {
            Some((name, parent)) => (name, parent.trim()),
            None => rest.rsplit_once(char::is_whitespace).ok_or_else(|| err(n, "expected a quoted node name"))?,
        };
        let parent: i64 =
            parent.parse().map_err(|_| err(n, format!("expected a parent id, found `{}`", excerpt(parent))))?;
        if id != nodes.names.len() || id >= MAX_BONES {
            return Err(err(n, format!("expected node id {}, found {id}", nodes.names.len())));
        }
        let parent = usize::try_from(parent).ok();
        if parent.is_some_and(|p| p >= id) {
            return Err(err(n, format!("node {id} '{name}': its parent must be listed before it")));
        }
        nodes.names.push(name.to_string());
        nodes.parents.push(parent);
    }
    Err(unclosed("nodes", opened))
}

/// Parses `time N` frames until `end`: each frame lists `bone px py pz rx ry rz` for some bones.
fn parse_skeleton<'a>(
    it: &mut impl Iterator<Item = (usize, &'a str)>,
    bone_count: usize,
    opened: usize,
) -> Result<Vec<Vec<(usize, JointPose)>>, FormatError> {
    let mut frames: Vec<Vec<(usize, JointPose)>> = Vec::new();
    for (n, l) in it.by_ref() {
        if l == "end" {
            return Ok(frames);
        }
        let words: Vec<&str> = l.split_whitespace().collect();
        if words.first() == Some(&"time") {
            frames.push(Vec::new());
            continue;
        }
        let Some(frame) = frames.last_mut() else {
            return Err(err(n, "expected `time N` before bone transforms"));
        };
        let bone = integer(n, words.first(), "a bone id")?;
        let bone = usize::try_from(bone)
            .ok()
            .filter(|&b| b < bone_count)
            .ok_or_else(|| err(n, format!("bone {bone} is not in the node list (0..{bone_count})")))?;
        let [px, py, pz, rx, ry, rz] = numbers::<6>(n, &words[1..])?;
        let rotation = Quat::from_rotation_z(rz) * Quat::from_rotation_y(ry) * Quat::from_rotation_x(rx);
        frame.push((bone, JointPose { translation: Vec3::new(px, py, pz), rotation, scale: Vec3::ONE }));
    }
    Err(unclosed("skeleton", opened))
}

/// Skips an unknown block to its `end`.
fn skip_block<'a>(it: &mut impl Iterator<Item = (usize, &'a str)>) {
    for (_, l) in it.by_ref() {
        if l == "end" {
            return;
        }
    }
}

fn expect_version<'a>(it: &mut impl Iterator<Item = (usize, &'a str)>) -> Result<(), FormatError> {
    match it.next() {
        Some((_, l)) if l.split_whitespace().eq(["version", "1"]) => Ok(()),
        Some((n, l)) => Err(err(n, format!("expected `version 1`, found `{}`", excerpt(l)))),
        None => Err(FormatError::whole_file(FORMAT, "empty file (expected `version 1`)")),
    }
}

/// Whether `src` is a sequence (animation) SMD: a `skeleton` block and no `triangles` block.
/// Such a file is a clip of some reference model, not a model: folder scans leave it out.
pub fn is_sequence(src: &str) -> bool {
    let mut it = lines(src);
    if expect_version(&mut it).is_err() {
        return false;
    }
    let mut skeleton = false;
    for (_, line) in it {
        match line {
            "triangles" => return false,
            "skeleton" => skeleton = true,
            _ => {}
        }
    }
    skeleton
}

/// Parses a reference SMD (skeleton + triangles).
///
/// # Errors
/// A malformed file: bad numbers, unknown bones, missing blocks, with the line.
pub fn parse_reference(src: &str) -> Result<Model, FormatError> {
    let mut it = lines(src);
    expect_version(&mut it)?;
    let mut nodes = None;
    let mut bind: Option<Vec<JointPose>> = None;
    let mut model = Model { orientation: Orientation::Z_UP_FACING_NEG_Y, ..Model::default() };
    while let Some((n, l)) = it.next() {
        match l {
            "nodes" => nodes = Some(parse_nodes(&mut it, n)?),
            "skeleton" => {
                let count = nodes.as_ref().map_or(0, |nd: &Nodes| nd.names.len());
                let frames = parse_skeleton(&mut it, count, n)?;
                let mut pose = vec![JointPose::IDENTITY; count];
                for (bone, p) in frames.into_iter().next().unwrap_or_default() {
                    pose[bone] = p;
                }
                bind = Some(pose);
            }
            "triangles" => {
                let nodes = nodes.as_ref().ok_or_else(|| err(n, "`triangles` before `nodes`"))?;
                let rest = bind.get_or_insert_with(|| vec![JointPose::IDENTITY; nodes.names.len()]);
                let skeleton = skeleton(nodes, rest);
                let abs = skeleton.to_model_space(&skeleton.rest_pose());
                parse_triangles(&mut it, &abs, &mut model, n)?;
            }
            _ => {
                model.warnings.push(format!("line {n}: unknown block `{l}` skipped"));
                skip_block(&mut it);
            }
        }
    }
    let nodes = nodes.ok_or_else(|| FormatError::whole_file(FORMAT, "no `nodes` block"))?;
    let rest = bind.unwrap_or_else(|| vec![JointPose::IDENTITY; nodes.names.len()]);
    model.skeleton = Some(skeleton(&nodes, &rest));
    if model.meshes.is_empty() {
        return Err(FormatError::whole_file(FORMAT, "no triangles: a reference SMD needs a `triangles` block"));
    }
    Ok(model)
}

fn skeleton(nodes: &Nodes, rest: &[JointPose]) -> Skeleton {
    Skeleton {
        joints: nodes
            .names
            .iter()
            .zip(&nodes.parents)
            .zip(rest)
            .map(|((name, &parent), &rest)| Joint { name: name.clone(), parent, rest })
            .collect(),
    }
}

/// Parses triangles (material line + three vertex lines) until `end`, one mesh per material.
fn parse_triangles<'a>(
    it: &mut impl Iterator<Item = (usize, &'a str)>,
    abs: &[Affine3A],
    model: &mut Model,
    opened: usize,
) -> Result<(), FormatError> {
    let inverse: Vec<Affine3A> = abs.iter().map(|m| m.inverse()).collect();
    // Mesh by material name, so each triangle's lookup is constant time (there may be
    // thousands of materials and millions of triangles).
    let mut by_material: HashMap<String, usize> =
        model.meshes.iter().enumerate().map(|(i, m)| (m.name.clone(), i)).collect();
    loop {
        let Some((n, material)) = it.next() else {
            return Err(unclosed("triangles", opened));
        };
        if material == "end" {
            return Ok(());
        }
        // One mesh per material, also across several `triangles` blocks.
        let mesh_index = match by_material.get(material) {
            Some(&i) => i,
            None if model.meshes.len() >= super::MAX_MESHES => {
                let most = super::MAX_MESHES;
                return Err(err(
                    n,
                    format!("material '{material}' would be material {}: at most {most} are allowed", most + 1),
                ));
            }
            None => {
                by_material.insert(material.to_string(), model.meshes.len());
                let mut entry = Material { texture_name: Some(material.to_string()), ..Material::named(material) };
                let file = material.rsplit(['/', '\\']).next().unwrap_or(material);
                if file.starts_with('{') {
                    mask(&mut entry);
                }
                model.materials.push(entry);
                model.meshes.push(Mesh {
                    name: material.to_string(),
                    material: model.materials.len() - 1,
                    ..Mesh::default()
                });
                model.meshes.len() - 1
            }
        };
        let Some(mesh) = model.meshes.get_mut(mesh_index) else { continue };
        let base = mesh.positions.len() as u32;
        for _ in 0..3 {
            let (vn, l) = it.next().ok_or_else(|| err(n, "triangle has fewer than 3 vertex lines"))?;
            parse_vertex(vn, l, &inverse, mesh)?;
        }
        // SMD triangles wind counter-clockwise seen from the front, as the model expects.
        mesh.indices.push([base, base + 1, base + 2]);
    }
}

fn parse_vertex(n: usize, line: &str, inverse: &[Affine3A], mesh: &mut Mesh) -> Result<(), FormatError> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let bone_index = |b: i64| -> Result<usize, FormatError> {
        usize::try_from(b)
            .ok()
            .filter(|&b| b < inverse.len())
            .ok_or_else(|| err(n, format!("vertex names bone {b}, but the skeleton has bones 0..{}", inverse.len())))
    };
    let parent = bone_index(integer(n, words.first(), "a bone id")?)?;
    let [px, py, pz, nx, ny, nz, u, v] = numbers::<8>(n, words.get(1..).unwrap_or(&[]))?;
    let (position, normal) = (Vec3::new(px, py, pz), Vec3::new(nx, ny, nz).try_normalize().unwrap_or(Vec3::Z));
    // Source-engine links: count, then (bone, weight) pairs.
    let mut links: Vec<(usize, f32)> = Vec::new();
    if let Some(count) = words.get(9) {
        let count: usize =
            count.parse().map_err(|_| err(n, format!("expected a link count, found `{}`", excerpt(count))))?;
        if words.len() < 10 + 2 * count {
            return Err(err(n, format!("expected {count} (bone, weight) links, found {}", (words.len() - 10) / 2)));
        }
        for k in 0..count {
            let bone = bone_index(integer(n, words.get(10 + 2 * k), "a bone id")?)?;
            let [w] = numbers::<1>(n, &words[11 + 2 * k..])?;
            links.push((bone, w.max(0.0)));
        }
    }
    let listed: f32 = links.iter().map(|l| l.1).sum();
    if listed < 1.0 - 1e-4 {
        // What the links leave short of 1 goes to the vertex's own parent bone.
        links.push((parent, 1.0 - listed));
    }
    let total: f32 = links.iter().map(|l| l.1).sum();
    let start = mesh.influences.len() as u32;
    for (bone, w) in links {
        let inv = inverse[bone];
        mesh.influences.push(Influence {
            joint: bone as u32,
            weight: w / total,
            position: inv.transform_point3(position),
            normal: inv.transform_vector3(normal),
        });
    }
    mesh.influence_ranges.push(start..mesh.influences.len() as u32);
    mesh.positions.push(position);
    mesh.normals.push(normal);
    // SMD's v grows upwards from the bottom of the image.
    mesh.uvs.push(Vec2::new(u, 1.0 - v));
    Ok(())
}

/// Parses a sequence SMD into a clip named `name`, mapped onto `skeleton` (see
/// [`parse_sequence_within`]). Returns the clip and warnings (skipped blocks).
///
/// # Errors
/// A malformed file, or frames × bones over the default memory budget.
pub fn parse_sequence(src: &str, name: &str, skeleton: &Skeleton) -> crate::Result<(Clip, Vec<String>)> {
    parse_sequence_within(src, name, skeleton, &MemoryBudget::default())
}

/// As [`parse_sequence`], charging the frames (each a pose of every reference bone) to
/// `budget` before they are allocated.
///
/// The sequence is retargeted as studiomdl does: each frame is evaluated in the sequence's own
/// hierarchy (a bone a frame omits keeps its previous value there), every sequence bone is
/// mapped onto the reference bone of the same name, and that bone's parent-relative pose is
/// `inverse(parent's model-space transform in the result) · the sequence bone's model-space
/// transform` (the model-space transform itself for a reference root). Where a mapped bone's
/// sequence parent is the namesake of its reference parent, that is the sequence's own local
/// pose, taken as it is; reference bones the sequence lacks keep their rest pose relative to
/// their (animated) parent. When the hierarchies differ, [`Clip::retarget`] says how.
///
/// # Errors
/// As [`parse_sequence`]; [`crate::Error::Budget`] over the budget.
pub fn parse_sequence_within(
    src: &str,
    name: &str,
    skeleton: &Skeleton,
    budget: &MemoryBudget,
) -> crate::Result<(Clip, Vec<String>)> {
    let mut it = lines(src);
    expect_version(&mut it)?;
    let mut nodes: Option<Nodes> = None;
    let mut warnings = Vec::new();
    let mut frames = Vec::new();
    let mut retarget = None;
    while let Some((n, l)) = it.next() {
        match l {
            "nodes" => nodes = Some(parse_nodes(&mut it, n)?),
            "skeleton" => {
                let nodes = nodes.as_ref().ok_or_else(|| err(n, "`skeleton` before `nodes`"))?;
                let mapping = Mapping::new(nodes, skeleton);
                // What the clip keeps besides its frames: its name and the mapping's report,
                // which names every reference bone the sequence lacks (a one-bone sequence on
                // a 2000-bone reference keeps 1999 names, more than its frame costs).
                let kept = size_of::<Clip>() + name.len() + mapping.report.as_ref().map_or(0, Retarget::held_bytes);
                budget.charge(kept as u64, || {
                    format!(
                        "the mapping of {} sequence bones onto {} reference bones",
                        nodes.names.len(),
                        skeleton.joints.len()
                    )
                })?;
                // The parsed frames list only the bones each `time` block names (bounded by the
                // text); every clip frame holds all of them: a line `time N` costs a pose of
                // every bone, so 50 KB of them can ask for gigabytes.
                let parsed = parse_skeleton(&mut it, nodes.names.len(), n)?;
                let bones = skeleton.joints.len() as u64;
                let bytes = ClipFrames::skeletal_bytes(parsed.len() as u64, bones);
                budget.charge(bytes, || format!("{} frames x {bones} bones", frames.len() + parsed.len()))?;
                mapping.retarget_frames(nodes, skeleton, parsed, &mut frames);
                retarget = mapping.report;
            }
            _ => {
                warnings.push(format!("line {n}: block `{l}` skipped"));
                skip_block(&mut it);
            }
        }
    }
    if frames.is_empty() {
        return Err(
            FormatError::whole_file(FORMAT, "no skeleton frames: a sequence SMD needs a `skeleton` block").into()
        );
    }
    let clip = Clip {
        name: name.to_string(),
        fps: DEFAULT_FPS,
        frames: ClipFrames::Skeletal(frames),
        frame_bounds: Vec::new(),
        retarget,
        plays_once: false,
    };
    Ok((clip, warnings))
}

/// Where a reference bone's pose comes from in a sequence frame.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Source {
    /// The sequence bone's own parent-relative pose: its sequence parent is the namesake of the
    /// reference parent (or both are roots), so it is the same transform.
    Local(usize),
    /// The sequence bone's model-space transform, taken relative to the reference parent's
    /// model-space transform in the result.
    ModelSpace(usize),
    /// No sequence bone of that name: the reference rest pose.
    Rest,
}

/// A sequence's bones mapped onto the reference skeleton by name.
struct Mapping {
    /// Per reference bone.
    sources: Vec<Source>,
    /// Each sequence bone's value before a frame names it: its reference namesake's rest pose
    /// (as a sequence always was read), identity for the others.
    initial: Vec<JointPose>,
    /// What the mapping did, when the hierarchies differ.
    report: Option<Retarget>,
}

impl Mapping {
    fn new(nodes: &Nodes, skeleton: &Skeleton) -> Mapping {
        // Names to reference bones (the first of a repeated name, as `Skeleton::find`), in
        // linear time: a sequence may list thousands of bones.
        let mut by_name: HashMap<&str, usize> = HashMap::with_capacity(skeleton.joints.len());
        for (j, joint) in skeleton.joints.iter().enumerate() {
            by_name.entry(joint.name.as_str()).or_insert(j);
        }
        // Reference bone → the first sequence bone of its name; a sequence bone is mapped when
        // it is that bone.
        let mut source_bone: Vec<Option<usize>> = vec![None; skeleton.joints.len()];
        for (s, name) in nodes.names.iter().enumerate() {
            if let Some(&j) = by_name.get(name.as_str()) {
                source_bone[j].get_or_insert(s);
            }
        }
        let mapped = |s: usize| by_name.get(nodes.names[s].as_str()).copied().filter(|&j| source_bone[j] == Some(s));
        let sources: Vec<Source> = skeleton
            .joints
            .iter()
            .zip(&source_bone)
            .map(|(joint, &bone)| match bone {
                None => Source::Rest,
                Some(s) => match (nodes.parents[s], joint.parent) {
                    (None, None) => Source::Local(s),
                    (Some(ps), Some(pj)) if mapped(ps) == Some(pj) => Source::Local(s),
                    _ => Source::ModelSpace(s),
                },
            })
            .collect();
        // Unmapped ancestors of mapped bones are evaluated: they carry the mapped bones.
        let mut carrier = vec![false; nodes.names.len()];
        let mut visited = vec![false; nodes.names.len()];
        for s in source_bone.iter().flatten() {
            let mut up = nodes.parents[*s];
            while let Some(p) = up {
                if visited[p] {
                    break;
                }
                visited[p] = true;
                carrier[p] = mapped(p).is_none();
                up = nodes.parents[p];
            }
        }
        let above_root: Vec<String> =
            nodes.names.iter().zip(&carrier).filter(|(_, c)| **c).map(|(name, _)| name.clone()).collect();
        let report = Retarget {
            mapped: source_bone.iter().flatten().count(),
            reparented: sources.iter().filter(|s| matches!(s, Source::ModelSpace(_))).count(),
            ignored: (0..nodes.names.len()).filter(|&s| mapped(s).is_none() && !carrier[s]).count(),
            above_root,
            missing: sources.iter().enumerate().filter(|(_, s)| **s == Source::Rest).map(|(j, _)| j).collect(),
        };
        let identical =
            report.reparented == 0 && report.above_root.is_empty() && report.ignored == 0 && report.missing.is_empty();
        let initial = (0..nodes.names.len())
            .map(|s| mapped(s).and_then(|j| skeleton.joints.get(j)).map_or(JointPose::IDENTITY, |joint| joint.rest))
            .collect();
        Mapping { sources, initial, report: (!identical).then_some(report) }
    }

    /// Appends one reference pose (every reference bone, parent-relative) per parsed frame.
    fn retarget_frames(
        &self,
        nodes: &Nodes,
        skeleton: &Skeleton,
        parsed: Vec<Vec<(usize, JointPose)>>,
        frames: &mut Vec<Vec<JointPose>>,
    ) {
        let model_space = self.sources.iter().any(|s| matches!(s, Source::ModelSpace(_)));
        let mut local = self.initial.clone();
        // Model-space transforms: of the sequence's bones, and of the result's (the parents the
        // retargeted bones are taken relative to); only needed when a bone goes through them.
        let (seq_count, ref_count) = if model_space { (local.len(), skeleton.joints.len()) } else { (0, 0) };
        let mut seq_abs = vec![Affine3A::IDENTITY; seq_count];
        let mut ref_abs = vec![Affine3A::IDENTITY; ref_count];
        frames.reserve(parsed.len());
        for frame in parsed {
            // Bones a frame omits keep their previous value, in the sequence's own hierarchy.
            for (bone, pose) in frame {
                if let Some(l) = local.get_mut(bone) {
                    *l = pose;
                }
            }
            if model_space {
                for (s, parent) in nodes.parents.iter().enumerate() {
                    let m = local[s].to_affine();
                    // Parents precede their children (`parse_nodes`).
                    seq_abs[s] = parent.map_or(m, |p| seq_abs[p] * m);
                }
            }
            let mut poses = Vec::with_capacity(skeleton.joints.len());
            for (j, (joint, source)) in skeleton.joints.iter().zip(&self.sources).enumerate() {
                let parent_abs = match joint.parent {
                    Some(p) if model_space => ref_abs.get(p).copied().unwrap_or(Affine3A::IDENTITY),
                    _ => Affine3A::IDENTITY,
                };
                let pose = match *source {
                    Source::Local(s) => local[s],
                    Source::Rest => joint.rest,
                    Source::ModelSpace(s) => rigid(parent_abs.inverse() * seq_abs[s]),
                };
                if model_space {
                    ref_abs[j] = parent_abs * pose.to_affine();
                }
                poses.push(pose);
            }
            frames.push(poses);
        }
    }
}

/// The rigid pose of a transform built from rotations and translations (SMD has no scale).
fn rigid(m: Affine3A) -> JointPose {
    let (_, rotation, translation) = m.to_scale_rotation_translation();
    JointPose { translation, rotation: rotation.normalize(), scale: Vec3::ONE }
}

/// `bone px py pz rx ry rz` for a parent-relative pose (Euler angles for `Rz · Ry · Rx`).
fn bone_line(bone: usize, pose: &JointPose) -> String {
    let (rz, ry, rx) = pose.rotation.to_euler(glam::EulerRot::ZYX);
    let t = pose.translation;
    format!("{bone} {:.6} {:.6} {:.6} {rx:.9} {ry:.9} {rz:.9}\n", t.x, t.y, t.z)
}

fn write_nodes(s: &mut String, skeleton: &Skeleton) {
    s.push_str("version 1\nnodes\n");
    for (i, j) in skeleton.joints.iter().enumerate() {
        s.push_str(&format!("{i} \"{}\" {}\n", j.name, j.parent.map_or(-1, |p| p as i64)));
    }
    s.push_str("end\n");
}

/// Writes a skinned model as a reference SMD (the inverse of [`parse_reference`]): nodes, the
/// rest pose as `time 0`, and triangles with Source-style links for every influence. The
/// material line is the material's texture name (or its name).
pub fn write_reference(model: &Model) -> String {
    let empty = Skeleton::default();
    let skeleton = model.skeleton.as_ref().unwrap_or(&empty);
    let mut s = String::new();
    write_nodes(&mut s, skeleton);
    s.push_str("skeleton\ntime 0\n");
    for (i, j) in skeleton.joints.iter().enumerate() {
        s.push_str(&bone_line(i, &j.rest));
    }
    s.push_str("end\ntriangles\n");
    for mesh in &model.meshes {
        let material = model.materials.get(mesh.material);
        let name =
            material.and_then(|m| m.texture_name.clone()).or(material.map(|m| m.name.clone())).unwrap_or_default();
        for tri in &mesh.indices {
            s.push_str(&name);
            s.push('\n');
            for &v in tri {
                let v = v as usize;
                let (p, n) = (mesh.positions[v], mesh.normals[v]);
                let uv = mesh.uvs.get(v).copied().unwrap_or_default();
                let range = mesh.influence_ranges.get(v).cloned().unwrap_or(0..0);
                let links = &mesh.influences[range.start as usize..range.end as usize];
                let parent = links.first().map_or(0, |l| l.joint);
                s.push_str(&format!(
                    "{parent} {:.6} {:.6} {:.6} {:.6} {:.6} {:.6} {:.6} {:.6} {}",
                    p.x,
                    p.y,
                    p.z,
                    n.x,
                    n.y,
                    n.z,
                    uv.x,
                    1.0 - uv.y,
                    links.len()
                ));
                for l in links {
                    s.push_str(&format!(" {} {:.6}", l.joint, l.weight));
                }
                s.push('\n');
            }
        }
    }
    s.push_str("end\n");
    s
}

/// Writes a skeletal clip as a sequence SMD (the inverse of [`parse_sequence`]).
pub fn write_sequence(skeleton: &Skeleton, clip: &Clip) -> String {
    let mut s = String::new();
    write_nodes(&mut s, skeleton);
    s.push_str("skeleton\n");
    if let ClipFrames::Skeletal(frames) = &clip.frames {
        for (f, poses) in frames.iter().enumerate() {
            s.push_str(&format!("time {f}\n"));
            for (i, j) in skeleton.joints.iter().enumerate() {
                s.push_str(&bone_line(i, poses.get(i).unwrap_or(&j.rest)));
            }
        }
    }
    s.push_str("end\n");
    s
}

/// Makes `material` a GoldSrc masked texture: its palette's last colour transparent, alpha
/// tested (studiomdl's `masked` render mode, which a texture named `{...` gets by name and a
/// QC's `$texrendermode TEXTURE masked` by command).
pub fn mask(material: &mut Material) {
    material.palette_mask = true;
    material.alpha_mode = crate::model::AlphaMode::Mask(0.5);
}

/// Makes `material` a GoldSrc additive texture (`$texrendermode TEXTURE additive`: glows,
/// muzzle flashes), added to what is behind it.
pub fn add_light(material: &mut Material) {
    material.alpha_mode = crate::model::AlphaMode::Additive;
}
