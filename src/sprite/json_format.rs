//! Which engine data a sheet gets, and the files it is written to.

use std::path::{Path, PathBuf};

use crate::output::OutputFormat;

/// Which engine data a sheet gets beside its image (`--json-format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum JsonFormat {
    /// TexturePacker JSON-Hash with PixiJS `animations` (the default).
    #[default]
    TexturePacker,
    /// Aseprite's JSON (Array form) with `meta.frameTags`, frames named by number.
    Aseprite,
    /// TexturePacker JSON-Hash plus Phaser's animation JSON (`NAME.anims.json`).
    Phaser,
    /// Phaser 3's multi-atlas JSON for the whole sheet (`NAME.json`, every page one texture of
    /// it) plus Phaser's animation JSON (`NAME.anims.json`) under that one texture key.
    PhaserMultiatlas,
    /// A Godot 4 `SpriteFrames` resource (`NAME.tres`, format 3) and a scene of an
    /// `AnimatedSprite2D` playing it (`NAME.tscn`).
    Godot,
    /// A Godot 3 `SpriteFrames` resource (`NAME.tres`, format 2) and a scene of an
    /// `AnimatedSprite` playing it (`NAME.tscn`).
    Godot3,
    /// libGDX's texture atlas (`NAME.atlas`), which Spine's runtimes read too: every page, a
    /// region per frame named after its animation and numbered in it.
    Libgdx,
}

impl JsonFormat {
    /// Every format, in the order `--json-format` lists them.
    pub const ALL: [JsonFormat; 7] = [
        JsonFormat::TexturePacker,
        JsonFormat::Aseprite,
        JsonFormat::Phaser,
        JsonFormat::PhaserMultiatlas,
        JsonFormat::Godot,
        JsonFormat::Godot3,
        JsonFormat::Libgdx,
    ];

    /// The frame-name format used when none is given: frame numbers for Aseprite (what
    /// Phaser's `createFromAseprite` looks frames up by), else tag and frame (`walk_S_003`).
    pub fn default_frame_names(self) -> &'static str {
        match self {
            JsonFormat::Aseprite => "{frame}",
            _ => "{tag}_{tagframe000}",
        }
    }

    /// The data files of one page image `png`: the JSON-Hash and Aseprite layouts describe
    /// each page in a JSON of its own.
    pub fn page_files(self, png: &Path) -> Vec<(PathBuf, OutputFormat)> {
        match self {
            JsonFormat::TexturePacker | JsonFormat::Aseprite | JsonFormat::Phaser => {
                vec![(png.with_extension("json"), OutputFormat::Json)]
            }
            JsonFormat::PhaserMultiatlas | JsonFormat::Godot | JsonFormat::Godot3 | JsonFormat::Libgdx => Vec::new(),
        }
    }

    /// The data files of the whole sheet written as `png`, however many pages it has:
    /// Phaser's multi-atlas and animations and Godot's resource span every page; Godot's scene
    /// holds a sprite node playing the resource with its pivot at the node's origin.
    pub fn sheet_data_files(self, png: &Path) -> Vec<(PathBuf, OutputFormat)> {
        let anims = (png.with_extension("anims.json"), OutputFormat::Json);
        match self {
            JsonFormat::TexturePacker | JsonFormat::Aseprite => Vec::new(),
            JsonFormat::Phaser => vec![anims],
            JsonFormat::PhaserMultiatlas => vec![(png.with_extension("json"), OutputFormat::Json), anims],
            JsonFormat::Godot | JsonFormat::Godot3 => vec![
                (png.with_extension("tres"), OutputFormat::GodotResource),
                (png.with_extension("tscn"), OutputFormat::GodotScene),
            ],
            JsonFormat::Libgdx => vec![(png.with_extension("atlas"), OutputFormat::LibgdxAtlas)],
        }
    }

    /// The data files beside a sheet of one page written as `png`, in the order
    /// [`sheet_data_files`] gives them.
    ///
    /// [`sheet_data_files`]: crate::bake::engines::sheet_data_files
    pub fn files(self, png: &Path) -> Vec<(PathBuf, OutputFormat)> {
        let mut files = self.page_files(png);
        files.extend(self.sheet_data_files(png));
        files
    }
}
