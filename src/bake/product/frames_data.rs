//! The JSON beside a `frames` sequence: what a sheet's data says of each frame — its
//! animation, size, pivot and duration — for numbered PNGs, which carry none of it.
//!
//! It is named after the pattern's text before its first placeholder (`out/walk_{frame}.png`
//! → `out/walk.json`; `out/{clip}/{frame}.png` → `out/frames.json`), and names each frame's file
//! relative to itself:
//!
//! ```json
//! {"frames": [{"file": "walk_S_000.png", "animation": "walk_S", "clip": "walk", "direction": "S",
//!              "frame": 0, "size": {"w": 64, "h": 64}, "pivot": {"x": 32, "y": 60}, "duration": 63}],
//!  "animations": {"walk_S": {"loop": true, "fps": 16.0, "ms": 1000, "frames": [0, 1, ...]}},
//!  "meta": {"app": "spritebake", "version": "…", "directions": [...], "pixelsPerUnit": 32}}
//! ```
//!
//! `pivot` is in pixels of the frame (x right, y down): the ground under the model's origin,
//! where an engine places the sprite; with `--points`, `points` gives each named joint's pixel
//! the same way (`{"forearm_R": {"x": 41.5, "y": 30.2}}`). Durations are whole milliseconds that add up to each
//! animation's length, and `frames` in `animations` index the `frames` list — as the sheet's
//! engine data times and groups them (`crate::bake::product::engines`).

use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use crate::bake::product::engines::{MsClock, app, job_fields, rate};
use crate::bake::{Cell, JobInfo};
use crate::error::{Error, Result};

/// Bytes one frame's record may take while the data is made and written: the record (its
/// strings, the JSON tree and text), generously, besides its file name.
pub(in crate::bake) const FRAME_RECORD_BYTES: u64 = 1 << 10;

/// The data file of a frame pattern `output`.
pub(crate) fn data_path(output: &str) -> PathBuf {
    let fixed = output.split('{').next().unwrap_or_default();
    let (folder, stem) = match fixed.rfind(['/', std::path::MAIN_SEPARATOR]) {
        Some(i) => (&fixed[..=i], &fixed[i + 1..]),
        None => ("", fixed),
    };
    let stem = stem.trim_end_matches(['_', '-', '.', ' ']);
    let stem = if stem.is_empty() { "frames" } else { stem };
    PathBuf::from(format!("{folder}{stem}.json"))
}

/// The frames of a sequence, recorded as they are written.
#[derive(Debug, Clone, Default)]
pub(crate) struct FramesData {
    frames: Vec<Record>,
}

#[derive(Debug, Clone)]
struct Record {
    file: String,
    clip: String,
    direction: String,
    frame: usize,
    size: (u32, u32),
    pivot: (f32, f32),
    duration: f32,
    looping: bool,
    points: Vec<(f32, f32)>,
}

impl FramesData {
    /// Records `cell`, written as `files` (its colour image first, then its maps: as
    /// `crate::bake::product::products` encodes a frame), of a job whose rows and directions `info` names.
    pub(crate) fn add(&mut self, files: &[(PathBuf, Vec<u8>)], cell: &Cell, info: &JobInfo) {
        let Some((file, _)) = files.first() else { return };
        self.frames.push(Record {
            file: file.to_string_lossy().into_owned(),
            clip: info.rows.get(cell.clip).cloned().unwrap_or_else(|| "rest".into()),
            direction: info.directions.name(cell.direction),
            frame: cell.frame,
            size: (cell.image.width, cell.image.height),
            pivot: (cell.pivot.x, cell.pivot.y),
            duration: cell.duration,
            looping: cell.looping,
            points: cell.points.iter().map(|p| (p.x, p.y)).collect(),
        });
    }

    /// The JSON for the data file of `output`, naming the files relative to it.
    ///
    /// # Errors
    /// Encoding fails.
    pub(crate) fn to_json(&self, output: &str, info: &JobInfo) -> Result<Vec<u8>> {
        let path = data_path(output);
        let folder = path.parent().unwrap_or(Path::new(""));
        let mut frames = Vec::with_capacity(self.frames.len());
        let mut animations: Map<String, Value> = Map::new();
        // Frames of one clip and direction, consecutive in job order, are one animation.
        for run in self.frames.chunk_by(|a, b| (&a.clip, &a.direction) == (&b.clip, &b.direction)) {
            let animation = format!("{}_{}", run[0].clip, run[0].direction);
            let (start, mut clock, mut ms) = (frames.len(), MsClock::default(), 0u64);
            for r in run {
                let duration = clock.next(r.duration);
                ms += u64::from(duration);
                let file = Path::new(&r.file);
                let file = file.strip_prefix(folder).unwrap_or(file).to_string_lossy().replace('\\', "/");
                let mut frame = json!({
                    "file": file,
                    "animation": animation,
                    "clip": r.clip,
                    "direction": r.direction,
                    "frame": r.frame,
                    "size": {"w": r.size.0, "h": r.size.1},
                    "pivot": {"x": r.pivot.0, "y": r.pivot.1},
                    "duration": duration,
                });
                if !info.points.is_empty() {
                    let at = |&(x, y): &(f32, f32)| json!({"x": x, "y": y});
                    let points: Map<String, Value> = info.points.iter().cloned().zip(r.points.iter().map(at)).collect();
                    frame["points"] = Value::Object(points);
                }
                frames.push(frame);
            }
            let seconds: f64 = run.iter().map(|r| f64::from(r.duration)).sum();
            let indices: Vec<usize> = (start..frames.len()).collect();
            let fps = rate(run.len(), seconds);
            animations.insert(animation, json!({"loop": run[0].looping, "fps": fps, "ms": ms, "frames": indices}));
        }
        let mut meta = app();
        meta.extend(job_fields(info));
        let value = json!({"frames": frames, "animations": animations, "meta": meta});
        serde_json::to_vec_pretty(&value).map_err(|e| Error::encode(format!("encoding {}", path.display()), e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_data_file_is_named_after_the_patterns_fixed_text() {
        assert_eq!(data_path("out/walk_{frame}.png"), PathBuf::from("out/walk.json"));
        assert_eq!(data_path("out/{clip}/{dirname}/{frame}.png"), PathBuf::from("out/frames.json"));
        assert_eq!(data_path("{clip}_{frame}.png"), PathBuf::from("frames.json"));
        assert_eq!(data_path("f-{frame}.png"), PathBuf::from("f.json"));
    }
}
