//! `spritebake export`: the posed mesh of one frame as OBJ + MTL + textures, Y-up facing +Z
//! (OBJ's convention) unless `--keep-axes`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use spritebake::bake;
use spritebake::output::Transaction;
use spritebake::spec::{AnimSpec, BakeSpec, LimitsSpec, ModelSpec, MomentSpec};

use crate::common::resolve_and_load;

/// `spritebake export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// Model selection.
    #[command(flatten)]
    pub model: ModelSpec,
    /// Clips, attachments, bone overrides, blend, transition.
    #[command(flatten)]
    pub anim: AnimSpec,
    /// Which moment.
    #[command(flatten)]
    pub moment: MomentSpec,
    /// Resource limits.
    #[command(flatten)]
    pub limits: LimitsSpec,
    /// Keep the model file's own axes (default: OBJ's convention, Y-up facing +Z, which is
    /// the renderer's world frame: the model as it renders, after --up and --facing).
    #[arg(long)]
    pub keep_axes: bool,
    /// Output OBJ (a .mtl with the same stem and the textures are written beside it).
    #[arg(short, long)]
    pub output: PathBuf,
}

/// Runs the command.
pub fn run(args: &ExportArgs) -> Result<ExitCode> {
    let spec = BakeSpec {
        model: args.model.clone(),
        anim: args.anim.clone(),
        moment: args.moment.clone(),
        limits: args.limits.clone(),
        ..BakeSpec::default()
    };
    let (resolved, loaded) = resolve_and_load(&spec)?;
    // OBJ, MTL and textures all together, or none of them.
    let mut transaction = Transaction::new();
    bake::write_obj(&loaded, &resolved, &args.output, args.keep_axes, &mut transaction)?;
    transaction.commit()?;
    Ok(ExitCode::SUCCESS)
}
