//! A headless Chromium for tests that look at a page: found on `PATH` as `chromium` or
//! `chromium-browser`. Without one a test skips with a note on stderr, or fails when
//! `SPRITEBAKE_REQUIRE_BROWSER=1` (as CI runs, after installing Chromium).

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The variable that turns a missing browser from a skip into a failure.
pub const REQUIRE_BROWSER: &str = "SPRITEBAKE_REQUIRE_BROWSER";

/// How long one screenshot may take before the browser is killed and the test fails.
pub const SCREENSHOT_TIMEOUT: Duration = Duration::from_secs(60);

/// The first of `chromium`, `chromium-browser` on `PATH`; `None` (with a note) when neither
/// is there, a panic instead when `SPRITEBAKE_REQUIRE_BROWSER=1`.
pub fn chromium() -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .flat_map(|dir| ["chromium", "chromium-browser"].map(|name| dir.join(name)))
            .find(|p| p.is_file())
    });
    if found.is_none() {
        assert!(
            std::env::var_os(REQUIRE_BROWSER).is_none_or(|v| v != "1"),
            "no chromium or chromium-browser on PATH and {REQUIRE_BROWSER}=1 is set: the browser test may not \
             skip (apt-get install chromium, or unset {REQUIRE_BROWSER})"
        );
        let thread = std::thread::current();
        let _ = writeln!(
            std::io::stderr(),
            "note: no chromium on PATH; browser test {} skipped (with {REQUIRE_BROWSER}=1 it fails)",
            thread.name().unwrap_or("?")
        );
    }
    found
}

/// Loads `url` in headless `browser` at 1200×900 and writes a screenshot to `png`, with its
/// own profile folder beside it; the browser is killed after [`SCREENSHOT_TIMEOUT`].
pub fn screenshot(browser: &Path, url: &str, png: &Path) {
    let profile = png.with_extension("profile");
    let mut child = Command::new(browser)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run"])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--screenshot={}", png.display()))
        .args(["--window-size=1200,900", url])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("starting {}: {e}", browser.display()));
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success(), "{} exited with {status} for {url}", browser.display());
            break;
        }
        if start.elapsed() > SCREENSHOT_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{} took longer than {SCREENSHOT_TIMEOUT:?} for {url}: killed", browser.display());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = std::fs::remove_dir_all(&profile);
    assert!(png.is_file(), "no screenshot at {} for {url}", png.display());
}
