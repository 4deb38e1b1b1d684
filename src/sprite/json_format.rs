//! Which engine data a sheet gets, and the files it is written to.

use std::path::{Path, PathBuf};

use crate::output::{OutputFormat, sanitize_component};

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
    /// Unity's: each page's texture importer settings (`NAME.png.meta`, every frame a sprite)
    /// and an animation clip per tag (`NAME_TAG.anim`), plus the frames' points
    /// (`NAME.points.json`) with `--points`.
    Unity,
    /// GameMaker's: a strip image per tag (`spr_NAME_TAG_stripN.png`), which GameMaker's IDE
    /// imports as a sprite of N frames, and a script (`NAME.gml`) setting their origins and
    /// speeds.
    GameMaker,
}

impl JsonFormat {
    /// Every format, in the order `--json-format` lists them.
    pub const ALL: [JsonFormat; 9] = [
        JsonFormat::TexturePacker,
        JsonFormat::Aseprite,
        JsonFormat::Phaser,
        JsonFormat::PhaserMultiatlas,
        JsonFormat::Godot,
        JsonFormat::Godot3,
        JsonFormat::Libgdx,
        JsonFormat::Unity,
        JsonFormat::GameMaker,
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
    /// each page in a JSON of its own, Unity each page in its `.meta` (`walk.png.meta`).
    pub fn page_files(self, png: &Path) -> Vec<(PathBuf, OutputFormat)> {
        match self {
            JsonFormat::TexturePacker | JsonFormat::Aseprite | JsonFormat::Phaser => {
                vec![(png.with_extension("json"), OutputFormat::Json)]
            }
            JsonFormat::Unity => {
                let mut meta = png.as_os_str().to_os_string();
                meta.push(".meta");
                vec![(PathBuf::from(meta), OutputFormat::UnityMeta)]
            }
            JsonFormat::PhaserMultiatlas
            | JsonFormat::Godot
            | JsonFormat::Godot3
            | JsonFormat::Libgdx
            | JsonFormat::GameMaker => Vec::new(),
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
            JsonFormat::Unity => Vec::new(),
            JsonFormat::GameMaker => vec![(png.with_extension("gml"), OutputFormat::Gml)],
        }
    }

    /// The data files of a sheet written as `png` that depend on its job: Unity's animation
    /// clip of each of `tags` ([`tag_file_affixes`](JsonFormat::tag_file_affixes): the tag made
    /// a safe file-name word by [`sanitize_component`] between them) and, when the job records
    /// `points`, the points' file ([`points_file`](JsonFormat::points_file)); nothing for the
    /// other formats. Listed in the output plan before rendering from the job's rows and
    /// directions, and written in this order after
    /// [`sheet_data_files`](JsonFormat::sheet_data_files).
    pub fn job_files(self, png: &Path, tags: &[String], points: bool) -> Vec<(PathBuf, OutputFormat)> {
        let mut files: Vec<(PathBuf, OutputFormat)> = Vec::new();
        if let Some((before, after)) = self.tag_file_affixes(png).filter(|_| self == JsonFormat::Unity) {
            let clip = |tag: &String| png.with_file_name(format!("{before}{}{after}", sanitize_component(tag)));
            files.extend(tags.iter().map(|tag| (clip(tag), OutputFormat::UnityAnim)));
        }
        files.extend(self.points_file(png).filter(|_| points).map(|path| (path, OutputFormat::Json)));
        files
    }

    /// The file names of the files named after a sheet's tags, as the text before the tag and
    /// after it: Unity's clips, `walk_` and `.anim` for a sheet written as `walk.png`
    /// (`walk_walk_S.anim`); GameMaker's strips, `spr_walk_` and `.png` (the tag and its frame
    /// count between them: `spr_walk_walk_S_strip16.png`, see `gamemaker_sprite`); `None` for
    /// the formats without them.
    pub fn tag_file_affixes(self, png: &Path) -> Option<(String, &'static str)> {
        let stem = png.file_stem().unwrap_or_default().to_string_lossy();
        match self {
            JsonFormat::Unity => Some((format!("{stem}_"), ".anim")),
            JsonFormat::GameMaker => Some((gamemaker_sprite(&stem, ""), ".png")),
            _ => None,
        }
    }

    /// The file of the frames' points beside a sheet written as `png`, for the formats that
    /// keep them apart from the frames (Unity: `walk.points.json`).
    pub fn points_file(self, png: &Path) -> Option<PathBuf> {
        (self == JsonFormat::Unity).then(|| png.with_extension("points.json"))
    }

    /// The data files beside a sheet of one page written as `png`, in the order
    /// [`sheet_data_files`] gives them.
    ///
    /// [`sheet_data_files`]: crate::bake::product::engines::sheet_data_files
    pub fn files(self, png: &Path) -> Vec<(PathBuf, OutputFormat)> {
        let mut files = self.page_files(png);
        files.extend(self.sheet_data_files(png));
        files
    }
}

/// The GameMaker sprite of animation `tag` of the sheet titled `title`: `spr_TITLE_TAG`, every
/// character but ASCII letters, digits and `_` turned to `_` (GameMaker's asset names).
pub(crate) fn gamemaker_sprite(title: &str, tag: &str) -> String {
    gml_identifier(&format!("spr_{title}_{tag}"))
}

/// `text` with every character but ASCII letters, digits and `_` turned to `_`: a GML name.
pub(crate) fn gml_identifier(text: &str) -> String {
    text.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect()
}
