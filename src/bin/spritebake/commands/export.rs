//! `spritebake export`: the posed mesh of one frame as OBJ + MTL + textures, Y-up facing +Z
//! (OBJ's convention) unless `--keep-axes`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use glam::Mat3;
use spritebake::anim;
use spritebake::formats::confine::{Confinement, Keep, Reader};
use spritebake::output::{OutputPlan, Transaction, encode_obj};
use spritebake::spec::{AnimSpec, BakeSpec, LimitsSpec, ModelSpec, MomentSpec, Resolved};

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
    let [time] = resolved.moments.as_slice() else {
        anyhow::bail!("export writes one frame: give one --frame");
    };
    let model = &loaded.model;
    let posed = anim::animate(model, &loaded.animation(&resolved)?, *time);
    let axes = if args.keep_axes { Mat3::IDENTITY } else { model.orientation.to_canonical() };
    let export = encode_obj(&args.output, &posed, axes)?;
    let mut plan = OutputPlan::new();
    export.plan(&mut plan);
    plan.check(&loaded.inputs)?;
    // OBJ, MTL and textures all together, or none of them.
    let mut transaction = Transaction::new();
    let mut copies = TextureCopies::new(&resolved)?;
    for (source, dest) in &export.textures {
        transaction.stage(dest, &copies.read(source)?)?;
    }
    for (dest, png) in &export.images {
        transaction.stage(dest, png)?;
    }
    transaction.stage(&export.mtl.0, export.mtl.1.as_bytes())?;
    transaction.stage(&export.obj.0, export.obj.1.as_bytes())?;
    transaction.commit()?;
    Ok(ExitCode::SUCCESS)
}

/// Reads the texture files an export copies as the loader read them: a `--texture` file
/// anywhere (a regular file, bounded), any other only inside the folder of the model it
/// belongs to (the body's or an attachment's) or a `--texture-root`.
struct TextureCopies {
    user_named: Vec<PathBuf>,
    scopes: Vec<Confinement>,
    reader: Reader,
}

impl TextureCopies {
    fn new(resolved: &Resolved) -> Result<TextureCopies> {
        let models = std::iter::once(&resolved.model).chain(resolved.controls.attachments.iter().map(|a| &a.path));
        let scopes = models
            .map(|m| Confinement::for_model(m.parent().unwrap_or(Path::new(".")), &resolved.load.texture_roots))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(TextureCopies {
            user_named: resolved.load.texture_overrides.iter().map(|o| o.path.clone()).collect(),
            scopes,
            reader: Reader::new(resolved.limits.max_file_bytes),
        })
    }

    fn read(&mut self, source: &Path) -> Result<Vec<u8>> {
        let subject = || format!("texture '{}'", source.display());
        if self.user_named.iter().any(|p| p == source) {
            let (_, bytes) =
                self.reader.read_user(source, Keep::Nothing).map_err(|d| d.into_error(source, subject()))?;
            return Ok(std::sync::Arc::unwrap_or_clone(bytes));
        }
        let mut refusal = None;
        for scope in &self.scopes {
            match self.reader.read_named(scope, source, Keep::Nothing) {
                Ok((_, bytes)) => return Ok(std::sync::Arc::unwrap_or_clone(bytes)),
                Err(denied) => {
                    refusal.get_or_insert(denied);
                }
            }
        }
        match refusal {
            Some(denied) => Err(denied.into_error(source, subject()).into()),
            None => anyhow::bail!("{}: no model folder to read it from", subject()),
        }
    }
}
