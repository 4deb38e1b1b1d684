//! Which format a file is, what parsing it may cost, and the limits on what a file may make.

use std::path::Path;

use super::textures;

/// Most meshes (and so materials) one model may have. Real models have a few dozen; every mesh
/// costs a few hundred bytes however empty, so a file of empty meshes or one-triangle
/// materials could otherwise turn a few MB into hundreds.
pub const MAX_MESHES: usize = 4096;

/// Resource limits for loading untrusted files; options can raise them for unusual assets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Largest file read (model, animation, material library, buffer, texture), in bytes,
    /// refused before reading. The default is 256 MiB (real game models are a few MiB at most).
    pub max_file_bytes: u64,
    /// Largest texture side in texels. The default is 8192.
    pub max_texture_side: u32,
    /// Memory one model may take for what its files declare, in bytes (see [`MemoryBudget`]):
    /// parsing its file ([`Format::parse_bytes_per_byte`]), glTF vertices over all instances,
    /// MD2 morph frames, MD5/SMD animation frames × joints, decoded textures with their mip
    /// chains. The default is 256 MiB ([`crate::budget::DEFAULT_MAX_MEMORY_BYTES`]).
    ///
    /// [`MemoryBudget`]: crate::budget::MemoryBudget
    pub max_memory_bytes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_file_bytes: 256 << 20,
            max_texture_side: textures::MAX_TEXTURE_SIDE,
            max_memory_bytes: crate::budget::DEFAULT_MAX_MEMORY_BYTES,
        }
    }
}

impl Limits {
    /// A fresh memory budget of `max_memory_bytes`: every budget of a command (a model's, its
    /// images', a batch item's) is made here.
    pub fn budget(&self) -> crate::MemoryBudget {
        crate::MemoryBudget::new(self.max_memory_bytes)
    }
}

/// The model formats spritebake reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Wavefront OBJ (+ MTL).
    Obj,
    /// Quake 2 MD2.
    Md2,
    /// Quake 1 MDL (`IDPO`), skins inside the file.
    Mdl,
    /// Inter-Quake Model (IQM version 2).
    Iqm,
    /// Doom 3 MD5 mesh.
    Md5Mesh,
    /// Half-Life / Source SMD (reference).
    Smd,
    /// glTF 2.0, JSON (`.gltf`) or binary (`.glb`).
    Gltf,
    /// studiomdl's `.qc` script: its reference SMDs, sequences and attachments (see `qc`).
    Qc,
    /// Doom 3 model declarations, `.def`: a `model` block's MD5 mesh and anims (see `def`).
    Def,
    /// Quake 3 MD3 (see `md3`).
    Md3,
    /// A Quake 3 player: its `animation.cfg`, joining the folder's `lower`, `upper` and `head`
    /// MD3s (see `md3_player`).
    Md3Player,
    /// Autodesk FBX, binary or ASCII (see `fbx`).
    Fbx,
    /// Half-Life studio model, `.mdl` with the magic `IDST` (see `studio`).
    Studio,
}

impl Format {
    /// Peak bytes a parser allocates per byte of its file (the file's own bytes included),
    /// charged to the model's budget before parsing. Measured on generated worst cases: OBJ
    /// polygon fans reach 20× (`tobj` triangulates into its own arrays before the mesh is
    /// built); SMD and MD5 meshes written with the shortest numbers (`0 0 0 0 0 0 1 0 0` vertex
    /// lines, 18 bytes for about 80 of vertex, normal, UV and influence) reach 8×, real files
    /// with full-precision numbers 2.2×. MD2 frames, glTF vertices and external glTF buffers are charged on
    /// their own as they are laid out, so an MD2 counts once and a glTF twice (its binary
    /// chunk or data URIs are copied once). QC and DEF scripts count their text twice (bytes
    /// and text); the files they name are charged as they are read.
    /// IQM and Quake 1 MDL charge their vertices, influences, frames, names and skins as they
    /// go; what they do not (`tests/integration/alloc_bounds.rs` measures it): an IQM of 4096
    /// joints and nothing else holds 1.9× its size besides (joints, bind matrices), the corpus
    /// IQM nothing; an MDL of 60 000 on-seam vertices each used front and back (two render
    /// vertices each, the unwelding table and the first frame's copy) 8.2×, the corpus MDL
    /// 0.3×. Hence 4 and 10.
    pub fn parse_bytes_per_byte(self) -> u64 {
        match self {
            Format::Obj => 24,
            Format::Md5Mesh | Format::Smd => 8,
            Format::Gltf => 2,
            Format::Md2 => 1,
            Format::Mdl => 10,
            Format::Iqm => 4,
            // Frames are charged as they are laid out; the first frame is also the mesh's
            // rest positions.
            Format::Md3 | Format::Md3Player => 2,
            Format::Qc | Format::Def => 2,
            // ufbx's own memory is capped at the budget's remainder and charged once loaded.
            Format::Fbx => 1,
            // Bones, frames, vertices and textures are charged as they are built.
            Format::Studio => 1,
        }
    }

    /// The format's name as users know it (`MD2`, `glTF`).
    pub fn name(self) -> &'static str {
        match self {
            Format::Obj => "OBJ",
            Format::Md2 => "MD2",
            Format::Mdl => "Quake 1 MDL",
            Format::Iqm => "IQM",
            Format::Md3 => "MD3",
            Format::Md3Player => "Quake 3 player (MD3)",
            Format::Md5Mesh => "MD5",
            Format::Smd => "SMD",
            Format::Gltf => "glTF",
            Format::Qc => "QC (SMD)",
            Format::Def => "Doom 3 .def (MD5)",
            Format::Fbx => "FBX",
            Format::Studio => "Half-Life MDL",
        }
    }

    /// Detects the format from the file's first bytes, then its extension.
    pub fn detect(path: &Path, head: &[u8]) -> Option<Format> {
        if head.starts_with(b"IDP2") {
            return Some(Format::Md2);
        }
        if head.starts_with(b"glTF") {
            return Some(Format::Gltf);
        }
        if head.starts_with(b"Kaydara FBX Binary") {
            return Some(Format::Fbx);
        }
        // Quake 1 and Half-Life models share the extension `.mdl`.
        if head.starts_with(b"IDPO") {
            return Some(Format::Mdl);
        }
        if super::studio::is_studio_model(head) {
            return Some(Format::Studio);
        }
        if head.starts_with(b"IDP3") {
            return Some(Format::Md3);
        }
        if head.starts_with(b"INTERQUAKEMODEL\0") {
            return Some(Format::Iqm);
        }
        Format::from_extension(path)
    }

    /// The format a file's extension (any letter case) names, [`Format::EXTENSIONS`].
    pub fn from_extension(path: &Path) -> Option<Format> {
        let ext = path.extension()?.to_str()?;
        let format = Format::EXTENSIONS.iter().find(|(e, _)| e.eq_ignore_ascii_case(ext)).map(|&(_, f)| f)?;
        // Of `.cfg` files, only a player's `animation.cfg` is a model.
        (format != Format::Md3Player || super::md3_player::is_animation_cfg(path)).then_some(format)
    }

    /// Every model file extension (lower case) and its format: what a folder scan looks for.
    pub const EXTENSIONS: [(&'static str, Format); 13] = [
        ("md2", Format::Md2),
        ("mdl", Format::Mdl),
        ("iqm", Format::Iqm),
        ("md3", Format::Md3),
        ("cfg", Format::Md3Player),
        ("md5mesh", Format::Md5Mesh),
        ("smd", Format::Smd),
        ("obj", Format::Obj),
        ("gltf", Format::Gltf),
        ("glb", Format::Gltf),
        ("qc", Format::Qc),
        ("def", Format::Def),
        ("fbx", Format::Fbx),
    ];

    /// The model files spritebake reads, as a reader sees them: `.md2 .mdl … animation.cfg …`
    /// (of `.cfg` files only a Quake 3 player's `animation.cfg`). The one list error messages
    /// and `--help` texts quote.
    pub fn extension_list() -> String {
        let names = Format::EXTENSIONS.map(|(e, f)| match f {
            Format::Md3Player => String::from("animation.cfg"),
            _ => format!(".{e}"),
        });
        names.join(" ")
    }

    /// Whether the format is a script describing a model made of other files (`.qc`, `.def`,
    /// a Quake 3 player's `animation.cfg`).
    pub fn is_script(self) -> bool {
        matches!(self, Format::Qc | Format::Def | Format::Md3Player)
    }
}
