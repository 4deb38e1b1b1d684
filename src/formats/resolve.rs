//! Texture lookup and decoding. Placeholder until the resolver lands.

use std::path::{Path, PathBuf};

use crate::model::Model;

/// A texture given on the command line: for every material, or for one material by name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextureOverride {
    /// Material name, or `None` for all materials.
    pub material: Option<String>,
    /// Image file.
    pub path: PathBuf,
}

/// Finds and decodes the textures a model names.
#[derive(Debug, Clone)]
pub struct TextureResolver {
    dir: PathBuf,
    overrides: Vec<TextureOverride>,
}

impl TextureResolver {
    /// A resolver looking next to the model in `dir`.
    pub fn new(dir: &Path, overrides: Vec<TextureOverride>) -> TextureResolver {
        TextureResolver { dir: dir.to_path_buf(), overrides }
    }

    /// Fills in every material's texture and status.
    pub fn resolve_model(&self, _model: &mut Model) {
        let _ = (&self.dir, &self.overrides);
    }
}
