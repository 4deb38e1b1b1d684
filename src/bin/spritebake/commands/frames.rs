//! `spritebake frames`: every frame of a clip (× directions) as numbered PNG files.

use std::process::ExitCode;

use anyhow::{Result, bail};
use clap::Args;

use crate::args::SpriteJobArgs;
use crate::common::{guard_output, load, render_cells, set_threads, sprite_job};

/// `spritebake frames`.
#[derive(Debug, Args)]
pub struct FramesArgs {
    /// Model, camera, directions, framing, looks, threads.
    #[command(flatten)]
    pub job: SpriteJobArgs,
    /// Output path pattern with `{clip}`, `{dir}` and `{frame}` (zero padding as `{frame:03}`),
    /// e.g. `out/walk_{dir}_{frame:03}.png`. A transition A->B is named `A-to-B` here.
    #[arg(short, long)]
    pub output: String,
}

/// Fills a pattern's placeholders.
pub fn expand(pattern: &str, clip: &str, dir: u32, frame: usize) -> String {
    let mut out = String::new();
    let mut rest = pattern;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let Some(close) = rest[open..].find('}') else { break };
        let spec = &rest[open + 1..open + close];
        let (key, width) = spec.split_once(':').unwrap_or((spec, ""));
        let width: usize = width.trim_start_matches('0').parse().unwrap_or(0);
        let value = match key {
            "clip" => clip.to_string(),
            "dir" => format!("{dir:0width$}"),
            "frame" => format!("{frame:0width$}"),
            _ => rest[open..open + close + 1].to_string(),
        };
        out.push_str(&value);
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    out
}

/// Runs the command.
pub fn run(args: &FramesArgs) -> Result<ExitCode> {
    set_threads(args.job.threads)?;
    if !args.output.contains("{frame") {
        bail!("the output pattern '{}' needs a {{frame}} placeholder", args.output);
    }
    let loaded = load(&args.job.model, &args.job.anim)?;
    let model = &loaded.model;
    let job = sprite_job(&loaded, &args.job)?;
    let cells = render_cells(&job, &args.job)?;
    // A transition row is named `a->b`; '>' is not allowed in Windows file names.
    let names: Vec<String> = job.row_names().iter().map(|n| n.replace("->", "-to-")).collect();
    for cell in &cells {
        let clip = names.get(cell.clip).map_or("rest", String::as_str);
        let path = std::path::PathBuf::from(expand(&args.output, clip, cell.direction, cell.frame));
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)?;
        }
        guard_output(&path, &args.job.model, model)?;
        spritebake::output::write_png(&path, &cell.image)?;
    }
    if !args.job.sprite.quiet {
        eprintln!("{} frames written", cells.len());
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::expand;

    #[test]
    fn patterns_expand_with_padding() {
        assert_eq!(expand("out/{clip}_{dir}_{frame:03}.png", "walk", 2, 7), "out/walk_2_007.png");
        assert_eq!(expand("f{frame}.png", "c", 0, 12), "f12.png");
        assert_eq!(expand("{other}-{frame:2}", "c", 0, 3), "{other}-03");
    }
}
