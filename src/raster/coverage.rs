//! Which samples a triangle covers, found the same way by every pass.
//!
//! Coverage is tested hierarchically: the triangle's rectangle within the tile, then 8×8
//! blocks, are classified against each edge by their extreme corners (an edge function is
//! affine, so its minimum over a rectangle is at a corner). Fully covered rectangles and blocks
//! skip the per-sample edge tests; blocks outside any edge are skipped entirely.
//!
//! Inside a rectangle, [`RowStepper`] steps the edge functions along each row of samples and
//! gives each sample its depth. The forward pass, the sample visibility pass and the coverage
//! count all find their samples through it; the pixel visibility pass (`msaa.rs`) tests a
//! pixel's samples at once with the same integer edge functions and the same
//! [`SampleDepth`]. So for the same triangles every path keeps exactly the samples that drawing
//! in order keeps, by construction rather than by keeping copies of a loop identical.

use super::setup::{Edge, Triangle};

/// Block size for hierarchical coverage tests of the sample passes, in samples.
pub(super) const BLOCK: i32 = 8;

/// Walks the inclusive sample rectangle `bounds` of a triangle hierarchically in blocks of
/// `block` samples aligned to the sample grid, and calls `fill(rect, test)` for every part that
/// may be covered: `test` is false for parts the triangle covers entirely (no per-sample edge
/// tests needed).
#[inline(always)]
pub(super) fn walk(tri: &Triangle, bounds: [i32; 4], block: i32, mut fill: impl FnMut([i32; 4], bool)) {
    let [x0, y0, x1, y1] = bounds;
    // A triangle within one block's area is cheaper to test sample by sample than to classify.
    if (x1 - x0 + 1) * (y1 - y0 + 1) <= block * block {
        fill(bounds, true);
        return;
    }
    match classify(&tri.edges, x0, y0, x1, y1) {
        Coverage::Outside => {}
        Coverage::Full => fill(bounds, false),
        Coverage::Partial => {
            // Walk blocks aligned to the sample grid.
            let mut by = y0 - y0.rem_euclid(block);
            while by <= y1 {
                let (ry0, ry1) = (by.max(y0), (by + block - 1).min(y1));
                let mut bx = x0 - x0.rem_euclid(block);
                while bx <= x1 {
                    let (rx0, rx1) = (bx.max(x0), (bx + block - 1).min(x1));
                    match classify(&tri.edges, rx0, ry0, rx1, ry1) {
                        Coverage::Outside => {}
                        Coverage::Full => fill([rx0, ry0, rx1, ry1], false),
                        Coverage::Partial => fill([rx0, ry0, rx1, ry1], true),
                    }
                    bx += block;
                }
                by += block;
            }
        }
    }
}

enum Coverage {
    Outside,
    Partial,
    Full,
}

/// Classifies an inclusive sample rectangle against the three edges.
#[inline]
fn classify(edges: &[Edge; 3], x0: i32, y0: i32, x1: i32, y1: i32) -> Coverage {
    let mut full = true;
    for e in edges {
        let base = e.at(x0, y0);
        let (sx, sy) = (e.dx * (x1 - x0) as i64, e.dy * (y1 - y0) as i64);
        let max = base + sx.max(0) + sy.max(0);
        let min = base + sx.min(0) + sy.min(0);
        if max < 0 {
            return Coverage::Outside;
        }
        full &= min >= 0;
    }
    if full { Coverage::Full } else { Coverage::Partial }
}

/// The depth of a triangle's supersamples, the same in every pass: the depth plane evaluated at
/// the first sample of the sample's pixel, plus the sample's fixed offset within the pixel
/// (with one sample a pixel, [`RowStepper::step`] steps the plane along the row instead). Per
/// pixel that is one plane evaluation and one add per sample, which the pixel visibility pass
/// does for all of a pixel's samples in lanes, and the per-pixel minimum and maximum are exact
/// (rounding `base + offset` is monotonic in the offset).
#[derive(Clone, Copy)]
pub(super) struct SampleDepth<'t> {
    tri: &'t Triangle,
}

impl<'t> SampleDepth<'t> {
    /// The sample depths of `tri`.
    #[inline(always)]
    pub(super) fn new(tri: &'t Triangle) -> SampleDepth<'t> {
        SampleDepth { tri }
    }

    /// The depth at the pixel whose first sample is (`px`, `py`).
    #[inline(always)]
    pub(super) fn pixel_base(&self, px: i32, py: i32) -> f32 {
        self.tri.z.at((px - self.tri.bbox[0]) as f32, (py - self.tri.bbox[1]) as f32)
    }

    /// What sample (`i`, `j`) of a pixel adds to [`SampleDepth::pixel_base`].
    #[inline(always)]
    pub(super) fn offset(&self, i: i32, j: i32) -> f32 {
        self.tri.z.dx * i as f32 + self.tri.z.dy * j as f32
    }
}

/// The most samples a pixel side has (`ssaa` 4).
const MAX_SIDE: usize = 4;

/// One triangle's edge functions, stepped sample by sample along rows that start at sample
/// column `x0`, with each sample's [`SampleDepth`]: the one loop that decides which samples the
/// sample passes draw.
///
/// Each row starts from the edge functions evaluated at its first sample rather than from the
/// previous row's: the same integers, and measured faster than carrying them from row to row.
#[derive(Clone, Copy)]
pub(super) struct RowStepper<'t> {
    tri: &'t Triangle,
    x0: i32,
    /// Column offset of `x0` from the triangle's bounding-box origin.
    ox0: f32,
    /// Samples per pixel side.
    s: i32,
    depth: SampleDepth<'t>,
}

impl<'t> RowStepper<'t> {
    /// A stepper for rows of `tri` starting at column `x0`, with `s` samples per pixel side.
    #[inline(always)]
    pub(super) fn new(tri: &'t Triangle, x0: i32, s: i32) -> RowStepper<'t> {
        RowStepper { tri, x0, ox0: (x0 - tri.bbox[0]) as f32, s, depth: SampleDepth::new(tri) }
    }

    /// Column offset of the row's sample `i` from the triangle's bounding-box origin, for
    /// attribute interpolation.
    #[inline(always)]
    pub(super) fn ox(&self, i: usize) -> f32 {
        self.ox0 + i as f32
    }

    /// Steps along row `y`, one sample per item of `samples`, calling `visit(item, inside, z)`
    /// with whether the sample is inside all three edges (without `TEST`, always: the caller
    /// knows the triangle covers the whole rectangle) and the triangle's depth there.
    #[inline(always)]
    pub(super) fn step<const TEST: bool, I: Iterator>(
        &self,
        y: i32,
        samples: I,
        visit: impl FnMut(I::Item, bool, f32),
    ) {
        let s = self.s;
        if s == 1 {
            // One sample a pixel: the depth steps along the row, an add per sample (the pixel
            // pass never runs with one sample, so no pass needs the per-pixel form here, and
            // evaluating the plane per sample measured 4% slower on a flat fill).
            let mut z = self.depth.pixel_base(self.x0, y);
            let next_z = || {
                let zi = z;
                z += self.tri.z.dx;
                zi
            };
            return self.step_edges::<TEST, _>(y, samples, next_z, visit);
        }
        let (j, py) = (y.rem_euclid(s), y - y.rem_euclid(s));
        // The row's offsets within a pixel, and the depth at the first sample of each pixel
        // the row enters.
        let mut offsets = [0.0f32; MAX_SIDE];
        for (i, offset) in offsets.iter_mut().enumerate().take(s as usize) {
            *offset = self.depth.offset(i as i32, j);
        }
        let mut i = self.x0.rem_euclid(s);
        let mut px = self.x0 - i;
        let mut base = self.depth.pixel_base(px, py);
        let next_z = || {
            let z = base + offsets[i as usize & (MAX_SIDE - 1)];
            i += 1;
            if i == s {
                i = 0;
                px += s;
                base = self.depth.pixel_base(px, py);
            }
            z
        };
        self.step_edges::<TEST, _>(y, samples, next_z, visit);
    }

    /// The edge stepping of [`RowStepper::step`], with each sample's depth from `next_z`.
    #[inline(always)]
    fn step_edges<const TEST: bool, I: Iterator>(
        &self,
        y: i32,
        samples: I,
        mut next_z: impl FnMut() -> f32,
        mut visit: impl FnMut(I::Item, bool, f32),
    ) {
        let [e0, e1, e2] = self.tri.edges;
        let (mut v0, mut v1, mut v2) = (e0.at(self.x0, y), e1.at(self.x0, y), e2.at(self.x0, y));
        for item in samples {
            // All three non-negative ⇔ the sign bit of their OR is clear.
            let inside = !TEST || (v0 | v1 | v2) >= 0;
            let z = next_z();
            v0 += e0.dx;
            v1 += e1.dx;
            v2 += e2.dx;
            visit(item, inside, z);
        }
    }

    /// Steps along row `y` over its stored `depths` and the items of `other` beside them (a
    /// buffer's row, or more), calling `visit(z, depth, item)` for the samples inside the
    /// triangle that pass the depth test (nearer than stored, not beyond the far plane); the
    /// visitor decides whether to write.
    #[inline(always)]
    pub(super) fn visible<const TEST: bool, I: Iterator>(
        &self,
        y: i32,
        depths: &mut [f32],
        other: I,
        mut visit: impl FnMut(f32, &mut f32, I::Item),
    ) {
        self.step::<TEST, _>(y, depths.iter_mut().zip(other), |(depth, item), inside, z| {
            if passes_depth(inside, z, *depth) {
                visit(z, depth, item);
            }
        });
    }
}

/// The depth test of every pass: inside the triangle, strictly nearer than stored (equal depths
/// keep the first triangle drawn) and not beyond the far plane (z > 1; false for NaN too).
#[inline(always)]
pub(super) fn passes_depth(inside: bool, z: f32, stored: f32) -> bool {
    inside & (depth_mask(z, stored) != 0)
}

/// The depth part of [`passes_depth`] as a lane mask, all ones where it passes: lane loops
/// select with it and compile to vector instructions.
#[inline(always)]
pub(super) fn depth_mask(z: f32, stored: f32) -> u32 {
    (((z < stored) & (z <= 1.0)) as u32).wrapping_neg()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::raster::setup::{CORNER_ATTRS, ClipVertex, setup_triangle};
    use glam::Vec4;

    /// A triangle spanning many 8×8 blocks of a 64×64 sample grid, so the walk meets outside,
    /// partial and full blocks.
    fn big_triangle() -> Triangle {
        let vertex = |x: f32, y: f32, z: f32| ClipVertex { pos: Vec4::new(x, y, z, 1.0), attrs: [0.0; CORNER_ATTRS] };
        let mut out = Vec::new();
        let v = [vertex(-0.9, -0.8, 0.2), vertex(0.85, -0.3, 0.5), vertex(-0.2, 0.95, 0.8)];
        setup_triangle(v, (64, 64), 0, false, &mut out);
        out.pop().expect("the triangle is on screen")
    }

    #[test]
    fn walk_and_stepper_visit_each_covered_sample_once_and_nothing_else() {
        let tri = big_triangle();
        let [bx0, by0, bx1, by1] = tri.bbox;
        let (w, h) = ((bx1 - bx0 + 1) as usize, (by1 - by0 + 1) as usize);
        let mut visits = vec![0u32; w * h];
        walk(&tri, tri.bbox, BLOCK, |[x0, y0, x1, y1], test| {
            let stepper = RowStepper::new(&tri, x0, 1);
            for y in y0..=y1 {
                let row = (x0..=x1).map(|x| (y - by0) as usize * w + (x - bx0) as usize);
                let mut count = |i: usize, inside: bool, _| visits[i] += inside as u32;
                match test {
                    true => stepper.step::<true, _>(y, row, &mut count),
                    false => stepper.step::<false, _>(y, row, &mut count),
                }
            }
        });
        let mut covered = 0;
        for y in by0..=by1 {
            for x in bx0..=bx1 {
                let inside = tri.edges.iter().all(|e| e.at(x, y) >= 0);
                covered += inside as u32;
                assert_eq!(visits[(y - by0) as usize * w + (x - bx0) as usize], inside as u32, "sample ({x}, {y})");
            }
        }
        assert!(covered > 500, "the triangle covers {covered} samples");
    }

    #[test]
    fn visible_keeps_the_inside_samples_strictly_nearer_than_stored() {
        let tri = big_triangle();
        let y = (tri.bbox[1] + tri.bbox[3]) / 2;
        let x0 = tri.bbox[0];
        let width = (tri.bbox[2] - x0 + 1) as usize;
        let stepper = RowStepper::new(&tri, x0, 1);
        let mut zs = vec![f32::NAN; width];
        let mut inside = vec![false; width];
        stepper.step::<true, _>(y, zs.iter_mut().zip(&mut inside), |(z, i), is_inside, zi| (*z, *i) = (zi, is_inside));
        // Stored depths alternate nearer and farther than the triangle; one inside sample's
        // stored depth equals the triangle's (equal depths keep the first triangle drawn).
        let mut depths: Vec<f32> =
            zs.iter().enumerate().map(|(i, z)| if i % 2 == 0 { z + 0.1 } else { z - 0.1 }).collect();
        let equal = inside.iter().position(|&i| i).expect("the row crosses the triangle");
        depths[equal] = zs[equal];
        let before = depths.clone();
        let mut kept = vec![false; width];
        stepper.visible::<true, _>(y, &mut depths, kept.iter_mut(), |z, depth, kept| {
            *depth = z;
            *kept = true;
        });
        for i in 0..width {
            let expected = inside[i] && zs[i] < before[i] && zs[i] <= 1.0;
            assert_eq!(kept[i], expected, "sample {i}");
            assert_eq!(depths[i].to_bits(), if expected { zs[i] } else { before[i] }.to_bits(), "sample {i}");
        }
        assert!(kept.iter().any(|&k| k) && inside.iter().zip(&kept).any(|(&i, &k)| i && !k));
    }
}
