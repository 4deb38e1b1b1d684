//! How every report names and orders a case's result: its status word, its rank (failing
//! first), whether it needs review, its kind, and the run's counts by status.

use crate::check::{CaseResult, Outcome};

/// A case's status word in the reports.
pub(super) fn status(outcome: &Outcome) -> &'static str {
    match outcome {
        Outcome::Pass => "passed",
        Outcome::Fail { .. } => "failed",
        Outcome::New => "new",
        Outcome::Error(_) => "errored",
        Outcome::Blessed => "blessed",
    }
}

/// Failing cases first, then new, errored, blessed and passed ones.
pub(super) fn rank(outcome: &Outcome) -> u8 {
    match outcome {
        Outcome::Fail { .. } => 0,
        Outcome::New => 1,
        Outcome::Error(_) => 2,
        Outcome::Blessed => 3,
        Outcome::Pass => 4,
    }
}

/// Cases that need a decision: the bless command is shown for them.
pub(super) fn needs_review(outcome: &Outcome) -> bool {
    matches!(outcome, Outcome::Fail { .. } | Outcome::New | Outcome::Error(_))
}

/// The run's counts by status.
#[derive(Debug, Default)]
pub(super) struct Counts {
    pub passed: usize,
    pub failed: usize,
    pub new: usize,
    pub errored: usize,
    pub blessed: usize,
}

pub(super) fn counts(results: &[CaseResult]) -> Counts {
    let mut c = Counts::default();
    for r in results {
        *match r.outcome {
            Outcome::Pass => &mut c.passed,
            Outcome::Fail { .. } => &mut c.failed,
            Outcome::New => &mut c.new,
            Outcome::Error(_) => &mut c.errored,
            Outcome::Blessed => &mut c.blessed,
        } += 1;
    }
    c
}
