//! Running a batch: every model loaded, posed, rendered and encoded on a thread of its own, the
//! memory the models hold together drawn from one pool.
//!
//! A fixed number of models in flight (each reserving its whole budget) would leave most cores
//! idle: models take a few MiB of their 256 MiB budget. So every model runs at once as rayon
//! schedules it, and each charge of each model is also charged to a pool of
//! [`crate::budget::BATCH_BYTES`]. A model the pool cannot take is dropped (its charges
//! given back) and run again after the others, alone, with its own budget only: a batch fits
//! the pool whatever its models, and a model that fits its budget always renders.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use crate::bake::{self, Product, pipeline};
use crate::budget::{self, MemoryBudget};
use crate::error::{Error, Result};
use crate::formats;
use crate::output::Transaction;
use crate::spec::BakeSpec;

use super::scan::Found;

/// A thumbnail rendered and staged.
pub(crate) struct Done {
    /// The staged PNG: committed by the model's own task when its file did not exist before the
    /// batch, else held for the batch to commit (see [`Job::commit_now`]).
    pub(crate) files: Option<Transaction>,
    /// Every file the model read.
    pub(crate) inputs: Vec<PathBuf>,
    pub(crate) warnings: Vec<String>,
    pub(crate) triangles: u64,
}

/// What became of one model.
pub(crate) enum Outcome {
    Done(Done),
    Failed(Error),
    /// A file found by a scan that is part of a model (a sequence SMD, a Half-Life sequence
    /// group or texture file), not a model: what it is.
    Part(&'static str),
}

/// One model's outcome and the wall time its task took.
pub(crate) struct Ran {
    pub(crate) outcome: Outcome,
    pub(crate) seconds: f64,
}

/// One model of the batch and where its thumbnail goes.
#[derive(Clone, Copy)]
pub(crate) struct Job<'a> {
    pub(crate) found: &'a Found,
    pub(crate) output: &'a Path,
    /// Whether the task commits its thumbnail itself: a file that does not exist yet is no
    /// model's input, but one that does may be another model's skin, which only the batch,
    /// once every model has told what it reads, can rule out.
    pub(crate) commit_now: bool,
}

/// Runs every job in parallel within a pool of `pool_bytes`, then the ones the pool could not
/// take one at a time ([`budget::run_pooled`]); the outcomes in `jobs`' order.
pub(crate) fn run_all(jobs: &[Job], base: &BakeSpec, pool_bytes: u64) -> Vec<Ran> {
    let failed = |_: &Job, e| Ran { outcome: Outcome::Failed(e), seconds: 0.0 };
    budget::run_pooled(jobs, pool_bytes, |job, pool| timed(job, base, pool), failed)
}

/// One job's outcome, timed; `Err` only when the pool could not take it.
fn timed(job: &Job, base: &BakeSpec, pool: Option<&Arc<MemoryBudget>>) -> Result<Ran> {
    let start = Instant::now();
    let outcome = match one(job, base, pool) {
        Ok(Ok(done)) => Outcome::Done(done),
        Ok(Err(part)) => Outcome::Part(part),
        Err(e) if budget::is_pool_spent(&e) => return Err(e),
        Err(e) => Outcome::Failed(e),
    };
    Ok(Ran { outcome, seconds: start.elapsed().as_secs_f64() })
}

/// One model's thumbnail, staged and, where the job says so, committed; `Err` with what it is
/// for a scanned file that is part of a model ([`formats::model_part`]).
fn one(
    job: &Job,
    base: &BakeSpec,
    pool: Option<&Arc<MemoryBudget>>,
) -> Result<std::result::Result<Done, &'static str>> {
    job.found.confined()?;
    let mut spec = base.clone();
    spec.model.model = job.found.path.clone();
    let resolved = spec.resolve()?;
    let limits = spec.limits.limits();
    if job.found.scanned()
        && let Some(part) = formats::model_part(&job.found.path, &limits)
    {
        return Ok(Err(part));
    }
    // The model, its attachments and its image each get a budget of their own, as a single
    // `render` gives them; in a batch all three draw on the pool.
    let budget = || MemoryBudget::in_pool(limits.max_memory_bytes, pool);
    let (body, attachments, image) = (budget(), budget(), budget());
    let loaded = bake::load_within(&resolved, &body, &attachments)?;
    // This model's own files (its skin may sit where its thumbnail would go): checked once
    // they are known, and a clash fails this model only.
    let output = job.output.to_string_lossy();
    Product::Render.plan(&output, &loaded, &resolved)?.check(&loaded.inputs)?;
    let mut files = Transaction::new();
    pipeline::write(Product::Render, &loaded, &resolved, &output, &image, &|| {}, &mut files)?;
    let files = if job.commit_now {
        files.commit()?;
        None
    } else {
        Some(files)
    };
    let triangles = loaded.model.triangle_count() + loaded.props.iter().map(|p| p.triangle_count()).sum::<usize>();
    Ok(Ok(Done { files, inputs: loaded.inputs, warnings: loaded.warnings, triangles: triangles as u64 }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::Profile;

    /// The bytes of each thumbnail the jobs made (`None` where one failed or was skipped).
    fn thumbnails(jobs: &[Job], ran: &[Ran]) -> Vec<Option<Vec<u8>>> {
        jobs.iter()
            .zip(ran)
            .map(|(job, r)| matches!(r.outcome, Outcome::Done(_)).then(|| std::fs::read(job.output).unwrap()))
            .collect()
    }

    #[test]
    fn models_the_pool_cannot_take_run_again_alone_with_the_same_result() {
        let dir = std::env::temp_dir().join(format!("spritebake-pool-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let models: Vec<Found> = (0..4)
            .map(|i| {
                let path = dir.join(format!("m{i}.obj"));
                std::fs::write(&path, format!("v 0 0 0\nv 1 {i} 0\nv 0 1 0\nf 1 2 3\n")).unwrap();
                Found { path, root: Some(dir.clone()) }
            })
            .collect();
        let mut base = Profile::Thumbnail.spec();
        base.view.size = "24".parse().unwrap();
        let run = |pool_bytes: u64, folder: &str| {
            let outputs: Vec<PathBuf> = models
                .iter()
                .map(|m| dir.join(folder).join(m.path.file_name().unwrap()).with_extension("png"))
                .collect();
            let jobs: Vec<Job> =
                models.iter().zip(&outputs).map(|(found, output)| Job { found, output, commit_now: true }).collect();
            let ran = run_all(&jobs, &base, pool_bytes);
            assert!(ran.iter().all(|r| matches!(r.outcome, Outcome::Done(_))), "a model failed");
            thumbnails(&jobs, &ran)
        };
        // A pool of one byte takes no model: every one runs again alone, as it would have.
        assert_eq!(run(1, "starved"), run(budget::BATCH_BYTES, "roomy"));
        std::fs::remove_dir_all(dir).unwrap();
    }
}
