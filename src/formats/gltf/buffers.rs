//! Buffers and accessors: the bytes behind every glTF array, read with every offset, stride
//! and count checked against the bytes that exist before anything is allocated.
//!
//! spritebake reads accessors itself rather than through the `gltf` crate's readers, which
//! index slices directly and would panic on an accessor pointing past its buffer.

use std::sync::Arc;

use base64::Engine as _;
use gltf::accessor::{DataType, Dimensions};
use gltf::{Accessor, Document};

use super::err;
use crate::formats::FormatError;

/// Viewless accessors are all zeros of any count; this caps what such a header can allocate.
const MAX_VIEWLESS_ELEMENTS: usize = 1 << 16;

/// The bytes of every buffer, by buffer index. Buffers naming the same external file share
/// its bytes (one read, one allocation, however many buffers name it).
pub(super) struct Buffers(Vec<Arc<Vec<u8>>>);

/// Decodes a `data:` URI; `None` when `uri` is not one.
pub(super) fn data_uri(uri: &str) -> Option<Result<Vec<u8>, String>> {
    let rest = uri.strip_prefix("data:")?;
    let Some((header, payload)) = rest.split_once(',') else {
        return Some(Err("data URI without a ',' before its payload".into()));
    };
    if !header.ends_with(";base64") {
        return Some(Err(format!("data URI '{}' is not base64 (expected ';base64,')", truncated(uri))));
    }
    Some(
        base64::engine::general_purpose::STANDARD
            .decode(payload.trim())
            .map_err(|e| format!("data URI is not valid base64: {e}")),
    )
}

/// The start of a long string, for messages.
fn truncated(s: &str) -> &str {
    s.char_indices().nth(40).map_or(s, |(i, _)| &s[..i])
}

/// Percent-decodes a relative URI into a file name (`my%20model.bin` → `my model.bin`).
pub(super) fn uri_to_file_name(uri: &str) -> String {
    let bytes = uri.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (b, hex) {
            (b'%', Some(v)) => {
                out.push(v);
                i += 3;
            }
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

impl Buffers {
    /// Loads every buffer: the GLB binary chunk, data URIs, or external files through
    /// `load_external` (a file name relative to the model; `None` when it cannot be read).
    pub(super) fn load(
        doc: &Document,
        blob: Option<Vec<u8>>,
        load_external: &mut dyn FnMut(&str) -> Option<Arc<Vec<u8>>>,
    ) -> Result<Buffers, FormatError> {
        let mut blob = blob;
        let mut out = Vec::new();
        for buffer in doc.buffers() {
            let what = format!("buffer {}", buffer.index());
            let data = match buffer.source() {
                gltf::buffer::Source::Bin => blob
                    .take()
                    .map(Arc::new)
                    .ok_or_else(|| err(format!("{what} refers to the GLB binary chunk, which is missing")))?,
                gltf::buffer::Source::Uri(uri) => match data_uri(uri) {
                    Some(decoded) => Arc::new(decoded.map_err(|e| err(format!("{what}: {e}")))?),
                    None => {
                        let name = uri_to_file_name(uri);
                        load_external(&name).ok_or_else(|| {
                            err(format!(
                                "{what}: external file '{name}' not found, unreadable or outside the model's folder"
                            ))
                        })?
                    }
                },
            };
            if data.len() < buffer.length() {
                return Err(err(format!(
                    "{what} declares {} bytes but only {} exist (truncated file?)",
                    buffer.length(),
                    data.len()
                )));
            }
            out.push(data);
        }
        Ok(Buffers(out))
    }

    /// The bytes of a buffer view, checked against its buffer.
    pub(super) fn view(&self, view: &gltf::buffer::View) -> Result<&[u8], FormatError> {
        let buffer = self.0.get(view.buffer().index()).map(|b| b.as_slice()).unwrap_or(&[]);
        view.offset().checked_add(view.length()).and_then(|end| buffer.get(view.offset()..end)).ok_or_else(|| {
            err(format!(
                "buffer view {} (bytes {}..+{}) points past the end of buffer {} ({} bytes)",
                view.index(),
                view.offset(),
                view.length(),
                view.buffer().index(),
                buffer.len()
            ))
        })
    }

    /// Reads an accessor as floats, `count × components` values, normalised integers mapped
    /// to 0..1 or −1..1 (unnormalised integers are cast). `what` names the use in errors.
    pub(super) fn floats(&self, accessor: &Accessor, dims: &[Dimensions], what: &str) -> Result<Vec<f32>, FormatError> {
        let norm = accessor.normalized();
        self.read(accessor, dims, what, |ty, b| match (ty, norm) {
            (DataType::F32, _) => f32::from_le_bytes([b[0], b[1], b[2], b[3]]),
            (DataType::U8, true) => f32::from(b[0]) / 255.0,
            (DataType::I8, true) => (f32::from(b[0] as i8) / 127.0).max(-1.0),
            (DataType::U16, true) => f32::from(u16::from_le_bytes([b[0], b[1]])) / 65535.0,
            (DataType::I16, true) => (f32::from(i16::from_le_bytes([b[0], b[1]])) / 32767.0).max(-1.0),
            (DataType::U8, false) => f32::from(b[0]),
            (DataType::I8, false) => f32::from(b[0] as i8),
            (DataType::U16, false) => f32::from(u16::from_le_bytes([b[0], b[1]])),
            (DataType::I16, false) => f32::from(i16::from_le_bytes([b[0], b[1]])),
            (DataType::U32, _) => u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f32,
        })
    }

    /// Reads an unsigned-integer accessor (indices, joint numbers).
    pub(super) fn uints(&self, accessor: &Accessor, dims: &[Dimensions], what: &str) -> Result<Vec<u32>, FormatError> {
        if !matches!(accessor.data_type(), DataType::U8 | DataType::U16 | DataType::U32) {
            return Err(err(format!(
                "accessor {} ({what}) has component type {:?}, expected an unsigned integer",
                accessor.index(),
                accessor.data_type()
            )));
        }
        self.read(accessor, dims, what, |ty, b| match ty {
            DataType::U8 => u32::from(b[0]),
            DataType::U16 => u32::from(u16::from_le_bytes([b[0], b[1]])),
            _ => u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
        })
    }

    /// Bounds-checked element walk; `decode` gets exactly one component's bytes.
    fn read<T: Default + Clone>(
        &self,
        accessor: &Accessor,
        dims: &[Dimensions],
        what: &str,
        decode: impl Fn(DataType, &[u8; 4]) -> T,
    ) -> Result<Vec<T>, FormatError> {
        let index = accessor.index();
        let fail = |m: String| err(format!("accessor {index} ({what}): {m}"));
        let components = match accessor.dimensions() {
            Dimensions::Scalar => 1,
            Dimensions::Vec2 => 2,
            Dimensions::Vec3 => 3,
            Dimensions::Vec4 => 4,
            Dimensions::Mat4 => 16,
            d => return Err(fail(format!("{d:?} accessors are not supported"))),
        };
        if !dims.contains(&accessor.dimensions()) {
            return Err(fail(format!("type is {:?}, expected one of {dims:?}", accessor.dimensions())));
        }
        if accessor.sparse().is_some() {
            return Err(fail("sparse accessors are not supported".into()));
        }
        let ty = accessor.data_type();
        let size = ty.size();
        let element = size * components;
        let count = accessor.count();
        let Some(view) = accessor.view() else {
            // No buffer view: the spec says all zeros.
            if count > MAX_VIEWLESS_ELEMENTS {
                return Err(fail(format!("{count} elements without a buffer view")));
            }
            return Ok(vec![T::default(); count * components]);
        };
        let bytes = self.view(&view)?;
        let stride = view.stride().unwrap_or(element);
        if stride < element {
            return Err(fail(format!("byte stride {stride} is smaller than one {element}-byte element")));
        }
        // Last byte needed: offset + stride·(count − 1) + element, all checked.
        let needed = match count {
            0 => Some(0),
            n => stride
                .checked_mul(n - 1)
                .and_then(|s| s.checked_add(accessor.offset()))
                .and_then(|s| s.checked_add(element)),
        };
        if needed.is_none_or(|n| n > bytes.len()) {
            return Err(fail(format!(
                "{count} elements of {element} bytes (stride {stride}) from offset {} point past the end of buffer view {} ({} bytes)",
                accessor.offset(),
                view.index(),
                bytes.len()
            )));
        }
        // The check above bounds `count` by the view's length, so this allocation is bounded
        // by the file.
        let mut out = Vec::with_capacity(count * components);
        for e in 0..count {
            let start = accessor.offset() + e * stride;
            for c in 0..components {
                let mut b = [0u8; 4];
                let at = start + c * size;
                for (i, slot) in b.iter_mut().enumerate().take(size) {
                    *slot = bytes.get(at + i).copied().unwrap_or(0);
                }
                out.push(decode(ty, &b));
            }
        }
        Ok(out)
    }
}
