//! Which files the items of a batch (a bake project's entries, a check run's cases) write and
//! read, in one table for the whole batch: a clash of one item's file with another's is found by
//! looking the file up, never by comparing every item with every other.
//!
//! Files are told apart by the output plan's own [`FileKey`], so that every clash
//! [`crate::output::OutputPlan::check_distinct`] refuses is found here: by where the path
//! leads now (links followed) and, on Unix, by device and inode (hard links).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::FileKey;

/// What a use of a file does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    Writes,
    Reads,
}

/// One way a file is known.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Key {
    At(PathBuf),
    Inode(u64, u64),
}

/// A use of a file: by the item at a position of the batch (`None`: the batch itself, such as
/// a bake project's state file, journal and summary, or the project file), through a path.
pub(crate) struct Use {
    pub(crate) by: Option<usize>,
    pub(crate) role: Role,
    pub(crate) path: PathBuf,
}

/// Every file a batch writes and reads, by each way it is known.
#[derive(Default)]
pub(crate) struct Uses {
    by_key: HashMap<Key, Vec<Use>>,
}

fn keys(path: &Path) -> Vec<Key> {
    FileKey::of(path).map(keys_of).unwrap_or_default()
}

fn keys_of(key: FileKey) -> Vec<Key> {
    let inode = key.inode.map(|(dev, ino)| Key::Inode(dev, ino));
    [Key::At(key.location)].into_iter().chain(inode).collect()
}

impl Uses {
    /// Records that `by` uses `path` in `role`.
    pub(crate) fn add(&mut self, path: &Path, by: Option<usize>, role: Role) {
        self.add_as(keys(path), path, by, role);
    }

    /// Records that `by` reads `path` if it exists: a file that does not exist yet is nobody's
    /// input (as to [`crate::output::OutputPlan::check_distinct`]).
    pub(crate) fn add_existing_read(&mut self, path: &Path, by: Option<usize>) {
        let keys = FileKey::of(path).filter(FileKey::exists).map(keys_of).unwrap_or_default();
        self.add_as(keys, path, by, Role::Reads);
    }

    fn add_as(&mut self, keys: Vec<Key>, path: &Path, by: Option<usize>, role: Role) {
        for key in keys {
            self.by_key.entry(key).or_default().push(Use { by, role, path: path.to_path_buf() });
        }
    }

    /// The other uses of the file at `path` than the use of it in `role` by the item at `by`,
    /// in the order recorded: those at its location first, then those of its inode (a use
    /// known both ways comes twice).
    pub(crate) fn others(&self, path: &Path, by: usize, role: Role) -> impl Iterator<Item = &Use> {
        // The same use, under each of its keys; the path compared as spelled (`Path`'s own
        // comparison takes `a//b` for `a/b`, and the plan refuses those as two outputs).
        let itself = move |u: &&Use| u.by == Some(by) && u.role == role && u.path.as_os_str() == path.as_os_str();
        keys(path).into_iter().filter_map(|k| self.by_key.get(&k)).flatten().filter(move |u| !itself(u))
    }

    /// The first other use that the use of `path` in `role` by the item at `by` clashes with,
    /// if any: anything else using a file it writes (the item itself under another name
    /// included), or a write of a file it reads.
    pub(crate) fn clash(&self, path: &Path, by: usize, role: Role) -> Option<&Use> {
        self.others(path, by, role).find(|other| role == Role::Writes || other.role == Role::Writes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Who the first clash is with, and how it uses the file.
    fn clash(uses: &Uses, path: &Path, by: usize, role: Role) -> Option<(Option<usize>, Role)> {
        uses.clash(path, by, role).map(|u| (u.by, u.role))
    }

    #[test]
    fn writes_clash_with_any_other_use_and_reads_with_writes() {
        let dir = std::env::temp_dir().join(format!("spritebake-uses-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let (a, b, c) = (dir.join("a.png"), dir.join("b.obj"), dir.join("c.png"));
        std::fs::write(&b, b"model").unwrap();
        let mut uses = Uses::default();
        uses.add(&a, Some(0), Role::Writes);
        uses.add(&b, Some(0), Role::Reads);
        uses.add(&b, Some(1), Role::Reads);
        uses.add(&c, Some(1), Role::Writes);
        assert_eq!(clash(&uses, &a, 0, Role::Writes), None);
        assert_eq!(clash(&uses, &b, 1, Role::Reads), None);
        // Item 1 also says it reads a (spelled another way): item 0 writes it.
        let spelled = dir.join(".").join("a.png");
        uses.add(&spelled, Some(1), Role::Reads);
        assert_eq!(clash(&uses, &spelled, 1, Role::Reads), Some((Some(0), Role::Writes)));
        assert_eq!(clash(&uses, &a, 0, Role::Writes), Some((Some(1), Role::Reads)));
        // A hard link of the model, written by item 1.
        #[cfg(unix)]
        {
            let link = dir.join("link.png");
            std::fs::hard_link(&b, &link).unwrap();
            uses.add(&link, Some(1), Role::Writes);
            assert_eq!(clash(&uses, &link, 1, Role::Writes), Some((Some(0), Role::Reads)));
        }
        // One file under two names, both written by one item.
        uses.add(&dir.join("./c.png"), Some(1), Role::Writes);
        assert_eq!(clash(&uses, &c, 1, Role::Writes), Some((Some(1), Role::Writes)));
        // A read is recorded only if its file exists.
        let missing = dir.join("missing.png");
        uses.add_existing_read(&missing, Some(0));
        uses.add_existing_read(&b, Some(2));
        assert!(uses.others(&missing, 1, Role::Writes).next().is_none());
        assert!(uses.others(&b, 0, Role::Reads).any(|u| u.by == Some(2)));
        std::fs::remove_dir_all(dir).unwrap();
    }
}
