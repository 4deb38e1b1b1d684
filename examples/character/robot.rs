//! The example character: a small jointed robot with a 16-frame walk cycle, defined once in
//! code (Z up, facing +X like the Quake-family formats) and written out as MD5, SMD and MD2.

use glam::{Quat, Vec2, Vec3};
use spritebake::model::{Clip, ClipFrames, Influence, Joint, JointPose, Material, Mesh, Model, Orientation, Skeleton};

/// Joint names, parents and rest offsets from the parent (rest rotations are identity).
const JOINTS: [(&str, Option<usize>, [f32; 3]); 11] = [
    // The pelvis stands the rest pose on the ground (z = 0): the foot boxes reach 31.5 down.
    ("pelvis", None, [0.0, 0.0, 31.5]),
    ("spine", Some(0), [0.0, 0.0, 4.0]),
    ("head", Some(1), [0.0, 0.0, 19.0]),
    ("thigh_L", Some(0), [0.0, 5.0, -2.0]),
    ("shin_L", Some(3), [0.0, 0.0, -14.0]),
    ("thigh_R", Some(0), [0.0, -5.0, -2.0]),
    ("shin_R", Some(5), [0.0, 0.0, -14.0]),
    ("arm_L", Some(1), [0.0, 10.0, 16.0]),
    ("forearm_L", Some(7), [0.0, 0.0, -10.0]),
    ("arm_R", Some(1), [0.0, -10.0, 16.0]),
    ("forearm_R", Some(9), [0.0, 0.0, -10.0]),
];

/// Boxes: joint, centre and size in the joint's space, and the texture-atlas cell (4×4 grid).
const BOXES: [(usize, [f32; 3], [f32; 3], u32); 15] = [
    (0, [0.0, 0.0, 0.0], [8.0, 12.0, 6.0], 0),
    (1, [0.0, 0.0, 9.0], [9.0, 16.0, 18.0], 1),
    (1, [-5.0, 0.0, 10.0], [3.0, 10.0, 12.0], 2), // backpack
    (2, [0.0, 0.0, 5.0], [10.0, 10.0, 10.0], 3),
    (2, [5.2, 0.0, 6.0], [1.2, 7.5, 3.0], 4), // visor: shows which way the robot faces
    (3, [0.0, 0.0, -7.0], [5.0, 5.0, 14.0], 5),
    (4, [0.0, 0.0, -7.0], [5.0, 5.0, 14.0], 6),
    (4, [2.5, 0.0, -14.0], [10.0, 6.0, 3.0], 7), // foot, pointing forward
    (5, [0.0, 0.0, -7.0], [5.0, 5.0, 14.0], 5),
    (6, [0.0, 0.0, -7.0], [5.0, 5.0, 14.0], 6),
    (6, [2.5, 0.0, -14.0], [10.0, 6.0, 3.0], 7),
    (7, [0.0, 0.0, -5.0], [4.0, 4.0, 11.0], 8),
    (8, [0.0, 0.0, -5.0], [4.0, 4.0, 11.0], 9),
    (9, [0.0, 0.0, -5.0], [4.0, 4.0, 11.0], 8),
    (10, [0.0, 0.0, -5.0], [4.0, 4.0, 11.0], 9),
];

/// Frames in the walk cycle and its rate: one second per loop.
pub const WALK_FRAMES: usize = 16;
/// Frames per second of the walk.
pub const WALK_FPS: f32 = 16.0;
/// Forward distance covered by one cycle (root motion along +X).
const STRIDE: f32 = 28.0;

/// The robot with its skeleton, one skinned mesh and the `walk` clip.
pub fn robot() -> Model {
    let skeleton = Skeleton {
        joints: JOINTS
            .iter()
            .map(|&(name, parent, t)| Joint {
                name: name.to_string(),
                parent,
                rest: JointPose { translation: Vec3::from(t), ..JointPose::IDENTITY },
            })
            .collect(),
    };
    let joint_origin = |j: usize| {
        let mut p = Vec3::ZERO;
        let mut cur = Some(j);
        while let Some(i) = cur {
            p += Vec3::from(JOINTS[i].2);
            cur = JOINTS[i].1;
        }
        p
    };
    let mut mesh = Mesh { name: "robot".into(), material: 0, ..Mesh::default() };
    for &(joint, centre, size, cell) in &BOXES {
        add_box(&mut mesh, joint, Vec3::from(centre), Vec3::from(size), cell, joint_origin(joint));
    }
    let material = Material { texture_name: Some("robot.png".into()), ..Material::named("robot") };
    let clip = Clip {
        name: "walk".into(),
        fps: WALK_FPS,
        frames: ClipFrames::Skeletal((0..WALK_FRAMES).map(|f| walk_pose(&skeleton, f)).collect()),
        frame_bounds: Vec::new(),
        retarget: None,
        plays_once: false,
    };
    Model {
        name: "robot".into(),
        meshes: vec![mesh],
        materials: vec![material],
        orientation: Orientation::Z_UP_FACING_X,
        skeleton: Some(skeleton),
        clips: vec![clip],
        ..Model::default()
    }
}

/// Parent-relative joint poses of walk frame `f`.
fn walk_pose(skeleton: &Skeleton, f: usize) -> Vec<JointPose> {
    let phase = f as f32 / WALK_FRAMES as f32 * std::f32::consts::TAU;
    let (s, c) = phase.sin_cos();
    let deg = |d: f32| d.to_radians();
    // Rotations about +Y (the robot's left) swing limbs forward and back.
    let swing = |d: f32| Quat::from_rotation_y(deg(d));
    let mut poses = skeleton.rest_pose();
    let mut set = |name: &str, rotation: Quat| {
        if let Some(i) = skeleton.find(name) {
            poses[i].rotation = rotation;
        }
    };
    set("thigh_L", swing(-30.0 * s));
    set("thigh_R", swing(30.0 * s));
    // Knees bend while their leg swings forward.
    set("shin_L", swing(8.0 + 32.0 * (c.max(0.0))));
    set("shin_R", swing(8.0 + 32.0 * ((-c).max(0.0))));
    set("arm_L", swing(25.0 * s));
    set("arm_R", swing(-25.0 * s));
    set("forearm_L", swing(-25.0));
    set("forearm_R", swing(-25.0));
    set("spine", Quat::from_rotation_z(deg(6.0 * s)));
    set("head", Quat::from_rotation_z(deg(-4.0 * s)));
    // The pelvis moves forward (root motion, removed by --in-place) at the height that keeps
    // the lower foot on the ground (z = 0), so the body bobs as the legs swing.
    poses[0].translation = Vec3::new(STRIDE * f as f32 / WALK_FRAMES as f32, 0.0, 30.0);
    let joints = skeleton.to_model_space(&poses);
    let sole = |shin: &str| {
        let m = skeleton.find(shin).and_then(|i| joints.get(i)).copied().unwrap_or_default();
        // The foot box's bottom corners (see BOXES: centre (2.5, 0, −14), size (10, 6, 3)).
        [-2.5f32, 7.5]
            .iter()
            .flat_map(|&x| [-3.0f32, 3.0].map(|y| m.transform_point3(Vec3::new(x, y, -15.5)).z))
            .fold(f32::INFINITY, f32::min)
    };
    poses[0].translation.z -= sole("shin_L").min(sole("shin_R"));
    poses
}

/// Appends a box with flat-shaded faces, all vertices bound rigidly to `joint`.
fn add_box(mesh: &mut Mesh, joint: usize, centre: Vec3, size: Vec3, cell: u32, joint_origin: Vec3) {
    let h = size * 0.5;
    // Each face: outward normal and two in-plane axes (u, v) with u × v = normal, so the
    // corners (−u−v, +u−v, +u+v, −u+v) run counter-clockwise seen from outside.
    let faces = [
        (Vec3::X, Vec3::Y, Vec3::Z),
        (Vec3::NEG_X, Vec3::NEG_Y, Vec3::Z),
        (Vec3::Y, Vec3::NEG_X, Vec3::Z),
        (Vec3::NEG_Y, Vec3::X, Vec3::Z),
        (Vec3::Z, Vec3::X, Vec3::Y),
        (Vec3::NEG_Z, Vec3::X, Vec3::NEG_Y),
    ];
    let (cx, cy) = ((cell % 4) as f32 * 0.25, (cell / 4) as f32 * 0.25);
    let inset = 2.0 / 128.0;
    for (n, u, v) in faces {
        let base = mesh.positions.len() as u32;
        for (su, sv) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
            let local = centre
                + n * (n.abs() * h).element_sum()
                + u * su * (u.abs() * h).element_sum()
                + v * sv * (v.abs() * h).element_sum();
            mesh.positions.push(joint_origin + local);
            mesh.normals.push(n);
            // The face fills its atlas cell; texture v grows downwards, face v upwards.
            let uv = Vec2::new(
                cx + inset + (su + 1.0) * 0.5 * (0.25 - 2.0 * inset),
                cy + inset + (1.0 - sv) * 0.5 * (0.25 - 2.0 * inset),
            );
            mesh.uvs.push(uv);
            let start = mesh.influences.len() as u32;
            mesh.influences.push(Influence { joint: joint as u32, weight: 1.0, position: local, normal: n });
            mesh.influence_ranges.push(start..start + 1);
        }
        mesh.indices.push([base, base + 1, base + 2]);
        mesh.indices.push([base, base + 2, base + 3]);
    }
}

/// The robot's 128×128 texture atlas: one 32×32 panel per part colour, with a dark rim and
/// rivets so orientation and filtering are visible.
pub fn robot_texture() -> spritebake::raster::Image {
    const COLOURS: [[u8; 3]; 10] = [
        [90, 96, 110],   // pelvis
        [70, 120, 190],  // torso
        [200, 150, 60],  // backpack
        [225, 228, 235], // head
        [30, 200, 220],  // visor
        [110, 116, 128], // thigh
        [150, 156, 168], // shin
        [60, 60, 66],    // foot
        [70, 120, 190],  // upper arm
        [225, 228, 235], // forearm
    ];
    let mut rgba = Vec::with_capacity(128 * 128 * 4);
    for y in 0..128u32 {
        for x in 0..128u32 {
            let cell = (y / 32 * 4 + x / 32) as usize;
            let (lx, ly) = (x % 32, y % 32);
            let base = COLOURS.get(cell).copied().unwrap_or([255, 0, 255]);
            let rim = lx < 3 || ly < 3 || lx > 28 || ly > 28;
            let rivet = (lx == 6 || lx == 25) && (ly == 6 || ly == 25);
            let stripe = cell == 1 && (14..18).contains(&ly);
            let px = if rim || rivet {
                base.map(|c| c / 2)
            } else if stripe {
                [240, 200, 40]
            } else {
                base
            };
            rgba.extend_from_slice(&[px[0], px[1], px[2], 255]);
        }
    }
    spritebake::raster::Image { width: 128, height: 128, rgba }
}
