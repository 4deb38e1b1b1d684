//! `spritebake thumbnail`: a good picture of each model with no flags, many models in parallel.

use std::collections::HashSet;
use std::io::Write;
use std::path::{Component, Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::parser::ValueSource;
use clap::{ArgMatches, Args};
use rayon::prelude::*;
use spritebake::bake::{self, Product, pipeline};
use spritebake::model::Axis;
use spritebake::output::{OutputFormat, OutputPlan, Transaction, sanitize_component};
use spritebake::spec::{AnimSpec, BakeSpec, LimitsSpec, ModelSpec, RenderSpec, ViewSpec};

use crate::args::RunArgs;
use crate::common::set_threads;

/// `spritebake thumbnail`.
#[derive(Debug, Args)]
pub struct ThumbnailArgs {
    /// Model files, folders (every .md2 .md5mesh .smd .obj .gltf .glb file under them, in
    /// subfolders too; symbolic links to folders are not followed) or quoted glob patterns
    /// (`'models/*.obj'`, `'assets/**/*.md2'`).
    #[arg(required = true, value_name = "MODEL")]
    pub models: Vec<PathBuf>,
    /// Output: a folder (one `<stem>.png` per model, the stem made a safe file name; created if
    /// missing) or, for one model file (not a folder or a pattern), a `.png` file.
    #[arg(short, long)]
    pub output: PathBuf,
    /// Camera and thumbnail size, as `render` takes them; a flag not given keeps the
    /// thumbnail's default (a three-quarter view: yaw 35, pitch 20).
    #[command(flatten)]
    pub view: ViewSpec,
    /// Rendering, as `render` takes it; a flag not given keeps the thumbnail's default (4×4
    /// supersampling, a key and a fill light, ambient 0.25).
    #[command(flatten)]
    pub render: RenderSpec,
    /// Every model's front axis in its file, as `render --facing` (default: each format's).
    #[arg(long, allow_hyphen_values = true)]
    pub facing: Option<Axis>,
    /// Every model's up axis in its file, as `render --up` (default: each format's).
    #[arg(long, allow_hyphen_values = true)]
    pub up: Option<Axis>,
    /// Clips, attachments, bone overrides, blend, transition (applied to every model; the
    /// default pose is each model's first clip).
    #[command(flatten)]
    pub anim: AnimSpec,
    /// Limits for every model (each gets its own memory budget).
    #[command(flatten)]
    pub limits: LimitsSpec,
    /// Threads; --quiet prints only failures and the summary line (no `ok` lines, no warnings).
    #[command(flatten)]
    pub run: RunArgs,
}

/// `thumbnail`'s flags with the thumbnail's own defaults where they differ from `render`'s, so
/// `--help` tells the truth (what a flag not given becomes is decided in [`ThumbnailArgs::spec`]).
pub fn shown_defaults(command: clap::Command) -> clap::Command {
    let thumbnail = BakeSpec::thumbnail();
    // clap keeps default texts for the life of the process: one short string per flag.
    let text = |value: f32| -> &'static str { Box::leak(value.to_string().into_boxed_str()) };
    command
        .mut_arg("yaw", |a| a.default_value(text(thumbnail.view.yaw)))
        .mut_arg("pitch", |a| a.default_value(text(thumbnail.view.pitch)))
        .mut_arg("ambient", |a| a.default_value(text(thumbnail.render.ambient)))
        .mut_arg("light", |a| {
            a.help("Directional light towards x,y,z in view space (x right, y up, z towards the viewer); repeatable. Default for thumbnails: a key light from the upper left and a fill light")
        })
}

impl ThumbnailArgs {
    /// The bake of every model: the thumbnail defaults with the flags given on the command
    /// line (`given`: the subcommand's matches) over them, the model left out.
    fn spec(&self, given: &ArgMatches) -> Result<BakeSpec> {
        // The view and render flags read as spec keys, those given kept: a flag left at
        // clap's default (the sprite commands') must not undo the thumbnail's.
        let mut table = toml::Table::new();
        for group in [toml::Table::try_from(&self.view), toml::Table::try_from(&self.render)] {
            table.extend(group.context("reading the view and render flags")?);
        }
        table.retain(|key, _| given.value_source(key) == Some(ValueSource::CommandLine));
        let base = BakeSpec::from_table_over(&BakeSpec::thumbnail(), &table, &[])?;
        let model = ModelSpec { facing: self.facing, up: self.up, ..base.model.clone() };
        Ok(BakeSpec { model, anim: self.anim.clone(), limits: self.limits.clone(), ..base })
    }
}

/// One model file named as such and `-o NAME.EXT` that is not an existing folder: the output
/// is that file (and the plan refuses an extension other than .png); otherwise `-o` is a folder
/// (always, when the models came from a folder or a pattern).
fn single_file(args: &ThumbnailArgs, models: &Models) -> bool {
    !models.expanded && models.paths.len() == 1 && args.output.extension().is_some() && !args.output.is_dir()
}

fn output_for(args: &ThumbnailArgs, single: bool, model: &Path) -> PathBuf {
    if single {
        return args.output.clone();
    }
    let stem = model.file_stem().map(|s| sanitize_component(&s.to_string_lossy())).unwrap_or_else(|| "model".into());
    args.output.join(format!("{stem}.png"))
}

/// The files named on the command line that every model of the batch reads.
fn shared_inputs(base: &BakeSpec) -> Vec<PathBuf> {
    base.named_files().into_iter().skip(1).collect()
}

/// Refuses the batch, before anything renders, when one model's thumbnail would replace a
/// file another model reads (`thumbnail X/a.obj Y/b.obj -o Y` with b's skin `Y/a.png`). What
/// a model reads is known once it is loaded, so every model is loaded once here, `at_once` at
/// a time — only when some thumbnail's file already exists: a file that does not exist yet is
/// nobody's input. (A model whose own files are in its thumbnail's way fails alone, later.)
fn check_batch_inputs(
    args: &ThumbnailArgs,
    single: bool,
    models: &[PathBuf],
    base: &BakeSpec,
    at_once: usize,
) -> Result<()> {
    let outputs: Vec<(&PathBuf, PathBuf)> = models.iter().map(|m| (m, output_for(args, single, m))).collect();
    if !outputs.iter().any(|(_, out)| out.exists()) {
        return Ok(());
    }
    let inputs_of = |model: &PathBuf| -> Vec<PathBuf> {
        let mut spec = base.clone();
        spec.model.model = model.clone();
        // A model that does not load fails on its own line when the batch runs.
        let loaded = spec.resolve().and_then(|resolved| bake::load(&resolved));
        loaded.map(|l| l.inputs).unwrap_or_default()
    };
    for chunk in models.chunks(at_once) {
        let read: Vec<Vec<PathBuf>> = chunk.par_iter().map(inputs_of).collect();
        for (reader, inputs) in chunk.iter().zip(&read) {
            let mut others = OutputPlan::new();
            for (_, out) in outputs.iter().filter(|(m, _)| *m != reader) {
                others.add(out, OutputFormat::Png);
            }
            if let Err(e) = others.check_distinct(inputs) {
                let writer = match &e {
                    spritebake::Error::Clash { output, .. } => outputs.iter().find(|(_, out)| out == output),
                    _ => None,
                };
                let writer = writer.map_or_else(|| "a model".to_string(), |(m, _)| m.display().to_string());
                anyhow::bail!(
                    "{}: the thumbnail of {writer} would replace a file {} reads; nothing was rendered",
                    crate::common::message(&e),
                    reader.display()
                );
            }
        }
    }
    Ok(())
}

/// One model's thumbnail, written to `out`; its warnings.
fn one(model_path: &Path, out: &Path, base: &BakeSpec) -> spritebake::Result<Vec<String>> {
    let mut spec = base.clone();
    spec.model.model = model_path.to_path_buf();
    let resolved = spec.resolve()?;
    let loaded = bake::load(&resolved)?;
    // This model's own files (its skin may sit where its thumbnail would go): checked once
    // they are known, and a clash fails this model only.
    let output = out.to_string_lossy();
    Product::Render.plan(&output, &loaded, &resolved)?.check(&loaded.inputs)?;
    let mut files = Transaction::new();
    pipeline::write(Product::Render, &loaded, &resolved, &output, &spec.limits.budget(), &|| {}, &mut files)?;
    files.commit()?;
    Ok(loaded.warnings)
}

/// `text` without a leading `MODEL: ` (loader messages often start with the file's name), so
/// the line names the model once.
fn without_model<'t>(text: &'t str, model: &Path) -> &'t str {
    text.strip_prefix(&format!("{}: ", model.display())).unwrap_or(text)
}

/// Runs the command: one line per model; failures do not stop the others.
pub fn run(args: &ThumbnailArgs, given: &ArgMatches) -> Result<ExitCode> {
    let mut stdout = std::io::stdout();
    let mut stderr = std::io::stderr();
    set_threads(args.run.threads)?;
    let base = args.spec(given)?;
    // Every option is checked once, before any model (a model path stands in).
    BakeSpec { model: spritebake::spec::ModelSpec { model: "model".into(), ..base.model.clone() }, ..base.clone() }
        .resolve()?;
    let models = expand(&args.models)?;
    let single = single_file(args, &models);
    // Every model's output, planned before anything is rendered: two models with one stem,
    // or an output on any model file, refuse the whole batch. (An output that cannot be
    // written, such as a folder in the way, fails only its own model, below.)
    let mut plan = OutputPlan::new();
    for m in &models.paths {
        plan.add(output_for(args, single, m), OutputFormat::Png);
    }
    plan.check_distinct(&models.paths.iter().cloned().chain(shared_inputs(&base)).collect::<Vec<_>>())?;
    // However many cores, only a few models (each within its budget, and its attachments
    // within another) are held at once.
    let attachments = if base.anim.attach.is_empty() { 1 } else { 2 };
    let per_model = base.limits.limits().max_memory_bytes.saturating_mul(attachments);
    let at_once = spritebake::budget::models_in_flight(per_model);
    check_batch_inputs(args, single, &models.paths, &base, at_once)?;
    // A batch commits per model, so its folder is made once, up front.
    if !single {
        std::fs::create_dir_all(&args.output)?;
    }
    let results: Vec<(PathBuf, PathBuf, spritebake::Result<Vec<String>>)> = models
        .paths
        .chunks(at_once)
        .flat_map(|chunk| {
            chunk
                .par_iter()
                .map(|m| {
                    let out = output_for(args, single, m);
                    let result = one(m, &out, &base);
                    (m.clone(), out, result)
                })
                .collect::<Vec<_>>()
        })
        .collect();
    let mut failed = 0;
    for (model, out, result) in &results {
        // File names, warnings and error messages carry model text: each line escaped.
        let line = match result {
            Ok(_) if args.run.quiet => continue,
            Ok(warnings) => {
                for warning in warnings {
                    let line = format!("warning: {}: {}", model.display(), without_model(warning, model));
                    writeln!(stderr, "{}", spritebake::terminal::escape_control(&line))?;
                }
                match warnings.len() {
                    0 => format!("ok    {} -> {}", model.display(), out.display()),
                    w => format!("ok    {} -> {} ({w} warnings)", model.display(), out.display()),
                }
            }
            Err(e) => {
                failed += 1;
                format!("FAIL  {}: {}", model.display(), without_model(&crate::common::message(e), model))
            }
        };
        writeln!(stdout, "{}", spritebake::terminal::escape_control(&line))?;
    }
    writeln!(stdout, "{} thumbnails, {failed} failed", results.len() - failed)?;
    Ok(if failed > 0 { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// The extensions of the model files a folder or a pattern expands to (any letter case).
const MODEL_EXTENSIONS: [&str; 6] = ["md2", "md5mesh", "smd", "obj", "gltf", "glb"];

/// The models of a batch, as the command line's MODEL arguments expand.
#[derive(Debug, Default, PartialEq)]
struct Models {
    /// Each model once, in argument order; each folder's or pattern's models sorted.
    paths: Vec<PathBuf>,
    /// Some argument was a folder or a pattern.
    expanded: bool,
}

fn is_model_file(path: &Path) -> bool {
    let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).unwrap_or_default();
    MODEL_EXTENSIONS.contains(&ext.as_str())
}

/// A file or folder name with `*`, `?` or `[` (a Windows prefix such as `\\?\` is no pattern).
fn is_pattern(name: &std::ffi::OsStr) -> bool {
    name.to_string_lossy().contains(['*', '?', '['])
}

fn has_glob_chars(arg: &Path) -> bool {
    arg.components().any(|c| matches!(c, Component::Normal(name) if is_pattern(name)))
}

/// Expands the MODEL arguments: a folder to the model files under it, an argument with glob
/// characters that names nothing that exists to the model files and folders it matches, and
/// anything else stays as it is (a missing file then fails on its own line). A path that
/// comes twice (the same file, however it is spelled) is kept the first time.
///
/// # Errors
/// A folder or a pattern with no model in it, an invalid pattern, a folder that cannot be read.
fn expand(args: &[PathBuf]) -> Result<Models> {
    let mut models = Models::default();
    let mut seen = HashSet::new();
    for arg in args {
        let found = if arg.is_dir() {
            let found = models_under(arg)?;
            anyhow::ensure!(
                !found.is_empty(),
                "{}: no model files in this folder or its subfolders ({})",
                arg.display(),
                extension_list()
            );
            found
        } else if has_glob_chars(arg) && std::fs::symlink_metadata(arg).is_err() {
            let found = glob_models(arg)?;
            anyhow::ensure!(
                !found.is_empty(),
                "{}: the pattern matches no model files ({})",
                arg.display(),
                extension_list()
            );
            found
        } else {
            models.paths.extend(seen.insert(identity(arg)).then(|| arg.clone()));
            continue;
        };
        models.expanded = true;
        models.paths.extend(found.into_iter().filter(|p| seen.insert(identity(p))));
    }
    Ok(models)
}

fn extension_list() -> String {
    MODEL_EXTENSIONS.map(|e| format!(".{e}")).join(" ")
}

/// What makes two spellings of one file the same model: its canonical path where it exists.
fn identity(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// The folder's entries, sorted, as (path, is a folder that is no symbolic link).
fn entries(dir: &Path) -> Result<Vec<(PathBuf, bool)>> {
    let read = |dir: &Path| -> std::io::Result<Vec<(PathBuf, bool)>> {
        let mut entries = Vec::new();
        for entry in std::fs::read_dir(dir)? {
            let entry = entry?;
            // `DirEntry::file_type` does not follow symbolic links.
            entries.push((entry.path(), entry.file_type()?.is_dir()));
        }
        entries.sort();
        Ok(entries)
    };
    read(dir).with_context(|| format!("{}: cannot read this folder", dir.display()))
}

/// Every model file under `dir`, sorted; folders reached through a symbolic link are left out
/// (no loops, nothing outside the folder), model files that are symbolic links are kept.
fn models_under(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(dir) = todo.pop() {
        for (path, is_dir) in entries(&dir)? {
            if is_dir {
                todo.push(path);
            } else if is_model_file(&path) && path.is_file() {
                found.push(path);
            }
        }
    }
    found.sort();
    Ok(found)
}

/// One part of a pattern, between separators.
enum Part {
    /// No glob characters: joined as it is.
    Literal(PathBuf),
    /// `**`: this folder and every folder under it.
    AnyFolders,
    /// Matched against each name in the folder.
    Pattern(glob::Pattern),
}

/// The model files a pattern matches, sorted, with every folder it matches expanded as a
/// folder argument is. The parts before the first glob character are taken as written (as a
/// folder argument is); below them the walk, like the folder walk, never enters a symbolic
/// link to a folder. (`glob::glob` would: `**` would follow a link loop into an ever deeper
/// walk. So the walk is ours and the glob crate matches the names.)
fn glob_models(pattern: &Path) -> Result<Vec<PathBuf>> {
    let mut base = PathBuf::new();
    let mut parts = Vec::new();
    for component in pattern.components() {
        let text = component.as_os_str();
        let Component::Normal(name) = component else {
            // A prefix, the root, `.` or `..`: taken as written.
            if parts.is_empty() {
                base.push(text)
            } else {
                parts.push(Part::Literal(PathBuf::from(text)))
            }
            continue;
        };
        if parts.is_empty() && !is_pattern(name) {
            base.push(name);
        } else if name == "**" {
            // `**/**` is `**`.
            if !matches!(parts.last(), Some(Part::AnyFolders)) {
                parts.push(Part::AnyFolders);
            }
        } else if is_pattern(name) {
            let part = glob::Pattern::new(&name.to_string_lossy())
                .with_context(|| format!("{}: not a valid pattern", pattern.display()))?;
            parts.push(Part::Pattern(part));
        } else {
            parts.push(Part::Literal(PathBuf::from(name)));
        }
    }
    if base.as_os_str().is_empty() {
        base.push(".");
    }
    if !base.is_dir() {
        return Ok(Vec::new());
    }
    let options = glob::MatchOptions::new();
    let mut found = Vec::new();
    let mut matched = Vec::new();
    // (folder, index of the part its entries are matched against); a pattern of only literal
    // parts cannot get here (it names no glob character).
    let mut todo = vec![(base, 0)];
    while let Some((dir, i)) = todo.pop() {
        let last = i + 1 == parts.len();
        match &parts[i] {
            Part::AnyFolders => {
                if last {
                    // A pattern ending in `**`: the folder, expanded below, holds the rest.
                    matched.push(dir);
                    continue;
                }
                todo.push((dir.clone(), i + 1));
                for (path, is_dir) in entries(&dir)? {
                    if is_dir {
                        todo.push((path, i));
                    }
                }
            }
            Part::Literal(name) => {
                let path = dir.join(name);
                let is_dir = std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir());
                if last {
                    matched.push(path);
                } else if is_dir {
                    todo.push((path, i + 1));
                }
            }
            Part::Pattern(part) => {
                for (path, is_dir) in entries(&dir)? {
                    let name = path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
                    if !part.matches_with(&name, options) {
                        continue;
                    }
                    if last {
                        matched.push(path);
                    } else if is_dir {
                        todo.push((path, i + 1));
                    }
                }
            }
        }
    }
    for path in matched {
        match std::fs::symlink_metadata(&path) {
            Ok(m) if m.is_dir() => found.extend(models_under(&path)?),
            Ok(_) if is_model_file(&path) && path.is_file() => found.push(path),
            _ => {}
        }
    }
    found.sort();
    found.dedup();
    Ok(found)
}
