//! Quake 3 shader scripts (issue 48, item 2): an MD3 surface drawn as the shader its name
//! declares in the game's `scripts/*.shader` — both sides for `cull disable`, added, blended
//! or multiplied by `blendFunc`, cut out by `alphaFunc` — read only from the folders the
//! confinement allows, a malformed file a warning.

use std::path::{Path, PathBuf};

use glam::Vec3;
use spritebake::formats::{LoadOptions, load};
use spritebake::model::{AlphaMode, Model};
use spritebake::raster::{Image, OrbitView};

use crate::common::cli::{printed, run_in, scratch_in};
use crate::common::render_model_unlit_seen;
use crate::formats_md3::{Md3Surface, md3_file, player_in};

/// The game's shaders, in `scripts/test.shader`: one for each look, for a map object
/// ([`map_object`]) to name, and two for a player's legs and head (the images are
/// [`game`]'s).
const SHADERS: &str = "// map objects\n\
    models/mapobjects/test/plant\n{\n  surfaceparm alphashadow\n  cull disable\n  {\n    map models/mapobjects/test/leaves.tga\n    rgbGen lightingDiffuse\n  }\n}\n\
    models/mapobjects/test/plain { { map models/mapobjects/test/glow.tga } }\n\
    models/mapobjects/test/glow { { map models/mapobjects/test/glow.tga\n blendFunc add } }\n\
    models/mapobjects/test/shade { { map models/mapobjects/test/glow.tga\n blendFunc filter } }\n\
    models/mapobjects/test/gt0 { { map models/mapobjects/test/leaves.tga\n alphaFunc GT0 } }\n\
    models/mapobjects/test/ge128 { { map models/mapobjects/test/leaves.tga\n alphaFunc GE128 } }\n\
    models/mapobjects/test/lt128 { { map models/mapobjects/test/leaves.tga\n alphaFunc LT128 } }\n\
    models/players/test/blue_legs { cull none { clampMap models/players/test/h_head.tga\n blendFunc GL_ONE GL_ONE } }\n\
    models/players/test/h_head { { map models/mapobjects/test/glow.tga\n blendFunc filter } }\n";

/// A game folder: [`SHADERS`], and the images they name in `models/mapobjects/test/`:
/// `leaves.png` (four columns, left to right red, green, blue and white, of alpha 0, 64, 192
/// and 255) and `glow.png` (one texel of (128, 64, 0)). Returns the game's base folder.
fn game(name: &str) -> PathBuf {
    let base = scratch_in("q3shader", name);
    let folder = base.join("models/mapobjects/test");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::create_dir_all(base.join("scripts")).unwrap();
    std::fs::write(base.join("scripts/test.shader"), SHADERS).unwrap();
    let columns = [[255, 0, 0, 0], [0, 255, 0, 64], [0, 0, 255, 192], [255, 255, 255, 255]];
    image::RgbaImage::from_fn(4, 4, |x, _| image::Rgba(columns[x as usize])).save(folder.join("leaves.png")).unwrap();
    image::RgbaImage::from_pixel(1, 1, image::Rgba([128, 64, 0, 255])).save(folder.join("glow.png")).unwrap();
    base
}

/// The map object `models/mapobjects/test/SHADER.md3` of the game at `base`: a 16-unit quad
/// facing the front (+x), its surface naming the shader `models/mapobjects/test/SHADER`.
fn map_object(base: &Path, shader: &str) -> PathBuf {
    // Seen from the front (+x), y runs right and z up; Quake 3 stores triangles clockwise.
    let corners = [[0.0, -8.0, 0.0], [0.0, 8.0, 0.0], [0.0, 8.0, 16.0], [0.0, -8.0, 16.0]].map(Vec3::from);
    let surface = Md3Surface {
        name: "plant",
        shader: &format!("models/mapobjects/test/{shader}"),
        frames: vec![corners.to_vec()],
        uvs: vec![[0.0, 1.0], [1.0, 1.0], [1.0, 0.0], [0.0, 0.0]],
        triangles: vec![[0, 2, 1], [0, 3, 2]],
    };
    let model = base.join(format!("models/mapobjects/test/{shader}.md3"));
    std::fs::write(&model, md3_file(&surface, &[])).unwrap();
    model
}

/// Loads `model`, its reads allowed into `base` (the game's scripts and images) or not.
fn loaded(model: &Path, base: Option<&Path>) -> Model {
    let options =
        LoadOptions { texture_roots: base.into_iter().map(Path::to_path_buf).collect(), ..LoadOptions::default() };
    load(model, &options).unwrap_or_else(|e| panic!("{}: {e}", model.display()))
}

/// `model` rendered 32² unlit with the nearest texels, from eye level at `yaw` degrees (0:
/// its front), over `background` if any.
fn seen(model: &Model, yaw: f32, background: Option<[u8; 4]>) -> Image {
    let view = OrbitView { yaw_degrees: yaw, pitch_degrees: 0.0, ..OrbitView::default() };
    render_model_unlit_seen(model, 32, &view, background)
}

#[test]
fn cull_disable_draws_both_sides_of_an_md3_surface() {
    let base = game("cull");
    let model = map_object(&base, "plant");
    let plant = loaded(&model, Some(&base));
    assert!(plant.materials[0].two_sided);
    let front = seen(&plant, 0.0, None).covered_pixels();
    assert!(front > 200, "{front} pixels from the front");
    // From behind, the whole quad (the render still culls the back faces of other surfaces).
    assert_eq!(seen(&plant, 180.0, None).covered_pixels(), front);
    // The command line the same; without the shader the back is culled.
    let (b, m) = (base.to_str().unwrap(), model.to_str().unwrap());
    let behind = |root: &[&str], name: &str| {
        let out = base.join(name);
        let mut args = vec!["render", m, "-o", out.to_str().unwrap(), "--size", "32", "--yaw", "180"];
        args.extend(root);
        let run = run_in(&base, &args);
        assert!(run.status.success(), "{}", printed(&run));
        spritebake::output::read_png(&out).unwrap().covered_pixels()
    };
    assert!(behind(&["--texture-root", b], "rooted.png") > 200);
    assert_eq!(behind(&[], "unrooted.png"), 0);
    std::fs::remove_dir_all(base).unwrap();
}

#[test]
fn blend_func_add_is_the_additive_path_and_filter_multiplies_what_is_behind() {
    let base = game("blend");
    let glow = loaded(&map_object(&base, "glow"), Some(&base));
    assert_eq!(glow.materials[0].alpha_mode, AlphaMode::Additive);
    // The same image without a blendFunc, made additive by hand: the same render.
    let mut by_hand = loaded(&map_object(&base, "plain"), Some(&base));
    assert_eq!(by_hand.materials[0].alpha_mode, AlphaMode::Opaque);
    by_hand.materials[0].alpha_mode = AlphaMode::Additive;
    let blue = Some([0, 0, 255, 255]);
    let added = seen(&glow, 0.0, blue);
    assert_eq!(added.rgba, seen(&by_hand, 0.0, blue).rgba);
    // Added in linear light: (128, 64, 0) onto blue is (128, 64, 255); drawn opaque it hid it.
    assert_eq!(added.pixel(16, 16), Some([128, 64, 255, 255]));
    by_hand.materials[0].alpha_mode = AlphaMode::Opaque;
    assert_eq!(seen(&by_hand, 0.0, blue).pixel(16, 16), Some([128, 64, 0, 255]));
    // `filter` multiplies: (128, 64, 0) times (255, 128, 255) in linear light is (0.216,
    // 0.051 × 0.216, 0), sRGB (128, 27, 0); over nothing it shows nothing.
    let shade = loaded(&map_object(&base, "shade"), Some(&base));
    assert_eq!(shade.materials[0].alpha_mode, AlphaMode::Multiply);
    assert_eq!(seen(&shade, 0.0, Some([255, 128, 255, 255])).pixel(16, 16), Some([128, 27, 0, 255]));
    assert_eq!(seen(&shade, 0.0, None).covered_pixels(), 0);
    std::fs::remove_dir_all(base).unwrap();
}

#[test]
fn alpha_func_cuts_out_gt0_ge128_and_lt128() {
    let base = game("alpha");
    // The pixels each shader keeps, from the front.
    let kept = |shader: &str| {
        let image = seen(&loaded(&map_object(&base, shader), Some(&base)), 0.0, None);
        image.rgba.chunks_exact(4).map(|p| [p[0], p[1], p[2], p[3]]).collect::<Vec<[u8; 4]>>()
    };
    let all = kept("plant");
    let columns = |image: &[[u8; 4]]| -> [usize; 4] {
        let mut counts = [0; 4];
        for p in image.iter().filter(|p| p[3] > 0) {
            // The columns' colours, shown as stored whatever their alpha.
            let stored = [[255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 255, 255]];
            let near = |c: &[u8; 3]| c.iter().zip(p).all(|(a, b)| a.abs_diff(*b) <= 1);
            let k = stored.iter().position(near).unwrap_or_else(|| panic!("{p:?} is no column's colour"));
            counts[k] += 1;
        }
        counts
    };
    let whole = columns(&all);
    assert!(whole.iter().all(|&n| n > 30), "{whole:?}");
    let [a, b, c, d] = whole;
    // GT0 cuts the alpha-0 column alone, GE128 the columns below half, LT128 those from half.
    assert_eq!(columns(&kept("gt0")), [0, b, c, d]);
    assert_eq!(columns(&kept("ge128")), [0, 0, c, d]);
    assert_eq!(columns(&kept("lt128")), [a, b, 0, 0]);
    std::fs::remove_dir_all(base).unwrap();
}

#[test]
fn a_malformed_shader_file_only_warns_and_the_others_are_still_used() {
    let base = game("malformed");
    let model = map_object(&base, "plant");
    // Read before test.shader (name order): a stray `}` on line 6.
    std::fs::write(base.join("scripts/broken.shader"), "models/x\n{\n  { map a.tga\n  }\n}\n}\n garbage {").unwrap();
    let plant = loaded(&model, Some(&base));
    assert!(plant.materials[0].two_sided);
    assert!(plant.warnings.iter().any(|w| w.contains("broken.shader") && w.contains("line 6")), "{:?}", plant.warnings);
    let (b, m) = (base.to_str().unwrap(), model.to_str().unwrap());
    let run = run_in(&base, &["info", m, "--texture-root", b]);
    let said = printed(&run);
    assert!(
        run.status.success() && said.contains("broken.shader") && said.contains("its shaders are not used"),
        "{said}"
    );
    let out = base.join("plant.png");
    let run = run_in(&base, &["render", m, "--texture-root", b, "--yaw", "180", "-o", out.to_str().unwrap()]);
    assert!(run.status.success() && printed(&run).contains("broken.shader"), "{}", printed(&run));
    assert!(spritebake::output::read_png(&out).unwrap().covered_pixels() > 0);
    // Notes name the file and the line: a look not drawn, in a shader the model uses.
    std::fs::write(
        base.join("scripts/test.shader"),
        SHADERS.replace("rgbGen lightingDiffuse", "rgbGen wave sin 0 1 0 1\n    tcMod scroll 0 1"),
    )
    .unwrap();
    let noted = loaded(&model, Some(&base));
    assert!(
        noted.warnings.iter().any(|w| w.contains("test.shader line 2: shader 'models/mapobjects/test/plant'")
            && w.contains("rgbGen wave (line 8), tcMod (line 9)")),
        "{:?}",
        noted.warnings
    );
    std::fs::remove_dir_all(base).unwrap();
}

#[test]
fn shaders_are_read_only_from_allowed_folders() {
    let base = game("confined");
    let model = map_object(&base, "plant");
    let shader_file = |m: &Model| m.sources.iter().any(|s| s.ends_with("scripts/test.shader"));
    // Above the model's folder without a root: not read, the surface drawn as before.
    let unrooted = loaded(&model, None);
    assert!(!shader_file(&unrooted) && !unrooted.materials[0].two_sided);
    let rooted = loaded(&model, Some(&base));
    assert!(shader_file(&rooted) && rooted.materials[0].two_sided);
    // A root elsewhere does not reach it either; a shader file beside the model does.
    let elsewhere = scratch_in("q3shader", "elsewhere");
    assert!(!loaded(&model, Some(&elsewhere)).materials[0].two_sided);
    std::fs::copy(base.join("scripts/test.shader"), model.with_file_name("plant.shader")).unwrap();
    assert!(loaded(&model, None).materials[0].two_sided);
    // A Quake 3 player's skin names shaders too, and so do its parts. The legs' shader maps
    // an image named like the head's shader, whose looks it does not take.
    let player = base.join("models/players/test");
    std::fs::create_dir_all(&player).unwrap();
    player_in(&player);
    let joined = loaded(&player.join("animation.cfg"), Some(&base));
    let legs = &joined.materials[0];
    assert!(legs.two_sided && legs.alpha_mode == AlphaMode::Additive && !legs.wrap, "{legs:?}");
    assert_eq!(legs.texture_name.as_deref(), Some("models/players/test/h_head.tga"));
    assert_eq!(joined.materials[2].alpha_mode, AlphaMode::Multiply);
    assert!(!loaded(&player.join("animation.cfg"), None).materials[0].two_sided);
    std::fs::remove_dir_all(base).unwrap();
    std::fs::remove_dir_all(elsewhere).unwrap();
}

#[test]
fn shader_files_are_charged_to_the_budget_and_garbage_is_no_shader() {
    use spritebake::formats::Limits;
    let base = game("budget");
    let model = map_object(&base, "plant");
    // 1.5 MiB of empty shaders beside the model; 2 MiB of budget.
    std::fs::write(model.with_file_name("huge.shader"), "x {}\n".repeat(300_000)).unwrap();
    let limits = Limits { max_memory_bytes: 2 << 20, ..Limits::default() };
    let options = LoadOptions { limits, texture_roots: vec![base.clone()], ..LoadOptions::default() };
    let e = load(&model, &options).unwrap_err();
    assert!(matches!(e, spritebake::Error::Budget { .. }) && e.to_string().contains("huge.shader"), "{e}");
    // Bytes of every value, cut anywhere: a warning at most, and the game's shader still used.
    let garbage: Vec<u8> = (0..=255u8).cycle().take(4096).collect();
    for cut in [0, 1, 123, 124, 125, 2000, 4096] {
        std::fs::write(model.with_file_name("huge.shader"), &garbage[..cut]).unwrap();
        assert!(loaded(&model, Some(&base)).materials[0].two_sided, "cut at {cut}");
    }
    std::fs::remove_dir_all(base).unwrap();
}
