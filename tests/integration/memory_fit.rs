//! A job's memory charges follow what it really holds (issue 43). Each job runs in process
//! on a pool of two threads whose allocations the counting allocator adds up
//! (`common::alloc::counted_pool`): what its budget was charged may be at most 1.5 times the
//! most it held at once, so a budget of 1.5 times a job's real peak is enough for it, and
//! every job runs within the default budget. The model is loaded before, on its own budget.

use std::path::{Path, PathBuf};

use spritebake::bake::pipeline::{self, Stage};
use spritebake::{BakeSpec, MemoryBudget, Product, bake};

use crate::common;
use crate::common::alloc::counted_pool;

/// A stage that lets every file go, as the real one does once it is written to disk.
struct Dropped;

impl Stage for Dropped {
    fn stage(&mut self, _: &Path, _: &[u8]) -> spritebake::Result<()> {
        Ok(())
    }
}

/// Bakes `product` of `spec` to `output` on the counted pool, and checks that the job's charges
/// (with the default budget, which must take them) are at most 1.5 times its peak. Returns
/// the peak with the model's load, in bytes (a bound from above).
fn charged_at_most_half_again_its_peak(name: &str, spec: &BakeSpec, product: Product, output: &str) -> usize {
    let pool = counted_pool(2);
    let budget = MemoryBudget::default();
    let (resolved, mut loaded, mut result) = (spec.resolve().unwrap(), None, None);
    let load_peak = pool.peak_during(|| loaded = Some(bake::load(&resolved).unwrap()));
    let loaded = loaded.unwrap();
    let job_peak = pool.peak_during(|| {
        result = Some(pipeline::write(product, &loaded, &resolved, output, &budget, &|| {}, &mut Dropped));
    });
    // At most what loading held at its peak stays held while the job runs: an upper bound.
    let peak = load_peak + job_peak;
    if let Some(Err(e)) = result {
        panic!("{name}: refused by the default budget: {e}");
    }
    let charged = budget.used();
    let ratio = charged as f64 / job_peak.max(1) as f64;
    assert!(ratio <= 1.5, "{name}: charged {} KiB for a peak of {} KiB ({ratio:.2}x)", charged >> 10, job_peak >> 10);
    peak
}

fn spec(model: PathBuf, directions: u32, size: &str) -> BakeSpec {
    let mut spec = BakeSpec::default();
    spec.model.model = model;
    spec.sprite.directions = directions;
    spec.view.size = size.parse().unwrap();
    spec
}

#[test]
fn the_example_robots_sheet_and_frames_are_charged_what_they_hold() {
    let mut robot = spec(common::robot("robot.md5mesh").into(), 16, "128");
    robot.anim.anim = vec![common::robot("walk.md5anim")];
    charged_at_most_half_again_its_peak("robot sheet", &robot, Product::Sheet, "walk.png");
    robot.sprite.directions = 4;
    charged_at_most_half_again_its_peak("robot frames", &robot, Product::Frames, "f_{dir}_{frame}.png");
}

#[test]
fn ogro_every_clip_at_30_fps_in_16_directions_is_charged_what_it_holds() {
    let Some(dir) = common::corpus("md2") else { return };
    // Refused before charges followed what the job holds: 278 MiB charged, 111 MB at peak.
    let mut ogro = spec(dir.join("ogro/ogro.md2"), 16, "96");
    ogro.sprite.sample_fps = Some(30.0);
    charged_at_most_half_again_its_peak("ogro", &ogro, Product::Sheet, "ogro.png");
}

#[test]
fn flair_and_fox_are_charged_what_they_hold() {
    let (Some(fbx), Some(gltf)) = (common::corpus("fbx"), common::corpus("gltf")) else { return };
    // Refused before: 273 MiB charged, 141 MB at peak.
    let flair = spec(fbx.join("flair/Flair.fbx"), 16, "128");
    charged_at_most_half_again_its_peak("flair", &flair, Product::Sheet, "flair.png");
    let mut fox = spec(gltf.join("fox/Fox.glb"), 1, "256");
    fox.anim.anim = vec!["Run".into()];
    charged_at_most_half_again_its_peak("fox", &fox, Product::Gif, "fox.gif");
}

#[test]
fn framing_600_frames_of_flair_holds_their_extents_not_their_points() {
    let Some(fbx) = common::corpus("fbx") else { return };
    // 600 frames of a 69k-vertex mesh: framing once held every posed point (552 MB at peak).
    let mut flair = spec(fbx.join("flair/Flair.fbx"), 4, "64");
    flair.anim.anim = vec!["Take 001".into()];
    flair.sprite.sample_fps = Some(180.0);
    let peak = charged_at_most_half_again_its_peak("flair, 600 frames", &flair, Product::Sheet, "take.png");
    assert!(peak < 200 << 20, "600 frames of Flair peak at {} MiB", peak >> 20);
}
