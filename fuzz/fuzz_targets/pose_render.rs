#![no_main]
//! Whatever a parser accepts must pose (every clip, whole and half frames) and render a small
//! image without panicking or running away.
use spritebake::anim::{FrameTime, PoseOptions};
use spritebake::bake::{self, FrameRequest};
use spritebake::formats::{md2, md5, obj, smd};
use spritebake::raster::{OrbitView, RenderOptions, Renderer};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some((&kind, rest)) = data.split_first() else { return };
    let text = String::from_utf8_lossy(rest);
    let model = match kind % 4 {
        0 => md2::parse(rest).ok(),
        1 => md5::parse_mesh(&text).ok(),
        2 => smd::parse_reference(&text).ok(),
        _ => obj::parse(rest, &mut |_| None).ok(),
    };
    let Some(model) = model else { return };
    let options = RenderOptions { width: 24, height: 24, ..RenderOptions::default() };
    let renderer = Renderer::new();
    let clips: Vec<_> = std::iter::once(None).chain(model.clips.iter().map(Some)).take(4).collect();
    for clip in clips {
        for time in [0.0, 0.5, 1.0] {
            let request = FrameRequest { clip, time: FrameTime::Frame(time), pose: PoseOptions::default() };
            let _ = bake::render_frame(&renderer, &model, &request, &OrbitView::default(), &options);
        }
    }
});
