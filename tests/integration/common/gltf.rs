//! glTF documents built in tests: a binary buffer (as a data URI) and accessors over it.

use base64::Engine as _;
use serde_json::{Value, json};

/// Builds a glTF document's binary buffer and the accessors that point into it.
#[derive(Default)]
pub struct Builder {
    pub bin: Vec<u8>,
    pub views: Vec<Value>,
    pub accessors: Vec<Value>,
}

impl Builder {
    /// Appends `bytes` as a buffer view and an accessor over it; returns the accessor index.
    pub fn add(&mut self, bytes: &[u8], component: u32, ty: &str, count: usize) -> usize {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        self.views.push(json!({"buffer": 0, "byteOffset": self.bin.len(), "byteLength": bytes.len()}));
        self.bin.extend_from_slice(bytes);
        self.accessors
            .push(json!({"bufferView": self.views.len() - 1, "componentType": component, "type": ty, "count": count}));
        self.accessors.len() - 1
    }

    pub fn floats(&mut self, values: &[f32], ty: &str, width: usize) -> usize {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let a = self.add(&bytes, 5126, ty, values.len() / width);
        self.accessors[a] = with_bounds(self.accessors[a].clone(), values, width);
        a
    }

    pub fn u8s(&mut self, values: &[u8], ty: &str, width: usize) -> usize {
        self.add(values, 5121, ty, values.len() / width)
    }

    pub fn u16s(&mut self, values: &[u16]) -> usize {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.add(&bytes, 5123, "SCALAR", values.len())
    }

    /// `document` with the binary buffer (a data URI), its views and accessors.
    pub fn finish(self, mut document: Value) -> Value {
        let uri = format!(
            "data:application/octet-stream;base64,{}",
            base64::engine::general_purpose::STANDARD.encode(&self.bin)
        );
        document["buffers"] = json!([{"byteLength": self.bin.len(), "uri": uri}]);
        document["bufferViews"] = json!(self.views);
        document["accessors"] = json!(self.accessors);
        document
    }
}

/// glTF requires `min` and `max` on POSITION accessors; every float accessor gets them here.
pub fn with_bounds(mut accessor: Value, values: &[f32], width: usize) -> Value {
    let column = |c: usize| values.iter().skip(c).step_by(width).copied();
    let min: Vec<f32> = (0..width).map(|c| column(c).fold(f32::MAX, f32::min)).collect();
    let max: Vec<f32> = (0..width).map(|c| column(c).fold(f32::MIN, f32::max)).collect();
    accessor["min"] = json!(min);
    accessor["max"] = json!(max);
    accessor
}
