//! What a report says about the run besides its results: the [`ReportContext`], and from it
//! the command that blesses one case.

use crate::escape::shell_word;

/// What a report says about the run besides its results: the suite's name and how to rerun
/// one case with `--bless`.
#[derive(Debug, Clone, Default)]
pub struct ReportContext {
    /// The manifest's name.
    pub suite: String,
    /// The manifest as the command line named it.
    pub manifest: String,
    /// Flags the run was given that a rerun needs too (`--allow-dir DIR`, limits), one word
    /// each, appended to every bless command.
    pub flags: Vec<String>,
}

/// The command that blesses only the case `name`:
/// `spritebake check MANIFEST --bless --case NAME` plus [`ReportContext::flags`], every word
/// quoted for a POSIX shell. A manifest path starting with `-` is written `./-...`, and a
/// name starting with `-` as `--case=-name`, so neither reads as a flag.
pub fn bless_command(context: &ReportContext, name: &str) -> String {
    let manifest =
        if context.manifest.starts_with('-') { format!("./{}", context.manifest) } else { context.manifest.clone() };
    let case = if name.starts_with('-') {
        shell_word(&format!("--case={name}"))
    } else {
        format!("--case {}", shell_word(name))
    };
    let mut command = format!("spritebake check {} --bless {case}", shell_word(&manifest));
    for flag in &context.flags {
        command.push(' ');
        command.push_str(&shell_word(flag));
    }
    command
}
