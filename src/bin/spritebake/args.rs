//! Flags only the command line has. Every rendering option is a flag of the library's spec
//! groups (`spritebake::spec`), which define each option once for flags, manifests and project
//! files; the commands compose the groups they take.

use clap::Args;

/// How a command runs: threads and chatter.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Worker threads, from 1 to 1024 (default: all cores).
    #[arg(long, value_parser = spritebake::bounds::THREADS.parser())]
    pub threads: Option<usize>,
    /// No progress bar and no summary line (warnings and errors still print).
    #[arg(long, short)]
    pub quiet: bool,
}
