//! Doom 3 MD5 (text): `.md5mesh` (skeleton + weighted meshes) and `.md5anim` (one clip).
//!
//! Conventions (see DESIGN.md): quaternions store x, y, z with `w = −√(1 − x² − y² − z²)`
//! (0 when negative); mesh joints are in model space, anim joints parent-relative with flag
//! bits Tx Ty Tz Qx Qy Qz replacing baseframe values in order from `startIndex`; a vertex is
//! `Σ bias · (joint.pos + joint.orient · weight.pos)`; UV (0,0) is the image's top-left.
//! Triangles are clockwise seen from the front (Doom 3 culls the other way round from GL), so
//! they are reversed into the model's counter-clockwise convention.
//!
//! Every count and index is validated before use; allocations are bounded by the text left.

use glam::{Quat, Vec2, Vec3};

use super::FormatError;
use super::tokens::{Syntax, Tokens};
use crate::budget::{MemoryBudget, bytes_for};
use crate::model::{Aabb, Clip, ClipFrames, Influence, Joint, JointPose, Material, Mesh, Model, Orientation, Skeleton};

const FORMAT: &str = "MD5";
/// Generous limits far above real assets (Doom 3 allows 1024 joints per model).
const MAX_JOINTS: i64 = 4096;
const MAX_COUNT: i64 = 1 << 24;

/// Rebuilds a unit quaternion from the stored x, y, z (w ≤ 0 by the format's convention).
fn quat(xyz: [f32; 3]) -> Quat {
    let [x, y, z] = xyz;
    let t = 1.0 - x * x - y * y - z * z;
    let w = if t < 0.0 { 0.0 } else { -t.sqrt() };
    Quat::from_xyzw(x, y, z, w).normalize()
}

fn header(t: &mut Tokens) -> Result<(), FormatError> {
    t.expect("MD5Version")?;
    let line = t.line();
    let version = t.integer(i64::MIN, i64::MAX)?;
    if version != 10 {
        return Err(FormatError::at_line(FORMAT, line, format!("expected MD5Version 10, found {version}")));
    }
    if t.peek().is_some_and(|k| k.text == "commandline") {
        t.next_token();
        t.string()?;
    }
    Ok(())
}

/// `count` items each at least `min_bytes` long must fit in the text that is left.
fn bounded_count(t: &mut Tokens, count: i64, min_bytes: usize, what: &str) -> Result<usize, FormatError> {
    let count = count as usize;
    if count.saturating_mul(min_bytes) > t.remaining_bytes() {
        return Err(t.error(format!("{what} count {count} is more than the rest of the file can hold")));
    }
    Ok(count)
}

/// Parses an `.md5mesh` file.
///
/// # Errors
/// A malformed file: wrong version, bad numbers, counts or indices out of range, with the line.
pub fn parse_mesh(src: &str) -> Result<Model, FormatError> {
    let mut t = Tokens::new(FORMAT, Syntax::MD5, src);
    header(&mut t)?;
    t.expect("numJoints")?;
    let num_joints = t.integer(0, MAX_JOINTS)?;
    let num_joints = bounded_count(&mut t, num_joints, 16, "joint")?;
    t.expect("numMeshes")?;
    let num_meshes = t.integer(0, super::MAX_MESHES as i64)?;
    let num_meshes = bounded_count(&mut t, num_meshes, 8, "mesh")?;

    // Joints: model-space position and orientation.
    t.expect("joints")?;
    t.expect("{")?;
    let mut names = Vec::with_capacity(num_joints);
    let mut model_space: Vec<(Vec3, Quat)> = Vec::with_capacity(num_joints);
    let mut joints = Vec::with_capacity(num_joints);
    for i in 0..num_joints {
        let name = t.string()?.to_string();
        let line = t.line();
        let parent = t.integer(-1, num_joints as i64 - 1)?;
        let parent = usize::try_from(parent).ok();
        if parent.is_some_and(|p| p >= i) {
            return Err(FormatError::at_line(FORMAT, line, format!("joint {i} '{name}': parent must come before it")));
        }
        let pos = Vec3::from(t.vector::<3>()?);
        let orient = quat(t.vector::<3>()?);
        // Parent-relative rest pose: undo the parent's model-space transform.
        let rest = match parent.and_then(|p| model_space.get(p)) {
            Some(&(pp, po)) => {
                let inv = po.inverse();
                JointPose { translation: inv * (pos - pp), rotation: (inv * orient).normalize(), scale: Vec3::ONE }
            }
            None => JointPose { translation: pos, rotation: orient, scale: Vec3::ONE },
        };
        model_space.push((pos, orient));
        names.push(name.clone());
        joints.push(Joint { name, parent, rest });
    }
    t.expect("}")?;

    let mut model = Model { orientation: Orientation::Z_UP_FACING_X, ..Model::default() };
    for _ in 0..num_meshes {
        let mesh = parse_one_mesh(&mut t, &model_space, &mut model.materials)?;
        model.meshes.push(mesh);
    }
    model.skeleton = Some(Skeleton { joints });
    Ok(model)
}

fn parse_one_mesh(t: &mut Tokens, joints: &[(Vec3, Quat)], materials: &mut Vec<Material>) -> Result<Mesh, FormatError> {
    t.expect("mesh")?;
    t.expect("{")?;
    let mut shader = String::new();
    if t.peek().is_some_and(|k| k.text == "shader") {
        t.next_token();
        shader = t.string()?.to_string();
    }
    t.expect("numverts")?;
    let n = t.integer(0, MAX_COUNT)?;
    let num_verts = bounded_count(t, n, 12, "vertex")?;
    let mut verts = Vec::with_capacity(num_verts);
    for i in 0..num_verts {
        let line = t.line();
        t.expect("vert")?;
        t.integer(i as i64, i as i64)?;
        let uv = t.vector::<2>()?;
        let start = t.integer(0, MAX_COUNT)? as usize;
        let count = t.integer(0, 64)? as usize;
        verts.push((Vec2::from(uv), start, count, line));
    }
    t.expect("numtris")?;
    let n = t.integer(0, MAX_COUNT)?;
    let num_tris = bounded_count(t, n, 10, "triangle")?;
    let mut indices = Vec::with_capacity(num_tris);
    for i in 0..num_tris {
        t.expect("tri")?;
        t.integer(i as i64, i as i64)?;
        let max = num_verts as i64 - 1;
        let [a, b, c] = [t.integer(0, max)?, t.integer(0, max)?, t.integer(0, max)?].map(|v| v as u32);
        // Doom 3 triangles are clockwise from the front: reverse to counter-clockwise.
        indices.push([a, c, b]);
    }
    t.expect("numweights")?;
    let n = t.integer(0, MAX_COUNT)?;
    let num_weights = bounded_count(t, n, 16, "weight")?;
    let mut weights = Vec::with_capacity(num_weights);
    for i in 0..num_weights {
        t.expect("weight")?;
        t.integer(i as i64, i as i64)?;
        let joint = t.integer(0, joints.len() as i64 - 1)? as usize;
        let bias = t.number()?;
        let pos = Vec3::from(t.vector::<3>()?);
        weights.push((joint, bias, pos));
    }
    t.expect("}")?;

    // Bind positions from the weights, then normals from the bind geometry.
    let mut positions = Vec::with_capacity(num_verts);
    let mut ranges = Vec::with_capacity(num_verts);
    let mut influences = Vec::with_capacity(num_weights);
    for (i, &(_, start, count, line)) in verts.iter().enumerate() {
        let Some(ws) = weights.get(start..start + count) else {
            // Checked only now that the weight count is known; the error points at the vertex.
            return Err(FormatError::at_line(
                FORMAT,
                line,
                format!("vertex {i} uses weights {start}..{} but the mesh has {num_weights}", start + count),
            ));
        };
        let mut p = Vec3::ZERO;
        let first = influences.len() as u32;
        for &(joint, bias, wpos) in ws {
            let (jp, jq) = joints[joint];
            p += (jp + jq * wpos) * bias;
            influences.push(Influence { joint: joint as u32, weight: bias, position: wpos, normal: Vec3::Z });
        }
        ranges.push(first..influences.len() as u32);
        positions.push(p);
    }
    let normals = Mesh::compute_normals(&positions, &indices);
    for (range, n) in ranges.iter().zip(&normals) {
        for inf in &mut influences[range.start as usize..range.end as usize] {
            // Normals are stored in each weight's joint space, like the weight positions.
            inf.normal = joints[inf.joint as usize].1.inverse() * *n;
        }
    }
    let material = match materials.iter().position(|m| m.name == shader) {
        Some(i) => i,
        None => {
            let texture_name = (!shader.is_empty()).then(|| shader.clone());
            materials.push(Material { texture_name, ..Material::named(shader.clone()) });
            materials.len() - 1
        }
    };
    Ok(Mesh {
        name: shader,
        material,
        uvs: verts.iter().map(|v| v.0).collect(),
        positions,
        normals,
        indices,
        influence_ranges: ranges,
        influences,
        ..Mesh::default()
    })
}

/// Parses an `.md5anim` file into a clip named `name`, checked against `skeleton`, within the
/// default memory budget.
///
/// # Errors
/// A malformed file, or one whose hierarchy (count, names, parents) differs from `skeleton`,
/// or frames × joints over the budget.
pub fn parse_anim(src: &str, name: &str, skeleton: &Skeleton) -> crate::Result<Clip> {
    parse_anim_within(src, name, skeleton, &MemoryBudget::default())
}

/// As [`parse_anim`], charging the frames (`numFrames` × `numJoints` poses and the per-frame
/// bounds) to `budget` before they are allocated.
///
/// # Errors
/// As [`parse_anim`]; [`crate::Error::Budget`] over the budget.
pub fn parse_anim_within(src: &str, name: &str, skeleton: &Skeleton, budget: &MemoryBudget) -> crate::Result<Clip> {
    let mut t = Tokens::new(FORMAT, Syntax::MD5, src);
    header(&mut t)?;
    t.expect("numFrames")?;
    let n = t.integer(0, MAX_COUNT)?;
    let num_frames = bounded_count(&mut t, n, 10, "frame")?;
    t.expect("numJoints")?;
    let line = t.line();
    let num_joints = t.integer(0, MAX_JOINTS)? as usize;
    if num_joints != skeleton.joints.len() {
        return Err(FormatError::at_line(
            FORMAT,
            line,
            format!("the animation has {num_joints} joints but the mesh has {}", skeleton.joints.len()),
        )
        .into());
    }
    t.expect("frameRate")?;
    let line = t.line();
    let fps = t.number()?;
    // Bounded like `--fps`: a crossfade into this clip spans seconds × frameRate frames.
    if crate::bounds::FPS.check(fps).is_err() {
        let range = crate::bounds::FPS.describe();
        return Err(FormatError::at_line(FORMAT, line, format!("expected a frameRate {range}, found {fps}")).into());
    }
    t.expect("numAnimatedComponents")?;
    let n = t.integer(0, MAX_COUNT)?;
    let num_components = bounded_count(&mut t, n, 2, "component")?;
    // The text bounds each count, not their product: 35 000 short frames of a 1000-joint
    // skeleton fit in 350 KB of text and need gigabytes of poses.
    let (frames, joints) = (num_frames as u64, num_joints as u64);
    let bytes = ClipFrames::skeletal_bytes(frames, joints).saturating_add(bytes_for(frames, size_of::<Aabb>()));
    budget.charge(bytes, || format!("{num_frames} frames x {num_joints} joints"))?;

    t.expect("hierarchy")?;
    t.expect("{")?;
    let mut channels = Vec::with_capacity(num_joints);
    for (i, joint) in skeleton.joints.iter().enumerate() {
        let line = t.line();
        let jname = t.string()?;
        let parent = t.integer(-1, num_joints as i64 - 1)?;
        let flags = t.integer(0, 63)? as u32;
        let start = t.integer(0, num_components as i64)? as usize;
        let parent = usize::try_from(parent).ok();
        if jname != joint.name || parent != joint.parent {
            return Err(FormatError::at_line(
                FORMAT,
                line,
                format!(
                    "joint {i} is '{jname}' (parent {parent:?}) but the mesh has '{}' (parent {:?}): the animation is for another skeleton",
                    joint.name, joint.parent
                ),
            )
            .into());
        }
        if start + flags.count_ones() as usize > num_components {
            return Err(FormatError::at_line(FORMAT, line, "joint components run past numAnimatedComponents").into());
        }
        channels.push((flags, start));
    }
    t.expect("}")?;

    t.expect("bounds")?;
    t.expect("{")?;
    let mut bounds = Vec::with_capacity(num_frames);
    for _ in 0..num_frames {
        let min = Vec3::from(t.vector::<3>()?);
        let max = Vec3::from(t.vector::<3>()?);
        bounds.push(Aabb { min, max });
    }
    t.expect("}")?;

    t.expect("baseframe")?;
    t.expect("{")?;
    let mut base = Vec::with_capacity(num_joints);
    for _ in 0..num_joints {
        base.push((t.vector::<3>()?, t.vector::<3>()?));
    }
    t.expect("}")?;

    let mut frames = Vec::with_capacity(num_frames);
    for f in 0..num_frames {
        t.expect("frame")?;
        t.integer(f as i64, f as i64)?;
        t.expect("{")?;
        let mut values = Vec::with_capacity(num_components);
        for _ in 0..num_components {
            values.push(t.number()?);
        }
        t.expect("}")?;
        let poses = base
            .iter()
            .zip(&channels)
            .map(|(&(mut pos, mut rot), &(flags, start))| {
                // Flag bits in order Tx Ty Tz Qx Qy Qz, each consuming the next component.
                let mut k = start;
                for bit in 0..6 {
                    if flags & (1 << bit) != 0 {
                        let v = values.get(k).copied().unwrap_or(0.0);
                        if bit < 3 {
                            pos[bit] = v
                        } else {
                            rot[bit - 3] = v
                        }
                        k += 1;
                    }
                }
                JointPose { translation: Vec3::from(pos), rotation: quat(rot), scale: Vec3::ONE }
            })
            .collect();
        frames.push(poses);
    }
    Ok(Clip {
        name: name.to_string(),
        fps,
        frames: ClipFrames::Skeletal(frames),
        frame_bounds: bounds,
        retarget: None,
        plays_once: false,
    })
}

/// Stores a rotation as MD5 does: x, y, z of the equivalent quaternion with w ≤ 0.
fn stored_xyz(q: Quat) -> [f32; 3] {
    let q = q.normalize();
    let q = if q.w > 0.0 { -q } else { q };
    [q.x, q.y, q.z]
}

/// Writes a skinned model as `.md5mesh` text (the inverse of [`parse_mesh`]): joints in model
/// space, one `mesh` block per mesh with its material's texture name as the shader, triangles
/// in Doom 3's clockwise order, influences as weights.
pub fn write_mesh(model: &Model) -> String {
    use std::fmt::Write as _;
    let empty = Skeleton::default();
    let skeleton = model.skeleton.as_ref().unwrap_or(&empty);
    let abs = skeleton.to_model_space(&skeleton.rest_pose());
    let mut s = String::new();
    let _ = writeln!(
        s,
        "MD5Version 10\ncommandline \"spritebake\"\n\nnumJoints {}\nnumMeshes {}\n\njoints {{",
        abs.len(),
        model.meshes.len()
    );
    for (joint, m) in skeleton.joints.iter().zip(&abs) {
        let (_, rotation, t) = m.to_scale_rotation_translation();
        let [x, y, z] = stored_xyz(rotation);
        let parent = joint.parent.map_or(-1, |p| p as i64);
        let _ =
            writeln!(s, "\t\"{}\"\t{parent} ( {:.6} {:.6} {:.6} ) ( {x:.9} {y:.9} {z:.9} )", joint.name, t.x, t.y, t.z);
    }
    s.push_str("}\n");
    for mesh in &model.meshes {
        let shader = model.materials.get(mesh.material).and_then(|m| m.texture_name.clone()).unwrap_or_default();
        let _ = writeln!(s, "\nmesh {{\n\tshader \"{shader}\"\n\n\tnumverts {}", mesh.positions.len());
        for (i, range) in mesh.influence_ranges.iter().enumerate() {
            let uv = mesh.uvs.get(i).copied().unwrap_or_default();
            let _ = writeln!(s, "\tvert {i} ( {:.6} {:.6} ) {} {}", uv.x, uv.y, range.start, range.end - range.start);
        }
        let _ = writeln!(s, "\n\tnumtris {}", mesh.indices.len());
        for (i, t) in mesh.indices.iter().enumerate() {
            // Back to Doom 3's clockwise order.
            let _ = writeln!(s, "\ttri {i} {} {} {}", t[0], t[2], t[1]);
        }
        let _ = writeln!(s, "\n\tnumweights {}", mesh.influences.len());
        for (i, w) in mesh.influences.iter().enumerate() {
            let p = w.position;
            let _ = writeln!(s, "\tweight {i} {} {:.6} ( {:.6} {:.6} {:.6} )", w.joint, w.weight, p.x, p.y, p.z);
        }
        s.push_str("}\n");
    }
    s
}

/// Writes a skeletal clip as `.md5anim` text (the inverse of [`parse_anim`]): every joint
/// animates all six components; `bounds` gives one box per frame.
pub fn write_anim(skeleton: &Skeleton, clip: &Clip, bounds: &[Aabb]) -> String {
    use std::fmt::Write as _;
    let frames = match &clip.frames {
        ClipFrames::Skeletal(f) => f.as_slice(),
        ClipFrames::Morph(_) | ClipFrames::Keyed(_) => &[],
    };
    let n = skeleton.joints.len();
    let mut s = String::new();
    let _ = writeln!(
        s,
        "MD5Version 10\ncommandline \"spritebake\"\n\nnumFrames {}\nnumJoints {n}\nframeRate {}\nnumAnimatedComponents {}\n\nhierarchy {{",
        frames.len(),
        clip.fps,
        6 * n
    );
    for (j, joint) in skeleton.joints.iter().enumerate() {
        let _ = writeln!(s, "\t\"{}\"\t{} 63 {}", joint.name, joint.parent.map_or(-1, |p| p as i64), 6 * j);
    }
    s.push_str("}\n\nbounds {\n");
    for b in bounds.iter().take(frames.len()) {
        let _ = writeln!(
            s,
            "\t( {:.6} {:.6} {:.6} ) ( {:.6} {:.6} {:.6} )",
            b.min.x, b.min.y, b.min.z, b.max.x, b.max.y, b.max.z
        );
    }
    s.push_str("}\n\nbaseframe {\n");
    for joint in &skeleton.joints {
        let (t, [x, y, z]) = (joint.rest.translation, stored_xyz(joint.rest.rotation));
        let _ = writeln!(s, "\t( {:.6} {:.6} {:.6} ) ( {x:.9} {y:.9} {z:.9} )", t.x, t.y, t.z);
    }
    s.push_str("}\n");
    for (f, poses) in frames.iter().enumerate() {
        let _ = writeln!(s, "\nframe {f} {{");
        for (j, joint) in skeleton.joints.iter().enumerate() {
            let p = poses.get(j).copied().unwrap_or(joint.rest);
            let [x, y, z] = stored_xyz(p.rotation);
            let t = p.translation;
            let _ = writeln!(s, "\t{:.6} {:.6} {:.6} {x:.9} {y:.9} {z:.9}", t.x, t.y, t.z);
        }
        s.push_str("}\n");
    }
    s
}
