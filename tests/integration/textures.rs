//! Texture discovery in its documented order (`--texture`, the model's own reference and the
//! extra search folders, the model's folder, the only image beside a model naming none), each
//! found texture recorded with its source and shown by `info`; every read stays confined.

use std::path::{Path, PathBuf};
use std::process::Command;

use spritebake::formats::{LoadOptions, TextureOverride};
use spritebake::model::{Model, TextureSource, TextureStatus};

use crate::common::cli::{printed, scratch_in};

fn assets() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/assets")
}

fn png(path: &Path, rgba: [u8; 4]) {
    let image = spritebake::raster::Image { width: 2, height: 2, rgba: rgba.repeat(4) };
    spritebake::output::write_png(path, &image).unwrap();
}

/// The example robot's MD2 with its skin count set to zero (the header's `num_skins`), as
/// Irrlicht's sydney and faerie are: the model names no texture.
fn skinless_md2(path: &Path) {
    let mut bytes = std::fs::read(assets().join("robot/robot.md2")).unwrap();
    bytes[20..24].copy_from_slice(&0i32.to_le_bytes());
    std::fs::write(path, bytes).unwrap();
}

/// A one-quad OBJ whose material library names `map_Kd` (or no texture for `None`).
fn quad_obj(dir: &Path, map_kd: Option<&str>) -> PathBuf {
    let map = map_kd.map(|m| format!("map_Kd {m}\n")).unwrap_or_default();
    std::fs::write(dir.join("quad.mtl"), format!("newmtl paint\nKd 1 1 1\n{map}")).unwrap();
    let obj = "mtllib quad.mtl\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\n\
               usemtl paint\nf 1/1 2/2 3/3 4/4\n";
    std::fs::write(dir.join("quad.obj"), obj).unwrap();
    dir.join("quad.obj")
}

fn load(path: &Path, options: &LoadOptions) -> Model {
    spritebake::formats::load(path, options).unwrap()
}

/// The found file's name and source of the first material (`None` when it has no texture file).
fn found(model: &Model) -> Option<(String, TextureSource)> {
    let m = &model.materials[0];
    match &m.texture_status {
        TextureStatus::Found(path) => {
            Some((path.file_name().unwrap().to_string_lossy().into_owned(), m.texture_source.unwrap()))
        }
        _ => None,
    }
}

fn red(model: &Model) -> bool {
    model.materials[0].texture.as_ref().is_some_and(|t| t.rgba[..4] == [255, 0, 0, 255])
}

#[test]
fn a_named_texture_is_found_in_the_documented_order() {
    let dir = scratch_in("textures", "order");
    let obj = quad_obj(&dir, Some("tex.png"));
    std::fs::create_dir_all(dir.join("textures")).unwrap();
    png(&dir.join("textures/tex.tga"), [255, 0, 0, 255]);
    png(&dir.join("tex.jpg"), [0, 255, 0, 255]);
    let with_folders = LoadOptions { texture_folders: vec![PathBuf::from("textures")], ..LoadOptions::default() };
    // (3) the model's folder: the same stem with another extension.
    assert_eq!(found(&load(&obj, &LoadOptions::default())), Some(("tex.jpg".into(), TextureSource::ModelFolder)));
    // (2) a search folder comes before the search of the model's folder, with the same
    // candidates (another extension here).
    let model = load(&obj, &with_folders);
    assert_eq!(found(&model), Some(("tex.tga".into(), TextureSource::SearchFolder)));
    assert!(red(&model));
    // (2) the path as written comes first of all; in another case it counts as a search.
    png(&dir.join("TEX.PNG"), [0, 0, 255, 255]);
    assert_eq!(found(&load(&obj, &with_folders)), Some(("TEX.PNG".into(), TextureSource::ModelFolder)));
    std::fs::rename(dir.join("TEX.PNG"), dir.join("tex.png")).unwrap();
    assert_eq!(found(&load(&obj, &with_folders)), Some(("tex.png".into(), TextureSource::Named)));
    // (1) --texture before anything the model says.
    let chosen = dir.join("textures/tex.tga");
    let options = LoadOptions {
        texture_overrides: vec![TextureOverride { material: None, path: chosen }],
        ..with_folders.clone()
    };
    let model = load(&obj, &options);
    assert_eq!(found(&model), Some(("tex.tga".into(), TextureSource::Override)));
    assert!(red(&model));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn search_folders_stay_inside_the_confinement() {
    let root = scratch_in("textures", "search-confined");
    let (inside, outside) = (root.join("model"), root.join("elsewhere"));
    std::fs::create_dir_all(&inside).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    png(&outside.join("tex.png"), [255, 0, 0, 255]);
    let obj = quad_obj(&inside, Some("tex.png"));
    // A folder outside the model's: skipped with a warning, never listed or read.
    let options = LoadOptions { texture_folders: vec![PathBuf::from("../elsewhere")], ..LoadOptions::default() };
    let model = load(&obj, &options);
    assert!(matches!(model.materials[0].texture_status, TextureStatus::Missing { .. }));
    assert!(model.warnings.iter().any(|w| w.contains("texture folder '../elsewhere' skipped")), "{:?}", model.warnings);
    assert!(!model.sources.iter().any(|s| s.starts_with(std::fs::canonicalize(&outside).unwrap())));
    // The same folder allowed as a texture root is searched.
    let options = LoadOptions { texture_roots: vec![outside.clone()], ..options };
    let model = load(&obj, &options);
    assert_eq!(found(&model), Some(("tex.png".into(), TextureSource::SearchFolder)));
    std::fs::remove_dir_all(root).unwrap();
}

#[test]
fn a_model_naming_no_skin_takes_its_stem_or_the_only_image_with_a_warning() {
    let dir = scratch_in("textures", "only-image");
    let md2 = dir.join("hero.md2");
    skinless_md2(&md2);
    // No image: untextured, as before, and nothing to warn about.
    let model = load(&md2, &LoadOptions::default());
    assert_eq!((found(&model), model.materials[0].texture.is_none()), (None, true));
    assert!(model.warnings.is_empty(), "{:?}", model.warnings);
    // One image, whatever its name: used, with a warning naming it.
    png(&dir.join("Paint.PNG"), [255, 0, 0, 255]);
    let model = load(&md2, &LoadOptions::default());
    assert_eq!(found(&model), Some(("Paint.PNG".into(), TextureSource::OnlyImage)));
    assert!(red(&model));
    let warning = model.warnings.iter().find(|w| w.contains("names no texture")).unwrap();
    assert!(warning.contains("using Paint.PNG, the only image in"), "{warning}");
    // Two images: neither is guessed; the warning says how to choose.
    png(&dir.join("other.jpg"), [0, 255, 0, 255]);
    let model = load(&md2, &LoadOptions::default());
    assert_eq!(found(&model), None);
    assert!(
        model.warnings.iter().any(|w| w.contains("holds 2 images") && w.contains("--texture")),
        "{:?}",
        model.warnings
    );
    // The model's own stem wins over both, silently.
    png(&dir.join("hero.bmp"), [0, 0, 255, 255]);
    let model = load(&md2, &LoadOptions::default());
    assert_eq!(found(&model), Some(("hero.bmp".into(), TextureSource::ModelFolder)));
    assert!(model.warnings.is_empty(), "{:?}", model.warnings);
    // An OBJ material without a texture is a plain colour: the only image is not a skin for it.
    let plain = scratch_in("textures", "only-image-obj");
    let obj = quad_obj(&plain, None);
    png(&plain.join("paint.png"), [255, 0, 0, 255]);
    let model = load(&obj, &LoadOptions::default());
    assert_eq!((found(&model), model.warnings.len()), (None, 0), "{:?}", model.warnings);
    std::fs::remove_dir_all(dir).unwrap();
    std::fs::remove_dir_all(plain).unwrap();
}

#[cfg(unix)]
#[test]
fn the_only_image_is_read_through_the_confinement() {
    let root = scratch_in("textures", "only-image-link");
    let (inside, outside) = (root.join("model"), root.join("secret"));
    std::fs::create_dir_all(&inside).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    png(&outside.join("secret.png"), [255, 0, 0, 255]);
    skinless_md2(&inside.join("hero.md2"));
    std::os::unix::fs::symlink(outside.join("secret.png"), inside.join("skin.png")).unwrap();
    let model = load(&inside.join("hero.md2"), &LoadOptions::default());
    assert_eq!(found(&model), None);
    assert!(model.materials[0].texture.is_none());
    assert!(model.warnings.iter().any(|w| w.contains("skin.png") && w.contains("outside")), "{:?}", model.warnings);
    std::fs::remove_dir_all(root).unwrap();
}

fn spritebake(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_spritebake")).args(args).output().expect("run spritebake")
}

#[test]
fn info_says_where_each_texture_came_from() {
    let dir = scratch_in("textures", "info");
    let md2 = dir.join("hero.md2");
    skinless_md2(&md2);
    png(&dir.join("paint.png"), [255, 0, 0, 255]);
    let o = spritebake(&["info", md2.to_str().unwrap()]);
    let text = printed(&o);
    assert!(o.status.success(), "{text}");
    assert!(text.contains("paint.png (the only image in the model folder)"), "{text}");
    assert!(text.contains("warning: material 'skin' names no texture: using paint.png"), "{text}");
    let o = spritebake(&["info", md2.to_str().unwrap(), "--texture", dir.join("paint.png").to_str().unwrap()]);
    assert!(printed(&o).contains("paint.png (--texture)"), "{}", printed(&o));
    let tower = assets().join("tower.obj");
    let o = spritebake(&["info", tower.to_str().unwrap()]);
    assert!(printed(&o).contains("tower_bricks.png (named by the model)"), "{}", printed(&o));
    let robot = assets().join("robot/robot.md2");
    let o = spritebake(&["info", robot.to_str().unwrap()]);
    assert!(printed(&o).contains("robot.png (named by the model)"), "{}", printed(&o));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn corpus_faerie_gets_its_only_image_with_a_warning() {
    let Some(dir) = crate::common::corpus("md2") else { return };
    // Irrlicht's faerie names no skin (nskins = 0) and ships faerie2.bmp: it rendered white
    // without a word before.
    let model = load(&dir.join("faerie/faerie.md2"), &LoadOptions::default());
    assert_eq!(found(&model), Some(("faerie2.bmp".into(), TextureSource::OnlyImage)));
    assert!(model.warnings.iter().any(|w| w.contains("faerie2.bmp, the only image")), "{:?}", model.warnings);
    // Sydney's skin has the model's stem: found in the folder, no warning.
    let sydney = load(&dir.join("sydney/sydney.md2"), &LoadOptions::default());
    assert_eq!(found(&sydney), Some(("sydney.bmp".into(), TextureSource::ModelFolder)));
    assert!(sydney.warnings.is_empty(), "{:?}", sydney.warnings);
}

#[test]
fn an_obj_map_d_cuts_the_texture_out_without_a_fringe() {
    use spritebake::model::AlphaMode;
    let dir = scratch_in("textures", "map-d");
    // A white grid on transparent magenta: one opaque line of every 8 texels each way, so
    // 1 - (7/8)^2 = 23.4% of the texture is opaque.
    let n = 64u32;
    let rgba: Vec<u8> = (0..n * n)
        .flat_map(|i| {
            if (i % n).is_multiple_of(8) || (i / n).is_multiple_of(8) { [255, 255, 255, 255] } else { [255, 0, 255, 0] }
        })
        .collect();
    let grid = spritebake::raster::Image { width: n, height: n, rgba };
    spritebake::output::write_png(&dir.join("grid.png"), &grid).unwrap();
    std::fs::write(dir.join("quad.mtl"), "newmtl fence\nKd 1 1 1\nmap_Kd grid.png\nmap_d grid.png\n").unwrap();
    let obj = "mtllib quad.mtl\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\n\
               usemtl fence\nf 1/1 2/2 3/3 4/4\n";
    std::fs::write(dir.join("quad.obj"), obj).unwrap();
    // The OBJ's material on a quad filling 256 px: the image and its coverage.
    let rendered = || {
        let model = load(&dir.join("quad.obj"), &LoadOptions::default());
        assert_eq!(model.materials[0].alpha_mode, AlphaMode::Mask(0.5));
        let mut quad = crate::common::TestMesh::new(
            vec![
                glam::Vec3::ZERO,
                glam::Vec3::new(256.0, 0.0, 0.0),
                glam::Vec3::new(256.0, 256.0, 0.0),
                glam::Vec3::new(0.0, 256.0, 0.0),
            ],
            vec![[0, 1, 2], [0, 2, 3]],
        );
        quad.uvs = vec![glam::Vec2::ZERO, glam::Vec2::X, glam::Vec2::ONE, glam::Vec2::Y];
        quad.material = model.materials[0].clone();
        let image = crate::common::render_meshes(
            &[&quad],
            crate::common::pixel_camera(256.0, 256.0),
            &spritebake::raster::RenderOptions { ssaa: 4, ..crate::common::unlit(256, 256) },
        );
        let coverage = image.rgba.chunks_exact(4).map(|p| f64::from(p[3]) / 255.0).sum::<f64>() / (256.0 * 256.0);
        (image, coverage)
    };
    let (image, coverage) = rendered();
    assert!((coverage - 0.23).abs() <= 0.05, "coverage {coverage:.3}");
    // No magenta, no black at the cut edges: every drawn pixel is white.
    let fringe = image.rgba.chunks_exact(4).filter(|p| p[3] > 0 && p[..3].iter().any(|&c| c < 230)).count();
    assert_eq!(fringe, 0, "pixels of another colour than the grid's");
    // A map_d naming another image cuts by it: an opaque green texture and a grey-scale mask
    // (no alpha channel, so its luminance) at half the size, one line of every 4 of its texels:
    // stretched to the texture, lines 2 texels wide of every 8, 1 - (6/8)² = 43.75%.
    let half = n / 2;
    let mask: Vec<u8> = (0..half * half)
        .flat_map(
            |i| if (i % half).is_multiple_of(4) || (i / half).is_multiple_of(4) { [255; 4] } else { [0, 0, 0, 255] },
        )
        .collect();
    spritebake::output::write_png(
        &dir.join("mask.png"),
        &spritebake::raster::Image { width: half, height: half, rgba: mask },
    )
    .unwrap();
    let green: Vec<u8> = (0..n * n).flat_map(|_| [0, 200, 0, 255]).collect();
    spritebake::output::write_png(
        &dir.join("green.png"),
        &spritebake::raster::Image { width: n, height: n, rgba: green },
    )
    .unwrap();
    std::fs::write(dir.join("quad.mtl"), "newmtl fence\nmap_Kd green.png\nmap_d mask.png\n").unwrap();
    let (image, coverage) = rendered();
    assert!((coverage - 0.4375).abs() <= 0.05, "coverage by the separate mask {coverage:.3}");
    assert!(image.rgba.chunks_exact(4).filter(|p| p[3] > 0).all(|p| p[1] > 150 && p[0] < 40), "green only");
    // A mask that is missing is said, and the material keeps its texture.
    std::fs::write(dir.join("quad.mtl"), "newmtl fence\nmap_Kd green.png\nmap_d gone.png\n").unwrap();
    let model = load(&dir.join("quad.obj"), &LoadOptions::default());
    assert!(model.warnings.iter().any(|w| w.contains("alpha image 'gone.png'")), "{:?}", model.warnings);
    std::fs::remove_dir_all(dir).unwrap();
}

/// Writes `halves.png` (two texels side by side, `left` and `right`) and `quad.obj`, a unit
/// quad mapped over it with material `paint` from `quad.mtl`, followed by `extra` lines.
fn halves_quad(dir: &std::path::Path, left: [u8; 4], right: [u8; 4], extra: &str) {
    let rgba = [left, right].concat();
    spritebake::output::write_png(&dir.join("halves.png"), &spritebake::raster::Image { width: 2, height: 1, rgba })
        .unwrap();
    let obj = format!(
        "mtllib quad.mtl\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\n\
         usemtl paint\nf 1/1 2/2 3/3 4/4\n{extra}"
    );
    std::fs::write(dir.join("quad.obj"), obj).unwrap();
}

#[test]
fn an_obj_polyline_leaves_its_groups_texture_coordinates_alone() {
    let dir = scratch_in("textures", "polyline");
    // Left half red, right half blue: drawn with its UVs, the quad shows both; without them,
    // one colour all over.
    halves_quad(&dir, [255, 0, 0, 255], [0, 0, 255, 255], "l 1 3\np 2\n");
    std::fs::write(dir.join("quad.mtl"), "newmtl paint\nKd 1 1 1\nmap_Kd halves.png\n").unwrap();
    let model = load(&dir.join("quad.obj"), &LoadOptions::default());
    let skipped = "1 line (`l`) and 1 point (`p`) elements skipped";
    assert!(model.warnings.iter().any(|w| w.contains(skipped)), "{:?}", model.warnings);
    let image = crate::common::render_model_unlit(&model, 32);
    let drawn: Vec<&[u8]> = image.rgba.chunks_exact(4).filter(|p| p[3] == 255).collect();
    let red = drawn.iter().filter(|p| p[0] > 200 && p[2] < 50).count();
    let blue = drawn.iter().filter(|p| p[2] > 200 && p[0] < 50).count();
    assert!(red > 100 && blue > 100 && red + blue == drawn.len(), "{red} red, {blue} blue of {}", drawn.len());
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn an_opaque_material_shows_the_stored_colour_where_its_texture_is_transparent() {
    let dir = scratch_in("textures", "opaque-alpha");
    // Left texel red with alpha 0, right texel blue and opaque.
    halves_quad(&dir, [255, 0, 0, 0], [0, 0, 255, 255], "");
    // Each drawn pixel's colour: (red, blue) counts, and how many are transparent.
    let render = |mtl: &str| {
        std::fs::write(dir.join("quad.mtl"), mtl).unwrap();
        let model = load(&dir.join("quad.obj"), &LoadOptions::default());
        let image = crate::common::render_model_unlit(&model, 32);
        let pixels: Vec<&[u8]> = image.rgba.chunks_exact(4).collect();
        let count = |f: &dyn Fn(&[u8]) -> bool| pixels.iter().filter(|p| f(p)).count();
        let red = count(&|p| p[3] == 255 && p[0] > 200 && p[1] < 50 && p[2] < 50);
        let blue = count(&|p| p[3] == 255 && p[2] > 200 && p[0] < 50);
        let black = count(&|p| p[3] == 255 && p[..3].iter().all(|&c| c < 50));
        (red, blue, black)
    };
    // Opaque: the stored red, as Blender and GL show it, not premultiplied black.
    let (red, blue, black) = render("newmtl paint\nKd 1 1 1\nmap_Kd halves.png\n");
    assert!(red > 100 && blue > 100 && black == 0, "{red} red, {blue} blue, {black} black");
    // Blended, the texture's alpha still cuts: no red, and nothing black either.
    let (red, blue, black) = render("newmtl paint\nKd 1 1 1\nd 0.99\nmap_Kd halves.png\n");
    assert!(red == 0 && black == 0, "{red} red, {blue} blue, {black} black");
    std::fs::remove_dir_all(dir).unwrap();
}

/// A 4×4 8-bit paletted BMP: its left half palette entry 0 (red), its right half entry 255
/// (blue, GoldSrc's mask colour).
fn masked_bmp(path: &Path) {
    let (w, h) = (4u32, 4u32);
    let pixels: Vec<u8> = (0..h).flat_map(|_| (0..w).map(|x| if x < 2 { 0u8 } else { 255 })).collect();
    let offset = 14 + 40 + 256 * 4;
    let mut bmp = Vec::new();
    bmp.extend_from_slice(b"BM");
    bmp.extend_from_slice(&((offset + pixels.len()) as u32).to_le_bytes());
    bmp.extend_from_slice(&[0; 4]);
    bmp.extend_from_slice(&(offset as u32).to_le_bytes());
    for v in [40u32, w, h] {
        bmp.extend_from_slice(&v.to_le_bytes());
    }
    bmp.extend_from_slice(&1u16.to_le_bytes());
    bmp.extend_from_slice(&8u16.to_le_bytes());
    for v in [0u32, pixels.len() as u32, 2835, 2835, 256, 0] {
        bmp.extend_from_slice(&v.to_le_bytes());
    }
    for i in 0..256 {
        // B, G, R, 0: entry 0 red, entry 255 blue, the rest grey.
        bmp.extend_from_slice(&match i {
            0 => [0, 0, 255, 0],
            255 => [255, 0, 0, 0],
            _ => [128, 128, 128, 0],
        });
    }
    bmp.extend_from_slice(&pixels);
    std::fs::write(path, bmp).unwrap();
}

/// A one-quad reference SMD whose material is `material`.
fn quad_smd(path: &Path, material: &str) {
    let v = |x: u8, y: u8| format!("0 {x} {y} 0 0 0 1 {x} {y}\n");
    let triangles =
        format!("{material}\n{}{}{}{material}\n{}{}{}", v(0, 0), v(1, 0), v(1, 1), v(0, 0), v(1, 1), v(0, 1));
    let smd = format!(
        "version 1\nnodes\n0 \"root\" -1\nend\nskeleton\ntime 0\n0 0 0 0 0 0 0\nend\ntriangles\n{triangles}end\n"
    );
    std::fs::write(path, smd).unwrap();
}

#[test]
fn goldsrc_masked_textures_draw_their_last_palette_colour_transparent() {
    use spritebake::model::AlphaMode;
    let dir = scratch_in("textures", "masked");
    masked_bmp(&dir.join("grid.bmp"));
    std::fs::copy(dir.join("grid.bmp"), dir.join("{grid.bmp")).unwrap();
    // Alpha of the texture's left and right texels.
    let halves = |model: &Model| {
        let m = &model.materials[0];
        let t = m.texture.as_ref().unwrap();
        (m.alpha_mode, t.rgba[3], t.rgba[4 * 3 + 3], [t.rgba[0], t.rgba[1], t.rgba[2]])
    };
    // By name: a texture named `{...`.
    quad_smd(&dir.join("named.smd"), "{grid.bmp");
    let model = load(&dir.join("named.smd"), &LoadOptions::default());
    assert_eq!(halves(&model), (AlphaMode::Mask(0.5), 255, 0, [255, 0, 0]));
    // By command: `$texrendermode grid.bmp masked`; without it the texture is opaque.
    quad_smd(&dir.join("ref.smd"), "grid.bmp");
    let qc = |extra: &str| {
        std::fs::write(dir.join("m.qc"), format!("$body studio \"ref\"\n{extra}")).unwrap();
        load(&dir.join("m.qc"), &LoadOptions::default())
    };
    assert_eq!(halves(&qc("$texrendermode \"grid.bmp\" masked\n")), (AlphaMode::Mask(0.5), 255, 0, [255, 0, 0]));
    assert_eq!(halves(&qc("")), (AlphaMode::Opaque, 255, 255, [255, 0, 0]));
    // `additive` adds the texture to what is behind it; lighting modes only warn.
    let additive = qc("$texrendermode \"grid.bmp\" additive\n");
    assert_eq!(halves(&additive), (AlphaMode::Additive, 255, 255, [255, 0, 0]));
    assert!(additive.warnings.iter().all(|w| !w.contains("texrendermode")), "{:?}", additive.warnings);
    // `chrome` goes with `masked`; lighting modes only warn.
    let chrome = qc("$texrendermode \"grid.bmp\" masked\n$texrendermode \"grid.bmp\" chrome\n");
    assert!(chrome.materials[0].chrome && chrome.materials[0].palette_mask, "{:?}", chrome.materials[0]);
    let flat = qc("$texrendermode \"grid.bmp\" flatshade\n");
    assert!(flat.warnings.iter().any(|w| w.contains("flatshade: drawn as an ordinary texture")), "{:?}", flat.warnings);
    assert_eq!(
        halves(&qc("$texrendermode grid.bmp masked\n$texrendermode grid.bmp additive\n")).0,
        AlphaMode::Additive
    );
    std::fs::remove_dir_all(dir).unwrap();
}
