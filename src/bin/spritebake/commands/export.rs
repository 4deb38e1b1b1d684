//! `spritebake export`: the posed mesh of one frame as OBJ + MTL.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use glam::Mat3;
use spritebake::anim;
use spritebake::output::{OutputPlan, Transaction, encode_obj};
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
    /// Convert to Y-up, facing +Z (default: the model file's own axes).
    #[arg(long)]
    pub y_up: bool,
    /// Output OBJ (a .mtl with the same stem is written beside it).
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
    let [time] = resolved.moments.as_slice() else {
        anyhow::bail!("export writes one frame: give one --frame");
    };
    let model = &loaded.model;
    let posed = anim::animate(model, &loaded.animation(&resolved)?, *time);
    let axes = if args.y_up { model.orientation.to_canonical() } else { Mat3::IDENTITY };
    let export = encode_obj(&args.output, &posed, axes);
    let mut plan = OutputPlan::new();
    export.plan(&mut plan);
    plan.check(&loaded.inputs)?;
    // OBJ, MTL and texture copies all together, or none of them.
    let mut transaction = Transaction::new();
    for (source, dest) in &export.textures {
        transaction.stage(dest, &spritebake::formats::read_file(source, resolved.limits.max_file_bytes)?)?;
    }
    transaction.stage(&export.mtl.0, export.mtl.1.as_bytes())?;
    transaction.stage(&export.obj.0, export.obj.1.as_bytes())?;
    transaction.commit()?;
    Ok(ExitCode::SUCCESS)
}
