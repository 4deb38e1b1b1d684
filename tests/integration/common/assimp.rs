//! assimp as an independent peer: `assimp export MODEL out.obj` gives the vertices assimp's own
//! importer evaluates (its static pose: the bind pose of an IQM, the first frame of a Quake 1
//! MDL), to compare with spritebake's as point clouds, up to axes and units.
//!
//! Without the `assimp` command (Debian's `assimp-utils`) a test skips with a note on stderr,
//! or fails when `SPRITEBAKE_REQUIRE_ASSIMP=1` (as CI sets it, after installing it).

use std::path::Path;
use std::process::Command;

use glam::{Mat3, Vec3};
use spritebake::model::Aabb;

/// The variable that turns a missing `assimp` from a skip into a failure.
pub const REQUIRE_ASSIMP: &str = "SPRITEBAKE_REQUIRE_ASSIMP";

/// The vertex positions assimp exports for `model` (OBJ `v` lines, in assimp's Y-up frame), or
/// `None` after a note (the test skips) when `assimp` is not on `PATH`; a panic instead when
/// [`REQUIRE_ASSIMP`] is `1`.
pub fn exported_points(model: &Path, scratch: &Path) -> Option<Vec<Vec3>> {
    if !super::peer_on_path("assimp", REQUIRE_ASSIMP, "apt-get install assimp-utils") {
        return None;
    }
    let out = scratch.join("assimp.obj");
    let o = Command::new("assimp").arg("export").arg(model).arg(&out).output().expect("running assimp");
    assert!(o.status.success(), "assimp export {}: {}", model.display(), String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&out).unwrap();
    let points = text
        .lines()
        .filter_map(|l| l.strip_prefix("v "))
        .map(|l| {
            let v: Vec<f32> = l.split_whitespace().map(|w| w.parse().unwrap()).collect();
            Vec3::new(v[0], v[1], v[2])
        })
        .collect();
    Some(points)
}

/// How two point clouds agree once the best proper rotation of axes (one of the 24 that map
/// axes onto axes, so no mirror can hide) and a uniform scale and offset (matching the boxes)
/// are applied to `ours`.
#[derive(Debug)]
pub struct Agreement {
    /// The largest distance from a point of either cloud to the nearest point of the other,
    /// over the diagonal of `theirs`' box.
    pub max_error: f32,
    /// The diagonal of `theirs`' box.
    pub size: f32,
    /// The scale that took `ours` to `theirs` (1 when the units agree).
    pub scale: f32,
    /// The rotation of axes that took `ours` to `theirs`.
    pub axes: Mat3,
}

/// The 24 rotations that map each axis onto a signed axis.
fn axis_rotations() -> Vec<Mat3> {
    let axes = [Vec3::X, Vec3::Y, Vec3::Z, Vec3::NEG_X, Vec3::NEG_Y, Vec3::NEG_Z];
    let mut out = Vec::new();
    for x in axes {
        for y in axes {
            if x.dot(y) != 0.0 {
                continue;
            }
            out.push(Mat3::from_cols(x, y, x.cross(y)));
        }
    }
    out
}

/// The largest nearest-neighbour distance from any point of `a` to `b` (brute force: for the
/// samples that choose the axes).
fn one_way(a: &[Vec3], b: &[Vec3]) -> f32 {
    a.iter().map(|p| b.iter().map(|q| p.distance_squared(*q)).fold(f32::INFINITY, f32::min)).fold(0.0, f32::max).sqrt()
}

/// Compares `ours` with `theirs` ([`Agreement`]).
pub fn agreement(ours: &[Vec3], theirs: &[Vec3]) -> Agreement {
    let target = Aabb::from_points(theirs.iter().copied());
    let size = target.size().length();
    let fit = |m: Mat3| {
        let turned: Vec<Vec3> = ours.iter().map(|p| m * *p).collect();
        let b = Aabb::from_points(turned.iter().copied());
        let scale = size / b.size().length();
        let moved: Vec<Vec3> = turned.iter().map(|p| (*p - b.center()) * scale + target.center()).collect();
        (moved, scale)
    };
    // The rotation that fits best on every 16th point against all of the other cloud (both
    // clouds sampled when they are large), then the distances for it (a box alone cannot tell
    // a half turn about one of its axes).
    let large = ours.len().saturating_mul(theirs.len()) > 50_000_000;
    let sample = |points: &[Vec3]| points.iter().step_by(16).copied().collect::<Vec<_>>();
    let theirs_sample = sample(theirs);
    let sampled = |m: Mat3| {
        let moved = fit(m).0;
        let moved_sample = sample(&moved);
        let (their_side, our_side) = if large { (&theirs_sample[..], &moved_sample[..]) } else { (theirs, &moved[..]) };
        one_way(&moved_sample, their_side).max(one_way(&theirs_sample, our_side))
    };
    let axes = axis_rotations().into_iter().min_by(|a, b| sampled(*a).total_cmp(&sampled(*b))).unwrap();
    let (moved, scale) = fit(axes);
    // Distances over 1% of the size count as 1%: far past the 2e-3 that agreement asks.
    let cap = size * 0.01;
    let apart =
        super::points::farthest_nearest(theirs, &moved, cap).max(super::points::farthest_nearest(&moved, theirs, cap));
    let max_error = apart / size;
    Agreement { max_error, size, scale, axes }
}

/// Asserts that `ours` (spritebake's vertices of `model`, in the file's axes) agree with what
/// assimp exports for it within 2e-3 of the model's size and at the same scale; prints the
/// agreement. Skips (returns) as [`exported_points`] does.
pub fn assert_agrees(model: &Path, ours: &[Vec3]) {
    let name = model.file_name().unwrap().to_string_lossy().into_owned();
    let scratch = super::cli::scratch_in("assimp", &name);
    let Some(theirs) = exported_points(model, &scratch) else { return };
    let a = agreement(ours, &theirs);
    eprintln!("{name} vs assimp: max error {:.2e} of the size {}, {a:?}", a.max_error, a.size);
    assert!(a.max_error < 2e-3, "{name}: {a:?}");
    // assimp turns Quake's Z-up files to its Y-up: (x, y, z) → (x, z, -y).
    assert_eq!(a.axes, Mat3::from_cols(Vec3::X, Vec3::NEG_Z, Vec3::Y), "{name}: {a:?}");
    assert!((a.scale - 1.0).abs() < 1e-3, "{name}: {a:?}");
    std::fs::remove_dir_all(scratch).unwrap();
}
