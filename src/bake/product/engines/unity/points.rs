//! The frames' points for Unity (`walk.points.json`, with `--points`). A Unity sprite has no
//! field of its own for them: the `.meta` keeps per-sprite `customData` and a sheet's
//! `spriteCustomMetadata` only in Unity 2022.2 and later, and for the editor's importers
//! alone (neither reaches a `Sprite` at run time). A JSON beside the sheet is a `TextAsset`
//! the game reads with `JsonUtility` (arrays and objects only: it reads no dictionaries):
//!
//! ```json
//! {"pixelsPerUnit": 100.0, "points": ["hand_R", "head"],
//!  "frames": [{"name": "walk_S_000", "points": [{"x": 0.12, "y": 0.4}, {"x": 0.0, "y": 0.9}]}]}
//! ```
//!
//! Each frame lists its points in the order of `points`, in the sprite's local space: Unity
//! units from the sprite's pivot, y up (`transform.TransformPoint(p)` on the sprite's object
//! gives a point's place in the world), at the `.meta`'s pixels per unit.

use serde::Serialize;

use super::ids::pixels_per_unit;
use crate::bake::product::engines::Atlas;
use crate::bake::product::engines::texturepacker::hundredths;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SheetPoints<'a> {
    pixels_per_unit: f64,
    points: &'a [String],
    frames: Vec<FramePoints<'a>>,
}

#[derive(Serialize)]
struct FramePoints<'a> {
    name: &'a str,
    points: Vec<Point>,
}

#[derive(Serialize)]
struct Point {
    x: f64,
    y: f64,
}

/// The points of every frame of `atlas`, whose job's scale is `job_scale`.
///
/// # Errors
/// Encoding fails.
pub(crate) fn to_json(atlas: &Atlas, job_scale: Option<f32>) -> serde_json::Result<Vec<u8>> {
    // As written (`0.1`, not the f32's `0.10000000149011612`).
    let scale = pixels_per_unit(job_scale);
    let ppu: f64 = scale.to_string().parse().unwrap_or(f64::from(scale));
    let (fw, fh) = (atlas.frame_size.0 as f32, atlas.frame_size.1 as f32);
    let frames = atlas
        .frames
        .iter()
        .map(|f| {
            let p = f.placement;
            let (pivot_x, pivot_y) = (hundredths(p.pivot.0 * fw), hundredths(p.pivot.1 * fh));
            // Pixels of the untrimmed frame (y down) to units from the pivot (y up), to a
            // hundredth of a pixel as the other formats write points.
            let local = |&(x, y): &(f32, f32)| Point {
                x: units(hundredths(x) - pivot_x, ppu),
                y: units(pivot_y - hundredths(y), ppu),
            };
            FramePoints { name: &f.name, points: p.points.iter().map(local).collect() }
        })
        .collect();
    serde_json::to_vec_pretty(&SheetPoints { pixels_per_unit: ppu, points: atlas.points, frames })
}

/// `pixels` in units of `ppu` pixels, to 9 decimals: finer than a hundredth of a pixel at the
/// largest scale (100 000 pixels per unit), and without the division's last-digit noise.
fn units(pixels: f64, ppu: f64) -> f64 {
    // `+ 0.0`: a point on the pivot is `0.0`, never `-0.0`.
    ((pixels / ppu) * 1e9).round() / 1e9 + 0.0
}
