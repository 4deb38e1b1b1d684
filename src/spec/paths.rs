//! The files a spec names: which `anim`, `blend` and `transition` entries are animation files
//! rather than clip names, and the paths a manifest or project file anchors to its folder.

use std::path::{Path, PathBuf};

use super::BakeSpec;
use crate::confine::Confinement;
use crate::error::Result;

/// Whether an `anim`, `blend` or `transition` entry names an animation file (by its
/// extension: `.md5anim`, `.smd`) rather than a clip of the model.
pub fn is_animation_file(entry: &str) -> bool {
    let lower = entry.to_ascii_lowercase();
    [".md5anim", ".smd"].iter().any(|ext| lower.ends_with(ext) && lower.len() > ext.len())
}

/// The clip an entry names: an animation file's stem, or the entry itself.
pub(super) fn clip_name(entry: &str) -> String {
    if is_animation_file(entry)
        && let Some(stem) = Path::new(entry).file_stem()
    {
        return stem.to_string_lossy().into_owned();
    }
    entry.to_string()
}

impl BakeSpec {
    /// The animation files the `anim`, `blend` and `transition` entries name, in that order
    /// (an entry may repeat).
    pub(super) fn animation_files(&self) -> impl Iterator<Item = &str> {
        let anim = &self.anim;
        let entries = anim.anim.iter().map(String::as_str);
        let entries = entries.chain(anim.blend.iter().map(|b| b.clip.as_str()));
        let entries = entries.chain(anim.transition.iter().flat_map(|t| [t.from.as_str(), t.to.as_str()]));
        entries.filter(|e| is_animation_file(e))
    }

    /// Every file the spec names itself: the model, animation files, texture overrides,
    /// attachments (the loader records what those files name in turn).
    pub fn named_files(&self) -> Vec<PathBuf> {
        let mut files = vec![self.model.model.clone()];
        files.extend(self.animation_files().map(PathBuf::from));
        files.extend(self.model.texture.iter().map(|t| t.path.clone()));
        files.extend(self.anim.attach.iter().map(|a| a.path.clone()));
        files.extend(self.look.palette_file.iter().cloned());
        files
    }

    /// Every path the spec names, for a manifest or project file to anchor (join to its
    /// folder) and confine: `(key, path)`.
    pub fn paths_mut(&mut self) -> Vec<(&'static str, &mut PathBuf)> {
        let mut paths: Vec<(&'static str, &mut PathBuf)> = vec![("model", &mut self.model.model)];
        paths.extend(self.model.texture.iter_mut().map(|t| ("texture", &mut t.path)));
        paths.extend(self.model.texture_root.iter_mut().map(|p| ("texture_root", p)));
        paths.extend(self.anim.attach.iter_mut().map(|a| ("attach", &mut a.path)));
        paths.extend(self.look.palette_file.iter_mut().map(|p| ("palette_file", p)));
        paths
    }

    /// The animation entries that name files (`anim`, `blend`, `transition`), as text, for a
    /// manifest or project file to anchor: `(key, entry)`.
    pub fn animation_entries_mut(&mut self) -> Vec<(&'static str, &mut String)> {
        let anim = &mut self.anim;
        let mut entries: Vec<(&'static str, &mut String)> =
            anim.anim.iter_mut().map(|a| ("anim", a)).filter(|(_, a)| is_animation_file(a)).collect();
        entries.extend(anim.blend.iter_mut().map(|b| ("blend", &mut b.clip)).filter(|(_, c)| is_animation_file(c)));
        for t in &mut anim.transition {
            entries.extend(
                [("transition", &mut t.from), ("transition", &mut t.to)]
                    .into_iter()
                    .filter(|(_, c)| is_animation_file(c)),
            );
        }
        entries
    }

    /// Joins every path a spec names to `scope`'s folder and checks it leads inside the allowed
    /// folders (files must exist; a `texture_root` must be a folder inside). Manifests and project
    /// files anchor their specs with this.
    ///
    /// # Errors
    /// A path outside the allowed folders, missing, or not a regular file; the error names the key.
    pub fn anchored(&self, scope: &Confinement) -> Result<BakeSpec> {
        let mut spec = self.clone();
        let home = scope.home().to_path_buf();
        for (key, path) in spec.paths_mut() {
            let joined = home.join(&*path);
            let judged = if key == "texture_root" { scope.place(&joined) } else { scope.file(&joined) };
            judged.map_err(|d| d.into_error(&joined, format!("`{key}` = '{}'", path.display())))?;
            *path = joined;
        }
        for (key, entry) in spec.animation_entries_mut() {
            let joined = home.join(&*entry);
            scope.file(&joined).map_err(|d| d.into_error(&joined, format!("`{key}` = '{entry}'")))?;
            *entry = joined.to_string_lossy().into_owned();
        }
        Ok(spec)
    }
}
