//! Exact squared Euclidean distance transform on a pixel grid, in time linear in the pixels.
//!
//! For every pixel: the squared distance from its centre to the nearest *site* pixel's centre.
//! Two separable passes (Meijster, Roerdink & Hesselink 2000; the lower envelope of parabolas
//! of Felzenszwalb & Huttenlocher): a column pass finds each pixel's vertical distance `g` to
//! the nearest site in its column, then a row pass takes, for each pixel, the minimum over the
//! row of `(x − i)² + g(i)²` — the lower envelope of one parabola per column, built with a
//! stack in one sweep. All arithmetic is on integers, so the result equals the brute-force
//! "nearest site" search exactly, not approximately.
//!
//! Rejected alternative: testing every offset in a disc of radius `r` around every pixel (what
//! `--outline` did): O(pixels × r²), minutes for a wide outline on a large sheet cell. A chamfer
//! transform is linear too but only approximates Euclidean distance, which would change outlines.

/// Marks a pixel with no site within the requested `limit`.
pub(in crate::bake) const FAR: u64 = u64::MAX;

/// Squared distances (row-major, `width × height`) from each pixel to the nearest pixel for
/// which `is_site(index)` holds. Distances up to `limit` pixels are exact; a value above
/// `limit²` (or [`FAR`], when no site is near at all) only says the nearest site is farther:
/// sites farther than `limit` in their column are ignored, which changes nothing within it.
pub(in crate::bake) fn squared_distances(
    width: usize,
    height: usize,
    is_site: impl Fn(usize) -> bool,
    limit: u64,
) -> Vec<u64> {
    let vertical = column_pass(width, height, &is_site, limit);
    let mut out = vec![FAR; vertical.len()];
    // Reused per row: the envelope's parabola columns and where each one starts to win.
    let mut sites: Vec<usize> = Vec::with_capacity(width);
    let mut starts: Vec<usize> = Vec::with_capacity(width);
    for (g, row) in vertical.chunks_exact(width.max(1)).zip(out.chunks_exact_mut(width.max(1))) {
        row_pass(g, row, limit, &mut sites, &mut starts);
    }
    out
}

/// Per pixel, the distance to the nearest site in the same column, or [`FAR`] beyond `limit`.
fn column_pass(width: usize, height: usize, is_site: &impl Fn(usize) -> bool, limit: u64) -> Vec<u64> {
    let mut g = vec![FAR; width * height];
    // Downwards: distance to the nearest site above or at the pixel; then upwards for below.
    for i in 0..g.len() {
        let above = if i >= width { g.get(i - width).copied().unwrap_or(FAR) } else { FAR };
        let d = if is_site(i) { 0 } else { above.saturating_add(1) };
        if let Some(cell) = g.get_mut(i) {
            *cell = d;
        }
    }
    for i in (0..g.len().saturating_sub(width)).rev() {
        let below = g.get(i + width).copied().unwrap_or(FAR).saturating_add(1);
        if let Some(cell) = g.get_mut(i) {
            *cell = (*cell).min(below);
        }
    }
    for d in &mut g {
        if *d > limit {
            *d = FAR;
        }
    }
    g
}

/// `(x − i)² + g(i)²`: the parabola of column `i` evaluated at `x`. i128 so that no image size
/// a `u32` side allows can overflow.
fn parabola(x: usize, i: usize, g: &[u64]) -> i128 {
    let dx = x as i128 - i as i128;
    let gi = g.get(i).copied().unwrap_or(0) as i128;
    dx * dx + gi * gi
}

/// The last integer `x` at which the parabola of column `i` is still at most that of `u`
/// (`i < u`): floor of where they cross.
fn crossing(i: usize, u: usize, g: &[u64]) -> i128 {
    let (i128_i, i128_u) = (i as i128, u as i128);
    let (gi, gu) = (g.get(i).copied().unwrap_or(0) as i128, g.get(u).copied().unwrap_or(0) as i128);
    (i128_u * i128_u - i128_i * i128_i + gu * gu - gi * gi).div_euclid(2 * (i128_u - i128_i))
}

/// One row: `row[x]` = min over columns `i` with a site within the limit of `(x − i)² + g(i)²`.
fn row_pass(g: &[u64], row: &mut [u64], limit: u64, sites: &mut Vec<usize>, starts: &mut Vec<usize>) {
    let width = g.len();
    sites.clear();
    starts.clear();
    for u in (0..width).filter(|&u| g.get(u).is_some_and(|&d| d <= limit)) {
        // Drop parabolas that `u` beats everywhere they were winning.
        while let (Some(&s), Some(&t)) = (sites.last(), starts.last()) {
            if parabola(t, s, g) > parabola(t, u, g) {
                sites.pop();
                starts.pop();
            } else {
                break;
            }
        }
        match sites.last() {
            None => {
                sites.push(u);
                starts.push(0);
            }
            Some(&s) => {
                let start = 1 + crossing(s, u, g);
                if start < width as i128 {
                    sites.push(u);
                    starts.push(start as usize);
                }
            }
        }
    }
    for x in (0..width).rev() {
        let (Some(&s), Some(&t)) = (sites.last(), starts.last()) else { break };
        if let Some(cell) = row.get_mut(x) {
            *cell = u64::try_from(parabola(x, s, g)).unwrap_or(FAR);
        }
        if x == t {
            sites.pop();
            starts.pop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The definition: the nearest site by exhaustive search.
    fn brute_force(width: usize, height: usize, sites: &[bool]) -> Vec<u64> {
        (0..width * height)
            .map(|p| {
                let (x, y) = ((p % width) as i64, (p / width) as i64);
                (0..width * height)
                    .filter(|&q| sites[q])
                    .map(|q| ((q % width) as i64 - x).pow(2) as u64 + ((q / width) as i64 - y).pow(2) as u64)
                    .min()
                    .unwrap_or(FAR)
            })
            .collect()
    }

    #[test]
    fn equals_the_exhaustive_search() {
        // A deterministic pseudo-random pattern per density, on odd and even, wide and tall grids.
        let mut seed = 12345u32;
        for (width, height, density) in [(1, 1, 2), (7, 5, 3), (16, 9, 20), (5, 17, 40), (23, 23, 200), (12, 1, 4)] {
            let sites: Vec<bool> = (0..width * height)
                .map(|_| {
                    seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                    (seed >> 16).is_multiple_of(density)
                })
                .collect();
            let want = brute_force(width, height, &sites);
            let got = squared_distances(width, height, |i| sites[i], u64::MAX - 1);
            assert_eq!(got, want, "{width}x{height} density 1/{density}");
            // A limit keeps every distance within it and marks the rest FAR.
            let limited = squared_distances(width, height, |i| sites[i], 3);
            let expect: Vec<u64> = want.iter().map(|&d| if d <= 9 { d } else { FAR }).collect();
            for (g, e) in limited.iter().zip(&expect) {
                assert!(g == e || (*e == FAR && *g > 9), "{width}x{height}: {g} vs {e}");
            }
        }
    }

    #[test]
    fn no_sites_is_far_everywhere() {
        assert!(squared_distances(4, 3, |_| false, 100).iter().all(|&d| d == FAR));
        assert!(squared_distances(0, 0, |_| true, 100).is_empty());
    }
}
