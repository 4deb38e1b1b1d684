//! The `check` manifest: a TOML file of `[[case]]` tables, each inheriting from `[defaults]`.
//! Unknown keys are errors (a typo must not silently drop a setting).

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::error::{Error, Result};
use crate::formats::{Confinement, read_file};

/// `frames = "all"` or `frames = [0, 4, 7.5]`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum FramesSpec {
    /// `"all"`: every frame of the clip.
    All(String),
    /// Listed frame positions.
    List(Vec<f32>),
}

/// Every key a case (or `[defaults]`) may set; all optional so defaults can fill them.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)] // the README's "Golden checks" section documents each key
pub struct CaseSpec {
    pub name: Option<String>,
    pub model: Option<PathBuf>,
    pub anim: Option<Vec<String>>,
    pub clip: Option<String>,
    pub frame: Option<f32>,
    pub time: Option<f32>,
    pub frames: Option<FramesSpec>,
    pub size: Option<String>,
    pub yaw: Option<f32>,
    pub pitch: Option<f32>,
    pub ortho: Option<bool>,
    pub fov: Option<f32>,
    pub margin: Option<f32>,
    pub ssaa: Option<u32>,
    pub shading_rate: Option<String>,
    pub filter: Option<String>,
    pub shading: Option<String>,
    pub bands: Option<u32>,
    pub lights: Option<Vec<[f32; 3]>>,
    pub ambient: Option<f32>,
    pub background: Option<String>,
    pub two_sided: Option<bool>,
    pub in_place: Option<bool>,
    pub textures: Option<Vec<String>>,
    pub facing: Option<String>,
    pub golden: Option<PathBuf>,
    pub threshold: Option<f64>,
    pub max_pixels: Option<usize>,
    pub max_percent: Option<f64>,
    pub ignore_aa: Option<bool>,
    pub columns: Option<u32>,
    pub attach: Option<Vec<String>>,
    pub attach_offset: Option<Vec<String>>,
    pub bone: Option<Vec<String>>,
    pub blend: Option<String>,
    pub transition: Option<String>,
}

macro_rules! inherit {
    ($case:ident, $defaults:ident, $($field:ident),*) => {
        $( if $case.$field.is_none() { $case.$field = $defaults.$field.clone(); } )*
    };
}

impl CaseSpec {
    /// Fills every unset key from `defaults`.
    pub fn inherit(&mut self, defaults: &CaseSpec) {
        inherit!(
            self,
            defaults,
            name,
            model,
            anim,
            clip,
            frame,
            time,
            frames,
            size,
            yaw,
            pitch,
            ortho,
            fov,
            margin,
            ssaa,
            shading_rate,
            filter,
            shading,
            bands,
            lights,
            ambient,
            background,
            two_sided,
            in_place,
            textures,
            facing,
            golden,
            threshold,
            max_pixels,
            max_percent,
            ignore_aa,
            columns,
            attach,
            attach_offset,
            bone,
            blend,
            transition
        );
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ManifestFile {
    defaults: Option<CaseSpec>,
    #[serde(default)]
    case: Vec<CaseSpec>,
}

/// A parsed manifest: its folder (paths in cases are relative to it) and complete cases.
#[derive(Debug, Clone)]
pub struct Manifest {
    /// The manifest's folder.
    pub dir: PathBuf,
    /// Where the paths in cases may lead: the manifest's folder, plus folders allowed with
    /// [`Manifest::allowing`] (`--allow-dir`).
    pub scope: Confinement,
    /// The manifest's file stem (the JUnit class name).
    pub name: String,
    /// Cases with defaults applied, in file order.
    pub cases: Vec<CaseSpec>,
}

/// Largest manifest read, in bytes (about 10,000 cases of a few lines each). Parsed TOML
/// tables take about 75 times their text (2.7 MB of bare `[[case]]` lines took 200 MB), so
/// this limit is what bounds a manifest's memory; larger suites are split into manifests.
pub const MAX_MANIFEST_BYTES: u64 = 2 << 20;

impl Manifest {
    /// Reads and validates a manifest.
    ///
    /// # Errors
    /// Unreadable file, not a regular file, larger than [`MAX_MANIFEST_BYTES`], not UTF-8, TOML syntax, unknown keys (named with their line), cases without a
    /// `name`, `model` or `golden`, duplicate names.
    pub fn load(path: &Path) -> Result<Manifest> {
        // A regular file, bounded: a FIFO or a huge file must not hang or exhaust `check`.
        let size = std::fs::metadata(path).map_or(0, |m| m.len());
        if size > MAX_MANIFEST_BYTES {
            return Err(Error::Refused(format!(
                "{}: {size} bytes, over the {MAX_MANIFEST_BYTES} byte limit for manifests (split the suite into several)",
                path.display()
            )));
        }
        let bytes = read_file(path, MAX_MANIFEST_BYTES)?;
        let text = String::from_utf8(bytes).map_err(|e| {
            Error::Invalid(format!("{}: not UTF-8 text (byte {})", path.display(), e.utf8_error().valid_up_to()))
        })?;
        Manifest::parse(&text, path)
    }

    /// The same manifest with `folders` allowed besides its own for the paths cases name
    /// (`check --allow-dir`).
    ///
    /// # Errors
    /// A folder that does not exist.
    pub fn allowing(mut self, folders: &[PathBuf]) -> Result<Manifest> {
        self.scope = self.scope.allowing(folders)?;
        Ok(self)
    }

    /// Parses manifest text; `path` names it in errors and anchors relative paths.
    ///
    /// # Errors
    /// As [`Manifest::load`], except reading.
    pub fn parse(text: &str, path: &Path) -> Result<Manifest> {
        let file: ManifestFile = toml::from_str(text).map_err(|e| {
            let newlines_before = |at: usize| text.as_bytes().iter().take(at).filter(|&&b| b == b'\n').count();
            let line = e.span().map(|s| newlines_before(s.start) + 1);
            let at = line.map(|l| format!(" line {l}")).unwrap_or_default();
            Error::Invalid(format!("{}{at}: {}", path.display(), e.message()))
        })?;
        let defaults = file.defaults.unwrap_or_default();
        let mut cases = Vec::with_capacity(file.case.len());
        for (i, mut case) in file.case.into_iter().enumerate() {
            case.inherit(&defaults);
            let label = case.name.clone().unwrap_or_else(|| format!("#{}", i + 1));
            for (key, missing) in
                [("name", case.name.is_none()), ("model", case.model.is_none()), ("golden", case.golden.is_none())]
            {
                if missing {
                    return Err(Error::Invalid(format!("{}: case {label} has no `{key}`", path.display())));
                }
            }
            if cases.iter().any(|c: &CaseSpec| c.name == case.name) {
                return Err(Error::Invalid(format!("{}: two cases are named '{label}'", path.display())));
            }
            cases.push(case);
        }
        let dir = path.parent().unwrap_or(Path::new(".")).to_path_buf();
        let name = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        Ok(Manifest { scope: Confinement::for_manifest(&dir), dir, name, cases })
    }
}
