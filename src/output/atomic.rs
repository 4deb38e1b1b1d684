use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{Error, Result};

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// Temporary files being written right now, so an interrupt can remove them.
static IN_FLIGHT: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Removes every temporary file still being written (for an interrupt handler: Ctrl-C must not
/// leave `.name.PID.N.tmp` files behind).
pub fn remove_temporary_files() {
    let files = std::mem::take(&mut *IN_FLIGHT.lock().unwrap_or_else(|e| e.into_inner()));
    for f in files {
        let _ = fs::remove_file(f);
    }
}

fn track(path: &Path, add: bool) {
    let mut files = IN_FLIGHT.lock().unwrap_or_else(|e| e.into_inner());
    if add {
        files.push(path.to_path_buf());
    } else {
        files.retain(|f| f != path);
    }
}

/// Writes `bytes` to `path` through a temporary file in the same folder, renamed into place, so
/// readers see either the old file or the complete new one, never a partial write.
///
/// # Errors
/// The folder does not exist or is not writable, or the disk is full; the temporary file is
/// removed in every failure case.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = temp_path(path);
    track(&tmp, true);
    let result = (|| -> std::io::Result<()> {
        let mut file = fs::File::create(&tmp)?;
        file.write_all(bytes)?;
        file.flush()?;
        fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    track(&tmp, false);
    result.map_err(|e| Error::io(path, e))
}

/// `dir/.name.PID.N.tmp`: hidden, unique per process and call.
fn temp_path(path: &Path) -> PathBuf {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "out".into());
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    path.with_file_name(format!(".{name}.{}.{n}.tmp", std::process::id()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failed_write_leaves_nothing_behind() {
        let dir = std::env::temp_dir().join(format!("spritebake-atomic-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        // Renaming a file onto an existing directory fails after the data was written.
        let target = dir.join("occupied");
        fs::create_dir_all(&target).unwrap();
        fs::write(target.join("keep"), b"x").unwrap();
        assert!(write_atomic(&target, b"data").is_err());
        let leftovers: Vec<_> = fs::read_dir(&dir).unwrap().flatten().filter(|e| e.file_name() != "occupied").collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
        write_atomic(&dir.join("ok.bin"), b"data").unwrap();
        assert_eq!(fs::read(dir.join("ok.bin")).unwrap(), b"data");
        fs::remove_dir_all(&dir).unwrap();
    }
}
