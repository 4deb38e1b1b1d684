//! `spritebake compare`: two PNGs, exact first, then perceptual and alpha metrics.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use spritebake::check::Tolerance;
use spritebake::golden::{compare_perceptual, perceptual_diff_image};
use spritebake::internal::budget::bytes_for;
use spritebake::internal::output::decode_png_within;
use spritebake::output::{OutputFormat, OutputPlan, write_png};

/// `spritebake compare`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// The new image.
    pub actual: PathBuf,
    /// The reference image.
    pub expected: PathBuf,
    /// Write a diff image (differences red, anti-aliasing yellow, over a faded copy).
    #[arg(long)]
    pub diff: Option<PathBuf>,
    /// How different the images may be (the keys of a `check` case).
    #[command(flatten)]
    pub tolerance: Tolerance,
    /// Memory budget for both images and the comparison, MiB, from 1 to 1048576.
    #[arg(
        long,
        value_name = "MIB",
        default_value_t = spritebake::spec::LimitsSpec::default().max_memory_mib,
        value_parser = spritebake::internal::bounds::MAX_MEMORY_MIB.parser()
    )]
    pub max_memory_mib: u64,
}

/// Runs the command: exit 0 within tolerance, 1 on a difference, 2 on an error.
pub fn run(args: &CompareArgs) -> Result<ExitCode> {
    let mut stdout = std::io::stdout();
    let mut plan = OutputPlan::new();
    if let Some(path) = &args.diff {
        plan.add(path, OutputFormat::Png);
    }
    plan.check(&[args.actual.clone(), args.expected.clone()])?;
    // Both images, then the comparison's mask and diff image (5 bytes a pixel), on one budget.
    let budget = spritebake::MemoryBudget::new(args.max_memory_mib.saturating_mul(1 << 20));
    // Regular files only (a FIFO or /dev/stdin would block), read no further than the budget.
    let read = |path: &PathBuf| -> Result<spritebake::raster::Image> {
        let bytes = spritebake::internal::confine::read_user_file(path, budget.remaining())
            .map_err(|d| d.into_error(path, path.display()))?;
        Ok(decode_png_within(&bytes, path, &budget)?)
    };
    let (actual, expected) = (read(&args.actual)?, read(&args.expected)?);
    let (w, h) = (actual.width, actual.height);
    budget.charge(bytes_for(u64::from(w) * u64::from(h), 5), || format!("comparing {w}x{h} images"))?;
    let tolerance = &args.tolerance;
    let r = compare_perceptual(&actual, &expected, &tolerance.perceptual())?;
    if r.identical {
        writeln!(stdout, "identical ({}x{})", actual.width, actual.height)?;
        return Ok(ExitCode::SUCCESS);
    }
    let allowed = tolerance.allowed(r.total_pixels);
    writeln!(
        stdout,
        "{} of {} pixels differ ({:.3}%): {} in colour (YIQ > {}), {} in alpha; max channel delta {} (alpha {}); {} anti-aliasing pixels{}",
        r.differing_pixels,
        r.total_pixels,
        r.differing_percent(),
        r.color_pixels,
        tolerance.threshold,
        r.alpha_pixels,
        r.max_color_delta,
        r.max_alpha_delta,
        r.aa_pixels,
        if tolerance.ignore_aa { " ignored" } else { "" }
    )?;
    if let Some(path) = &args.diff {
        write_png(path, &perceptual_diff_image(&expected, &r))?;
    }
    Ok(if r.differing_pixels <= allowed { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
