//! studiomdl's `.qc` script as a model: the reference SMDs of its bodies, its sequences as
//! clips, its attachment points.
//!
//! [`parse`] reads the script (and its `$include`s, through a callback) into a [`Qc`] without
//! touching a file it names; [`build`] then reads those files through the loader's
//! [`Files`] (confined, bounded, each charged to the model's budget) and makes one [`Model`]
//! with the SMD parser.
//!
//! What is read, and how (decisions, documented in docs/formats/scripts.md):
//! * **Folders.** `$cd`, `$cdtexture`, `$texturepath` and `$cdmaterials` are relative to the
//!   QC's folder (backslashes are separators; an absolute `$cd` is ignored with a warning, as
//!   decompiled QCs carry the author's `C:\...` folders). Files are named without `.smd`.
//!   Texture folders are searched after the QC's own folder. Every file is read through the
//!   confinement: the QC's folder and the `--texture-root`s.
//! * **Placement.** `$scale` and `$origin x y z [rot]` apply to the files named after them, as
//!   in studiomdl: a point becomes `scale · Rz(rot) · (p − origin)`. The 90° every studiomdl
//!   source is turned by is the model's orientation (SMD sources face −Y), as for plain SMD
//!   files; `$origin`'s fourth value turns the model further, and a sequence's `rotate DEG`
//!   replaces it for that sequence (studiomdl: the sequence turns by `DEG + 90`).
//! * **Bodies.** `$body NAME FILE`, `$model NAME FILE` and `$bodygroup NAME { studio FILE ...
//!   blank }`: every group shows its first entry unless a [`BodyChoice`] picks another by its
//!   file name (without folders and `.smd`, any case) or `blank`. The chosen references are
//!   merged into one skeleton by bone name (the first file's rest pose wins, as in studiomdl).
//!   A chosen body file that is missing is an error.
//! * **Sequences.** `$sequence NAME FILE [options]` or `$sequence NAME { FILE options }`: a clip
//!   named NAME at `fps` (30 by default), `frame A B` keeps those frames, `LX LY LZ` mark root
//!   travel ([`MarkedMotion`], in the compiled model's axes: X forward, so `LX` is the source's
//!   Y; a sequence without them keeps its motion, as studiomdl does), `loop` makes it loop (without it the clip plays once, as studiomdl's
//!   `STUDIO_LOOPING` flag says), `rotate DEG` and `origin X Y Z` place it; events (`{ event ... }`), activities and the
//!   other options are ignored; of several blend files the first is used. `$animation NAME FILE
//!   options` defines a file a sequence may name. A sequence whose file is missing or refused is
//!   a warning.
//! * **Attachments.** `$attachment NAME BONE X Y Z [absolute]`: a point on a joint, scaled by
//!   `$scale` ([`AttachmentPoint`]).
//! * **Includes.** `$include FILE`, relative to the including file, at most
//!   [`MAX_INCLUDE_DEPTH`] deep and [`MAX_INCLUDES`] in all; a missing or refused include is a
//!   warning (decompilers write includes they do not ship).
//! * Commands that do not change a render (hit boxes, bounding boxes, eye position, ...) are
//!   skipped silently; every other unknown command is skipped, and named in one warning.
//!
//! [`parse`]: fn@parse
//! [`build`]: fn@build
//! [`Model`]: crate::model::Model
//! [`MarkedMotion`]: crate::model::MarkedMotion
//! [`AttachmentPoint`]: crate::model::AttachmentPoint

mod build;
mod commands;
mod parse;
mod script;

use std::path::Path;

pub use build::{Built, build};
pub use parse::{MAX_INCLUDE_DEPTH, MAX_INCLUDES, MAX_ITEMS, parse};
pub use script::{At, AttachmentDef, BodyChoice, BodyEntry, BodyGroup, Included, Placement, Qc, Sequence};

use super::Files;
use crate::budget::MemoryBudget;
use crate::error::Result;

/// Reads a QC script (its `$include`s through `files`) and builds its model with [`build`](fn@build).
///
/// # Errors
/// As [`parse`](fn@parse) and [`build`](fn@build).
pub fn load(src: &str, file: &Path, choices: &[BodyChoice], files: &mut Files, budget: &MemoryBudget) -> Result<Built> {
    let qc = {
        let mut include = |path: &Path| -> Result<std::result::Result<Included, String>> {
            match files.read(path) {
                Ok((_, bytes)) => {
                    let reading = (bytes.len() as u64).saturating_mul(2);
                    budget.charge(reading, || {
                        format!("{}: reading {} KiB", path.display(), bytes.len().div_ceil(1024))
                    })?;
                    Ok(Ok((path.to_path_buf(), String::from_utf8_lossy(&bytes).into_owned())))
                }
                Err(denied) => Ok(Err(format!("{} {denied}", path.display()))),
            }
        };
        parse(src, file, &mut include)?
    };
    build(qc, choices, files, budget)
}
