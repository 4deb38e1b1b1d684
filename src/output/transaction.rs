//! Transactional writes: all of a command's outputs appear together, or none does.
//!
//! [`Transaction::stage`] writes each output to a temporary file in its destination folder,
//! created exclusively with an unpredictable name (see "Temporary files" below), so a symlink
//! planted at a guessable name cannot redirect the write. [`Transaction::commit`] renames every
//! staged file into place once all of them are complete; dropping a transaction without
//! committing removes its temporary files and the folders it created. (The previous scheme,
//! `.name.PID.N.tmp` opened with `File::create`, was predictable and followed a planted
//! symlink; it is gone.)
//!
//! Interrupts: temporary files and created folders are also listed in a process-wide registry,
//! and commits run under a process-wide lock. [`stop_writing`], called from a SIGINT / SIGTERM
//! / SIGHUP handler, takes the lock (so a commit in progress finishes whole: never a sheet PNG
//! without its JSON), removes everything registered and keeps both locks until the process
//! exits, so nothing new can be staged or committed behind its back.
//!
//! Other processes: a commit also holds an exclusive advisory lock (`flock`) on every folder it
//! renames into, so two spritebake processes writing one output commit one after the other,
//! never interleaved (never a sheet with pages of both). The locks are taken in one order
//! (canonical paths, sorted), so two commits never wait for each other in a cycle, and they are
//! on the folders themselves, so no lock file is left behind. [`Transaction::commit_then`] runs
//! a step under the same locks, for work that must see the folder as this commit left it
//! (removing the files an earlier run wrote and this one did not). A folder that cannot be
//! opened (no read permission; Windows, where folders do not open as files) is committed into
//! without its lock.
//!
//! Temporary files are named `.spritebake-HOST-PID-START-XXXXXX.tmp`: PID and START name the
//! process that owns it (START is its start time in clock ticks after boot, field 22 of
//! `/proc/PID/stat`, so a PID used again by a later process is not taken for the owner), HOST
//! the boot of the machine and the PID namespace they are counted in (8 hex digits of a hash of
//! `/proc/sys/kernel/random/boot_id` and the `/proc/self/ns/pid` link), and XXXXXX is random.
//! A process killed with SIGKILL cannot remove its temporaries, so the first time a process
//! stages into a folder it removes the temporaries there whose owner is gone: same HOST, owned
//! by the same user as ours, and no process PID that started at START. Temporaries of another
//! machine, boot, container or user, and names in other forms, are left alone: whether their
//! owner lives cannot be told from here. Without `/proc` (systems other than Linux), nothing is
//! swept.
//!
//! Missing parent folders are created when the first file is staged into them, for every
//! command alike (as `mkdir -p` would), and removed again if the transaction is abandoned.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, OnceLock};

use tempfile::TempPath;

use crate::error::{Error, Result};

/// Temporary files and created folders of transactions not yet committed.
static LIVE: Mutex<Live> = Mutex::new(Live::new());
/// Held while a transaction renames its files into place.
static COMMIT: Mutex<()> = Mutex::new(());
/// Folders this process has swept of dead owners' temporary files.
static SWEPT: Mutex<BTreeSet<PathBuf>> = Mutex::new(BTreeSet::new());

fn lock<T>(m: &'static Mutex<T>) -> MutexGuard<'static, T> {
    // A panic elsewhere must not stop cleanup: the data (a list of paths) stays valid.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The registry of [`LIVE`]: each path under the number it was registered with. Numbers
/// only grow, so the map's order is creation order; a path is unregistered by its number, not
/// looked for, so a transaction of thousands of files (an HTML report's images) commits in
/// time linear in its files (a list searched for each path made it quadratic).
struct Live {
    next: u64,
    paths: BTreeMap<u64, PathBuf>,
}

impl Live {
    const fn new() -> Live {
        Live { next: 0, paths: BTreeMap::new() }
    }

    /// Registers `path`; the number unregisters it.
    fn register(&mut self, path: PathBuf) -> u64 {
        let id = self.next;
        self.next += 1;
        self.paths.insert(id, path);
        id
    }

    fn unregister(&mut self, id: u64) {
        self.paths.remove(&id);
    }

    /// Takes every registered path out, newest first.
    fn drain_newest_first(&mut self) -> impl Iterator<Item = PathBuf> {
        std::mem::take(&mut self.paths).into_values().rev()
    }
}

fn unregister(id: u64) {
    lock(&LIVE).unregister(id);
}

/// Removes a file or (empty) folder; which one it is does not need remembering.
fn remove(path: &Path) {
    if fs::remove_file(path).is_err() {
        let _ = fs::remove_dir(path);
    }
}

/// Proof that writing has stopped: while it lives no transaction can stage or commit.
#[must_use = "writing resumes when this is dropped; hold it until the process exits"]
pub struct WritesStopped {
    _commit: MutexGuard<'static, ()>,
    _live: MutexGuard<'static, Live>,
}

/// Waits for a commit in progress to finish, removes every temporary file and created folder
/// of uncommitted transactions, and blocks all further writes while the result lives. For
/// interrupt handlers: call it, then exit the process.
pub fn stop_writing() -> WritesStopped {
    let commit = lock(&COMMIT);
    let mut live = lock(&LIVE);
    // Newest first: temporary files go before the folders that hold them.
    for path in live.drain_newest_first() {
        remove(&path);
    }
    WritesStopped { _commit: commit, _live: live }
}

/// This process as its temporary files' names give it (see the module notes).
struct Owner {
    /// HOST; `None` without `/proc`.
    host: Option<String>,
    pid: u32,
    /// START; `None` without `/proc`.
    start: Option<u64>,
}

fn owner() -> &'static Owner {
    static OWNER: OnceLock<Owner> = OnceLock::new();
    OWNER.get_or_init(|| {
        let pid = std::process::id();
        Owner { host: host(), pid, start: start_time(pid) }
    })
}

/// HOST: the boot and PID namespace that PIDs and start times are counted in.
fn host() -> Option<String> {
    let boot = fs::read_to_string("/proc/sys/kernel/random/boot_id").ok()?;
    let namespace = fs::read_link("/proc/self/ns/pid").ok()?;
    let mut hasher = blake3::Hasher::new();
    hasher.update(boot.trim().as_bytes());
    hasher.update(namespace.as_os_str().as_encoded_bytes());
    let [a, b, c, d, ..] = *hasher.finalize().as_bytes();
    Some(format!("{:08x}", u32::from_be_bytes([a, b, c, d])))
}

/// START of process `pid`: field 22 of `/proc/PID/stat`, counted after the last `)` because
/// the name in field 2 may hold spaces and parentheses (field 3 is the first after it).
fn start_time(pid: u32) -> Option<u64> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (_, fields) = stat.rsplit_once(')')?;
    fields.split_whitespace().nth(22 - 3)?.parse().ok()
}

/// HOST, PID and START of a temporary file named in this module's form.
fn owner_of(name: &str) -> Option<(&str, u32, u64)> {
    let mut parts = name.strip_prefix(".spritebake-")?.strip_suffix(".tmp")?.split('-');
    let host = parts.next()?;
    let pid = parts.next()?.parse().ok()?;
    let start = parts.next()?.parse().ok()?;
    // The random part (alphanumeric), and nothing after it.
    (parts.next().is_some() && parts.next().is_none()).then_some((host, pid, start))
}

/// Removes the temporary files in `dir` whose owner is gone (see the module notes), once per
/// folder and process; `ours` is a file this process just created there, for its user.
fn sweep(dir: &Path, ours: &fs::Metadata) {
    let Owner { host: Some(host), start: Some(_), .. } = owner() else { return };
    if !lock(&SWEPT).insert(dir.to_path_buf()) {
        return;
    }
    let Ok(entries) = fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some((their_host, pid, start)) = name.to_str().and_then(owner_of) else { continue };
        if their_host != host || start_time(pid) == Some(start) {
            continue;
        }
        // Regular files only: a link of that name is neither followed nor removed.
        if entry.metadata().is_ok_and(|m| m.is_file() && same_user(&m, ours)) {
            let _ = fs::remove_file(entry.path());
        }
    }
}

#[cfg(unix)]
fn same_user(a: &fs::Metadata, b: &fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.uid() == b.uid()
}

#[cfg(not(unix))]
fn same_user(_: &fs::Metadata, _: &fs::Metadata) -> bool {
    false
}

/// Temporary files named `.spritebake-HOST-PID-START-XXXXXX.tmp` (XXXXXX random), created
/// exclusively.
fn temp_builder() -> tempfile::Builder<'static, 'static> {
    static PREFIX: OnceLock<String> = OnceLock::new();
    let prefix = PREFIX.get_or_init(|| {
        let Owner { host, pid, start } = owner();
        format!(".spritebake-{}-{pid}-{}-", host.as_deref().unwrap_or("00000000"), start.unwrap_or(0))
    });
    let mut builder = tempfile::Builder::new();
    builder.prefix(prefix).suffix(".tmp");
    // tempfile's default is 0600; outputs get the usual permissions (0666 less the umask),
    // as a file created by any other tool would.
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    builder
}

/// The folder a file is written in.
fn folder_of(path: &Path) -> &Path {
    path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."))
}

/// Exclusive advisory locks on the folders holding `files` (see the module notes), taken in
/// sorted order of their canonical paths; released when the result is dropped.
fn lock_folders<'a>(files: impl IntoIterator<Item = &'a Path>) -> Vec<fs::File> {
    let folders: BTreeSet<PathBuf> = files.into_iter().filter_map(|f| fs::canonicalize(folder_of(f)).ok()).collect();
    folders
        .iter()
        .filter_map(|dir| {
            let handle = fs::File::open(dir).ok()?;
            handle.lock().ok()?;
            Some(handle)
        })
        .collect()
}

/// A temporary file of a transaction (`id` in [`LIVE`]): removed and unregistered when
/// dropped.
struct Staged {
    temp: Option<TempPath>,
    dest: PathBuf,
    id: u64,
}

impl Drop for Staged {
    fn drop(&mut self) {
        if let Some(temp) = self.temp.take() {
            let _ = temp.close(); // remove first: an interrupt in between still finds it listed
            unregister(self.id);
        }
    }
}

/// A set of outputs written all together (see the module notes).
#[derive(Default)]
#[must_use = "nothing is written until commit() is called"]
pub struct Transaction {
    staged: Vec<Staged>,
    /// Folders created, each with its number in [`LIVE`].
    created: Vec<(PathBuf, u64)>,
}

impl Transaction {
    /// An empty transaction.
    pub fn new() -> Transaction {
        Transaction::default()
    }

    /// Writes `bytes` to a new temporary file in `dest`'s folder (creating missing folders).
    ///
    /// # Errors
    /// A folder cannot be created, or the temporary file cannot be created or written.
    pub fn stage(&mut self, dest: &Path, bytes: &[u8]) -> Result<()> {
        let dir = folder_of(dest);
        let (mut file, id) = {
            // Folders and file are created and registered under the registry's lock: an
            // interrupt either sees them or stops them from being created, and another
            // transaction of a batch cannot remove a folder it made between the two steps.
            let mut live = lock(&LIVE);
            self.create_folders(dir, &mut live)?;
            let file = temp_builder().tempfile_in(dir).map_err(|e| Error::io(dir, e))?;
            let id = live.register(file.path().to_path_buf());
            (file, id)
        };
        if let Ok(ours) = file.as_file().metadata() {
            sweep(dir, &ours);
        }
        // Through the file itself: tempfile's own writer adds the temporary name to errors.
        let handle = file.as_file_mut();
        let written = handle.write_all(bytes).and_then(|()| handle.flush());
        // Closed now (a frames job may stage thousands of files), removed on drop.
        let staged = Staged { temp: Some(file.into_temp_path()), dest: dest.to_path_buf(), id };
        written.map_err(|e| Error::io(dest, e))?;
        self.staged.push(staged);
        Ok(())
    }

    /// Creates the missing folders above a staged file, remembering each one created.
    fn create_folders(&mut self, dir: &Path, live: &mut Live) -> Result<()> {
        let missing: Vec<&Path> = dir.ancestors().take_while(|d| !d.as_os_str().is_empty() && !d.exists()).collect();
        for folder in missing.into_iter().rev() {
            match fs::create_dir(folder) {
                Ok(()) => {
                    let id = live.register(folder.to_path_buf());
                    self.created.push((folder.to_path_buf(), id));
                }
                // Another item of a batch made it first: it is not ours to remove.
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && folder.is_dir() => {}
                Err(e) => return Err(Error::io(folder, e)),
            }
        }
        Ok(())
    }

    /// Renames every staged file into place, under the commit lock and the locks of their
    /// folders.
    ///
    /// # Errors
    /// A rename fails (a destination became a folder since it was planned, the disk went away);
    /// the files not yet renamed are removed. Renames already done stay: the plan checked
    /// every destination beforehand, so this is a race with another process.
    pub fn commit(self) -> Result<()> {
        self.commit_then(&[], || ())
    }

    /// [`Transaction::commit`], then `then` while the locks are still held: the folders of the
    /// staged files and of the files in `also`, and the commit lock (an interrupt waits for
    /// `then` to finish too).
    ///
    /// # Errors
    /// As [`Transaction::commit`]; `then` does not run.
    pub fn commit_then<R>(mut self, also: &[&Path], then: impl FnOnce() -> R) -> Result<R> {
        let dests: Vec<PathBuf> = self.staged.iter().map(|s| s.dest.clone()).collect();
        let _folders = lock_folders(dests.iter().map(PathBuf::as_path).chain(also.iter().copied()));
        let _commit = lock(&COMMIT);
        for mut staged in std::mem::take(&mut self.staged) {
            let Some(temp) = staged.temp.take() else { continue };
            let result = temp.persist(&staged.dest);
            unregister(staged.id);
            if let Err(e) = result {
                let _ = e.path.close();
                return Err(Error::io(&staged.dest, e.error));
            }
        }
        // The folders now hold outputs: they stay.
        for (_, id) in std::mem::take(&mut self.created) {
            unregister(id);
        }
        Ok(then())
    }
}

impl Drop for Transaction {
    fn drop(&mut self) {
        self.staged.clear();
        let mut live = lock(&LIVE);
        for (folder, id) in self.created.drain(..).rev() {
            let _ = fs::remove_dir(&folder); // fails, as it should, if another item wrote there
            live.unregister(id);
        }
    }
}

/// Writes one file through a one-file [`Transaction`]: readers see the old file or the whole
/// new one, never a partial write, and a failure leaves nothing behind.
///
/// # Errors
/// As [`Transaction::stage`] and [`Transaction::commit`].
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut transaction = Transaction::new();
    transaction.stage(path, bytes)?;
    transaction.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("spritebake-transaction-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn listing(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> =
            fs::read_dir(dir).unwrap().flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect();
        names.sort();
        names
    }

    #[test]
    fn nothing_appears_until_commit_and_all_appears_at_once() {
        let dir = scratch("commit");
        let mut t = Transaction::new();
        t.stage(&dir.join("a.png"), b"A").unwrap();
        t.stage(&dir.join("sub/deeper/b.json"), b"B").unwrap();
        // Staged: only temporary files, with unpredictable names.
        let staged = listing(&dir);
        assert!(staged.contains(&"sub".to_string()) && !staged.contains(&"a.png".to_string()), "{staged:?}");
        assert!(staged.iter().any(|n| n.starts_with(".spritebake-") && n.ends_with(".tmp")), "{staged:?}");
        t.commit().unwrap();
        assert_eq!(listing(&dir), ["a.png", "sub"]);
        assert_eq!(listing(&dir.join("sub/deeper")), ["b.json"]);
        assert_eq!(fs::read(dir.join("sub/deeper/b.json")).unwrap(), b"B");
        // Outputs get the permissions any other tool's new file gets (umask), not 0600.
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::write(dir.join("plain"), b"").unwrap();
            let mode = |name: &str| fs::metadata(dir.join(name)).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode("a.png"), mode("plain"));
        }
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn the_registry_unregisters_by_number_and_drains_newest_first() {
        let mut live = Live::new();
        let ids: Vec<u64> = ["a", "b", "a", "c"].iter().map(|p| live.register(PathBuf::from(p))).collect();
        // The first "a" goes, not the later one of the same name: each entry is its own.
        live.unregister(ids[0]);
        live.unregister(ids[0]);
        assert_eq!(live.paths.len(), 3);
        let drained: Vec<PathBuf> = live.drain_newest_first().collect();
        assert_eq!(drained, [PathBuf::from("c"), PathBuf::from("a"), PathBuf::from("b")]);
        assert!(live.paths.is_empty());
    }

    #[test]
    fn a_commit_of_many_files_unregisters_each_of_them() {
        let dir = scratch("many");
        let mut t = Transaction::new();
        for i in 0..500 {
            t.stage(&dir.join(format!("{i}/f.png")), b"x").unwrap();
        }
        let registered = |dir: &Path| lock(&LIVE).paths.values().filter(|p| p.starts_with(dir)).count();
        assert_eq!(registered(&dir), 1000, "each folder and temporary file is registered");
        t.commit().unwrap();
        assert_eq!(registered(&dir), 0);
        assert_eq!(listing(&dir).len(), 500);
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn an_abandoned_transaction_leaves_nothing_behind() {
        let dir = scratch("abandon");
        fs::write(dir.join("old.png"), b"old").unwrap();
        {
            let mut t = Transaction::new();
            t.stage(&dir.join("old.png"), b"new").unwrap();
            t.stage(&dir.join("made/for/it.png"), b"x").unwrap();
        }
        assert_eq!(listing(&dir), ["old.png"]);
        assert_eq!(fs::read(dir.join("old.png")).unwrap(), b"old");
        assert!(lock(&LIVE).paths.values().all(|p| !p.starts_with(&dir)));
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_failed_rename_leaves_no_temporary_file() {
        let dir = scratch("fail");
        // Renaming a file onto a non-empty folder fails after the data was written.
        fs::create_dir_all(dir.join("occupied/keep")).unwrap();
        assert!(write_atomic(&dir.join("occupied"), b"data").is_err());
        assert_eq!(listing(&dir), ["occupied"]);
        write_atomic(&dir.join("ok.bin"), b"data").unwrap();
        assert_eq!(listing(&dir), ["occupied", "ok.bin"]);
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn temporaries_of_dead_owners_are_swept_and_live_ones_kept() {
        let dir = scratch("sweep");
        let me = owner();
        let (Some(host), Some(start)) = (me.host.as_deref(), me.start) else { return }; // no /proc: nothing swept
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        let other_host = if host == "00000001" { "00000002" } else { "00000001" };
        let pid = me.pid;
        let dead_owner = format!(".spritebake-{host}-{dead}-{start}-abc123.tmp");
        let reused_pid = format!(".spritebake-{host}-{pid}-{}-abc123.tmp", start + 1);
        let live = format!(".spritebake-{host}-{pid}-{start}-abc123.tmp");
        let elsewhere = format!(".spritebake-{other_host}-{dead}-{start}-abc123.tmp");
        let old_form = ".spritebake-abc123.tmp".to_string();
        for name in [&dead_owner, &reused_pid, &live, &elsewhere, &old_form] {
            fs::write(dir.join(name), b"x").unwrap();
        }
        // A link named like a dead owner's temporary: neither it nor its target is touched.
        fs::write(dir.join("target.png"), b"keep").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(dir.join("target.png"), dir.join(format!(".spritebake-{host}-{dead}-1-lnk.tmp")))
            .unwrap();
        write_atomic(&dir.join("out.png"), b"new").unwrap();
        let mut kept = vec![elsewhere, old_form, live, "out.png".into(), "target.png".into()];
        if cfg!(unix) {
            // A link is not a regular file: left alone.
            kept.push(format!(".spritebake-{host}-{dead}-1-lnk.tmp"));
        }
        kept.sort();
        assert_eq!(listing(&dir), kept);
        assert_eq!(fs::read(dir.join("target.png")).unwrap(), b"keep");
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn owners_are_read_from_names_of_this_form_only() {
        assert_eq!(owner_of(".spritebake-0a1b2c3d-42-1234-Xy9Ab0.tmp"), Some(("0a1b2c3d", 42, 1234)));
        for name in [".spritebake-Xy9Ab0.tmp", ".spritebake-h-42-x-Xy9Ab0.tmp", ".spritebake-h-42-1-a-b.tmp", "a.png"] {
            assert_eq!(owner_of(name), None, "{name}");
        }
        // Its own name parses back to itself.
        let dir = scratch("own-name");
        let mut t = Transaction::new();
        t.stage(&dir.join("a.png"), b"A").unwrap();
        let names = listing(&dir);
        let me = owner();
        let parsed = names.first().and_then(|n| owner_of(n)).map(|(_, pid, start)| (pid, start));
        assert_eq!(parsed, Some((me.pid, me.start.unwrap_or(0))), "{names:?}");
        drop(t);
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_commit_waits_for_the_lock_on_its_folder() {
        let dir = scratch("folder-lock");
        // Another process's commit, as far as flock can tell: a lock through another open file.
        let held = fs::File::open(&dir).unwrap();
        held.lock().unwrap();
        let dest = dir.join("a.png");
        let writer = {
            let dest = dest.clone();
            std::thread::spawn(move || write_atomic(&dest, b"A"))
        };
        std::thread::sleep(std::time::Duration::from_millis(300));
        assert!(!dest.exists(), "committed while another held the folder's lock");
        held.unlock().unwrap();
        writer.join().unwrap().unwrap();
        assert_eq!(fs::read(&dest).unwrap(), b"A");
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_step_after_the_commit_runs_under_its_locks() {
        let dir = scratch("then");
        fs::write(dir.join("old-0.png"), b"old").unwrap();
        let mut t = Transaction::new();
        t.stage(&dir.join("new.png"), b"new").unwrap();
        let removed = t
            .commit_then(&[], || {
                // The folder is locked: another open file cannot take it.
                let other = fs::File::open(&dir).unwrap();
                assert!(other.try_lock().is_err(), "the folder was not locked");
                fs::remove_file(dir.join("old-0.png")).is_ok()
            })
            .unwrap();
        assert!(removed);
        assert_eq!(listing(&dir), ["new.png"]);
        fs::remove_dir_all(dir).unwrap();
    }
}
