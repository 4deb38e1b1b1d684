//! Where each kept rectangle goes: which page, and where on it.
//!
//! **Pages.** Every page fits within `max_size` (with `pot`, within its largest powers of two,
//! so rounding a page up never passes the limit) and is cut down to what is on it, then
//! rounded up to powers of two with `pot`. A frame that cannot fit an empty page is refused
//! before anything renders ([`page_bound`], which every plan calls).
//!
//! **Animations stay on one page.** Every animation (the cells of one clip and direction: a
//! row) that fits an empty page is put on one page whole, with both packings: engines that
//! read each page's animations from that page alone (PixiJS's `Spritesheet`, each page of a
//! multipack) then have it complete. An animation too large for one page spreads over pages in
//! frame order, so its parts page after page are the animation in order.
//!
//! **Rows** (the default, [`rows`]): one row per animation, frames left to right, wrapping at
//! the page width; a row that does not fit below the previous one starts the next page.
//!
//! **Tight** ([`tight`]): MaxRects (Jylänki, from the `binpack2d` crate) with the
//! best-short-side-fit rule, animation by animation, largest first, each on the first page
//! that takes all of its frames; then each page cut to the least area that holds its frames.
//! A global best-fit pass over all frames (`insert_list`) packs a little denser but costs
//! O(n²) placements (thousands of frames take minutes) and scatters animations over pages.
//!
//! **Shared rectangles** ([`shared`], `dedupe`): a duplicate shares its original's rectangle
//! only on its own animation's page; elsewhere it is stored again and the sheet laid out again.
//!
//! **The page count is planned.** Outputs are listed before rendering, when the trimmed sizes
//! are unknown: [`page_bound`] counts the pages of the same arrangement of whole frames, and
//! [`arrange`] never uses more. Smaller frames need no more pages in practice; where a packer's
//! heuristic would, the frames take their whole-frame places instead, which keep every
//! animation that fits a page as whole frames on one page.

mod item;
mod rows;
mod shared;
mod tight;

pub(super) use item::{Arranged, Item, Spot};

use crate::error::{Error, Result};
use crate::sprite::{Layout, Packing};

/// Row ids of cells in job order: consecutive cells with the same (clip, direction) share one.
pub(super) fn row_ids(keys: impl IntoIterator<Item = (usize, u32)>) -> Vec<usize> {
    let mut last = None;
    let mut row = 0;
    keys.into_iter()
        .map(|key| {
            if last.is_some_and(|k| k != key) {
                row += 1;
            }
            last = Some(key);
            row
        })
        .collect()
}

/// The area frames are placed in: `max_size`, or with `pot` the largest powers of two within it.
fn page_area(layout: &Layout) -> (u32, u32) {
    let (w, h) = layout.max_size;
    let floor_pot = |v: u32| if v == 0 { 0 } else { 1 << (31 - v.leading_zeros()) };
    if layout.pot { (floor_pot(w), floor_pot(h)) } else { (w, h) }
}

/// Refuses a frame that cannot fit an empty page with the padding around it.
fn check_fits(frame: (u32, u32), layout: &Layout) -> Result<()> {
    let (area_w, area_h) = page_area(layout);
    let pad = 2 * u64::from(layout.padding);
    let (need_w, need_h) = (u64::from(frame.0) + pad, u64::from(frame.1) + pad);
    if need_w <= u64::from(area_w) && need_h <= u64::from(area_h) {
        return Ok(());
    }
    let (w, h) = layout.max_size;
    let pot = if layout.pot { format!(" (with `pot`, pages are at most {area_w}x{area_h})") } else { String::new() };
    Err(Error::bad_option(
        "max_size",
        format!("{w}x{h}"),
        format!(
            "must hold one frame: {}x{} with {} px of `padding` on each side needs {need_w}x{need_h}{pot}",
            frame.0, frame.1, layout.padding
        ),
    ))
}

/// Whole frames, one per cell, in the rows `rows` gives.
fn whole_frames(rows: &[usize], frame: (u32, u32)) -> Vec<Item> {
    rows.iter().enumerate().map(|(cell, &row)| Item { cell, w: frame.0, h: frame.1, row }).collect()
}

/// The most pages a sheet of cells with these (clip, direction) keys (job order) and untrimmed
/// `frame` size can have: what the plan lists before rendering.
///
/// # Errors
/// A frame that cannot fit one page ([`Error::BadOption`] `max_size`).
pub fn page_bound(keys: &[(usize, u32)], frame: (u32, u32), layout: &Layout) -> Result<usize> {
    check_fits(frame, layout)?;
    Ok(page_count(&place(&whole_frames(&row_ids(keys.iter().copied()), frame), layout)?))
}

/// Places `items` (the stored ones; a subset of the job's cells, whose rows are `rows`), using
/// no more pages than [`page_bound`] for the same cells.
///
/// # Errors
/// A frame that cannot fit one page.
pub(super) fn arrange(items: &[Item], rows: &[usize], frame: (u32, u32), layout: &Layout) -> Result<Arranged> {
    check_fits(frame, layout)?;
    let whole = place(&whole_frames(rows, frame), layout)?;
    let spots = within_bound(place(items, layout)?, &whole, items);
    let sizes = page_sizes(items, &spots, layout);
    Ok(Arranged { spots, sizes })
}

/// Layouts tried with sharing ([`shared`]) before giving sharing up.
const SHARING_ROUNDS: usize = 4;

/// A sheet's layout with the duplicates that keep sharing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Shared {
    /// The cell whose pixels each cell shows: itself, or an earlier duplicate's on the same
    /// animation's page.
    pub stored: Vec<usize>,
    /// The stored cells, as placed.
    pub items: Vec<Item>,
    /// Where they went.
    pub arranged: Arranged,
}

/// Lays out cells of `frame` size whose kept rectangles are `rects`, each showing the pixels
/// of cell `stored[i]` (itself or an earlier identical one), in the rows `rows` gives: a
/// duplicate keeps sharing only on its animation's page. Each round stores the duplicates off
/// it again ([`shared::strays`]); after [`SHARING_ROUNDS`] the sheet is laid out with no
/// sharing, which always keeps animations together.
///
/// # Errors
/// A frame that cannot fit one page.
pub(super) fn arrange_shared(
    rects: &[(u32, u32, u32, u32)],
    stored: &[usize],
    rows: &[usize],
    frame: (u32, u32),
    layout: &Layout,
) -> Result<Shared> {
    let mut stored = stored.to_vec();
    let mut round = 0;
    loop {
        let items: Vec<Item> = (0..rects.len())
            .filter(|&i| stored.get(i) == Some(&i))
            .map(|cell| Item { cell, w: rects[cell].2, h: rects[cell].3, row: rows.get(cell).copied().unwrap_or(0) })
            .collect();
        let arranged = arrange(&items, rows, frame, layout)?;
        let strays = shared::strays(&stored, rows, &shared::pages_of(&stored, &items, &arranged));
        if strays.is_empty() || round == SHARING_ROUNDS {
            return Ok(Shared { stored, items, arranged });
        }
        round += 1;
        if round == SHARING_ROUNDS {
            stored = (0..rects.len()).collect();
        } else {
            for i in strays {
                stored[i] = i;
            }
        }
    }
}

/// `spots`, or when they use more pages than the whole-frame arrangement `whole` (indexed by
/// cell), each item's whole-frame spot: a kept rectangle always fits its whole frame's place.
fn within_bound(spots: Vec<Spot>, whole: &[Spot], items: &[Item]) -> Vec<Spot> {
    if page_count(&spots) <= page_count(whole) {
        return spots;
    }
    items.iter().filter_map(|item| whole.get(item.cell).copied()).collect()
}

fn page_count(spots: &[Spot]) -> usize {
    spots.iter().map(|s| s.page + 1).max().unwrap_or(1)
}

/// Each item's spot, with the layout's packing (every item fits an empty page: see
/// [`check_fits`]).
fn place(items: &[Item], layout: &Layout) -> Result<Vec<Spot>> {
    let area = page_area(layout);
    match layout.packing {
        Packing::Rows => Ok(rows::place(items, area, layout.padding)),
        Packing::Tight => tight::place(items, area, layout.padding, layout.pot),
    }
}

/// Each page cut down to what is on it (with the padding after it), rounded up to powers of
/// two with `pot`.
fn page_sizes(items: &[Item], spots: &[Spot], layout: &Layout) -> Vec<(u32, u32)> {
    let mut sizes = vec![(0, 0); page_count(spots)];
    for (item, spot) in items.iter().zip(spots) {
        let size = &mut sizes[spot.page];
        size.0 = size.0.max(spot.x + item.w + layout.padding);
        size.1 = size.1.max(spot.y + item.h + layout.padding);
    }
    let round = |v: u32| if layout.pot { v.max(1).next_power_of_two() } else { v.max(1) };
    sizes.into_iter().map(|(w, h)| (round(w), round(h))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(max: u32, packing: Packing) -> Layout {
        Layout { padding: 1, max_size: (max, max), packing, ..Layout::default() }
    }

    fn items(sizes: &[(u32, u32, usize)]) -> Vec<Item> {
        sizes.iter().enumerate().map(|(cell, &(w, h, row))| Item { cell, w, h, row }).collect()
    }

    #[test]
    fn rows_wrap_at_the_page_width_and_break_pages_between_rows() {
        // Page 13 wide, 10 high, padding 1: three 3x3 frames per line, two lines per page.
        let l = Layout { max_size: (13, 10), ..layout(13, Packing::Rows) };
        // Row 0: four frames (wraps), row 1: two frames (does not fit below row 0).
        let it = items(&[(3, 3, 0), (3, 3, 0), (3, 3, 0), (3, 3, 0), (3, 3, 1), (3, 3, 1)]);
        let spots = place(&it, &l).unwrap();
        let at = |s: &Spot| (s.page, s.x, s.y);
        let got: Vec<_> = spots.iter().map(at).collect();
        assert_eq!(got, [(0, 1, 1), (0, 5, 1), (0, 9, 1), (0, 1, 5), (1, 1, 1), (1, 5, 1)]);
        assert_eq!(page_sizes(&it, &spots, &l), [(13, 9), (9, 5)]);
    }

    #[test]
    fn a_row_taller_than_a_page_continues_on_the_next() {
        let l = Layout { max_size: (9, 10), ..layout(9, Packing::Rows) };
        // Two frames per line (1+3+1+3+1 = 9), two lines per page. Five frames: three lines.
        let it = items(&[(3, 3, 0); 5]);
        let pages: Vec<usize> = place(&it, &l).unwrap().iter().map(|s| s.page).collect();
        assert_eq!(pages, [0, 0, 0, 0, 1]);
    }

    #[test]
    fn tight_pages_hold_every_frame_without_overlaps() {
        let l = layout(64, Packing::Tight);
        let sizes: Vec<(u32, u32, usize)> = (0..40).map(|i| (5 + (i * 7) % 13, 4 + (i * 5) % 11, i as usize)).collect();
        let it = items(&sizes);
        let spots = place(&it, &l).unwrap();
        let pages = page_sizes(&it, &spots, &l);
        for (a, (ia, sa)) in it.iter().zip(&spots).enumerate() {
            let (pw, ph) = pages[sa.page];
            assert!(sa.x >= 1 && sa.y >= 1 && sa.x + ia.w < pw && sa.y + ia.h < ph, "{a} outside its page");
            for (ib, sb) in it.iter().zip(&spots).skip(a + 1) {
                let apart = sa.page != sb.page
                    || sa.x + ia.w < sb.x
                    || sb.x + ib.w < sa.x
                    || sa.y + ia.h < sb.y
                    || sb.y + ib.h < sa.y;
                assert!(apart, "{ia:?} at {sa:?} and {ib:?} at {sb:?} overlap or touch");
            }
        }
        // The same input packs the same way.
        assert_eq!(place(&it, &l).unwrap(), spots);
    }

    #[test]
    fn pot_pages_are_powers_of_two_within_the_largest_power_of_two_of_the_limit() {
        let l = Layout { pot: true, ..layout(100, Packing::Rows) };
        assert_eq!(page_area(&l), (64, 64));
        let it = items(&[(20, 10, 0), (20, 10, 0), (20, 10, 1)]);
        let spots = place(&it, &l).unwrap();
        assert_eq!(page_sizes(&it, &spots, &l), [(64, 32)]);
    }

    #[test]
    fn a_frame_larger_than_a_page_is_refused_with_the_sizes() {
        let e = check_fits((30, 10), &layout(31, Packing::Rows)).unwrap_err().to_string();
        assert!(e.contains("max_size") && e.contains("30x10") && e.contains("32x12"), "{e}");
        assert!(check_fits((29, 10), &layout(31, Packing::Rows)).is_ok());
        let e = check_fits((40, 10), &Layout { pot: true, ..layout(50, Packing::Rows) }).unwrap_err().to_string();
        assert!(e.contains("at most 32x32"), "{e}");
    }

    #[test]
    fn more_pages_than_planned_fall_back_to_the_whole_frame_places() {
        let whole = vec![Spot { page: 0, x: 1, y: 1 }, Spot { page: 0, x: 9, y: 1 }];
        let it = items(&[(3, 3, 0), (2, 2, 0)]);
        let worse = vec![Spot { page: 0, x: 1, y: 1 }, Spot { page: 1, x: 1, y: 1 }];
        assert_eq!(within_bound(worse, &whole, &it), whole);
        let fine = vec![Spot { page: 0, x: 1, y: 1 }, Spot { page: 0, x: 5, y: 1 }];
        assert_eq!(within_bound(fine.clone(), &whole, &it), fine);
    }

    /// Each animation's pages in frame order, by row.
    fn pages_by_row(it: &[Item], spots: &[Spot]) -> Vec<Vec<usize>> {
        let rows = it.iter().map(|i| i.row).max().map_or(0, |r| r + 1);
        let mut pages = vec![Vec::new(); rows];
        for (item, spot) in it.iter().zip(spots) {
            pages[item.row].push(spot.page);
        }
        pages
    }

    /// Whether `row`'s items alone fit one page of `l`.
    fn fits_alone(it: &[Item], row: usize, l: &Layout) -> bool {
        let alone: Vec<Item> = it.iter().filter(|i| i.row == row).copied().collect();
        page_count(&place(&alone, l).unwrap()) == 1
    }

    /// Asserts the packing's promise: an animation that fits a page alone is on one page, and
    /// one that does not has its frames on pages in frame order.
    fn assert_animations_whole(it: &[Item], spots: &[Spot], l: &Layout) {
        for (row, pages) in pages_by_row(it, spots).iter().enumerate() {
            if fits_alone(it, row, l) {
                assert!(pages.iter().all(|&p| p == pages[0]), "{:?}: row {row} split over {pages:?}", l.packing);
            } else {
                assert!(pages.is_sorted(), "{:?}: row {row} spreads out of order: {pages:?}", l.packing);
            }
        }
    }

    /// A random sheet: `rows` animations of 1 to 12 frames, trimmed sizes within `frame`,
    /// every `skip`th frame left out (a duplicate stored elsewhere), keys as the job gives them.
    fn random_sheet(seed: u32, rows: usize, frame: (u32, u32), skip: usize) -> (Vec<Item>, Vec<usize>) {
        let mut state = seed;
        let mut random = |n: u32| {
            state = state.wrapping_mul(1664525).wrapping_add(1013904223);
            (state >> 8) % n.max(1)
        };
        let mut keys = Vec::new();
        for row in 0..rows {
            keys.extend(std::iter::repeat_n((row, 0), 1 + random(12) as usize));
        }
        let row_of = row_ids(keys);
        let it: Vec<Item> = row_of
            .iter()
            .enumerate()
            .filter(|&(cell, _)| skip == 0 || cell % skip != skip - 1)
            .map(|(cell, &row)| Item { cell, w: 1 + random(frame.0), h: 1 + random(frame.1), row })
            .collect();
        (it, row_of)
    }

    #[test]
    fn tight_keeps_each_animation_on_one_page_and_opens_a_page_for_one_that_does_not_fit() {
        // Four 3x3 frames to a 9x9 page (padding 1). Animations of 3, 3 and 2 frames: frame by
        // frame they fill two pages, splitting the second; by animation each is whole.
        let l = layout(9, Packing::Tight);
        let rows = [0, 0, 0, 1, 1, 1, 2, 2];
        let it = items(&rows.map(|r| (3, 3, r)));
        let pages: Vec<usize> = place(&it, &l).unwrap().iter().map(|s| s.page).collect();
        assert_eq!(pages, [0, 0, 0, 1, 1, 1, 2, 2]);
        // The largest animation first: here the 2-frame one goes first and the 1-frame one
        // fills its page.
        let it = items(&[(3, 3, 0), (3, 3, 1), (3, 3, 1), (3, 3, 2), (3, 3, 2), (3, 3, 2)]);
        let pages: Vec<usize> = place(&it, &l).unwrap().iter().map(|s| s.page).collect();
        assert_eq!(pages, [0, 1, 1, 0, 0, 0]);
        // Six frames cannot share one page: they spread in frame order (largest first, so
        // before the one-frame animation, which then takes the second page's room).
        let it = items(&[(3, 3, 0), (3, 3, 1), (3, 3, 1), (3, 3, 1), (3, 3, 1), (3, 3, 1), (3, 3, 1)]);
        let pages: Vec<usize> = place(&it, &l).unwrap().iter().map(|s| s.page).collect();
        assert_eq!(pages, [1, 0, 0, 0, 0, 1, 1]);
    }

    #[test]
    fn rows_start_an_animation_that_fits_a_page_on_a_new_page_instead_of_splitting_it() {
        // Page 13x14, padding 1: three 3x3 frames a line, three lines a page.
        let l = Layout { max_size: (13, 14), ..layout(13, Packing::Rows) };
        // Row 0 takes two lines; row 1 (two lines) fits an empty page, not the one line left:
        // a new page. Row 2 (four lines) is taller than a page and splits wherever it starts:
        // it fills the line row 1 left on its page and continues on the next at a line break.
        let mut sizes = vec![(3, 3, 0); 4];
        sizes.extend([(3, 3, 1); 6]);
        sizes.extend([(3, 3, 2); 12]);
        let it = items(&sizes);
        let spots = place(&it, &l).unwrap();
        let pages = pages_by_row(&it, &spots);
        assert_eq!(pages[0], [0; 4]);
        assert_eq!(pages[1], [1; 6]);
        assert_eq!(pages[2], [1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2]);
        assert_animations_whole(&it, &spots, &l);
    }

    #[test]
    fn rows_fill_each_page_with_the_animations_that_fill_it_most() {
        // Page 13 wide, 10 lines of 3x3 frames (padding 1: 41 high): four walks of three lines
        // then two runs of four. In job order they take three pages (3 walks, 1 walk and a
        // run, a run); filled, two: a walk, a walk and a run on each, in job order.
        let l = Layout { max_size: (13, 41), ..layout(13, Packing::Rows) };
        let mut sizes = Vec::new();
        for row in 0..6 {
            let frames = if row < 4 { 9 } else { 12 };
            sizes.extend(std::iter::repeat_n((3, 3, row), frames));
        }
        let it = items(&sizes);
        let spots = place(&it, &l).unwrap();
        let pages: Vec<usize> = pages_by_row(&it, &spots).iter().map(|p| p[0]).collect();
        assert_eq!(pages, [0, 0, 1, 1, 0, 1]);
        assert_animations_whole(&it, &spots, &l);
        // On each page the rows go down in job order: walk, walk, run.
        let top = |row: usize| spots[it.iter().position(|i| i.row == row).unwrap()].y;
        assert!(top(0) < top(1) && top(1) < top(4) && top(2) < top(3) && top(3) < top(5));
        assert_eq!(top(4), 1 + 6 * 4, "the run goes right below the two walks");
    }

    #[test]
    fn no_animation_that_fits_a_page_is_split_and_no_arrangement_passes_the_planned_page_count() {
        let frame = (7, 9);
        for packing in [Packing::Rows, Packing::Tight] {
            for (seed, max) in (0..24).zip([20, 27, 33, 40, 64].into_iter().cycle()) {
                let l = Layout { max_size: (max, max + 5), ..layout(max, packing) };
                let whole = |row_of: &[usize]| whole_frames(row_of, frame);
                for skip in [0, 3] {
                    let (it, row_of) = random_sheet(seed, 30, frame, skip);
                    let keys: Vec<(usize, u32)> = row_of.iter().map(|&r| (r, 0)).collect();
                    let planned = page_bound(&keys, frame, &l).unwrap();
                    let arranged = arrange(&it, &row_of, frame, &l).unwrap();
                    assert!(
                        arranged.sizes.len() <= planned,
                        "{packing:?} seed {seed}: {} > {planned}",
                        arranged.sizes.len()
                    );
                    assert_eq!(arranged.sizes.len(), page_count(&arranged.spots));
                    assert_animations_whole(&it, &arranged.spots, &l);
                    assert_animations_whole(&whole(&row_of), &place(&whole(&row_of), &l).unwrap(), &l);
                    // The same input packs the same way.
                    assert_eq!(arrange(&it, &row_of, frame, &l).unwrap(), arranged, "{packing:?} seed {seed}");
                }
            }
        }
    }

    #[test]
    fn row_ids_follow_clip_and_direction_runs() {
        assert_eq!(row_ids([(0, 0), (0, 0), (0, 1), (1, 0), (1, 0)]), [0, 0, 1, 2, 2]);
    }
}
