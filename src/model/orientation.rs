use glam::{Mat3, Vec3};

/// A signed coordinate axis of a model file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Axis {
    /// +X
    PosX,
    /// -X
    NegX,
    /// +Y
    PosY,
    /// -Y
    NegY,
    /// +Z
    PosZ,
    /// -Z
    NegZ,
}

impl Axis {
    /// Parses `+x`, `-y`, `z` (sign optional, case-insensitive).
    pub fn parse(s: &str) -> Option<Axis> {
        match s.trim().to_ascii_lowercase().as_str() {
            "+x" | "x" => Some(Axis::PosX),
            "-x" => Some(Axis::NegX),
            "+y" | "y" => Some(Axis::PosY),
            "-y" => Some(Axis::NegY),
            "+z" | "z" => Some(Axis::PosZ),
            "-z" => Some(Axis::NegZ),
            _ => None,
        }
    }

    /// The axis as a unit vector.
    pub fn to_vec3(self) -> Vec3 {
        match self {
            Axis::PosX => Vec3::X,
            Axis::NegX => Vec3::NEG_X,
            Axis::PosY => Vec3::Y,
            Axis::NegY => Vec3::NEG_Y,
            Axis::PosZ => Vec3::Z,
            Axis::NegZ => Vec3::NEG_Z,
        }
    }
}

/// Which way a model file's "up" and "front" point.
///
/// The canonical frame of the renderer is Y up with the model facing +Z, i.e. towards a camera
/// at yaw 0. [`Orientation::to_canonical`] is the rotation from the file's axes into it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Orientation {
    /// Axis pointing up in the file.
    pub up: Axis,
    /// Axis the model faces in the file.
    pub forward: Axis,
}

impl Default for Orientation {
    fn default() -> Self {
        Self::Y_UP_FACING_Z
    }
}

impl Orientation {
    /// OBJ and glTF: Y up, facing +Z.
    pub const Y_UP_FACING_Z: Orientation = Orientation { up: Axis::PosY, forward: Axis::PosZ };
    /// Quake 2 MD2 and Doom 3 MD5 as the engines use them: Z up, facing +X.
    pub const Z_UP_FACING_X: Orientation = Orientation { up: Axis::PosZ, forward: Axis::PosX };
    /// Half-Life SMD sources: Z up, facing −Y (studiomdl turns them 90° to face +X when it
    /// compiles the model; the SDK headcrab's `run` sequence moves its root towards −Y).
    pub const Z_UP_FACING_NEG_Y: Orientation = Orientation { up: Axis::PosZ, forward: Axis::NegY };

    /// Rotation taking file coordinates to the canonical frame (Y up, facing +Z).
    ///
    /// Up maps to +Y, forward to +Z; the third axis follows from right-handedness, so the
    /// result is a proper rotation (no mirroring) whenever `up` and `forward` are orthogonal.
    pub fn to_canonical(self) -> Mat3 {
        let up = self.up.to_vec3();
        let forward = self.forward.to_vec3();
        // Canonical X = Y × Z; its preimage is up × forward.
        let right = up.cross(forward);
        // The matrix whose rows are the source axes maps them to X, Y, Z.
        Mat3::from_cols(right, up, forward).transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn z_up_facing_x_maps_up_to_y_and_front_to_z() {
        let m = Orientation::Z_UP_FACING_X.to_canonical();
        assert!((m * Vec3::Z - Vec3::Y).length() < 1e-6);
        assert!((m * Vec3::X - Vec3::Z).length() < 1e-6);
        assert!((m.determinant() - 1.0).abs() < 1e-6);
    }

    #[test]
    fn y_up_facing_z_is_identity() {
        assert_eq!(Orientation::Y_UP_FACING_Z.to_canonical(), Mat3::IDENTITY);
    }
}
