//! The `check` manifest: a TOML file of `[[case]]` tables over an optional `[defaults]` table.
//! A case is a [`BakeSpec`] (every key the commands take, named as their flags) plus the keys
//! of a golden test ([`CASE_KEYS`]); `[defaults]` fills every key a case leaves out. Unknown
//! keys are errors (a typo must not silently drop a setting).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::bake::Product;
use crate::confine::Confinement;
use crate::error::{Error, Result};
use crate::spec::BakeSpec;
use crate::spec::file::{self, header_lines, merged, read_toml_text};

/// The keys a case has besides its [`BakeSpec`].
pub const CASE_KEYS: &[&str] =
    &["name", "golden", "kind", "threshold", "max_pixels", "max_percent", "ignore_aa", "columns"];

/// A case's golden-test keys.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaseKeys {
    /// The case's name (unique in the manifest).
    pub name: String,
    /// The golden: a PNG (render, sheet: its JSON beside it), a GIF, or a folder (frames; a
    /// render of several frames may use either a folder of `frame_NNN.png` or one PNG with the
    /// frames in a grid).
    pub golden: PathBuf,
    /// What the case bakes and compares (default `render`).
    #[serde(default = "render")]
    pub kind: Product,
    /// Perceptual colour threshold, 0 to 1 (default 0.1).
    #[serde(default = "threshold")]
    pub threshold: f64,
    /// Differing pixels allowed per image.
    #[serde(default)]
    pub max_pixels: usize,
    /// Differing pixels allowed per image, percent.
    pub max_percent: Option<f64>,
    /// Ignore pixels that look like anti-aliasing.
    #[serde(default)]
    pub ignore_aa: bool,
    /// Columns of a render golden that holds several frames in one PNG (default 8).
    #[serde(default = "columns")]
    pub columns: u32,
}

/// A case's golden-test keys read from `own`; a value of the wrong type is named by its key
/// (serde's own message names only the type).
fn case_keys(own: toml::Table) -> Result<CaseKeys> {
    let message = |e: toml::de::Error| e.message().trim().replace('\n', " ");
    let whole = toml::Value::Table(own.clone()).try_into::<CaseKeys>();
    whole.map_err(|e| {
        // Each key alone beside a valid name and golden: the first that fails is the culprit.
        let culprit = own.iter().find_map(|(key, value)| {
            let mut probe = toml::Table::new();
            probe.insert("name".into(), "probe".into());
            probe.insert("golden".into(), "probe.png".into());
            probe.insert(key.clone(), value.clone());
            let failed = toml::Value::Table(probe).try_into::<CaseKeys>().err()?;
            let shown = match value {
                toml::Value::String(text) => format!("{text:?}"),
                toml::Value::Integer(n) => n.to_string(),
                toml::Value::Float(x) => x.to_string(),
                toml::Value::Boolean(b) => b.to_string(),
                other => format!("a {}", other.type_str()),
            };
            Some(Error::bad_option(key, shown, message(failed)))
        });
        culprit.unwrap_or_else(|| Error::Invalid(message(e)))
    })
}

fn render() -> Product {
    Product::Render
}

fn threshold() -> f64 {
    super::Tolerance::default().threshold
}

fn columns() -> u32 {
    8
}

/// One case as the manifest writes it: its keys, its spec, and the line it starts on.
#[derive(Debug, Clone)]
pub struct CaseSpec {
    /// Golden-test keys.
    pub keys: CaseKeys,
    /// The bake, paths as the manifest writes them (relative to its folder).
    pub spec: BakeSpec,
    /// The line of its `[[case]]` header.
    pub line: usize,
}

/// A parsed manifest: its folder (paths in cases are relative to it) and complete cases.
#[derive(Debug, Clone)]
pub struct Manifest {
    /// The manifest's folder.
    pub dir: PathBuf,
    /// Where the paths in cases may lead: the manifest's folder, plus folders allowed with
    /// [`Manifest::allowing`] (`--allow-dir`).
    pub scope: Confinement,
    /// The manifest's file stem (the JUnit class name).
    pub name: String,
    /// The manifest file.
    pub path: PathBuf,
    /// Cases with defaults applied, in file order.
    pub cases: Vec<CaseSpec>,
    /// The manifest as read (at most [`MAX_MANIFEST_BYTES`]): what a report points into when
    /// it names a case's line.
    pub text: String,
}

/// Largest manifest read, in bytes (about 10,000 cases of a few lines each; the size bounds
/// the memory a parsed manifest takes, so larger suites are split into manifests).
pub const MAX_MANIFEST_BYTES: u64 = file::MAX_TOML_BYTES;

impl Manifest {
    /// Reads and validates a manifest.
    ///
    /// # Errors
    /// Unreadable file, not a regular file, larger than [`MAX_MANIFEST_BYTES`], not UTF-8,
    /// TOML syntax, unknown keys or bad values (named with their case and line), cases without
    /// a `name` or `golden`, duplicate names.
    pub fn load(path: &Path) -> Result<Manifest> {
        let text = read_toml_text(path, MAX_MANIFEST_BYTES, "manifests")?;
        Manifest::parse(&text, path)
    }

    /// The same manifest with `folders` allowed besides its own for the paths cases name
    /// (`check --allow-dir`).
    ///
    /// # Errors
    /// A folder that does not exist.
    pub fn allowing(mut self, folders: &[PathBuf]) -> Result<Manifest> {
        self.scope = self.scope.allowing(folders)?;
        Ok(self)
    }

    /// Parses manifest text; `path` names it in errors and anchors relative paths.
    ///
    /// # Errors
    /// As [`Manifest::load`], except reading.
    pub fn parse(text: &str, path: &Path) -> Result<Manifest> {
        let (mut table, defaults) = file::parse_with_defaults(text, path)?;
        let entries = file::take_entries(&mut table, "case", path)?;
        if let Some(key) = table.keys().next() {
            return Err(Error::in_file(
                path,
                format!("unknown table `{key}` (a manifest has [defaults] and [[case]] tables)"),
            ));
        }
        let lines = header_lines(text, "case");
        let mut cases: Vec<CaseSpec> = Vec::with_capacity(entries.len());
        // Names so far, looked up rather than scanned: a manifest of n cases checks in O(n).
        let mut names: HashSet<String> = HashSet::with_capacity(entries.len());
        for (i, entry) in entries.into_iter().enumerate() {
            let line = lines.get(i).copied().unwrap_or(0);
            let at = |e: Error| Error::in_entry(path, format!("case #{}", i + 1), Some(line), e.to_string());
            let fail = |message: String| Error::in_entry(path, format!("case #{}", i + 1), Some(line), message);
            let toml::Value::Table(entry) = entry else { return Err(fail("not a table".into())) };
            let case = merged(defaults.as_ref(), &entry);
            if let Some(key) = ["name", "golden"].into_iter().find(|k| !case.contains_key(*k)) {
                return Err(fail(format!("no `{key}`")));
            }
            let own: toml::Table = case
                .iter()
                .filter(|(k, _)| CASE_KEYS.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            let keys = case_keys(own).map_err(at)?;
            let spec = BakeSpec::from_table(&case, CASE_KEYS).map_err(at)?;
            // Every option is checked here, before any case runs: a typo or a value out of
            // range stops the run with its line, as a bad flag stops a command.
            spec.resolve().map_err(at)?;
            for (key, value, bound) in [
                ("threshold", keys.threshold, crate::bounds::THRESHOLD),
                ("max_percent", keys.max_percent.unwrap_or_default(), crate::bounds::MAX_PERCENT),
            ] {
                bound.check(value).map_err(|e| at(Error::bad_option(key, value, e)))?;
            }
            crate::bounds::COLUMNS
                .check(keys.columns)
                .map_err(|e| at(Error::bad_option("columns", keys.columns, e)))?;
            // An empty name reads as no name in every report; an empty golden is the manifest's
            // own folder, where `--bless` would write a frames case's `frame_000.png`.
            if keys.name.trim().is_empty() {
                return Err(at(Error::bad_option("name", "\"\"", "a name for the case, not empty")));
            }
            if keys.golden.as_os_str().is_empty() {
                return Err(at(Error::bad_option("golden", "\"\"", "the golden's path, not empty")));
            }
            if !names.insert(keys.name.clone()) {
                return Err(Error::in_file(path, format!("two cases are named '{}'", keys.name)));
            }
            cases.push(CaseSpec { keys, spec, line });
        }
        let dir = path.parent().unwrap_or(Path::new(".")).to_path_buf();
        let name = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let scope = Confinement::for_manifest(&dir);
        Ok(Manifest { scope, dir, name, path: path.to_path_buf(), cases, text: text.to_string() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_name_used_again_is_named() {
        let mut text = String::from("[defaults]\nmodel = \"m.obj\"\n");
        for name in ["a", "b", "c", "b", "a"] {
            text.push_str(&format!("[[case]]\nname = \"{name}\"\ngolden = \"{name}.png\"\n"));
        }
        let e = Manifest::parse(&text, Path::new("m.toml")).unwrap_err().to_string();
        assert!(e.contains("two cases are named 'b'"), "{e}");
        text.truncate(text.find("[[case]]\nname = \"b\"\ngolden = \"b.png\"\n[[case]]\nname = \"a\"").unwrap());
        assert_eq!(Manifest::parse(&text, Path::new("m.toml")).unwrap().cases.len(), 3);
    }
}
