//! Point clouds compared: the farthest of the nearest-neighbour distances, on a grid so clouds
//! of tens of thousands of points compare in milliseconds.

use std::collections::HashMap;

use glam::Vec3;

/// The distance from each of `queries` to the nearest of `points`, the largest: a grid of
/// cells `cell` wide holds the points, and a query looks in the 27 cells around its own (so
/// distances over `cell` count as `cell`, enough to say two clouds agree or do not).
pub fn farthest_nearest(points: &[Vec3], queries: &[Vec3], cell: f32) -> f32 {
    let key = |p: Vec3| (p / cell).floor().as_ivec3();
    let mut grid: HashMap<glam::IVec3, Vec<Vec3>> = HashMap::new();
    for &p in points {
        grid.entry(key(p)).or_default().push(p);
    }
    let mut worst = 0.0f32;
    for &q in queries {
        let k = key(q);
        let mut best = cell;
        for dz in -1..=1 {
            for dy in -1..=1 {
                for dx in -1..=1 {
                    for p in grid.get(&(k + glam::IVec3::new(dx, dy, dz))).into_iter().flatten() {
                        best = best.min(p.distance(q));
                    }
                }
            }
        }
        worst = worst.max(best);
    }
    worst
}
