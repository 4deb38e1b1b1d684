//! Flags only the command line has. Every rendering option is a flag of the library's spec
//! groups (`spritebake::spec`), which define each option once for flags, manifests and project
//! files; the commands compose the groups they take.

use anyhow::{Result, bail};
use clap::Args;
use spritebake::spec::{AnimSpec, BakeSpec, LimitsSpec, LookSpec, ModelSpec, RenderSpec, ViewSpec};

/// The option groups of every command that renders images (`render`, `sheet`, `gif`, `frames`).
#[derive(Debug, Args)]
pub struct ImageArgs {
    /// Model selection.
    #[command(flatten)]
    pub model: ModelSpec,
    /// Clips, attachments, bone overrides, blend, transitions.
    #[command(flatten)]
    pub anim: AnimSpec,
    /// Camera and image size.
    #[command(flatten)]
    pub view: ViewSpec,
    /// Rendering.
    #[command(flatten)]
    pub render: RenderSpec,
    /// Post-processing.
    #[command(flatten)]
    pub look: LookSpec,
    /// Resource limits.
    #[command(flatten)]
    pub limits: LimitsSpec,
}

impl ImageArgs {
    /// The bake these groups describe, every other group at its default.
    pub fn spec(&self) -> BakeSpec {
        BakeSpec {
            model: self.model.clone(),
            anim: self.anim.clone(),
            view: self.view.clone(),
            render: self.render.clone(),
            look: self.look.clone(),
            limits: self.limits.clone(),
            ..BakeSpec::default()
        }
    }
}

/// How a command runs: threads and chatter.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Worker threads, from 1 to 1024 (default: all cores).
    #[arg(long, value_parser = spritebake::internal::bounds::THREADS.parser())]
    pub threads: Option<usize>,
    /// No progress bar and no summary line (warnings and errors still print).
    #[arg(long, short)]
    pub quiet: bool,
}

/// `--shard I/N` (`check`, `bake`): the I-th of N shards, 1-based, as `(I - 1, N)`.
pub fn parse_shard(s: &str) -> Result<(usize, usize)> {
    let parsed =
        s.split_once('/').and_then(|(i, n)| Some((i.trim().parse::<usize>().ok()?, n.trim().parse::<usize>().ok()?)));
    match parsed {
        Some((i, n)) if n >= 1 && (1..=n).contains(&i) => Ok((i - 1, n)),
        _ => bail!("bad shard '{s}' (expected I/N with 1 <= I <= N)"),
    }
}
