//! The game engines' own loaders, run on sheets the tests bake: PixiJS 8 and Phaser 3 through
//! node (`../shared/tools/engines`, installed from npm into `target/tmp/engines` on first use),
//! and headless Godot 3.2 (`godot3-server`, a Debian package). Without node, npm, Godot or the
//! tools folder a test skips with a note on stderr, or fails when `SPRITEBAKE_REQUIRE_ENGINES=1`
//! (as CI sets it, after installing them). The repository's own engine scripts are in
//! `tests/engines/`.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::cli::copy_dir;

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
        .get_or_init(|| install_node_packages(&tools_root(), &["phaser", "pixi.js"], "engines"))
        .as_ref()
        .or_else(|| missing("node, npm or ../shared/tools/engines is absent"))
}

/// Spine's runtime core (`@esotericsoftware/spine-core`, whose `TextureAtlas` reads libGDX's
/// atlas format), from the repository's own `tests/engines/package.json`; `None` (skip)
/// without node or npm.
pub fn spine() -> Option<&'static NodeEngines> {
    static SPINE: OnceLock<Option<NodeEngines>> = OnceLock::new();
    let own = own_script("");
    SPINE
        .get_or_init(|| install_node_packages(&own, &["@esotericsoftware/spine-core"], "engines-own"))
        .as_ref()
        .or_else(|| missing("node or npm is absent"))
}

/// Copies the scripts of `source` (a folder with a `package.json`) to `target/tmp/NAME` and
/// runs `npm install` there when `packages` are not installed yet. The copy is made in a
/// fresh folder and renamed into place, so two test processes never see half an install.
fn install_node_packages(source: &Path, packages: &[&str], name: &str) -> Option<NodeEngines> {
    let (node, npm) = (on_path("node")?, on_path("npm")?);
    if !source.join("package.json").is_file() {
        return None;
    }
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let installed = |d: &Path| packages.iter().all(|p| d.join("node_modules").join(p).is_dir());
    if !installed(&dir) {
        let staging = dir.with_file_name(format!("{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&staging);
        copy_dir(source, &staging);
        let mut install = Command::new(npm);
        install.current_dir(&staging).args(["install", "--no-audit", "--no-fund", "--loglevel=error"]);
        let o = run(install, &format!("npm install in {}", source.display()));
        assert!(o.status.success(), "npm install failed: {}", String::from_utf8_lossy(&o.stderr));
        if std::fs::rename(&staging, &dir).is_err() {
            // Another process installed it first: use theirs.
            let _ = std::fs::remove_dir_all(&staging);
            assert!(installed(&dir), "{} has no complete install", dir.display());
        }
    }
    Some(NodeEngines { node, dir })
}

/// The repository's own engine scripts (`tests/engines/NAME`).
pub fn own_script(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/engines").join(name)
}

/// The JSON line a script printed last.
fn last_json(o: &Output, what: &str) -> Value {
    let stdout = String::from_utf8_lossy(&o.stdout);
    let last = stdout.lines().rev().find(|l| l.trim_start().starts_with('{'));
    let last = last.unwrap_or_else(|| panic!("{what} printed no JSON: {stdout}{}", String::from_utf8_lossy(&o.stderr)));
    serde_json::from_str(last).unwrap_or_else(|e| panic!("{what} printed bad JSON ({e}): {last}"))
}

impl NodeEngines {
    /// Runs `script` (`pixi_check.mjs`, `phaser_check.cjs`, `phaser_ase.cjs`) on a sheet JSON
    /// and returns the JSON it prints last, with whether it exited 0.
    pub fn check(&self, script: &str, json: &Path) -> (bool, Value) {
        self.run_script(&self.dir.join(script), &[json.as_os_str()])
    }

    /// Runs the repository's script `tests/engines/NAME` on `arg` from the install (an ES
    /// module's imports resolve against the folder it is in), copied there afresh so that an
    /// edit of it is what runs: the JSON it prints last, with whether it exited 0.
    pub fn check_own(&self, name: &str, arg: &Path) -> (bool, Value) {
        let copy = self.dir.join(format!("{}-{}", std::process::id(), name));
        std::fs::copy(own_script(name), &copy).unwrap_or_else(|e| panic!("copying {name}: {e}"));
        let result = self.run_script(&copy, &[arg.as_os_str()]);
        let _ = std::fs::remove_file(copy);
        result
    }

    /// Runs a script at any path with `args`, in the engines folder (scripts there find the
    /// npm packages from it): the JSON it prints last, with whether it exited 0.
    pub fn run_script(&self, script: &Path, args: &[&std::ffi::OsStr]) -> (bool, Value) {
        let mut command = Command::new(&self.node);
        command.arg(script).args(args).current_dir(&self.dir);
        let what = format!("node {} {args:?}", script.display());
        let o = run(command, &what);
        (o.status.success(), last_json(&o, &what))
    }
}

/// What Godot 3 saw in a `SpriteFrames` resource.
#[derive(Debug, PartialEq, Eq)]
pub struct GodotFrames {
    /// Number of animations.
    pub animations: usize,
    /// Frames over all animations.
    pub frames: usize,
    /// The first animation's name (Godot sorts them).
    pub first: String,
}

/// `godot3-server` on `PATH` with the tools' Godot project (`../shared/tools/engines/godot3`,
/// whose `check.gd` every Godot test loads); `None` (skip) without either.
pub fn godot3() -> Option<PathBuf> {
    let Some(godot) = on_path("godot3-server") else {
        return missing("godot3-server is not on PATH (apt-get install godot3-server)");
    };
    if !tools_root().join("godot3/project.godot").is_file() {
        return missing("../shared/tools/engines/godot3 is absent (the shared folder beside the clone)");
    }
    Some(godot)
}

/// A fresh Godot 3 project under `work` (the tools' `godot3` folder) with `files` copied into
/// its folder `folder` (`""`: the root).
fn godot3_project(work: &Path, folder: &str, files: &[&Path]) -> PathBuf {
    let project = work.join("godot3-project");
    let _ = std::fs::remove_dir_all(&project);
    copy_dir(&tools_root().join("godot3"), &project);
    std::fs::create_dir_all(project.join(folder)).unwrap();
    for file in files {
        std::fs::copy(file, project.join(folder).join(file.file_name().unwrap())).unwrap();
    }
    project
}

/// `godot3-server` on `project` with `args`, its user data and settings kept under `work`.
fn godot3_command(godot: &Path, project: &Path, work: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(godot);
    command
        .arg("--path")
        .arg(project)
        .args(args)
        // Godot writes its user data and editor settings under HOME: keep them in the test folder.
        .env("HOME", work)
        .env("XDG_DATA_HOME", work.join("xdg-data"))
        .env("XDG_CONFIG_HOME", work.join("xdg-config"));
    command
}

/// Loads `tres` (a `.tres` naming its images as `res://NAME`) in headless Godot 3 from a
/// project folder under `work` holding the resource and `images`.
pub fn godot3_load(godot: &Path, work: &Path, tres: &Path, images: &[PathBuf]) -> Result<GodotFrames, String> {
    let files: Vec<&Path> = images.iter().map(PathBuf::as_path).chain([tres]).collect();
    let project = godot3_project(work, "", &files);
    let mut command = godot3_command(godot, &project, work, &["-s", "check.gd"]);
    command.env("TRES", format!("res://{}", tres.file_name().unwrap().to_string_lossy()));
    let o = run(command, "godot3-server");
    let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
    let line = stdout.lines().find(|l| l.starts_with("animations="));
    let Some(line) = line.filter(|_| o.status.success()) else {
        return Err(format!("{stdout}{}", String::from_utf8_lossy(&o.stderr)));
    };
    let field = |name: &str| line.split_whitespace().find_map(|w| w.strip_prefix(name)).unwrap_or_default().to_string();
    Ok(GodotFrames {
        animations: field("animations=").parse().unwrap(),
        frames: field("frames=").parse().unwrap(),
        first: field("first="),
    })
}

/// Puts `tres` and `images` in the folder `folder` of a Godot 3 project under `work`, imports
/// the images as the editor does when the project opens (`--editor --quit`: they load as the
/// game's textures, at their real size), and returns what `tests/engines/godot3_frames.gd`
/// prints: every animation with its loop, speed and frames (name, size, region, margin, atlas
/// path and size).
pub fn godot3_inspect(godot: &Path, work: &Path, folder: &str, tres: &Path, images: &[&Path]) -> Value {
    godot3_script(godot, work, folder, ("godot3_frames.gd", "TRES", None), tres, images)
}

/// As [`godot3_inspect`] for a scene `tscn` with the files it loads (its `.tres`, the images):
/// what `tests/engines/godot3_scene.gd` prints of its sprite node (type, animation, playing,
/// centered, offset, flip_h, first frame's size); with `play`, after the node has played that
/// animation in the scene tree for two frames.
pub fn godot3_scene(godot: &Path, work: &Path, tscn: &Path, files: &[&Path], play: Option<&str>) -> Value {
    let env = play.map(|name| ("PLAY", name));
    godot3_script(godot, work, "", ("godot3_scene.gd", "SCENE", env), tscn, files)
}

/// Runs our script `script.0` on `resource` (in `folder` of a fresh project with `files`, the
/// images imported first), naming it in the variable `script.1`, with the variable `script.2`
/// if any; its last JSON line.
fn godot3_script(
    godot: &Path,
    work: &Path,
    folder: &str,
    (script, variable, extra): (&str, &str, Option<(&str, &str)>),
    resource: &Path,
    files: &[&Path],
) -> Value {
    let all: Vec<&Path> = files.iter().copied().chain([resource]).collect();
    let project = godot3_project(work, folder, &all);
    std::fs::copy(own_script(script), project.join(script)).unwrap();
    let o = run(godot3_command(godot, &project, work, &["--editor", "--quit"]), "godot3-server --editor --quit");
    assert!(o.status.success(), "importing the images: {}", String::from_utf8_lossy(&o.stderr));
    let mut command = godot3_command(godot, &project, work, &["-s", script]);
    let name = resource.file_name().unwrap().to_string_lossy();
    command.env(variable, format!("res://{}", Path::new(folder).join(&*name).to_string_lossy()));
    command.envs(extra);
    let o = run(command, &format!("godot3-server -s {script}"));
    assert!(o.status.success(), "Godot 3 could not load {name}: {}", String::from_utf8_lossy(&o.stdout));
    last_json(&o, script)
}
