//! The output plan: every file a command will write, checked before any rendering.
//!
//! A command lists its outputs (expanding patterns for every clip, direction and frame) and
//! calls [`OutputPlan::check`] with every file it reads. The check refuses the whole command,
//! with one line naming the paths involved, when
//! * an output has the wrong extension for what is written (`render -o x.jpg` writes a PNG);
//! * a folder on the output's path exists but is not a folder;
//! * an output exists and is not a regular file (a folder, FIFO, device or socket: renaming a
//!   file over it would replace it, or writing into it would block);
//! * an output is one of the inputs, or two outputs are the same file.
//!
//! "The same file" is decided twice, so neither symlinks nor hard links can hide a clash: by
//! location (the path with every existing folder and symlink resolved, and the part that does
//! not exist yet normalised lexically, since nothing there can be a link) and by identity
//! (device and inode of an existing file). Checking only the path given on the command line
//! was the old guard's gap.
//!
//! An existing output that is a symlink to some other regular file is allowed: the rename that
//! writes the output replaces the link itself, never its target.
//!
//! Missing parent folders are not an error: the [`super::Transaction`] that writes the files
//! creates them (and removes them again if the command fails).

use std::collections::{HashMap, HashSet};
use std::fs;
use std::path::{Component, Path, PathBuf};

use crate::error::{ClashKind, Error, Result};

/// What is written into a planned file; decides the extensions it may have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputFormat {
    /// A PNG image (`.png`).
    Png,
    /// An animated GIF (`.gif`).
    Gif,
    /// JSON (`.json`).
    Json,
    /// A Wavefront OBJ mesh (`.obj`).
    Obj,
    /// A Wavefront material library (`.mtl`).
    Mtl,
    /// XML, e.g. a JUnit report (`.xml`).
    Xml,
    /// A Godot text resource (`.tres`).
    GodotResource,
    /// A Godot text scene (`.tscn`).
    GodotScene,
    /// A libGDX texture atlas (`.atlas`).
    LibgdxAtlas,
    /// Unity's importer settings of an asset (`.meta`, beside it: `walk.png.meta`).
    UnityMeta,
    /// A Unity animation clip (`.anim`).
    UnityAnim,
    /// A GameMaker script (`.gml`).
    Gml,
    /// An HTML page (`.html` or `.htm`).
    Html,
    /// A copy of another file, keeping that file's own name and extension.
    Copy,
}

impl OutputFormat {
    /// The extensions (lower case) a file of this format may have; empty means any.
    pub fn extensions(self) -> &'static [&'static str] {
        match self {
            OutputFormat::Png => &["png"],
            OutputFormat::Gif => &["gif"],
            OutputFormat::Json => &["json"],
            OutputFormat::Obj => &["obj"],
            OutputFormat::Mtl => &["mtl"],
            OutputFormat::Xml => &["xml"],
            OutputFormat::GodotResource => &["tres"],
            OutputFormat::GodotScene => &["tscn"],
            OutputFormat::LibgdxAtlas => &["atlas"],
            OutputFormat::UnityMeta => &["meta"],
            OutputFormat::UnityAnim => &["anim"],
            OutputFormat::Gml => &["gml"],
            OutputFormat::Html => &["html", "htm"],
            OutputFormat::Copy => &[],
        }
    }

    /// The format's name, for messages.
    pub fn label(self) -> &'static str {
        match self {
            OutputFormat::Png => "a PNG image",
            OutputFormat::Gif => "a GIF animation",
            OutputFormat::Json => "JSON",
            OutputFormat::Obj => "an OBJ mesh",
            OutputFormat::Mtl => "an MTL material library",
            OutputFormat::Xml => "XML",
            OutputFormat::GodotResource => "a Godot resource",
            OutputFormat::GodotScene => "a Godot scene",
            OutputFormat::LibgdxAtlas => "a libGDX atlas",
            OutputFormat::UnityMeta => "a Unity .meta",
            OutputFormat::UnityAnim => "a Unity animation clip",
            OutputFormat::Gml => "a GameMaker script",
            OutputFormat::Html => "HTML",
            OutputFormat::Copy => "a copy",
        }
    }
}

/// One file a command will write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedOutput {
    /// Where, as the command will write it.
    pub path: PathBuf,
    /// What.
    pub format: OutputFormat,
}

/// Every file a command will write.
#[derive(Debug, Clone, Default)]
pub struct OutputPlan {
    outputs: Vec<PlannedOutput>,
}

impl OutputPlan {
    /// An empty plan.
    pub fn new() -> OutputPlan {
        OutputPlan::default()
    }

    /// Adds a file to write.
    pub fn add(&mut self, path: impl Into<PathBuf>, format: OutputFormat) -> &mut OutputPlan {
        self.outputs.push(PlannedOutput { path: path.into(), format });
        self
    }

    /// The planned files, in the order they were added.
    pub fn outputs(&self) -> &[PlannedOutput] {
        &self.outputs
    }

    /// Checks the plan against itself and against `inputs` (every file the command reads; paths
    /// that do not exist are ignored): [`OutputPlan::check_distinct`] (an input about to be
    /// destroyed is the news worth reporting first), then [`OutputPlan::check_writable`].
    ///
    /// # Errors
    /// [`Error::Refused`], one line naming the paths, for the first problem found (see the
    /// module notes).
    pub fn check(&self, inputs: &[PathBuf]) -> Result<()> {
        self.check_distinct(inputs)?;
        self.check_writable()
    }

    /// Checks each output on its own: its folders can exist, it is not a special file, its
    /// extension fits its format. A batch checks this per item, so one blocked output fails
    /// only its own item.
    ///
    /// # Errors
    /// [`Error::Refused`] naming the output.
    pub fn check_writable(&self) -> Result<()> {
        for output in &self.outputs {
            check_parents(&output.path)?;
            check_kind(&output.path)?;
            check_extension(output)?;
        }
        Ok(())
    }

    /// Checks that no output is one of `inputs` and no two outputs are the same file. Linear in
    /// outputs and inputs: each input is resolved once (a project of 8,000 entries names one
    /// model 8,000 times) and outputs are looked up by location and by inode.
    ///
    /// # Errors
    /// [`Error::Refused`] naming both paths.
    pub fn check_distinct(&self, inputs: &[PathBuf]) -> Result<()> {
        let mut resolved: HashSet<&Path> = HashSet::new();
        // The first input at each location and with each inode, by index in `inputs`.
        let mut input_at: HashMap<PathBuf, usize> = HashMap::new();
        let mut input_inode: HashMap<(u64, u64), usize> = HashMap::new();
        for (i, path) in inputs.iter().enumerate() {
            if !resolved.insert(path) {
                continue;
            }
            let Some(key) = FileKey::of(path).filter(FileKey::exists) else { continue };
            input_at.entry(key.location).or_insert(i);
            if let Some(inode) = key.inode {
                input_inode.entry(inode).or_insert(i);
            }
        }
        let mut by_location: HashMap<PathBuf, &Path> = HashMap::new();
        let mut by_inode: HashMap<(u64, u64), &Path> = HashMap::new();
        for output in &self.outputs {
            let path = output.path.as_path();
            let Some(key) = FileKey::of(path) else {
                return Err(refused(format!("{}: not a usable output path", path.display())));
            };
            let same_inode = key.inode.and_then(|i| input_inode.get(&i));
            if let Some(input) =
                input_at.get(&key.location).into_iter().chain(same_inode).min().and_then(|&i| inputs.get(i))
            {
                return Err(Error::Clash {
                    output: path.to_path_buf(),
                    other: input.to_path_buf(),
                    kind: ClashKind::Input,
                });
            }
            let earlier = by_location
                .insert(key.location.clone(), path)
                .or_else(|| key.inode.and_then(|i| by_inode.insert(i, path)));
            if let Some(earlier) = earlier {
                return Err(Error::Clash {
                    output: path.to_path_buf(),
                    other: earlier.to_path_buf(),
                    kind: ClashKind::Output,
                });
            }
        }
        Ok(())
    }
}

fn refused(message: String) -> Error {
    Error::Refused(message)
}

fn check_extension(output: &PlannedOutput) -> Result<()> {
    let allowed = output.format.extensions();
    let ext = output.path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    if allowed.is_empty() || ext.as_deref().is_some_and(|e| allowed.contains(&e)) {
        return Ok(());
    }
    Err(refused(format!(
        "{}: the file written is {}, so its name must end in .{}",
        output.path.display(),
        output.format.label(),
        allowed.join(" or .")
    )))
}

/// The nearest existing folder above `path` must be a folder: anything else (a file, a broken
/// link) makes the folders below it impossible to create.
fn check_parents(path: &Path) -> Result<()> {
    for dir in path.ancestors().skip(1).filter(|d| !d.as_os_str().is_empty()) {
        if fs::symlink_metadata(dir).is_err() {
            continue; // missing: created when the outputs are written
        }
        return match fs::metadata(dir) {
            Ok(m) if m.is_dir() => Ok(()),
            _ => Err(refused(format!("{}: {} exists and is not a folder", path.display(), dir.display()))),
        };
    }
    Ok(())
}

/// An existing output must be a regular file (following links).
fn check_kind(path: &Path) -> Result<()> {
    let Ok(meta) = fs::metadata(path) else { return Ok(()) };
    if meta.is_file() {
        return Ok(());
    }
    Err(refused(format!("{}: exists and is {}, not a regular file", path.display(), kind(&meta))))
}

#[cfg(unix)]
fn kind(meta: &fs::Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    match () {
        _ if t.is_dir() => "a folder",
        _ if t.is_fifo() => "a FIFO",
        _ if t.is_char_device() || t.is_block_device() => "a device",
        _ if t.is_socket() => "a socket",
        _ => "special",
    }
}

#[cfg(not(unix))]
fn kind(meta: &fs::Metadata) -> &'static str {
    if meta.is_dir() { "a folder" } else { "special" }
}

/// Where a path leads and, if it exists, which file it is: what "the same file" means to the
/// plan (and to whatever must agree with it, such as a bake run's check of its state records).
pub(crate) struct FileKey {
    /// The absolute path it leads to ([`resolve_location`]).
    pub location: PathBuf,
    /// Device and inode of the file, when it exists (on Unix).
    pub inode: Option<(u64, u64)>,
}

impl FileKey {
    /// The key of `path`; `None` when it cannot be made absolute.
    pub(crate) fn of(path: &Path) -> Option<FileKey> {
        let location = resolve_location(path)?;
        Some(FileKey { location, inode: fs::metadata(path).ok().and_then(|m| inode(&m)) })
    }

    pub(super) fn exists(&self) -> bool {
        self.inode.is_some() || self.location.exists()
    }
}

#[cfg(unix)]
fn inode(meta: &fs::Metadata) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    Some((meta.dev(), meta.ino()))
}

#[cfg(not(unix))]
fn inode(_: &fs::Metadata) -> Option<(u64, u64)> {
    None
}

/// The absolute path `path` leads to: every component that exists is resolved through
/// symlinks (as the OS will when writing); once a component is missing, the rest is normalised
/// lexically, which is exact there because nothing missing can be a symlink.
fn resolve_location(path: &Path) -> Option<PathBuf> {
    let absolute = std::path::absolute(path).ok()?;
    let mut out = PathBuf::new();
    let mut existing = true;
    for component in absolute.components() {
        match component {
            Component::CurDir => continue,
            Component::ParentDir if !existing => {
                out.pop();
                continue;
            }
            c => out.push(c),
        }
        if existing {
            match fs::canonicalize(&out) {
                Ok(resolved) => out = resolved,
                Err(_) => existing = false,
            }
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("spritebake-plan-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn refusal(plan: &OutputPlan, inputs: &[PathBuf]) -> String {
        match plan.check(inputs) {
            Err(e @ (Error::Refused(_) | Error::Clash { .. })) => e.to_string(),
            other => panic!("expected a refusal, got {other:?}"),
        }
    }

    #[test]
    fn extensions_must_match_the_format_written() {
        let dir = scratch("ext");
        let mut plan = OutputPlan::new();
        plan.add(dir.join("a.PNG"), OutputFormat::Png).add(dir.join("t.bmp"), OutputFormat::Copy);
        plan.check(&[]).unwrap();
        plan.add(dir.join("x.jpg"), OutputFormat::Png);
        assert!(refusal(&plan, &[]).contains("x.jpg: the file written is a PNG image, so its name must end in .png"));
        let mut plan = OutputPlan::new();
        plan.add(dir.join("noext"), OutputFormat::Json);
        assert!(refusal(&plan, &[]).contains("must end in .json"));
    }

    #[test]
    fn same_file_by_spelling_by_symlink_and_by_hard_link() {
        let dir = scratch("same");
        let input = dir.join("model.obj");
        fs::write(&input, b"v 0 0 0\n").unwrap();
        fs::hard_link(&input, dir.join("hard.png")).unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(&input, dir.join("soft.png")).unwrap();
        for out in [dir.join("sub/../model.obj"), dir.join("hard.png"), dir.join("./soft.png")] {
            if !out.exists() && fs::symlink_metadata(&out).is_err() {
                continue; // (no symlinks on this platform)
            }
            let mut plan = OutputPlan::new();
            plan.add(&out, OutputFormat::Copy);
            let m = refusal(&plan, std::slice::from_ref(&input));
            assert!(m.contains("refusing to overwrite an input file") && m.contains("model.obj"), "{m}");
        }
        // Two outputs spelled differently, one of them through a folder that does not exist yet.
        let mut plan = OutputPlan::new();
        plan.add(dir.join("out/a.png"), OutputFormat::Png).add(dir.join("out/new/../a.png"), OutputFormat::Png);
        assert!(refusal(&plan, &[]).contains("are the same file"));
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn special_files_and_non_folder_parents_are_refused() {
        let dir = scratch("special");
        fs::create_dir_all(dir.join("folder.png")).unwrap();
        fs::write(dir.join("file"), b"x").unwrap();
        let mut plan = OutputPlan::new();
        plan.add(dir.join("folder.png"), OutputFormat::Png);
        assert!(refusal(&plan, &[]).contains("exists and is a folder, not a regular file"));
        let mut plan = OutputPlan::new();
        plan.add(dir.join("file/deeper/x.png"), OutputFormat::Png);
        assert!(refusal(&plan, &[]).contains("exists and is not a folder"));
        // Missing folders are fine: they are created when the outputs are written.
        let mut plan = OutputPlan::new();
        plan.add(dir.join("new/deeper/x.png"), OutputFormat::Png);
        plan.check(&[]).unwrap();
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn twenty_thousand_outputs_are_checked_against_twenty_thousand_inputs() {
        // A `bake` project of 20,000 entries: 2,000 models each read by 10 entries, 20,000
        // outputs. Comparing every output with every input (400 million pairs) took minutes;
        // looked up by location and inode, a tenth of a second.
        let dir = scratch("linear");
        let models: Vec<PathBuf> = (0..2_000).map(|i| dir.join(format!("m{i}.obj"))).collect();
        for model in &models {
            fs::write(model, b"v 0 0 0\n").unwrap();
        }
        let inputs: Vec<PathBuf> = models.iter().cycle().take(20_000).cloned().collect();
        let mut plan = OutputPlan::new();
        for i in 0..20_000 {
            plan.add(dir.join(format!("out/t{i}.png")), OutputFormat::Png);
        }
        // Timed in docs/perf-log/journal.md (0.1 s here, 14.8 s when every output was compared with every
        // input); tests assert results, not speed.
        plan.check_distinct(&inputs).unwrap();
        // And the refusal still names the first input that is the output.
        plan.add(dir.join("./m7.obj"), OutputFormat::Copy);
        let m = refusal(&plan, &inputs);
        assert!(m.contains("refusing to overwrite an input file") && m.ends_with("m7.obj)"), "{m}");
        fs::remove_dir_all(dir).unwrap();
    }
}
