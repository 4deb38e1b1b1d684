//! Model file formats: one parser per module, each from bytes or text into [`Model`].
//!
//! Parsers never touch the filesystem. [`load`] is the one entry point that reads files: it
//! picks the parser from the file extension (or content), adds animation files, and resolves
//! every material's texture through one [`TextureResolver`]. Every read goes through one
//! confined reader ([`Confinement`]): the paths a model names stay inside its folder, and only regular files are read,
//! each once and bounded.

// The parsers are public for the fuzz targets and the integration tests, which drive them
// directly; library users load through `load` and see only that.
mod binary;
mod colour;
mod declarations;
pub(crate) mod def;
pub(crate) mod fbx;
pub(crate) mod files;
pub(crate) mod format;
pub(crate) mod gltf;
pub(crate) mod iqm;
pub(crate) mod md2;
mod md2_normals;
pub(crate) mod md3;
pub(crate) mod md3_player;
pub(crate) mod md5;
pub(crate) mod mdl;
pub(crate) mod mtr;
pub(crate) mod obj;
pub(crate) mod part;
pub(crate) mod q3shader;
pub(crate) mod qc;
pub(crate) mod smd;
pub(crate) mod studio;
pub(crate) mod textures;
mod tokens;

use std::path::{Path, PathBuf};
use std::sync::Arc;

pub(crate) use files::Files;
use files::in_file;
pub use format::Limits;
pub(crate) use format::{Format, MAX_MESHES};
pub(crate) use part::model_part;
pub use qc::BodyChoice;
pub use textures::TextureOverride;
pub(crate) use textures::TextureResolver;

use crate::bounds;
use crate::budget::MemoryBudget;
use crate::confine::{self, Confinement, Keep};
use crate::error::{Error, Result};
pub use crate::error::{FormatError, Location};
use crate::model::{Model, Orientation};

/// What to load besides the model file itself.
#[derive(Debug, Clone, Default)]
pub struct LoadOptions {
    /// Animation files to add as clips (`.md5anim`, sequence `.smd`), each named after its stem.
    pub animations: Vec<PathBuf>,
    /// Textures that replace what the model names.
    pub texture_overrides: Vec<TextureOverride>,
    /// Playback rate that replaces every clip's own rate.
    pub fps: Option<f32>,
    /// The axis the model faces, replacing the format's default (files exported from other
    /// tools often face another way than the engine's convention). It must be at right angles
    /// to the up axis.
    pub facing: Option<crate::model::Axis>,
    /// The model's up axis, replacing the format's default (an OBJ or glTF exported Z-up). The
    /// front turns with it ([`crate::model::Orientation::with_up`]) unless `facing` is given.
    pub up: Option<crate::model::Axis>,
    /// Folders besides the model's own that paths read from the model (textures, material
    /// libraries, buffers) may lead into (absolute paths, `..`, symbolic links). By default a
    /// model can only reach files in its own folder.
    pub texture_roots: Vec<PathBuf>,
    /// Extra folders where the texture names a model gives are looked for, after the path as
    /// written and before the search of the model's folder (step 2 of the order in
    /// `textures`). The hook for loaders of scripts that name texture folders (a QC's
    /// `$cdtexture` and `$texturepath`); relative folders are taken from the model's folder.
    /// Reads stay confined: a folder outside the model's folder and the `texture_roots` is
    /// skipped with a warning.
    pub texture_folders: Vec<PathBuf>,
    /// `.qc` models: the body shown in a `$bodygroup` (by default each group's first).
    pub bodies: Vec<BodyChoice>,
    /// `.def` files: the model declaration to load (by default the file's first).
    pub model_name: Option<String>,
    /// Quake 3 players: the skin (`lower_NAME.skin` ...; by default `default`); Half-Life
    /// models: the number of the skin family (by default 0); Quake 1 models: the number of the
    /// skin (by default 0).
    pub skin: Option<String>,
    /// Resource limits.
    pub limits: Limits,
}

/// Loads a model file with its animations and textures.
///
/// Every file the model names (material libraries, buffers, textures) is read through one
/// [`confine::Reader`] under the model's [`Confinement`]: inside the model's folder or a
/// `--texture-root`, regular files only, bounded by [`Limits::max_file_bytes`], each read once.
/// The model, animation and override texture files the caller names may be anywhere, but are
/// read by the same reader. Every path asked for ends up in [`Model::sources`].
///
/// # Errors
/// A missing or unreadable file, an unknown format, a malformed model or animation file, or a
/// material library or buffer the model needs that the confinement refuses ([`Error::Refused`],
/// naming the rule). Missing or refused textures are not errors: they become a visible fallback
/// plus a warning in [`Model::warnings`].
pub fn load(path: &Path, options: &LoadOptions) -> Result<Model> {
    load_within(path, options, &options.limits.budget())
}

/// As [`load`], charging what the files make spritebake allocate to `budget` (shared by
/// models that must fit together, such as a body's attachments).
///
/// # Errors
/// As [`load`]; [`Error::Budget`] when the model would go over the budget.
pub fn load_within(path: &Path, options: &LoadOptions, budget: &MemoryBudget) -> Result<Model> {
    let mut reader = confine::Reader::new(options.limits.max_file_bytes);
    let (_, bytes) = reader.read_user(path, Keep::Bytes).map_err(|d| d.into_error(path, path.display()))?;
    let format = Format::detect(path, &bytes)
        .ok_or_else(|| Error::UnsupportedFormat { path: path.to_path_buf(), expected: Format::extension_list() })?;
    let dir = path.parent().unwrap_or(Path::new(".")).to_path_buf();
    let scope = Confinement::for_model(&dir, &options.texture_roots)?;
    let skin_number = format_choices(format, options)?;
    let parsing = (bytes.len() as u64).saturating_mul(format.parse_bytes_per_byte());
    budget
        .charge(parsing, || format!("{}: parsing {} KiB of {format:?}", path.display(), bytes.len().div_ceil(1024)))?;
    let mut named = NamedFiles { reader: &mut reader, scope: &scope, dir: &dir, model: path, budget, refused: None };
    let parsed = parse(format, &bytes, options, skin_number, &mut named);
    let (mut model, mut project) = match named.refused {
        Some(error) => return Err(error),
        None => parsed?,
    };
    // What the game's scripts declare for the names its models give: an MD5 mesh's Doom 3
    // materials, an MD3 surface's (or a player's skin's) Quake 3 shaders.
    let declared: Option<Declarations> = match format {
        Format::Md5Mesh => Some(mtr::apply),
        Format::Md3 | Format::Md3Player => Some(q3shader::apply),
        _ => None,
    };
    if let Some(apply) = declared {
        let mut files = Files { reader: &mut reader, scope: &scope };
        project.folders.extend(apply(&mut model, path, &mut files, budget)?);
    }
    // Axes first: a front along the up axis would render nothing, so it stops the load
    // before animations and textures are read.
    model.orientation = orient(model.orientation, format, options)?;
    model.name = project
        .name
        .take()
        .unwrap_or_else(|| path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default());
    add_clips(&mut model, path, options, project.placement, &mut reader, budget)?;
    // MD2, MD3, MD5, SMD and IQM materials are skins: one the file does not name is still
    // looked for. Quake 1 and Half-Life MDLs carry their skins inside.
    let skins =
        matches!(format, Format::Md2 | Format::Md3 | Format::Md3Player | Format::Md5Mesh | Format::Smd | Format::Iqm);
    // A script's texture folders ($cdtexture, a .def's base folder), then any the caller adds;
    // the resolver keeps those inside the confinement and warns about the others.
    let folders = project.folders.into_iter().chain(options.texture_folders.iter().cloned()).collect();
    let mut resolver = TextureResolver::new(scope, options.texture_overrides.clone())
        .with_max_texture_side(options.limits.max_texture_side)
        .with_search_folders(folders)
        .with_skin_fallbacks(skins);
    resolver.resolve_model(&mut model, &mut reader, budget)?;
    model.sources = reader.into_sources();
    Ok(model)
}

/// Refuses the options that do not apply to `format` (`body`, `model_name`, `skin`), and
/// returns the number a skin names for a format whose skins are numbered.
fn format_choices(format: Format, options: &LoadOptions) -> Result<Option<usize>> {
    if !options.bodies.is_empty() && !matches!(format, Format::Qc | Format::Studio) {
        let body = options.bodies.iter().map(|b| format!("{}={}", b.group, b.choice)).collect::<Vec<_>>();
        return Err(Error::bad_option("body", body.join(", "), format!("applies to .qc models, not {format:?}")));
    }
    if let (Some(name), false) = (&options.model_name, format == Format::Def) {
        return Err(Error::bad_option("model_name", name, format!("applies to .def files, not {format:?}")));
    }
    // A Quake 3 player's skin is a name; a Half-Life model's, the number of a skin family; a
    // Quake 1 model's, the number of a skin.
    let number =
        |skin: &str, expected: &str| skin.parse::<usize>().map_err(|_| Error::bad_option("skin", skin, expected));
    Ok(match (&options.skin, format) {
        (Some(skin), Format::Studio) => Some(number(skin, "a skin family number for a Half-Life model (0, 1, ...)")?),
        (Some(skin), Format::Mdl) => Some(number(skin, "a skin number for a Quake 1 model (0, 1, ...)")?),
        (Some(skin), f) if f != Format::Md3Player => {
            let expected =
                format!("applies to Quake 3 players' animation.cfg, Quake 1 and Half-Life models, not {format:?}");
            return Err(Error::bad_option("skin", skin, expected));
        }
        _ => None,
    })
}

/// The files a model names, read for its parser by name from the model's folder. Parsers take
/// `None` for a missing file; a refusal is kept here and reported instead of whatever the
/// parser made of the missing file.
struct NamedFiles<'a> {
    reader: &'a mut confine::Reader,
    scope: &'a Confinement,
    /// The model's folder, where names are looked up.
    dir: &'a Path,
    /// The model file, which errors name.
    model: &'a Path,
    budget: &'a MemoryBudget,
    /// The first refusal.
    refused: Option<Error>,
}

impl NamedFiles<'_> {
    /// The bytes of the file `name` (`what` it is, for messages). Every file a model names is
    /// held whole while the model is parsed: charged before it is read (four Half-Life models
    /// naming 250 MB sequence groups once aborted a batch).
    fn read(&mut self, what: &str, name: &str) -> Option<Arc<Vec<u8>>> {
        let (path, budget, scope) = (self.model, self.budget, self.scope);
        let refused = &mut self.refused;
        let reader = &mut *self.reader;
        let read = reader.judge(scope, &self.dir.join(name)).and_then(|canonical| {
            let size = confine::file_len(&canonical);
            if let Err(e) = budget.charge(size, || format!("{what} '{name}'")) {
                refused.get_or_insert(in_file(e, path));
                return Ok(None);
            }
            reader.read_judged(canonical, Some(scope), Keep::Bytes).map(Some)
        });
        match read {
            Ok(None) => None,
            Ok(Some((_, bytes))) => Some(bytes),
            Err(denied) if denied.is_missing() => None,
            Err(denied) => {
                let subject = format!("{}: {what} '{name}'", path.display());
                refused.get_or_insert(denied.into_error(path, subject));
                None
            }
        }
    }

    /// The reader, for script formats that read the files they name themselves.
    fn files(&mut self) -> Files<'_> {
        Files { reader: self.reader, scope: self.scope }
    }
}

/// Parses the model file's `bytes` as `format`, with what a script format adds to the load.
fn parse(
    format: Format,
    bytes: &[u8],
    options: &LoadOptions,
    skin_number: Option<usize>,
    named: &mut NamedFiles,
) -> Result<(Model, Project)> {
    let (path, budget) = (named.model, named.budget);
    let with_file = |e: FormatError| Error::Format(e.in_file(path));
    let parsed = match format {
        Format::Obj => parse_obj(bytes, named),
        Format::Md2 => md2::parse_within(bytes, budget).map_err(|e| in_file(e, path)),
        Format::Mdl => mdl::parse_within(bytes, skin_number, budget).map_err(|e| in_file(e, path)),
        Format::Iqm => iqm::parse_within(bytes, budget).map_err(|e| in_file(e, path)),
        Format::Md3 => md3::parse_within(bytes, budget).map_err(|e| in_file(e, path)),
        Format::Md5Mesh => md5::parse_mesh(&String::from_utf8_lossy(bytes)).map_err(with_file),
        Format::Smd => smd::parse_reference(&String::from_utf8_lossy(bytes)).map_err(with_file),
        Format::Studio => {
            let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            let limits = &options.limits;
            let mut load = |name: &str| named.read("file", name);
            let choices = (options.bodies.as_slice(), skin_number.unwrap_or(0));
            studio::parse_within(bytes, &stem, &mut load, choices, limits.max_texture_side, budget)
                .map_err(|e| in_file(e, path))
        }
        Format::Fbx => fbx::parse_within(bytes, &options.limits, budget).map_err(|e| in_file(e, path)),
        Format::Gltf => gltf::parse_within(bytes, &mut |name| named.read("glTF buffer", name), &options.limits, budget)
            .map_err(|e| in_file(e, path)),
        // Script formats read the files they name themselves (through the same reader).
        Format::Qc => return parse_qc(bytes, options, named),
        Format::Md3Player => return parse_md3_player(bytes, options, named),
        Format::Def => return parse_def(bytes, options, named),
    };
    parsed.map(|model| (model, Project::default()))
}

/// An OBJ, each material library charged before it is parsed: a few bytes a material in the
/// file, about a kilobyte each once parsed.
fn parse_obj(bytes: &[u8], named: &mut NamedFiles) -> Result<Model> {
    let (path, budget) = (named.model, named.budget);
    let mut over_budget = None;
    let mut load_mtl = |name: &str| {
        let bytes = named.read("material library", name)?;
        let cost = obj::material_library_bytes(&bytes);
        match budget.charge(cost, || format!("material library '{name}'")) {
            Ok(()) => Some(Arc::unwrap_or_clone(bytes)),
            Err(e) => {
                over_budget.get_or_insert(in_file(e, path));
                None
            }
        }
    };
    let parsed = obj::parse(bytes, &mut load_mtl).map_err(|e| Error::Format(e.in_file(path)));
    match over_budget {
        Some(e) => Err(e),
        None => parsed,
    }
}

/// A `.qc`: its texture folders, and the placement of animations added to it.
fn parse_qc(bytes: &[u8], options: &LoadOptions, named: &mut NamedFiles) -> Result<(Model, Project)> {
    let (path, budget) = (named.model, named.budget);
    let built = qc::load(&String::from_utf8_lossy(bytes), path, &options.bodies, &mut named.files(), budget)?;
    Ok((built.model, Project { folders: built.texture_folders, placement: Some(built.placement), name: None }))
}

/// A Quake 3 player's `animation.cfg`: its folder searched for textures, and named after it.
fn parse_md3_player(bytes: &[u8], options: &LoadOptions, named: &mut NamedFiles) -> Result<(Model, Project)> {
    let (path, dir, budget) = (named.model, named.dir, named.budget);
    let skin = options.skin.as_deref().unwrap_or("default");
    let model = md3_player::load(&String::from_utf8_lossy(bytes), path, skin, &mut named.files(), budget)?;
    let name = dir.file_name().map(|n| n.to_string_lossy().into_owned());
    Ok((model, Project { folders: vec![dir.to_path_buf()], placement: None, name }))
}

/// A `.def`: its base folder searched for textures, and the declaration's name.
fn parse_def(bytes: &[u8], options: &LoadOptions, named: &mut NamedFiles) -> Result<(Model, Project)> {
    let (path, budget) = (named.model, named.budget);
    let wanted = options.model_name.as_deref();
    let built = def::load(&String::from_utf8_lossy(bytes), path, wanted, &mut named.files(), budget)?;
    let name = Some(built.model.name.clone());
    Ok((built.model, Project { folders: built.texture_folders, placement: None, name }))
}

/// Adds the animation files to the model's clips (a sequence added to a QC model placed as
/// its own are), renames clips that share a name, keeps each clip's rate in range and sets
/// every rate to `fps` when given.
fn add_clips(
    model: &mut Model,
    path: &Path,
    options: &LoadOptions,
    placement: Option<qc::Placement>,
    reader: &mut confine::Reader,
    budget: &MemoryBudget,
) -> Result<()> {
    for anim in &options.animations {
        add_animation(model, anim, reader, budget)?;
        // A sequence added to a QC model is placed as the QC's own sequences are.
        let smd = anim.extension().is_some_and(|e| e.eq_ignore_ascii_case("smd"));
        if let (true, Some(placement), Some(skeleton), Some(clip)) =
            (smd, placement, &model.skeleton, model.clips.last_mut())
        {
            placement.place_clip(skeleton, clip);
        }
    }
    let renamed = model.rename_duplicate_clips();
    let clamped = clamp_clip_rates(model);
    model.warnings.extend(renamed.into_iter().chain(clamped).map(|w| format!("{}: {w}", path.display())));
    if let Some(fps) = options.fps.filter(|f| f.is_finite() && *f > 0.0) {
        for clip in &mut model.clips {
            clip.fps = fps;
        }
    }
    Ok(())
}

/// The model's axes: the format's `convention` (what the parser declared) with the up and
/// front axes `options` give.
///
/// # Errors
/// [`Error::BadOption`] for `facing` when it is parallel to the up axis (`--facing +y` on a
/// Y-up OBJ): no rotation takes such axes to the renderer's frame, and the model would be
/// flattened onto a line and render as nothing.
fn orient(convention: Orientation, format: Format, options: &LoadOptions) -> Result<Orientation> {
    let mut orientation = match options.up {
        Some(up) => convention.with_up(up),
        None => convention,
    };
    if let Some(facing) = options.facing {
        let up = orientation.up;
        if facing.is_parallel(up) {
            let whose = match options.up {
                Some(_) => "as `up` says".to_string(),
                None => format!("the {} convention; `up` sets another", format.name()),
            };
            let expected = format!(
                "is parallel to the model's up axis {up} ({whose}): a model faces at right angles to its up axis"
            );
            return Err(Error::bad_option("facing", facing, expected));
        }
        orientation.forward = facing;
    }
    Ok(orientation)
}

/// Reads the declarations (Doom 3 materials, Quake 3 shaders) of a model's names from the
/// game's scripts, returning the folders where the paths they give are looked for.
type Declarations = fn(&mut Model, &Path, &mut Files, &MemoryBudget) -> Result<Vec<PathBuf>>;

/// What a script format (`.qc`, `.def`) adds to its model's load.
#[derive(Debug, Default)]
struct Project {
    /// Texture folders to search after the model's own.
    folders: Vec<PathBuf>,
    /// The placement of `.smd` animations added to a QC model.
    placement: Option<qc::Placement>,
    /// The model's name, when not the file's stem.
    name: Option<String>,
}

/// Parses an animation file (`.md5anim` or sequence `.smd`) and appends it as a clip named after
/// the file stem, its frames charged to `budget`.
fn add_animation(model: &mut Model, path: &Path, reader: &mut confine::Reader, budget: &MemoryBudget) -> Result<()> {
    let (_, bytes) = reader.read_user(path, Keep::Nothing).map_err(|d| d.into_error(path, path.display()))?;
    // The bytes and their text copy; the frames are charged by the parsers.
    let reading = (bytes.len() as u64).saturating_mul(2);
    budget.charge(reading, || format!("{}: reading {} KiB", path.display(), bytes.len().div_ceil(1024)))?;
    let text = String::from_utf8_lossy(&bytes);
    let name = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).unwrap_or_default();
    let with_file = |e: Error| in_file(e, path);
    let skeleton =
        model.skeleton.as_ref().ok_or_else(|| Error::in_file(path, "the model has no skeleton to animate"))?;
    let clip = match ext.as_str() {
        "md5anim" => md5::parse_anim_within(&text, &name, skeleton, budget).map_err(with_file)?,
        "smd" => {
            let (clip, warnings) = smd::parse_sequence_within(&text, &name, skeleton, budget).map_err(with_file)?;
            model.warnings.extend(warnings.into_iter().map(|w| format!("{}: {w}", path.display())));
            clip
        }
        _ => {
            return Err(Error::in_file(path, "unsupported animation file (expected .md5anim or .smd)"));
        }
    };
    model.clips.push(clip);
    Ok(())
}

/// Puts every clip's rate from the file inside [`bounds::FPS`] (the range `--fps` takes), with
/// a warning for each clip moved: at 3e38 fps every frame of a sheet lasted 0 ms, at 1e-30 fps
/// a million; a rate that is no number or not above 0 plays at 30 fps, as formats without one.
fn clamp_clip_rates(model: &mut Model) -> Vec<String> {
    let mut warnings = Vec::new();
    for clip in &mut model.clips {
        let fps = clip.fps;
        let played = if fps.is_finite() && fps > 0.0 { fps.clamp(bounds::FPS.min, bounds::FPS.max) } else { 30.0 };
        if played != fps {
            let range = format!("{} to {} fps", bounds::FPS.min, bounds::FPS.max);
            warnings.push(format!("clip '{}' plays at {fps} fps, outside {range}: played at {played} fps", clip.name));
            clip.fps = played;
        }
    }
    warnings
}
