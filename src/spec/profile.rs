//! Named sets of defaults: the spec a command, a manifest case or a project entry starts from
//! before its own settings are laid over it.
//!
//! A profile is one spec, written once. Everything else reads it: the command line's flags
//! take their defaults from it (so `--help` shows what a flag not given becomes, and what clap
//! parses is already the profile with the given flags over it), and a project's entries are
//! read over it.

use super::bake_spec::BakeSpec;
use super::groups::{RenderSpec, ViewSpec};
use super::values::LightDirection;
use crate::raster::Light;

/// The defaults a bake starts from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    /// `render`, `sheet`, `gif`, `frames`, `check` cases and most project entries: a side
    /// view, one light, no supersampling beyond the spec's own defaults.
    Default,
    /// `thumbnail` and `[[thumbnail]]` project entries: a three-quarter view from above, a key
    /// and a fill light, ambient 0.25.
    Thumbnail,
}

impl Profile {
    /// The profile's spec: every setting at this profile's default.
    pub fn spec(self) -> BakeSpec {
        match self {
            Profile::Default => BakeSpec::default(),
            Profile::Thumbnail => {
                let light = [Light::KEY, Light::FILL].map(|l| LightDirection(l.direction));
                BakeSpec {
                    view: ViewSpec { yaw: 35.0, pitch: 20.0, ..ViewSpec::default() },
                    render: RenderSpec { light: light.to_vec(), ambient: 0.25, ..RenderSpec::default() },
                    ..BakeSpec::default()
                }
            }
        }
    }

    /// The keys whose value this profile changes from [`Profile::Default`]'s, with the
    /// profile's values (spec keys, as [`BakeSpec::to_table`] writes them).
    pub fn changes(self) -> toml::Table {
        let default = Profile::Default.spec().to_table();
        self.spec().to_table().into_iter().filter(|(key, value)| default.get(key) != Some(value)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_thumbnail_changes_the_view_and_the_lights_and_nothing_else() {
        let changes = Profile::Thumbnail.changes();
        let keys: Vec<&str> = changes.keys().map(String::as_str).collect();
        assert_eq!(keys, ["ambient", "light", "pitch", "yaw"]);
        assert_eq!(changes["yaw"], toml::Value::Float(35.0));
        assert!(Profile::Default.changes().is_empty());
        // Laid over the default, the changes are the profile.
        assert_eq!(BakeSpec::from_table(&changes, &[]).unwrap(), Profile::Thumbnail.spec());
    }
}
