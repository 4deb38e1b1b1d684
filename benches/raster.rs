//! Rasterizer throughput: full-screen fill (pixels/s), a dense mesh (triangles/s) and the
//! textured example with 4×4 supersampling (frames/s), each on 1 and 2 threads. The fill and
//! dense cases render into one reused image, as a renderer's framebuffer is reused.

use std::borrow::Cow;
use std::path::Path;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use glam::{Mat4, Vec2, Vec3};
use spritebake::bake::{self, FrameRequest};
use spritebake::model::{Material, PosedMesh, PosedPart};
use spritebake::raster::{Camera, Image, OrbitView, RenderOptions, Renderer, Scene, SceneObject, Shading};

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("thread pool")
}

/// A UV sphere with `rings × segments × 2` triangles.
fn sphere(rings: u32, segments: u32) -> (Vec<Vec3>, Vec<Vec2>, Vec<[u32; 3]>) {
    let (mut positions, mut uvs, mut indices) = (Vec::new(), Vec::new(), Vec::new());
    for r in 0..=rings {
        let theta = r as f32 / rings as f32 * std::f32::consts::PI;
        for s in 0..=segments {
            let phi = s as f32 / segments as f32 * std::f32::consts::TAU;
            positions.push(Vec3::new(theta.sin() * phi.sin(), theta.cos(), theta.sin() * phi.cos()));
            uvs.push(Vec2::new(s as f32 / segments as f32, r as f32 / rings as f32));
        }
    }
    let row = segments + 1;
    for r in 0..rings {
        for s in 0..segments {
            let (a, b, c, d) = (r * row + s, r * row + s + 1, (r + 1) * row + s, (r + 1) * row + s + 1);
            indices.push([a, c, b]);
            indices.push([b, c, d]);
        }
    }
    (positions, uvs, indices)
}

fn fill_and_dense_mesh(c: &mut Criterion) {
    let material = Material::named("flat");
    let quad =
        [Vec3::new(-1.0, -1.0, 0.0), Vec3::new(1.0, -1.0, 0.0), Vec3::new(1.0, 1.0, 0.0), Vec3::new(-1.0, 1.0, 0.0)];
    let quad_normals = [Vec3::Z; 4];
    let quad_uvs = [Vec2::ZERO; 4];
    let quad_indices = [[0, 1, 2], [0, 2, 3]];
    let fill = PosedMesh {
        parts: vec![PosedPart {
            positions: Cow::Borrowed(&quad),
            normals: Cow::Borrowed(&quad_normals),
            uvs: &quad_uvs,
            colors: &[],
            indices: &quad_indices,
            material: &material,
            shared: None,
        }],
    };
    let identity = Camera { world_to_view: Mat4::IDENTITY, view_to_clip: Mat4::IDENTITY };
    let fill_scene =
        Scene { objects: vec![SceneObject { posed: &fill, model_to_world: Mat4::IDENTITY }], camera: identity };
    let flat =
        RenderOptions { width: 1024, height: 1024, shading: Shading::Unlit, ssaa: 1, ..RenderOptions::default() };

    let (positions, uvs, indices) = sphere(224, 224);
    let dense = PosedMesh {
        parts: vec![PosedPart {
            positions: Cow::Borrowed(&positions),
            normals: Cow::Borrowed(&positions),
            uvs: &uvs,
            colors: &[],
            indices: &indices,
            material: &material,
            shared: None,
        }],
    };
    let camera = Camera::fit(&OrbitView::default(), &positions, 1.0);
    let dense_scene = Scene { objects: vec![SceneObject { posed: &dense, model_to_world: Mat4::IDENTITY }], camera };
    let lit = RenderOptions { width: 1024, height: 1024, ssaa: 1, ..RenderOptions::default() };

    let renderer = Renderer::new();
    let mut group = c.benchmark_group("fill_1024");
    group.throughput(Throughput::Elements(1024 * 1024));
    for threads in [1, 2] {
        let pool = pool(threads);
        // Frames into one reused image, as a renderer's framebuffer (and glrender's read-back
        // buffer) is reused.
        let mut image = Image::default();
        group.bench_function(BenchmarkId::from_parameter(threads), |b| {
            b.iter(|| pool.install(|| renderer.render_into(&fill_scene, &flat, &mut image).expect("render")))
        });
    }
    group.finish();

    let mut group = c.benchmark_group("dense_100k_1024");
    group.throughput(Throughput::Elements(indices.len() as u64));
    for threads in [1, 2] {
        let pool = pool(threads);
        let mut image = Image::default();
        group.bench_function(BenchmarkId::from_parameter(threads), |b| {
            b.iter(|| pool.install(|| renderer.render_into(&dense_scene, &lit, &mut image).expect("render")))
        });
    }
    group.finish();
}

fn textured_example_ssaa4(c: &mut Criterion) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/assets/tower.obj");
    let model = spritebake::formats::load(&path, &Default::default()).expect("example model");
    let view = OrbitView { yaw_degrees: 30.0, pitch_degrees: 20.0, ..OrbitView::default() };
    let options = RenderOptions { width: 256, height: 256, ssaa: 4, ..RenderOptions::default() };
    let renderer = Renderer::new();
    let mut group = c.benchmark_group("example_256_ssaa4");
    group.throughput(Throughput::Elements(1));
    for threads in [1, 2] {
        let pool = pool(threads);
        group.bench_function(BenchmarkId::from_parameter(threads), |b| {
            b.iter(|| {
                pool.install(|| bake::render_frame(&renderer, &model, &FrameRequest::default(), &view, &options))
                    .expect("render")
            })
        });
    }
    group.finish();
}

criterion_group!(benches, fill_and_dense_mesh, textured_example_ssaa4);
criterion_main!(benches);
