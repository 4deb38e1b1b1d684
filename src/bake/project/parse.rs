//! Reading a project file: its entries in file order, `[defaults]` and the names a run goes by.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::entry::{ENTRY_KEYS, Entry, Kind};
use super::types::Project;
use crate::confine::Confinement;
use crate::error::{Error, Result};
use crate::model::UnknownName;
use crate::spec::BakeSpec;
use crate::spec::file::{MAX_TOML_BYTES, header_lines, parse_with_defaults, read_toml_text, take_entries};

/// Largest project file read, in bytes (as for `check` manifests: about 10,000 entries).
pub(crate) const MAX_PROJECT_BYTES: u64 = MAX_TOML_BYTES;

impl Project {
    /// Reads and validates a project file.
    ///
    /// # Errors
    /// Unreadable file, not a regular file, larger than `MAX_PROJECT_BYTES`, not UTF-8, TOML
    /// syntax, unknown tables or keys and bad values (named with their entry and line), entries
    /// without a `name` or `output`, duplicate names.
    pub fn load(path: &Path) -> Result<Project> {
        Project::parse(&read_toml_text(path, MAX_PROJECT_BYTES, "project files")?, path)
    }

    /// The same project with `folders` allowed besides its own for the paths entries name
    /// (`bake --allow-dir`).
    ///
    /// # Errors
    /// A folder that does not exist.
    pub fn allowing(mut self, folders: &[PathBuf]) -> Result<Project> {
        self.scope = self.scope.allowing(folders)?;
        Ok(self)
    }

    /// Parses project text; `path` names it in errors and anchors relative paths.
    ///
    /// # Errors
    /// As [`Project::load`], except reading.
    pub fn parse(text: &str, path: &Path) -> Result<Project> {
        let (mut table, defaults) = parse_with_defaults(text, path)?;
        let mut raw = Vec::new();
        for kind in Kind::ALL {
            let values = take_entries(&mut table, kind.table(), path)?;
            let lines = header_lines(text, kind.table());
            if lines.len() != values.len() {
                return Err(Error::in_file(
                    path,
                    format!(
                        "{} [[{kind}]] entries but {} lines starting with `[[{kind}]]`: write each \
                     entry as a [[{kind}]] table with its header on a line of its own (entries are \
                     numbered by their header lines)",
                        values.len(),
                        lines.len()
                    ),
                ));
            }
            raw.extend(lines.into_iter().zip(values).map(|(line, value)| (line, kind, value)));
        }
        if let Some(key) = table.keys().next() {
            let known = std::iter::once("defaults").chain(Kind::ALL.map(Kind::table));
            return Err(Error::in_file(
                path,
                format!(
                    "{} (a project file has [defaults] and [[sheet]], [[gif]], [[frames]], \
                 [[thumbnail]] and [[render]] tables)",
                    UnknownName::new("table", key, known, "")
                ),
            ));
        }
        if let Some(defaults) = &defaults {
            if let Some(key) = ENTRY_KEYS.iter().find(|k| defaults.contains_key(**k)) {
                return Err(Error::in_entry(path, "[defaults]", None, format!("`{key}` belongs in each entry")));
            }
            BakeSpec::from_table(defaults, &[])
                .map_err(|e| Error::in_entry(path, "[defaults]", None, e.to_string()))?;
        }
        raw.sort_by_key(|(line, _, _)| *line);
        let mut entries: Vec<Entry> = Vec::with_capacity(raw.len());
        let mut named: HashMap<String, usize> = HashMap::with_capacity(raw.len());
        for (index, (line, kind, value)) in raw.into_iter().enumerate() {
            let entry = Entry::parse(path, index, line, kind, value, defaults.as_ref())?;
            if let Some(first) = named.insert(entry.name.clone(), index).and_then(|i| entries.get(i)) {
                return Err(Error::in_file(
                    path,
                    format!(
                        "{} and {} have the same name (names are unique in a project file)",
                        first.label(),
                        entry.label()
                    ),
                ));
            }
            entries.push(entry);
        }
        let dir = path.parent().unwrap_or(Path::new(".")).to_path_buf();
        let scope = Confinement::for_project(&dir);
        let root = std::fs::canonicalize(scope.home()).unwrap_or_else(|_| scope.home().to_path_buf());
        Ok(Project { path: path.to_path_buf(), scope, entries, root })
    }

    /// The state file of a run: `<project file name>.state.json` beside the project file, or
    /// with a shard `<project file name>.shard-I-of-N.state.json` (I from 1), so that shards
    /// running side by side keep their own.
    pub fn state_path(&self, shard: Option<(usize, usize)>) -> PathBuf {
        let name = self.path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let shard = shard.map(|(i, n)| format!(".shard-{}-of-{n}", i + 1)).unwrap_or_default();
        self.path.with_file_name(format!("{name}{shard}.state.json"))
    }

    /// The entries of a shard (all without one), in file order.
    pub fn selected(&self, shard: Option<(usize, usize)>) -> Vec<&Entry> {
        self.entries.iter().filter(|e| shard.is_none_or(|(i, n)| e.index % n.max(1) == i)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bake::project::state::{is_state_name, settings_hash, state_files};
    use crate::spec::Profile;

    fn parse(text: &str) -> Result<Project> {
        Project::parse(text, Path::new("game/spritebake.toml"))
    }

    const ENTRIES: &str = "[defaults]\nsize = 64\nssaa = 2\n\
        [[thumbnail]]\nname = \"t\"\nmodel = \"m.obj\"\noutput = \"t.png\"\n\
        [[sheet]]\nname = \"s\"\nmodel = \"m.md2\"\nsize = 32\noutput = \"s.png\"\n\
        [[gif]]\nname = \"g\"\nmodel = \"m.md2\"\noutput = \"g.gif\"\n\
        [[thumbnail]]\nname = \"t2\"\nmodel = \"m.obj\"\nyaw = 5\noutput = \"t2.png\"\n";

    #[test]
    fn entries_are_numbered_in_file_order_over_every_kind() {
        let project = parse(ENTRIES).unwrap();
        let names: Vec<(&str, Kind, usize, usize)> =
            project.entries.iter().map(|e| (e.name.as_str(), e.kind, e.index, e.line)).collect();
        assert_eq!(
            names,
            [
                ("t", Kind::Thumbnail, 0, 4),
                ("s", Kind::Sheet, 1, 8),
                ("g", Kind::Gif, 2, 13),
                ("t2", Kind::Thumbnail, 3, 17)
            ]
        );
        let shard = |i, n| project.selected(Some((i, n))).iter().map(|e| e.name.as_str()).collect::<Vec<_>>();
        assert_eq!((shard(0, 2), shard(1, 2)), (vec!["t", "g"], vec!["s", "t2"]));
        assert_eq!(project.selected(None).len(), 4);
    }

    #[test]
    fn thumbnails_start_from_the_thumbnail_defaults_then_defaults_then_their_keys() {
        let project = parse(ENTRIES).unwrap();
        let [t, s, _, t2] = [0, 1, 2, 3].map(|i| &project.entries[i].spec);
        let thumb = Profile::Thumbnail.spec();
        assert_eq!((t.view.yaw, t.render.ssaa, t.view.size), (thumb.view.yaw, 2, crate::spec::Size::square(64).into()));
        assert_eq!(t.render.light, thumb.render.light);
        assert_eq!((t2.view.yaw, s.view.yaw), (5.0, 0.0));
        assert_eq!(s.view.size, crate::spec::Size::square(32).into());
    }

    #[test]
    fn state_files_are_named_after_the_project_and_the_shard() {
        let project = parse(ENTRIES).unwrap();
        assert_eq!(project.state_path(None), Path::new("game/spritebake.toml.state.json"));
        assert_eq!(project.state_path(Some((1, 3))), Path::new("game/spritebake.toml.shard-2-of-3.state.json"));
    }

    #[test]
    fn every_shards_state_file_journal_and_lock_has_a_state_name() {
        let project = parse(ENTRIES).unwrap();
        for shard in [None, Some((0, 1)), Some((1, 3)), Some((11, 12))] {
            for path in state_files(&project.state_path(shard)) {
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                assert!(is_state_name(&name, "spritebake.toml"), "{name}");
                assert!(is_state_name(&name.to_uppercase(), "spritebake.toml"), "{name}");
            }
        }
        for name in [
            "spritebake.toml",
            "spritebake.toml.json",
            "spritebake.toml.state.png",
            "spritebake.toml.shard--of-3.state.json",
            "spritebake.toml.shard-1-of-.state.json",
            "spritebake.toml.shard-1-of-3-state.json",
            "other.toml.state.json",
            "xspritebake.toml.state.json",
        ] {
            assert!(!is_state_name(name, "spritebake.toml"), "{name}");
        }
    }

    #[test]
    fn settings_hashes_change_with_any_setting() {
        let project = parse(ENTRIES).unwrap();
        let entry = &project.entries[1];
        let same = settings_hash(entry);
        assert_eq!(same, settings_hash(&entry.clone()));
        let mut other = entry.clone();
        other.spec.render.ambient += 0.01;
        assert_ne!(settings_hash(&other), same);
        let mut other = entry.clone();
        other.output = "s2.png".into();
        assert_ne!(settings_hash(&other), same);
        let mut other = entry.clone();
        other.kind = Kind::Render;
        assert_ne!(settings_hash(&other), same);
    }

    #[test]
    fn headers_the_numbering_cannot_see_are_refused() {
        let e = parse("[[ sheet ]]\nname = \"s\"\nmodel = \"m.md2\"\noutput = \"s.png\"\n").unwrap_err().to_string();
        assert!(e.contains("1 [[sheet]] entries but 0 lines starting with `[[sheet]]`"), "{e}");
        let e = parse("sheet = [{ name = \"s\", model = \"m.md2\", output = \"s.png\" }]\n").unwrap_err().to_string();
        assert!(e.contains("header on a line of its own"), "{e}");
    }
}
