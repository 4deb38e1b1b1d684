//! Issue 29: the state file of `bake` is untrusted input. Whatever it holds, a run rebuilds
//! every entry whose outputs are missing or stale and is never refused because of it.
//! (Unix only: the cases need symbolic links and sparse files.)

#![cfg(unix)]

use crate::common::cli::printed;
use crate::project::{ENTRIES, PROJECT, STATE, bake, entries_with, project, set};

#[test]
fn a_state_file_over_its_limit_is_replaced_and_its_warning_names_no_missing_flag() {
    let dir = project("state-too-large", PROJECT);
    std::fs::File::create(dir.join(STATE)).unwrap().set_len(65 << 20).unwrap();
    let o = bake(&dir, &["spritebake.toml"]);
    assert_eq!(o.status.code(), Some(0), "{}", printed(&o));
    assert_eq!(entries_with(&o, "built"), set(&ENTRIES), "{}", printed(&o));
    let stderr = String::from_utf8_lossy(&o.stderr);
    let warnings: Vec<&str> = stderr.lines().filter(|l| l.starts_with("warning: ")).collect();
    assert_eq!(warnings.len(), 1, "{stderr}");
    assert!(warnings[0].contains(STATE) && warnings[0].contains("every entry is rebuilt"), "{stderr}");
    // Every flag it names is one `bake` has.
    let help = bake(&dir, &["--help"]);
    let help = String::from_utf8_lossy(&help.stdout);
    for flag in warnings[0].split(|c: char| !(c.is_alphanumeric() || c == '-')).filter(|w| w.starts_with("--")) {
        assert!(help.contains(flag), "the warning names {flag}, which `bake` lacks: {}", warnings[0]);
    }
    // As it says: the run replaced it, and the next has nothing to do.
    assert!(std::fs::metadata(dir.join(STATE)).unwrap().len() < 1 << 20);
    let o = bake(&dir, &["spritebake.toml"]);
    assert_eq!(entries_with(&o, "up to date"), set(&ENTRIES), "{}", printed(&o));
    assert!(!printed(&o).contains("warning:"), "{}", printed(&o));
}
