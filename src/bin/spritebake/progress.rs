//! Progress of a job on stderr: a bar on a terminal; in a CI log (stderr not a terminal),
//! where a bar draws nothing useful, a plain line at every tenth of the images and at least
//! every 5 seconds (`sheet walk.png: 1,120/2,256 frames, 12 s`), so a long job is not silent
//! until it ends. Jobs of fewer than [`LINES_FROM`] images finish too soon to need lines.
//! A job that learns its size as it goes (`bake` plans entry after entry) grows its total.

use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Smallest job that prints progress lines off a terminal.
const LINES_FROM: u64 = 100;
/// Longest silence between two lines.
const LINE_EVERY: Duration = Duration::from_secs(5);

/// How a job's progress is shown; `tick` is called once per finished image, from any thread.
pub enum Progress {
    Bar(indicatif::ProgressBar),
    Lines(Mutex<Lines>),
    Silent,
}

/// The state of the plain lines.
pub struct Lines {
    /// What the lines say the job is (`sheet walk.png`).
    label: String,
    /// What it counts (`frames`, `images`).
    unit: &'static str,
    done: u64,
    total: u64,
    start: Instant,
    last_line: Instant,
    /// The tenths already reported.
    tenths: u64,
}

impl Progress {
    /// The progress of `total` frames of the job `label`: nothing with `quiet`.
    pub fn new(label: &str, total: u64, quiet: bool) -> Progress {
        match total {
            0 => Progress::Silent,
            _ => Progress::counting(label, "frames", total, quiet),
        }
    }

    /// The progress of a job of `total` `unit`s so far (it may [`Progress::grow`]).
    pub fn counting(label: &str, unit: &'static str, total: u64, quiet: bool) -> Progress {
        if quiet {
            return Progress::Silent;
        }
        if std::io::stderr().is_terminal() {
            let bar = indicatif::ProgressBar::new(total);
            bar.set_style(
                indicatif::ProgressStyle::with_template(&format!("{{bar:40}} {{pos}}/{{len}} {unit} {{elapsed}}"))
                    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
            );
            return Progress::Bar(bar);
        }
        let now = Instant::now();
        let label = label.to_string();
        Progress::Lines(Mutex::new(Lines { label, unit, done: 0, total, start: now, last_line: now, tenths: 0 }))
    }

    /// The job has `more` to do than it knew.
    pub fn grow(&self, more: u64) {
        match self {
            Progress::Bar(bar) => bar.inc_length(more),
            Progress::Lines(lines) => lines.lock().unwrap_or_else(|e| e.into_inner()).total += more,
            Progress::Silent => {}
        }
    }

    /// One more image finished.
    pub fn tick(&self) {
        match self {
            Progress::Bar(bar) => bar.inc(1),
            Progress::Lines(lines) => {
                let mut lines = lines.lock().unwrap_or_else(|e| e.into_inner());
                if let Some(line) = lines.tick(Instant::now()) {
                    eprintln!("{line}");
                }
            }
            Progress::Silent => {}
        }
    }

    /// The job is done: the bar is cleared (the summary line follows).
    pub fn finish(self) {
        if let Progress::Bar(bar) = self {
            bar.finish_and_clear();
        }
    }
}

impl Lines {
    /// Counts one image at `now`; the line to print when a new tenth is reached or the last
    /// line is [`LINE_EVERY`] old (never for the last image: the summary says it; never for
    /// a job of fewer than [`LINES_FROM`]).
    fn tick(&mut self, now: Instant) -> Option<String> {
        self.done += 1;
        let tenths = self.done * 10 / self.total.max(1);
        let due = tenths > self.tenths || now.duration_since(self.last_line) >= LINE_EVERY;
        if !due || self.done >= self.total || self.total < LINES_FROM {
            return None;
        }
        self.tenths = tenths;
        self.last_line = now;
        let seconds = now.duration_since(self.start).as_secs();
        let (done, total) = (thousands(self.done), thousands(self.total));
        Some(format!("{}: {done}/{total} {}, {seconds} s", self.label, self.unit))
    }
}

/// `1120` as `1,120`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_at_every_tenth_and_after_five_quiet_seconds() {
        let start = Instant::now();
        let mut lines = Lines {
            label: "sheet walk.png".into(),
            unit: "frames",
            done: 0,
            total: 2256,
            start,
            last_line: start,
            tenths: 0,
        };
        let printed: Vec<String> = (0..2256).filter_map(|_| lines.tick(start)).collect();
        assert_eq!(printed.len(), 9, "{printed:?}");
        assert_eq!(printed[0], "sheet walk.png: 226/2,256 frames, 0 s");
        assert_eq!(printed[8], "sheet walk.png: 2,031/2,256 frames, 0 s");
        // Five seconds without a new tenth: a line anyway.
        let mut lines =
            Lines { label: "gif".into(), unit: "frames", done: 0, total: 1000, start, last_line: start, tenths: 0 };
        assert_eq!(lines.tick(start + Duration::from_secs(1)), None);
        assert_eq!(lines.tick(start + Duration::from_secs(6)), Some("gif: 2/1,000 frames, 6 s".into()));
        assert_eq!(lines.tick(start + Duration::from_secs(7)), None);
        assert_eq!(thousands(1_234_567), "1,234,567");
        // A small job prints nothing; one that grows past the threshold does.
        let mut lines =
            Lines { label: "bake".into(), unit: "images", done: 0, total: 50, start, last_line: start, tenths: 0 };
        assert_eq!(lines.tick(start + Duration::from_secs(6)), None);
        lines.total += 950;
        assert_eq!(lines.tick(start + Duration::from_secs(12)), Some("bake: 2/1,000 images, 12 s".into()));
    }
}
