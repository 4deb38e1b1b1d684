//! What the glTF document costs in memory before the `gltf` crate builds it.
//!
//! The crate turns every JSON object into a struct of a few hundred bytes (a material with its
//! PBR block, options and extension maps; a node; a primitive), so a JSON of empty objects
//! (`"materials":[{},{},...]`, three bytes each) grows about 130 times: 1.2 MB of them took
//! 156 MB. Counting the objects and array elements first, with a visitor that keeps nothing
//! (serde's `IgnoredAny` for keys, no values stored), gives a charge the budget can refuse
//! before anything is built.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::fmt;

use serde::Deserialize;
use serde::de::{DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// Bytes charged for each JSON object (measured: 390 a material, 480 a node with its index).
pub(super) const OBJECT_BYTES: u64 = 512;
/// Bytes charged for each array element (an index or number in a `Vec`, with its slack).
pub(super) const ELEMENT_BYTES: u64 = 16;

/// The JSON of a `.gltf`, or the JSON chunk of a `.glb` (the whole input when the chunk
/// header is missing or truncated: the parser reports that itself).
pub(super) fn json_of(bytes: &[u8]) -> &[u8] {
    if !bytes.starts_with(b"glTF") {
        return bytes;
    }
    let length = bytes.get(12..16).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize);
    length.and_then(|n| bytes.get(20..20usize.saturating_add(n))).unwrap_or(bytes)
}

/// Memory the document will take once built: objects and array elements of `json` counted,
/// or `None` when it is not JSON (the parser then reports where).
pub(super) fn built_bytes(json: &[u8]) -> Option<u64> {
    let counts = Counts::default();
    let mut deserializer = serde_json::Deserializer::from_slice(json);
    Walk(&counts).deserialize(&mut deserializer).ok()?;
    let (objects, elements) = (counts.objects.get(), counts.elements.get());
    Some(objects.saturating_mul(OBJECT_BYTES).saturating_add(elements.saturating_mul(ELEMENT_BYTES)))
}

/// The part of a document the `gltf` crate's validation reads without checking it first: its
/// primitive hook indexes `accessors[POSITION]` before the indices are validated, so a
/// POSITION naming a missing accessor panics inside the crate (found by fuzzing).
#[derive(Deserialize)]
struct Positions {
    #[serde(default)]
    accessors: Vec<IgnoredAny>,
    #[serde(default)]
    meshes: Vec<MeshPositions>,
}

#[derive(Deserialize)]
struct MeshPositions {
    #[serde(default)]
    primitives: Vec<PrimitivePositions>,
}

#[derive(Deserialize)]
struct PrimitivePositions {
    // A map, as the crate reads it: a repeated key keeps its last value there and here.
    #[serde(default)]
    attributes: BTreeMap<String, u64>,
}

/// Checks that every primitive's POSITION names an existing accessor, before the `gltf` crate
/// validates the document. JSON this cannot read is left to the crate, which cannot read it
/// either (every shape here is looser than the crate's).
///
/// # Errors
/// The mesh, primitive and accessor that does not exist.
pub(super) fn check_positions(json: &[u8]) -> Result<(), String> {
    let Ok(doc) = serde_json::from_slice::<Positions>(json) else { return Ok(()) };
    for (m, mesh) in doc.meshes.iter().enumerate() {
        for (p, primitive) in mesh.primitives.iter().enumerate() {
            match primitive.attributes.get("POSITION") {
                Some(&a) if a >= doc.accessors.len() as u64 => {
                    return Err(format!("mesh {m} primitive {p}: POSITION accessor {a} does not exist"));
                }
                _ => {}
            }
        }
    }
    Ok(())
}

#[derive(Default)]
struct Counts {
    objects: Cell<u64>,
    elements: Cell<u64>,
}

/// Visits any JSON value, counting as it goes and storing nothing.
#[derive(Clone, Copy)]
struct Walk<'a>(&'a Counts);

impl<'de> DeserializeSeed<'de> for Walk<'_> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Walk<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        self.0.objects.set(self.0.objects.get().saturating_add(1));
        while map.next_key::<IgnoredAny>()?.is_some() {
            map.next_value_seed(self)?;
        }
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(self)?.is_some() {
            self.0.elements.set(self.0.elements.get().saturating_add(1));
        }
        Ok(())
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }

    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }

    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }

    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }

    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects_and_elements_are_counted_nested() {
        let json = br#"{"asset":{"version":"2.0"},"nodes":[{},{"children":[0,2]},{}],"extras":[[1,2],"s",null,true]}"#;
        // Objects: the root, asset, three nodes. Elements: 3 nodes, 2 children, 4 extras, 2 inner.
        assert_eq!(built_bytes(json), Some(5 * OBJECT_BYTES + 11 * ELEMENT_BYTES));
        assert_eq!(built_bytes(b"{\"a\":"), None);
    }

    #[test]
    fn a_position_naming_a_missing_accessor_is_an_error() {
        let json = br#"{"asset":{"version":"2.0"},"accessors":[{}],"meshes":[{"primitives":[{"attributes":{"POSITION":0}},{"attributes":{"POSITION":1}}]}]}"#;
        assert_eq!(check_positions(json), Err("mesh 0 primitive 1: POSITION accessor 1 does not exist".into()));
        assert_eq!(check_positions(br#"{"meshes":[{"primitives":[{"attributes":{}}]}]}"#), Ok(()));
        assert_eq!(check_positions(b"not json"), Ok(()));
    }

    #[test]
    fn the_json_chunk_of_a_glb() {
        let mut glb = b"glTF".to_vec();
        glb.extend_from_slice(&2u32.to_le_bytes());
        glb.extend_from_slice(&30u32.to_le_bytes());
        glb.extend_from_slice(&2u32.to_le_bytes());
        glb.extend_from_slice(b"JSON{}");
        assert_eq!(json_of(&glb), b"{}");
        assert_eq!(json_of(b"{\"asset\":1}"), b"{\"asset\":1}");
        assert_eq!(json_of(&glb[..14]), &glb[..14]);
    }
}
