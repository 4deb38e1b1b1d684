//! How a case ended, and what its result keeps.

use std::path::PathBuf;

use super::CaseDetail;

/// How a case ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Every frame within tolerance.
    Pass,
    /// Some frames (or a sheet's JSON, or a GIF's delays) differ beyond tolerance.
    Fail {
        /// What regressed (`frame 3`, `walk_0_002`, `JSON`, `delays`) and a summary of how.
        frames: Vec<(String, String)>,
    },
    /// No golden yet (written with `bless`).
    New,
    /// The golden was (re)written.
    Blessed,
    /// The case could not run.
    Error(String),
}

/// One case's result.
#[derive(Debug, Clone)]
pub struct CaseResult {
    /// Case name.
    pub name: String,
    /// What happened.
    pub outcome: Outcome,
    /// The golden file or folder.
    pub golden: PathBuf,
    /// Where the actual render and diff were written (with `out`), if any.
    pub actual: Option<PathBuf>,
    /// The diff image (with `out`), if any.
    pub diff: Option<PathBuf>,
    /// The golden file that was read and compared, if any (a golden folder's frames are
    /// listed in [`CaseResult::files`]).
    pub expected: Option<PathBuf>,
    /// Seconds spent.
    pub seconds: f64,
    /// What a report shows of a failing or new case: every frame's numbers and, with
    /// [`CheckOptions::report_images`], its images as PNG. `None` for every other outcome.
    ///
    /// [`CheckOptions::report_images`]: super::CheckOptions::report_images
    pub detail: Option<Box<CaseDetail>>,
    /// Every file the case read or wrote (model files, goldens, `--out` images, blessed
    /// goldens): a report written after the run is checked against them.
    pub files: Vec<PathBuf>,
}

impl CaseResult {
    /// The case's line as `check` prints it: its status, its name and, for a failure, what
    /// regressed; control characters (from case names, paths, model text) escaped, so it is one
    /// line.
    pub fn summary_line(&self) -> String {
        let line = match &self.outcome {
            Outcome::Pass => format!("PASS  {}", self.name),
            Outcome::Blessed => format!("BLESS {} -> {}", self.name, self.golden.display()),
            Outcome::New => {
                format!("NEW   {}: no golden at {} (run with --bless to create it)", self.name, self.golden.display())
            }
            Outcome::Error(e) => format!("ERROR {}: {e}", self.name),
            Outcome::Fail { frames } => {
                let list: Vec<&str> = frames.iter().map(|(f, _)| f.as_str()).collect();
                let first = frames.first().map(|(_, s)| s.as_str()).unwrap_or("");
                format!("FAIL  {}: {first}; failing: {}", self.name, list.join(", "))
            }
        };
        crate::terminal::escape_control(&line).into_owned()
    }
}
