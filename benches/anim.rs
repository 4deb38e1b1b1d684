//! Posing and loading: skinning throughput (vertices/s) on 1 and 2 threads for the example
//! robot, the largest animated corpus model and a dense synthetic mesh; load time per model.

use std::path::{Path, PathBuf};

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use glam::Vec3;
use spritebake::anim::{FrameTime, PoseOptions, pose};
use spritebake::formats::LoadOptions;
use spritebake::model::{Influence, Model};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn load(path: &Path, anims: &[PathBuf]) -> Option<Model> {
    let options = LoadOptions { animations: anims.to_vec(), ..Default::default() };
    spritebake::formats::load(path, &options).ok()
}

/// The robot with every vertex given 4 influences: a dense skinned mesh of ~`copies` × 360
/// vertices to measure the parallel path.
fn dense_robot(copies: usize) -> Option<Model> {
    let mut model = load(
        &root().join("examples/assets/robot/robot.md5mesh"),
        &[root().join("examples/assets/robot/walk.md5anim")],
    )?;
    let joints = model.skeleton.as_ref()?.joints.len() as u32;
    let mesh = &mut model.meshes[0];
    let base = mesh.clone();
    mesh.influences.clear();
    mesh.influence_ranges.clear();
    for c in 0..copies {
        for v in 0..base.positions.len() {
            let start = mesh.influences.len() as u32;
            for k in 0..4u32 {
                let joint = (v as u32 + k + c as u32) % joints;
                mesh.influences.push(Influence {
                    joint,
                    weight: 0.25,
                    position: base.positions[v] + Vec3::splat(k as f32),
                    normal: Vec3::Z,
                });
            }
            mesh.influence_ranges.push(start..start + 4);
        }
    }
    let n = mesh.influence_ranges.len();
    mesh.positions = vec![Vec3::ZERO; n];
    mesh.normals = vec![Vec3::Z; n];
    mesh.uvs = vec![Default::default(); n];
    mesh.indices.clear();
    Some(model)
}

fn skinning(c: &mut Criterion) {
    let mut models = Vec::new();
    let robot = root().join("examples/assets/robot");
    if let Some(m) = load(&robot.join("robot.md5mesh"), &[robot.join("walk.md5anim")]) {
        models.push(("robot", m));
    }
    let bob = root().join("../shared/corpus/md5/bob_lamp");
    if let Some(m) = load(&bob.join("boblampclean.md5mesh"), &[bob.join("boblampclean.md5anim")]) {
        models.push(("bob_lamp", m));
    }
    if let Some(m) = dense_robot(140) {
        models.push(("dense_50k", m));
    }
    let mut group = c.benchmark_group("pose");
    for (name, model) in &models {
        group.throughput(Throughput::Elements(model.vertex_count() as u64));
        for threads in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("pool");
            group.bench_function(BenchmarkId::new(*name, threads), |b| {
                let mut f = 0.0;
                b.iter(|| {
                    f += 0.5;
                    pool.install(|| {
                        pose(model, model.clips.first(), FrameTime::Frame(f), &PoseOptions::default()).triangle_count()
                    })
                })
            });
        }
    }
    group.finish();
}

fn loading(c: &mut Criterion) {
    let corpus = root().join("../shared/corpus");
    let cases: [(&str, &[&str]); 6] = [
        ("md2/sydney/sydney.md2", &[]),
        ("md2/ogro/ogro.md2", &[]),
        ("md5/bob_lamp/boblampclean.md5mesh", &["md5/bob_lamp/boblampclean.md5anim"]),
        ("md5/snoutx10k/snoutx10k.md5mesh", &[]),
        ("smd/headcrab/reference.smd", &["smd/headcrab/walk.smd"]),
        ("smd/wuson/WusonSMD.smd", &[]),
    ];
    let mut group = c.benchmark_group("load");
    for (file, anims) in cases {
        let path = corpus.join(file);
        if !path.exists() {
            continue;
        }
        let anims: Vec<PathBuf> = anims.iter().map(|a| corpus.join(a)).collect();
        let name = Path::new(file).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        group.bench_function(name, |b| b.iter(|| load(&path, &anims).map(|m| m.vertex_count())));
    }
    group.finish();
}

criterion_group!(benches, skinning, loading);
criterion_main!(benches);
