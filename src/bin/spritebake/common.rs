//! Small steps shared by the commands.

use std::io::IsTerminal;

use anyhow::{Context, Result};
use spritebake::bake::{self, Loaded, Product};
use spritebake::output::Transaction;
use spritebake::spec::{BakeSpec, Resolved};

use crate::args::RunArgs;

/// Sizes rayon's global pool (once, before any parallel work).
pub fn set_threads(threads: Option<usize>) -> Result<()> {
    if let Some(n) = threads {
        rayon::ThreadPoolBuilder::new().num_threads(n.max(1)).build_global().context("setting up worker threads")?;
    }
    Ok(())
}

/// Prints a model's warnings on stderr, escaped (model text may hold control characters).
pub fn print_warnings(loaded: &Loaded) {
    for warning in &loaded.warnings {
        eprintln!("warning: {}", spritebake::text::escape_control(warning));
    }
}

/// Resolves a spec and loads what it names, printing the warnings.
pub fn resolve_and_load(spec: &BakeSpec) -> Result<(Resolved, Loaded)> {
    let resolved = spec.resolve()?;
    let loaded = bake::load(&resolved)?;
    print_warnings(&loaded);
    Ok((resolved, loaded))
}

/// The whole of `render`, `sheet`, `gif` and `frames`: resolve, load, plan every output and
/// check it against every input, render (with a progress bar on a terminal), and write every
/// file together or none.
pub fn bake_files(product: Product, spec: &BakeSpec, output: &str, run: &RunArgs) -> Result<()> {
    set_threads(run.threads)?;
    let (resolved, loaded) = resolve_and_load(spec)?;
    product.plan(output, &loaded, &resolved)?.check(&loaded.inputs)?;
    let show_bar = !run.quiet && std::io::stderr().is_terminal() && product != Product::Render;
    let bar = show_bar.then(|| product.image_count(&loaded, &resolved)).transpose()?.map(|count| {
        let bar = indicatif::ProgressBar::new(count as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} frames {elapsed}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar
    });
    let tick = || {
        if let Some(b) = &bar {
            b.inc(1);
        }
    };
    // The finished images get a budget of their own, besides the model's.
    let baked = bake::products::bake(product, &loaded, &resolved, &spec.limits.budget(), &tick)?;
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let mut transaction = Transaction::new();
    for (path, bytes) in baked.files(output)? {
        transaction.stage(&path, &bytes)?;
    }
    transaction.commit()?;
    if !run.quiet && product != Product::Render {
        eprintln!("{}", spritebake::text::escape_control(&baked.summary(output)));
    }
    Ok(())
}
