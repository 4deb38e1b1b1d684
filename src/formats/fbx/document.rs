//! The animation stack the file itself names as active: `Documents` → `Document` →
//! `Properties70` → `P: "ActiveAnimStackName", "KString", "", "", NAME`.
//!
//! Blender imports that stack alone, and it matters for Mixamo files, which list a still
//! `Take 001` before their motion (`mixamo.com`). ufbx 0.11 keeps no trace of it: it reads the
//! `Documents` node only for the root's id, and `metadata.scene_props` holds the `SceneInfo`
//! properties instead. So this reads the one property straight from the bytes ufbx parsed:
//! for a binary file, by walking the node records (their end offsets let the walk skip the
//! big nodes unread), for an ASCII one, from its `P:` line. A file that does not say, or says
//! it in a shape this does not follow, gives `None`: the stacks keep the file's order.

/// The start of every binary FBX file; the version (u32) follows two more bytes.
const BINARY_MAGIC: &[u8] = b"Kaydara FBX Binary  \0";
/// The property naming the active stack.
const PROPERTY: &[u8] = b"ActiveAnimStackName";

/// The name of the animation stack the file marks as active, if it marks one.
pub(super) fn active_stack(bytes: &[u8]) -> Option<String> {
    let value = if bytes.starts_with(BINARY_MAGIC) { binary(bytes) } else { ascii(bytes) }?;
    let name = String::from_utf8_lossy(value).into_owned();
    (!name.is_empty()).then_some(name)
}

/// The property's value in an ASCII file: the fifth quoted string of its `P:` line (ASCII FBX
/// writes a quote inside a string as `&quot;`, so quotes only delimit).
fn ascii(bytes: &[u8]) -> Option<&[u8]> {
    let line = bytes.split(|&b| b == b'\n').map(<[u8]>::trim_ascii).find(|line| property_line(line))?;
    line.split(|&b| b == b'"').skip(1).step_by(2).nth(4)
}

/// Whether `line` is the property's `P:` line: `P: "ActiveAnimStackName", ...`.
fn property_line(line: &[u8]) -> bool {
    let Some(rest) = line.strip_prefix(b"P:").map(<[u8]>::trim_ascii_start) else { return false };
    rest.strip_prefix(b"\"").and_then(|rest| rest.strip_prefix(PROPERTY)).is_some_and(|rest| rest.starts_with(b"\""))
}

/// The property's value in a binary file.
fn binary(bytes: &[u8]) -> Option<&[u8]> {
    let version = u32::from_le_bytes(bytes.get(23..27)?.try_into().ok()?);
    let file = Records { bytes, wide: version >= 7500 };
    let named = |name: &'static [u8]| move |record: &Record| record.name == name;
    let documents = file.find(27, bytes.len(), named(b"Documents"))?;
    let document = file.find(documents.children, documents.end, named(b"Document"))?;
    let properties = file.find(document.children, document.end, named(b"Properties70"))?;
    let is_property = |p: &Record| p.name == b"P" && file.values(p).next().flatten() == Some(PROPERTY);
    let property = file.find(properties.children, properties.end, is_property)?;
    file.values(&property).nth(4).flatten()
}

/// The node records of a binary FBX file.
struct Records<'a> {
    bytes: &'a [u8],
    /// FBX 7.5 and later write the record header's three numbers as u64, earlier files as u32.
    wide: bool,
}

/// One node record: where its parts lie in the file.
struct Record<'a> {
    name: &'a [u8],
    /// Where its properties start.
    properties: usize,
    /// Where its properties end and its children start.
    children: usize,
    /// Where it ends (the next sibling starts).
    end: usize,
}

impl<'a> Records<'a> {
    /// The record at `at`, which must end by `limit`; `None` at the list's closing empty
    /// record or where the header does not hold together.
    fn record(&self, at: usize, limit: usize) -> Option<Record<'a>> {
        let width = if self.wide { 8 } else { 4 };
        let number = |i: usize| -> Option<usize> {
            let start = at.checked_add(i * width)?;
            let field = self.bytes.get(start..start.checked_add(width)?)?;
            let value = match field {
                &[a, b, c, d] => u64::from(u32::from_le_bytes([a, b, c, d])),
                _ => u64::from_le_bytes(field.try_into().ok()?),
            };
            usize::try_from(value).ok()
        };
        let (end, length) = (number(0)?, number(2)?);
        let name_at = at.checked_add(3 * width)?;
        let name_length = usize::from(*self.bytes.get(name_at)?);
        let name = self.bytes.get(name_at + 1..(name_at + 1).checked_add(name_length)?)?;
        let properties = name_at + 1 + name_length;
        let children = properties.checked_add(length)?;
        // Every record ends after its start and within its parent: the walk always advances.
        (end > at && end <= limit && children <= end).then_some(Record { name, properties, children, end })
    }

    /// The first record among the siblings from `at` to `limit` that is `wanted`.
    fn find(&self, mut at: usize, limit: usize, wanted: impl Fn(&Record) -> bool) -> Option<Record<'a>> {
        loop {
            let record = self.record(at, limit)?;
            if wanted(&record) {
                return Some(record);
            }
            at = record.end;
        }
    }

    /// The properties of `record`.
    fn values(&self, record: &Record) -> Properties<'a> {
        Properties { bytes: self.bytes.get(record.properties..record.children).unwrap_or_default() }
    }
}

/// A binary record's properties in order: `Some` string for a string property (`S`), `None`
/// for any other; the iteration stops at the first one that does not fit.
struct Properties<'a> {
    bytes: &'a [u8],
}

impl<'a> Iterator for Properties<'a> {
    type Item = Option<&'a [u8]>;

    fn next(&mut self) -> Option<Self::Item> {
        let (&kind, rest) = self.bytes.split_first()?;
        let length = |at: usize| -> Option<usize> {
            let field: [u8; 4] = rest.get(at..at + 4)?.try_into().ok()?;
            usize::try_from(u32::from_le_bytes(field)).ok()
        };
        // Each kind's size after its type byte: fixed for numbers, counted for the rest.
        let (skip, value) = match kind {
            b'C' => (1, None),
            b'Y' => (2, None),
            b'I' | b'F' => (4, None),
            b'D' | b'L' => (8, None),
            b'S' | b'R' => {
                let size = 4usize.checked_add(length(0)?)?;
                (size, (kind == b'S').then(|| rest.get(4..size)).flatten())
            }
            // Arrays: count, encoding, then the stored (perhaps compressed) bytes.
            b'f' | b'd' | b'l' | b'i' | b'b' => (12usize.checked_add(length(8)?)?, None),
            _ => return None,
        };
        self.bytes = rest.get(skip..)?;
        Some(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A binary node record (FBX 7.4: u32 header numbers) of `properties` and `children`,
    /// starting at `at`.
    fn record(at: usize, name: &str, properties: &[u8], children: &[u8]) -> Vec<u8> {
        let end = at + 13 + name.len() + properties.len() + children.len();
        let mut out = Vec::new();
        out.extend((end as u32).to_le_bytes());
        out.extend(0u32.to_le_bytes());
        out.extend((properties.len() as u32).to_le_bytes());
        out.push(name.len() as u8);
        out.extend(name.as_bytes());
        out.extend(properties);
        out.extend(children);
        out
    }

    fn string(s: &str) -> Vec<u8> {
        [&[b'S'][..], &(s.len() as u32).to_le_bytes(), s.as_bytes()].concat()
    }

    /// A binary file: a `Skipped` node (an array and a number), then `Documents` holding the
    /// property `active`, each list closed by an empty record.
    fn binary_file(active: &str) -> Vec<u8> {
        let mut file = BINARY_MAGIC.to_vec();
        file.extend([0x1a, 0]);
        file.extend(7400u32.to_le_bytes());
        let array = [&[b'i'][..], &2u32.to_le_bytes(), &0u32.to_le_bytes(), &8u32.to_le_bytes(), &[7; 8]].concat();
        let skipped = record(file.len(), "Skipped", &[array, vec![b'I', 1, 0, 0, 0]].concat(), &[]);
        file.extend(&skipped);
        let documents = file.len();
        // Children are laid out after their parents' headers: 13 bytes and the name.
        let document = documents + 13 + "Documents".len();
        let properties = document + 13 + "Document".len();
        let p_at = properties + 13 + "Properties70".len();
        let values: Vec<u8> = ["SourceObject", "object", "", ""].iter().flat_map(|s| string(s)).collect();
        let first = record(p_at, "P", &values, &[]);
        let values: Vec<u8> =
            ["ActiveAnimStackName", "KString", "", "", active].iter().flat_map(|s| string(s)).collect();
        let second = record(p_at + first.len(), "P", &values, &[]);
        let null = [0u8; 13];
        let list = [first, second, null.to_vec()].concat();
        let properties = record(properties, "Properties70", &[], &list);
        let document = record(document, "Document", &[], &[properties, null.to_vec()].concat());
        file.extend(record(documents, "Documents", &[], &[document, null.to_vec()].concat()));
        file.extend(null);
        file
    }

    #[test]
    fn the_active_stack_is_read_from_binary_records() {
        assert_eq!(active_stack(&binary_file("mixamo.com")).as_deref(), Some("mixamo.com"));
        // Not said, or cut anywhere: no name, never a panic.
        assert_eq!(active_stack(&binary_file("")), None);
        let file = binary_file("Walk");
        for cut in 0..file.len() {
            let name = active_stack(&file[..cut]);
            assert!(name.is_none() || name.as_deref() == Some("Walk"), "cut at {cut}: {name:?}");
        }
    }

    #[test]
    fn the_active_stack_is_read_from_an_ascii_line() {
        let text = "Documents:  {\n\tDocument: 1, \"Scene\", \"Scene\" {\n\t\tProperties70:  {\n\
                    \t\t\tP: \"SourceObject\", \"object\", \"\", \"\"\n\
                    \t\t\tP: \"ActiveAnimStackName\", \"KString\", \"\", \"\", \"Walk\"\n\t\t}\n\t}\n}\n";
        assert_eq!(active_stack(text.as_bytes()).as_deref(), Some("Walk"));
        let unsaid = text.replace("\"Walk\"", "\"\"");
        assert_eq!(active_stack(unsaid.as_bytes()), None);
        assert_eq!(active_stack(b"; FBX 7.4.0 project file\n"), None);
    }
}
