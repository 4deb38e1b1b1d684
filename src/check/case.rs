//! A case made concrete, what it rendered and what its golden holds: what a case is judged on.

use std::path::PathBuf;

use super::CaseKeys;
use crate::confine::Confinement;
use crate::golden::PerceptualOptions;
use crate::raster::Image;
use crate::spec::Resolved;

/// A case made concrete: its spec anchored and resolved, its golden located.
pub(super) struct Case {
    pub(super) keys: CaseKeys,
    pub(super) resolved: Resolved,
    pub(super) golden: PathBuf,
    pub(super) compare: PerceptualOptions,
    /// Where the golden's files may be read from.
    pub(super) scope: Confinement,
}

/// What a case rendered, as it is compared and as it would be blessed.
pub(super) struct Actual {
    /// The images compared one by one, with their labels.
    pub(super) frames: Vec<Image>,
    pub(super) labels: Vec<String>,
    /// The golden files a bless writes.
    pub(super) golden_files: Vec<(PathBuf, Vec<u8>)>,
    /// GIF delays, centiseconds.
    pub(super) delays: Vec<u16>,
    /// A sheet's engine data files (JSON, `.tres`): file name and text.
    pub(super) data: Vec<(String, String)>,
    /// A sheet's cells: name and rectangle (x, y, w, h) on the sheet.
    pub(super) cells: Vec<(String, [u32; 4])>,
}

/// What a golden holds: its frames, and a GIF's delays or a sheet's engine data (text, in
/// the order of [`Actual::data`]).
pub(super) struct Expected {
    pub(super) frames: Vec<Image>,
    pub(super) delays: Vec<u16>,
    pub(super) data: Vec<String>,
}

/// The first engine data file of a sheet that differs from its golden: its name, and the
/// first differing line (see [`first_difference`]).
pub(super) fn data_difference(actual: &Actual, expected: &Expected) -> Option<(String, usize, String, String)> {
    actual.data.iter().zip(&expected.data).find_map(|((file, a), e)| {
        let (line, got, want) = first_difference(a, e)?;
        Some((file.clone(), line, got, want))
    })
}

/// The first line where two texts differ: its number and both lines.
fn first_difference(actual: &str, expected: &str) -> Option<(usize, String, String)> {
    let (mut a, mut e) = (actual.lines(), expected.lines());
    for line in 1.. {
        match (a.next(), e.next()) {
            (None, None) => return None,
            (x, y) if x == y => {}
            (x, y) => {
                let show = |l: Option<&str>| l.map_or("(end)".to_string(), |l| l.trim().to_string());
                return Some((line, show(x), show(y)));
            }
        }
    }
    None
}
