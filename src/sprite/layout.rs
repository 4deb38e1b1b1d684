//! How a sheet's cells are laid out on its pages.

/// The default largest page, pixels per side: every WebGL, GLES 3 and desktop GPU takes 4096²
/// textures, and TexturePacker, Phaser and PixiJS users keep atlases within it for phones.
pub const DEFAULT_MAX_PAGE: u32 = 4096;

/// How frames are placed on pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Packing {
    /// One row per (clip, direction), frames left to right, wrapping at the page width; a row
    /// that does not fit below the last one starts the next page (the default).
    #[default]
    Rows,
    /// MaxRects over every page, largest frames first.
    Tight,
}

/// Layout settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    /// Transparent pixels between cells and around each page.
    pub padding: u32,
    /// Edge pixels repeated outward into the padding (at most `padding`).
    pub extrude: u32,
    /// Crop each frame to its opaque pixels.
    pub trim: bool,
    /// Largest page, width and height.
    pub max_size: (u32, u32),
    /// Round page sides up to powers of two.
    pub pot: bool,
    /// Frame placement.
    pub packing: Packing,
    /// Store identical frames once.
    pub dedupe: bool,
}

impl Default for Layout {
    /// 2 pixels of padding, no trimming, rows, pages of at most [`DEFAULT_MAX_PAGE`].
    fn default() -> Self {
        Layout {
            padding: 2,
            extrude: 0,
            trim: false,
            max_size: (DEFAULT_MAX_PAGE, DEFAULT_MAX_PAGE),
            pot: false,
            packing: Packing::Rows,
            dedupe: false,
        }
    }
}
