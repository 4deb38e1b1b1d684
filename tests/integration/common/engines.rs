//! The game engines' own loaders, run on sheets the tests bake: PixiJS 8 and Phaser 3 through
//! node (`../shared/tools/engines`, installed from npm into `target/tmp/engines` on first use).
//! Without node, npm or the tools folder a test skips with a note on stderr, or fails when
//! `SPRITEBAKE_REQUIRE_ENGINES=1` (as CI sets it, after installing them).

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::Value;

/// The variable that turns a missing engine from a skip into a failure.
pub const REQUIRE_ENGINES: &str = "SPRITEBAKE_REQUIRE_ENGINES";

/// How long one engine run may take before it is killed and the test fails.
const ENGINE_TIMEOUT: Duration = Duration::from_secs(120);

/// The engines' scripts: `$SPRITEBAKE_ENGINES`, else `../shared/tools/engines`.
fn tools_root() -> PathBuf {
    std::env::var_os("SPRITEBAKE_ENGINES")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/tools/engines"))
}

fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join(name)).find(|p| p.is_file())
}

/// `None` after a note on stderr (the test skips), or a panic when [`REQUIRE_ENGINES`] is `1`.
fn missing<T>(what: &str) -> Option<T> {
    assert!(
        std::env::var_os(REQUIRE_ENGINES).is_none_or(|v| v != "1"),
        "{what}, and {REQUIRE_ENGINES}=1 is set: the engine test may not skip (.ci/run installs the engines)"
    );
    let thread = std::thread::current();
    let _ = writeln!(
        std::io::stderr(),
        "note: {what}; engine test {} skipped (with {REQUIRE_ENGINES}=1 it fails)",
        thread.name().unwrap_or("?")
    );
    None
}

/// Runs `command` to completion, killed after [`ENGINE_TIMEOUT`].
fn run(mut command: Command, what: &str) -> Output {
    let child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("starting {what}: {e}"));
    let id = child.id();
    let start = Instant::now();
    let waiter = std::thread::spawn(move || child.wait_with_output());
    while !waiter.is_finished() {
        if start.elapsed() > ENGINE_TIMEOUT {
            let _ = Command::new("kill").args(["-9", &id.to_string()]).status();
            panic!("{what} took longer than {ENGINE_TIMEOUT:?} and was killed");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    waiter.join().unwrap().unwrap_or_else(|e| panic!("{what}: {e}"))
}

/// The node scripts with their npm packages, installed once per target folder.
pub struct NodeEngines {
    node: PathBuf,
    dir: PathBuf,
}

/// PixiJS and Phaser, ready to run; `None` (skip) without node, npm or the tools folder.
pub fn node() -> Option<&'static NodeEngines> {
    static ENGINES: OnceLock<Option<NodeEngines>> = OnceLock::new();
    ENGINES
        .get_or_init(install_node_engines)
        .as_ref()
        .or_else(|| missing("node, npm or ../shared/tools/engines is absent"))
}

/// Copies the scripts to `target/tmp/engines` and runs `npm install` there when the packages
/// are not installed yet. The copy is made in a fresh folder and renamed into place, so two
/// test processes never see half an install.
fn install_node_engines() -> Option<NodeEngines> {
    let tools = tools_root();
    let (node, npm) = (on_path("node")?, on_path("npm")?);
    if !tools.join("package.json").is_file() {
        return None;
    }
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("engines");
    let installed = |d: &Path| ["phaser", "pixi.js"].iter().all(|p| d.join("node_modules").join(p).is_dir());
    if !installed(&dir) {
        let staging = dir.with_file_name(format!("engines-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&staging);
        copy_dir(&tools, &staging);
        let mut install = Command::new(npm);
        install.current_dir(&staging).args(["install", "--no-audit", "--no-fund", "--loglevel=error"]);
        let o = run(install, "npm install in the engines folder");
        assert!(o.status.success(), "npm install failed: {}", String::from_utf8_lossy(&o.stderr));
        if std::fs::rename(&staging, &dir).is_err() {
            // Another process installed it first: use theirs.
            let _ = std::fs::remove_dir_all(&staging);
            assert!(installed(&dir), "{} has no complete install", dir.display());
        }
    }
    Some(NodeEngines { node, dir })
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

impl NodeEngines {
    /// Runs `script` (`pixi_check.mjs`, `phaser_check.cjs`, `phaser_ase.cjs`) on a sheet JSON
    /// and returns the JSON it prints last, with whether it exited 0.
    pub fn check(&self, script: &str, json: &Path) -> (bool, Value) {
        let mut command = Command::new(&self.node);
        command.arg(self.dir.join(script)).arg(json).current_dir(&self.dir);
        let o = run(command, &format!("node {script}"));
        let stdout = String::from_utf8_lossy(&o.stdout);
        let last = stdout.lines().rev().find(|l| l.trim_start().starts_with('{')).unwrap_or_else(|| {
            panic!("node {script} {} printed no JSON: {stdout}{}", json.display(), String::from_utf8_lossy(&o.stderr))
        });
        (o.status.success(), serde_json::from_str(last).unwrap())
    }
}
