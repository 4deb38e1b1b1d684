//! Rows packing: one row per animation (clip and direction), frames left to right, wrapping
//! onto more lines at the page width, so a sheet can be sliced by hand.
//!
//! An animation that fits an empty page (all its lines) is never split. Pages are filled one
//! at a time, each as full as the animations waiting for it can fill it: among the next
//! [`CANDIDATES`] of them in job order, the set whose rows add up to the most height that fits
//! (a 0/1 knapsack over pixel heights, ties going to earlier animations), placed in job order.
//! A short animation may so sit on an earlier page than one before it; in the data every
//! animation is named wherever it is. Fox, three clips in 16 directions at 192 px on 2048²
//! pages: 30 pages, where filling pages strictly in job order made 31 (their walk rows of 3
//! lines left a line free on every page, their run rows of 4 two).
//!
//! Only a row taller than a whole page continues on the next page, at a line break, so its
//! frames read page after page are the animation in order; such a row starts right below the
//! rows before it, filling that page first.

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

/// How many waiting animations, in job order, a page's fill chooses among: it keeps an
/// animation near its neighbours and bounds the work a page (the candidates times the page's
/// height in pixels).
const CANDIDATES: usize = 64;

/// A row and its lines.
struct Row<'a> {
    /// Index of its first item.
    start: usize,
    items: &'a [Item],
    lines: Vec<Line>,
    /// Its height with the padding below each line: how far it moves the next row down.
    height: u64,
}

/// Where rows go: the page being filled and how far down it is filled.
struct Cursor {
    page: usize,
    y: u64,
    pad: u32,
    page_height: u64,
}

impl Cursor {
    /// Puts `row` at the cursor, line after line, a line that does not fit continuing on the
    /// next page; each item's spot goes to `spots`.
    fn place(&mut self, row: &Row, spots: &mut [Option<Spot>]) {
        let top = u64::from(self.pad);
        for line in &row.lines {
            if self.y > top && self.y + u64::from(line.height) + top > self.page_height {
                (self.page, self.y) = (self.page + 1, top);
            }
            let mut x = self.pad;
            for (i, item) in row.items.iter().enumerate().skip(line.items.start).take(line.items.len()) {
                if let Some(spot) = spots.get_mut(row.start + i) {
                    *spot = Some(Spot { page: self.page, x, y: self.y as u32 });
                }
                x += item.w + self.pad;
            }
            self.y += u64::from(line.height) + top;
        }
    }

    /// The height left on the page.
    fn room(&self) -> u64 {
        self.page_height.saturating_sub(self.y)
    }
}

/// Each item's spot (in item order).
pub(super) fn place(items: &[Item], (width, height): (u32, u32), pad: u32) -> Vec<Spot> {
    let mut rows = Vec::new();
    let mut start = 0;
    for row in items.chunk_by(|a, b| a.row == b.row) {
        let lines = lines_of(row, width, pad);
        let row_height = lines.iter().map(|l| u64::from(l.height) + u64::from(pad)).sum();
        rows.push(Row { start, items: row, lines, height: row_height });
        start += row.len();
    }
    let mut spots: Vec<Option<Spot>> = vec![None; items.len()];
    let mut cursor = Cursor { page: 0, y: u64::from(pad), pad, page_height: u64::from(height) };
    let fits_a_page = |row: &Row| row.height + u64::from(pad) <= u64::from(height);
    // The short rows waiting since the last row taller than a page, in job order.
    let mut waiting: Vec<&Row> = Vec::new();
    for row in &rows {
        if fits_a_page(row) {
            waiting.push(row);
            continue;
        }
        fill_pages(&mut cursor, &mut waiting, &mut spots);
        cursor.place(row, &mut spots);
    }
    fill_pages(&mut cursor, &mut waiting, &mut spots);
    spots.into_iter().map(|s| s.unwrap_or(Spot { page: 0, x: pad, y: pad })).collect()
}

/// Places every row `waiting` (each fits an empty page), filling the cursor's page as full as
/// the first [`CANDIDATES`] of them can, then new pages the same way.
fn fill_pages(cursor: &mut Cursor, waiting: &mut Vec<&Row>, spots: &mut [Option<Spot>]) {
    while !waiting.is_empty() {
        let candidates = &waiting[..waiting.len().min(CANDIDATES)];
        let heights: Vec<u64> = candidates.iter().map(|r| r.height).collect();
        let mut chosen = fullest(&heights, cursor.room());
        if chosen.is_empty() {
            let top = u64::from(cursor.pad);
            if cursor.y > top {
                (cursor.page, cursor.y) = (cursor.page + 1, top);
                continue;
            }
            // An empty page takes the first row whatever (a row of no height adds to no sum).
            chosen.push(0);
        }
        for &i in &chosen {
            if let Some(row) = candidates.get(i) {
                cursor.place(row, spots);
            }
        }
        let mut index = 0;
        waiting.retain(|_| {
            let keep = !chosen.contains(&index);
            index += 1;
            keep
        });
    }
}

/// The indices of the `heights` (in order) whose sum is the largest at most `room`, earlier
/// ones preferred among sets of one sum: a 0/1 knapsack over whole pixels.
fn fullest(heights: &[u64], room: u64) -> Vec<usize> {
    let room = usize::try_from(room).unwrap_or(usize::MAX);
    // For each reachable sum, the height that first reached it (`u32::MAX`: none; 0 is reached
    // by no height).
    let mut by = vec![u32::MAX; room.saturating_add(1)];
    let mut reached = vec![false; room.saturating_add(1)];
    if let Some(zero) = reached.first_mut() {
        *zero = true;
    }
    for (i, &h) in heights.iter().enumerate() {
        let Ok(h) = usize::try_from(h) else { continue };
        // Downwards, so each height is used once.
        for sum in (h..=room).rev() {
            if !reached[sum] && reached[sum - h] {
                reached[sum] = true;
                by[sum] = i as u32;
            }
        }
    }
    let mut sum = reached.iter().rposition(|&r| r).unwrap_or(0);
    let mut chosen = Vec::new();
    while sum > 0 {
        let i = by[sum] as usize;
        chosen.push(i);
        sum -= usize::try_from(heights[i]).unwrap_or(sum);
    }
    chosen.sort_unstable();
    chosen
}
