//! Quake 1 MDL: a hand-built file (skin group, on-seam vertex, frame group), hostile headers,
//! truncation, Half-Life's `IDST` refused by name, the corpus model and assimp's view of it.

use glam::{Vec2, Vec3};
use spritebake::anim::{FrameTime, PoseOptions, pose};
use spritebake::formats::LoadOptions;
use spritebake::internal::formats::mdl;
use spritebake::model::{Model, TextureStatus};

use crate::common::{self, assimp};

fn i32s(out: &mut Vec<u8>, values: &[i32]) {
    values.iter().for_each(|v| out.extend_from_slice(&v.to_le_bytes()));
}

fn f32s(out: &mut Vec<u8>, values: &[f32]) {
    values.iter().for_each(|v| out.extend_from_slice(&v.to_le_bytes()));
}

/// The palette indices of [`tiny`]'s first skin (4×2 texels), one of each palette band.
const SKIN: [u8; 8] = [254, 251, 0, 15, 79, 111, 144, 200];

/// Byte offsets of [`tiny`]'s sections.
const SKINS: usize = 84;
/// A group of two 4×2 skins with their intervals, then a single skin.
const TEXCOORDS: usize = SKINS + 8 + 2 * 4 + 2 * 8 + 4 + 8;
const TRIANGLES: usize = TEXCOORDS + 3 * 12;
const FRAMES: usize = TRIANGLES + 2 * 16;

/// A 3-vertex, 2-triangle Quake 1 MDL written byte by byte: scale 0.5, translate (10,20,30);
/// skins: a group of two (the first [`SKIN`], the second all index 1) and a single skin of
/// index 2; vertex 1 on the seam, used by a front-facing and a back-facing triangle; frames: a
/// simple `stand1`, then a group of `run1` and `run2`.
fn tiny() -> Vec<u8> {
    let mut b = b"IDPO".to_vec();
    i32s(&mut b, &[6]);
    f32s(&mut b, &[0.5, 0.5, 0.5, 10.0, 20.0, 30.0, 1.0, 0.0, 0.0, 0.0]);
    i32s(&mut b, &[2, 4, 2, 3, 2, 2, 0, 0]);
    f32s(&mut b, &[1.0]);
    assert_eq!(b.len(), SKINS);
    i32s(&mut b, &[1, 2]);
    f32s(&mut b, &[0.1, 0.2]);
    b.extend_from_slice(&SKIN);
    b.extend_from_slice(&[1; 8]);
    i32s(&mut b, &[0]);
    b.extend_from_slice(&[2; 8]);
    assert_eq!(b.len(), TEXCOORDS);
    i32s(&mut b, &[0, 0, 0, 0x20, 1, 0, 0, 0, 1]);
    i32s(&mut b, &[1, 0, 1, 2, 0, 0, 2, 1]);
    assert_eq!(b.len(), FRAMES);
    let frame = |b: &mut Vec<u8>, name: &str, verts: [[u8; 3]; 3]| {
        b.extend_from_slice(&[0, 0, 0, 0, 255, 255, 255, 0]);
        let mut n = name.as_bytes().to_vec();
        n.resize(16, 0);
        b.extend_from_slice(&n);
        for v in verts {
            b.extend_from_slice(&[v[0], v[1], v[2], 5]); // normal 5 is (0, 0, 1)
        }
    };
    i32s(&mut b, &[0]);
    frame(&mut b, "stand1", [[0, 0, 0], [2, 0, 0], [0, 4, 0]]);
    i32s(&mut b, &[1, 2]);
    b.extend_from_slice(&[0, 0, 0, 0, 255, 255, 255, 0]);
    f32s(&mut b, &[0.1, 0.2]);
    frame(&mut b, "run1", [[2, 2, 2], [4, 2, 2], [2, 6, 2]]);
    frame(&mut b, "run2", [[4, 4, 4], [6, 4, 4], [4, 8, 4]]);
    b
}

fn palette(index: u8) -> [u8; 4] {
    let p = include_bytes!("../../src/formats/quake_palette.lmp");
    let i = 3 * index as usize;
    [p[i], p[i + 1], p[i + 2], 255]
}

fn positions_at(model: &Model, clip: &str, frame: f32) -> Vec<Vec3> {
    let clip = model.clip(clip).unwrap();
    pose(model, Some(clip), FrameTime::Frame(frame), &PoseOptions::default()).parts[0].positions.to_vec()
}

#[test]
fn hand_built_file_decodes_skin_seam_and_frame_groups() {
    let model = mdl::parse(&tiny()).unwrap();
    let mesh = &model.meshes[0];
    // Vertex 1 on the seam in a back-facing triangle becomes render vertex 3, shifted by half
    // the skin: s = 1 + 4/2. Texel centres: (s + 0.5) / 4, (t + 0.5) / 2.
    assert_eq!(mesh.indices, vec![[0, 2, 1], [0, 3, 2]]);
    let uvs = [(0.125, 0.25), (0.375, 0.25), (0.125, 0.75), (0.875, 0.25)].map(|(u, v)| Vec2::new(u, v));
    assert_eq!(mesh.uvs, uvs);
    // The skin group's first skin, through the Quake palette, opaque.
    let material = &model.materials[0];
    assert_eq!(material.texture_status, TextureStatus::Embedded("skin 0".into()));
    let texture = material.texture.as_ref().unwrap();
    assert_eq!((texture.width, texture.height), (4, 2));
    let want: Vec<u8> = SKIN.iter().flat_map(|&i| palette(i)).collect();
    assert_eq!(texture.rgba, want);
    assert_eq!(palette(254), [255, 255, 255, 255]);
    // A frame group's frames are frames: clips `stand` (1) and `run` (2) at Quake's 10 fps.
    let clips: Vec<(&str, usize, f32)> =
        model.clips.iter().map(|c| (c.name.as_str(), c.frame_count(), c.fps)).collect();
    assert_eq!(clips, [("stand", 1, 10.0), ("run", 2, 10.0)]);
    // Vertex = byte · 0.5 + (10, 20, 30).
    let base = Vec3::new(10.0, 20.0, 30.0);
    assert_eq!(positions_at(&model, "stand", 0.0), [base, base + Vec3::X, base + Vec3::Y * 2.0, base + Vec3::X]);
    assert_eq!(positions_at(&model, "run", 1.0)[0], base + Vec3::splat(2.0));
    assert_eq!(mesh.normals[0], Vec3::Z);
}

/// [`tiny`] written to a scratch file and loaded with `--skin` (`None`: without it).
fn load_tiny(skin: Option<&str>) -> spritebake::Result<Model> {
    let dir = crate::common::cli::scratch_in("formats_mdl", &format!("skin-{}", skin.unwrap_or("none")));
    std::fs::write(dir.join("tiny.mdl"), tiny()).unwrap();
    let options = LoadOptions { skin: skin.map(String::from), ..LoadOptions::default() };
    let loaded = spritebake::formats::load(&dir.join("tiny.mdl"), &options);
    std::fs::remove_dir_all(dir).unwrap();
    loaded
}

/// The RGBA texels of the skin `model`'s mesh shows at `seconds` of its `run` clip.
fn skin_at(model: &Model, seconds: f32) -> Vec<u8> {
    let clip = model.clip("run");
    let posed = pose(model, clip, FrameTime::Seconds(seconds), &PoseOptions::default());
    posed.parts[0].material.texture.as_ref().unwrap().rgba.clone()
}

#[test]
fn skins_are_chosen_by_number_and_a_group_plays_its_intervals() {
    let first: Vec<u8> = SKIN.iter().flat_map(|&i| palette(i)).collect();
    let (second, single) = (palette(1).repeat(8), palette(2).repeat(8));
    // Skin 1 is the single skin, all index 2: that is what renders.
    let model = load_tiny(Some("1")).unwrap();
    assert_eq!(skin_at(&model, 0.0), single);
    assert!(model.material_cycles.is_empty());
    let drawn = from_above(&model, crate::common::unlit(32, 32));
    assert!(drawn.len() > 50 && drawn.iter().all(|p| near(p, palette(2))), "not skin 1's colour: {drawn:?}");
    // Skin 0, the default, is the group: its first image until 0.1 s, its second until 0.2 s,
    // then again, at whatever frame the clip shows.
    let model = load_tiny(None).unwrap();
    assert_eq!(model.material_cycles.len(), 1);
    let shown: Vec<Vec<u8>> = [0.0, 0.05, 0.1, 0.15, 0.2, 0.35].map(|s| skin_at(&model, s)).into();
    assert_eq!(shown, [&first, &first, &second, &second, &first, &second].map(|s| s.clone()));
    assert_eq!(load_tiny(Some("0")).unwrap().material_cycles, model.material_cycles);
    // A render of frame 1.5 of `run` (10 fps: 0.15 s) shows the second image.
    let request =
        spritebake::bake::FrameRequest::clip(model.clip("run"), FrameTime::Frame(1.5), PoseOptions::default());
    assert_eq!(request.pose(&model).parts[0].material.texture.as_ref().unwrap().rgba, second);
    // A skin past the last says how many there are.
    let e = load_tiny(Some("2")).unwrap_err().to_string();
    assert!(e.contains("`skin` = 2") && e.contains("which has 2 skins: 0 to 1"), "{e}");
    let e = load_tiny(Some("red")).unwrap_err().to_string();
    assert!(e.contains("a skin number for a Quake 1 model"), "{e}");
}

/// Whether a pixel shows palette colour `c` (the sRGB round trip may move a level or two).
fn near(p: &[u8], c: [u8; 4]) -> bool {
    (0..3).all(|k| p[k].abs_diff(c[k]) <= 2)
}

/// The covered pixels of `model` (it lies flat) seen from above at its rest pose, rendered
/// with `options`, nearest-filtered.
fn from_above(model: &Model, options: spritebake::raster::RenderOptions) -> Vec<[u8; 4]> {
    let view = spritebake::raster::OrbitView { pitch_degrees: 89.0, ..Default::default() };
    let options = spritebake::raster::RenderOptions { filter: spritebake::raster::Filter::Nearest, ..options };
    let request = spritebake::bake::FrameRequest::clip(None, FrameTime::Frame(0.0), PoseOptions::default());
    let renderer = spritebake::raster::Renderer::new();
    let image = spritebake::bake::render_frame(&renderer, model, &request, &view, &options).unwrap();
    image.rgba.chunks_exact(4).filter(|p| p[3] == 255).map(|p| [p[0], p[1], p[2], p[3]]).collect()
}

#[test]
fn fullbright_texels_keep_their_colour_in_the_dark() {
    // Seen from above, the group's first image shows palette entries 254 and 251 (fullbright)
    // and 79 (dark red, not fullbright).
    let model = load_tiny(None).unwrap();
    let fullbright = [palette(254), palette(251)];
    let shows = |pixels: &[[u8; 4]], colour: [u8; 4]| pixels.iter().any(|p| near(p, colour));
    let unlit = from_above(&model, crate::common::unlit(32, 32));
    assert!(fullbright.iter().all(|&c| shows(&unlit, c)) && shows(&unlit, palette(79)), "the skin's colours");
    // No light at all: the fullbright texels keep their palette colour, the others go black.
    let pixels = from_above(&model, lambert(0.0, Vec::new()));
    assert!(fullbright.iter().all(|&c| shows(&pixels, c)), "a fullbright colour is missing");
    let black = pixels.iter().filter(|p| p[..3] == [0, 0, 0]).count();
    assert!(black > 20, "{black} black pixels");
    assert!(pixels.iter().all(|p| p[..3] == [0, 0, 0] || fullbright.iter().any(|&c| near(p, c))), "{pixels:?}");
    // Under twice the full light they are their palette colour all the same; the others are
    // brighter than theirs. (This flat model's normals face away from the view: its light
    // comes from behind.)
    let light = spritebake::raster::Light { direction: Vec3::new(0.0, 0.0, -1.0), intensity: 1.0 };
    let pixels = from_above(&model, lambert(1.0, vec![light]));
    assert!(fullbright.iter().all(|&c| shows(&pixels, c)), "a fullbright colour is missing in full light");
    let brighter = pixels.iter().any(|p| (150..240).contains(&p[0]) && p[1..3] == [0, 0]);
    assert!(!shows(&pixels, palette(79)) && brighter, "{pixels:?}");
}

/// Lambert shading with ambient light `ambient` and `lights`.
fn lambert(ambient: f32, lights: Vec<spritebake::raster::Light>) -> spritebake::raster::RenderOptions {
    let shading = spritebake::raster::Shading::Lambert;
    spritebake::raster::RenderOptions { shading, ambient, lights, ..crate::common::unlit(32, 32) }
}

#[test]
fn a_skin_group_interval_not_above_zero_is_refused_as_quake_refuses_it() {
    for bad in [0.0f32, -0.1] {
        let mut b = tiny();
        b[SKINS + 12..SKINS + 16].copy_from_slice(&bad.to_le_bytes());
        let e = mdl::parse(&b).unwrap_err().to_string();
        let offset = format!("MDL byte offset {}:", SKINS + 12);
        assert!(e.contains(&offset) && e.contains("image 1 ends at") && e.contains("above 0"), "{e}");
    }
}

#[test]
fn every_truncation_is_an_error() {
    let bytes = tiny();
    for end in 0..bytes.len() {
        assert!(mdl::parse(&bytes[..end]).is_err(), "prefix of {end} bytes parsed");
    }
}

#[test]
fn hostile_headers_fail_fast_with_the_offset() {
    let patch = |at: usize, v: i32| {
        let mut b = tiny();
        b[at..at + 4].copy_from_slice(&v.to_le_bytes());
        mdl::parse(&b).unwrap_err().to_string()
    };
    let expect = |at: usize, v: i32, offset: usize, words: &str| {
        let e = patch(at, v);
        assert!(e.contains(&format!("MDL byte offset {offset}:")) && e.contains(words), "{e}");
    };
    expect(4, 7, 4, "expected version 6");
    expect(48, 300, 48, "skin count");
    expect(52, 1 << 20, 52, "skin width");
    // A plausible skin size the file does not hold is refused at the skin, before decoding.
    expect(52, 4096, SKINS, "run past the end");
    expect(SKINS + 4, 1 << 20, SKINS + 4, "skin group count");
    expect(60, -5, 60, "vertex count");
    expect(64, 3_000_000, 64, "triangle count");
    expect(68, 45_000_000, 68, "frame count");
    expect(TRIANGLES + 8, 9, TRIANGLES + 8, "vertex index 9 out of range");
    expect(FRAMES + 4 + 24 + 12 + 4, 1 << 20, FRAMES + 4 + 24 + 12 + 4, "frame group count");
    expect(FRAMES + 4 + 24 + 12 + 4, 50, FRAMES + 4 + 24 + 12, "run past the end");
}

#[test]
fn a_half_life_studio_model_is_told_apart_by_its_magic() {
    let mut b = b"IDST".to_vec();
    b.extend_from_slice(&10i32.to_le_bytes());
    b.resize(256, 0);
    let e = mdl::parse(&b).unwrap_err().to_string();
    assert!(e.contains("MDL byte offset 0") && e.contains("read by the Half-Life loader"), "{e}");
    // By content, whatever the extension: loading reads it as a Half-Life model.
    let format = spritebake::internal::formats::Format::detect(std::path::Path::new("x.mdl"), &b);
    assert_eq!(format, Some(spritebake::internal::formats::Format::Studio));
}

#[test]
fn the_committed_fuzz_seed_is_the_hand_built_file() {
    common::assert_fixture("mdl/tiny.mdl", &tiny());
}

fn tekmechbot() -> Option<(std::path::PathBuf, Model)> {
    common::corpus_model("mdl/quake1/tekmechbot", "tekmechbot.MDL")
}

#[test]
fn corpus_tekmechbot_loads_its_frames_and_embedded_skin() {
    let Some((_, model)) = tekmechbot() else { return };
    assert_eq!(model.triangle_count(), 1748);
    let clips: Vec<(&str, usize)> = model.clips.iter().map(|c| (c.name.as_str(), c.frame_count())).collect();
    assert_eq!(clips, [("mech", 22)]);
    let texture = model.materials[0].texture.as_ref().unwrap();
    assert_eq!((texture.width, texture.height), (56, 36));
    assert!(matches!(model.materials[0].texture_status, TextureStatus::Embedded(_)));
    assert!(model.warnings.is_empty(), "{:?}", model.warnings);
    // Its one skin is skin 0; there is no skin 1.
    let skin = |n: &str| LoadOptions { skin: Some(n.into()), ..LoadOptions::default() };
    let path = common::corpus("mdl/quake1/tekmechbot").unwrap().join("tekmechbot.MDL");
    assert_eq!(spritebake::formats::load(&path, &skin("0")).unwrap().materials, model.materials);
    let e = spritebake::formats::load(&path, &skin("1")).unwrap_err().to_string();
    assert!(e.contains("which has 1 skin: 0"), "{e}");
    // The walk moves the legs.
    let (a, b) = (positions_at(&model, "mech", 0.0), positions_at(&model, "mech", 10.0));
    let moved = a.iter().zip(&b).map(|(p, q)| p.distance(*q)).fold(0.0, f32::max);
    assert!(moved > 1.0, "largest move {moved}");
}

#[test]
fn corpus_tekmechbot_renders_its_palette_skin() {
    let Some((_, model)) = tekmechbot() else { return };
    let skin = model.materials[0].texture.as_ref().unwrap();
    let colours: Vec<&[u8]> = skin.rgba.chunks_exact(4).collect();
    let image = common::render_model_unlit(&model, 128);
    let opaque: Vec<&[u8]> = image.rgba.chunks_exact(4).filter(|p| p[3] == 255).collect();
    assert!(opaque.len() > 2000, "{} opaque pixels", opaque.len());
    // Unlit and nearest-filtered, every covered pixel is one of the skin's palette colours.
    let near_skin = |p: &&&[u8]| colours.iter().any(|c| (0..3).all(|k| c[k].abs_diff(p[k]) <= 2));
    let from_skin = opaque.iter().filter(near_skin).count();
    assert!(from_skin * 100 >= opaque.len() * 98, "{from_skin} of {} pixels show skin colours", opaque.len());
}

#[test]
fn corpus_tekmechbot_first_frame_agrees_with_assimp() {
    let Some((path, model)) = tekmechbot() else { return };
    assimp::assert_agrees(&path, &positions_at(&model, "mech", 0.0));
}
