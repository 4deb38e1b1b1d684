//! What Unity refers to a sheet's pages and sprites by, derived and never random (see the
//! module notes of [`super`]): a page's `guid`, a sprite's `internalID` and `spriteID`, and the
//! scale the sprites are drawn at.

use std::collections::HashSet;
use std::path::{Component, Path, PathBuf};

use crate::bake::product::engines::Atlas;

/// Unity's default scale, pixels per unit, for a job without a fixed one.
const DEFAULT_PIXELS_PER_UNIT: f32 = 100.0;

/// What Unity refers to a sheet's pages and sprites by.
#[derive(Debug, Clone)]
pub(crate) struct Ids {
    /// Each page's texture guid.
    guids: Vec<String>,
    /// Each frame's sprite `internalID`, by frame index.
    internal: Vec<i64>,
}

impl Ids {
    /// The ids of `atlas`'s pages, written at `pngs` (one per page), and of its frames.
    pub(crate) fn new(atlas: &Atlas, pngs: &[PathBuf]) -> Ids {
        let names: Vec<&str> = atlas.frames.iter().map(|f| f.name.as_str()).collect();
        let guids = pngs.iter().map(|png| texture_guid(png, &names)).collect();
        let mut taken = HashSet::new();
        let internal = names.iter().map(|name| internal_id(name, &mut taken)).collect();
        Ids { guids, internal }
    }

    /// Page `page`'s guid.
    pub(super) fn guid(&self, page: usize) -> &str {
        self.guids.get(page).map_or("", String::as_str)
    }

    /// Frame `frame`'s `internalID`.
    pub(super) fn internal(&self, frame: usize) -> i64 {
        self.internal.get(frame).copied().unwrap_or_default()
    }
}

/// The scale Unity draws the sprites at: the job's fixed one, so one model unit is one Unity
/// unit, else Unity's default.
pub(super) fn pixels_per_unit(job_scale: Option<f32>) -> f32 {
    job_scale.unwrap_or(DEFAULT_PIXELS_PER_UNIT)
}

/// The path of `png` from the Unity project's `Assets` folder (`Assets/Sprites/walk.png`), when
/// it has one: the first folder of that name, as written (a path's folders are not resolved,
/// so the guid depends on what the bake was told, not on where the disk keeps it).
fn asset_path(png: &Path) -> Option<String> {
    let components: Vec<Component> = png.components().collect();
    let start = components.iter().position(|c| matches!(c, Component::Normal(n) if *n == "Assets"))?;
    let parts: Vec<String> = components.get(start..)?.iter().map(|c| c.as_os_str().to_string_lossy().into()).collect();
    Some(parts.join("/"))
}

/// A page's guid: 32 lowercase hex digits (see the module notes).
fn texture_guid(png: &Path, frame_names: &[&str]) -> String {
    let mut hasher = blake3::Hasher::new_derive_key("spritebake unity texture guid");
    match asset_path(png) {
        Some(asset) => {
            hasher.update(b"asset\0").update(asset.as_bytes());
        }
        None => {
            let name = png.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
            hasher.update(b"file\0").update(name.as_bytes());
            for name in frame_names {
                hasher.update(b"\0").update(name.as_bytes());
            }
        }
    }
    hex(&hasher.finalize().as_bytes()[..16])
}

/// A sprite's `internalID`: a hash of its name, never 0 (Unity's "no object") nor one an
/// earlier frame of the sheet has.
fn internal_id(name: &str, taken: &mut HashSet<i64>) -> i64 {
    let mut hasher = blake3::Hasher::new_derive_key("spritebake unity sprite internalID");
    hasher.update(name.as_bytes());
    let mut reader = hasher.finalize_xof();
    loop {
        let mut bytes = [0u8; 8];
        reader.fill(&mut bytes);
        let id = i64::from_le_bytes(bytes);
        if id != 0 && taken.insert(id) {
            return id;
        }
    }
}

/// A sprite's `spriteID`, which the Sprite Editor keys its edits by: 32 hex digits.
pub(super) fn sprite_id(name: &str) -> String {
    let hash = blake3::Hasher::new_derive_key("spritebake unity spriteID").update(name.as_bytes()).finalize();
    hex(&hash.as_bytes()[..16])
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_guid_comes_from_the_asset_path_inside_assets_and_from_the_sheet_elsewhere() {
        let guid = |png: &str, names: &[&str]| texture_guid(Path::new(png), names);
        let inside = guid("/p/Assets/Sprites/walk.png", &["walk_S_000"]);
        assert_eq!(inside.len(), 32);
        assert!(inside.chars().all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()), "{inside}");
        // Inside Assets: the asset path alone, whatever the frames or where the project is.
        assert_eq!(inside, guid("Assets/Sprites/walk.png", &["run_S_000", "run_S_001"]));
        assert_ne!(inside, guid("Assets/Heroes/walk.png", &["walk_S_000"]));
        // Elsewhere: the file name and the frames.
        assert_eq!(guid("out/walk.png", &["walk_S_000"]), guid("walk.png", &["walk_S_000"]));
        assert_ne!(guid("walk.png", &["walk_S_000"]), guid("walk.png", &["run_S_000"]));
        assert_ne!(guid("walk-0.png", &["walk_S_000"]), guid("walk-1.png", &["walk_S_000"]));
        assert_eq!(asset_path(Path::new("x/Assets/a/b.png")).as_deref(), Some("Assets/a/b.png"));
        assert_eq!(asset_path(Path::new("x/MyAssets/b.png")), None);
    }

    #[test]
    fn internal_ids_are_never_zero_and_never_given_twice() {
        let mut taken = HashSet::new();
        let a = internal_id("walk_S_000", &mut taken);
        assert_ne!(a, 0);
        // The same name again (as after a hash collision) is given the hash's next 64 bits.
        let b = internal_id("walk_S_000", &mut taken);
        assert!(b != a && b != 0);
        assert_eq!(internal_id("walk_S_000", &mut HashSet::new()), a, "a name's id is its own");
        assert_eq!(sprite_id("walk_S_000").len(), 32);
    }
}
