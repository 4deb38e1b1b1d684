#![no_main]
//! glTF/GLB parsing must never panic or allocate beyond the input's size, and whatever it
//! accepts must pose (every clip, and all of them together) and render.
use spritebake::anim::{FrameTime, PoseOptions};
use spritebake::bake::{self, FrameRequest};
use spritebake::raster::{OrbitView, RenderOptions, Renderer};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok(mut model) = spritebake::formats::gltf::parse(data, &mut |_| None, &Default::default()) else { return };
    let _ = bake::add_all_clip(&mut model);
    let options = RenderOptions { width: 24, height: 24, ssaa: 1, ..RenderOptions::default() };
    let renderer = Renderer::new();
    let clips: Vec<_> = std::iter::once(None).chain(model.clips.iter().map(Some)).take(4).collect();
    for clip in clips {
        for time in [0.0, 0.37, 1.0] {
            let request = FrameRequest::clip(clip, FrameTime::Seconds(time), PoseOptions::default());
            let _ = bake::render_frame(&renderer, &model, &request, &OrbitView::default(), &options);
        }
    }
});
