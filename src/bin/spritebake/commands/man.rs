//! `spritebake man`: roff man pages of the command line, for packagers and `man`.
//!
//! One page per command, as git and cargo ship theirs: `spritebake.1` lists the subcommands
//! and refers to `spritebake-render(1)` and the others, each with its own synopsis and flags.
//! Printed alone, `spritebake.1` is the overview a user can read at once; `-o DIR` writes the
//! whole set, which is what a package installs into `man1/`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Result, bail};
use clap::Args;
use clap_mangen::Man;
use spritebake::output::Transaction;

/// `spritebake man`.
#[derive(Debug, Args)]
pub struct ManArgs {
    /// Write spritebake.1 and a page for each subcommand (spritebake-render.1, ...) into this
    /// folder, created when missing, instead of printing spritebake.1.
    #[arg(short, long, value_name = "DIR")]
    pub output: Option<PathBuf>,
}

/// Prints `spritebake.1`, or writes every page into `--output`, made from `command` (the
/// command line as `main` parses it).
pub fn run(args: &ManArgs, command: clap::Command) -> Result<ExitCode> {
    // clap's `help` subcommand gets no page, as in clap_mangen's own `generate_to`.
    let mut command = command.disable_help_subcommand(true);
    // Building names each subcommand `spritebake-NAME`: the title and file of its page.
    command.build();
    match &args.output {
        None => {
            let mut page = Vec::new();
            page_of(command).render(&mut page)?;
            std::io::stdout().write_all(&page)?;
        }
        Some(dir) => {
            let mut pages = Vec::new();
            collect_pages(&command, &mut pages)?;
            write_pages(dir, &pages)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `command`'s page (file name and roff text), then its subcommands' pages, depth first.
fn collect_pages(command: &clap::Command, pages: &mut Vec<(String, Vec<u8>)>) -> std::io::Result<()> {
    let man = page_of(command.clone());
    let mut page = Vec::new();
    man.render(&mut page)?;
    pages.push((man.get_filename(), page));
    for sub in command.get_subcommands().filter(|s| !s.is_hide_set()) {
        collect_pages(sub, pages)?;
    }
    Ok(())
}

/// The page of `command`, every one footed "spritebake VERSION" (clap_mangen would foot a
/// subcommand's with its own name and no version: only the top command has one).
fn page_of(command: clap::Command) -> Man {
    Man::new(command).source(format!("spritebake {}", env!("CARGO_PKG_VERSION")))
}

/// Every page into `dir` in one transaction: a package build never sees half a set.
fn write_pages(dir: &Path, pages: &[(String, Vec<u8>)]) -> Result<()> {
    if std::fs::metadata(dir).is_ok_and(|m| !m.is_dir()) {
        bail!("{}: exists and is not a folder", dir.display());
    }
    let mut transaction = Transaction::new();
    for (name, page) in pages {
        transaction.stage(&dir.join(name), page)?;
    }
    transaction.commit()?;
    Ok(())
}
