//! Rows packing: one row per animation (clip and direction), frames left to right, wrapping
//! onto more lines at the page width; pages fill top to bottom in job order, so a sheet can be
//! sliced by hand.
//!
//! An animation that fits an empty page (all its lines) is never split: when it does not fit
//! below the previous row it starts the next page. Only a row taller than a whole page
//! continues on the next page, at a line break, so its frames read page after page are the
//! animation in order; such a row starts right below the previous one, so pages are filled
//! before new ones start.

use super::item::{Item, Spot};

/// A line of a row: its items and its height.
struct Line {
    items: std::ops::Range<usize>,
    height: u32,
}

/// Breaks a row into lines where the next frame would cross the page's right padding.
fn lines_of(row: &[Item], width: u32, pad: u32) -> Vec<Line> {
    let mut lines = Vec::new();
    let (mut start, mut x, mut height) = (0, u64::from(pad), 0);
    for (i, item) in row.iter().enumerate() {
        let right = x + u64::from(item.w) + u64::from(pad);
        if i > start && right > u64::from(width) {
            lines.push(Line { items: start..i, height });
            (start, x, height) = (i, u64::from(pad), 0);
        }
        x += u64::from(item.w) + u64::from(pad);
        height = height.max(item.h);
    }
    lines.push(Line { items: start..row.len(), height });
    lines
}

/// Each item's spot, row after row.
pub(super) fn place(items: &[Item], (width, height): (u32, u32), pad: u32) -> Vec<Spot> {
    let mut spots = Vec::with_capacity(items.len());
    let (mut page, mut y) = (0, u64::from(pad));
    let fits = |y: u64, h: u64| y + h + u64::from(pad) <= u64::from(height);
    for row in items.chunk_by(|a, b| a.row == b.row) {
        let lines = lines_of(row, width, pad);
        let row_height: u64 = lines.iter().map(|l| u64::from(l.height) + u64::from(pad)).sum();
        // A row starts a new page rather than split, unless it is taller than a page: it
        // splits wherever it starts, so it fills the page it is on first instead of leaving
        // the rest of that page empty (one page of 3 frames after every long animation).
        let splits_anyway = !fits(u64::from(pad), row_height - u64::from(pad));
        if y > u64::from(pad) && !splits_anyway && !fits(y, row_height - u64::from(pad)) {
            (page, y) = (page + 1, u64::from(pad));
        }
        for line in lines {
            if y > u64::from(pad) && !fits(y, u64::from(line.height)) {
                (page, y) = (page + 1, u64::from(pad));
            }
            let mut x = pad;
            for item in &row[line.items] {
                spots.push(Spot { page, x, y: y as u32 });
                x += item.w + pad;
            }
            y += u64::from(line.height) + u64::from(pad);
        }
    }
    spots
}
