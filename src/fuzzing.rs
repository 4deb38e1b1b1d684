//! The body of every fuzz target (`fuzz/fuzz_targets/NAME.rs` is `fuzzing::NAME`), so the
//! crash fixtures a target once failed on (`tests/fixtures/crash/NAME/`) replay through exactly
//! the code the fuzzer ran. Hidden from the documentation: for `fuzz/` and the tests only.

use std::path::{Component, Path};

use glam::Affine3A;

use crate::anim::{
    Animation, Attachment, Blend, BoneOverride, FrameTime, Layers, Motion, Mount, PoseOptions, Transition,
};
use crate::bake::{self, FrameRequest};
use crate::formats::{
    def, fbx as fbx_format, gltf as gltf_format, iqm as iqm_format, md2 as md2_format, md3 as md3_format, md5,
    mdl as mdl_format, mtr, obj as obj_format, q3shader, qc, smd, studio as studio_format, textures,
};
use crate::model::{Model, Skeleton};
use crate::output::{FramePattern, MAX_COMPONENT_BYTES, OutputFormat, OutputPlan, sanitize_component};
use crate::raster::{OrbitView, RenderOptions, Renderer};

/// Every fuzz target, by the name of its folder of crash fixtures and its `fuzz/` binary.
pub const TARGETS: [&str; 18] = [
    "fbx",
    "gltf",
    "iqm",
    "manifest",
    "md2",
    "md3",
    "md5_anim",
    "md5_mesh",
    "mdl",
    "obj",
    "output_plan",
    "palette",
    "pose_render",
    "project",
    "scripts",
    "smd",
    "studio",
    "texture",
];

/// The skeletons the animation targets parse against: the example robot's, from the text of
/// its `robot.md5mesh` and `robot.smd`.
#[derive(Debug, Default)]
pub struct Skeletons {
    /// The MD5 skeleton.
    pub md5: Skeleton,
    /// The SMD skeleton.
    pub smd: Skeleton,
}

impl Skeletons {
    /// Parses both skeletons (an empty one where a text does not parse).
    pub fn parse(md5mesh: &str, smd_reference: &str) -> Skeletons {
        Skeletons {
            md5: md5::parse_mesh(md5mesh).ok().and_then(|m| m.skeleton).unwrap_or_default(),
            smd: smd::parse_reference(smd_reference).ok().and_then(|m| m.skeleton).unwrap_or_default(),
        }
    }
}

/// Runs target `name` on `data`; `false` for a name that is no target.
pub fn run(name: &str, data: &[u8], skeletons: &Skeletons) -> bool {
    match name {
        "fbx" => fbx(data),
        "gltf" => gltf(data),
        "iqm" => iqm(data),
        "manifest" => manifest(data),
        "md2" => md2(data),
        "md3" => md3(data),
        "md5_anim" => md5_anim(data, &skeletons.md5),
        "md5_mesh" => md5_mesh(data),
        "mdl" => mdl(data),
        "obj" => obj(data),
        "output_plan" => output_plan(data),
        "palette" => palette(data),
        "pose_render" => pose_render(data),
        "project" => project(data),
        "scripts" => scripts(data),
        "smd" => smd_files(data, &skeletons.smd),
        "studio" => studio(data),
        "texture" => texture(data),
        _ => return false,
    }
    true
}

/// glTF/GLB parsing never panics or allocates beyond the input's size, and whatever it
/// accepts poses (every clip, and all of them together) and renders.
pub fn gltf(data: &[u8]) {
    let Ok(mut model) = gltf_format::parse(data, &mut |_| None, &Default::default()) else { return };
    let _ = bake::add_all_clip(&mut model);
    let clips: Vec<_> = std::iter::once(None).chain(model.clips.iter().map(Some)).take(4).collect();
    for clip in clips {
        for time in [0.0, 0.37, 1.0] {
            render(&model, &FrameRequest::clip(clip, FrameTime::Seconds(time), PoseOptions::default()));
        }
    }
}

/// `check` manifests parse or fail cleanly.
pub fn manifest(data: &[u8]) {
    let _ = crate::check::Manifest::parse(&String::from_utf8_lossy(data), Path::new("fuzz.toml"));
}

/// Palette files (`.gpl`, `.hex`, `.pal`, and by their first line) parse or fail cleanly.
pub fn palette(data: &[u8]) {
    for name in ["fuzz.gpl", "fuzz.hex", "fuzz.pal", "fuzz.txt"] {
        let _ = crate::bake::look::palette::parse(Path::new(name), data);
    }
}

/// `bake` project files parse or fail cleanly.
pub fn project(data: &[u8]) {
    let _ = crate::bake::project::Project::parse(&String::from_utf8_lossy(data), Path::new("fuzz/project.toml"));
}

/// FBX loading never panics, and a loaded model poses and renders: the first frames of its
/// first clips, as for glTF. ufbx works under a 64 MiB budget, as a hostile file would meet.
pub fn fbx(data: &[u8]) {
    let budget = crate::MemoryBudget::new(64 << 20);
    let Ok(model) = fbx_format::parse_within(data, &Default::default(), &budget) else { return };
    let clips: Vec<_> = std::iter::once(None).chain(model.clips.iter().map(Some)).take(3).collect();
    for clip in clips {
        render(&model, &FrameRequest::clip(clip, FrameTime::Seconds(0.0), PoseOptions::default()));
    }
}

/// Half-Life studio model loading never panics (no textures or sequence group files beside it),
/// and a loaded model poses and renders the first frames of its first sequences.
pub fn studio(data: &[u8]) {
    let budget = crate::MemoryBudget::new(64 << 20);
    let Ok(model) = studio_format::parse_within(data, "fuzz", &mut |_| None, (&[], 0), 1024, &budget) else { return };
    let clips: Vec<_> = std::iter::once(None).chain(model.clips.iter().map(Some)).take(3).collect();
    for clip in clips {
        render(&model, &FrameRequest::clip(clip, FrameTime::Frame(1.0), PoseOptions::default()));
    }
}

/// MD2 parsing never panics or allocates beyond the input's size.
pub fn md2(data: &[u8]) {
    let _ = md2_format::parse(data);
}

/// IQM parsing never panics or allocates beyond the budget, and whatever it accepts poses
/// (rest pose and every clip) and renders.
pub fn iqm(data: &[u8]) {
    if let Ok(model) = iqm_format::parse(data) {
        pose_each_clip(&model);
    }
}

/// Quake 1 MDL parsing never panics or allocates beyond the budget, and whatever it accepts
/// poses (every clip) and renders.
pub fn mdl(data: &[u8]) {
    if let Ok(model) = mdl_format::parse(data) {
        pose_each_clip(&model);
    }
}

/// Renders the rest pose and up to three clips at whole and half frames.
fn pose_each_clip(model: &Model) {
    let clips: Vec<_> = std::iter::once(None).chain(model.clips.iter().map(Some)).take(4).collect();
    for clip in clips {
        for time in [0.0, 0.5, 1.0] {
            render(model, &FrameRequest::clip(clip, FrameTime::Frame(time), PoseOptions::default()));
        }
    }
}

/// MD3 loading never panics, and a loaded model poses and renders its first frames.
pub fn md3(data: &[u8]) {
    let Ok(model) = md3_format::parse_within(data, &crate::MemoryBudget::new(64 << 20)) else { return };
    for time in [0.0, 1.5] {
        render(&model, &FrameRequest::clip(model.clips.first(), FrameTime::Frame(time), PoseOptions::default()));
    }
}

/// MD5 anim parsing against a skeleton never panics.
pub fn md5_anim(data: &[u8], skeleton: &Skeleton) {
    let _ = md5::parse_anim(&String::from_utf8_lossy(data), "fuzz", skeleton);
}

/// MD5 mesh parsing never panics.
pub fn md5_mesh(data: &[u8]) {
    let _ = md5::parse_mesh(&String::from_utf8_lossy(data));
}

/// OBJ loading (with the input also offered as its material library) never panics.
pub fn obj(data: &[u8]) {
    let _ = obj_format::parse(data, &mut |_| Some(data.to_vec()));
}

/// SMD reference and sequence parsing (against a skeleton) never panics.
pub fn smd_files(data: &[u8], skeleton: &Skeleton) {
    let text = String::from_utf8_lossy(data);
    let _ = smd::parse_reference(&text);
    let _ = smd::parse_sequence(&text, "fuzz", skeleton);
}

/// Texture decoding never panics.
pub fn texture(data: &[u8]) {
    let _ = textures::decode_image(data, Path::new("fuzz.tga"));
}

/// `.qc`, `.def`, `.mtr` and `.shader` scripts never panic: the QC parser reads the input as
/// the script and as every `$include` it names (so include nesting and the include limits are
/// exercised), the DEF parser reads it and follows `inherit` for every model it declares, and
/// the MTR and Quake 3 shader parsers read it keeping every declaration.
pub fn scripts(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let _ = qc::parse(&text, Path::new("fuzz/m.qc"), &mut |p| Ok(Ok((p.to_path_buf(), text.to_string()))));
    if let Ok(models) = def::parse(&text) {
        let _ = def::declared(&models, None, Path::new("m.def"));
        for m in models.iter().take(8) {
            let _ = def::declared(&models, Some(&m.name), Path::new("m.def"));
        }
    }
    let _ = mtr::parse(&text, &|_| true);
    let _ = q3shader::parse(&text, &|_| true);
}

/// Output planning with names taken from model files: whatever the clip names and the
/// pattern, parsing and expanding never panic, a sanitized name is one plain path component,
/// and a path planned from a fixed pattern never leaves the pattern's folder.
///
/// Input: the pattern, then names (each a clip and a direction name), separated by NUL bytes.
///
/// # Panics
/// When one of those properties does not hold (what the fuzzer looks for).
pub fn output_plan(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let mut parts = text.split('\0');
    let pattern = parts.next().unwrap_or_default();
    let names: Vec<&str> = parts.collect();
    if let Ok(p) = FramePattern::parse(pattern) {
        for (i, name) in names.iter().enumerate() {
            let _ = p.path(name, i as u32, name, i);
        }
    }
    let Ok(fixed) = FramePattern::parse("out/{clip}_{dir:02}_{frame:03}.png") else { return };
    let mut plan = OutputPlan::new();
    for (i, name) in names.iter().enumerate() {
        let safe = sanitize_component(name);
        let mut components = Path::new(&safe).components();
        assert!(
            matches!(components.next(), Some(Component::Normal(_))) && components.next().is_none(),
            "{name:?} sanitized to {safe:?}, not one component"
        );
        assert!(safe.len() <= MAX_COMPONENT_BYTES, "{safe:?} is too long");
        assert!(!safe.starts_with('.') && !safe.chars().any(char::is_control), "{safe:?}");
        let path = fixed.path(name, (i % 16) as u32, name, i);
        let components: Vec<Component> = path.components().collect();
        assert!(
            components.len() == 2
                && components[0] == Component::Normal("out".as_ref())
                && matches!(components[1], Component::Normal(_)),
            "{name:?} planned {path:?}"
        );
        plan.add(path, OutputFormat::Png);
    }
    // Names that sanitize alike collide; checking the plan reports it and never panics.
    let _ = plan.check(&[]);
}

/// Whatever a parser accepts (the first byte picks MD2, MD5, SMD or OBJ) poses — every clip,
/// whole and half frames, and with every animation layer: transition, blend, bone override,
/// attachments — and renders a small image without panicking or running away.
pub fn pose_render(data: &[u8]) {
    let Some((&kind, rest)) = data.split_first() else { return };
    let text = String::from_utf8_lossy(rest);
    let model = match kind % 4 {
        0 => md2_format::parse(rest).ok(),
        1 => md5::parse_mesh(&text).ok(),
        2 => smd::parse_reference(&text).ok(),
        _ => obj_format::parse(rest, &mut |_| None).ok(),
    };
    let Some(model) = model else { return };
    let clips: Vec<_> = std::iter::once(None).chain(model.clips.iter().map(Some)).take(4).collect();
    for clip in clips {
        for time in [0.0, 0.5, 1.0] {
            render(&model, &FrameRequest::clip(clip, FrameTime::Frame(time), PoseOptions::default()));
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
        render(&model, &FrameRequest { animation: animation.clone(), time: FrameTime::Frame(time) });
    }
}

/// Renders a 24² one-sample frame of `model` (errors are fine; panics are not).
fn render(model: &Model, request: &FrameRequest) {
    let options = RenderOptions { width: 24, height: 24, ssaa: 1, ..RenderOptions::default() };
    let _ = bake::render_frame(&Renderer::new(), model, request, &OrbitView::default(), &options);
}
