//! Small steps shared by the commands.

use anyhow::{Context, Result};
use spritebake::anim::FrameTime;
use spritebake::formats;
use spritebake::model::Model;

use crate::args::{FrameArgs, ModelArgs};

/// Sizes rayon's global pool (once, before any parallel work).
pub fn set_threads(threads: Option<usize>) -> Result<()> {
    if let Some(n) = threads {
        rayon::ThreadPoolBuilder::new().num_threads(n.max(1)).build_global().context("setting up worker threads")?;
    }
    Ok(())
}

/// Loads the model, printing its warnings to stderr.
pub fn load(args: &ModelArgs) -> Result<Model> {
    let model = formats::load(&args.model, &args.load_options())?;
    for warning in &model.warnings {
        eprintln!("warning: {warning}");
    }
    Ok(model)
}

/// The moment selected by --frame/--time (frame 0 by default).
pub fn frame_time(frame: &FrameArgs) -> FrameTime {
    match (frame.frame, frame.time) {
        (_, Some(t)) => FrameTime::Seconds(t),
        (Some(f), None) => FrameTime::Frame(f),
        (None, None) => FrameTime::Frame(0.0),
    }
}
