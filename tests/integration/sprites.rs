//! Sprite outputs: sheets and their JSON, GIF timing and colours, jitter-free framing, looks.

use std::path::{Path, PathBuf};
use std::process::Command;

use spritebake::MemoryBudget;
use spritebake::anim::{FrameTime, PoseOptions, pose};
use spritebake::bake;
use spritebake::bake::{Directions, Sampling};
use spritebake::bake::{FrameNames, JsonFormat, Layout, Sheet};
use spritebake::golden::Tolerance;
use spritebake::internal::bake::engines::sheet_data_files;
use spritebake::internal::bake::pack;
use spritebake::internal::bake::{Cell, Job, post};
use spritebake::model::Model;
use spritebake::output::gif::{GifOptions, Palette, encode_gif, timing};
use spritebake::raster::{Image, OrbitView, RenderOptions, Renderer, Shading};
use spritebake::spec::{Fit, PixelArtFilter};

use crate::common;
use crate::common::golden::Goldens;

fn asset(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/assets/robot").join(name)
}

fn robot() -> Model {
    let options = spritebake::formats::LoadOptions { animations: vec![asset("walk.md5anim")], ..Default::default() };
    spritebake::formats::load(&asset("robot.md5mesh"), &options).unwrap()
}

fn job(model: &Model, directions: u32, size: u32) -> Job<'_> {
    Job {
        model,
        clips: vec![model.clips.first()],
        transitions: Vec::new(),
        layers: Default::default(),
        directions: Directions::compass(directions),
        view: OrbitView { pitch_degrees: 20.0, ..OrbitView::default() },
        options: RenderOptions { width: size, height: size, ssaa: 2, ..RenderOptions::default() },
        fit: Fit::Shared,
        pixels_per_unit: None,
        ground: spritebake::spec::Ground::Auto,
        auto_size: false,
        sampling: Sampling::ClipFrames,
        looping: Default::default(),
        pose: PoseOptions { looping: true, in_place: true },
        look: Default::default(),
        points: Vec::new(),
    }
}

/// Orthographic side-on views, as many sprite sheets are: at pitch 0 the ground plane is a
/// line, so the lowest pixel of a model standing on it is its ground line.
fn ortho(mut j: Job<'_>) -> Job<'_> {
    j.view.projection = spritebake::raster::Projection::Orthographic;
    j.view.pitch_degrees = 0.0;
    j
}

/// The data files of `sheet` written as `walk.png` in `format`, with its default frame names.
fn data_files(sheet: &Sheet, format: JsonFormat) -> Vec<Vec<u8>> {
    let names = FrameNames::parse(format.default_frame_names()).unwrap();
    let files = sheet_data_files(sheet, Path::new("walk.png"), format, &names, false).unwrap();
    files.into_iter().map(|(_, bytes)| bytes).collect()
}

fn json_of(sheet: &Sheet, format: JsonFormat) -> serde_json::Value {
    serde_json::from_slice(&data_files(sheet, format)[0]).unwrap()
}

fn psnr(a: &Image, b: &Image) -> f64 {
    // Over pixels opaque in the reference, RGB only (alpha is 1-bit in a GIF by design).
    let (mut sum, mut n) = (0.0f64, 0usize);
    for (p, q) in a.rgba.chunks_exact(4).zip(b.rgba.chunks_exact(4)) {
        if q[3] >= 128 {
            for c in 0..3 {
                sum += (p[c] as f64 - q[c] as f64).powi(2);
            }
            n += 3;
        }
    }
    if sum == 0.0 { 99.0 } else { 10.0 * (255.0f64 * 255.0 / (sum / n as f64)).log10() }
}

#[test]
fn sheet_cells_equal_independent_renders_and_json_agrees() {
    let model = robot();
    let job = job(&model, 4, 48);
    let cells = job.render().unwrap();
    assert_eq!(cells.len(), 4 * 16);
    let sheet = pack(
        &cells,
        &job.info(),
        Layout { padding: 2, extrude: 1, trim: false, ..Layout::default() },
        &MemoryBudget::default(),
    )
    .unwrap();
    let (page, sheet) = (&sheet.images[0], &sheet.sheet);
    let json = json_of(sheet, JsonFormat::TexturePacker);
    assert_eq!(json["meta"]["size"]["w"], page.width);
    assert_eq!(json["meta"]["image"], "walk.png");
    let renderer = Renderer::new();
    for (i, cell) in cells.iter().enumerate() {
        // Same clip, frame and direction rendered on its own with the cell's camera.
        let posed = pose(&model, model.clips.first(), FrameTime::Frame(cell.frame as f32), &job.pose);
        let alone = bake::render_posed(&renderer, &model, &posed, cell.camera, &job.options).unwrap();
        assert_eq!(alone, cell.image, "cell {i}");
        // The JSON rectangle shows exactly this image.
        let name = format!("walk_{}_{:03}", ["S", "W", "N", "E"][cell.direction as usize], cell.frame);
        let f = &json["frames"][&name];
        let (x, y, w, h) = (
            f["frame"]["x"].as_u64().unwrap() as u32,
            f["frame"]["y"].as_u64().unwrap() as u32,
            f["frame"]["w"].as_u64().unwrap() as u32,
            f["frame"]["h"].as_u64().unwrap() as u32,
        );
        assert_eq!((w, h), (48, 48));
        assert_eq!(post::crop(page, x, y, w, h), cell.image, "{name}");
        assert_eq!(f["rotated"], false);
        assert!((f["pivot"]["x"].as_f64().unwrap() - (cell.pivot.x / 48.0) as f64).abs() < 1e-6);
        assert_eq!(f["anchor"], f["pivot"]);
        // 1/16 s, in whole milliseconds rounded where each frame ends: 63, 62, 63, ...
        assert_eq!(f["duration"], if cell.frame % 2 == 0 { 63 } else { 62 }, "{name}");
    }
    for (d, name) in ["S", "W", "N", "E"].iter().enumerate() {
        let list = json["animations"][format!("walk_{name}")].as_array().unwrap();
        assert_eq!(list.len(), 16);
        assert_eq!(list[3], format!("walk_{name}_003"));
        assert_eq!(
            json["meta"]["directions"][d],
            serde_json::json!({"index": d, "name": name, "angle": d as f64 * 90.0})
        );
    }
    // Extrusion copies edge pixels into the padding: left of frame 0 repeats its first column.
    let first = &json["frames"]["walk_S_000"]["frame"];
    let (x, y) = (first["x"].as_u64().unwrap() as u32, first["y"].as_u64().unwrap() as u32);
    for row in 0..48 {
        assert_eq!(page.pixel(x - 1, y + row), page.pixel(x, y + row));
    }
    let aseprite = json_of(sheet, JsonFormat::Aseprite);
    assert_eq!(aseprite["meta"]["frameTags"][2]["from"], 32);
    assert_eq!(aseprite["meta"]["frameTags"][2]["to"], 47);
    // Tags index the frames array in order, the frames named by their number (as Phaser looks
    // them up), each the same rectangle as the TexturePacker frame of its tag and place.
    for tag in aseprite["meta"]["frameTags"].as_array().unwrap() {
        let (from, to) = (tag["from"].as_u64().unwrap() as usize, tag["to"].as_u64().unwrap() as usize);
        for (f, i) in (from..=to).enumerate() {
            let frame = &aseprite["frames"][i];
            assert_eq!(frame["filename"], i.to_string());
            let name = format!("{}_{f:03}", tag["name"].as_str().unwrap());
            assert_eq!(frame["frame"], json["frames"][&name]["frame"], "{name}");
            assert_eq!(frame["duration"], json["frames"][&name]["duration"], "{name}");
        }
    }
}

#[test]
fn shared_framing_holds_ground_line_and_height_in_every_cell() {
    // Orthographic, as sprite sheets are: a rigid model turning in 8 directions keeps its ground
    // line and height to a pixel (any change would be the framing's fault); so does the walk.
    let model = robot();
    let mut j = ortho(job(&model, 8, 96));
    j.clips = vec![None];
    j.options.ssaa = 1;
    let lines: Vec<(u32, u32)> = j
        .render()
        .unwrap()
        .iter()
        .map(|c| {
            let (_, y, _, h) = c.image.opaque_bounds().unwrap();
            (y + h, h)
        })
        .collect();
    let spread = |f: fn(&(u32, u32)) -> u32| lines.iter().map(f).max().unwrap() - lines.iter().map(f).min().unwrap();
    assert!(spread(|l| l.0) <= 1 && spread(|l| l.1) <= 1, "ground lines and heights: {lines:?}");
    // The walk keeps one foot on the ground; its height changes over the cycle (the body dips
    // as the legs spread, 3 px here), identically in every direction.
    common::assert_jitter_free(&ortho(job(&model, 8, 96)).render().unwrap(), 8);
    // Per-frame fitting fills every cell, so the model's scale and position jump between
    // cells: its projected ground point moves.
    let mut per = ortho(job(&model, 8, 96));
    per.fit = Fit::PerFrame;
    let xs: Vec<f32> = per.render().unwrap().iter().map(|c| c.pivot.x).collect();
    let spread = xs.iter().cloned().fold(f32::MIN, f32::max) - xs.iter().cloned().fold(f32::MAX, f32::min);
    assert!(spread > 1.0, "per-frame pivots {xs:?}");
}

#[test]
fn gif_decodes_with_the_right_frames_loop_delays_and_colours() {
    let model = robot();
    let mut j = job(&model, 1, 64);
    j.view.yaw_degrees = 30.0;
    let cells: Vec<Cell> = j.render().unwrap();
    let frames: Vec<Image> = cells.iter().map(|c| c.image.clone()).collect();
    let durations: Vec<f32> = cells.iter().map(|c| c.duration).collect();
    let mut sizes = Vec::new();
    for palette in [Palette::Global, Palette::PerFrame] {
        let (bytes, dropped) =
            encode_gif(&frames, &durations, &GifOptions { palette, ..GifOptions::default() }).unwrap();
        assert_eq!(dropped, 0);
        let mut options = gif::DecodeOptions::new();
        options.set_color_output(gif::ColorOutput::RGBA);
        let mut decoder = options.read_info(bytes.as_slice()).unwrap();
        assert_eq!(decoder.repeat(), gif::Repeat::Infinite);
        let (mut count, mut total_cs, mut worst) = (0, 0u32, f64::INFINITY);
        while let Some(frame) = decoder.read_next_frame().unwrap() {
            assert_eq!(frame.dispose, gif::DisposalMethod::Background);
            let decoded = Image::from_rgba(frame.width as u32, frame.height as u32, frame.buffer.to_vec()).unwrap();
            worst = worst.min(psnr(&decoded, &frames[count]));
            // Transparency is kept: fully transparent render pixels stay transparent.
            for (d, r) in decoded.rgba.chunks_exact(4).zip(frames[count].rgba.chunks_exact(4)) {
                assert_eq!(d[3] == 0, r[3] < 128);
            }
            total_cs += frame.delay as u32;
            count += 1;
        }
        assert_eq!(count, 16);
        // The clip lasts 1 s: delays sum to 100 cs within one centisecond.
        assert!(total_cs.abs_diff(100) <= 1, "{total_cs}");
        eprintln!("GIF {palette:?}: worst frame PSNR {worst:.1} dB, {} bytes", bytes.len());
        sizes.push((worst, bytes.len()));
    }
    // The default global palette is the better of the two on both counts (see output/gif.rs).
    assert!(sizes[0].0 > 30.0, "global palette PSNR {:.1} dB", sizes[0].0);
    assert!(sizes[0].0 > sizes[1].0 && sizes[0].1 < sizes[1].1, "{sizes:?}");
    assert_eq!(timing(&[1.0 / 24.0; 3]).delays, vec![4, 4, 5]);
    // Dithering trades per-pixel error for smoother gradients: report it, keep it usable.
    let (bytes, _) = encode_gif(&frames, &durations, &GifOptions { dither: true, ..GifOptions::default() }).unwrap();
    let mut options = gif::DecodeOptions::new();
    options.set_color_output(gif::ColorOutput::RGBA);
    let mut decoder = options.read_info(bytes.as_slice()).unwrap();
    let (mut i, mut worst) = (0, f64::INFINITY);
    while let Some(frame) = decoder.read_next_frame().unwrap() {
        let decoded = Image::from_rgba(frame.width as u32, frame.height as u32, frame.buffer.to_vec()).unwrap();
        worst = worst.min(psnr(&decoded, &frames[i]));
        i += 1;
    }
    eprintln!("GIF Global + dither: worst frame PSNR {worst:.1} dB, {} bytes", bytes.len());
    assert!(i == 16 && worst > 25.0, "dithered GIF: {i} frames, {worst:.1} dB");
}

#[test]
fn toon_outline_and_pixel_art_goldens() {
    let model = robot();
    let view = OrbitView { yaw_degrees: 35.0, pitch_degrees: 20.0, ..OrbitView::default() };
    let request = bake::FrameRequest::clip(model.clips.first(), FrameTime::Frame(3.0), PoseOptions::default());
    let base = RenderOptions { width: 64, height: 96, ssaa: 4, ..RenderOptions::default() };
    let renderer = Renderer::new();
    let tolerance = Tolerance { channel: 1, max_pixels: 8 };
    let mut goldens = Goldens::new();
    let toon = bake::render_frame(
        &renderer,
        &model,
        &request,
        &view,
        &RenderOptions { shading: Shading::Toon { bands: 3 }, ..base.clone() },
    )
    .unwrap();
    goldens.check("toon-3-bands", &toon, tolerance);
    let plain = bake::render_frame(&renderer, &model, &request, &view, &base).unwrap();
    let outlined = post::outline(&plain, 2, [20, 10, 40], true);
    goldens.check("outline-2px", &outlined, tolerance);
    // Outline width: every opaque new pixel lies within 2 px of the silhouette, every partial
    // one (the anti-aliased outer edge) within 3 px, and every transparent pixel within 1.5 px
    // of it became outline.
    let solid: Vec<(i64, i64)> = (0..96)
        .flat_map(|y| (0..64).map(move |x| (x, y)))
        .filter(|&(x, y)| plain.pixel(x as u32, y as u32).unwrap()[3] >= 128)
        .collect();
    let near =
        |x: i64, y: i64, r: f64| solid.iter().any(|&(sx, sy)| (((sx - x).pow(2) + (sy - y).pow(2)) as f64) <= r * r);
    for y in 0..96i64 {
        for x in 0..64i64 {
            let (before, after) =
                (plain.pixel(x as u32, y as u32).unwrap(), outlined.pixel(x as u32, y as u32).unwrap());
            if before[3] == 0 && after[3] > 0 {
                let reach = if after[3] == 255 { 2.0 } else { 3.0 };
                assert!(near(x, y, reach), "outline pixel ({x},{y}) too far");
            }
            if before[3] == 0 && near(x, y, 1.5) {
                assert_eq!(after[3], 255, "pixel ({x},{y}) next to the silhouette is not outlined");
            }
        }
    }
    let big = bake::render_frame(
        &renderer,
        &model,
        &request,
        &view,
        &RenderOptions { width: 128, height: 192, ssaa: 1, ..base.clone() },
    )
    .unwrap();
    // One palette (k-means, spritebake::internal::bake::palette) for the image: 16 colours at most. By
    // area (the default) and by mode (the golden the mode filter has always made).
    for (filter, name) in
        [(PixelArtFilter::Area, "pixel-art-4x-16-colours"), (PixelArtFilter::Mode, "pixel-art-4x-16-colours-mode")]
    {
        let mut pixel_art = spritebake::internal::bake::pixel_art::pixelate(&big, 4, filter);
        let look = spritebake::internal::spec::Look { pixel_art: Some(4), palette: Some(16), ..Default::default() };
        spritebake::internal::bake::palette::apply(&look, None, &mut [&mut pixel_art]);
        assert_eq!((pixel_art.width, pixel_art.height), (32, 48));
        assert!(pixel_art.rgba.chunks_exact(4).all(|p| p[3] == 0 || p[3] == 255), "{name} has soft edges");
        goldens.check(name, &pixel_art, tolerance);
    }
    goldens.finish();
}

fn spritebake(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_spritebake")).args(args).output().unwrap()
}

#[test]
fn cli_sheet_gif_and_frames_write_their_files() {
    let dir = std::env::temp_dir().join(format!("spritebake-sprites-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (mesh, anim) = (asset("robot.md5mesh"), asset("walk.md5anim"));
    let (mesh, anim) = (mesh.to_str().unwrap(), anim.to_str().unwrap());
    let sheet = dir.join("walk.png");
    let o = spritebake(&[
        "sheet",
        mesh,
        "--anim",
        anim,
        "--directions",
        "8",
        "--view",
        "iso",
        "--size",
        "32",
        "--trim",
        "-o",
        sheet.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(dir.join("walk.json")).unwrap()).unwrap();
    assert_eq!(json["frames"].as_object().unwrap().len(), 128);
    assert_eq!(json["frames"]["walk_SE_015"]["trimmed"], true);
    let gif = dir.join("walk.gif");
    let o =
        spritebake(&["gif", mesh, "--anim", anim, "--size", "32", "--sample-fps", "100", "-o", gif.to_str().unwrap()]);
    assert!(
        o.status.success() && String::from_utf8_lossy(&o.stderr).contains("dropped"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let pattern = dir.join("f/{clip}_{dirname}_{frame:03}.png");
    let o = spritebake(&[
        "frames",
        mesh,
        "--anim",
        anim,
        "--size",
        "16",
        "--frames",
        "4",
        "--directions",
        "2",
        "-o",
        pattern.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(dir.join("f/walk_N_003.png").exists() && !dir.join("f/walk_N_004.png").exists());
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn thumbnails_of_the_corpus_are_centred_and_unclipped_and_failures_stay_local() {
    let Some(corpus) = common::corpus("") else { return };
    let dir = std::env::temp_dir().join(format!("spritebake-thumbs-{}", std::process::id()));
    let models = [
        "md2/sydney/sydney.md2",
        "md2/ogro/ogro.md2",
        "md2/faerie/faerie.md2",
        "md2/edge/phoenix_ugv/phoenix_ugv.md2",
        "md5/bob_lamp/boblampclean.md5mesh",
        "md5/boarman/BoarMan.md5mesh",
        "md5/snoutx10k/snoutx10k.md5mesh",
        "md5/simplecube/SimpleCube.md5mesh",
        "smd/headcrab/reference.smd",
        "smd/wuson/WusonSMD.smd",
        "smd/holygrail/holy_grailref.smd",
        "smd/combine_soldier_lod4/combine_soldier_Soldier_reference_lod4.smd",
        "obj/spider/spider.obj",
        "obj/cornell_box/cornell_box.obj",
        "obj/kuka_segment/segment.obj",
        "obj/regr01_house/regr01.obj",
        "gltf/cesiumman/CesiumMan.glb",
        "gltf/fox/Fox.glb",
        "gltf/riggedsimple_blender/RiggedSimple.glb",
        "gltf/simpleskin/SimpleSkin.gltf",
    ];
    let mut args: Vec<String> =
        vec!["thumbnail".into(), "--size".into(), "64".into(), "-o".into(), dir.display().to_string()];
    args.extend(models.iter().map(|m| corpus.join(m).display().to_string()));
    args.push(corpus.join("md2/edge/utf8_mangled_ogro_weapon.md2").display().to_string());
    let o = Command::new(env!("CARGO_BIN_EXE_spritebake")).args(&args).output().unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("FAIL") && stdout.contains("utf8_mangled") && stdout.contains("20 thumbnails, 1 failed"),
        "{stdout}"
    );
    for m in models {
        let stem = Path::new(m).file_stem().unwrap().to_string_lossy();
        let img = spritebake::output::read_png(&dir.join(format!("{stem}.png"))).unwrap();
        let (x, y, w, h) = img.opaque_bounds().unwrap_or_else(|| panic!("{m}: empty thumbnail"));
        assert!(x > 0 && y > 0 && x + w < 64 && y + h < 64, "{m}: touches the border ({x},{y},{w},{h})");
        let (cx, cy) = (x as f32 + w as f32 / 2.0, y as f32 + h as f32 / 2.0);
        assert!((cx - 32.0).abs() < 6.0 && (cy - 32.0).abs() < 6.0, "{m}: off centre ({cx},{cy})");
    }
    assert!(std::fs::read_dir(&dir).unwrap().flatten().all(|e| !e.file_name().to_string_lossy().ends_with(".tmp")));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn skeleton_overlay_marks_every_joint() {
    let model = robot();
    let mut j = job(&model, 1, 96);
    j.look.skeleton = true;
    j.clips = vec![model.clips.first()];
    let cells = j.render().unwrap();
    let cell = &cells[5];
    let request = bake::FrameRequest::clip(model.clips.first(), FrameTime::Frame(5.0), j.pose);
    let joints = spritebake::internal::bake::joint_pixels(&model, &request, &cell.camera, 96, 96);
    assert_eq!(joints.len(), 11);
    for (p, _) in &joints {
        let px = cell.image.pixel(p.x as u32, p.y as u32).unwrap();
        assert!(px[0] > 180 && px[1] < 120 && px[3] == 255, "joint at {p} shows {px:?}");
    }
}

#[test]
fn sheet_and_gif_bytes_do_not_depend_on_the_thread_count() {
    let model = robot();
    let mut j = job(&model, 2, 32);
    j.sampling = Sampling::Count(6);
    let bake_all = |threads: usize| {
        rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap().install(|| {
            let cells = j.render().unwrap();
            let layout = Layout { padding: 1, extrude: 1, trim: true, ..Layout::default() };
            let sheet = pack(&cells, &j.info(), layout, &MemoryBudget::default()).unwrap();
            let frames: Vec<Image> = cells.iter().map(|c| c.image.clone()).collect();
            let durations: Vec<f32> = cells.iter().map(|c| c.duration).collect();
            let (gif, _) = encode_gif(&frames, &durations, &GifOptions::default()).unwrap();
            let data: Vec<Vec<Vec<u8>>> = JsonFormat::ALL.iter().map(|f| data_files(&sheet.sheet, *f)).collect();
            (spritebake::output::encode_png(&sheet.images[0]).unwrap(), data, gif)
        })
    };
    let one = bake_all(1);
    let two = bake_all(2);
    assert!(one.0 == two.0, "sheet PNG differs between 1 and 2 threads");
    assert!(one.1 == two.1, "sheet engine data differs between 1 and 2 threads");
    assert!(one.2 == two.2, "GIF differs between 1 and 2 threads");
}

#[test]
fn an_unwritable_output_fails_only_its_thumbnail() {
    let dir = std::env::temp_dir().join(format!("spritebake-thumb-unwritable-{}", std::process::id()));
    // `tower.png` is a non-empty folder: the tower's thumbnail cannot be renamed into place.
    std::fs::create_dir_all(dir.join("tower.png/keep")).unwrap();
    let tower = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/assets/tower.obj");
    let robot = asset("robot.md5mesh");
    let o = spritebake(&[
        "thumbnail",
        "--size",
        "32",
        "-o",
        dir.to_str().unwrap(),
        tower.to_str().unwrap(),
        robot.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("FAIL") && stdout.contains("tower.obj"), "{stdout}");
    assert!(stdout.contains("1 thumbnails, 1 failed"), "{stdout}");
    let img = spritebake::output::read_png(&dir.join("robot.png")).unwrap();
    assert!(img.covered_pixels() > 0);
    assert!(std::fs::read_dir(&dir).unwrap().flatten().all(|e| !e.file_name().to_string_lossy().ends_with(".tmp")));
    std::fs::remove_dir_all(dir).unwrap();
}
