//! Vertex colours (glTF `COLOR_0`, OBJ `v x y z r g b`, FBX's colour layer): read, multiplied
//! into the base colour and texture in linear light, and rendered as Blender renders the same
//! file.

use std::path::{Path, PathBuf};

use glam::Vec3;
use serde_json::json;
use spritebake::formats::{LoadOptions, load};
use spritebake::model::{AlphaMode, Material};
use spritebake::raster::{Camera, Image, Projection, RenderOptions, Shading};

use crate::common::cli::{printed, run_in, scratch_in};
use crate::common::gltf::Builder;
use crate::common::{self, TestMesh};

/// The quad's corners (x right, y up, facing +Z) and their colours: red, green, blue and a
/// half-transparent white.
const CORNERS: [[f32; 3]; 4] = [[-1.0, -1.0, 0.0], [1.0, -1.0, 0.0], [1.0, 1.0, 0.0], [-1.0, 1.0, 0.0]];
const COLOURS: [[f32; 4]; 4] = [[1.0, 0.0, 0.0, 1.0], [0.0, 1.0, 0.0, 1.0], [0.0, 0.0, 1.0, 1.0], [1.0, 1.0, 1.0, 0.5]];
/// Image side of the comparisons with Blender, and the side of one texel of their 4×4 texture.
const SIDE: u32 = 64;
const TEXEL: u32 = SIDE / 4;

/// How `COLOR_0` is stored.
#[derive(Clone, Copy)]
enum Stored {
    /// RGBA floats.
    Floats,
    /// RGB normalised bytes (alpha 1).
    Bytes,
}

/// A quad with `COLOR_0` as `stored`, a base colour factor and, with `texture`, a 4×4 PNG
/// sampled at the nearest texel, as `dir/NAME.gltf`.
fn coloured_quad(dir: &Path, name: &str, stored: Stored, texture: bool) -> PathBuf {
    let mut b = Builder::default();
    let positions = b.floats(&CORNERS.concat(), "VEC3", 3);
    let colours = match stored {
        Stored::Floats => b.floats(&COLOURS.concat(), "VEC4", 4),
        Stored::Bytes => {
            let bytes: Vec<u8> = COLOURS.iter().flat_map(|c| c[..3].iter().map(|v| (v * 255.0) as u8)).collect();
            let a = b.u8s(&bytes, "VEC3", 3);
            b.accessors[a]["normalized"] = json!(true);
            a
        }
    };
    let uvs = b.floats(&[0.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0], "VEC2", 2);
    let indices = b.u16s(&[0, 1, 2, 0, 2, 3]);
    let mut material = json!({"pbrMetallicRoughness": {"baseColorFactor": [1.0, 0.8, 0.6, 1.0]}});
    let mut document = json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{
            "attributes": {"POSITION": positions, "COLOR_0": colours, "TEXCOORD_0": uvs},
            "indices": indices,
            "material": 0
        }]}],
    });
    if texture {
        checker().save(dir.join("checker.png")).unwrap();
        material["pbrMetallicRoughness"]["baseColorTexture"] = json!({"index": 0});
        document["textures"] = json!([{"source": 0, "sampler": 0}]);
        document["images"] = json!([{"uri": "checker.png"}]);
        document["samplers"] = json!([{"magFilter": 9728, "minFilter": 9728}]);
    }
    document["materials"] = json!([material]);
    let path = dir.join(format!("{name}.gltf"));
    std::fs::write(&path, serde_json::to_vec(&b.finish(document)).unwrap()).unwrap();
    path
}

/// A 4×4 texture of four greys and colours, none black (a texel of 0 would hide the colour).
fn checker() -> image::RgbaImage {
    image::RgbaImage::from_fn(4, 4, |x, y| {
        let k = (x + 4 * y) as u8;
        image::Rgba([255 - 9 * k, 120 + 8 * k, 60 + 12 * k, 255])
    })
}

/// `spritebake render` of `model` in the frame Blender's `unlit_render.py` uses.
fn ours(model: &Path, dir: &Path) -> image::RgbaImage {
    let out = dir.join("ours.png");
    let args = ["render", model.to_str().unwrap(), "--output", out.to_str().unwrap(), "--ortho", "--pitch", "0"];
    let o = run_in(dir, &[&args[..], &["--margin", "0", "--shading", "unlit", "--size", "64"]].concat());
    assert!(o.status.success(), "{}", printed(&o));
    image::open(&out).unwrap().to_rgba8()
}

/// The largest channel difference between `ours` and `theirs` over the pixels a render's
/// edges and the texture's texel borders leave alone (both anti-alias them, differently), and
/// where it is.
fn largest_difference(ours: &image::RgbaImage, theirs: &image::RgbaImage, texel_borders: bool) -> (u8, (u32, u32)) {
    let near_border = |v: u32| texel_borders && (v.is_multiple_of(TEXEL) || v % TEXEL == TEXEL - 1);
    let mut worst = (0, (0, 0));
    for y in 2..SIDE - 2 {
        for x in (2..SIDE - 2).filter(|&x| !near_border(x) && !near_border(y)) {
            let (a, b) = (ours.get_pixel(x, y).0, theirs.get_pixel(x, y).0);
            let d = (0..4).map(|c| a[c].abs_diff(b[c])).max().unwrap();
            if d > worst.0 {
                worst = (d, (x, y));
            }
        }
    }
    worst
}

#[test]
fn gltf_vertex_colours_render_as_blender_renders_them() {
    let dir = scratch_in("colours", "gltf-blender");
    for (name, stored, texture) in
        [("floats", Stored::Floats, false), ("bytes", Stored::Bytes, false), ("textured", Stored::Floats, true)]
    {
        let model = coloured_quad(&dir, name, stored, texture);
        let Some(theirs) = common::blender::unlit_render(&model, SIDE, &dir) else { return };
        let ours = ours(&model, &dir);
        let (difference, at) = largest_difference(&ours, &theirs, texture);
        assert!(
            difference <= 3,
            "{name}: {difference} levels apart at {at:?}: ours {:?}, Blender's {:?}",
            ours.get_pixel(at.0, at.1),
            theirs.get_pixel(at.0, at.1)
        );
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn obj_vertex_colours_are_srgb_and_render_as_blender_renders_them() {
    let dir = scratch_in("colours", "obj-blender");
    let mut obj = String::from("mtllib quad.mtl\n");
    for (p, c) in CORNERS.iter().zip(COLOURS) {
        obj += &format!("v {} {} {} {} {} {}\n", p[0], p[1], p[2], c[0], c[1] * 0.5, c[2]);
    }
    obj += "usemtl tinted\nf 1 2 3\nf 1 3 4\n";
    std::fs::write(dir.join("quad.obj"), obj).unwrap();
    std::fs::write(dir.join("quad.mtl"), "newmtl tinted\nKd 1.0 0.8 0.6\n").unwrap();
    let model = load(&dir.join("quad.obj"), &LoadOptions::default()).unwrap();
    // Written as sRGB, as Blender writes and reads them: 0.5 is 0.214 in linear light.
    let green = model.meshes[0].colors.iter().map(|c| c[1]).fold(0.0, f32::max);
    assert!((green - 0.214).abs() < 1e-3, "{:?}", model.meshes[0].colors);
    // `info` says so.
    let said = printed(&run_in(&dir, &["info", "quad.obj"]));
    assert!(said.contains("material 'tinted', vertex colours"), "{said}");
    let Some(theirs) = common::blender::unlit_render(&dir.join("quad.obj"), SIDE, &dir) else { return };
    let ours = ours(&dir.join("quad.obj"), &dir);
    let (difference, at) = largest_difference(&ours, &theirs, false);
    assert!(difference <= 3, "{difference} levels apart at {at:?}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn fbx_vertex_colours_are_srgb_and_render_as_blender_renders_them() {
    let dir = scratch_in("colours", "fbx-blender");
    let fbx = dir.join("quad.fbx");
    // Blender writes the quad: its exporter encodes the linear 0.5 grey corner as sRGB.
    if !common::blender::run("coloured_fbx.py", &[fbx.as_os_str()], &dir) {
        return;
    }
    let model = load(&fbx, &LoadOptions::default()).unwrap();
    let greys: Vec<&[f32; 4]> = model.meshes[0].colors.iter().filter(|c| c[0] == c[2] && c[0] > 0.1).collect();
    assert!(!greys.is_empty() && greys.iter().all(|c| (c[0] - 0.5).abs() < 2e-3), "{:?}", model.meshes[0].colors);
    let Some(theirs) = common::blender::unlit_render(&fbx, SIDE, &dir) else { return };
    let (difference, at) = largest_difference(&ours(&fbx, &dir), &theirs, false);
    assert!(difference <= 3, "{difference} levels apart at {at:?}");
    std::fs::remove_dir_all(dir).unwrap();
}

/// The quad with [`COLOURS`] drawn unlit, one sample per pixel, filling a 64×64 image.
fn render_quad(material: Material) -> Image {
    let mut quad = TestMesh::new(CORNERS.map(Vec3::from).to_vec(), vec![[0, 1, 2], [0, 2, 3]]);
    quad.colors = COLOURS.to_vec();
    quad.material = material;
    // Two units away, an orthographic camera sees a square of side 2: the quad fills it.
    let camera = Camera::look_at(Vec3::Z * 2.0, Vec3::ZERO, Projection::Orthographic, 1.0, 0.1, 10.0);
    let options = RenderOptions { width: 64, height: 64, ssaa: 1, shading: Shading::Unlit, ..RenderOptions::default() };
    common::render_meshes(&[&quad], camera, &options)
}

#[test]
fn each_corner_wears_its_colour_and_alpha_follows_the_material() {
    let opaque = render_quad(common::white());
    // Pixels next to the corners: bottom left red, bottom right green, top right blue.
    let px = |image: &Image, x: u32, y: u32| image.pixel(x, y).unwrap();
    // A pixel's centre takes 1/128 of the neighbouring corners: 22 levels in the dark end of sRGB.
    let near = |a: [u8; 4], b: [u8; 4]| (0..4).all(|c| a[c].abs_diff(b[c]) <= 30);
    assert!(near(px(&opaque, 0, 63), [255, 0, 0, 255]), "{:?}", px(&opaque, 0, 63));
    assert!(near(px(&opaque, 63, 63), [0, 255, 0, 255]), "{:?}", px(&opaque, 63, 63));
    assert!(near(px(&opaque, 63, 0), [0, 0, 255, 255]), "{:?}", px(&opaque, 63, 0));
    // The top left corner's alpha of one half is ignored by an opaque material...
    assert!(near(px(&opaque, 0, 0), [255, 255, 255, 255]), "{:?}", px(&opaque, 0, 0));
    // ...and blended by a blended one, its colour kept.
    let blended = render_quad(Material { alpha_mode: AlphaMode::Blend, ..common::white() });
    let [r, g, b, a] = px(&blended, 0, 0);
    assert!(a.abs_diff(128) <= 12 && r > 230 && g > 230 && b > 230, "{:?}", [r, g, b, a]);
    assert_eq!(px(&blended, 63, 63), px(&opaque, 63, 63), "an opaque corner is the same either way");
    // The base colour multiplies: a red material leaves the green corner black.
    let red = render_quad(Material { base_color: [1.0, 0.0, 0.0, 1.0], ..common::white() });
    assert!(near(px(&red, 63, 63), [0, 0, 0, 255]), "{:?}", px(&red, 63, 63));
}

#[test]
fn a_colour_accessor_of_the_wrong_length_is_an_error_naming_it() {
    let dir = scratch_in("colours", "short");
    let path = coloured_quad(&dir, "short", Stored::Floats, false);
    let mut document: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let colours = document["meshes"][0]["primitives"][0]["attributes"]["COLOR_0"].as_u64().unwrap() as usize;
    document["accessors"][colours]["count"] = json!(3);
    std::fs::write(&path, serde_json::to_vec(&document).unwrap()).unwrap();
    let e = load(&path, &LoadOptions::default()).unwrap_err().to_string();
    assert!(e.contains("COLOR_0") && e.contains("3 elements for 4 vertices"), "{e}");
    std::fs::remove_dir_all(dir).unwrap();
}
