//! Tight packing: MaxRects, animation by animation.
//!
//! Each animation (a row: one clip and direction) goes onto one page whole: the first open page
//! whose bin takes every one of its frames (tried on a copy of the bin, kept only when all fit),
//! else a new page. Engines that read a page's animations from that page alone (PixiJS builds a
//! sheet's `animations` from its own textures) then get every animation that fits a page
//! complete. Animations go largest first (by area, then job order), and each animation's
//! frames largest first (height, width, job order): first-fit decreasing, deterministic.
//!
//! Only an animation too large for an empty page spreads, in frame order: each frame on the
//! first page, from its predecessor's on, that takes it, so its frames read page after page are
//! the animation in order.
//!
//! Rejected: packing frame by frame, largest first over the whole sheet (what this did before):
//! about as dense, but it scatters an animation's frames over pages.

use std::cmp::Reverse;
use std::ops::Range;

use binpack2d::Dimension;
use binpack2d::maxrects::{Heuristic, MaxRectsBin};

use super::item::{Item, Spot};
use crate::error::{Error, Result};

/// A page being filled: its bin, the items on it in insertion order, and the area left.
struct OpenPage {
    bin: MaxRectsBin,
    members: Vec<usize>,
    free: u64,
}

impl OpenPage {
    fn new(area: (u32, u32), pad: u32) -> OpenPage {
        let free = u64::from(area.0 - pad) * u64::from(area.1 - pad);
        OpenPage { bin: bin_of(area, pad), members: Vec::new(), free }
    }

    /// Puts every one of `frames` on the page, or none of them: whether they all fit.
    fn take_all(&mut self, items: &[Item], frames: &[usize], pad: u32) -> bool {
        let need = footprint(items, frames.iter().copied(), pad);
        if need > self.free {
            return false;
        }
        let mut bin = self.bin.clone();
        if !frames.iter().all(|&i| insert(&mut bin, &items[i], i, pad).is_some()) {
            return false;
        }
        self.bin = bin;
        self.members.extend_from_slice(frames);
        self.free -= need;
        true
    }
}

/// The bin area `frames` take, each with the padding to its right and below.
fn footprint(items: &[Item], frames: impl IntoIterator<Item = usize>, pad: u32) -> u64 {
    frames.into_iter().map(|i| u64::from(items[i].w + pad) * u64::from(items[i].h + pad)).sum()
}

/// The runs of consecutive items of one row (animation), in job order.
fn animations(items: &[Item]) -> Vec<Range<usize>> {
    let mut runs: Vec<Range<usize>> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        match runs.last_mut() {
            Some(run) if items[run.start].row == item.row => run.end = i + 1,
            _ => runs.push(i..i + 1),
        }
    }
    runs
}

/// Each item's spot, animation by animation (see the module notes).
pub(super) fn place(items: &[Item], area: (u32, u32), pad: u32, pot: bool) -> Result<Vec<Spot>> {
    let mut runs = animations(items);
    runs.sort_by_key(|run| (Reverse(footprint(items, run.clone(), pad)), run.start));
    let mut pages: Vec<OpenPage> = Vec::new();
    for run in runs {
        let mut frames: Vec<usize> = run.clone().collect();
        frames.sort_by_key(|&i| (Reverse(items[i].h), Reverse(items[i].w), i));
        if pages.iter_mut().any(|page| page.take_all(items, &frames, pad)) {
            continue;
        }
        // MaxRects is a heuristic: frames that do not go onto an empty page largest first may
        // in frame order (as they would spread, onto one page after all).
        let mut page = OpenPage::new(area, pad);
        let in_order: Vec<usize> = run.clone().collect();
        if page.take_all(items, &frames, pad) || page.take_all(items, &in_order, pad) {
            pages.push(page);
        } else {
            spread(items, run, &mut pages, area, pad)?;
        }
    }
    // Then each page packed again into the smallest page that holds its items (a full-size
    // bin spreads a few frames over all of it): its frames largest first, as one pass over
    // the page packs densest, or in the order they went onto it, which always fits.
    let mut spots = vec![Spot { page: 0, x: pad, y: pad }; items.len()];
    for (index, page) in pages.iter().enumerate() {
        let mut largest_first = page.members.clone();
        largest_first.sort_by_key(|&i| (Reverse(items[i].h), Reverse(items[i].w), i));
        let packed = [largest_first.as_slice(), &page.members]
            .into_iter()
            .filter_map(|order| smallest_packing(items, order, area, pad, pot))
            .min_by_key(|(size, _)| *size)
            .map(|(_, packed)| packed)
            .ok_or_else(|| Error::internal(format!("sheet page {index} no longer holds its frames")))?;
        for (i, (x, y)) in packed {
            spots[i] = Spot { page: index, x, y };
        }
    }
    Ok(spots)
}

/// Places the frames of an animation too large for one page in frame order, each on the first
/// page from its predecessor's on that takes it (a new one when none does).
fn spread(items: &[Item], frames: Range<usize>, pages: &mut Vec<OpenPage>, area: (u32, u32), pad: u32) -> Result<()> {
    let mut from = 0;
    for i in frames {
        let found = (from..pages.len()).find(|&p| pages[p].take_all(items, &[i], pad));
        from = match found {
            Some(page) => page,
            None => {
                let mut page = OpenPage::new(area, pad);
                if !page.take_all(items, &[i], pad) {
                    let (w, h) = (items[i].w, items[i].h);
                    let expected = format!("a {w}x{h} frame does not fit an empty {}x{} page", area.0, area.1);
                    return Err(Error::Size(expected));
                }
                pages.push(page);
                pages.len() - 1
            }
        };
    }
    Ok(())
}

/// An empty MaxRects bin for a page of `area`: each item takes its size plus the padding to
/// its right and below, and the page's left and top padding are outside the bin.
fn bin_of((width, height): (u32, u32), pad: u32) -> MaxRectsBin {
    MaxRectsBin::new((width - pad) as i32, (height - pad) as i32)
}

/// Inserts item `i` into `bin`: its top-left corner on the page, or `None` when it does not fit.
fn insert(bin: &mut MaxRectsBin, item: &Item, i: usize, pad: u32) -> Option<(u32, u32)> {
    let dim = Dimension::with_id(i as isize, (item.w + pad) as i32, (item.h + pad) as i32, 0);
    let rect = bin.insert(&dim, Heuristic::BestShortSideFit)?;
    Some((pad + rect.x() as u32, pad + rect.y() as u32))
}

/// Items (by index) with their top-left corners on one page.
type Corners = Vec<(usize, (u32, u32))>;

/// `members` (in placement order) packed into one page of `size`: each item's index and
/// corner, or `None` when they do not all fit.
fn pack_page(items: &[Item], members: &[usize], size: (u32, u32), pad: u32) -> Option<Corners> {
    let mut bin = bin_of(size, pad);
    members.iter().map(|&i| insert(&mut bin, &items[i], i, pad).map(|corner| (i, corner))).collect()
}

/// The size of a page as it is ranked: its area, then its longer side (squarer first).
type Rank = (u64, u32);

/// `members` packed in this order into the smallest page (least area, then squarest) within
/// `area` that holds them: for a range of widths, the least height found by bisection (powers
/// of two with `pot`); with the page's rank. Never `None` for members first packed into `area`
/// in the same order: that packing recurs.
fn smallest_packing(
    items: &[Item],
    members: &[usize],
    area: (u32, u32),
    pad: u32,
    pot: bool,
) -> Option<(Rank, Corners)> {
    const WIDTHS: u32 = 16;
    let widest = members.iter().map(|&i| items[i].w).max().unwrap_or(0) + 2 * pad;
    let tallest = members.iter().map(|&i| items[i].h).max().unwrap_or(0) + 2 * pad;
    // Candidate sides from the largest frame's to the area's.
    let sides = |from: u32, to: u32| -> Vec<u32> {
        if pot {
            (0..32).map(|b| 1u32 << b).filter(|&v| v >= from.min(to) && v <= to).collect()
        } else {
            let step = (to.saturating_sub(from) / WIDTHS).max(1);
            let mut v: Vec<u32> = (0..WIDTHS).map(|k| from.saturating_add(k * step).min(to)).collect();
            v.push(to);
            v.dedup();
            v
        }
    };
    let mut best: Option<(Rank, Corners)> = None;
    for w in sides(widest, area.0) {
        let heights = sides(tallest, area.1);
        // The least height in `heights` that holds them at this width (bisection: packing is
        // nearly monotone in the height, and any height found holds them).
        let (mut lo, mut hi, mut found) = (0, heights.len(), None);
        while lo < hi {
            let mid = (lo + hi) / 2;
            match pack_page(items, members, (w, heights[mid]), pad) {
                Some(packed) => (hi, found) = (mid, Some((heights[mid], packed))),
                None => lo = mid + 1,
            }
        }
        if let Some((h, packed)) = found {
            let key = (u64::from(w) * u64::from(h), w.max(h));
            if best.as_ref().is_none_or(|(k, _)| key < *k) {
                best = Some((key, packed));
            }
        }
    }
    best
}
