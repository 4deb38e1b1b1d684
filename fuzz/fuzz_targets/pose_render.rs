#![no_main]
//! Whatever a parser accepts must pose (every clip, whole and half frames; and with every
//! animation layer: transition, blend, bone override, attachments) and render a small image
//! without panicking or running away.
use glam::Affine3A;
use spritebake::anim::{
    Animation, Attachment, Blend, BoneOverride, FrameTime, Layers, Motion, Mount, PoseOptions, Transition,
};
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
    let options = RenderOptions { width: 24, height: 24, ssaa: 1, ..RenderOptions::default() };
    let renderer = Renderer::new();
    let render = |request: &FrameRequest| {
        let _ = bake::render_frame(&renderer, &model, request, &OrbitView::default(), &options);
    };
    let clips: Vec<_> = std::iter::once(None).chain(model.clips.iter().map(Some)).take(4).collect();
    for clip in clips {
        for time in [0.0, 0.5, 1.0] {
            render(&FrameRequest::clip(clip, FrameTime::Frame(time), PoseOptions::default()));
        }
    }
    // Every layer at once: the model attached to itself in lockstep and on its first joint.
    let (Some(first), Some(last)) = (model.clips.first(), model.clips.last()) else { return };
    let mut attachments = vec![Attachment { model: &model, mount: Mount::Lockstep, offset: Affine3A::IDENTITY }];
    let mut bones = Vec::new();
    if model.skeleton.as_ref().is_some_and(|s| !s.joints.is_empty()) {
        attachments.push(Attachment { model: &model, mount: Mount::Joint(0), offset: Affine3A::IDENTITY });
        bones.push(BoneOverride::from_degrees(0, 30.0, -10.0, 5.0));
    }
    let layers = Layers { blend: Some(Blend { clip: last, weight: 0.5 }), bones, attachments };
    let motion = Motion::Transition(Transition { from: first, to: last, seconds: 0.1 });
    let animation = Animation { motion, layers, options: PoseOptions::default() };
    for time in [0.0, 0.5, first.frame_count() as f32 + 0.5] {
        render(&FrameRequest { animation: animation.clone(), time: FrameTime::Frame(time) });
    }
});
