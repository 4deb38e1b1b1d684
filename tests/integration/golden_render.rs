//! Golden images of the example asset: lit, unlit, orthographic and perspective.

use std::path::Path;

use spritebake::bake::{self, FrameRequest};
use spritebake::golden::Tolerance;
use spritebake::model::Model;
use spritebake::raster::{OrbitView, Projection, RenderOptions, Renderer, Shading};

use crate::common::golden::assert_golden;

/// Renders are deterministic, but libm's `powf`/`sin` may differ in the last bit between
/// platforms: allow a 1-level channel difference, and a handful of edge pixels.
const TOLERANCE: Tolerance = Tolerance { channel: 1, max_pixels: 8 };

fn tower() -> Model {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/assets/tower.obj");
    spritebake::formats::load(&path, &Default::default()).expect("example asset loads")
}

fn render(view: OrbitView, options: RenderOptions) -> spritebake::raster::Image {
    bake::render_frame(&Renderer::new(), &tower(), &FrameRequest::default(), &view, &options).unwrap()
}

fn three_quarter(projection: Projection) -> OrbitView {
    OrbitView { yaw_degrees: 30.0, pitch_degrees: 20.0, projection, margin: 0.05 }
}

const SMALL: RenderOptions = RenderOptions {
    width: 96,
    height: 128,
    ssaa: 4,
    shading_rate: spritebake::raster::ShadingRate::Pixel,
    filter: spritebake::raster::Filter::Trilinear,
    model_filters: true,
    shading: Shading::Lambert,
    lights: Vec::new(),
    ambient: 0.3,
    background: None,
    cull_back_faces: true,
};

fn lit() -> RenderOptions {
    RenderOptions { lights: vec![spritebake::raster::Light::KEY], ..SMALL }
}

#[test]
fn tower_lit_perspective() {
    let img = render(three_quarter(Projection::Perspective { fov_y_degrees: 30.0 }), lit());
    assert_golden(&img, TOLERANCE);
}

#[test]
fn tower_unlit() {
    let img = render(three_quarter(Projection::default()), RenderOptions { shading: Shading::Unlit, ..lit() });
    assert_golden(&img, TOLERANCE);
}

#[test]
fn tower_lit_orthographic() {
    let img = render(three_quarter(Projection::Orthographic), lit());
    assert_golden(&img, TOLERANCE);
}

#[test]
fn tower_wide_perspective_from_below_on_background() {
    let view = OrbitView {
        yaw_degrees: -60.0,
        pitch_degrees: -25.0,
        projection: Projection::Perspective { fov_y_degrees: 70.0 },
        margin: 0.1,
    };
    let img = render(view, RenderOptions { background: Some([40, 60, 90, 255]), ..lit() });
    assert_golden(&img, TOLERANCE);
}
