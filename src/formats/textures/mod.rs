//! Texture lookup and decoding: the one place where texture names become images.
//!
//! Names read from models are untrusted and often wrong: Quake 2 models name `.pcx` skins
//! under `players/ogro/` but ship `.png` files beside the model, MD5 shaders name
//! `models/x/skin` without extension, Windows exporters write `.\tex.jpg` and files differ in
//! case. Each material's texture is taken from the first of these that gives one
//! (recorded as its [`TextureSource`]):
//!
//! 1. **`--texture`**: an override for the material, else one for every material.
//! 2. **The model's own reference**: the path the model names, relative to the model's folder
//!    (or, for an absolute or `..` path, where it leads if that is inside a `--texture-root`),
//!    each component matched without regard to case; then the name in each of the loader's
//!    extra search folders ([`TextureResolver::with_search_folders`], for the texture folders
//!    a format's own script names, such as a QC's `$cdtexture` and `$texturepath`), with the
//!    candidates of step 3.
//! 3. **The model's folder**: the name as written and then its file name alone, each with the
//!    alternative extensions `.png .tga .pcx .bmp .jpg .jpeg` and, for names without
//!    extension, `_d` diffuse suffixes (Doom 3 style), matched case-insensitively against the
//!    folder's entries; then the file name's candidates in each direct subfolder (`skins/`,
//!    `textures/`). A material of a skinned format (MD2, MD5, SMD) that names no texture tries
//!    the model's own stem here (`sydney.md2` ships `sydney.bmp`).
//! 4. **The only image**: when a model of such a format names no texture at all (an MD2 with
//!    zero skins) and its folder holds exactly one image file, that image, with a warning
//!    naming it.
//!
//! A name that is absolute or climbs out of the folder with `..` is reduced to its basename
//! unless it leads into a `--texture-root`. The lookup is by name only; every file it finds is
//! read through [`crate::confine`], which follows symbolic links and refuses what lands outside
//! the model's folder and its roots, anything but a regular file, and files over the size limit,
//! so model data can never make spritebake read files outside the model's folder. Search
//! folders outside those folders are skipped with a warning, unlisted.
//! Images are recognised by content, not extension (a PNG named `.pcx` loads). Missing or
//! undecodable textures become the magenta checker plus a warning.

mod decode;

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use crate::budget::MemoryBudget;
use crate::confine::{Confinement, Keep, Reader};
use crate::model::{Model, Texture, TextureSource, TextureStatus};

pub use decode::{DecodeError, MAX_TEXTURE_SIDE, decode_image, decode_image_within, split_budget};

const EXTENSIONS: [&str; 6] = ["png", "tga", "pcx", "bmp", "jpg", "jpeg"];

/// A texture given on the command line: for every material, or for one material by name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextureOverride {
    /// Material name, or `None` for all materials.
    pub material: Option<String>,
    /// Image file.
    pub path: PathBuf,
}

/// Finds and decodes the textures a model names.
#[derive(Debug)]
pub struct TextureResolver {
    /// Where names read from the model may lead: its folder and the `--texture-root`s.
    scope: Confinement,
    overrides: Vec<TextureOverride>,
    max_side: u32,
    /// Decoded textures by canonical path: materials sharing a file share one texture.
    cache: HashMap<PathBuf, Arc<Texture>>,
    /// Where each texture name was found (or not).
    found: HashMap<String, Option<(PathBuf, TextureSource)>>,
    index: FolderIndex,
    /// Extra folders where the names a model gives are looked for (step 2).
    search_folders: Vec<PathBuf>,
    /// Whether a material naming no texture is a skin to look for (MD2, MD5, SMD: steps 3
    /// and 4 for it), rather than a plain colour (OBJ, glTF).
    skin_fallbacks: bool,
}

/// True when a texture name is absolute or climbs with `..`: it is not followed as written
/// unless it lands inside an allowed texture root.
fn leaves_folder(name: &Path) -> bool {
    !name.components().all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
}

impl TextureResolver {
    /// A resolver looking for names read from the model inside `scope` (the model's folder and
    /// the `--texture-root`s).
    pub fn new(scope: Confinement, overrides: Vec<TextureOverride>) -> TextureResolver {
        TextureResolver {
            scope,
            overrides,
            max_side: MAX_TEXTURE_SIDE,
            cache: HashMap::new(),
            found: HashMap::new(),
            index: FolderIndex::default(),
            search_folders: Vec::new(),
            skin_fallbacks: false,
        }
    }

    /// The same resolver also looking for the texture names a model gives in `folders`
    /// (relative ones taken from the model's folder), after the path as written and before
    /// the search of the model's folder: the hook for formats whose scripts name texture
    /// folders (a QC's `$cdtexture` and `$texturepath`). Each folder must lie inside the
    /// model's folder or a `--texture-root`; one outside is skipped with a warning.
    pub fn with_search_folders(mut self, folders: Vec<PathBuf>) -> TextureResolver {
        self.search_folders = folders;
        self
    }

    /// The same resolver treating a material that names no texture as a skin to look for (the
    /// model's stem, then the only image in its folder): for MD2, MD5 and SMD models, whose
    /// materials are skins, not for OBJ and glTF, where a material without a texture is a
    /// plain colour.
    pub fn with_skin_fallbacks(mut self, on: bool) -> TextureResolver {
        self.skin_fallbacks = on;
        self
    }

    /// The same resolver accepting textures up to `side` texels wide and high.
    pub fn with_max_texture_side(mut self, side: u32) -> TextureResolver {
        self.max_side = side.max(1);
        self
    }

    fn dir(&self) -> &Path {
        self.scope.home()
    }

    /// Fills in every material's texture, status and source, reading through `reader`, in the
    /// order of the module documentation. Each texture decoded is charged to `budget` (a file
    /// used by several materials, once).
    ///
    /// # Errors
    /// A texture would take the model over its memory budget. Textures that are missing, refused
    /// or cannot be decoded are not errors: they become the fallback plus a warning.
    pub fn resolve_model(
        &mut self,
        model: &mut Model,
        reader: &mut Reader,
        budget: &MemoryBudget,
    ) -> crate::Result<()> {
        let stem_fallback = model.name.clone();
        let names_none = model.materials.iter().all(|m| m.texture_name.is_none());
        let mut warnings = Vec::new();
        self.check_search_folders(&mut warnings);
        // Step 4's image, looked for once (when a material first needs it).
        let mut only_image: Option<Option<PathBuf>> = None;
        for material in &mut model.materials {
            let chosen = self
                .overrides
                .iter()
                .find(|o| o.material.as_deref() == Some(material.name.as_str()))
                .or_else(|| self.overrides.iter().find(|o| o.material.is_none()))
                .cloned();
            if let Some(o) = chosen {
                // A texture the user named: anywhere, but still a bounded regular-file read.
                // Kept as bytes: one override serves every material, read once.
                let read = reader.read_user(&o.path, Keep::Bytes).map_err(|d| DecodeError::from(d.to_string()));
                match split_budget(read.and_then(|(canonical, bytes)| self.decode_cached(canonical, &bytes, budget)))? {
                    Ok(texture) => {
                        material.texture = Some(texture);
                        material.texture_status = TextureStatus::Found(o.path.clone());
                        material.texture_source = Some(TextureSource::Override);
                    }
                    Err(reason) => {
                        let name = o.path.display().to_string();
                        warnings.push(format!("texture '{name}' for material '{}': {reason}", material.name));
                        material.texture = Some(Arc::new(Texture::missing()));
                        material.texture_status = TextureStatus::Missing { name, reason };
                    }
                }
                continue;
            }
            let Some(name) = material.texture_name.clone() else {
                if !self.skin_fallbacks {
                    continue;
                }
                // A skin the model does not name: the model's stem, then the only image.
                let by_stem = self.find_with_source(&stem_fallback).map(|(p, _)| (p, TextureSource::ModelFolder));
                let by_stem = match by_stem {
                    Some((path, source)) => {
                        split_budget(self.read_and_decode(path, reader, budget))?.ok().map(|t| (t, source))
                    }
                    None => None,
                };
                let found = match by_stem {
                    Some(found) => Some(found),
                    None if names_none => {
                        let image =
                            only_image.get_or_insert_with(|| self.only_image(&material.name, &mut warnings)).clone();
                        match image {
                            Some(path) => match split_budget(self.read_and_decode(path.clone(), reader, budget))? {
                                Ok(found) => Some((found, TextureSource::OnlyImage)),
                                Err(reason) => {
                                    warnings.push(format!(
                                        "texture '{}' for material '{}' {reason}",
                                        path.display(),
                                        material.name
                                    ));
                                    None
                                }
                            },
                            None => None,
                        }
                    }
                    None => None,
                };
                if let Some(((path, texture), source)) = found {
                    material.texture = Some(texture);
                    material.texture_status = TextureStatus::Found(path);
                    material.texture_source = Some(source);
                }
                continue;
            };
            match self.named(&name, &material.name, reader, budget, &mut warnings)? {
                Ok(((path, texture), source)) => {
                    material.texture = Some(texture);
                    material.texture_status = TextureStatus::Found(path);
                    material.texture_source = Some(source);
                }
                Err(reason) => {
                    warnings.push(format!(
                        "texture '{name}' for material '{}' {reason} (looked in {} for it and the same stem as .png/.tga/.pcx/.bmp/.jpg)",
                        material.name,
                        self.dir().display()
                    ));
                    material.texture = Some(Arc::new(Texture::missing()));
                    material.texture_status = TextureStatus::Missing { name, reason };
                }
            }
        }
        own_alphas(model, budget)?;
        self.add_alpha_images(model, reader, budget, &mut warnings)?;
        model.warnings.extend(warnings);
        Ok(())
    }

    /// The texture a model names `name` for `material`: found and decoded, or why not.
    ///
    /// # Errors
    /// The texture would take the model over its budget.
    fn named(
        &mut self,
        name: &str,
        material: &str,
        reader: &mut Reader,
        budget: &MemoryBudget,
        warnings: &mut Vec<String>,
    ) -> crate::Result<Result<(Found, TextureSource), String>> {
        let written = PathBuf::from(name.replace('\\', "/"));
        // A name leaving the folder is followed as written only when the confinement allows
        // where it leads (a --texture-root); otherwise only its file name is looked for.
        let leaves = leaves_folder(&written);
        let as_written = self.dir().join(&written);
        let allowed = (leaves && reader.judge(&self.scope, &as_written).is_ok()).then_some(as_written);
        if leaves && allowed.is_none() {
            warnings.push(format!(
                "texture '{name}' for material '{material}' points outside the model's folder: refused, only its file name was looked for inside {} (--texture-root allows another folder)",
                self.dir().display()
            ));
        }
        let found = allowed
            .map(|p| (p, TextureSource::Named))
            .or_else(|| self.find_with_source(name))
            .ok_or_else(|| DecodeError::from("not found".to_string()));
        split_budget(found.and_then(|(p, source)| Ok((self.read_and_decode(p, reader, budget)?, source))))
    }

    /// Cuts each material with an alpha image ([`Material::alpha_texture_name`]: an MTL
    /// `map_d` naming another image than `map_Kd`) out by it: the image's alpha where it has
    /// any below opaque, else its luminance (an MTL scalar map's channel), multiplies the
    /// texture's (a white texture of the image's size where the material has none). An image
    /// of another size is sampled at the nearest texel. One that is missing is a warning.
    ///
    /// # Errors
    /// The cut texture would take the model over its budget.
    ///
    /// [`Material::alpha_texture_name`]: crate::model::Material::alpha_texture_name
    fn add_alpha_images(
        &mut self,
        model: &mut Model,
        reader: &mut Reader,
        budget: &MemoryBudget,
        warnings: &mut Vec<String>,
    ) -> crate::Result<()> {
        for material in &mut model.materials {
            let Some(name) = material.alpha_texture_name.clone() else { continue };
            let alpha = match self.named(&name, &material.name, reader, budget, warnings)? {
                Ok(((_, alpha), _)) => alpha,
                Err(reason) => {
                    warnings.push(format!(
                        "alpha image '{name}' (map_d) for material '{}' {reason}: not cut out",
                        material.name
                    ));
                    continue;
                }
            };
            let base = material.texture.clone().filter(|t| !t.rgba.is_empty());
            let (w, h) = base.as_ref().map_or((alpha.width, alpha.height), |t| (t.width, t.height));
            budget.charge(Texture::prepared_bytes(w, h), || {
                format!("material '{}' cut out by '{name}'", material.name)
            })?;
            material.texture = Some(Arc::new(cut_out(base.as_deref(), &alpha, (w, h))));
        }
        Ok(())
    }

    /// Keeps the search folders that lie inside the confinement (as their canonical paths),
    /// warning about the others, so no folder outside is ever listed.
    fn check_search_folders(&mut self, warnings: &mut Vec<String>) {
        let folders = std::mem::take(&mut self.search_folders);
        for folder in folders {
            let joined = self.dir().join(&folder);
            match self.scope.place(&joined) {
                Ok(canonical) if canonical.is_dir() => {
                    if !self.search_folders.contains(&canonical) {
                        self.search_folders.push(canonical);
                    }
                }
                Ok(_) => {}
                Err(denied) if denied.is_missing() => {}
                Err(denied) => {
                    warnings.push(format!("texture folder '{}' skipped: {denied}", folder.display()));
                }
            }
        }
    }

    /// Step 4: the one image file in the model's folder, if it holds exactly one, with a
    /// warning naming it; with several, a warning saying to choose one.
    fn only_image(&mut self, material: &str, warnings: &mut Vec<String>) -> Option<PathBuf> {
        let dir = self.dir().to_path_buf();
        let mut images = self.index.listing(&dir).values().filter(|p| is_image_name(p) && !p.is_dir());
        let first = images.next().cloned();
        let more = images.count();
        match (first, more) {
            (Some(image), 0) => {
                let file = image.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
                warnings.push(format!(
                    "material '{material}' names no texture: using {file}, the only image in {} (--texture gives another)",
                    dir.display()
                ));
                Some(image)
            }
            (Some(_), more) => {
                warnings.push(format!(
                    "material '{material}' names no texture and {} holds {} images: rendered untextured (--texture chooses one)",
                    dir.display(),
                    more + 1
                ));
                None
            }
            (None, _) => None,
        }
    }

    /// The file a texture name resolves to inside the model's folder, if any (see
    /// [`TextureResolver::find_with_source`]).
    pub fn find(&mut self, name: &str) -> Option<PathBuf> {
        self.find_with_source(name).map(|(path, _)| path)
    }

    /// The file a texture name resolves to, and which step found it: the path as written
    /// ([`TextureSource::Named`]; in another case, [`TextureSource::ModelFolder`]), the
    /// search folders, then the search of the model's folder. This is a lookup by name only:
    /// where the file leads (symbolic links) is judged when it is read. Answers are
    /// remembered, so a name repeated by many materials is looked up once.
    pub fn find_with_source(&mut self, name: &str) -> Option<(PathBuf, TextureSource)> {
        if let Some(found) = self.found.get(name) {
            return found.clone();
        }
        let found = self.find_uncached(name);
        self.found.insert(name.to_string(), found.clone());
        found
    }

    fn find_uncached(&mut self, name: &str) -> Option<(PathBuf, TextureSource)> {
        let normalised = name.replace('\\', "/");
        let path = Path::new(normalised.trim());
        let basename = path.file_name().map(PathBuf::from)?;
        // Only plain relative paths are followed as written; anything else is reduced to its
        // basename so the lookup stays inside the folder.
        let mut bases = Vec::new();
        if !leaves_folder(path) {
            bases.push(path.to_path_buf());
        }
        if basename != path {
            bases.push(basename);
        }
        let dir = self.scope.home().to_path_buf();
        // The path as written (any case).
        if !leaves_folder(path)
            && let Some(found) = self.index.lookup(&dir, path)
        {
            let exact = found == dir.join(path);
            return Some((found, if exact { TextureSource::Named } else { TextureSource::ModelFolder }));
        }
        for folder in self.search_folders.clone() {
            for base in &bases {
                for candidate in candidates(base) {
                    if let Some(found) = self.index.lookup(&folder, &candidate) {
                        return Some((found, TextureSource::SearchFolder));
                    }
                }
            }
        }
        let in_folder = |found| (found, TextureSource::ModelFolder);
        for base in &bases {
            for candidate in candidates(base) {
                if let Some(found) = self.index.lookup(&dir, &candidate) {
                    return Some(in_folder(found));
                }
            }
        }
        // Skins are often shipped in a folder beside the model (`skins/`, `textures/`): try
        // the basename in each direct subfolder, in name order so the choice is stable.
        let last = bases.last()?;
        for sub in self.index.subfolders(&dir) {
            for candidate in candidates(last) {
                if let Some(found) = self.index.lookup(&sub, &candidate) {
                    return Some(in_folder(found));
                }
            }
        }
        None
    }

    /// Reads `path` under the confinement (inside the folders, regular, bounded, once) and
    /// decodes it; a refusal or decoding failure is the reason shown with the fallback.
    /// A file already decoded (under any spelling of its name) is not read again; bytes are
    /// not kept once decoded.
    fn read_and_decode(
        &mut self,
        path: PathBuf,
        reader: &mut Reader,
        budget: &MemoryBudget,
    ) -> Result<(PathBuf, Arc<Texture>), DecodeError> {
        let canonical = reader.judge(&self.scope, &path).map_err(|d| d.to_string())?;
        if let Some(t) = self.cache.get(&canonical) {
            return Ok((path, t.clone()));
        }
        let (canonical, bytes) =
            reader.read_judged(canonical, Some(&self.scope), Keep::Nothing).map_err(|d| d.to_string())?;
        Ok((path, self.decode_cached(canonical, &bytes, budget)?))
    }

    fn decode_cached(
        &mut self,
        canonical: PathBuf,
        bytes: &[u8],
        budget: &MemoryBudget,
    ) -> Result<Arc<Texture>, DecodeError> {
        if let Some(t) = self.cache.get(&canonical) {
            return Ok(t.clone());
        }
        let texture = Arc::new(decode_image_within(bytes, &canonical, self.max_side, budget)?);
        self.cache.insert(canonical, texture.clone());
        Ok(texture)
    }
}

/// A texture found as a file: the path it was read from and the decoded texture.
type Found = (PathBuf, Arc<Texture>);

/// `base` (white where `None`) of size `(w, h)` with its alpha multiplied by `alpha`'s: the
/// alpha channel where `alpha` has one below opaque, else its luminance; sampled at the
/// nearest texel when the sizes differ.
fn cut_out(base: Option<&Texture>, alpha: &Texture, (w, h): (u32, u32)) -> Texture {
    let has_alpha = alpha.rgba.chunks_exact(4).any(|t| t[3] < 255);
    let mut rgba = base.map_or_else(|| vec![255; (w as usize) * (h as usize) * 4], |t| t.rgba.clone());
    for (i, texel) in rgba.chunks_exact_mut(4).enumerate() {
        let (x, y) = ((i % w as usize) as u64, (i / w as usize) as u64);
        let ax = (x * u64::from(alpha.width) / u64::from(w.max(1))) as usize;
        let ay = (y * u64::from(alpha.height) / u64::from(h.max(1))) as usize;
        let Some(a) = alpha.rgba.get((ay * alpha.width as usize + ax) * 4..).and_then(|t| t.get(..4)) else { continue };
        let cut = if has_alpha {
            a[3]
        } else {
            ((u32::from(a[0]) * 54 + u32::from(a[1]) * 183 + u32::from(a[2]) * 19) >> 8) as u8
        };
        texel[3] = ((u32::from(texel[3]) * u32::from(cut) + 127) / 255) as u8;
    }
    Texture { width: w, height: h, rgba, srgb: base.is_none_or(|t| t.srgb), mask_colour: None, glow: None }
}

/// Gives each material that reads its texture's alpha its own way a copy of the texture with
/// that alpha: a GoldSrc masked material ([`Material::palette_mask`]) the palette's last colour
/// transparent (a texture that is no 8-bit paletted BMP keeps its own alpha), one of
/// [`Material::inverted_alpha`] its alpha turned over (not the missing-texture checker, which
/// stays as it is, to be seen). Each copy is charged to `budget` first.
///
/// [`Material::palette_mask`]: crate::model::Material::palette_mask
/// [`Material::inverted_alpha`]: crate::model::Material::inverted_alpha
fn own_alphas(model: &mut Model, budget: &MemoryBudget) -> crate::Result<()> {
    for material in &mut model.materials {
        let Some(texture) = &material.texture else { continue };
        let mask = texture.mask_colour.filter(|_| material.palette_mask);
        let invert = material.inverted_alpha && !matches!(material.texture_status, TextureStatus::Missing { .. });
        if mask.is_none() && !invert {
            continue;
        }
        let (w, h) = (texture.width, texture.height);
        budget.charge(Texture::prepared_bytes(w, h), || {
            format!("material '{}': its {w}x{h} texture's copy with the alpha it reads", material.name)
        })?;
        let mut copy = mask.map_or_else(|| Texture::clone(texture), |colour| texture.masked(colour));
        if invert {
            copy.invert_alpha();
        }
        material.texture = Some(Arc::new(copy));
    }
    Ok(())
}

/// Case-insensitive lookups in the model's folder tree, each folder listed once: a model naming
/// thousands of textures costs one listing per folder, not one per candidate name.
#[derive(Debug, Default)]
struct FolderIndex {
    /// Folder → its entries by lower-cased name (the first one listed wins a tie).
    listings: HashMap<PathBuf, HashMap<String, PathBuf>>,
    /// Folder → its direct subfolders, sorted.
    subfolders: HashMap<PathBuf, Vec<PathBuf>>,
}

impl FolderIndex {
    /// `relative` inside `root`, matching each component without regard to case.
    fn lookup(&mut self, root: &Path, relative: &Path) -> Option<PathBuf> {
        let mut current = root.to_path_buf();
        for component in relative.components() {
            let Component::Normal(part) = component else { continue };
            let exact = current.join(part);
            if exact.symlink_metadata().is_ok() {
                current = exact;
                continue;
            }
            let wanted = part.to_string_lossy().to_lowercase();
            current = self.listing(&current).get(&wanted)?.clone();
        }
        // Anything but a folder counts as found, so a FIFO or a link out of the folder is
        // refused with its reason when read instead of being skipped as "not found".
        (current.symlink_metadata().is_ok() && !current.is_dir()).then_some(current)
    }

    fn listing(&mut self, folder: &Path) -> &HashMap<String, PathBuf> {
        self.listings.entry(folder.to_path_buf()).or_insert_with(|| {
            let mut entries = HashMap::new();
            for entry in std::fs::read_dir(folder).into_iter().flatten().flatten() {
                entries.entry(entry.file_name().to_string_lossy().to_lowercase()).or_insert_with(|| entry.path());
            }
            entries
        })
    }

    fn subfolders(&mut self, folder: &Path) -> Vec<PathBuf> {
        self.subfolders
            .entry(folder.to_path_buf())
            .or_insert_with(|| {
                let mut subdirs: Vec<PathBuf> = std::fs::read_dir(folder)
                    .into_iter()
                    .flatten()
                    .flatten()
                    .map(|e| e.path())
                    .filter(|p| p.is_dir())
                    .collect();
                subdirs.sort();
                subdirs
            })
            .clone()
    }
}

/// Whether a file name has one of the image extensions the resolver tries.
fn is_image_name(path: &Path) -> bool {
    let ext = path.extension().map(|e| e.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
    EXTENSIONS.contains(&ext.as_str())
}

/// Candidate file names for one base name: as written, then with alternative extensions, then
/// (for extensionless shader names) with a `_d` diffuse suffix.
fn candidates(base: &Path) -> Vec<PathBuf> {
    let mut out = vec![base.to_path_buf()];
    for ext in EXTENSIONS {
        out.push(base.with_extension(ext));
    }
    if base.extension().is_none() {
        let stem = base.to_string_lossy();
        for ext in EXTENSIONS {
            out.push(PathBuf::from(format!("{stem}_d.{ext}")));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("spritebake-resolve-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    pub(super) fn png(path: &Path, rgba: [u8; 4]) {
        let img = crate::raster::Image { width: 2, height: 2, rgba: rgba.repeat(4) };
        crate::output::write_png(path, &img).unwrap();
    }

    #[test]
    fn finds_other_extension_other_case_and_basename() {
        let dir = scratch("find");
        png(&dir.join("Skin.PNG"), [255, 0, 0, 255]);
        let mut r = TextureResolver::new(Confinement::for_model(&dir, &[]).unwrap(), Vec::new());
        assert_eq!(r.find("players/ogro/skin.pcx"), Some(dir.join("Skin.PNG")));
        assert_eq!(r.find("skin"), Some(dir.join("Skin.PNG")));
        assert_eq!(r.find(".\\SKIN.png"), Some(dir.join("Skin.PNG")));
        assert_eq!(r.find("other.png"), None);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn names_never_escape_the_model_folder() {
        let root = scratch("escape");
        let inside = root.join("model");
        std::fs::create_dir_all(&inside).unwrap();
        png(&root.join("secret.png"), [1, 2, 3, 255]);
        let mut r = TextureResolver::new(Confinement::for_model(&inside, &[]).unwrap(), Vec::new());
        assert_eq!(r.find("../secret.png"), None);
        assert_eq!(r.find(&root.join("secret.png").display().to_string()), None);
        // An absolute path still finds a same-named file inside the folder (a new resolver:
        // one remembers the folder as it was for one load).
        png(&inside.join("secret.png"), [9, 9, 9, 255]);
        let mut r = TextureResolver::new(Confinement::for_model(&inside, &[]).unwrap(), Vec::new());
        assert_eq!(r.find(&root.join("secret.png").display().to_string()), Some(inside.join("secret.png")));
        std::fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn many_names_list_each_folder_once() {
        let dir = scratch("index");
        std::fs::create_dir_all(dir.join("skins")).unwrap();
        png(&dir.join("skins/Last.png"), [1, 1, 1, 255]);
        let mut r = TextureResolver::new(Confinement::for_model(&dir, &[]).unwrap(), Vec::new());
        // Thousands of missing names, each tried with every extension in the folder and its
        // subfolder: the folder and the subfolder are each listed once.
        for i in 0..2000 {
            assert_eq!(r.find(&format!("tex{i}")), None);
        }
        assert_eq!(r.find("LAST.pcx"), Some(dir.join("skins/Last.png")));
        let mut listed: Vec<&PathBuf> = r.index.listings.keys().collect();
        listed.sort();
        assert_eq!(listed, [&dir, &dir.join("skins")]);
        std::fs::remove_dir_all(dir).unwrap();
    }
}
