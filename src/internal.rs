//! What the command line, the fuzz targets and the tests use beyond the library's surface: each
//! format's parser on its own, the bake's stages and the sheet's machinery, the checks and
//! helpers a batch shares (option ranges, confined reads, escaping). One place, behind the
//! `internal` feature (the `cli` feature turns it on), hidden from the documentation and free
//! to change in any release; the documented modules are the library's promise.
//!
//! Each submodule mirrors the module its items live in, so `spritebake::formats::md2` inside
//! the crate is `spritebake::internal::formats::md2` outside it.

pub mod bounds {
    pub use crate::bounds::*;
}

pub mod budget {
    pub use crate::budget::*;
}

pub mod confine {
    pub use crate::confine::*;
}

pub mod escape {
    pub use crate::escape::*;
}

pub mod fuzzing {
    pub use crate::fuzzing::*;
}

pub mod terminal {
    pub use crate::terminal::*;
}

pub mod anim {
    pub use crate::anim::attach::to_body_axes;
    pub use crate::anim::clip::{joint_transforms, local_poses};
    pub use crate::anim::compose::{animated_joint_transforms, animated_local_poses, mount_placement, root_travel};
}

pub mod bake {
    pub use crate::bake::frame::render::{joint_pixels, model_to_world, render_posed_into, scene, world_points};
    pub use crate::bake::load::{ALL_CLIPS, add_all_clip};
    pub use crate::bake::product::job::{Cell, Job, JobInfo, Prepared, SheetTag, WaveSink, reference_ground};
    pub use crate::bake::product::products::sheet_leftovers;
    pub use crate::bake::product::sheet::{FinishedPage, Packed, Page, SheetBuilder, pack, page_bound};

    pub mod engines {
        pub use crate::bake::product::engines::*;
    }
    pub mod maps {
        pub use crate::bake::look::maps::*;
    }
    pub mod palette {
        pub use crate::bake::look::palette::*;
    }
    pub mod pixel_art {
        pub use crate::bake::look::pixel_art::*;
    }
    pub mod post {
        pub use crate::bake::look::post::*;
    }
    pub mod rig {
        pub use crate::bake::frame::rig::*;
    }
}

pub mod check {
    pub use crate::check::detail::{CaseDetail, CellResult, FrameImages, FrameNumbers, FrameResult};
    pub use crate::check::manifest::{CASE_KEYS, MAX_MANIFEST_BYTES};
    pub use crate::check::plan::{check_batch_outputs, check_case_names, planned_outputs};
    pub use crate::check::report::{bless_command, plan_html_report};

    pub mod github {
        pub use crate::check::github::*;
    }
}

pub mod formats {
    pub use crate::formats::files::Files;
    pub use crate::formats::format::{Format, MAX_MESHES};
    pub use crate::formats::qc::BodyChoice;
    pub use crate::formats::textures::TextureResolver;

    pub mod def {
        pub use crate::formats::def::*;
    }
    pub mod fbx {
        pub use crate::formats::fbx::*;
    }
    pub mod gltf {
        pub use crate::formats::gltf::*;
    }
    pub mod iqm {
        pub use crate::formats::iqm::*;
    }
    pub mod md2 {
        pub use crate::formats::md2::*;
    }
    pub mod md3 {
        pub use crate::formats::md3::*;
    }
    pub mod md3_player {
        pub use crate::formats::md3_player::*;
    }
    pub mod md5 {
        pub use crate::formats::md5::*;
    }
    pub mod mdl {
        pub use crate::formats::mdl::*;
    }
    pub mod mtr {
        pub use crate::formats::mtr::*;
    }
    pub mod obj {
        pub use crate::formats::obj::*;
    }
    pub mod q3shader {
        pub use crate::formats::q3shader::*;
    }
    pub mod qc {
        pub use crate::formats::qc::*;
    }
    pub mod smd {
        pub use crate::formats::smd::*;
    }
    pub mod studio {
        pub use crate::formats::studio::*;
    }
    pub mod textures {
        pub use crate::formats::textures::*;
    }
}

pub mod golden {
    pub use crate::golden::perceptual::{MAX_DELTA, antialiased, color_delta};
}

pub mod output {
    pub use crate::output::pattern::{FramePattern, MAX_PAD_WIDTH};
    pub use crate::output::plan::PlannedOutput;
    pub use crate::output::png::{decode_png_within, encode_rgba_png, read_png_within};
    pub use crate::output::sanitize::{MAX_COMPONENT_BYTES, is_component_char, sanitize_component};
    pub use crate::output::transaction::{WritesStopped, stop_writing};
}

pub mod raster {
    pub use crate::raster::color::{linear_to_srgb, srgb_to_linear};
    pub use crate::raster::image::DepthPixel;
    pub use crate::raster::scene::MAX_SAMPLES;
    pub use crate::raster::texture::MipChain;
}

pub mod spec {
    pub use crate::spec::controls::MAX_FADE_SECONDS;
    pub use crate::spec::paths::is_animation_file;
    pub use crate::spec::resolved::Look;
}
