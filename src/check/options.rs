//! What a `check` run does besides comparing.

use std::path::PathBuf;

use crate::spec::LimitOverrides;

/// What `check` does besides comparing.
#[derive(Debug, Clone, Default)]
pub struct CheckOptions {
    /// Write goldens for new and failing cases.
    pub bless: bool,
    /// Folder for actual and diff images of failing and new cases.
    pub out: Option<PathBuf>,
    /// Run only cases `i` with `i % count == index` (0-based index).
    pub shard: Option<(usize, usize)>,
    /// Run only the cases with these names (all when empty).
    pub cases: Vec<String>,
    /// Limits for every case: each case's model gets its own memory budget, and its rendered
    /// frames and goldens another. Each set override replaces what cases set.
    pub limits: LimitOverrides,
    /// Keep the expected, actual and diff image of every frame of a failing or new case as PNG
    /// (in [`CaseResult::detail`](crate::check::CaseResult::detail)) for an HTML report. Without it a case keeps only numbers.
    pub report_images: bool,
}
