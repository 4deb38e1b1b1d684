//! `spritebake completions`: the shell's completion script for every subcommand and flag.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use clap_complete::Shell;

/// `spritebake completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    pub shell: Shell,
}

/// Prints the completion script of `command` (the command line as `main` parses it) to stdout.
pub fn run(args: &CompletionsArgs, mut command: clap::Command) -> Result<ExitCode> {
    // Made in memory and written with `?`: clap_complete panics when its writer fails, and a
    // closed pipe (`spritebake completions bash | head`) must stay an ordinary error.
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "spritebake", &mut script);
    std::io::stdout().write_all(&script)?;
    Ok(ExitCode::SUCCESS)
}
