//! Where a project's paths lead and how its state file records them.

use std::path::{Path, PathBuf};

use super::cover::Names;
use super::entry::{Entry, Kind};
use super::state::plain;
use super::types::Project;
use crate::bake::Loaded;
use crate::error::Result;
use crate::output::{OutputFormat, OutputPlan};
use crate::spec::{BakeSpec, Resolved};

impl Project {
    /// `path` (relative to the project's folder, or absolute) from the working folder.
    pub(super) fn joined(&self, path: impl AsRef<Path>) -> PathBuf {
        match self.scope.home() {
            home if home == Path::new(".") => path.as_ref().to_path_buf(),
            home => home.join(path),
        }
    }

    /// How the state file records `path` (joined to the project's folder): as the project
    /// names it, relative to the folder, with no link resolved (`./` and doubled slashes
    /// dropped; `..` kept, since it may follow a link). A link re-pointed since then shows as a
    /// change of what the recorded path leads to.
    pub(super) fn stored(&self, path: &Path) -> String {
        plain(path.strip_prefix(self.scope.home()).unwrap_or(path))
    }

    /// A path as the state file records it, from the working folder.
    pub(super) fn recorded(&self, stored: &str) -> PathBuf {
        self.joined(stored)
    }

    /// How the state file records the files a bake of `spec` (anchored) read, `inputs`: the
    /// files the entry names as written ([`Project::stored`]). A file its model names is known
    /// only by its canonical path, so it is recorded through the folder of a file the entry
    /// names (or a `texture_root`) that holds it, as written: `assets/tower_bricks.png` when
    /// `assets` is a link, so that re-pointing the link shows as a change. Failing that, it
    /// is recorded relative to the project's canonical folder, or whole.
    pub(super) fn stored_inputs(&self, spec: &BakeSpec, inputs: &[PathBuf]) -> Vec<(String, PathBuf)> {
        let named = spec.named_files();
        let parents = named.iter().filter_map(|p| p.parent()).map(Path::to_path_buf);
        let mut folders: Vec<(PathBuf, PathBuf)> = parents
            .chain(spec.model.texture_root.iter().cloned())
            .filter_map(|folder| Some((std::fs::canonicalize(&folder).ok()?, folder)))
            .collect();
        // The deepest folder first.
        folders.sort_by_key(|(canonical, _)| std::cmp::Reverse(canonical.components().count()));
        let store = |path: &PathBuf| {
            if named.contains(path) {
                return self.stored(path);
            }
            let through = folders.iter().find_map(|(c, f)| Some(f.join(path.strip_prefix(c).ok()?)));
            match through {
                Some(via) => self.stored(&via),
                None => path.strip_prefix(&self.root).unwrap_or(path).to_string_lossy().into_owned(),
            }
        };
        inputs.iter().map(|p| (store(p), p.clone())).collect()
    }

    /// The files `entry`'s output can name, as the state file records them (see `cover.rs`).
    pub(super) fn names<'p>(&'p self, entry: &Entry) -> Names<impl Fn(&Path) -> String + 'p> {
        Names::of(entry, move |p: &Path| self.stored(&self.joined(p)))
    }

    /// The files an entry writes when they do not depend on its model, joined to the folder.
    pub(super) fn fixed_outputs(&self, entry: &Entry) -> Vec<(PathBuf, OutputFormat)> {
        let spec = &entry.spec;
        let plan = entry.kind.product().fixed_plan(&entry.output, spec.layout.json_format.into(), &spec.look.maps);
        plan.map(|p| p.outputs().iter().map(|o| (self.joined(&o.path), o.format)).collect()).unwrap_or_default()
    }

    /// Every file an entry writes, joined to the folder. The output is expanded as written
    /// and joined afterwards, so braces in the folder's own name are never placeholders.
    pub(super) fn outputs_of(&self, entry: &Entry, loaded: &Loaded, resolved: &Resolved) -> Result<OutputPlan> {
        let mut plan = OutputPlan::new();
        for o in entry.kind.product().plan(&entry.output, loaded, resolved)?.outputs() {
            plan.add(self.joined(&o.path), o.format);
        }
        Ok(plan)
    }

    /// What an entry will write as far as known without loading: its fixed outputs, or its
    /// frame pattern.
    pub(super) fn expected_outputs(&self, entry: &Entry) -> Vec<PathBuf> {
        match entry.kind {
            Kind::Frames => vec![self.joined(&entry.output)],
            _ => self.fixed_outputs(entry).into_iter().map(|(p, _)| p).collect(),
        }
    }
}
