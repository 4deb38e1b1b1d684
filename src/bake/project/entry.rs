//! An entry of a project file: what it makes, its name and output, and its spec.

use std::fmt;

use serde::Serialize;

use crate::bake::Product;
use crate::error::{Error, Result};
use crate::output::FramePattern;
use crate::spec::file::merged;
use crate::spec::{BakeSpec, Profile, show};

/// The keys an entry has besides its [`BakeSpec`].
pub(crate) const ENTRY_KEYS: &[&str] = &["name", "output"];

/// What an entry makes: the name of its `[[table]]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// A sprite sheet PNG with its JSON beside it.
    Sheet,
    /// An animated GIF.
    Gif,
    /// Numbered PNG frames; the output is a pattern.
    Frames,
    /// One PNG with the `thumbnail` command's defaults.
    Thumbnail,
    /// One PNG of one moment.
    Render,
}

impl Kind {
    /// Every kind, in the order the tables are read.
    pub const ALL: [Kind; 5] = [Kind::Sheet, Kind::Gif, Kind::Frames, Kind::Thumbnail, Kind::Render];

    /// The table an entry of this kind is written in (`sheet` for `[[sheet]]`).
    pub fn table(self) -> &'static str {
        match self {
            Kind::Sheet => "sheet",
            Kind::Gif => "gif",
            Kind::Frames => "frames",
            Kind::Thumbnail => "thumbnail",
            Kind::Render => "render",
        }
    }

    /// What it bakes.
    pub fn product(self) -> Product {
        match self {
            Kind::Sheet => Product::Sheet,
            Kind::Gif => Product::Gif,
            Kind::Frames => Product::Frames,
            Kind::Thumbnail | Kind::Render => Product::Render,
        }
    }

    /// The spec an entry's keys (and `[defaults]`) are read over.
    pub fn base(self) -> BakeSpec {
        match self {
            Kind::Thumbnail => Profile::Thumbnail.spec(),
            _ => Profile::Default.spec(),
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.table())
    }
}

/// One entry as the project file writes it.
#[derive(Debug, Clone)]
pub struct Entry {
    /// Its number in file order over every kind, from 0 (what `--shard` goes by).
    pub index: usize,
    /// Its name, unique in the file.
    pub name: String,
    /// What it makes.
    pub kind: Kind,
    /// The output as written: a file, or for frames a pattern (relative to the project's
    /// folder).
    pub output: String,
    /// The bake, `[defaults]` applied, paths as written (relative to the project's folder).
    pub spec: BakeSpec,
    /// The line of its `[[kind]]` header.
    pub line: usize,
}

impl Entry {
    /// `[[sheet]] 'robot-walk' (line 12)`, for messages.
    pub fn label(&self) -> String {
        format!("[[{}]] '{}' (line {})", self.kind, self.name, self.line)
    }

    pub(super) fn parse(
        path: &std::path::Path,
        index: usize,
        line: usize,
        kind: Kind,
        value: toml::Value,
        defaults: Option<&toml::Table>,
    ) -> Result<Entry> {
        let at = |name: Option<&str>, e: String| {
            let name = name.map(|n| format!(" '{n}'")).unwrap_or_default();
            Error::in_entry(path, format!("[[{kind}]]{name}"), Some(line), e)
        };
        let toml::Value::Table(table) = value else { return Err(at(None, "not a table".into())) };
        let name = match table.get("name") {
            Some(toml::Value::String(s)) if !s.trim().is_empty() => s.clone(),
            Some(v) => return Err(at(None, format!("`name` = {}: must be a non-empty string", show(v)))),
            None => return Err(at(None, "needs a `name` (unique in the file)".into())),
        };
        let output = match table.get("output") {
            Some(toml::Value::String(s)) if !s.is_empty() => s.clone(),
            Some(v) => return Err(at(Some(&name), format!("`output` = {}: must be a path", show(v)))),
            None => return Err(at(Some(&name), format!("needs an `output` ({})", expected_output(kind)))),
        };
        if kind == Kind::Frames {
            FramePattern::parse(&output).map_err(|e| at(Some(&name), format!("`output`: {e}")))?;
        }
        let spec = BakeSpec::from_table_over(&kind.base(), &merged(defaults, &table), ENTRY_KEYS)
            .map_err(|e| at(Some(&name), e.to_string()))?;
        // Every value checked now (ranges, options that need each other), files when it runs.
        spec.resolve().map_err(|e| at(Some(&name), e.to_string()))?;
        Ok(Entry { index, name, kind, output, spec, line })
    }
}

/// What an entry's `output` is, for messages.
fn expected_output(kind: Kind) -> &'static str {
    match kind {
        Kind::Sheet => "a .png; its JSON is written beside it",
        Kind::Gif => "a .gif",
        Kind::Frames => "a pattern with {frame}, e.g. \"out/{clip}_{dir}_{frame:03}.png\"",
        Kind::Thumbnail | Kind::Render => "a .png",
    }
}
