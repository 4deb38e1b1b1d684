//! `spritebake render`: one image of a model.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use spritebake::bake::Product;
use spritebake::spec::{AnimSpec, BakeSpec, LimitsSpec, LookSpec, ModelSpec, MomentSpec, RenderSpec, ViewSpec};

use crate::args::RunArgs;
use crate::common::bake_files;

/// `spritebake render`.
#[derive(Debug, Args)]
pub struct RenderArgs {
    /// Model selection.
    #[command(flatten)]
    pub model: ModelSpec,
    /// Clips, attachments, bone overrides, blend, transition.
    #[command(flatten)]
    pub anim: AnimSpec,
    /// Which moment.
    #[command(flatten)]
    pub moment: MomentSpec,
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
    /// Threads and chatter.
    #[command(flatten)]
    pub run: RunArgs,
    /// Output PNG.
    #[arg(short, long)]
    pub output: PathBuf,
}

impl RenderArgs {
    /// The bake these flags describe.
    pub fn spec(&self) -> BakeSpec {
        BakeSpec {
            model: self.model.clone(),
            anim: self.anim.clone(),
            moment: self.moment.clone(),
            view: self.view.clone(),
            render: self.render.clone(),
            look: self.look.clone(),
            limits: self.limits.clone(),
            ..BakeSpec::default()
        }
    }
}

/// Runs the command.
pub fn run(args: &RenderArgs) -> Result<ExitCode> {
    bake_files(Product::Render, &args.spec(), &args.output.to_string_lossy(), &args.run)?;
    Ok(ExitCode::SUCCESS)
}
