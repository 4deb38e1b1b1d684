//! Identical frames, found so a sheet stores each once (`dedupe`): two cells are the same
//! frame when their kept rectangles have the same offset and size inside the frame and the
//! same pixels. Held poses, a rest pose sampled many times and symmetric directions repeat.
//!
//! Each kept rectangle is hashed (BLAKE3 over offset, size and pixel rows) and cells with
//! equal hashes are compared pixel for pixel, so a hash collision can never merge two
//! different frames. The first cell of a kind, in job order, is the one stored: the result
//! does not depend on thread count or hash order.

use std::collections::HashMap;

use super::super::Cell;

/// The pixel rows of `cell`'s kept rectangle.
fn kept_rows<'a>(cell: &'a Cell, (x, y, w, h): (u32, u32, u32, u32)) -> impl Iterator<Item = &'a [u8]> + 'a {
    let stride = cell.image.width as usize * 4;
    (y..y + h).map(move |row| {
        let start = row as usize * stride + x as usize * 4;
        cell.image.rgba.get(start..start + w as usize * 4).unwrap_or(&[])
    })
}

/// For each cell, the index of the first cell with the same kept rectangle (offset, size and
/// pixels): itself when there is none earlier. `rects[i]` is cell `i`'s (x, y, w, h).
pub(super) fn originals(cells: &[Cell], rects: &[(u32, u32, u32, u32)]) -> Vec<usize> {
    let mut seen: HashMap<[u8; 32], Vec<usize>> = HashMap::new();
    let mut stored = Vec::with_capacity(cells.len());
    for (i, (cell, &rect)) in cells.iter().zip(rects).enumerate() {
        let mut hasher = blake3::Hasher::new();
        for v in [rect.0, rect.1, rect.2, rect.3] {
            hasher.update(&v.to_le_bytes());
        }
        for row in kept_rows(cell, rect) {
            hasher.update(row);
        }
        let same = seen.entry(*hasher.finalize().as_bytes()).or_default();
        let first =
            same.iter().copied().find(|&j| rects[j] == rect && kept_rows(&cells[j], rect).eq(kept_rows(cell, rect)));
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
