//! Confined reads: the one way spritebake opens a file that a model, a manifest or the user names.
//!
//! Paths written inside untrusted files (OBJ `mtllib`, glTF buffers and images, texture names,
//! manifest keys) are judged by a [`Confinement`]: taken relative to the naming file's folder,
//! canonicalized (so every symbolic link is followed first and the place it leads to is judged),
//! and accepted only when they land inside that folder or a folder the user allowed with a flag
//! (`--texture-root` for models, `--allow-dir` for manifests). Paths the user typed on the
//! command line go anywhere, but through the same [`Reader`].
//!
//! The [`Reader`] opens regular files only, and never blocks on anything else: the metadata of
//! the canonical path is checked first, then the file is opened with `O_NONBLOCK | O_NOFOLLOW`
//! and checked again through the open handle (same device and inode, still a regular file), so a
//! FIFO or a symbolic link swapped in between cannot hang the read or redirect it. Every read is
//! bounded by `--max-file-mib` before it starts, and each file is read at most once per load (a
//! cache by canonical path), so a model naming one file many times costs one read. Every path
//! asked for, read or refused, is remembered: that list becomes [`crate::model::Model::sources`],
//! which keeps outputs off inputs.
//!
//! Rejected alternative: checking names lexically (no `..`, not absolute), as texture names
//! were before. It cannot see symbolic links inside the folder that point out of it, and says
//! nothing about FIFOs or devices, which hang or flood a plain `read`.

use std::collections::HashMap;
use std::fmt;
use std::fs::{File, Metadata};
use std::io::Read;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use crate::error::Error;

/// The folders paths named by one file (a model or a manifest) may lead into.
#[derive(Debug, Clone)]
pub struct Confinement {
    /// Each allowed folder as named (absolute, `..` folded) and canonical; the first is home.
    folders: Vec<(PathBuf, PathBuf)>,
    /// The home folder as the caller gave it (messages and lookups keep the caller's spelling).
    given: PathBuf,
    /// What the home folder is ("the model's folder") and the flag that allows others.
    home: &'static str,
    flag: &'static str,
}

/// Why a path was not read.
#[derive(Debug)]
pub enum Denied {
    /// Nothing readable is there (the caller decides whether that is an error or a fallback).
    Missing(std::io::Error),
    /// The path leads outside every allowed folder.
    Outside {
        /// Where it leads (canonical when it exists).
        target: PathBuf,
        /// The name stays inside but a symbolic link on the way leads out.
        through_link: bool,
        /// The allowed folders, for the message.
        allowed: String,
    },
    /// A FIFO, device, socket or folder where a file was expected.
    NotRegular(&'static str),
    /// Larger than the read limit.
    TooLarge {
        /// Bytes in the file.
        bytes: u64,
        /// The limit.
        limit: u64,
    },
    /// The file changed between the check and the open (another file was swapped in).
    Changed,
}

impl fmt::Display for Denied {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Denied::Missing(e) => write!(f, "could not be read: {e}"),
            Denied::Outside { target, through_link: true, allowed } => {
                write!(f, "refused: a symbolic link leads it to {}, outside {allowed}", target.display())
            }
            Denied::Outside { target, through_link: false, allowed } => {
                write!(f, "refused: it leads to {}, outside {allowed}", target.display())
            }
            Denied::NotRegular(kind) => write!(f, "refused: it is a {kind}, not a regular file"),
            Denied::TooLarge { bytes, limit } => {
                write!(f, "refused: it is {bytes} bytes, over the {limit} byte limit (raise it with --max-file-mib)")
            }
            Denied::Changed => write!(f, "refused: it was replaced while being opened"),
        }
    }
}

impl Denied {
    /// True when nothing readable exists at the path (not a refusal by a rule).
    pub fn is_missing(&self) -> bool {
        matches!(self, Denied::Missing(_))
    }

    /// The library error for reading `path`, named `subject` in a refusal (e.g. "m.obj:
    /// material library 'x.mtl'").
    pub fn into_error(self, path: &Path, subject: impl fmt::Display) -> Error {
        match self {
            Denied::Missing(e) => Error::io(path, e),
            refused => Error::Refused(format!("{subject} {refused}")),
        }
    }
}

/// `path` made absolute against the working folder, with `.` and `..` folded by name only.
fn lexical(path: &Path) -> PathBuf {
    let path = lexical_input(path);
    let absolute = std::path::absolute(&path).unwrap_or(path);
    let mut out = PathBuf::new();
    for component in absolute.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// The canonical form of a path that may not exist yet: its deepest existing ancestor
/// canonicalized, plus the rest, which must be plain names (a `..` after a missing folder
/// cannot be judged, so it gives `None`).
pub fn canonical_lenient(path: &Path) -> Option<PathBuf> {
    let path = lexical_input(path);
    if let Ok(c) = std::fs::canonicalize(&path) {
        return Some(c);
    }
    let mut rest = Vec::new();
    for ancestor in path.ancestors() {
        // The last ancestor of a relative path is empty: the working folder.
        if let Ok(base) = std::fs::canonicalize(lexical_input(ancestor)) {
            let plain = rest.iter().all(|c: &Component| matches!(c, Component::Normal(_)));
            return plain.then(|| rest.iter().rev().fold(base, |p, c| p.join(c)));
        }
        rest.push(ancestor.components().next_back()?);
    }
    None
}

/// An empty path (the parent of a bare file name) means the working folder.
fn lexical_input(path: &Path) -> PathBuf {
    if path.as_os_str().is_empty() { PathBuf::from(".") } else { path.to_path_buf() }
}

fn kind_of(meta: &Metadata) -> Option<&'static str> {
    let t = meta.file_type();
    if t.is_file() {
        return None;
    }
    if t.is_dir() {
        return Some("folder");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return Some("FIFO");
        }
        if t.is_char_device() || t.is_block_device() {
            return Some("device");
        }
        if t.is_socket() {
            return Some("socket");
        }
    }
    Some("special file")
}

impl Confinement {
    /// Paths named by a model in `dir` stay in `dir` or one of `roots` (`--texture-root`).
    ///
    /// # Errors
    /// A root that does not exist.
    pub fn for_model(dir: &Path, roots: &[PathBuf]) -> crate::Result<Confinement> {
        Confinement::new(dir, "the model's folder", "--texture-root").allowing(roots)
    }

    /// Paths named by a manifest in `dir` stay in `dir` or a folder added with
    /// [`Confinement::allowing`] (`--allow-dir`).
    pub fn for_manifest(dir: &Path) -> Confinement {
        Confinement::new(dir, "the manifest's folder", "--allow-dir")
    }

    /// Paths named by a `bake` project file in `dir` (models, animations, textures,
    /// attachments, outputs) stay in `dir` or a folder added with [`Confinement::allowing`]
    /// (`--allow-dir`).
    pub fn for_project(dir: &Path) -> Confinement {
        Confinement::new(dir, "the project's folder", "--allow-dir")
    }

    /// The model files a folder scan (`thumbnail assets`) finds stay in the folder scanned: a
    /// symbolic link there to a file elsewhere is not read, as a link to a folder is not
    /// entered. No flag allows another folder: a model named on the command line is read
    /// wherever it is.
    pub fn for_scan(dir: &Path) -> Confinement {
        Confinement::new(dir, "the folder scanned", "")
    }

    fn new(dir: &Path, home: &'static str, flag: &'static str) -> Confinement {
        // A home folder that cannot be canonicalized holds nothing; judge by name alone.
        let named = lexical(dir);
        let canonical = std::fs::canonicalize(&named).unwrap_or_else(|_| named.clone());
        Confinement { folders: vec![(named, canonical)], given: lexical_input(dir), home, flag }
    }

    /// The same confinement also allowing `folders`.
    ///
    /// # Errors
    /// A folder that does not exist or is not a folder (a typo must not go unnoticed).
    pub fn allowing(mut self, folders: &[PathBuf]) -> crate::Result<Confinement> {
        for folder in folders {
            let canonical = std::fs::canonicalize(folder)
                .map_err(|e| Error::Invalid(format!("{} {}: {e}", self.flag, folder.display())))?;
            if !canonical.is_dir() {
                return Err(Error::Invalid(format!("{} {}: not a folder", self.flag, folder.display())));
            }
            self.folders.push((lexical(folder), canonical));
        }
        Ok(self)
    }

    /// The home folder as the caller gave it.
    pub fn home(&self) -> &Path {
        &self.given
    }

    fn contains(&self, canonical: &Path) -> bool {
        self.folders.iter().any(|(_, c)| canonical.starts_with(c))
    }

    fn contains_by_name(&self, path: &Path) -> bool {
        self.folders.iter().any(|(n, c)| path.starts_with(n) || path.starts_with(c))
    }

    fn allowed(&self) -> String {
        let home = self.folders.first().map(|(_, c)| c.display().to_string()).unwrap_or_default();
        let others = if self.folders.len() > 1 { format!(" and the {} folders", self.flag) } else { String::new() };
        let widen = match self.flag {
            "" => "name the file itself to read it wherever it is".to_string(),
            flag => format!("{flag} allows another folder"),
        };
        format!("{} {home}{others} ({widen})", self.home)
    }

    /// Where `path` leads if that is inside the allowed folders: its canonical path.
    fn judge_place(&self, path: &Path) -> Result<PathBuf, Denied> {
        let by_name = lexical(path);
        match std::fs::canonicalize(path) {
            Ok(target) if self.contains(&target) => Ok(target),
            Ok(target) => {
                Err(Denied::Outside { target, through_link: self.contains_by_name(&by_name), allowed: self.allowed() })
            }
            // A name that leaves the folders is refused whether or not it exists (so the
            // outcome does not depend on what is out there); inside, a link to a pipe is not a
            // file and anything else that does not resolve is missing.
            Err(_) if !self.contains_by_name(&by_name) => {
                Err(Denied::Outside { target: by_name, through_link: false, allowed: self.allowed() })
            }
            Err(e) => Err(unresolvable(path, e)),
        }
    }

    /// The canonical path of the regular file `path` leads to, if it is inside the allowed
    /// folders.
    ///
    /// # Errors
    /// Missing, outside the folders (symbolic links followed first), or not a regular file.
    pub fn file(&self, path: &Path) -> Result<PathBuf, Denied> {
        let target = self.judge_place(path)?;
        let meta = std::fs::metadata(&target).map_err(Denied::Missing)?;
        match kind_of(&meta) {
            None => Ok(target),
            Some(kind) => Err(Denied::NotRegular(kind)),
        }
    }

    /// The canonical path of a file or folder that may not exist yet (a golden before
    /// `--bless`), if it is inside the allowed folders; when it exists it must be a regular
    /// file or a folder.
    ///
    /// # Errors
    /// Outside the folders, a `..` below a missing folder, or an existing special file.
    pub fn place(&self, path: &Path) -> Result<PathBuf, Denied> {
        match self.judge_place(path) {
            Ok(target) => match std::fs::metadata(&target).map(|m| kind_of(&m)) {
                Ok(None | Some("folder")) => Ok(target),
                Ok(Some(kind)) => Err(Denied::NotRegular(kind)),
                Err(e) => Err(Denied::Missing(e)),
            },
            Err(Denied::Missing(_)) => {
                let target = canonical_lenient(path).ok_or_else(|| Denied::Outside {
                    target: lexical(path),
                    through_link: false,
                    allowed: self.allowed(),
                })?;
                if self.contains(&target) {
                    Ok(target)
                } else {
                    Err(Denied::Outside { target, through_link: true, allowed: self.allowed() })
                }
            }
            Err(denied) => Err(denied),
        }
    }
}

/// Whether a [`Reader`] keeps a file's bytes after handing them out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// Kept for later requests of the same file (the model, material libraries, buffers), so
    /// every request shares one read and one allocation.
    Bytes,
    /// Not kept: the caller keeps what it makes of them (textures are cached decoded, by
    /// canonical path), and the bytes are freed as soon as it drops them.
    Nothing,
}

/// Reads whole files for one load: regular files only, bounded, each at most once, every path
/// asked for remembered.
#[derive(Debug)]
pub struct Reader {
    max_bytes: u64,
    cache: HashMap<PathBuf, Arc<Vec<u8>>>,
    asked: Vec<PathBuf>,
}

impl Reader {
    /// A reader refusing files larger than `max_bytes`.
    pub fn new(max_bytes: u64) -> Reader {
        Reader { max_bytes, cache: HashMap::new(), asked: Vec::new() }
    }

    /// Judges a path named by untrusted data without reading it: its canonical path if
    /// `confinement` accepts it. The path is remembered either way. Callers that cache what
    /// they make of a file by canonical path use this to skip reading it again.
    ///
    /// # Errors
    /// See [`Confinement::file`].
    pub fn judge(&mut self, confinement: &Confinement, path: &Path) -> Result<PathBuf, Denied> {
        self.remember(path);
        confinement.file(path)
    }

    /// Reads a file named by untrusted data, after `confinement` accepted it.
    ///
    /// # Errors
    /// See [`Denied`].
    pub fn read_named(
        &mut self,
        confinement: &Confinement,
        path: &Path,
        keep: Keep,
    ) -> Result<(PathBuf, Arc<Vec<u8>>), Denied> {
        let canonical = self.judge(confinement, path)?;
        self.read_judged(canonical, Some(confinement), keep)
    }

    /// Reads a file the user named (command line): anywhere, but a regular file and bounded.
    ///
    /// # Errors
    /// Missing, not a regular file, too large.
    pub fn read_user(&mut self, path: &Path, keep: Keep) -> Result<(PathBuf, Arc<Vec<u8>>), Denied> {
        self.remember(path);
        self.read_judged(canonical_user_path(path)?, None, keep)
    }

    /// Reads the file at `canonical`, which [`Reader::judge`] accepted under `confinement`
    /// (`None` for a file the user named).
    ///
    /// # Errors
    /// Not a regular file, too large, or swapped since it was judged.
    pub fn read_judged(
        &mut self,
        canonical: PathBuf,
        confinement: Option<&Confinement>,
        keep: Keep,
    ) -> Result<(PathBuf, Arc<Vec<u8>>), Denied> {
        if let Some(bytes) = self.cache.get(&canonical) {
            return Ok((canonical, bytes.clone()));
        }
        let bytes = Arc::new(read_regular(&canonical, self.max_bytes, confinement)?);
        if keep == Keep::Bytes {
            self.cache.insert(canonical.clone(), bytes.clone());
        }
        Ok((canonical, bytes))
    }

    /// Every path asked for, canonical (or its canonical folder plus the missing name), sorted,
    /// without duplicates.
    pub fn into_sources(self) -> Vec<PathBuf> {
        let mut sources = self.asked;
        sources.sort();
        sources.dedup();
        sources
    }

    fn remember(&mut self, path: &Path) {
        if let Some(c) = canonical_lenient(path) {
            self.asked.push(c);
        }
    }
}

/// Reads the file the user named at `path` (anywhere, but a regular file, bounded by
/// `max_bytes`), without a [`Reader`]'s cache.
///
/// # Errors
/// Missing, not a regular file, too large.
pub fn read_user_file(path: &Path, max_bytes: u64) -> Result<Vec<u8>, Denied> {
    read_regular(&canonical_user_path(path)?, max_bytes, None)
}

/// Reads a whole file the user named: a regular file (never a FIFO or device, which could
/// block or never end), refusing files larger than `max_bytes` before reading them.
///
/// # Errors
/// The file is missing, unreadable, not a regular file or too large.
pub fn read_file(path: &Path, max_bytes: u64) -> crate::Result<Vec<u8>> {
    read_user_file(path, max_bytes).map_err(|d| d.into_error(path, path.display()))
}

/// The canonical path of a file the user named. A link that resolves to nothing on disk
/// (`/dev/stdin` of a pipe is `/proc/self/fd/0` → `pipe:[…]`) is not a regular file rather
/// than a missing one.
fn canonical_user_path(path: &Path) -> Result<PathBuf, Denied> {
    std::fs::canonicalize(path).map_err(|e| unresolvable(path, e))
}

/// Why `path` did not canonicalize: a link that still opens (a `/proc/self/fd` link to a pipe
/// or socket) is not a regular file; anything else is missing.
fn unresolvable(path: &Path, error: std::io::Error) -> Denied {
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) && path.exists() {
        Denied::NotRegular("link to a pipe or socket")
    } else {
        Denied::Missing(error)
    }
}

/// Opens without following a final symbolic link and without waiting for a FIFO writer.
fn open_nonblocking(path: &Path) -> std::io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW | libc::O_NOCTTY);
    }
    options.open(path)
}

#[cfg(unix)]
fn same_file(a: &Metadata, b: &Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    (a.dev(), a.ino()) == (b.dev(), b.ino())
}

#[cfg(not(unix))]
fn same_file(_: &Metadata, _: &Metadata) -> bool {
    true
}

/// Where the open handle really is (Linux): a folder on the way swapped for a link after the
/// path was judged shows here. `None` where the system does not say.
fn opened_location(file: &File) -> Option<PathBuf> {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        std::fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd())).ok()
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = file;
        None
    }
}

/// Opens the regular file at the canonical path `path`, refusing anything else, anything over
/// `max` bytes before reading, and (with `scope`) a handle that turns out to be outside it.
/// Returns the handle and the file's length.
fn open_regular(path: &Path, max: u64, scope: Option<&Confinement>) -> Result<(File, u64), Denied> {
    let checked = std::fs::metadata(path).map_err(Denied::Missing)?;
    if let Some(kind) = kind_of(&checked) {
        return Err(Denied::NotRegular(kind));
    }
    let file = open_nonblocking(path).map_err(Denied::Missing)?;
    let opened = file.metadata().map_err(Denied::Missing)?;
    if let Some(kind) = kind_of(&opened) {
        return Err(Denied::NotRegular(kind));
    }
    let moved_out = scope.is_some_and(|s| opened_location(&file).is_some_and(|at| !s.contains(&at)));
    if !same_file(&checked, &opened) || moved_out {
        return Err(Denied::Changed);
    }
    if opened.len() > max {
        return Err(Denied::TooLarge { bytes: opened.len(), limit: max });
    }
    Ok((file, opened.len()))
}

/// The length the metadata of the file at `path` (already judged) gives, 0 when there is none:
/// what a caller charges before reading the file whole (reading it then says what is wrong).
pub fn file_len(path: &Path) -> u64 {
    std::fs::metadata(path).map_or(0, |m| m.len())
}

/// Reads the regular file at the canonical path `path` (see [`open_regular`]).
fn read_regular(path: &Path, max: u64, scope: Option<&Confinement>) -> Result<Vec<u8>, Denied> {
    let (file, len) = open_regular(path, max, scope)?;
    // The length can still grow while reading: `take` keeps the bound.
    let mut bytes = Vec::with_capacity(len as usize);
    file.take(max.saturating_add(1)).read_to_end(&mut bytes).map_err(Denied::Missing)?;
    if bytes.len() as u64 > max {
        return Err(Denied::TooLarge { bytes: bytes.len() as u64, limit: max });
    }
    Ok(bytes)
}

impl Confinement {
    /// Reads the regular file `path` leads to inside the allowed folders, at most `max` bytes,
    /// handing it to `sink` a piece (64 KiB at most) at a time: for hashing large files without
    /// holding them. The same rules as every confined read (see the module notes).
    ///
    /// # Errors
    /// See [`Confinement::file`]; too large; a read error.
    pub fn read_chunks(&self, path: &Path, max: u64, sink: &mut dyn FnMut(&[u8])) -> Result<(), Denied> {
        let target = self.file(path)?;
        let (file, _) = open_regular(&target, max, Some(self))?;
        let mut limited = file.take(max.saturating_add(1));
        let mut buffer = vec![0u8; 64 << 10];
        let mut total = 0u64;
        loop {
            let n = match limited.read(&mut buffer) {
                Ok(0) => return Ok(()),
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(Denied::Missing(e)),
            };
            total += n as u64;
            if total > max {
                return Err(Denied::TooLarge { bytes: total, limit: max });
            }
            sink(buffer.get(..n).unwrap_or_default());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("spritebake-confine-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn each_file_is_read_once_per_reader() {
        let dir = scratch("once");
        let path = dir.join("a.mtl");
        std::fs::write(&path, b"first").unwrap();
        let scope = Confinement::for_model(&dir, &[]).unwrap();
        let mut reader = Reader::new(1 << 20);
        let (canonical, bytes) = reader.read_named(&scope, &path, Keep::Bytes).unwrap();
        assert_eq!(&bytes[..], b"first");
        // Rewritten: a second request (by another spelling of the same file, named or typed by
        // the user) gets the bytes read the first time, so the file was not read again.
        std::fs::write(&path, b"second").unwrap();
        let (_, again) = reader.read_named(&scope, &dir.join("./a.mtl"), Keep::Bytes).unwrap();
        assert_eq!(&again[..], b"first");
        let (_, user) = reader.read_user(&dir.join("a.mtl"), Keep::Nothing).unwrap();
        assert_eq!(&user[..], b"first");
        assert_eq!(reader.into_sources(), vec![canonical]);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn reads_are_bounded_before_they_start() {
        let dir = scratch("bounded");
        std::fs::write(dir.join("big.bin"), vec![7u8; 2048]).unwrap();
        let scope = Confinement::for_model(&dir, &[]).unwrap();
        let mut reader = Reader::new(1024);
        let e = reader.read_named(&scope, &dir.join("big.bin"), Keep::Bytes).unwrap_err();
        assert!(matches!(e, Denied::TooLarge { bytes: 2048, limit: 1024 }), "{e}");
        assert!(e.to_string().contains("--max-file-mib"), "{e}");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn links_out_of_the_folder_and_special_files_are_refused() {
        let root = scratch("links");
        let inside = root.join("model");
        std::fs::create_dir_all(&inside).unwrap();
        std::fs::write(root.join("secret.txt"), b"secret").unwrap();
        std::os::unix::fs::symlink(root.join("secret.txt"), inside.join("link.mtl")).unwrap();
        std::os::unix::fs::symlink("secret.txt", inside.join("inner.mtl")).unwrap();
        std::fs::write(inside.join("secret.txt"), b"inside").unwrap();
        let scope = Confinement::for_model(&inside, &[]).unwrap();
        let mut reader = Reader::new(1 << 20);
        let e = reader.read_named(&scope, &inside.join("link.mtl"), Keep::Bytes).unwrap_err();
        assert!(matches!(e, Denied::Outside { through_link: true, .. }), "{e}");
        assert!(e.to_string().contains("symbolic link") && e.to_string().contains("outside the model's folder"));
        // A link to nothing inside is missing, not a refusal.
        std::os::unix::fs::symlink("nothing.mtl", inside.join("dangling.mtl")).unwrap();
        assert!(reader.read_named(&scope, &inside.join("dangling.mtl"), Keep::Bytes).unwrap_err().is_missing());
        // A link that stays inside is followed.
        assert_eq!(&reader.read_named(&scope, &inside.join("inner.mtl"), Keep::Bytes).unwrap().1[..], b"inside");
        // `..` and absolute names are judged where they lead, whether or not the file exists.
        for name in ["../secret.txt", "../nothing.txt", "/etc/hostname", "/dev/stdin"] {
            let e = reader.read_named(&scope, &inside.join(name), Keep::Bytes).unwrap_err();
            assert!(matches!(e, Denied::Outside { .. }), "{name}: {e}");
        }
        // A root opens its folder.
        let wide = Confinement::for_model(&inside, std::slice::from_ref(&root)).unwrap();
        assert_eq!(&reader.read_named(&wide, &inside.join("link.mtl"), Keep::Bytes).unwrap().1[..], b"secret");
        // Folders are not files; /dev/null is a device (allowed by a root, still refused).
        let e = reader.read_named(&scope, &inside, Keep::Bytes).unwrap_err();
        assert!(matches!(e, Denied::NotRegular("folder")), "{e}");
        let e = reader.read_user(Path::new("/dev/null"), Keep::Nothing).unwrap_err();
        assert!(matches!(e, Denied::NotRegular("device")), "{e}");
        assert!(Confinement::for_model(&inside, &[root.join("no such folder")]).is_err());
        std::fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn places_that_do_not_exist_yet_are_judged_by_their_existing_folder() {
        let root = scratch("place");
        let scope = Confinement::for_manifest(&root);
        let canonical = std::fs::canonicalize(&root).unwrap();
        assert_eq!(scope.place(&root.join("new/golden.png")).unwrap(), canonical.join("new/golden.png"));
        assert!(scope.place(&root.join("new/../../golden.png")).is_err());
        assert!(scope.place(&root.join("../golden.png")).is_err());
        std::fs::create_dir_all(root.join("frames")).unwrap();
        assert_eq!(scope.place(&root.join("frames/")).unwrap(), canonical.join("frames"));
        std::fs::remove_dir_all(root).unwrap();
    }
}
