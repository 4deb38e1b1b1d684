//! The test binary's global allocator: the system allocator, counting bytes per thread.
//!
//! All integration tests share one process, and the harness runs them on parallel threads:
//! a process-wide count would include whatever the other tests allocate meanwhile. Each
//! thread counts its own allocations instead, so a measurement covers exactly the code the
//! measuring test runs on its own thread (the parsers measured here start no threads).
//!
//! Counting needs `unsafe` (it forwards to the system allocator); the library and the binary
//! forbid `unsafe` outright.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

struct Counting;

thread_local! {
    // Const-initialised with no destructor: reading them never allocates, so the allocator
    // may use them.
    /// Bytes live now that this thread allocated, minus what it freed (frees of memory other
    /// threads allocated can take it below zero).
    static CURRENT: Cell<i64> = const { Cell::new(0) };
    /// The highest `CURRENT` since the last reset.
    static PEAK: Cell<i64> = const { Cell::new(0) };
    /// Every byte this thread allocated, never decremented: work done, not memory held.
    static TOTAL: Cell<u64> = const { Cell::new(0) };
    /// Whether this thread belongs to the counted pool ([`counted_pool`]).
    static IN_POOL: Cell<bool> = const { Cell::new(false) };
}

/// Bytes live now that the counted pool's threads allocated, minus what they freed.
static POOL_CURRENT: AtomicI64 = AtomicI64::new(0);
/// The highest `POOL_CURRENT` since the last reset.
static POOL_PEAK: AtomicI64 = AtomicI64::new(0);
/// One measurement of the counted pool at a time: tests run on parallel threads.
static POOL_IN_USE: Mutex<()> = Mutex::new(());

fn allocated(size: usize) {
    let size = size as i64;
    let _ = CURRENT.try_with(|c| {
        let now = c.get() + size;
        c.set(now);
        let _ = PEAK.try_with(|p| p.set(p.get().max(now)));
    });
    let _ = TOTAL.try_with(|t| t.set(t.get() + size as u64));
    if IN_POOL.try_with(Cell::get).unwrap_or(false) {
        let now = POOL_CURRENT.fetch_add(size, Ordering::Relaxed) + size;
        POOL_PEAK.fetch_max(now, Ordering::Relaxed);
    }
}

fn freed(size: usize) {
    let _ = CURRENT.try_with(|c| c.set(c.get() - size as i64));
    if IN_POOL.try_with(Cell::get).unwrap_or(false) {
        POOL_CURRENT.fetch_sub(size as i64, Ordering::Relaxed);
    }
}

// SAFETY: every call forwards unchanged to the system allocator; only sizes are counted, in
// thread-locals that never allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        allocated(layout.size());
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        allocated(layout.size());
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        freed(layout.size());
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // Counted as a move to a new block (both held at once), as `GlobalAlloc`'s default
        // `realloc` does it.
        allocated(new_size);
        freed(layout.size());
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Peak bytes this thread held while running `f`, above what it held before.
pub fn peak_during(f: impl FnOnce()) -> usize {
    let base = CURRENT.with(Cell::get);
    PEAK.with(|p| p.set(base));
    f();
    (PEAK.with(Cell::get) - base) as usize
}

/// Bytes this thread allocated while running `f`, however many it freed again.
pub fn allocated_during<T>(f: impl FnOnce() -> T) -> (T, u64) {
    let before = TOTAL.with(Cell::get);
    let value = f();
    (value, TOTAL.with(Cell::get) - before)
}

/// A rayon pool of `threads` threads whose allocations are counted together, for code that
/// spreads its work over threads ([`CountedPool::peak_during`]); held by one test at a time.
pub struct CountedPool {
    pool: Option<rayon::ThreadPool>,
    /// How many of its threads have exited, and the signal that one has.
    exited: Arc<(Mutex<usize>, Condvar)>,
    threads: usize,
    _only: MutexGuard<'static, ()>,
}

/// The counted pool, once the test before has let it go.
pub fn counted_pool(threads: usize) -> CountedPool {
    let only = POOL_IN_USE.lock().unwrap_or_else(PoisonError::into_inner);
    let exited = Arc::new((Mutex::new(0), Condvar::new()));
    let signal = Arc::clone(&exited);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .start_handler(|_| IN_POOL.with(|p| p.set(true)))
        .exit_handler(move |_| {
            *signal.0.lock().unwrap_or_else(PoisonError::into_inner) += 1;
            signal.1.notify_all();
        })
        .build()
        .unwrap();
    CountedPool { pool: Some(pool), exited, threads, _only: only }
}

impl Drop for CountedPool {
    /// Waits until every thread of the pool has exited: work it was handed with
    /// `rayon::spawn` (a sheet's pages are let go so) finishes before the next test counts,
    /// instead of counting down in the middle of its measurement.
    fn drop(&mut self) {
        drop(self.pool.take());
        let (count, signal) = &*self.exited;
        let mut exited = count.lock().unwrap_or_else(PoisonError::into_inner);
        while *exited < self.threads {
            exited = signal.wait(exited).unwrap_or_else(PoisonError::into_inner);
        }
    }
}

impl CountedPool {
    /// Peak bytes the pool's threads held together while running `f` on the pool, above what
    /// they held before. Memory a pool thread frees that another thread allocated counts
    /// down, and the reverse not at all: the figure errs high, never low.
    pub fn peak_during(&self, f: impl FnOnce() + Send) -> usize {
        let base = POOL_CURRENT.load(Ordering::Relaxed);
        POOL_PEAK.store(base, Ordering::Relaxed);
        self.pool.as_ref().expect("the pool lives until the counted pool is dropped").install(f);
        (POOL_PEAK.load(Ordering::Relaxed) - base).max(0) as usize
    }
}
