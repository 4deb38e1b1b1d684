//! Identical frames, found so a sheet stores each once (`dedupe`): two cells are the same
//! frame when their kept rectangles have the same offset and size inside the frame and the
//! same pixels. Held poses, a rest pose sampled many times and symmetric directions repeat.
//!
//! Each kept rectangle is hashed (BLAKE3 over offset, size and pixel rows) and cells with
//! equal hashes are compared pixel for pixel, so a hash collision can never merge two
//! different frames. The first cell of a kind, in job order, is the one stored: the result
//! does not depend on thread count or hash order.

use std::collections::HashMap;

use crate::bake::Cell;

/// For each cell, the index of the first cell with the same kept rectangle (offset and size
/// in the frame, and pixels): itself when there is none earlier. Each cell's image is its kept
/// rectangle, `rects[i]` where it lies in cell `i`'s frame.
pub(super) fn originals(cells: &[Cell], rects: &[(u32, u32, u32, u32)]) -> Vec<usize> {
    let mut seen: HashMap<[u8; 32], Vec<usize>> = HashMap::new();
    let mut stored = Vec::with_capacity(cells.len());
    for (i, (cell, &rect)) in cells.iter().zip(rects).enumerate() {
        let mut hasher = blake3::Hasher::new();
        for v in [rect.0, rect.1, rect.2, rect.3] {
            hasher.update(&v.to_le_bytes());
        }
        hasher.update(&cell.image.rgba);
        let same = seen.entry(*hasher.finalize().as_bytes()).or_default();
        let first = same.iter().copied().find(|&j| rects[j] == rect && cells[j].image.rgba == cell.image.rgba);
        match first {
            Some(j) => stored.push(j),
            None => {
                same.push(i);
                stored.push(i);
            }
        }
    }
    stored
}
