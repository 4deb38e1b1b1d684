//! OBJ models made of coloured boxes, for tests that need a model of exactly known size and
//! shape: `Y` up and facing `+Z` (OBJ's convention), one flat-coloured material per box.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// One box: its corners and its colour (linear 0..1, as MTL `Kd`).
pub struct Box3 {
    pub min: [f32; 3],
    pub max: [f32; 3],
    pub color: [f32; 3],
}

/// Writes `<dir>/<stem>.obj` and its `.mtl` with the boxes and returns the OBJ's path.
/// Faces wind counter-clockwise seen from outside, so back-face culling keeps the outside.
pub fn write_boxes(dir: &Path, stem: &str, boxes: &[Box3]) -> PathBuf {
    let (mut obj, mut mtl) = (format!("mtllib {stem}.mtl\n"), String::new());
    // Corner i has bit 0 = max x, bit 1 = max y, bit 2 = max z.
    const FACES: [[usize; 4]; 6] = [[0, 4, 6, 2], [1, 3, 7, 5], [0, 1, 5, 4], [2, 6, 7, 3], [0, 2, 3, 1], [4, 5, 7, 6]];
    for (b, bx) in boxes.iter().enumerate() {
        let [r, g, bl] = bx.color;
        writeln!(mtl, "newmtl m{b}\nKd {r} {g} {bl}").unwrap();
        writeln!(obj, "usemtl m{b}").unwrap();
        for i in 0..8 {
            let pick = |axis: usize| if i >> axis & 1 == 1 { bx.max[axis] } else { bx.min[axis] };
            writeln!(obj, "v {} {} {}", pick(0), pick(1), pick(2)).unwrap();
        }
        for face in FACES {
            let [a, b2, c, d] = face.map(|i| b * 8 + i + 1);
            writeln!(obj, "f {a} {b2} {c} {d}").unwrap();
        }
    }
    std::fs::write(dir.join(format!("{stem}.mtl")), mtl).unwrap();
    let path = dir.join(format!("{stem}.obj"));
    std::fs::write(&path, obj).unwrap();
    path
}
