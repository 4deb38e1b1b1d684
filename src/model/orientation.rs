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
    /// Every axis.
    pub const ALL: [Axis; 6] = [Axis::PosX, Axis::NegX, Axis::PosY, Axis::NegY, Axis::PosZ, Axis::NegZ];

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

    /// True when both axes lie on one line (the same axis, either sign): a model cannot face
    /// along its up axis.
    pub fn is_parallel(self, other: Axis) -> bool {
        self == other || self == -other
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

impl std::ops::Neg for Axis {
    type Output = Axis;

    fn neg(self) -> Axis {
        match self {
            Axis::PosX => Axis::NegX,
            Axis::NegX => Axis::PosX,
            Axis::PosY => Axis::NegY,
            Axis::NegY => Axis::PosY,
            Axis::PosZ => Axis::NegZ,
            Axis::NegZ => Axis::PosZ,
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

    /// This orientation with `up` as its up axis and the front turned along: the quarter turn
    /// that takes the old up axis to `up` turns the front too, so a Y-up model facing +Z
    /// declared Z-up faces -Y (the way Blender's Z-up scenes face its front view). When `up` is
    /// the old up axis or its opposite, the front stays.
    pub fn with_up(self, up: Axis) -> Orientation {
        // The front is at right angles to the old up axis, so it is either on the axis of the
        // quarter turn (and stays) or on the line of the new up axis (and turns onto the old).
        let forward = if up.is_parallel(self.up) {
            self.forward
        } else if self.forward == up {
            -self.up
        } else if self.forward == -up {
            self.up
        } else {
            self.forward
        };
        Orientation { up, forward }
    }

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
    fn a_new_up_axis_turns_the_front_with_it() {
        let z_up = Orientation::Y_UP_FACING_Z.with_up(Axis::PosZ);
        assert_eq!(z_up, Orientation { up: Axis::PosZ, forward: Axis::NegY });
        // The turn is a proper rotation: a Y-up point (x, y, z) written Z-up as (x, -z, y)
        // comes back where it was.
        let p = Vec3::new(1.0, 2.0, 3.0);
        assert_eq!(z_up.to_canonical() * Vec3::new(p.x, -p.z, p.y), p);
        assert_eq!(Orientation::Z_UP_FACING_X.with_up(Axis::PosY), Orientation { up: Axis::PosY, forward: Axis::PosX });
        assert_eq!(Orientation::Y_UP_FACING_Z.with_up(Axis::NegY), Orientation { up: Axis::NegY, forward: Axis::PosZ });
        assert_eq!(
            Orientation::Z_UP_FACING_NEG_Y.with_up(Axis::PosY),
            Orientation { up: Axis::PosY, forward: Axis::PosZ }
        );
        for up in [Axis::PosX, Axis::NegX, Axis::PosY, Axis::NegY, Axis::PosZ, Axis::NegZ] {
            for base in [Orientation::Y_UP_FACING_Z, Orientation::Z_UP_FACING_X, Orientation::Z_UP_FACING_NEG_Y] {
                let turned = base.with_up(up);
                assert!(!turned.forward.is_parallel(turned.up), "{base:?} with up {up:?}");
                assert!((turned.to_canonical().determinant() - 1.0).abs() < 1e-6);
            }
        }
        assert!(Axis::PosZ.is_parallel(Axis::NegZ) && !Axis::PosZ.is_parallel(Axis::PosX));
    }

    #[test]
    fn y_up_facing_z_is_identity() {
        assert_eq!(Orientation::Y_UP_FACING_Z.to_canonical(), Mat3::IDENTITY);
    }
}
