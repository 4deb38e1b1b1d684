//! Files a folder scan finds that hold part of a model and no model of its own.

use std::path::Path;

use super::format::Format;
use super::{Limits, md3_player, smd, studio};
use crate::confine::{self, Keep};

/// What `path` is when it holds part of a model and no model of its own — a sequence
/// (animation-only) SMD ([`smd::is_sequence`]), a Half-Life sequence group (`IDSQ`), a
/// Half-Life texture file (`NAMET.mdl`: a studio model without body parts) or an
/// `animation.cfg` with no Quake 3 player beside it ([`md3_player::not_a_player`]) — said in a
/// few words, read as [`super::load`] reads a model file; `None` for any other file and for one that
/// cannot be read (loading it then says why).
pub(crate) fn model_part(path: &Path, limits: &Limits) -> Option<&'static str> {
    match Format::from_extension(path) {
        Some(Format::Md3Player) => return md3_player::not_a_player(path),
        Some(Format::Smd | Format::Mdl) => {}
        _ => return None,
    }
    let mut reader = confine::Reader::new(limits.max_file_bytes);
    let (_, bytes) = reader.read_user(path, Keep::Bytes).ok()?;
    match Format::detect(path, &bytes)? {
        Format::Smd => {
            smd::is_sequence(&String::from_utf8_lossy(&bytes)).then_some("sequence SMD (an animation, no triangles)")
        }
        Format::Studio => studio::part_of_a_model(&bytes),
        _ => None,
    }
}
