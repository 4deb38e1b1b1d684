//! `export`'s product: the posed mesh of one moment as OBJ + MTL, with its textures copied
//! beside it (read as confined as the model read them) and embedded images encoded as PNG.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use glam::Mat3;

use crate::anim;
use crate::bake::Loaded;
use crate::bake::product::pipeline::Stage;
use crate::confine::{Confinement, Keep, Reader};
use crate::error::{Error, Result};
use crate::output::{OutputPlan, encode_obj};
use crate::spec::Resolved;

/// Plans, checks against `loaded`'s inputs and stages the OBJ export of `resolved`'s one
/// moment at `output`: the textures first, then the MTL, then the OBJ (a reader that finds
/// the OBJ finds everything it names). With `keep_axes` the mesh keeps its file's axes;
/// otherwise it is turned Y-up facing +Z, OBJ's convention.
///
/// # Errors
/// Not exactly one moment; an output on an input; a texture that cannot be read where the
/// model was allowed to read it; a file that cannot be staged.
pub fn write_obj(
    loaded: &Loaded,
    resolved: &Resolved,
    output: &Path,
    keep_axes: bool,
    stage: &mut dyn Stage,
) -> Result<()> {
    let [time] = resolved.moments.as_slice() else {
        return Err(Error::bad_option("frame", format!("({} moments)", resolved.moments.len()), "export writes one"));
    };
    let model = &loaded.model;
    let posed = anim::animate(model, &loaded.animation(resolved)?, *time);
    let axes = if keep_axes { Mat3::IDENTITY } else { model.orientation.to_canonical() };
    let export = encode_obj(output, &posed, axes)?;
    let mut plan = OutputPlan::new();
    export.plan(&mut plan);
    plan.check(&loaded.inputs)?;
    let mut copies = TextureCopies::new(resolved)?;
    for (source, dest) in &export.textures {
        stage.stage(dest, &copies.read(source)?)?;
    }
    for (dest, png) in &export.images {
        stage.stage(dest, png)?;
    }
    stage.stage(&export.mtl.0, export.mtl.1.as_bytes())?;
    stage.stage(&export.obj.0, export.obj.1.as_bytes())
}

/// Reads the textures an export copies, with the confinement the model was loaded with: a
/// texture the user named is read as given; one a model named, only inside that model's
/// folder or an allowed root.
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
            .collect::<Result<Vec<_>>>()?;
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
            return Ok(Arc::unwrap_or_clone(bytes));
        }
        let mut refusal = None;
        for scope in &self.scopes {
            match self.reader.read_named(scope, source, Keep::Nothing) {
                Ok((_, bytes)) => return Ok(Arc::unwrap_or_clone(bytes)),
                Err(denied) => {
                    refusal.get_or_insert(denied);
                }
            }
        }
        match refusal {
            Some(denied) => Err(denied.into_error(source, subject())),
            None => Err(Error::Refused(format!("{}: no model folder to read it from", subject()))),
        }
    }
}
