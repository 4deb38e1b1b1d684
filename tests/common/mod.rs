//! Helpers shared by the integration tests: scenes built from raw triangles, goldens, and
//! running the binary on files a test makes.
#![allow(dead_code)] // each test binary uses a different subset

pub mod cli;
pub mod golden;

use std::borrow::Cow;
use std::sync::Arc;

use glam::{Mat4, Vec2, Vec3};
use spritebake::model::{Material, PosedMesh, PosedPart, Texture};
use spritebake::raster::{Camera, Image, RenderOptions, Renderer, Scene, SceneObject, Shading};

/// Owned geometry for one draw; `posed()` borrows it as the renderer's input.
pub struct TestMesh {
    pub positions: Vec<Vec3>,
    pub normals: Vec<Vec3>,
    pub uvs: Vec<Vec2>,
    pub indices: Vec<[u32; 3]>,
    pub material: Material,
}

impl TestMesh {
    pub fn new(positions: Vec<Vec3>, indices: Vec<[u32; 3]>) -> TestMesh {
        let n = positions.len();
        TestMesh { positions, normals: vec![Vec3::Z; n], uvs: vec![Vec2::ZERO; n], indices, material: white() }
    }

    pub fn posed(&self) -> PosedMesh<'_> {
        PosedMesh {
            parts: vec![PosedPart {
                positions: Cow::Borrowed(&self.positions),
                normals: Cow::Borrowed(&self.normals),
                uvs: &self.uvs,
                indices: &self.indices,
                material: &self.material,
            }],
        }
    }
}

pub fn white() -> Material {
    Material::named("white")
}

pub fn textured(texture: Texture) -> Material {
    Material { texture: Some(Arc::new(texture)), ..Material::named("textured") }
}

/// A `cells × cells` black/white checker with `texels` texels per cell.
pub fn checker_texture(cells: u32, texels: u32) -> Texture {
    let n = cells * texels;
    let mut rgba = Vec::with_capacity((n * n * 4) as usize);
    for y in 0..n {
        for x in 0..n {
            let v = if (x / texels + y / texels) % 2 == 0 { 255 } else { 0 };
            rgba.extend_from_slice(&[v, v, v, 255]);
        }
    }
    Texture::new(n, n, rgba, true).unwrap()
}

/// A camera whose world x/y are sample coordinates (x right, y down, origin top-left) over a
/// `w × h` sample grid; world z in −1..0 maps to depth 1..0... seen from +Z.
pub fn pixel_camera(w: f32, h: f32) -> Camera {
    use glam::camera::rh::proj::directx::orthographic;
    Camera { world_to_view: Mat4::IDENTITY, view_to_clip: orthographic(0.0, w, h, 0.0, -10.0, 10.0) }
}

pub fn unlit(width: u32, height: u32) -> RenderOptions {
    RenderOptions { width, height, shading: Shading::Unlit, cull_back_faces: false, ..RenderOptions::default() }
}

pub fn render_meshes(meshes: &[&TestMesh], camera: Camera, options: &RenderOptions) -> Image {
    let posed: Vec<PosedMesh> = meshes.iter().map(|m| m.posed()).collect();
    let scene = Scene {
        objects: posed.iter().map(|p| SceneObject { posed: p, model_to_world: Mat4::IDENTITY }).collect(),
        camera,
    };
    Renderer::new().render(&scene, options).unwrap()
}

pub fn coverage(meshes: &[&TestMesh], camera: Camera, options: &RenderOptions) -> Vec<u16> {
    let posed: Vec<PosedMesh> = meshes.iter().map(|m| m.posed()).collect();
    let scene = Scene {
        objects: posed.iter().map(|p| SceneObject { posed: p, model_to_world: Mat4::IDENTITY }).collect(),
        camera,
    };
    Renderer::new().coverage(&scene, options).unwrap()
}

/// A UV sphere of `rings × segments` quads (two triangles each), radius 1, with uvs and normals.
pub fn uv_sphere(rings: u32, segments: u32, material: Material) -> TestMesh {
    let mut positions = Vec::new();
    let mut uvs = Vec::new();
    for r in 0..=rings {
        let v = r as f32 / rings as f32;
        let theta = v * std::f32::consts::PI;
        for s in 0..=segments {
            let u = s as f32 / segments as f32;
            let phi = u * std::f32::consts::TAU;
            positions.push(Vec3::new(theta.sin() * phi.sin(), theta.cos(), theta.sin() * phi.cos()));
            uvs.push(Vec2::new(u, v));
        }
    }
    let mut indices = Vec::new();
    let row = segments + 1;
    for r in 0..rings {
        for s in 0..segments {
            let (a, b, c, d) = (r * row + s, r * row + s + 1, (r + 1) * row + s, (r + 1) * row + s + 1);
            // Counter-clockwise seen from outside.
            indices.push([a, c, b]);
            indices.push([b, c, d]);
        }
    }
    let normals = positions.clone();
    TestMesh { positions, normals, uvs, indices, material }
}

/// `../shared/corpus/<sub>`, or `None` (with a note on stderr) when it is absent.
pub fn corpus(sub: &str) -> Option<std::path::PathBuf> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus").join(sub);
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("note: {} is absent; corpus test skipped", dir.display());
        None
    }
}

/// Signed volume of a closed mesh in its rest pose: positive when its triangles wind
/// counter-clockwise seen from outside (normals pointing out).
pub fn signed_volume(model: &spritebake::model::Model) -> f32 {
    model
        .meshes
        .iter()
        .flat_map(|m| {
            m.indices.iter().map(move |t| {
                let [a, b, c] = t.map(|i| m.positions[i as usize]);
                a.dot(b.cross(c)) / 6.0
            })
        })
        .sum()
}

/// The no-jitter check for a shared-framing sheet of one clip in `directions` directions
/// (cells ordered direction by direction): every cell has the same pivot row, the ground line
/// (lowest opaque row) stays within a pixel over all cells, and per frame the model's height
/// agrees within a pixel in every direction.
pub fn assert_jitter_free(cells: &[spritebake::sprite::Cell], directions: usize) {
    let pivots: Vec<f32> = cells.iter().map(|c| c.pivot.y).collect();
    assert!(pivots.iter().all(|p| (p - pivots[0]).abs() < 1e-3), "pivot rows differ: {pivots:?}");
    let bounds: Vec<(u32, u32, u32, u32)> = cells.iter().map(|c| c.image.opaque_bounds().unwrap()).collect();
    let grounds: Vec<u32> = bounds.iter().map(|b| b.1 + b.3).collect();
    let spread = |v: &[u32]| v.iter().max().unwrap() - v.iter().min().unwrap();
    assert!(spread(&grounds) <= 1, "ground lines {grounds:?}");
    let frames = cells.len() / directions;
    for f in 0..frames {
        let h: Vec<u32> = (0..directions).map(|d| bounds[d * frames + f].3).collect();
        assert!(spread(&h) <= 1, "frame {f}: heights {h:?}");
    }
}
