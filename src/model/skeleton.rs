use glam::{Affine3A, Quat, Vec3};

/// A joint transform relative to its parent (or to the model for a root joint).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JointPose {
    /// Translation.
    pub translation: Vec3,
    /// Rotation (unit quaternion).
    pub rotation: Quat,
    /// Scale (1 for every classic format; glTF may scale).
    pub scale: Vec3,
}

impl Default for JointPose {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl JointPose {
    /// No translation, rotation or scale.
    pub const IDENTITY: JointPose = JointPose { translation: Vec3::ZERO, rotation: Quat::IDENTITY, scale: Vec3::ONE };

    /// The transform as an affine matrix: `T · R · S`.
    pub fn to_affine(self) -> Affine3A {
        Affine3A::from_scale_rotation_translation(self.scale, self.rotation, self.translation)
    }

    /// Interpolates two poses: lerp translation and scale, shortest-path slerp rotation.
    pub fn lerp(self, other: JointPose, t: f32) -> JointPose {
        // Slerp along the shorter arc: q and -q are the same rotation.
        let b = if self.rotation.dot(other.rotation) < 0.0 { -other.rotation } else { other.rotation };
        JointPose {
            translation: self.translation.lerp(other.translation, t),
            rotation: self.rotation.slerp(b, t).normalize(),
            scale: self.scale.lerp(other.scale, t),
        }
    }
}

/// One joint of a skeleton.
#[derive(Debug, Clone, PartialEq)]
pub struct Joint {
    /// Name as written in the file.
    pub name: String,
    /// Parent joint index; always smaller than this joint's own index.
    pub parent: Option<usize>,
    /// Rest (bind) pose relative to the parent.
    pub rest: JointPose,
}

/// A joint hierarchy, parents before children.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Skeleton {
    /// Joints in an order where every parent precedes its children.
    pub joints: Vec<Joint>,
}

impl Skeleton {
    /// Model-space transforms of every joint for parent-relative `locals`
    /// (one per joint, e.g. a clip frame or the rest pose).
    pub fn to_model_space(&self, locals: &[JointPose]) -> Vec<Affine3A> {
        let mut out: Vec<Affine3A> = Vec::with_capacity(self.joints.len());
        for (i, joint) in self.joints.iter().enumerate() {
            let local = locals.get(i).copied().unwrap_or(joint.rest).to_affine();
            // Parents precede children, so the parent's transform is already in `out`.
            let world = match joint.parent.and_then(|p| out.get(p)) {
                Some(parent) => *parent * local,
                None => local,
            };
            out.push(world);
        }
        out
    }

    /// The rest poses of all joints, in joint order.
    pub fn rest_pose(&self) -> Vec<JointPose> {
        self.joints.iter().map(|j| j.rest).collect()
    }

    /// Index of the joint with this exact name.
    pub fn find(&self, name: &str) -> Option<usize> {
        self.joints.iter().position(|j| j.name == name)
    }
}

/// A named point fixed to a joint (studiomdl's `$attachment`): where a weapon or an effect
/// hangs. `--attach FILE@NAME` mounts a model there.
#[derive(Debug, Clone, PartialEq)]
pub struct AttachmentPoint {
    /// The point's name.
    pub name: String,
    /// Index of the joint it moves with.
    pub joint: usize,
    /// Its position in the joint's local frame.
    pub offset: Vec3,
}
