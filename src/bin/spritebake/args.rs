//! Flags only the command line has. Every rendering option is a flag of the library's spec
//! groups (`spritebake::spec`), which define each option once for flags, manifests and project
//! files; the commands compose the groups they take.

use anyhow::{Result, bail};
use clap::Args;
use spritebake::spec::{AnimSpec, BakeSpec, LimitsSpec, LookSpec, ModelSpec, Profile, RenderSpec, ViewSpec};

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

/// `command`'s flags with `profile`'s defaults where the profile changes them: `--help` shows
/// what a flag not given becomes, and what clap parses is the profile with the given flags
/// over it. A key the command has no flag for is the profile's value whatever the command line
/// says, so the caller takes it from [`Profile::spec`].
pub fn with_defaults_of(command: clap::Command, profile: Profile) -> clap::Command {
    profile.changes().into_iter().fold(command, |command, (key, value)| {
        if !command.get_arguments().any(|arg| arg.get_id() == key.as_str()) {
            return command;
        }
        let texts = flag_texts(&value);
        command.mut_arg(key, |arg| arg.default_values(texts))
    })
}

/// A spec key's value as the flag's words: a list is one word a value (`--light` is
/// repeatable), a number as a user types it (`35`, not `35.0`).
fn flag_texts(value: &toml::Value) -> Vec<String> {
    match value {
        toml::Value::Array(items) => items.iter().flat_map(flag_texts).collect(),
        toml::Value::String(text) => vec![text.clone()],
        toml::Value::Float(number) => vec![number.to_string()],
        toml::Value::Integer(number) => vec![number.to_string()],
        toml::Value::Boolean(on) => vec![on.to_string()],
        // No spec key is a table or a date (`BakeSpec::to_table` writes none).
        toml::Value::Table(_) | toml::Value::Datetime(_) => Vec::new(),
    }
}
