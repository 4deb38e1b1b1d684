//! Which records of the state file clash with a run: the state file is untrusted, so a record
//! that says an up-to-date entry writes a file another entry reads (or reads a file another
//! entry writes) must not refuse the run as an honest plan would. Its entry is rebuilt instead:
//! planned from what it really reads and writes, and the run is refused only if that clashes.
//!
//! Files are told apart by the output plan's own [`FileKey`], so that every clash
//! [`crate::output::OutputPlan::check_distinct`] refuses is found here: by where the path
//! leads now (links followed) and, on Unix, by device and inode (hard links).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::output::FileKey;

/// What a use of a file does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Role {
    Writes,
    Reads,
}

/// One way a file is known.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Key {
    At(PathBuf),
    Inode(u64, u64),
}

/// A use of a file: by the entry at a position of the run (`None`: the run itself, its state
/// file, journal and summary, or the project file), through a path.
struct Use {
    by: Option<usize>,
    role: Role,
    path: PathBuf,
}

/// Every file a run writes and reads, by each way it is known.
#[derive(Default)]
pub(super) struct Uses {
    by_key: HashMap<Key, Vec<Use>>,
}

fn keys(path: &Path) -> Vec<Key> {
    let Some(key) = FileKey::of(path) else { return Vec::new() };
    let inode = key.inode.map(|(dev, ino)| Key::Inode(dev, ino));
    [Key::At(key.location)].into_iter().chain(inode).collect()
}

impl Uses {
    /// Records that `by` uses `path` in `role`.
    pub(super) fn add(&mut self, path: &Path, by: Option<usize>, role: Role) {
        for key in keys(path) {
            self.by_key.entry(key).or_default().push(Use { by, role, path: path.to_path_buf() });
        }
    }

    /// Why the use of `path` in `role` by the entry at `by` clashes with another use, if it
    /// does: a file it writes that anything else writes or anything reads, or a file it reads
    /// that anything writes.
    pub(super) fn clash(&self, path: &Path, by: usize, role: Role) -> Option<&'static str> {
        // The same use, under each of its keys; the path compared as spelled (`Path`'s own
        // comparison takes `a//b` for `a/b`, and the plan refuses those as two outputs).
        let itself = |u: &Use| u.by == Some(by) && u.role == role && u.path.as_os_str() == path.as_os_str();
        let others = keys(path).into_iter().filter_map(|k| self.by_key.get(&k)).flatten().filter(|u| !itself(u));
        let mut why = None;
        for other in others {
            why = match (role, other.role) {
                (Role::Writes, Role::Writes) if other.by == Some(by) => Some("it also writes under another name"),
                (Role::Writes, Role::Writes) => Some("another entry writes"),
                (Role::Writes, Role::Reads) => Some("an entry reads"),
                (Role::Reads, Role::Writes) => Some("an entry writes"),
                (Role::Reads, Role::Reads) => continue,
            };
            break;
        }
        why
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_clash_with_any_other_use_and_reads_with_writes() {
        let dir = std::env::temp_dir().join(format!("spritebake-clash-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let (a, b, c) = (dir.join("a.png"), dir.join("b.obj"), dir.join("c.png"));
        std::fs::write(&b, b"model").unwrap();
        let mut uses = Uses::default();
        uses.add(&a, Some(0), Role::Writes);
        uses.add(&b, Some(0), Role::Reads);
        uses.add(&b, Some(1), Role::Reads);
        uses.add(&c, Some(1), Role::Writes);
        assert_eq!(uses.clash(&a, 0, Role::Writes), None);
        assert_eq!(uses.clash(&b, 1, Role::Reads), None);
        // Entry 1 also says it reads a (spelled another way): entry 0 writes it.
        let spelled = dir.join(".").join("a.png");
        uses.add(&spelled, Some(1), Role::Reads);
        assert_eq!(uses.clash(&spelled, 1, Role::Reads), Some("an entry writes"));
        assert_eq!(uses.clash(&a, 0, Role::Writes), Some("an entry reads"));
        // A hard link of the model, written by entry 1.
        #[cfg(unix)]
        {
            let link = dir.join("link.png");
            std::fs::hard_link(&b, &link).unwrap();
            uses.add(&link, Some(1), Role::Writes);
            assert_eq!(uses.clash(&link, 1, Role::Writes), Some("an entry reads"));
        }
        // One file under two names, both written by one entry.
        uses.add(&dir.join("./c.png"), Some(1), Role::Writes);
        assert_eq!(uses.clash(&c, 1, Role::Writes), Some("it also writes under another name"));
        std::fs::remove_dir_all(dir).unwrap();
    }
}
