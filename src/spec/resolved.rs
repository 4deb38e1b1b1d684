//! [`BakeSpec::resolve`]: every option checked once (ranges, options that need each other)
//! and turned into the typed settings the library runs on.
//!
//! Rules every command shares, decided in resolving a spec and nowhere else (which entries
//! are files in `paths.rs`, what plays in `playing.rs`):
//! * **Files or clip names.** An `anim`, `blend` or `transition` entry ending in `.md5anim` or
//!   `.smd` is an animation file (loaded as a clip named after its stem); anything else is the
//!   name of a clip in the model. The rule looks at the text only, so it means the same on every
//!   machine and in every manifest.
//! * **Which clip plays.** Commands that show one motion play `clip`, else the first `anim`,
//!   else the model's first clip that moves; a transition, if any, replaces it. Sprite sheets
//!   and frames render `clip` alone if given, else every `anim` as a row, else every clip of
//!   the model that moves (every clip when none does: see `bake::load`).
//! * **Root motion** is removed (walk cycles stay in place) unless `root_motion` is set, for
//!   every command; a `.qc` sequence keeps the motion its `LX LY LZ` flags do not mark, as
//!   studiomdl does, unless `in_place` is set.

use std::path::PathBuf;

use super::playing::playing;
use super::{
    BakeSpec, Controls, DirectionRef, FilterName, Fit, GifPaletteName, GifSpec, Ground, LayoutSpec, LimitsSpec,
    LookSpec, MapKind, ModelSpec, MomentSpec, NormalY, PackName, PixelArtFilter, RenderSpec, ShadingName,
    ShadingRateName, Size, SpriteSpec, ViewSpec,
};
use crate::anim::{FrameTime, PoseOptions};
use crate::bounds::{self, Bound};
use crate::error::{Error, Result};
use crate::formats::{BodyChoice, Limits, LoadOptions, TextureOverride};
use crate::output::gif::{GifOptions, Palette};
use crate::raster::{Filter, Light, OrbitView, Projection, RenderOptions, Shading, ShadingRate};
use crate::sprite::{Directions, FrameNames, JsonFormat, Layout, Looping, Packing, Sampling};

/// Post-processing of every finished image, in this order: pixel-art downscale (the image was
/// rendered `pixel_art` times larger), outline, then one palette for every image of the output;
/// and the surface maps that go with the images (`maps`, in normal-then-depth order, once each).
pub type Look = super::LookSpec;

/// A validated [`BakeSpec`] in the library's terms.
#[derive(Debug, Clone)]
pub struct Resolved {
    /// The spec it was resolved from.
    pub spec: BakeSpec,
    /// The model file.
    pub model: PathBuf,
    /// What to load with it.
    pub load: LoadOptions,
    /// Animation controls, animation files replaced by their clip names.
    pub controls: Controls,
    /// Clip names a sprite job renders as rows, in order (empty: every clip of the model).
    pub rows: Vec<String>,
    /// Which clips loop and which play once, by the user's choice (`once`, `loop`).
    pub looping: Looping,
    /// The clip a single-motion command plays (`None`: the model's first clip that moves).
    pub clip: Option<String>,
    /// The moments a single-image command shows (at least one).
    pub moments: Vec<FrameTime>,
    /// Posing.
    pub pose: PoseOptions,
    /// The camera.
    pub view: OrbitView,
    /// Render options at the size of the finished image (pixel art renders larger: see
    /// [`Resolved::render_options`]); with an auto size, the largest image.
    pub options: RenderOptions,
    /// Whether images are cut to their content (`size` = auto), at most `options`' size.
    pub auto_size: bool,
    /// Directions of a sprite job, with their names.
    pub directions: Directions,
    /// Framing of a sprite job.
    pub fit: Fit,
    /// Fixed scale of a sprite job, pixels per model unit.
    pub pixels_per_unit: Option<f32>,
    /// The ground a sprite job's pivot stands on.
    pub ground: Ground,
    /// Frames of each clip of a sprite job.
    pub sampling: Sampling,
    /// Post-processing.
    pub look: Look,
    /// Sheet layout.
    pub layout: Layout,
    /// Engine data beside a sheet.
    pub json_format: JsonFormat,
    /// Sheet frame names.
    pub frame_names: FrameNames,
    /// GIF encoding.
    pub gif: GifOptions,
    /// The direction a GIF shows, by index.
    pub gif_direction: u32,
    /// Resource limits.
    pub limits: Limits,
}

/// A value within its bound, or the option's error naming the range.
fn within<T>(key: &str, value: T, bound: Bound<T>) -> Result<T>
where
    T: PartialOrd + Copy + std::fmt::Display + std::str::FromStr + Send + Sync + 'static,
{
    bound.check(value).map_err(|e| Error::bad_option(key, value, e))
}

fn within_opt<T>(key: &str, value: Option<T>, bound: Bound<T>) -> Result<Option<T>>
where
    T: PartialOrd + Copy + std::fmt::Display + std::str::FromStr + Send + Sync + 'static,
{
    value.map(|v| within(key, v, bound)).transpose()
}

/// `maps` as a manifest writes it: `["normal", "depth"]`.
pub(crate) fn shown_maps(maps: &[MapKind]) -> String {
    let names: Vec<String> = maps.iter().map(|m| format!("{:?}", map_name(*m))).collect();
    format!("[{}]", names.join(", "))
}

/// A map's name as flags and keys spell it.
pub(crate) fn map_name(map: MapKind) -> &'static str {
    match map {
        MapKind::Normal => "normal",
        MapKind::Depth => "depth",
    }
}

/// Each map once, normal before depth, however the option listed them.
fn maps_in_order(maps: &[MapKind]) -> Vec<MapKind> {
    let mut maps = maps.to_vec();
    maps.sort();
    maps.dedup();
    maps
}

/// The job's directions: compass names, or `direction_names`, one per direction.
fn directions(s: &SpriteSpec) -> Result<Directions> {
    if s.mirror && s.directions < 3 {
        let expected = format!("flips the directions past the back, and {} direction(s) have none", s.directions);
        return Err(Error::bad_option("mirror", true, expected));
    }
    if s.direction_names.is_empty() {
        return Ok(Directions::compass(s.directions).mirrored(s.mirror));
    }
    let shown = s.direction_names.join(",");
    if s.direction_names.len() != s.directions as usize {
        let expected = format!(
            "one name per direction: {} names for `directions` = {} ({} given)",
            s.directions,
            s.directions,
            s.direction_names.len()
        );
        return Err(Error::bad_option("direction_names", shown, expected));
    }
    let named =
        Directions::named(s.direction_names.clone()).map_err(|e| Error::bad_option("direction_names", shown, e))?;
    Ok(named.mirrored(s.mirror))
}

/// The index of the direction a GIF shows. A number is an index when the job has that many
/// directions, else a name: `120` of 6 directions named by angle is the third.
fn gif_direction(choice: &DirectionRef, directions: &Directions) -> Result<u32> {
    let n = directions.count();
    match choice {
        DirectionRef::Index(i) if *i < n => Ok(*i),
        DirectionRef::Index(i) => directions.index_of(&i.to_string()).ok_or_else(|| {
            let expected = format!("must be from 0 to {} (the job has {n} `directions`)", n - 1);
            Error::bad_option("direction", i, expected)
        }),
        DirectionRef::Name(name) => directions.index_of(name).ok_or_else(|| {
            let expected =
                format!("must be an index or one of the job's directions ({})", directions.names().join(", "));
            Error::bad_option("direction", name, expected)
        }),
    }
}

impl BakeSpec {
    /// Checks every option and turns the spec into the library's settings.
    ///
    /// # Errors
    /// [`Error::BadOption`] naming the first refused option and what it accepts: a number out
    /// of its range, `facing` parallel to `up`, `palette` or a `pixel_art_filter` of mode
    /// without `pixel_art`, both `sample_fps` and `frames`, both `frame` and `time`, a GIF
    /// `direction` that the job's `directions` do not have, `direction_names` that are not
    /// one safe, unique name per direction, `pixels_per_unit` with a perspective view or
    /// per-frame fitting, an auto `size` with per-frame fitting,
    /// more `attach_offset`s than `attach`es, `extrude` wider than `padding`, a
    /// `filename_format` with unknown placeholders or that cannot tell frames apart, two
    /// transitions between the same clips, `maps` with `skeleton`, `normal_y` down without a
    /// normal map, no model.
    pub fn resolve(&self) -> Result<Resolved> {
        // Each group checked in turn: the first refused option is the one reported.
        check_model(&self.model)?;
        let moments = moments(&self.moment)?;
        let size = check_view(&self.view)?;
        let (directions, sampling) = sprite_frames(&self.sprite, &self.view)?;
        check_render(&self.render)?;
        check_look(&self.look)?;
        check_tuners(&self.render, &self.look)?;
        check_maps(&self.look)?;
        let outputs = outputs(&self.layout, &self.gif, &directions)?;
        let limits = limits(&self.limits)?;
        let playing = playing(&self.anim)?;
        let view = camera(&self.view, &self.sprite)?;
        let s = &self.sprite;
        Ok(Resolved {
            spec: self.clone(),
            model: self.model.model.clone(),
            load: self.load_options(limits),
            controls: playing.controls,
            rows: playing.rows,
            looping: playing.looping,
            clip: playing.clip,
            moments,
            pose: PoseOptions { looping: true, in_place: !self.anim.root_motion },
            view,
            options: render_options(&self.render, size),
            auto_size: self.view.size.is_auto(),
            directions,
            fit: s.fit,
            pixels_per_unit: s.pixels_per_unit,
            ground: s.ground,
            sampling,
            look: Look { maps: maps_in_order(&self.look.maps), ..self.look.clone() },
            layout: outputs.layout,
            json_format: outputs.json_format,
            frame_names: outputs.frame_names,
            gif: outputs.gif,
            gif_direction: outputs.gif_direction,
            limits,
        })
    }

    /// What the loader reads besides the model: each animation file once, texture overrides,
    /// axes, parts and limits.
    fn load_options(&self, limits: Limits) -> LoadOptions {
        let m = &self.model;
        let mut animations: Vec<PathBuf> = Vec::new();
        for entry in self.animation_files() {
            let path = PathBuf::from(entry);
            if !animations.contains(&path) {
                animations.push(path);
            }
        }
        LoadOptions {
            animations,
            texture_overrides: m
                .texture
                .iter()
                .map(|t| TextureOverride { material: t.material.clone(), path: t.path.clone() })
                .collect(),
            fps: m.fps,
            facing: m.facing,
            up: m.up,
            texture_roots: m.texture_root.clone(),
            texture_folders: Vec::new(),
            bodies: m.body.iter().map(|b| BodyChoice { group: b.group.clone(), choice: b.choice.clone() }).collect(),
            model_name: m.model_name.clone(),
            skin: m.skin.clone(),
            limits,
        }
    }
}

/// The model group: a model file, a frame rate in range, `facing` at right angles to `up`,
/// a declaration's name and a skin name that can be part of a file name.
fn check_model(m: &ModelSpec) -> Result<()> {
    if m.model.as_os_str().is_empty() {
        return Err(Error::bad_option("model", "(unset)", "a model file is needed"));
    }
    within_opt("fps", m.fps, bounds::FPS)?;
    if let (Some(facing), Some(up)) = (m.facing, m.up)
        && facing.is_parallel(up)
    {
        let expected = format!("is parallel to `up` ({up}): a model faces at right angles to its up axis");
        return Err(Error::bad_option("facing", facing, expected));
    }
    if m.model_name.as_deref().is_some_and(|n| n.trim().is_empty()) {
        return Err(Error::bad_option("model_name", "\"\"", "a model declaration's name"));
    }
    // The name becomes part of a file name: no folders, nothing to climb out with.
    let skin_name = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if let Some(skin) = m.skin.as_deref().filter(|s| !skin_name(s)) {
        return Err(Error::bad_option("skin", skin, "a skin name: letters, digits, '-' and '_'"));
    }
    Ok(())
}

/// The moments a single-image command shows: the `frame`s or the `time` (not both), else
/// the first frame.
fn moments(moment: &MomentSpec) -> Result<Vec<FrameTime>> {
    for f in &moment.frame {
        within("frame", *f, bounds::FRAME)?;
    }
    if moment.frame.len() > bounds::FRAMES.max {
        let n = moment.frame.len();
        return Err(Error::bad_option(
            "frame",
            format!("({n} frames)"),
            format!("at most {} frames", bounds::FRAMES.max),
        ));
    }
    within_opt("time", moment.time, bounds::TIME)?;
    if moment.time.is_some() && !moment.frame.is_empty() {
        return Err(Error::bad_option("time", moment.time.unwrap_or_default(), "give `frame` or `time`, not both"));
    }
    Ok(match (moment.time, moment.frame.as_slice()) {
        (Some(t), _) => vec![FrameTime::Seconds(t)],
        (None, []) => vec![FrameTime::Frame(0.0)],
        (None, frames) => frames.iter().map(|&f| FrameTime::Frame(f)).collect(),
    })
}

/// The camera's ranges; the size of the largest image.
fn check_view(v: &ViewSpec) -> Result<Size> {
    let size = v.size.largest();
    for side in [size.width, size.height] {
        within("size", side, bounds::SIDE)?;
    }
    within("yaw", v.yaw, bounds::YAW)?;
    within("pitch", v.pitch, bounds::PITCH)?;
    within("fov", v.fov, bounds::FOV)?;
    within("margin", v.margin, bounds::MARGIN)?;
    Ok(size)
}

/// A sprite job's directions, its framing (a fixed scale or an auto size frame the whole job,
/// which a per-frame `fit` cannot) and the frames it samples of each clip.
fn sprite_frames(s: &SpriteSpec, v: &ViewSpec) -> Result<(Directions, Sampling)> {
    within("directions", s.directions, bounds::DIRECTIONS)?;
    let directions = directions(s)?;
    within_opt("pixels_per_unit", s.pixels_per_unit, bounds::PIXELS_PER_UNIT)?;
    if let (Some(p), Fit::PerFrame) = (s.pixels_per_unit, s.fit) {
        let expected =
            "frames the whole job at one scale, and a per-frame `fit` fits each cell to its own frame: give one";
        return Err(Error::bad_option("pixels_per_unit", p, expected));
    }
    if let (true, Fit::PerFrame) = (v.size.is_auto(), s.fit) {
        let expected =
            "sizes every cell to the whole job, and a per-frame `fit` fits each cell to its own frame: give one";
        return Err(Error::bad_option("size", v.size, expected));
    }
    within_opt("sample_fps", s.sample_fps, bounds::SAMPLE_FPS)?;
    within_opt("frames", s.frames, bounds::FRAMES)?;
    if let (Some(fps), Some(_)) = (s.sample_fps, s.frames) {
        return Err(Error::bad_option("sample_fps", fps, "give `sample_fps` or `frames`, not both"));
    }
    let sampling = match (s.sample_fps, s.frames) {
        (Some(f), _) => Sampling::Fps(f),
        (None, Some(n)) => Sampling::Count(n),
        (None, None) => Sampling::ClipFrames,
    };
    Ok((directions, sampling))
}

/// The renderer's ranges.
fn check_render(r: &RenderSpec) -> Result<()> {
    within("ssaa", r.ssaa, bounds::SSAA)?;
    within("bands", r.bands, bounds::BANDS)?;
    within("ambient", r.ambient, bounds::AMBIENT)?;
    Ok(())
}

/// Post-processing: pixel art, one palette (a size or a file, for pixel art), the outline.
fn check_look(l: &LookSpec) -> Result<()> {
    within_opt("pixel_art", l.pixel_art, bounds::PIXEL_ART)?;
    within_opt("palette", l.palette, bounds::PALETTE)?;
    if let (Some(n), None) = (l.palette, l.pixel_art) {
        return Err(Error::bad_option("palette", n, "needs `pixel_art` (the palette reduces pixel art)"));
    }
    if let Some(file) = &l.palette_file {
        let shown = format!("'{}'", file.display());
        if let Some(n) = l.palette {
            let expected = format!("give `palette` ({n}) or `palette_file`, not both");
            return Err(Error::bad_option("palette_file", shown, expected));
        }
        if l.pixel_art.is_none() {
            return Err(Error::bad_option("palette_file", shown, "needs `pixel_art` (the palette reduces pixel art)"));
        }
    }
    if l.palette_dither && l.palette.is_none() && l.palette_file.is_none() {
        return Err(Error::bad_option(
            "palette_dither",
            true,
            "needs `palette` or `palette_file` (it dithers to the palette)",
        ));
    }
    within("outline", l.outline, bounds::OUTLINE)?;
    Ok(())
}

/// Options that only tune another one: given alone they would change nothing, silently.
fn check_tuners(r: &RenderSpec, l: &LookSpec) -> Result<()> {
    if l.pixel_art_filter == PixelArtFilter::Mode && l.pixel_art.is_none() {
        return Err(Error::bad_option(
            "pixel_art_filter",
            "mode",
            "needs `pixel_art` (it sets how pixel art downscales)",
        ));
    }
    if r.bands != RenderSpec::default().bands && r.shading != ShadingName::Toon {
        return Err(Error::bad_option("bands", r.bands, "needs `shading` toon (it sets the toon shading's bands)"));
    }
    if l.outline_color != LookSpec::default().outline_color && l.outline == 0 {
        return Err(Error::bad_option("outline_color", l.outline_color, "needs `outline` (it colours the outline)"));
    }
    Ok(())
}

/// The surface maps: not beside the skeleton overlay; a normal map for `normal_y` to flip.
fn check_maps(l: &LookSpec) -> Result<()> {
    if l.skeleton && !l.maps.is_empty() {
        return Err(Error::bad_option(
            "maps",
            shown_maps(&l.maps),
            "not with `skeleton` (the overlay is drawn on the colour image alone)",
        ));
    }
    if l.normal_y == NormalY::Down && !l.maps.contains(&MapKind::Normal) {
        return Err(Error::bad_option("normal_y", "down", "needs `maps` to include normal (it flips the normal map)"));
    }
    Ok(())
}

/// How a sheet and a GIF are written: the sheet's layout, its engine data and frame names,
/// the GIF's encoding and the direction it shows.
struct Outputs {
    layout: Layout,
    json_format: JsonFormat,
    frame_names: FrameNames,
    gif: GifOptions,
    gif_direction: u32,
}

/// The sheet's layout (extrusion within the padding, pages within their bounds), frame names
/// the engine data can tell apart, and the GIF's settings.
fn outputs(layout: &LayoutSpec, g: &GifSpec, directions: &Directions) -> Result<Outputs> {
    within("padding", layout.padding, bounds::PADDING)?;
    within("extrude", layout.extrude, bounds::EXTRUDE)?;
    if layout.extrude > layout.padding {
        let expected = format!("must be at most `padding` ({}): extrusion fills the padding", layout.padding);
        return Err(Error::bad_option("extrude", layout.extrude, expected));
    }
    let json_format = JsonFormat::from(layout.json_format);
    let names = layout.filename_format.as_deref().unwrap_or(json_format.default_frame_names());
    let frame_names = FrameNames::parse(names)
        .map_err(|expected| Error::bad_option("filename_format", format!("\"{names}\""), expected))?;
    let gif_direction = gif_direction(&g.direction, directions)?;
    let page = layout.max_size.0;
    for side in [page.width, page.height] {
        bounds::PAGE_SIDE.check(side).map_err(|e| Error::bad_option("max_size", page, format!("each side {e}")))?;
    }
    Ok(Outputs {
        layout: Layout {
            padding: layout.padding,
            extrude: layout.extrude,
            trim: layout.trim,
            max_size: (page.width, page.height),
            pot: layout.pot,
            packing: match layout.pack {
                PackName::Rows => Packing::Rows,
                PackName::Tight => Packing::Tight,
            },
            dedupe: layout.dedupe,
        },
        json_format,
        frame_names,
        gif: GifOptions {
            alpha_threshold: g.alpha_threshold,
            dither: g.dither,
            palette: match g.gif_palette {
                GifPaletteName::Global => Palette::Global,
                GifPaletteName::PerFrame => Palette::PerFrame,
            },
        },
        gif_direction,
    })
}

/// The resource limits, each within its bounds.
fn limits(spec: &LimitsSpec) -> Result<Limits> {
    within("max_file_mib", spec.max_file_mib, bounds::MAX_FILE_MIB)?;
    within("max_texture_side", spec.max_texture_side, bounds::MAX_TEXTURE_SIDE)?;
    within("max_memory_mib", spec.max_memory_mib, bounds::MAX_MEMORY_MIB)?;
    Ok(spec.limits())
}

/// The camera: the iso preset or yaw, pitch and projection; a fixed scale needs it
/// orthographic.
fn camera(v: &ViewSpec, s: &SpriteSpec) -> Result<OrbitView> {
    let projection = if v.ortho { Projection::Orthographic } else { Projection::Perspective { fov_y_degrees: v.fov } };
    let view = match v.view {
        Some(super::ViewPreset::Iso) => OrbitView { yaw_degrees: v.yaw, margin: v.margin, ..OrbitView::ISOMETRIC_2_1 },
        None => OrbitView { yaw_degrees: v.yaw, pitch_degrees: v.pitch, projection, margin: v.margin },
    };
    if let (Some(p), Projection::Perspective { .. }) = (s.pixels_per_unit, view.projection) {
        let expected = "needs an orthographic view (`ortho`, or the iso `view`): a perspective camera has no one scale";
        return Err(Error::bad_option("pixels_per_unit", p, expected));
    }
    Ok(view)
}

/// The renderer's settings at the finished image's size.
fn render_options(r: &RenderSpec, size: Size) -> RenderOptions {
    let lights = if r.light.is_empty() {
        vec![Light::KEY]
    } else {
        let share = 1.0 / r.light.len() as f32;
        r.light.iter().map(|d| Light { direction: d.0, intensity: share }).collect()
    };
    RenderOptions {
        width: size.width,
        height: size.height,
        ssaa: r.ssaa,
        shading_rate: match r.shading_rate {
            ShadingRateName::Pixel => ShadingRate::Pixel,
            ShadingRateName::Sample => ShadingRate::Sample,
        },
        filter: match r.filter.unwrap_or_default() {
            FilterName::Nearest => Filter::Nearest,
            FilterName::Bilinear => Filter::Bilinear,
            FilterName::Trilinear => Filter::Trilinear,
        },
        model_filters: r.filter.is_none(),
        shading: match r.shading {
            ShadingName::Unlit => Shading::Unlit,
            ShadingName::Lambert => Shading::Lambert,
            ShadingName::Toon => Shading::Toon { bands: r.bands },
        },
        lights,
        ambient: r.ambient,
        background: r.background.map(|c| c.0),
        cull_back_faces: !r.two_sided,
    }
}

impl Resolved {
    /// Render options for the job's cells: pixel art renders `pixel_art` times larger without
    /// supersampling (the hard-edged downscale is its anti-aliasing).
    pub fn render_options(&self) -> RenderOptions {
        match self.look.pixel_art {
            Some(scale) => RenderOptions {
                width: self.options.width * scale,
                height: self.options.height * scale,
                ssaa: 1,
                ..self.options.clone()
            },
            None => self.options.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::paths::is_animation_file;

    fn spec() -> BakeSpec {
        let mut spec = BakeSpec::default();
        spec.model.model = "m.obj".into();
        spec
    }

    #[test]
    fn refuses_what_would_be_silently_changed_naming_the_option() {
        let mut s = spec();
        s.look = LookSpec { palette: Some(16), ..LookSpec::default() };
        assert_eq!(
            s.resolve().unwrap_err().to_string(),
            "`palette` = 16: needs `pixel_art` (the palette reduces pixel art)"
        );
        let mut s = spec();
        s.look.pixel_art_filter = PixelArtFilter::Mode;
        assert_eq!(
            s.resolve().unwrap_err().to_string(),
            "`pixel_art_filter` = mode: needs `pixel_art` (it sets how pixel art downscales)"
        );
        let mut s = spec();
        s.look.pixel_art = Some(40);
        assert_eq!(s.resolve().unwrap_err().to_string(), "`pixel_art` = 40: must be from 1 to 16");
        let mut s = spec();
        s.model.fps = Some(0.0);
        assert!(s.resolve().unwrap_err().to_string().starts_with("`fps` = 0: must be from 0.01"));
        let mut s = spec();
        s.sprite = SpriteSpec { sample_fps: Some(0.0), ..SpriteSpec::default() };
        assert!(s.resolve().unwrap_err().to_string().starts_with("`sample_fps` = 0"));
        let mut s = spec();
        s.sprite.frames = Some(0);
        assert!(s.resolve().unwrap_err().to_string().starts_with("`frames` = 0: must be from 1"));
        let mut s = spec();
        s.sprite.directions = 8;
        s.gif.direction = crate::spec::DirectionRef::Index(9);
        assert_eq!(
            s.resolve().unwrap_err().to_string(),
            "`direction` = 9: must be from 0 to 7 (the job has 8 `directions`)"
        );
        let mut s = spec();
        s.layout.extrude = 3;
        assert!(s.resolve().unwrap_err().to_string().starts_with("`extrude` = 3: must be at most `padding` (2)"));
        assert!(BakeSpec::default().resolve().unwrap_err().to_string().starts_with("`model`"));
        let mut s = spec();
        (s.model.facing, s.model.up) = (Some(crate::model::Axis::NegZ), Some(crate::model::Axis::PosZ));
        assert_eq!(
            s.resolve().unwrap_err().to_string(),
            "`facing` = -z: is parallel to `up` (+z): a model faces at right angles to its up axis"
        );
        let mut t = spec();
        t.anim.transition = vec!["walk->run:0.2".parse().unwrap(), "walk.md5anim->run:0.5".parse().unwrap()];
        assert_eq!(
            t.resolve().unwrap_err().to_string(),
            "`transition` = walk->run:0.5: gives a second row named 'walk->run': one transition per pair of clips"
        );
        s.model.facing = Some(crate::model::Axis::NegY);
        assert_eq!(s.resolve().unwrap().load.up, Some(crate::model::Axis::PosZ));
    }

    #[test]
    fn directions_scale_and_auto_sizes_are_checked_together() {
        let err = |s: &BakeSpec| s.resolve().unwrap_err().to_string();
        let mut s = spec();
        s.sprite.directions = 4;
        s.sprite.direction_names = ["front", "left", "back", "right"].map(String::from).to_vec();
        s.gif.direction = DirectionRef::Name("BACK".into());
        let r = s.resolve().unwrap();
        assert_eq!((r.directions.name(3), r.gif_direction), ("right".to_string(), 2));
        s.sprite.direction_names.pop();
        assert_eq!(
            err(&s),
            "`direction_names` = front,left,back: one name per direction: 4 names for `directions` = 4 (3 given)"
        );
        let mut s = spec();
        s.sprite.pixels_per_unit = Some(32.0);
        assert!(err(&s).starts_with("`pixels_per_unit` = 32: needs an orthographic view"), "{}", err(&s));
        s.view.view = Some(crate::spec::ViewPreset::Iso);
        s.view.yaw = 45.0;
        let r = s.resolve().unwrap();
        // The iso preset sets the elevation and projection; the yaw stays the user's.
        assert_eq!((r.view.yaw_degrees, r.view.pitch_degrees, r.pixels_per_unit), (45.0, 30.0, Some(32.0)));
        s.sprite.fit = Fit::PerFrame;
        assert!(err(&s).contains("a per-frame `fit`"), "{}", err(&s));
        s.sprite.pixels_per_unit = Some(0.0);
        assert!(err(&s).starts_with("`pixels_per_unit` = 0: must be from 0.0001"), "{}", err(&s));
        let mut s = spec();
        s.view.size = "auto:64".parse().unwrap();
        let r = s.resolve().unwrap();
        assert_eq!((r.auto_size, r.options.width, r.options.height), (true, 64, 64));
        s.sprite.fit = Fit::PerFrame;
        assert!(err(&s).starts_with("`size` = auto:64x64: sizes every cell to the whole job"), "{}", err(&s));
    }

    #[test]
    fn maps_come_once_each_normal_first_and_refuse_what_they_cannot_follow() {
        let mut s = spec();
        s.look.maps = vec![MapKind::Depth, MapKind::Normal, MapKind::Depth];
        assert_eq!(s.resolve().unwrap().look.maps, [MapKind::Normal, MapKind::Depth]);
        s.look.skeleton = true;
        assert_eq!(
            s.resolve().unwrap_err().to_string(),
            "`maps` = [\"depth\", \"normal\", \"depth\"]: not with `skeleton` (the overlay is drawn on the colour image alone)"
        );
        let mut s = spec();
        (s.look.maps, s.look.normal_y) = (vec![MapKind::Depth], NormalY::Down);
        assert!(s.resolve().unwrap_err().to_string().starts_with("`normal_y` = down: needs `maps` to include normal"));
    }

    #[test]
    fn a_given_filter_overrides_the_models_own() {
        let mut s = spec();
        let r = s.resolve().unwrap();
        assert_eq!((r.options.filter, r.options.model_filters), (Filter::Trilinear, true));
        s.render.filter = Some(FilterName::Trilinear);
        let r = s.resolve().unwrap();
        assert_eq!((r.options.filter, r.options.model_filters), (Filter::Trilinear, false));
    }

    #[test]
    fn one_rule_for_files_clips_and_root_motion() {
        let mut s = spec();
        s.anim.anim = vec!["walk.md5anim".into(), "run".into(), "dir/Idle.SMD".into()];
        let r = s.resolve().unwrap();
        assert_eq!(r.load.animations, vec![PathBuf::from("walk.md5anim"), PathBuf::from("dir/Idle.SMD")]);
        assert_eq!(r.rows, vec!["walk", "run", "Idle"]);
        assert_eq!(r.clip.as_deref(), Some("walk"));
        assert!(r.pose.in_place);
        s.anim.clip = Some("run".into());
        s.anim.root_motion = true;
        let r = s.resolve().unwrap();
        assert_eq!((r.rows, r.clip.as_deref(), r.pose.in_place), (vec!["run".to_string()], Some("run"), false));
        assert!(!is_animation_file(".smd") && !is_animation_file("Armature|walk.001"));
    }
}
