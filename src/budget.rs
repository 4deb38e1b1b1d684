//! Memory budgets: every allocation that file contents size is charged before it happens.
//!
//! Size limits per field are not enough: a 1 KiB BMP may declare 8192² texels (inside the side
//! limit) and a 50 KiB SMD 10 000 frames of 4 000 bones; each number is plausible, the memory
//! behind them is gigabytes. So the code that is about to allocate because a file said so first
//! computes the bytes (declared size × what one element costs once in memory) and charges them
//! here. An overrun is one [`Error::Budget`] line naming the file, the size and the flag that
//! raises the budget, never an abort under a memory limit.
//!
//! One budget covers one model: parsing its file, its vertices and morph frames, its animation
//! frames × joints, its decoded textures (including the renderer's mip chain). A sprite job's
//! rendered frames (and the sheet or GIF made of them), a `check` case's frames and goldens,
//! and `compare`'s two images each get a budget of the same size. Batch commands (`thumbnail`,
//! `check`, `bake` projects) give each model its own, so one bad model fails alone, and run a
//! model (a case, an entry) per thread, every one's budgets drawing on one shared pool
//! ([`MemoryBudget::drawing_on`], scheduled by `run_pooled`), so many small models run together
//! and a large one waits for a quieter moment: run again alone once the others are done.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use rayon::prelude::*;

use crate::error::{Error, Result, mib};

/// The default budget: 256 MiB per model. Every model of the project's corpus loads within
/// 32 MiB (the largest: glTF characters with an embedded 1024² texture, 25.3 MiB prepared
/// when mip chains held `f32` texels, less since they hold 16 bits a channel); a 2048² texture
/// costs 59 MiB prepared for rendering, a 4096² one 235 MiB.
pub const DEFAULT_MAX_MEMORY_BYTES: u64 = 256 << 20;

/// The option that raises a memory budget, named in every budget error by its key (the command
/// line shows it as its flag, `--max-memory-mib`).
pub const MEMORY_OPTION: &str = "max_memory_mib";

/// How much address space batch commands plan for the models they hold at once: a quarter of
/// a 1 GiB limit stays free for the program, thread stacks and the renders.
pub const BATCH_BYTES: u64 = 768 << 20;

/// The option named when a charge finds a shared pool ([`MemoryBudget::drawing_on`]) spent:
/// not a limit of the model's, but of how much the models running beside it hold.
pub const POOL_OPTION: &str = "memory of the models running at once";

/// Bytes charged so far against a limit; shared by reference (charging is atomic, so parallel
/// decoders may share one).
#[derive(Debug)]
pub struct MemoryBudget {
    limit: u64,
    used: AtomicU64,
    /// The pool this budget also charges: what it holds is returned there when it is dropped.
    pool: Option<Arc<MemoryBudget>>,
    /// The parts charged with [`MemoryBudget::charge_part`], by name: an overrun names what
    /// the budget already holds, not only what asked last.
    parts: Mutex<Vec<(String, u64)>>,
}

impl Default for MemoryBudget {
    fn default() -> Self {
        MemoryBudget::new(DEFAULT_MAX_MEMORY_BYTES)
    }
}

impl MemoryBudget {
    /// A budget of `limit` bytes, nothing charged.
    pub fn new(limit: u64) -> MemoryBudget {
        MemoryBudget { limit, used: AtomicU64::new(0), pool: None, parts: Mutex::default() }
    }

    /// A budget of `limit` bytes whose every charge is also charged to `pool`, shared with
    /// other budgets (the models of a batch running at once); dropping it gives its bytes back
    /// to the pool. A charge the pool cannot take fails with an [`Error::Budget`] naming
    /// [`POOL_OPTION`] ([`is_pool_spent`]): the model fits its own budget but not beside the
    /// others, so a batch runs it again later, alone.
    pub fn drawing_on(limit: u64, pool: &Arc<MemoryBudget>) -> MemoryBudget {
        MemoryBudget { limit, used: AtomicU64::new(0), pool: Some(Arc::clone(pool)), parts: Mutex::default() }
    }

    /// A budget of `limit` bytes drawing on `pool` where there is one ([`run_pooled`] gives
    /// an item the pool, or none when it runs alone).
    pub(crate) fn in_pool(limit: u64, pool: Option<&Arc<MemoryBudget>>) -> MemoryBudget {
        match pool {
            Some(pool) => MemoryBudget::drawing_on(limit, pool),
            None => MemoryBudget::new(limit),
        }
    }

    /// The limit in bytes.
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// Bytes charged so far.
    pub fn used(&self) -> u64 {
        self.used.load(Ordering::SeqCst)
    }

    /// Bytes that can still be charged.
    pub fn remaining(&self) -> u64 {
        self.limit.saturating_sub(self.used())
    }

    /// Charges `bytes` for `what` (called only on failure, e.g. `"walk.md5anim: 5000 frames x
    /// 300 joints"`).
    ///
    /// # Errors
    /// [`Error::Budget`] when the charge would go over the limit; nothing is charged then.
    pub fn charge(&self, bytes: u64, what: impl FnOnce() -> String) -> Result<()> {
        self.take(bytes, what, MEMORY_OPTION)?;
        if let Some(pool) = &self.pool
            && let Err(spent) = pool.take(bytes, || "the models running at once".into(), POOL_OPTION)
        {
            self.used.fetch_sub(bytes, Ordering::SeqCst);
            return Err(spent);
        }
        Ok(())
    }

    /// As [`MemoryBudget::charge`] for one of the few large parts of a job (its pages in
    /// progress, a wave of cells, its engine data), remembered by name: a later overrun says
    /// which parts the budget already holds.
    ///
    /// # Errors
    /// As [`MemoryBudget::charge`].
    pub fn charge_part(&self, bytes: u64, what: impl Fn() -> String) -> Result<()> {
        self.charge(bytes, &what)?;
        self.parts.lock().unwrap_or_else(PoisonError::into_inner).push((what(), bytes));
        Ok(())
    }

    /// Adds `bytes` to this budget alone, or fails naming `option` as what raises it.
    fn take(&self, bytes: u64, what: impl FnOnce() -> String, option: &'static str) -> Result<()> {
        let fits = |used: u64| used.checked_add(bytes).filter(|&total| total <= self.limit);
        match self.used.fetch_update(Ordering::SeqCst, Ordering::SeqCst, fits) {
            Ok(_) => Ok(()),
            Err(used) => {
                let what = format!("{} ({} MiB)", what(), mib(bytes));
                // Say what else the budget holds when earlier charges are part of the total.
                let what = if used == 0 { what } else { format!("{what}, with {},", self.held(used)) };
                Err(Error::Budget { what, needed: used.saturating_add(bytes), budget: self.limit, option })
            }
        }
    }

    /// What `used` bytes already charged are: the named parts, largest first, and the others.
    fn held(&self, used: u64) -> String {
        let mut parts = self.parts.lock().unwrap_or_else(PoisonError::into_inner).clone();
        parts.sort_by_key(|part| std::cmp::Reverse(part.1));
        let named: u64 = parts.iter().map(|p| p.1).sum();
        let mut list: Vec<String> = parts.iter().map(|(what, bytes)| format!("{what}: {} MiB", mib(*bytes))).collect();
        if used > named {
            // Unnamed charges are many and small (a texture, a GIF frame): summed, not guessed at.
            list.push(format!("other charges: {} MiB", mib(used - named)));
        }
        format!("{} MiB already held ({})", mib(used), list.join("; "))
    }
}

impl Drop for MemoryBudget {
    fn drop(&mut self) {
        if let Some(pool) = &self.pool {
            pool.used.fetch_sub(*self.used.get_mut(), Ordering::SeqCst);
        }
    }
}

/// Whether `e` is a charge that a shared pool could not take ([`MemoryBudget::drawing_on`]),
/// not one over the model's own budget.
pub fn is_pool_spent(e: &Error) -> bool {
    matches!(e, Error::Budget { option, .. } if *option == POOL_OPTION)
}

/// Runs `run` on every item in parallel, each drawing its memory from one pool of `pool_bytes`
/// shared by them all (`Some(pool)`: the budgets it makes are [`MemoryBudget::drawing_on`] the
/// pool); then, one at a time and after the others, the items the pool could not take
/// ([`is_pool_spent`]) again with `None` (budgets of their own only). The results in `items`'
/// order: a batch fits the pool whatever its items, and an item that fits its own budget
/// never fails for the others beside it.
///
/// `run` answers `Err` when the pool could not take its item (and may for any error it does
/// not make an outcome of itself); an error left after the item's last run is its result
/// through `failed`.
pub(crate) fn run_pooled<T: Sync, R: Send>(
    items: &[T],
    pool_bytes: u64,
    run: impl Fn(&T, Option<&Arc<MemoryBudget>>) -> Result<R> + Sync,
    failed: impl Fn(&T, Error) -> R,
) -> Vec<R> {
    let pool = Arc::new(MemoryBudget::new(pool_bytes));
    let pooled: Vec<Result<R>> = items.par_iter().map(|item| run(item, Some(&pool))).collect();
    let last_run = |(item, result): (&T, Result<R>)| match result {
        Err(e) if is_pool_spent(&e) => run(item, None),
        other => other,
    };
    items
        .iter()
        .zip(pooled)
        .map(|(item, result)| last_run((item, result)).unwrap_or_else(|e| failed(item, e)))
        .collect()
}

/// `count` elements of `size` bytes, saturating (a count from a file may be anything).
pub fn bytes_for(count: u64, size: usize) -> u64 {
    count.saturating_mul(size as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charges_add_up_and_an_overrun_charges_nothing() {
        let budget = MemoryBudget::new(10 << 20);
        budget.charge(6 << 20, || "a".into()).unwrap();
        let e = budget.charge(5 << 20, || "texture b.png (1000x1000)".into()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "texture b.png (1000x1000) (5 MiB), with 6 MiB already held (other charges: 6 MiB), needs 11 MiB, over the 10 MiB budget (raise it with `max_memory_mib`)"
        );
        assert_eq!(budget.used(), 6 << 20);
        budget.charge(4 << 20, || "c".into()).unwrap();
        assert_eq!(budget.remaining(), 0);
        assert!(budget.charge(u64::MAX, || "d".into()).is_err());
    }

    #[test]
    fn an_overrun_names_the_parts_already_held() {
        let budget = MemoryBudget::new(100 << 20);
        budget.charge(3 << 20, || "a texture".into()).unwrap();
        budget.charge_part(60 << 20, || "the sheet pages in progress".into()).unwrap();
        budget.charge_part(20 << 20, || "a wave of cells".into()).unwrap();
        let e = budget.charge(30 << 20, || "the sheet data".into()).unwrap_err().to_string();
        assert!(
            e.starts_with(
                "the sheet data (30 MiB), with 83 MiB already held (the sheet pages in progress: 60 MiB; \
                 a wave of cells: 20 MiB; other charges: 3 MiB), needs 113 MiB"
            ),
            "{e}"
        );
    }

    #[test]
    fn budgets_drawing_on_a_pool_fail_apart_from_their_own_limit_and_give_back_on_drop() {
        let pool = Arc::new(MemoryBudget::new(10));
        let a = MemoryBudget::drawing_on(8, &pool);
        let b = MemoryBudget::drawing_on(8, &pool);
        a.charge(6, || "a".into()).unwrap();
        // b's own budget has room, the pool has not: b holds nothing after the refusal.
        let spent = b.charge(5, || "b".into()).unwrap_err();
        assert!(is_pool_spent(&spent), "{spent}");
        assert_eq!((b.used(), pool.used()), (0, 6));
        // Over a's own limit: an ordinary budget error, the pool untouched.
        let own = a.charge(3, || "a again".into()).unwrap_err();
        assert!(!is_pool_spent(&own), "{own}");
        assert_eq!(pool.used(), 6);
        drop(a);
        assert_eq!(pool.used(), 0);
        b.charge(5, || "b".into()).unwrap();
        assert_eq!(pool.used(), 5);
    }

    #[test]
    fn pooled_items_the_pool_cannot_take_run_again_alone_and_results_keep_their_order() {
        // A pool of 5 never takes the item of 8 (its own budget would), nor two items of 4 at
        // once; the item of 99 is over its own budget.
        let alone = Mutex::new(Vec::new());
        let run = |&bytes: &u64, pool: Option<&Arc<MemoryBudget>>| {
            let Some(pool) = pool else {
                alone.lock().unwrap().push(bytes);
                return Ok(Ok(bytes * 10));
            };
            MemoryBudget::drawing_on(64, pool).charge(bytes, || "an item".into())?;
            Ok(Ok(bytes))
        };
        let results: Vec<Result<u64>> = run_pooled(&[4u64, 8, 4, 99], 5, run, |_, e| Err(e));
        // Over its own budget: failed as it is, never run again.
        assert!(matches!(&results[3], Err(e) if !is_pool_spent(e)), "{:?}", results[3]);
        let values: Vec<u64> = results[..3].iter().map(|r| *r.as_ref().unwrap()).collect();
        assert_eq!(values[1], 80);
        assert!([4, 40].contains(&values[0]) && [4, 40].contains(&values[2]), "{values:?}");
        // Those run alone ran after the others, one at a time, in the items' order.
        let alone = alone.into_inner().unwrap();
        let expected: Vec<u64> = values.iter().filter(|&&v| v >= 40).map(|v| v / 10).collect();
        assert_eq!(alone, expected);
    }
}
