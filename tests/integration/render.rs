//! Rasterizer properties: fill rule, determinism, clipping, perspective, depth, filtering, AA.

use glam::{Vec2, Vec3, Vec4};
use spritebake::model::AlphaMode;
use spritebake::raster::{Camera, Filter, Image, Projection, RenderOptions, Shading, ShadingRate};

use crate::common::*;

#[test]
fn square_of_two_triangles_covers_each_sample_once() {
    // Corners sit exactly on sample centres (x.5), so the top-left rule decides every boundary
    // sample: the top and left edges are in, the bottom and right edges out.
    let (a, b) = (10.5, 50.5);
    let quad = TestMesh::new(
        vec![Vec3::new(a, a, 0.0), Vec3::new(b, a, 0.0), Vec3::new(b, b, 0.0), Vec3::new(a, b, 0.0)],
        vec![[0, 1, 2], [0, 2, 3]],
    );
    let counts = coverage(&[&quad], pixel_camera(64.0, 64.0), &unlit(64, 64));
    for y in 0..64 {
        for x in 0..64 {
            let expected = u16::from((10..50).contains(&x) && (10..50).contains(&y));
            assert_eq!(counts[y * 64 + x], expected, "sample ({x}, {y})");
        }
    }
}

#[test]
fn fan_of_sixteen_triangles_covers_interior_once() {
    let centre = Vec3::new(32.3, 31.7, 0.0);
    let mut positions = vec![centre];
    for i in 0..16 {
        let t = i as f32 / 16.0 * std::f32::consts::TAU;
        positions.push(centre + Vec3::new(t.cos(), t.sin(), 0.0) * 25.0);
    }
    let indices = (0..16).map(|i| [0, 1 + i, 1 + (i + 1) % 16]).collect();
    let fan = TestMesh::new(positions.clone(), indices);
    let counts = coverage(&[&fan], pixel_camera(64.0, 64.0), &unlit(64, 64));
    // Signed distance of a sample centre to the polygon's outline (positive inside).
    let inside_by = |p: Vec2| {
        (0..16)
            .map(|i| {
                let (a, b) = (positions[1 + i].truncate(), positions[1 + (i + 1) % 16].truncate());
                let e = b - a;
                e.perp_dot(p - a) / e.length()
            })
            .fold(f32::INFINITY, f32::min)
    };
    let mut interior = 0;
    for y in 0..64 {
        for x in 0..64 {
            let c = counts[y * 64 + x];
            assert!(c <= 1, "sample ({x}, {y}) covered {c} times");
            let d = inside_by(Vec2::new(x as f32 + 0.5, y as f32 + 0.5));
            if d > 1e-3 {
                assert_eq!(c, 1, "interior sample ({x}, {y}) not covered");
                interior += 1;
            } else if d < -1e-3 {
                assert_eq!(c, 0, "exterior sample ({x}, {y}) covered");
            }
        }
    }
    assert!(interior > 1800, "{interior}");
}

fn lit_sphere_scene_image(ssaa: u32) -> Image {
    let sphere = uv_sphere(24, 48, textured(checker_texture(8, 4)));
    let camera = Camera::fit(
        &spritebake::raster::OrbitView { yaw_degrees: 30.0, pitch_degrees: 20.0, ..Default::default() },
        &sphere.positions,
        1.0,
    );
    let options = RenderOptions { width: 150, height: 150, ssaa, ..RenderOptions::default() };
    render_meshes(&[&sphere], camera, &options)
}

/// Every visibility path: samples one per pixel (ssaa 1) and pixels of 4, 9 and 16 samples.
#[test]
fn identical_bytes_for_1_2_and_7_threads() {
    for ssaa in 1..=4 {
        let render_with = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            pool.install(|| lit_sphere_scene_image(ssaa))
        };
        let one = render_with(1);
        assert!(one.covered_pixels() > 5000);
        assert_eq!(one, render_with(2), "ssaa {ssaa}");
        assert_eq!(one, render_with(7), "ssaa {ssaa}");
    }
}

/// A sheet cell drawn straight into its rectangle of a page: the bytes of the image rendered
/// alone, the page around it untouched, and rows of another size refused.
#[test]
fn a_render_into_rows_of_a_larger_image_is_the_image_rendered_alone() {
    let sphere = uv_sphere(24, 48, textured(checker_texture(8, 4)));
    let camera = Camera::fit(&spritebake::raster::OrbitView::default(), &sphere.positions, 70.0 / 50.0);
    let posed = sphere.posed();
    let scene = spritebake::raster::Scene {
        objects: vec![spritebake::raster::SceneObject { posed: &posed, model_to_world: glam::Mat4::IDENTITY }],
        camera,
    };
    let renderer = spritebake::raster::Renderer::new();
    let (x0, y0) = (13, 9);
    for (ssaa, background) in [(1, None), (4, None), (2, Some([10, 20, 30, 255]))] {
        let options = RenderOptions { width: 70, height: 50, ssaa, background, ..RenderOptions::default() };
        let alone = renderer.render(&scene, &options).unwrap();
        // A page of noise, 100 pixels wide, the cell at (13, 9).
        let mut page = Image::new(100, 80).unwrap();
        for (i, b) in page.rgba.iter_mut().enumerate() {
            *b = (i * 7 % 251) as u8;
        }
        let before = page.clone();
        let rows = page.rgba.chunks_exact_mut(400).skip(y0).take(50).map(|row| &mut row[x0 * 4..(x0 + 70) * 4]);
        let mut rows = spritebake::raster::PixelRows::new(70, rows.collect()).unwrap();
        renderer.render_into_rows(&scene, &options, &mut rows).unwrap();
        for y in 0..80 {
            for x in 0..100 {
                let inside = (x0..x0 + 70).contains(&(x as usize)) && (y0..y0 + 50).contains(&(y as usize));
                let expected = if inside { alone.pixel(x - x0 as u32, y - y0 as u32) } else { before.pixel(x, y) };
                assert_eq!(page.pixel(x, y), expected, "ssaa {ssaa}: ({x}, {y})");
            }
        }
        assert!(alone.covered_pixels() > 1000);
        let small = RenderOptions { width: 69, ..options };
        let err = renderer.render_into_rows(&scene, &small, &mut page.rows_mut()).unwrap_err().to_string();
        assert!(err.contains("rows of 100x80 pixels for a 69x50 render"), "{err}");
    }
    // Rows must each hold the width given.
    let mut bytes = [0u8; 12];
    let (a, b) = bytes.split_at_mut(8);
    assert!(spritebake::raster::PixelRows::new(2, vec![a, b]).is_none());
}

#[test]
fn ground_plane_through_the_camera_is_clipped_not_dropped() {
    // A 200×200 textured floor at y = 0 with the camera 1 unit above it, looking level: half the
    // floor is behind the camera. The visible half must fill the lower half of the image with no
    // holes, and nothing may appear above the horizon (the mirrored image of what is behind).
    let s = 100.0;
    let mut floor = TestMesh::new(
        vec![Vec3::new(-s, 0.0, -s), Vec3::new(s, 0.0, -s), Vec3::new(s, 0.0, s), Vec3::new(-s, 0.0, s)],
        vec![[0, 2, 1], [0, 3, 2]],
    );
    floor.uvs = vec![Vec2::new(0.0, 0.0), Vec2::new(50.0, 0.0), Vec2::new(50.0, 50.0), Vec2::new(0.0, 50.0)];
    floor.material = textured(checker_texture(2, 2));
    let camera = Camera::look_at(
        Vec3::new(0.0, 1.0, 0.0),
        Vec3::new(0.0, 1.0, -1.0),
        Projection::Perspective { fov_y_degrees: 60.0 },
        1.0,
        0.05,
        1000.0,
    );
    let mut options = unlit(64, 64);
    options.cull_back_faces = true;
    let img = render_meshes(&[&floor], camera, &options);
    for y in 0..64 {
        for x in 0..64 {
            let a = img.pixel(x, y).unwrap()[3];
            if y < 32 {
                assert_eq!(a, 0, "sky pixel ({x}, {y}) is drawn");
            } else if y >= 34 {
                assert_eq!(a, 255, "floor pixel ({x}, {y}) is a hole");
            }
        }
    }
}

#[test]
fn checker_on_a_slanted_plane_matches_the_analytic_texture() {
    // A plane receding steeply from the camera: affine (non-perspective) interpolation would be
    // off by whole checker cells in the far half.
    let mut plane = TestMesh::new(
        vec![
            Vec3::new(-1.0, -1.0, 0.0),
            Vec3::new(1.0, -1.0, 0.0),
            Vec3::new(1.0, 1.0, -6.0),
            Vec3::new(-1.0, 1.0, -6.0),
        ],
        vec![[0, 1, 2], [0, 2, 3]],
    );
    plane.uvs = vec![Vec2::new(0.0, 1.0), Vec2::new(1.0, 1.0), Vec2::new(1.0, 0.0), Vec2::new(0.0, 0.0)];
    plane.material = textured(checker_texture(8, 1));
    let camera = Camera::look_at(
        Vec3::new(0.0, 0.0, 2.5),
        Vec3::new(0.0, 0.0, -2.0),
        Projection::Perspective { fov_y_degrees: 50.0 },
        1.0,
        0.1,
        50.0,
    );
    let options = RenderOptions { filter: Filter::Nearest, ..unlit(128, 128) };
    let img = render_meshes(&[&plane], camera, &options);
    let clip_to_world = camera.world_to_clip().inverse();
    let (p0, normal) =
        (plane.positions[0], (plane.positions[1] - plane.positions[0]).cross(plane.positions[3] - plane.positions[0]));
    let (mut checked, mut mismatched) = (0, 0);
    for y in 0..128 {
        for x in 0..128 {
            let ndc = Vec2::new((x as f32 + 0.5) / 64.0 - 1.0, 1.0 - (y as f32 + 0.5) / 64.0);
            let near = clip_to_world.project_point3(Vec4::new(ndc.x, ndc.y, 0.0, 1.0).truncate());
            let far = clip_to_world.project_point3(Vec4::new(ndc.x, ndc.y, 1.0, 1.0).truncate());
            let dir = far - near;
            let t = (p0 - near).dot(normal) / dir.dot(normal);
            let hit = near + dir * t;
            // uv from the plane's parametrisation: u along x, v from the far edge (v = 0) down.
            let (u, v) = ((hit.x + 1.0) / 2.0, 1.0 - (hit.y + 1.0) / 2.0);
            if !(0.02..0.98).contains(&u) || !(0.02..0.98).contains(&v) {
                continue;
            }
            let (cu, cv) = (u * 8.0, v * 8.0);
            // Skip samples within a small distance of a cell border.
            let near_border = |c: f32| (c - c.round()).abs() < 0.08;
            if near_border(cu) || near_border(cv) {
                continue;
            }
            let white = (cu.floor() as i32 + cv.floor() as i32) % 2 == 0;
            let got = img.pixel(x, y).unwrap();
            checked += 1;
            if (got[0] > 128) != white {
                mismatched += 1;
            }
        }
    }
    assert!(checked > 2000, "{checked}");
    assert_eq!(mismatched, 0, "{mismatched} of {checked} samples show the wrong checker colour");
}

#[test]
fn intersecting_triangles_resolve_by_depth_on_each_side() {
    // Red lies in z = 0; green tilts through it along x = 32 (z = (x − 32) / 16), so green is
    // nearer the camera (at +Z) right of the line and farther left of it.
    let mut red = TestMesh::new(
        vec![Vec3::new(2.0, 2.0, 0.0), Vec3::new(62.0, 2.0, 0.0), Vec3::new(32.0, 62.0, 0.0)],
        vec![[0, 1, 2]],
    );
    red.material.base_color = [1.0, 0.0, 0.0, 1.0];
    let mut green = TestMesh::new(
        vec![Vec3::new(2.0, 40.0, -1.875), Vec3::new(62.0, 40.0, 1.875), Vec3::new(32.0, -20.0, 0.0)],
        vec![[0, 1, 2]],
    );
    green.material.base_color = [0.0, 1.0, 0.0, 1.0];
    for order in [[&red, &green], [&green, &red]] {
        let img = render_meshes(&order, pixel_camera(64.0, 64.0), &unlit(64, 64));
        for x in [16, 22, 28] {
            assert_eq!(img.pixel(x, 20).unwrap(), [255, 0, 0, 255], "left of the line at x={x}");
        }
        for x in [36, 42, 48] {
            assert_eq!(img.pixel(x, 20).unwrap(), [0, 255, 0, 255], "right of the line at x={x}");
        }
    }
}

#[test]
fn trilinear_minification_averages_where_nearest_aliases() {
    // 64×64 pixels showing 1024×1024 one-texel checker cells: 16 texels per pixel.
    let mut quad = TestMesh::new(
        vec![
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(64.0, 0.0, 0.0),
            Vec3::new(64.0, 64.0, 0.0),
            Vec3::new(0.0, 64.0, 0.0),
        ],
        vec![[0, 1, 2], [0, 2, 3]],
    );
    quad.uvs = vec![Vec2::new(0.0, 0.0), Vec2::new(4.0, 0.0), Vec2::new(4.0, 4.0), Vec2::new(0.0, 4.0)];
    quad.material = textured(checker_texture(256, 1));
    let error = |filter: Filter| {
        let img = render_meshes(&[&quad], pixel_camera(64.0, 64.0), &RenderOptions { filter, ..unlit(64, 64) });
        // The true average of the checker is 50% linear light.
        let grey = spritebake::internal::raster::linear_to_srgb(0.5) as f64;
        img.rgba.chunks_exact(4).map(|p| (p[0] as f64 - grey).abs()).sum::<f64>() / 4096.0
    };
    let (nearest, trilinear) = (error(Filter::Nearest), error(Filter::Trilinear));
    assert!(trilinear * 20.0 < nearest, "mean error: trilinear {trilinear:.2}, nearest {nearest:.2}");
}

#[test]
fn a_nearest_magnified_texture_still_minifies_through_mip_levels() {
    use spritebake::model::{Material, MinFilter};
    // glTF `magFilter: NEAREST` (a pixel-art model): crisp where a texel spans many pixels,
    // and grey, not black-and-white noise, where many texels share a pixel.
    let quad = |cells: u32, minify: Option<MinFilter>| {
        let mut quad = TestMesh::new(
            vec![Vec3::ZERO, Vec3::new(16.0, 0.0, 0.0), Vec3::new(16.0, 16.0, 0.0), Vec3::new(0.0, 16.0, 0.0)],
            vec![[0, 1, 2], [0, 2, 3]],
        );
        quad.uvs = vec![Vec2::ZERO, Vec2::new(1.0, 0.0), Vec2::ONE, Vec2::new(0.0, 1.0)];
        quad.material = Material { nearest: true, minify, ..textured(checker_texture(cells, 1)) };
        render_meshes(&[&quad], pixel_camera(16.0, 16.0), &unlit(16, 16))
    };
    let grey = f64::from(spritebake::internal::raster::linear_to_srgb(0.5));
    let worst = |image: &Image| image.rgba.chunks_exact(4).map(|p| (f64::from(p[0]) - grey).abs()).fold(0.0, f64::max);
    // 256 one-texel cells on 16 pixels: every pixel the checker's average, grey 188.
    let far = worst(&quad(256, None));
    assert!(far <= 20.0, "a pixel is {far} levels off grey {grey}");
    assert!(worst(&quad(256, Some(MinFilter::Mipmapped))) <= 20.0);
    // 4 cells on 16 pixels: 4 pixels a texel, each pixel exactly black or white.
    let near = quad(4, None);
    assert!(near.rgba.chunks_exact(4).all(|p| p[0] == 0 || p[0] == 255), "{:?}", &near.rgba[..64]);
    // The model's `minFilter: NEAREST` is honoured too: black-and-white again.
    let aliased = quad(256, Some(MinFilter::Nearest));
    assert!(aliased.rgba.chunks_exact(4).all(|p| p[0] == 0 || p[0] == 255));
}

/// Area of the unit pixel square at (x, y) on the side `n·p ≥ d` of a line.
fn covered_area(x: f32, y: f32, n: Vec2, d: f32) -> f32 {
    let mut poly = vec![Vec2::new(x, y), Vec2::new(x + 1.0, y), Vec2::new(x + 1.0, y + 1.0), Vec2::new(x, y + 1.0)];
    let mut out = Vec::new();
    for i in 0..poly.len() {
        let (a, b) = (poly[i], poly[(i + 1) % poly.len()]);
        let (da, db) = (n.dot(a) - d, n.dot(b) - d);
        if da >= 0.0 {
            out.push(a);
        }
        if (da >= 0.0) != (db >= 0.0) {
            out.push(a + (b - a) * (da / (da - db)));
        }
    }
    poly = out;
    let mut area = 0.0;
    for i in 0..poly.len() {
        area += poly[i].perp_dot(poly[(i + 1) % poly.len()]);
    }
    area.abs() * 0.5
}

#[test]
fn ssaa_4_edge_coverage_matches_analytic_area_and_keeps_colour() {
    // A white triangle whose one visible edge crosses the image at a slant; the others are far
    // outside. Edge pixels' alpha must be the covered area (16 samples: within 1/16) and their
    // straight colour must stay white, not darken towards the transparent background.
    for (a, b) in [(Vec2::new(-10.0, 5.3), Vec2::new(80.0, 37.9)), (Vec2::new(20.2, -10.0), Vec2::new(41.7, 90.0))] {
        let far = a + (b - a).perp() * 10.0;
        let tri = TestMesh::new(vec![a.extend(0.0), b.extend(0.0), far.extend(0.0)], vec![[0, 1, 2]]);
        let img = render_meshes(&[&tri], pixel_camera(64.0, 64.0), &RenderOptions { ssaa: 4, ..unlit(64, 64) });
        let n = (b - a).perp().normalize();
        let d = n.dot(a);
        let mut edge_pixels = 0;
        for y in 0..64 {
            for x in 0..64 {
                let area = covered_area(x as f32, y as f32, n, d);
                let p = img.pixel(x, y).unwrap();
                let alpha = p[3] as f32 / 255.0;
                assert!((alpha - area).abs() <= 1.0 / 16.0 + 1.0 / 255.0, "({x},{y}): alpha {alpha} vs area {area}");
                if p[3] == 0 {
                    assert_eq!(p, [0, 0, 0, 0], "transparent pixel ({x},{y}) carries colour");
                } else {
                    assert_eq!(&p[..3], &[255, 255, 255], "edge pixel ({x},{y}) darkened");
                }
                edge_pixels += usize::from(area > 0.0 && area < 1.0);
            }
        }
        assert!(edge_pixels > 60, "{edge_pixels}");
    }
}

#[test]
fn lambert_shading_darkens_surfaces_turned_from_the_light() {
    let sphere = uv_sphere(16, 32, white());
    let camera = Camera::fit(&Default::default(), &sphere.positions, 1.0);
    let light = spritebake::raster::Light { direction: Vec3::X, intensity: 1.0 };
    let options = RenderOptions { lights: vec![light], ambient: 0.1, shading: Shading::Lambert, ..unlit(64, 64) };
    let img = render_meshes(&[&sphere], camera, &RenderOptions { cull_back_faces: true, ..options });
    let (right, left) = (img.pixel(50, 32).unwrap()[0], img.pixel(13, 32).unwrap()[0]);
    assert!(right > 200 && left < 100, "lit side {right}, dark side {left}");
}

#[test]
fn bad_render_sizes_are_errors() {
    let tri = TestMesh::new(vec![Vec3::ZERO, Vec3::X, Vec3::Y], vec![[0, 1, 2]]);
    let posed = tri.posed();
    let scene = spritebake::raster::Scene {
        objects: vec![spritebake::raster::SceneObject { posed: &posed, model_to_world: glam::Mat4::IDENTITY }],
        camera: pixel_camera(1.0, 1.0),
    };
    for (w, h, ssaa) in [(0, 10, 1), (10, 10, 5), (100_000, 10, 1), (16384, 16384, 4)] {
        let options = RenderOptions { width: w, height: h, ssaa, ..RenderOptions::default() };
        assert!(spritebake::raster::render(&scene, &options).is_err(), "{w}x{h} ssaa {ssaa}");
    }
}

#[test]
fn huge_and_nan_vertices_render_in_bounded_time() {
    // One vertex at 1e30 (far outside any guard band) and one NaN: the first must be clipped to
    // a sane triangle, the second dropped; neither may loop over billions of pixels or panic.
    let huge = TestMesh::new(
        vec![Vec3::new(8.0, 8.0, 0.0), Vec3::new(1e30, 20.0, 0.0), Vec3::new(8.0, 40.0, 0.0)],
        vec![[0, 1, 2]],
    );
    let nan = TestMesh::new(
        vec![Vec3::new(f32::NAN, 8.0, 0.0), Vec3::new(50.0, 20.0, 0.0), Vec3::new(8.0, 60.0, 0.0)],
        vec![[0, 1, 2]],
    );
    let start = std::time::Instant::now();
    let img = render_meshes(&[&huge, &nan], pixel_camera(64.0, 64.0), &unlit(64, 64));
    // Not a timing assertion: a generous bound that only an unbounded loop could exceed.
    assert!(start.elapsed().as_secs() < 30);
    // The huge triangle covers a wedge from x = 8 to the right edge between its two edges.
    assert_eq!(img.pixel(60, 21).unwrap(), [255, 255, 255, 255]);
    assert_eq!(img.pixel(4, 21).unwrap()[3], 0);
    let camera = Camera::look_at(Vec3::new(0.0, 0.0, 5.0), Vec3::ZERO, Projection::default(), 1.0, 0.1, 100.0);
    let far = TestMesh::new(
        vec![Vec3::new(-1e30, -1e30, -1e30), Vec3::new(1e30, -1e30, 1e30), Vec3::new(0.0, 1e30, 0.0)],
        vec![[0, 1, 2]],
    );
    let _ = render_meshes(&[&far], camera, &unlit(32, 32));
}

#[test]
fn deferred_shading_of_opaque_tiles_matches_drawing_in_order() {
    // Opaque bins are shaded after a visibility pass; a bin holding an alpha-tested triangle is
    // drawn in submission order. A cutoff of 0 never discards, so the two paths must agree to
    // the byte — including which of two coincident quads wins (the first drawn).
    let scene = |alpha: AlphaMode| {
        let mut sphere = uv_sphere(16, 32, textured(checker_texture(8, 4)));
        sphere.material.alpha_mode = alpha;
        let quad = |z: f32, rgb: [f32; 3]| {
            let mut m = TestMesh::new(
                vec![
                    Vec3::new(-1.5, -1.5, z),
                    Vec3::new(1.5, -1.5, z),
                    Vec3::new(1.5, 0.2, z),
                    Vec3::new(-1.5, 0.2, z),
                ],
                vec![[0, 1, 2], [0, 2, 3]],
            );
            m.material.base_color = [rgb[0], rgb[1], rgb[2], 1.0];
            m.material.alpha_mode = alpha;
            m
        };
        let (red, green) = (quad(0.3, [1.0, 0.0, 0.0]), quad(0.3, [0.0, 1.0, 0.0]));
        let view = spritebake::raster::OrbitView { yaw_degrees: 20.0, pitch_degrees: 10.0, ..Default::default() };
        let camera = Camera::fit(&view, &sphere.positions, 1.0);
        let options =
            RenderOptions { width: 120, height: 120, cull_back_faces: false, ssaa: 1, ..RenderOptions::default() };
        render_meshes(&[&sphere, &red, &green], camera, &options)
    };
    let deferred = scene(AlphaMode::Opaque);
    assert!(deferred.covered_pixels() > 4000);
    // The red quad, drawn first, wins the depth tie in front of the sphere.
    let reds = deferred.rgba.chunks_exact(4).filter(|p| p[0] > 100 && p[1] < 10).count();
    assert!(reds > 1000, "red pixels {reds}");
    assert_eq!(deferred, scene(AlphaMode::Mask(0.0)));
}

#[test]
fn pixel_rate_shading_keeps_coverage_and_stays_close_to_supersampling() {
    let sphere = uv_sphere(24, 48, textured(checker_texture(8, 4)));
    let view = spritebake::raster::OrbitView { yaw_degrees: 30.0, pitch_degrees: 20.0, ..Default::default() };
    let camera = Camera::fit(&view, &sphere.positions, 1.0);
    let render = |shading_rate| {
        let options = RenderOptions { width: 96, height: 96, ssaa: 4, shading_rate, ..RenderOptions::default() };
        render_meshes(&[&sphere], camera, &options)
    };
    let (pixel, sample) = (render(ShadingRate::Pixel), render(ShadingRate::Sample));
    // Coverage and depth are per sample in both: the anti-aliased silhouette is identical.
    let alpha = |img: &Image| img.rgba.chunks_exact(4).map(|p| p[3]).collect::<Vec<_>>();
    assert_eq!(alpha(&pixel), alpha(&sample));
    assert!(pixel.covered_pixels() > 3000);
    // One lookup per pixel instead of sixteen: close, not equal.
    assert_ne!(pixel, sample);
    let (mut sum, mut n) = (0.0f64, 0usize);
    for (a, b) in pixel.rgba.chunks_exact(4).zip(sample.rgba.chunks_exact(4)).filter(|(a, _)| a[3] == 255) {
        for c in 0..3 {
            sum += (a[c] as f64 - b[c] as f64).powi(2);
            n += 1;
        }
    }
    let psnr = 10.0 * (255.0f64 * 255.0 / (sum / n as f64)).log10();
    assert!(psnr > 30.0, "PSNR of pixel-rate against sample-rate shading: {psnr:.1} dB");
}

#[test]
fn pixel_rate_shading_never_reads_beyond_a_triangles_uv_island() {
    // A fan of 16 triangles whose shared (inner) edges are each the border of the triangle's
    // own uv island: white inside, black one texel beyond, 4.5 texels a pixel. A pixel an
    // inner edge crosses shaded at its centre reads up to 0.7 pixels (3 texels) outside one of
    // its triangles, into black: a dark speck where the surface is white. Shaded at the
    // centroid of each triangle's samples, every read stays inside the island.
    let n = 128;
    let rgba = (0..n * n)
        .flat_map(|i| {
            let island = |t: u32| (7..n - 7).contains(&t);
            let v = if island(i % n) && island(i / n) { 255 } else { 0 };
            [v, v, v, 255]
        })
        .collect();
    let texture = spritebake::model::Texture::new(n, n, rgba, true).unwrap();
    let centre = Vec3::new(32.3, 31.7, 0.0);
    let rim = |i: usize| {
        let t = i as f32 / 16.0 * std::f32::consts::TAU;
        centre + Vec3::new(t.cos(), t.sin(), 0.0) * 25.0
    };
    // Each triangle on its own three corners: its right angle in uv at the centre, its two
    // radial edges along the island's left and top borders, its rim edge inside the island.
    let positions = (0..16).flat_map(|i| [centre, rim(i), rim(i + 1)]).collect();
    let indices = (0..16).map(|i| [3 * i, 3 * i + 1, 3 * i + 2]).collect();
    let mut fan = TestMesh::new(positions, indices);
    let (near, far) = (8.0 / n as f32, (n - 8) as f32 / n as f32);
    fan.uvs = (0..16).flat_map(|_| [Vec2::new(near, near), Vec2::new(far, near), Vec2::new(near, far)]).collect();
    fan.material = textured(texture);
    let options = RenderOptions { filter: Filter::Nearest, ssaa: 4, shading_rate: ShadingRate::Pixel, ..unlit(64, 64) };
    let image = render_meshes(&[&fan], pixel_camera(64.0, 64.0), &options);
    let opaque = |x: i32, y: i32| image.pixel(x as u32, y as u32).is_some_and(|p| p[3] == 255);
    let mut inner = 0;
    for y in 1..63 {
        for x in 1..63 {
            // Pixels inside the disc: the 3×3 around them is opaque (no silhouette edge).
            if (-1..=1).all(|dy| (-1..=1).all(|dx| opaque(x + dx, y + dy))) {
                inner += 1;
                let p = image.pixel(x as u32, y as u32).unwrap();
                assert_eq!(&p[..3], &[255, 255, 255], "pixel ({x}, {y}) read outside its triangle's island");
            }
        }
    }
    assert!(inner > 1500, "only {inner} pixels inside the disc");
}

/// A quad of one colour from x0 to x1 and y 2 to 14 at depth z (for [`pixel_camera`]).
fn strip([x0, x1]: [f32; 2], z: f32, colour: [f32; 4], alpha: AlphaMode) -> TestMesh {
    let mut quad = TestMesh::new(
        vec![Vec3::new(x0, 2.0, z), Vec3::new(x1, 2.0, z), Vec3::new(x1, 14.0, z), Vec3::new(x0, 14.0, z)],
        vec![[0, 1, 2], [0, 2, 3]],
    );
    quad.material = spritebake::model::Material { base_color: colour, alpha_mode: alpha, ..quad.material };
    quad
}

#[test]
fn an_additive_glow_lightens_what_is_behind_it_and_fades_out_over_nothing() {
    let quad = strip;
    // A half-bright green glow over the left half of an opaque red wall, and over nothing.
    let glow = quad([2.0, 14.0], -0.2, [0.0, 0.5, 0.0, 1.0], AlphaMode::Additive);
    let wall = quad([2.0, 8.0], -0.9, [1.0, 0.0, 0.0, 1.0], AlphaMode::Opaque);
    for order in [[&glow, &wall], [&wall, &glow]] {
        let image = render_meshes(&order, pixel_camera(16.0, 16.0), &unlit(16, 16));
        // Over the wall the colours add in linear light: (1, 0.5, 0), sRGB (255, 188, 0).
        assert_eq!(image.pixel(4, 8).unwrap(), [255, 188, 0, 255]);
        // Over nothing the glow covers by its brightest channel: green at half alpha.
        assert_eq!(image.pixel(11, 8).unwrap(), [0, 255, 0, 128]);
        // Nothing blended writes depth: the wall behind is still drawn in full.
        assert_eq!(image.pixel(2, 2).unwrap()[3], 255);
        // Over a background the glow adds to it, as to the wall: blue (0, 0, 1) and green
        // (0, 0.5, 0) are (0, 0.5, 1), sRGB (0, 188, 255); drawn over it, it was (0, 188, 188).
        let blue = RenderOptions { background: Some([0, 0, 255, 255]), ..unlit(16, 16) };
        let image = render_meshes(&order, pixel_camera(16.0, 16.0), &blue);
        assert_eq!(image.pixel(11, 8).unwrap(), [0, 188, 255, 255]);
        assert_eq!(image.pixel(4, 8).unwrap(), [255, 188, 0, 255]);
        // A half-transparent background: the glow adds its green and covers more of it.
        let faint = RenderOptions { background: Some([0, 0, 255, 128]), ..unlit(16, 16) };
        let [r, g, b, a] = render_meshes(&order, pixel_camera(16.0, 16.0), &faint).pixel(11, 8).unwrap();
        assert!(r == 0 && g > 150 && b > 150 && a > 128 && a < 255, "{:?}", [r, g, b, a]);
    }
    // The normal map leaves a glow out: it has no surface.
    let posed = [glow.posed(), wall.posed()];
    let scene = spritebake::raster::Scene {
        objects: posed
            .iter()
            .map(|p| spritebake::raster::SceneObject { posed: p, model_to_world: glam::Mat4::IDENTITY })
            .collect(),
        camera: pixel_camera(16.0, 16.0),
    };
    let normals = spritebake::raster::Renderer::new().render_normals(&scene, &unlit(16, 16)).unwrap();
    assert_eq!(normals.pixel(4, 8).unwrap()[3], 255);
    assert_eq!(normals.pixel(11, 8).unwrap()[3], 0);
}

#[test]
fn a_filter_multiplies_what_is_behind_it_and_covers_nothing_of_its_own() {
    // A half-grey filter (Quake 3's `blendFunc filter`) over the left half of an opaque red
    // wall, and over nothing, in either order: it halves the light of what is behind in
    // linear light, the wall's (0.5, 0, 0), sRGB (188, 0, 0), and a background's as the
    // wall's; over nothing it shows nothing, and over a half-transparent background it covers
    // no more of it.
    let filter = strip([2.0, 14.0], -0.2, [0.5, 0.5, 0.5, 1.0], AlphaMode::Multiply);
    let wall = strip([2.0, 8.0], -0.9, [1.0, 0.0, 0.0, 1.0], AlphaMode::Opaque);
    let behind =
        [(None, [0, 0, 0, 0]), (Some([0, 0, 255, 255]), [0, 0, 188, 255]), (Some([0, 0, 255, 128]), [0, 0, 188, 128])];
    for order in [[&filter, &wall], [&wall, &filter]] {
        for (background, over_nothing) in behind {
            let options = RenderOptions { background, ..unlit(16, 16) };
            let image = render_meshes(&order, pixel_camera(16.0, 16.0), &options);
            assert_eq!([image.pixel(4, 8).unwrap(), image.pixel(11, 8).unwrap()], [[188, 0, 0, 255], over_nothing]);
        }
    }
}

#[test]
fn a_two_sided_material_shows_its_back_where_the_render_culls_back_faces() {
    // The strip faces away from the pixel camera (whose y runs down); turned, it faces it.
    let mut quad = strip([2.0, 14.0], -0.5, [1.0; 4], AlphaMode::Opaque);
    let culling = RenderOptions { cull_back_faces: true, ..unlit(16, 16) };
    assert_eq!(render_meshes(&[&quad], pixel_camera(16.0, 16.0), &culling).covered_pixels(), 0);
    quad.material.two_sided = true;
    assert_eq!(render_meshes(&[&quad], pixel_camera(16.0, 16.0), &culling).covered_pixels(), 12 * 12);
    quad.material.two_sided = false;
    quad.indices = vec![[0, 2, 1], [0, 3, 2]];
    assert_eq!(render_meshes(&[&quad], pixel_camera(16.0, 16.0), &culling).covered_pixels(), 12 * 12);
}

#[test]
fn glass_tints_what_is_behind_it_whatever_the_file_order() {
    use spritebake::model::Material;
    // A red and a blue pane, each half transparent, in front of an opaque green bar: seen
    // through both, the bar is green under blue under red, in linear light (0.5, 0.25, 0.25):
    // sRGB (188, 137, 137) — whichever order the file lists them in.
    let quad = |z: f32, colour: [f32; 4], alpha| {
        let mut quad = TestMesh::new(
            vec![Vec3::new(2.0, 2.0, z), Vec3::new(14.0, 2.0, z), Vec3::new(14.0, 14.0, z), Vec3::new(2.0, 14.0, z)],
            vec![[0, 1, 2], [0, 2, 3]],
        );
        quad.material = Material { base_color: colour, alpha_mode: alpha, ..Material::named("m") };
        quad
    };
    let red = quad(-0.2, [1.0, 0.0, 0.0, 0.5], AlphaMode::Blend);
    let blue = quad(-0.5, [0.0, 0.0, 1.0, 0.5], AlphaMode::Blend);
    let green = quad(-0.9, [0.0, 1.0, 0.0, 1.0], AlphaMode::Opaque);
    let orders = [[&red, &blue, &green], [&green, &blue, &red], [&blue, &green, &red], [&red, &green, &blue]];
    for (k, order) in orders.iter().enumerate() {
        let image = render_meshes(order, pixel_camera(16.0, 16.0), &unlit(16, 16));
        let centre = image.pixel(8, 8).unwrap();
        let expected = [188, 137, 137, 255];
        let off = centre.iter().zip(expected).map(|(a, b)| (i32::from(*a) - b).abs()).max().unwrap();
        assert!(off <= 6, "order {k}: centre {centre:?}, expected {expected:?}");
    }
}

/// Real rigs split a position into several vertices wherever a normal or texture coordinate
/// changes. Vertices whose position data is the same are posed to one position, bit for bit,
/// in every frame of their clips, and a frame drawn with each position projected once is the
/// frame drawn with every vertex projected (the sheets' way against the plain one).
#[test]
fn vertices_that_share_their_position_data_are_posed_and_drawn_as_one() {
    use spritebake::anim::{self, Animation, FrameTime, PoseOptions};
    use spritebake::bake;
    use spritebake::model::SharedPositions;
    use spritebake::raster::{OrbitView, Renderer};
    let rigs = [
        ("fbx/flair", "Flair.fbx", "mixamo.com", true),
        ("gltf/fox", "Fox.glb", "Run", true),
        ("gltf/cesiumman", "CesiumMan.glb", "", false),
        ("md2/ogro", "ogro.md2", "run", false),
    ];
    for (folder, file, clip, seamed) in rigs {
        let Some((_, model)) = corpus_model(folder, file) else { return };
        let tables = SharedPositions::of_each(&model.meshes);
        assert!(!seamed || tables.iter().any(Option::is_some), "{file}: no shared positions found");
        let clip = model.clip(clip).or(model.clips.first());
        let animation = Animation::clip(clip, PoseOptions::default());
        let renderer = Renderer::new();
        let options = RenderOptions { width: 96, height: 96, ssaa: 2, ..RenderOptions::default() };
        for frame in [0.0, 3.0, 7.5] {
            let mut posed = anim::animate(&model, &animation, FrameTime::Frame(frame));
            let plain = posed.clone();
            posed.share_positions(&model.meshes, &tables);
            for part in &posed.parts {
                let Some(shared) = part.shared else { continue };
                for (vertices, positions) in part.indices.iter().zip(&shared.triangles) {
                    for (&v, &p) in vertices.iter().zip(positions) {
                        let of = |v: u32| part.positions[v as usize].to_array().map(f32::to_bits);
                        assert_eq!(of(v), of(shared.representatives[p as usize]), "{file} frame {frame}, vertex {v}");
                    }
                }
            }
            let camera = Camera::fit(
                &OrbitView { yaw_degrees: 30.0, ..OrbitView::default() },
                &spritebake::internal::bake::world_points(&model, &plain),
                1.0,
            );
            let once = bake::render_posed(&renderer, &model, &posed, camera, &options).unwrap();
            let every = bake::render_posed(&renderer, &model, &plain, camera, &options).unwrap();
            assert!(once.rgba.chunks(4).any(|p| p[3] > 0), "{file} frame {frame}: nothing drawn");
            assert!(once.rgba == every.rgba, "{file} frame {frame}: drawn differently");
        }
    }
}
