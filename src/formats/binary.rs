//! Bounds-checked little-endian reads for the binary formats (MD2, Quake 1 MDL, IQM).
//!
//! Every read checks the file length first and fails with a [`FormatError`] naming the byte
//! offset; a count read from a header is checked against its limit and against the bytes that
//! must hold its records before anything is sized by it.

use super::FormatError;

/// A binary file's bytes and the format name its errors carry.
#[derive(Clone, Copy)]
pub(super) struct Bytes<'a> {
    data: &'a [u8],
    format: &'static str,
}

impl<'a> Bytes<'a> {
    pub(super) fn new(format: &'static str, data: &'a [u8]) -> Bytes<'a> {
        Bytes { data, format }
    }

    /// The file length.
    pub(super) fn len(&self) -> usize {
        self.data.len()
    }

    /// An error at byte offset `at` of this file.
    #[cold]
    pub(super) fn err(&self, at: usize, message: impl Into<String>) -> FormatError {
        FormatError::at_offset(self.format, at as u64, message)
    }

    /// `n` bytes at `at`.
    pub(super) fn bytes(&self, at: usize, n: usize) -> Result<&'a [u8], FormatError> {
        self.data
            .get(at..at.saturating_add(n))
            .ok_or_else(|| self.err(at, format!("expected {n} bytes, the file ends at {}", self.data.len())))
    }

    fn array<const N: usize>(&self, at: usize) -> Result<[u8; N], FormatError> {
        let b = self.bytes(at, N)?;
        let mut out = [0u8; N];
        out.copy_from_slice(b);
        Ok(out)
    }

    pub(super) fn u16(&self, at: usize) -> Result<u16, FormatError> {
        Ok(u16::from_le_bytes(self.array(at)?))
    }

    pub(super) fn i32(&self, at: usize) -> Result<i32, FormatError> {
        Ok(i32::from_le_bytes(self.array(at)?))
    }

    pub(super) fn u32(&self, at: usize) -> Result<u32, FormatError> {
        Ok(u32::from_le_bytes(self.array(at)?))
    }

    pub(super) fn f64(&self, at: usize) -> Result<f64, FormatError> {
        Ok(f64::from_le_bytes(self.array(at)?))
    }

    /// A finite `f32` (a NaN or an infinity is an error).
    pub(super) fn f32(&self, at: usize) -> Result<f32, FormatError> {
        let v = f32::from_le_bytes(self.array(at)?);
        if v.is_finite() { Ok(v) } else { Err(self.err(at, format!("expected a finite number, found {v}"))) }
    }

    /// Three finite `f32`s.
    pub(super) fn vec3(&self, at: usize) -> Result<glam::Vec3, FormatError> {
        Ok(glam::Vec3::new(self.f32(at)?, self.f32(at + 4)?, self.f32(at + 8)?))
    }

    /// A NUL-padded name in a field of `n` bytes.
    pub(super) fn name(&self, at: usize, n: usize) -> Result<String, FormatError> {
        let b = self.bytes(at, n)?;
        let end = b.iter().position(|&c| c == 0).unwrap_or(n);
        Ok(String::from_utf8_lossy(b.get(..end).unwrap_or_default()).into_owned())
    }

    /// A signed count at `at`, in `min..=max`.
    pub(super) fn count(&self, at: usize, min: usize, max: usize, what: &str) -> Result<usize, FormatError> {
        let v = self.i32(at)?;
        usize::try_from(v)
            .ok()
            .filter(|c| (min..=max).contains(c))
            .ok_or_else(|| self.err(at, format!("expected a {what} count in {min}..={max}, found {v}")))
    }

    /// Checks that `count` records of `record` bytes at `offset` lie inside the file; the
    /// error is reported at `field` (the header field that gave the offset or count).
    pub(super) fn fits(
        &self,
        field: usize,
        offset: usize,
        count: usize,
        record: usize,
        what: &str,
    ) -> Result<(), FormatError> {
        let end = count.checked_mul(record).and_then(|n| offset.checked_add(n));
        match end {
            Some(end) if end <= self.data.len() || count == 0 => Ok(()),
            _ => Err(self.err(
                field,
                format!("{count} {what}s at offset {offset} run past the end of the {}-byte file", self.data.len()),
            )),
        }
    }
}
