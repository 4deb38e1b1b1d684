//! Shared rectangles (`dedupe`) and pages: which duplicates are off their animation's page
//! (for [`super::arrange_shared`]).
//!
//! A duplicate shows its original's rectangle, so it is on the original's page and listed in
//! that page's data. Where that is not its animation's page, an engine that reads each page on
//! its own (PixiJS) would find the animation in pieces, which packing by animation exists to
//! prevent. So after the layout, such a duplicate is stored again, as a frame of its own, and
//! the sheet is laid out again; sharing only ever stops, so this ends, and after a few rounds
//! (each a whole layout) the sheet is laid out with no sharing at all, which always keeps
//! animations together.
//!
//! A duplicate's page is right when it is the page of the nearest frame of its animation
//! stored before it (else after it; in an animation of duplicates only, its first frame's):
//! an animation on one page stays on it, and one spread over pages keeps its pages in frame
//! order.
//!
//! Rejected: sharing only within an animation. It gives up the common case of one rest pose
//! opening several clips on the same page, and still breaks the frame order of an animation
//! spread over pages.

use super::item::{Arranged, Item};

/// The page each cell shows its pixels on: its stored cell's.
pub(super) fn pages_of(stored: &[usize], items: &[Item], arranged: &Arranged) -> Vec<usize> {
    let mut page_of_item = vec![0; stored.len()];
    for (item, spot) in items.iter().zip(&arranged.spots) {
        page_of_item[item.cell] = spot.page;
    }
    stored.iter().map(|&s| page_of_item.get(s).copied().unwrap_or(0)).collect()
}

/// The duplicates (cells with `stored[i] != i`) whose page `pages[i]` is not their animation's
/// there: the page of the nearest cell of their row stored before them, else after them, else
/// (a row of duplicates only) of the row's first cell.
pub(super) fn strays(stored: &[usize], rows: &[usize], pages: &[usize]) -> Vec<usize> {
    let cells: Vec<usize> = (0..stored.len()).collect();
    let mut strays = Vec::new();
    for row in cells.chunk_by(|&a, &b| rows.get(a) == rows.get(b)) {
        let own = |&&i: &&usize| stored[i] == i;
        let first_own = row.iter().find(own).or(row.first());
        let mut home = first_own.map(|&i| pages[i]);
        for &i in row {
            if stored[i] == i {
                home = Some(pages[i]);
            } else if home != Some(pages[i]) {
                strays.push(i);
            }
        }
    }
    strays
}

#[cfg(test)]
mod tests {
    use super::super::{Shared, arrange_shared};
    use super::*;
    use crate::sprite::{Layout, Packing};

    /// Pages of 9x9 with padding 1: four 3x3 frames each.
    fn layout(packing: Packing) -> Layout {
        Layout { padding: 1, max_size: (9, 9), packing, ..Layout::default() }
    }

    fn pages(shared: &Shared) -> Vec<usize> {
        pages_of(&shared.stored, &shared.items, &shared.arranged)
    }

    #[test]
    fn a_duplicate_on_another_page_than_its_animation_is_stored_again() {
        for packing in [Packing::Rows, Packing::Tight] {
            // Row 0 fills page 0; row 1's second frame shows row 0's first.
            let rows = [0, 0, 0, 0, 1, 1, 1];
            let stored = [0, 1, 2, 3, 4, 0, 6];
            let shared = arrange_shared(&[(0, 0, 3, 3); 7], &stored, &rows, (3, 3), &layout(packing)).unwrap();
            assert_eq!(shared.stored, [0, 1, 2, 3, 4, 5, 6], "{packing:?}");
            assert_eq!(pages(&shared), [0, 0, 0, 0, 1, 1, 1], "{packing:?}");
        }
    }

    #[test]
    fn a_duplicate_on_its_animations_page_keeps_sharing() {
        for packing in [Packing::Rows, Packing::Tight] {
            // Both rows on page 0; row 1 opens with row 0's first frame and holds its own.
            let rows = [0, 0, 1, 1, 1];
            let stored = [0, 1, 0, 3, 3];
            let shared = arrange_shared(&[(0, 0, 3, 3); 5], &stored, &rows, (3, 3), &layout(packing)).unwrap();
            assert_eq!(shared.stored, stored, "{packing:?}");
            assert_eq!(pages(&shared), [0; 5], "{packing:?}");
            assert_eq!(shared.items.len(), 3);
        }
    }

    #[test]
    fn an_animation_spread_over_pages_keeps_its_frames_in_page_order() {
        for packing in [Packing::Rows, Packing::Tight] {
            // Seven frames, five of them stored, four to a page: the last shows the first (page
            // 0) after frame 5 on page 1; frame 1 shows frame 0 on its page and keeps sharing.
            let rows = [0; 7];
            let stored = [0, 0, 2, 3, 4, 5, 0];
            let shared = arrange_shared(&[(0, 0, 3, 3); 7], &stored, &rows, (3, 3), &layout(packing)).unwrap();
            assert_eq!(shared.stored, [0, 0, 2, 3, 4, 5, 6], "{packing:?}");
            assert!(pages(&shared).is_sorted(), "{packing:?}: {:?}", pages(&shared));
        }
    }

    #[test]
    fn strays_are_duplicates_off_the_page_of_their_neighbours() {
        // Row 0: own cells on pages 0 and 1, a duplicate after each; row 1: duplicates only.
        let rows = [0, 0, 0, 0, 1, 1];
        let stored = [0, 0, 2, 0, 0, 0];
        assert_eq!(strays(&stored, &rows, &[0, 0, 1, 0, 0, 0]), [3]);
        assert_eq!(strays(&stored, &rows, &[0, 0, 1, 1, 0, 1]), [5]);
        // A row whose own cells come after its duplicates: their page is the first own's.
        assert_eq!(strays(&[0, 0, 2], &[0, 1, 1], &[0, 0, 1]), [1]);
    }
}
