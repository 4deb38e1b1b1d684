//! sRGB transfer functions. Shading and filtering happen in linear light; images are sRGB.

use std::sync::LazyLock;

use super::lanes::trunc_lanes;

/// sRGB byte → linear value, exact per byte.
static SRGB_TO_LINEAR: LazyLock<[f32; 256]> = LazyLock::new(|| {
    let mut table = [0.0; 256];
    for (i, v) in table.iter_mut().enumerate() {
        *v = srgb_to_linear_exact(i as f32 / 255.0);
    }
    table
});

/// Resolution of the linear → sRGB table. 2^14 steps keep the error under half a byte even in
/// the steep dark end of the curve (slope 12.92 · 255 / 16383 ≈ 0.2 bytes per step).
const LINEAR_STEPS: usize = 1 << 14;

static LINEAR_TO_SRGB: LazyLock<Vec<u8>> = LazyLock::new(|| {
    (0..=LINEAR_STEPS)
        .map(|i| (linear_to_srgb_exact(i as f32 / LINEAR_STEPS as f32) * 255.0 + 0.5).clamp(0.0, 255.0) as u8)
        .collect()
});

/// Decodes an sRGB value in 0..1 (not a byte) to linear light.
pub(crate) fn srgb_to_linear_exact(c: f32) -> f32 {
    if c <= 0.04045 { c / 12.92 } else { ((c + 0.055) / 1.055).powf(2.4) }
}

/// Encodes a linear value in 0..1 as an sRGB value in 0..1 (not a byte).
pub(crate) fn linear_to_srgb_exact(l: f32) -> f32 {
    if l <= 0.003_130_8 { l * 12.92 } else { 1.055 * l.powf(1.0 / 2.4) - 0.055 }
}

/// Decodes an sRGB byte to linear light.
#[inline]
pub fn srgb_to_linear(byte: u8) -> f32 {
    SRGB_TO_LINEAR[byte as usize]
}

/// Encodes a linear value (clamped to 0..1) to an sRGB byte.
#[inline]
pub fn linear_to_srgb(linear: f32) -> u8 {
    SrgbEncoder::new().encode(linear)
}

/// Linear → sRGB encoding with the table looked up once, for loops over many pixels.
#[derive(Clone, Copy)]
pub(super) struct SrgbEncoder(&'static [u8]);

impl SrgbEncoder {
    /// The encoder (initialises the shared table on first use).
    pub(super) fn new() -> SrgbEncoder {
        SrgbEncoder(LINEAR_TO_SRGB.as_slice())
    }

    /// Encodes a linear value (clamped to 0..1) to an sRGB byte.
    #[inline(always)]
    pub(super) fn encode(self, linear: f32) -> u8 {
        let [byte] = self.encode_lanes(&[linear]);
        byte
    }

    /// [`SrgbEncoder::encode`] for `L` values, the table indices computed in vector loops.
    #[inline(always)]
    pub(super) fn encode_lanes<const L: usize>(self, linear: &[f32; L]) -> [u8; L] {
        // NaN stays NaN through the clamp and becomes index 0 through the saturating conversion.
        let index = trunc_lanes(&linear.map(|l| l.clamp(0.0, 1.0) * LINEAR_STEPS as f32 + 0.5));
        index.map(|i| self.0.get(i as usize).copied().unwrap_or(255))
    }
}

/// Encodes a linear value (0..1) to a byte without the transfer curve (for alpha).
#[inline]
pub(super) fn unorm_to_byte(v: f32) -> u8 {
    (v.clamp(0.0, 1.0) * 255.0 + 0.5) as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn srgb_round_trips_every_byte() {
        for b in 0..=255u8 {
            assert_eq!(linear_to_srgb(srgb_to_linear(b)), b, "byte {b}");
        }
    }

    #[test]
    fn mid_grey_is_not_half_linear() {
        // sRGB 188 is about 50% linear light: the reason averaging must happen in linear space.
        assert!((srgb_to_linear(188) - 0.5).abs() < 0.01);
    }
}
