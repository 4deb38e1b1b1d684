//! Every integration test in one binary (one link instead of one per file): each former
//! `tests/<name>.rs` is the module `<name>` here, so test paths read `<name>::<test>` and
//! `cargo test --test integration <name>::` runs one of them. The hostile-input suites are
//! the modules whose names start with `hostile`; CI runs them under a 1 GiB address-space
//! limit by that prefix.
//!
//! Tests over the shared corpus skip with a note when it is absent, and fail instead when
//! `SPRITEBAKE_REQUIRE_CORPUS=1` (see [`common::corpus`]).

mod common;

mod alloc_bounds;
mod anim;
mod anim_control;
mod architecture;
mod axes;
mod character;
mod check;
mod cli;
mod corpus_all;
mod corpus_gltf;
mod corpus_obj;
mod crash_inputs;
mod directions;
mod docs;
mod engine_data;
mod engine_play;
mod engines;
mod export;
mod formats_fbx;
mod formats_gltf;
mod formats_iqm;
mod formats_md2;
mod formats_md3;
mod formats_md5;
mod formats_mdl;
mod formats_smd;
mod formats_studio;
mod golden_render;
mod ground;
mod hostile;
mod hostile_memory;
// Unix only: the cases need symlinks, FIFOs, devices and signals.
#[cfg(unix)]
mod hostile_outputs;
mod hostile_reads;
// Unix only: the cases need symlinks and sparse files.
#[cfg(unix)]
mod hostile_state;
mod hostile_work;
mod maps;
mod memory_fit;
mod palette;
mod pixel_art;
mod project;
mod q3_shaders;
mod qc_def;
mod render;
mod report;
mod scale;
mod sheet_pages;
mod smd_retarget;
mod spec;
mod sprites;
mod streaming;
mod textures;
mod thumbnail;
mod thumbnail_tree;
mod thumbnail_trust;
mod unity;
mod vertex_colours;
