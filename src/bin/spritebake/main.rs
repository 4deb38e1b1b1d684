//! The `spritebake` command line: parses flags, calls the library, reports errors as one line.

#![forbid(unsafe_code)]

mod args;
mod commands;
mod common;
mod orbit;
mod progress;

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use spritebake::internal::terminal::escape_control;

use commands::*;

/// Headless CPU sprite renderer for animated 3D game models (MD2, MD3, MDL, MD5, SMD/QC, IQM, OBJ, glTF, FBX).
#[derive(Debug, Parser)]
#[command(name = "spritebake", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Render one image of a model.
    Render(render::RenderArgs),
    /// Describe a model: meshes, materials, textures, joints, clips, bounds.
    Info(info::InfoArgs),
    /// A sprite sheet (PNG + JSON) of clips × directions × frames.
    Sheet(sprite::SheetArgs),
    /// An animated GIF of one clip.
    // A GIF has no companion maps, no alpha to premultiply and no data for points: its help
    // does not offer the flags it refuses.
    #[command(mut_arg("maps", |a| a.hide(true)), mut_arg("normal_y", |a| a.hide(true)), mut_arg("alpha", |a| a.hide(true)), mut_arg("points", |a| a.hide(true)))]
    Gif(sprite::GifArgs),
    /// Every frame of clips as numbered PNG files.
    Frames(sprite::FramesArgs),
    /// Thumbnails of many models with good defaults.
    Thumbnail(thumbnail::ThumbnailArgs),
    /// Compare two PNGs: exact, then perceptual colour and alpha; exit 1 on a difference.
    Compare(compare::CompareArgs),
    /// Bake every entry of a project file (sheets, GIFs, frames, thumbnails) that changed.
    Bake(bake::BakeArgs),
    /// Render a manifest of golden-image cases and compare them.
    Check(check::CheckArgs),
    /// Write the posed mesh of one frame as OBJ + MTL.
    Export(export::ExportArgs),
    /// Measure render throughput: N frames orbiting the model, images kept in memory.
    Bench(bench::BenchArgs),
    /// Print the shell completion script for bash, zsh, fish, elvish or PowerShell.
    Completions(completions::CompletionsArgs),
    /// Print the man page, or write one page per subcommand into a folder (-o).
    Man(man::ManArgs),
}

/// The command line as it is parsed, and as completions and man pages describe it.
fn cli_command() -> clap::Command {
    Cli::command().mut_subcommand("thumbnail", thumbnail::with_thumbnail_defaults)
}

fn main() -> ExitCode {
    // A write past the file size limit (`ulimit -f`) raises SIGXFSZ, whose default action kills
    // the process and leaves its temporary files. With the signal blocked the write fails with
    // EFBIG instead: an ordinary I/O error, which names the file and removes them. Blocking (a
    // safe call) does for the write what ignoring does (SIG_IGN, which only unsafe calls set).
    // First thing, so that every thread started later inherits the mask.
    #[cfg(unix)]
    {
        let mut file_size = nix::sys::signal::SigSet::empty();
        file_size.add(nix::sys::signal::Signal::SIGXFSZ);
        let _ = file_size.thread_block();
    }
    // SIGINT, SIGTERM, SIGHUP: let a commit in progress finish (never a sheet without its
    // JSON), remove every temporary file, exit as interrupted processes do.
    let _ = ctrlc::set_handler(|| {
        let _stopped = spritebake::internal::output::stop_writing();
        std::process::exit(130);
    });
    let matches = cli_command().get_matches();
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    let result = match cli.command {
        Command::Render(args) => render::run(&args),
        Command::Info(args) => info::run(&args),
        Command::Sheet(args) => sprite::sheet(&args),
        Command::Gif(args) => sprite::gif(&args),
        Command::Frames(args) => sprite::frames(&args),
        Command::Thumbnail(args) => thumbnail::run(&args),
        Command::Compare(args) => compare::run(&args),
        Command::Bake(args) => bake::run(&args),
        Command::Check(args) => check::run(&args),
        Command::Export(args) => export::run(&args),
        Command::Bench(args) => bench::run(&args),
        Command::Completions(args) => completions::run(&args, cli_command()),
        Command::Man(args) => man::run(&args, cli_command()),
    };
    result.unwrap_or_else(|e| {
        if is_broken_pipe(&e) {
            // The reader stopped early (`spritebake info model | head`): nothing left to report.
            return ExitCode::SUCCESS;
        }
        // Model text reaches error messages: escaped, so the error stays one honest line.
        eprintln!("error: {}", escape_control(&describe(&e)));
        ExitCode::from(2)
    })
}

/// The error and its causes, each cause left out when the text before it already says it: the
/// library's errors put their I/O cause in their own message ("x.md2: No such file...") and
/// also expose it as their source, which `{:#}` would print a second time. A refused option
/// is named by its flag (`--pixel-art 40: must be from 1 to 16`).
fn describe(e: &anyhow::Error) -> String {
    let mut text = match e.downcast_ref::<spritebake::Error>() {
        Some(e) => common::message(e),
        None => e.to_string(),
    };
    for cause in e.chain().skip(1) {
        let cause = cause.to_string();
        if !text.contains(&cause) {
            text = format!("{text}: {cause}");
        }
    }
    text
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
}
