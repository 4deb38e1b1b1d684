//! Small steps shared by the commands.

use anyhow::{Context, Result};
use spritebake::bake::{self, Loaded, Product, pipeline};
use spritebake::internal::bake::sheet_leftovers;
use spritebake::output::Transaction;
use spritebake::spec::{BakeSpec, Resolved};

use crate::args::RunArgs;
use crate::progress::Progress;

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
        eprintln!("warning: {}", spritebake::internal::terminal::escape_control(warning));
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
    let total = match product {
        Product::Render => 0,
        _ => product.image_count(&loaded, &resolved)? as u64,
    };
    let label = format!("{} {}", product.name(), spritebake::internal::terminal::escape_control(output));
    let progress = Progress::new(&label, total, run.quiet);
    let tick = || progress.tick();
    // The finished images get a budget of their own, besides the model's.
    let mut transaction = Transaction::new();
    let written = pipeline::write(product, &loaded, &resolved, output, &spec.limits.budget(), &tick, &mut transaction)?;
    progress.finish();
    transaction.commit()?;
    if !run.quiet && product != Product::Render {
        eprintln!("{}", spritebake::internal::terminal::escape_control(&written.summary));
        let left = match product {
            Product::Sheet => sheet_leftovers(output, resolved.json_format, written.pages),
            _ => Vec::new(),
        };
        let stale: Vec<String> = left.iter().map(|p| p.display().to_string()).collect();
        if !stale.is_empty() {
            let list = stale.join(", ");
            eprintln!(
                "note: not part of this sheet, left from an earlier run: {}",
                spritebake::internal::terminal::escape_control(&list)
            );
        }
    }
    Ok(())
}

/// A library error as the command line says it: options the library names by their key
/// (`pixel_art`, in backticks) are named by their flag (`--pixel-art`).
pub fn message(e: &spritebake::Error) -> String {
    match e {
        spritebake::Error::BadOption { option, value, expected } => {
            format!("{} {value}: {}", flag(option), flags_in(expected))
        }
        spritebake::Error::Budget { .. } | spritebake::Error::OverLimit { .. } => flags_in(&e.to_string()),
        _ => e.to_string(),
    }
}

/// The flag of a spec key: `pixel_art` is `--pixel-art`, `model` the MODEL argument.
pub fn flag(key: &str) -> String {
    if key == "model" { "MODEL".into() } else { format!("--{}", key.replace('_', "-")) }
}

/// Library text naming keys in backticks (`needs `pixel_art``) with the keys as flags.
pub fn flags_in(text: &str) -> String {
    text.split('`').enumerate().map(|(i, part)| if i % 2 == 1 { flag(part) } else { part.to_string() }).collect()
}
