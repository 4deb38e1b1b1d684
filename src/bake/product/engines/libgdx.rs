//! libGDX's texture atlas (`NAME.atlas`), the text format read by libGDX's `TextureAtlas`
//! (1.9.12 and later) and by every Spine runtime's: one block per page — its image's file name,
//! then `size`, `format`, `filter` and `repeat` — holding one region per frame:
//!
//! ```text
//! walk.png
//! size:512,256
//! format:RGBA8888
//! filter:Linear,Linear
//! repeat:none
//! walk_S
//! bounds:0,0,64,64
//! offsets:3,0,70,72
//! index:0
//! duration:83
//! pivot:35,4
//! ```
//!
//! A region is named after its animation (clip and direction) and numbered by `index` in the
//! animation's order, so `atlas.findRegions("walk_S")` returns an animation's frames in order.
//! A trimmed frame has `offsets`: where the kept rectangle sits in the untrimmed frame and that
//! frame's size, measured from its bottom-left as libGDX's y-up coordinates are (`offsetY`
//! is the transparent rows cut below it). Two values libGDX keeps for the game
//! (`region.findValue`): `duration` in whole milliseconds ([`super::Frame::duration_ms`]) and
//! `pivot` in whole pixels from the untrimmed frame's bottom-left; and on a mirrored direction's
//! frame (`--mirror`) `flip:1,0`, for `region.flip(true, false)`, which flips the region in place
//! (offsets included), so that frame's `pivot` is the flipped frame's. Blocks are separated by an
//! empty line; frames are never rotated. Pages of premultiplied colour (`--alpha
//! premultiplied`) say `pma:true`.

use std::fmt::Write as _;

use super::{Atlas, Frame};

/// The atlas text of every page of `atlas`; `premultiplied`: the pages' colour is
/// premultiplied by alpha (`pma:true`, so libGDX and Spine blend them as such).
pub(super) fn to_atlas(atlas: &Atlas, premultiplied: bool) -> String {
    // Each page's frames, in frame order, with their animation and number in it: gathered
    // once, not looked for again on every page.
    let mut by_page: Vec<Vec<(&Frame, &str, usize)>> = vec![Vec::new(); atlas.pages.len()];
    for tag in &atlas.tags {
        for (index, frame) in atlas.tag_frames(tag).iter().enumerate() {
            if let Some(page) = by_page.get_mut(frame.page) {
                page.push((frame, tag.name.as_str(), index));
            }
        }
    }
    let (frame_w, frame_h) = atlas.frame_size;
    let mut text = String::new();
    for (page_index, page) in atlas.pages.iter().enumerate() {
        if page_index > 0 {
            text.push('\n');
        }
        let (w, h) = page.size;
        let _ = write!(text, "{}\nsize:{w},{h}\nformat:RGBA8888\nfilter:Linear,Linear\nrepeat:none\n", page.image);
        if premultiplied {
            text.push_str("pma:true\n");
        }
        for &(frame, tag, index) in by_page.get(page_index).into_iter().flatten() {
            let p = frame.placement;
            let _ = writeln!(text, "{tag}\nbounds:{},{},{},{}", p.x, p.y, p.w, p.h);
            if (p.w, p.h, p.source_x, p.source_y) != (frame_w, frame_h, 0, 0) {
                let below = frame_h.saturating_sub(p.source_y + p.h);
                let _ = writeln!(text, "offsets:{},{below},{frame_w},{frame_h}", p.source_x);
            }
            // libGDX flips a region in place (its offsets and all): the pivot is the flipped
            // frame's.
            let pivot_x = (p.pivot.0 * frame_w as f32).round() as i64;
            let pivot_x = if p.flipped { i64::from(frame_w) - pivot_x } else { pivot_x };
            let pivot_y = ((1.0 - p.pivot.1) * frame_h as f32).round() as i64;
            let _ = writeln!(text, "index:{index}\nduration:{}\npivot:{pivot_x},{pivot_y}", frame.duration_ms);
            if p.flipped {
                text.push_str("flip:1,0\n");
            }
        }
    }
    text
}
