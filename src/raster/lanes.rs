//! Float-to-integer conversions for lane loops, four lanes per vector instruction.
//!
//! Rust's `as` conversion saturates (NaN gives 0), and the compiler keeps it scalar, which
//! stops a whole lane loop from vectorising. `wide`'s `trunc_int` is the same saturating
//! conversion in vector form, so these give exactly what `as` gives lane by lane.

use wide::{f32x4, i32x4};

/// `x as i32` for every lane.
#[inline(always)]
pub(super) fn trunc_lanes<const L: usize>(x: &[f32; L]) -> [i32; L] {
    map4(x, |x| x.trunc_int())
}

/// `floor(x)` as an integer for every lane, without a libm call (`f32::floor` is one on
/// baseline x86-64): truncate, then step down where truncation rounded a negative value up.
/// Saturates like `as` (a value below `i32::MIN` stays there instead of wrapping).
#[inline(always)]
pub(super) fn floor_lanes<const L: usize>(x: &[f32; L]) -> [i32; L] {
    map4(x, |x| {
        let t = x.trunc_int();
        // All ones (-1) where t > x and t can still step down.
        let rounded_up: i32x4 = bytemuck::cast(t.round_float().simd_gt(x));
        t + (rounded_up & !t.simd_eq(i32x4::splat(i32::MIN)))
    })
}

/// Applies `f` to the lanes four at a time (the last group padded with zeros). Indexed by
/// constants, not through slices of run-time length, so that the compiler unrolls it without
/// calls to `memcpy`.
#[inline(always)]
fn map4<const L: usize>(x: &[f32; L], f: impl Fn(f32x4) -> i32x4) -> [i32; L] {
    let mut out = [0; L];
    for group in (0..L).step_by(4) {
        let lanes = std::array::from_fn(|j| x.get(group + j).copied().unwrap_or(0.0));
        for (j, value) in f(f32x4::new(lanes)).to_array().into_iter().enumerate() {
            if let Some(o) = out.get_mut(group + j) {
                *o = value;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every kind of value: fractions either side of zero, exact integers, the saturation
    /// limits, infinities and NaN.
    const VALUES: [f32; 18] = [
        0.0,
        -0.0,
        0.5,
        -0.5,
        1.0,
        -1.0,
        2.75,
        -2.75,
        16384.5,
        -1e6,
        1e6,
        2147483648.0,
        -2147483904.0,
        3e9,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        0.999_999_94,
    ];

    #[test]
    fn lanes_convert_as_the_scalar_conversions_do() {
        // 18 lanes: four full groups and a padded one.
        assert_eq!(trunc_lanes(&VALUES), VALUES.map(|x| x as i32));
        assert_eq!(floor_lanes(&VALUES), VALUES.map(|x| x.floor() as i32));
        assert_eq!(floor_lanes(&[-0.25]), [-1]);
    }
}
