//! `spritebake thumbnail`: a good picture of each model with no flags, many models in parallel
//! (the batch is the library's [`spritebake::thumbnail`]).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use spritebake::internal::formats::Format;
use spritebake::model::Axis;
use spritebake::spec::{AnimSpec, BakeSpec, LimitsSpec, ModelSpec, Profile, RenderSpec, ViewSpec};
use spritebake::thumbnail::{Summary, ThumbnailBatch};

use crate::args::{RunArgs, with_defaults_of};
use crate::common::set_threads;

/// The MODEL arguments' help, naming the extensions the loader knows.
fn models_help() -> String {
    format!(
        "Model files, folders (every {} file under them, in subfolders too; symbolic links to \
         folders are not followed, and model files that are symbolic links leading out of the folder \
         are refused unread) or quoted glob patterns ('models/*.obj', 'assets/**/*.md2'). In folders \
         and patterns, a model a .qc or .def script describes is rendered through the script only, \
         and parts of models (sequence SMDs, Half-Life sequence group and texture files) and \
         animation.cfg files with no Quake 3 player beside them are skipped.",
        Format::extension_list()
    )
}

/// `spritebake thumbnail`.
#[derive(Debug, Args)]
pub struct ThumbnailArgs {
    /// Model files, folders (every model file under them, in subfolders too) or quoted glob
    /// patterns: see [`models_help`].
    #[arg(required = true, value_name = "MODEL", help = models_help())]
    pub models: Vec<PathBuf>,
    /// Output: a folder (created if missing) where each thumbnail's name mirrors the model's
    /// path below the folder or pattern it was found in (`thumbnail assets -o out`:
    /// `assets/md2/ogro/tris.md2` -> `out/md2/ogro/tris.png`; a file named as such: its stem);
    /// or, for one model file (not a folder or a pattern), a `.png` file.
    #[arg(short, long)]
    pub output: PathBuf,
    /// Every thumbnail directly in the output folder, named after the model's stem (where two
    /// stems are the same: after the folders below the root too, `players_male_tris.png`).
    #[arg(long)]
    pub flat: bool,
    /// Also write `index.html` in the output folder: every thumbnail in a grid with its name,
    /// model path, triangle count and warnings, the failed models first with their reasons;
    /// one self-contained page to open from a CI artifact.
    #[arg(long)]
    pub html: bool,
    /// Also write one JSON record per model to FILE: input, output, status (`ok`, `failed`),
    /// reason, warnings, triangles, seconds.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
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
    /// A folder outside each model's own that paths written in the models (textures, material
    /// libraries, buffers) may lead into, as `render --texture-root` (repeatable): the base
    /// folder of a Doom 3 tree, whose `.def` files name meshes and textures from it.
    #[arg(long, value_name = "DIR")]
    pub texture_root: Vec<PathBuf>,
    /// Clips, attachments, bone overrides, blend, transition (applied to every model; the
    /// default pose is each model's first clip that moves).
    #[command(flatten)]
    pub anim: AnimSpec,
    /// Limits for every model (each gets its own memory budget).
    #[command(flatten)]
    pub limits: LimitsSpec,
    /// Threads; --quiet prints only failures and the summary line (no `ok` lines, no warnings).
    #[command(flatten)]
    pub run: RunArgs,
}

/// `thumbnail`'s flags with the thumbnail profile's defaults (see [`with_defaults_of`]).
pub fn with_thumbnail_defaults(command: clap::Command) -> clap::Command {
    with_defaults_of(command, Profile::Thumbnail)
}

impl ThumbnailArgs {
    /// The bake of every model: the thumbnail profile with the flags given over it (clap took
    /// the view and render flags' defaults from the profile), the model left out.
    fn spec(&self) -> BakeSpec {
        let base = Profile::Thumbnail.spec();
        let model = ModelSpec {
            facing: self.facing,
            up: self.up,
            texture_root: self.texture_root.clone(),
            ..base.model.clone()
        };
        BakeSpec {
            model,
            anim: self.anim.clone(),
            view: self.view.clone(),
            render: self.render.clone(),
            limits: self.limits.clone(),
            ..base
        }
    }
}

/// Runs the command: one line per model; failures do not stop the others.
pub fn run(args: &ThumbnailArgs) -> Result<ExitCode> {
    set_threads(args.run.threads)?;
    let batch = ThumbnailBatch {
        models: args.models.clone(),
        output: args.output.clone(),
        flat: args.flat,
        html: args.html,
        json: args.json.clone(),
        base: args.spec(),
    };
    let summary = batch.run(&crate::common::message)?;
    print(&summary, args.run.quiet)?;
    summary.write_reports()?;
    Ok(if summary.failed() > 0 { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// Prints one line per model and per folder the scan could not read (and one for the files
/// left out) and the summary line.
fn print(summary: &Summary, quiet: bool) -> Result<()> {
    let mut stdout = std::io::stdout();
    let mut stderr = std::io::stderr();
    // File names, warnings and error messages carry model text: each line escaped.
    let print =
        |out: &mut dyn Write, line: String| writeln!(out, "{}", spritebake::internal::terminal::escape_control(&line));
    for record in &summary.records {
        let model = record.input.display();
        match (&record.output, &record.reason) {
            (Some(_), _) if quiet => {}
            (Some(output), _) => {
                for warning in &record.warnings {
                    print(&mut stderr, format!("warning: {model}: {warning}"))?;
                }
                let line = match record.warnings.len() {
                    0 => format!("ok    {model} -> {}", output.display()),
                    w => format!("ok    {model} -> {} ({w} warnings)", output.display()),
                };
                print(&mut stdout, line)?;
            }
            (None, reason) => print(&mut stdout, format!("FAIL  {model}: {}", reason.as_deref().unwrap_or("")))?,
        }
    }
    let Summary { parts, read_by_scripts, configs, .. } = *summary;
    if !quiet && parts + read_by_scripts > 0 {
        writeln!(
            stdout,
            "skipped {parts} parts of models (sequence SMDs, Half-Life sequence groups and texture files: no \
             triangles of their own) and {read_by_scripts} files a .qc or .def script of the batch reads"
        )?;
    }
    // The cfgs of other games are said on a line of their own: they are no parts of the
    // models beside them, as the studio files are.
    if !quiet && configs > 0 {
        writeln!(
            stdout,
            "skipped {configs} animation.cfg files of no Quake 3 player (without lower.md3, upper.md3 and \
             head.md3 beside them)"
        )?;
    }
    let failed = summary.failed();
    writeln!(stdout, "{} thumbnails, {failed} failed", summary.records.len() - failed)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use clap::FromArgMatches;

    use super::*;

    /// `thumbnail`'s arguments as the command line parses them.
    fn parsed(flags: &[&str]) -> ThumbnailArgs {
        let words = ["spritebake", "thumbnail", "m.obj", "-o", "out"].into_iter().chain(flags.iter().copied());
        let matches = crate::cli_command().try_get_matches_from(words).unwrap();
        ThumbnailArgs::from_arg_matches(matches.subcommand().unwrap().1).unwrap()
    }

    #[test]
    fn flags_not_given_are_the_thumbnail_profile_and_given_ones_replace_it() {
        assert_eq!(parsed(&[]).spec(), Profile::Thumbnail.spec());
        let spec = parsed(&["--yaw", "-90", "--light", "0,1,0"]).spec();
        let thumbnail = Profile::Thumbnail.spec();
        assert_eq!((spec.view.yaw, spec.view.pitch, spec.render.ambient), (-90.0, 20.0, 0.25));
        assert_eq!(spec.render.light, ["0,1,0".parse().unwrap()]);
        assert_ne!(spec.render.light, thumbnail.render.light);
        assert_eq!(spec.render.ssaa, thumbnail.render.ssaa);
    }
}
