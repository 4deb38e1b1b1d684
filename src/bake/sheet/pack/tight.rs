//! Tight packing: MaxRects, largest frames first.

use std::cmp::Reverse;

use binpack2d::Dimension;
use binpack2d::maxrects::{Heuristic, MaxRectsBin};

use super::{Item, Spot};
use crate::error::{Error, Result};

/// Each item's spot, largest first.
pub(super) fn place(items: &[Item], area: (u32, u32), pad: u32, pot: bool) -> Result<Vec<Spot>> {
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by_key(|&i| (Reverse(items[i].h), Reverse(items[i].w)));
    // Which page each item goes on: the first, at full size, that takes it.
    let mut bins: Vec<MaxRectsBin> = Vec::new();
    let mut members: Vec<Vec<usize>> = Vec::new();
    for &i in &order {
        let placed = bins.iter_mut().position(|bin| insert(bin, &items[i], i, pad).is_some());
        let page = match placed {
            Some(page) => page,
            None => {
                let mut bin = bin_of(area, pad);
                insert(&mut bin, &items[i], i, pad).ok_or_else(|| {
                    Error::Invalid(format!(
                        "a {}x{} frame does not fit an empty {}x{} page",
                        items[i].w, items[i].h, area.0, area.1
                    ))
                })?;
                bins.push(bin);
                members.push(Vec::new());
                bins.len() - 1
            }
        };
        members[page].push(i);
    }
    // Then each page packed again into the smallest page that holds its items: a full-size
    // bin spreads a few frames over all of it.
    let mut spots = vec![Spot { page: 0, x: pad, y: pad }; items.len()];
    for (page, on_page) in members.iter().enumerate() {
        let packed = smallest_packing(items, on_page, area, pad, pot)
            .ok_or_else(|| Error::Invalid(format!("sheet page {page} no longer holds its frames")))?;
        for (i, (x, y)) in packed {
            spots[i] = Spot { page, x, y };
        }
    }
    Ok(spots)
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

/// `members` packed into the smallest page (least area, then squarest) within `area` that holds
/// them: for a range of widths, the least height found by bisection (powers of two with `pot`).
/// Never `None` for members first packed into `area` in the same order: that packing recurs.
fn smallest_packing(items: &[Item], members: &[usize], area: (u32, u32), pad: u32, pot: bool) -> Option<Corners> {
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
    let mut best: Option<((u64, u32), Corners)> = None;
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
    best.map(|(_, packed)| packed)
}
