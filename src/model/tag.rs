//! Tags: frames of reference that move with a morph model's key shapes (Quake 3's
//! `tag_weapon`, `tag_head`), where other models hang.

use glam::{Affine3A, Vec3A};

/// A named frame of reference with one placement per key shape of the model's meshes.
#[derive(Debug, Clone, PartialEq)]
pub struct Tag {
    /// The tag's name, as the file spells it.
    pub name: String,
    /// Its placement in each key shape: a point hung on the tag is `frames[k] · point` in the
    /// model's space while key shape `k` shows.
    pub frames: Vec<Affine3A>,
}

impl Tag {
    /// The placement between key shapes `from` and `to`, `t` of the way: origin and axes
    /// lerped and the axes renormalised, as Quake 3 interpolates tags (`R_LerpTag`). Exact at
    /// `t = 0`; a key shape the tag lacks reads as the identity.
    pub fn between(&self, from: usize, to: usize, t: f32) -> Affine3A {
        let at = |k: usize| self.frames.get(k).copied().unwrap_or(Affine3A::IDENTITY);
        Tag::mix(at(from), at(to), t)
    }

    /// Placement `a` moved `t` of the way to `b`, as [`Tag::between`] moves between key
    /// shapes (transitions and blends mix tags the same way); `a` itself for `t <= 0` or NaN.
    pub fn mix(a: Affine3A, b: Affine3A, t: f32) -> Affine3A {
        if t.is_nan() || t <= 0.0 {
            return a;
        }
        if t >= 1.0 {
            return b;
        }
        let axis = |x: Vec3A, y: Vec3A| x.lerp(y, t).try_normalize().unwrap_or(x);
        let (ma, mb) = (a.matrix3, b.matrix3);
        Affine3A::from_cols(
            axis(ma.x_axis, mb.x_axis),
            axis(ma.y_axis, mb.y_axis),
            axis(ma.z_axis, mb.z_axis),
            a.translation.lerp(b.translation, t),
        )
    }
}

#[cfg(test)]
mod tests {
    use glam::{Quat, Vec3};

    use super::*;

    #[test]
    fn a_tag_is_exact_on_its_key_shapes_and_keeps_unit_axes_between_them() {
        let a = Affine3A::from_rotation_translation(Quat::IDENTITY, Vec3::new(1.0, 0.0, 0.0));
        let b = Affine3A::from_rotation_translation(Quat::from_rotation_z(1.2), Vec3::new(3.0, 2.0, 0.0));
        let tag = Tag { name: "tag_weapon".into(), frames: vec![a, b] };
        assert_eq!(tag.between(0, 1, 0.0), a);
        assert_eq!(tag.between(0, 1, 1.0), b);
        let half = tag.between(0, 1, 0.5);
        assert_eq!(half.translation, Vec3A::new(2.0, 1.0, 0.0));
        for axis in [half.matrix3.x_axis, half.matrix3.y_axis, half.matrix3.z_axis] {
            assert!((axis.length() - 1.0).abs() < 1e-6, "{axis}");
        }
        // Halfway in angle, as the chord's midpoint is for a rotation about one axis.
        let x = half.matrix3.x_axis;
        assert!((x.y.atan2(x.x) - 0.6).abs() < 1e-5, "{x}");
        assert_eq!(tag.between(7, 9, 0.5), Affine3A::IDENTITY);
    }
}
