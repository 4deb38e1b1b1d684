//! Thumbnail file names: the input tree mirrored (or flattened with `--flat`), and every
//! collision resolved by a longer name taken from the model's path, never by refusing the batch.

use std::collections::{HashMap, HashSet};
use std::path::{Component, Path, PathBuf};

use crate::output::sanitize_component;

use super::scan::Found;

/// How far a name goes to tell models apart: each level is tried by every model whose name at
/// the level before was shared, until none is; past the last, a number is added.
const LEVELS: usize = 3;

/// The parts of a model's path a name is made of.
struct Parts {
    /// The folders between the root and the file (for a file named on the command line: none).
    folders: Vec<String>,
    /// The root's own name (for a file named on the command line: its folder's name).
    root: Option<String>,
    stem: String,
    /// The file name, extension included.
    file: String,
}

impl Parts {
    /// `found`'s parts; `root_name` names a root folder (the same few roots serve every model
    /// of a batch, so the caller resolves each once).
    fn of(found: &Found, root_name: &mut impl FnMut(&Path) -> Option<String>) -> Parts {
        let path = &found.path;
        let text = |s: &std::ffi::OsStr| s.to_string_lossy().into_owned();
        let below = found.root.as_ref().and_then(|root| path.strip_prefix(root).ok());
        let folders = below
            .and_then(Path::parent)
            .map(|dirs| {
                dirs.components()
                    .filter_map(|c| match c {
                        Component::Normal(name) => Some(text(name)),
                        _ => None,
                    })
                    .collect()
            })
            .unwrap_or_default();
        let root_folder = match &found.root {
            Some(root) => Some(root.as_path()),
            None => path.parent(),
        };
        let root = root_folder.and_then(root_name);
        Parts {
            folders,
            root,
            stem: path.file_stem().map(text).unwrap_or_else(|| "model".into()),
            file: path.file_name().map(text).unwrap_or_else(|| "model".into()),
        }
    }

    /// The name at `level`, as path components (mirrored) or one component (flat).
    fn name(&self, level: usize, flat: bool) -> Vec<String> {
        let mut parts: Vec<&str> = Vec::new();
        if level >= 2 {
            parts.extend(self.root.as_deref());
        }
        // Flat names take the folders only once the stem alone is shared.
        if !flat || level >= 1 {
            parts.extend(self.folders.iter().map(String::as_str));
        }
        // The extension comes in to tell `empty.obj` from `empty.md2` (mirrored: at the first
        // level past the plain name; flat: after the folders).
        let keep_extension = if flat { level >= 2 } else { level >= 1 };
        parts.push(if keep_extension { &self.file } else { &self.stem });
        if flat {
            vec![sanitize_component(&parts.join("_"))]
        } else {
            parts.into_iter().map(sanitize_component).collect()
        }
    }
}

/// The file name of each model's thumbnail, relative to the output folder, in `found`'s order:
/// `md2/sydney/sydney.png` for `corpus/md2/sydney/sydney.md2` found under `corpus` (`--flat`:
/// `sydney.png`). Names that would be the same file on a case-insensitive file system are
/// told apart by more of the path: the extension (`empty.obj.png`), then the root folder's
/// name, then a number (`-2`, `-3`, in `found`'s order).
pub(crate) fn thumbnail_names(found: &[Found], flat: bool) -> Vec<PathBuf> {
    // A root's name is its last component once resolved (`.` and `..` name a real folder).
    let mut roots: HashMap<PathBuf, Option<String>> = HashMap::new();
    let mut root_name = |root: &Path| {
        let resolve = || std::fs::canonicalize(root).ok()?.file_name().map(|n| n.to_string_lossy().into_owned());
        roots.entry(root.to_path_buf()).or_insert_with(resolve).clone()
    };
    let parts: Vec<Parts> = found.iter().map(|f| Parts::of(f, &mut root_name)).collect();
    let mut level = vec![0; found.len()];
    let key = |name: &[String]| name.join("/").to_lowercase();
    for _ in 0..LEVELS {
        let names: Vec<Vec<String>> = parts.iter().zip(&level).map(|(p, &l)| p.name(l, flat)).collect();
        let mut count: HashMap<String, usize> = HashMap::new();
        for name in &names {
            *count.entry(key(name)).or_default() += 1;
        }
        let mut moved = false;
        for (i, name) in names.iter().enumerate() {
            if count[&key(name)] > 1 && level[i] + 1 < LEVELS {
                level[i] += 1;
                moved = true;
            }
        }
        if !moved {
            break;
        }
    }
    // Whatever is still shared gets a number: the first keeps the name, the others the first
    // free `-N`.
    let names: Vec<Vec<String>> = parts.iter().zip(&level).map(|(p, &l)| p.name(l, flat)).collect();
    let mut taken: HashSet<String> = HashSet::new();
    let all: HashSet<String> = names.iter().map(|n| key(n)).collect();
    names
        .into_iter()
        .map(|mut name| {
            let last = name.len() - 1;
            let stem = name[last].clone();
            let mut n = 1;
            // A numbered name also keeps off every name some model has without a number.
            while taken.contains(&key(&name)) || (n > 1 && all.contains(&key(&name))) {
                n += 1;
                name[last] = format!("{stem}-{n}");
            }
            taken.insert(key(&name));
            name[last].push_str(".png");
            name.iter().collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn under(root: &str, paths: &[&str]) -> Vec<Found> {
        paths.iter().map(|p| Found { path: Path::new(root).join(p), root: Some(root.into()) }).collect()
    }

    fn names(found: &[Found], flat: bool) -> Vec<String> {
        thumbnail_names(found, flat).iter().map(|p| p.to_string_lossy().replace('\\', "/")).collect()
    }

    #[test]
    fn names_mirror_the_tree_below_each_root() {
        let found = under("corpus", &["md2/sydney/sydney.md2", "players/male/tris.md2", "players/female/tris.md2"]);
        assert_eq!(names(&found, false), ["md2/sydney/sydney.png", "players/male/tris.png", "players/female/tris.png"]);
        // A file named on the command line keeps its stem.
        let single = [Found { path: "some/where/robot.md5mesh".into(), root: None }];
        assert_eq!(names(&single, false), ["robot.png"]);
    }

    #[test]
    fn one_stem_in_one_folder_keeps_the_extension() {
        let found = under("m", &["a/empty.obj", "a/empty.MD2", "a/other.obj"]);
        assert_eq!(names(&found, false), ["a/empty.obj.png", "a/empty.MD2.png", "a/other.png"]);
    }

    #[test]
    fn flat_names_take_the_folders_only_where_stems_are_shared() {
        let found = under("corpus", &["obj/edge/empty.obj", "md2/edge/empty.md2", "md2/sydney/sydney.md2"]);
        assert_eq!(names(&found, true), ["obj_edge_empty.png", "md2_edge_empty.png", "sydney.png"]);
        let players = under("q2", &["players/male/tris.md2", "players/female/tris.md2"]);
        assert_eq!(names(&players, true), ["players_male_tris.png", "players_female_tris.png"]);
    }

    #[test]
    fn names_differing_only_in_case_are_told_apart() {
        let found = under("m", &["Robot.obj", "robot.obj"]);
        let got = names(&found, false);
        assert_ne!(got[0].to_lowercase(), got[1].to_lowercase(), "{got:?}");
    }

    #[test]
    fn what_no_level_tells_apart_is_numbered_and_never_shared() {
        // Two files named on the command line from folders of one name: the same at every level.
        let dir = std::env::temp_dir().join(format!("spritebake-names-{}", std::process::id()));
        for sub in ["x/models", "y/models"] {
            std::fs::create_dir_all(dir.join(sub)).unwrap();
        }
        let found: Vec<Found> =
            ["x/models/ref.smd", "y/models/ref.smd"].iter().map(|p| Found { path: dir.join(p), root: None }).collect();
        let got = names(&found, false);
        assert_eq!(got, ["models/ref.smd.png", "models/ref.smd-2.png"]);
        // A numbered name never takes a name another model has on its own.
        let mut found = under("r", &["a.obj", "a.md2"]);
        found.push(Found { path: "r/a.obj-2.obj".into(), root: Some("r".into()) });
        let got = names(&found, true);
        let unique: HashSet<String> = got.iter().map(|n| n.to_lowercase()).collect();
        assert_eq!(unique.len(), 3, "{got:?}");
        std::fs::remove_dir_all(dir).unwrap();
    }
}
