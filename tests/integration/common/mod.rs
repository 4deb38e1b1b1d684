//! Helpers shared by the integration tests: scenes built from raw triangles, goldens, and
//! running the binary on files a test makes.

pub mod alloc;
pub mod assimp;
pub mod blender;
pub mod boxes;
pub mod browser;
pub mod cli;
pub mod engines;
pub mod fbx;
pub mod gltf;
pub mod golden;
pub mod html;
pub mod points;
pub mod tres;
pub mod walk;

use std::borrow::Cow;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use glam::{Mat4, Vec2, Vec3};
use spritebake::model::{Material, PosedMesh, PosedPart, Texture};
use spritebake::raster::{Camera, Image, RenderOptions, Renderer, Scene, SceneObject, Shading};

/// Owned geometry for one draw; `posed()` borrows it as the renderer's input.
pub struct TestMesh {
    pub positions: Vec<Vec3>,
    pub normals: Vec<Vec3>,
    pub uvs: Vec<Vec2>,
    /// Vertex colours, linear straight RGBA; empty for none.
    pub colors: Vec<[f32; 4]>,
    pub indices: Vec<[u32; 3]>,
    pub material: Material,
}

impl TestMesh {
    pub fn new(positions: Vec<Vec3>, indices: Vec<[u32; 3]>) -> TestMesh {
        let n = positions.len();
        TestMesh {
            positions,
            normals: vec![Vec3::Z; n],
            uvs: vec![Vec2::ZERO; n],
            colors: Vec::new(),
            indices,
            material: white(),
        }
    }

    pub fn posed(&self) -> PosedMesh<'_> {
        PosedMesh {
            parts: vec![PosedPart {
                positions: Cow::Borrowed(&self.positions),
                normals: Cow::Borrowed(&self.normals),
                uvs: &self.uvs,
                colors: &self.colors,
                indices: &self.indices,
                material: &self.material,
                shared: None,
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
            let v = if (x / texels + y / texels).is_multiple_of(2) { 255 } else { 0 };
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
    RenderOptions {
        width,
        height,
        shading: Shading::Unlit,
        cull_back_faces: false,
        ssaa: 1,
        ..RenderOptions::default()
    }
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
    TestMesh { positions, normals, uvs, colors: Vec::new(), indices, material }
}

/// The path of a file of the example robot shipped in the repo (`examples/assets/robot/`), as
/// text for a command line.
pub fn robot(file: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/assets/robot").join(file).to_string_lossy().into_owned()
}

/// The variable that turns a missing corpus folder from a skip into a failure: with
/// `SPRITEBAKE_REQUIRE_CORPUS=1` (as CI sets it), no corpus test can pass by skipping.
pub const REQUIRE_CORPUS: &str = "SPRITEBAKE_REQUIRE_CORPUS";

/// Writes into `dir` a QC that plays a one-bone sequence `sequences` times on a reference SMD
/// of 2000 bones (`ref.smd`, `seq.smd`, `bomb.qc`): every clip is a frame of every reference
/// bone and a bone mapping, so a few hundred KB of script ask for gigabytes. Returns the QC.
pub fn qc_sequence_bomb(dir: &Path, sequences: usize) -> PathBuf {
    let bones = 2000;
    let mut reference = String::from("version 1\nnodes\n");
    reference.extend((0..bones).map(|i| format!("{i} \"bone{i}\" {}\n", i as i64 - 1)));
    reference.push_str("end\nskeleton\ntime 0\n");
    reference.extend((0..bones).map(|i| format!("{i} 1 0 0 0 0 0\n")));
    reference.push_str("end\ntriangles\nm\n0 0 0 0 0 0 1 0 0\n0 1 0 0 0 0 1 1 0\n0 0 1 0 0 0 1 0 1\nend\n");
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("ref.smd"), reference).unwrap();
    let sequence = "version 1\nnodes\n0 \"bone0\" -1\nend\nskeleton\ntime 0\n0 1 0 0 0 0 0\nend\n";
    std::fs::write(dir.join("seq.smd"), sequence).unwrap();
    let mut qc = String::from("$body body \"ref\"\n");
    qc.extend((0..sequences).map(|i| format!("$sequence s{i} \"seq\"\n")));
    std::fs::write(dir.join("bomb.qc"), qc).unwrap();
    dir.join("bomb.qc")
}

/// The third-party model corpus: `$SPRITEBAKE_CORPUS`, else `../shared/corpus` beside the
/// project.
pub fn corpus_root() -> PathBuf {
    std::env::var_os("SPRITEBAKE_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus"))
}

/// Whether `SPRITEBAKE_REQUIRE_CORPUS=1` is set.
pub fn corpus_required() -> bool {
    std::env::var_os(REQUIRE_CORPUS).is_some_and(|v| v == "1")
}

/// `<corpus>/<sub>` ([`corpus_root`]); every corpus test starts here. When the folder is
/// absent the test skips (`None`, with a note on stderr), or fails when
/// `SPRITEBAKE_REQUIRE_CORPUS=1` ([`corpus_in`]).
///
/// The note is written to the process's stderr directly, not through `eprintln!`, which the
/// test harness captures and shows only for failing tests: a skip shows in every run.
pub fn corpus(sub: &str) -> Option<PathBuf> {
    let root = corpus_root();
    let dir = corpus_in(&root, sub, corpus_required());
    if dir.is_none() {
        let thread = std::thread::current();
        let _ = writeln!(
            std::io::stderr(),
            "note: {} is absent; corpus test {} skipped (with {REQUIRE_CORPUS}=1 it fails)",
            root.join(sub).display(),
            thread.name().unwrap_or("?"),
        );
    }
    dir
}

/// `root/sub` when it is a folder; otherwise a panic naming the folder and
/// [`REQUIRE_CORPUS`] when `required`, else `None` (skip).
pub fn corpus_in(root: &Path, sub: &str, required: bool) -> Option<PathBuf> {
    let dir = root.join(sub);
    if dir.is_dir() {
        return Some(dir);
    }
    assert!(
        !required,
        "corpus folder {} is absent and {REQUIRE_CORPUS}=1 is set: corpus tests may not skip \
         (put the corpus there or name it in SPRITEBAKE_CORPUS, or unset {REQUIRE_CORPUS})",
        dir.display()
    );
    None
}

/// `model`'s rest pose (its first frame, for a morph model) rendered unlit with nearest-texel
/// filtering, `size`² pixels, one sample per pixel, from the front at eye level: every covered
/// pixel shows one texel's own colour.
pub fn render_model_unlit(model: &spritebake::model::Model, size: u32) -> Image {
    let view = spritebake::raster::OrbitView { pitch_degrees: 0.0, ..Default::default() };
    render_model_unlit_seen(model, size, &view, None)
}

/// As [`render_model_unlit`], seen from `view`, over `background` (sRGB, straight alpha) if
/// one is given.
pub fn render_model_unlit_seen(
    model: &spritebake::model::Model,
    size: u32,
    view: &spritebake::raster::OrbitView,
    background: Option<[u8; 4]>,
) -> Image {
    use spritebake::anim::{FrameTime, PoseOptions};
    use spritebake::bake::{FrameRequest, render_frame};
    let options = RenderOptions {
        width: size,
        height: size,
        ssaa: 1,
        shading: Shading::Unlit,
        filter: spritebake::raster::Filter::Nearest,
        background,
        ..RenderOptions::default()
    };
    let request = FrameRequest::clip(None, FrameTime::Frame(0.0), PoseOptions::default());
    render_frame(&Renderer::new(), model, &request, view, &options).unwrap()
}

/// The corpus model `<corpus>/<folder>/<file>` loaded with default options, or `None` (skip)
/// when the folder is absent ([`corpus`]).
pub fn corpus_model(folder: &str, file: &str) -> Option<(PathBuf, spritebake::model::Model)> {
    let path = corpus(folder)?.join(file);
    let model = spritebake::formats::load(&path, &Default::default()).unwrap_or_else(|e| panic!("{e}"));
    Some((path, model))
}

/// Asserts that the committed file `tests/fixtures/<relative>` holds `bytes` (a test's
/// hand-built model, kept as a fuzz seed); `SPRITEBAKE_BLESS=1` rewrites it.
pub fn assert_fixture(relative: &str, bytes: &[u8]) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(relative);
    if std::env::var_os("SPRITEBAKE_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, bytes).unwrap();
    }
    assert!(std::fs::read(&path).unwrap() == bytes, "{} differs (SPRITEBAKE_BLESS=1 rewrites it)", path.display());
}

/// Asserts that nine in ten of `model`'s triangles (at least one) wind counter-clockwise seen
/// from where their vertex normals point, as every format is turned to; `name` says which.
pub fn assert_faces_outwards(model: &spritebake::model::Model, name: &str) {
    let (mut agree, mut total) = (0, 0);
    for mesh in &model.meshes {
        for t in &mesh.indices {
            let [a, b, c] = t.map(|i| mesh.positions[i as usize]);
            let normals: glam::Vec3 = t.iter().map(|&i| mesh.normals[i as usize]).sum();
            total += 1;
            agree += usize::from((b - a).cross(c - a).dot(normals) > 0.0);
        }
    }
    assert!(total > 0 && agree * 10 >= total * 9, "{name}: {agree} of {total} triangles face outwards");
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
pub fn assert_jitter_free(cells: &[spritebake::internal::bake::Cell], directions: usize) {
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

/// Whether the peer tool `name` is on `PATH`. Without it a test skips (`false`, after a note on
/// stderr), or fails when the variable `require` is `1` (as CI sets it, after installing the
/// tool as `install` says).
pub fn peer_on_path(name: &str, require: &str, install: &str) -> bool {
    let found =
        std::env::var_os("PATH").is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(name).is_file()));
    if !found {
        assert!(
            std::env::var_os(require).is_none_or(|v| v != "1"),
            "no {name} on PATH and {require}=1 is set: the {name} test may not skip ({install}, or unset {require})"
        );
        let thread = std::thread::current();
        let _ = writeln!(
            std::io::stderr(),
            "note: no {name} on PATH; {name} test {} skipped (with {require}=1 it fails)",
            thread.name().unwrap_or("?")
        );
    }
    found
}

/// A copy of `bytes` with the little-endian i32 at `at` replaced (a hostile header field).
pub fn patched_i32(bytes: &[u8], at: usize, value: i32) -> Vec<u8> {
    let mut out = bytes.to_vec();
    out[at..at + 4].copy_from_slice(&value.to_le_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A folder that does not exist.
    fn nowhere() -> PathBuf {
        std::env::temp_dir().join(format!("spritebake-no-corpus-{}", std::process::id()))
    }

    #[test]
    fn a_missing_corpus_skips_unless_required() {
        assert_eq!(corpus_in(&nowhere(), "md2", false), None);
        let here = Path::new(env!("CARGO_MANIFEST_DIR"));
        assert_eq!(corpus_in(here, "tests", true), Some(here.join("tests")));
    }

    #[test]
    fn a_required_missing_corpus_fails_naming_the_folder_and_the_variable() {
        let panic = std::panic::catch_unwind(|| corpus_in(&nowhere(), "md2/ogro", true)).unwrap_err();
        let message = panic.downcast_ref::<String>().expect("a formatted panic message");
        let folder = nowhere().join("md2/ogro");
        assert!(message.contains(&folder.display().to_string()), "{message}");
        assert!(message.contains("SPRITEBAKE_REQUIRE_CORPUS=1"), "{message}");
    }
}
