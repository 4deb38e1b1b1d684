//! `bake` project files: every sprite of a game in one TOML file, baked in parallel and
//! incrementally (`spritebake bake PROJECT.toml`).
//!
//! ```toml
//! [defaults]              # any spec key; applies to every entry
//! size = 128
//! [[sheet]]               # a sprite sheet PNG, its JSON beside it
//! name = "robot-walk"     # required, unique in the file
//! model = "assets/robot/robot.md5mesh"
//! anim = ["assets/robot/walk.md5anim"]
//! directions = 8
//! output = "out/robot-walk.png"
//! [[gif]]                 # output: a .gif
//! [[frames]]              # output: a pattern, "out/{clip}_{dir}_{frame:03}.png"
//! [[thumbnail]]           # output: a .png; starts from the `thumbnail` defaults
//! [[render]]              # output: a .png of one moment
//! ```
//!
//! An entry is a [`BakeSpec`](crate::spec::BakeSpec) (every key the commands take, named as
//! their flags) plus `name` and `output` (`ENTRY_KEYS`): `[defaults]` fills what it leaves
//! out; a `[[thumbnail]]` starts from [`Profile::Thumbnail`](crate::spec::Profile::Thumbnail),
//! then `[defaults]`, then its own keys. Entries are numbered in file order over every kind
//! (their header lines), which is what [`RunOptions::shard`] goes by: adding entries at the end
//! keeps every existing assignment.
//!
//! Every path (models, animations, textures, attachments, outputs) is relative to the project
//! file's folder and must lead inside it, or inside a folder allowed with
//! [`Project::allowing`] (`--allow-dir`); see `crate::confine`.
//!
//! A run ([`Project::run`]):
//! 1. checks what is known without loading anything: every output inside the allowed folders,
//!    no two entries writing one file, no output on a file an entry names, nor on a state file,
//!    journal or state lock of the project, of whichever shard (a refusal of the whole run);
//! 2. (unless a dry run) takes the state file's lock, waiting for another run of the project
//!    that holds it, and keeps it until step 5 is done: two runs over one state file (two
//!    versions of the project baked at once) take turns, so the second reads what the first
//!    recorded and removes what it wrote, and no run's records are dropped (see `state.rs`);
//!    then decides which entries are up to date from the state file alone (no model is loaded): an
//!    entry is rebuilt when it has no record, its settings changed (its kind, output and spec
//!    as written, with the spritebake version, hashed), its record cannot cover what a bake of
//!    it writes (no output, a file its output cannot name, one it writes left out: a warning,
//!    see `cover.rs`), the content of a file it read last time
//!    changed (or one that was missing appeared), or an output is missing or differs from what
//!    was written: its size first, from its metadata, and its content (hashed, never more bytes
//!    than were written) only when the size is the one recorded;
//! 3. loads each entry to rebuild once to plan it: its outputs (a frame pattern expands to every
//!    file) and every file it reads, then checks every output of the run against every other
//!    and against every input of every entry — still before anything renders (a refusal of the
//!    whole run; but where the record of an up-to-date entry takes part, that entry is rebuilt
//!    instead, with a warning, and the run refused only if its plan clashes too: a record can
//!    never block a run, see `refusals.rs`); a shard with an entry to rebuild plans every other
//!    shard's entry too, so that it refuses what a run of the whole project refuses;
//! 4. bakes the entries to rebuild in parallel (loading each again), each writing its files
//!    together or none; every entry's model, attachments and images draw on one shared pool
//!    of [`crate::budget::BATCH_BYTES`] (as step 3's loads do), and an entry the pool cannot
//!    take runs again alone after the others, with budgets of its own only;
//!    an entry that fails is reported and the others go on. Under the same locks as its commit
//!    (see [`crate::output::Transaction::commit_then`]), a built entry removes the files its
//!    last record says it wrote and this run did not (pages of a sheet that now has fewer,
//!    frames no longer made), and its record is appended to the state file's journal, so an
//!    interrupted run keeps what it finished (see `state.rs`);
//! 5. writes the state file ([`Project::state_path`]) atomically, with a record for every entry
//!    built or up to date (a failed entry keeps none, so it is rebuilt next time), and removes
//!    the journal; then lets go of the state file's lock.
//!
//! A file an earlier run wrote is removed only when the state file records it for that entry,
//! the entry's output can name it now (else it is left, with a warning), its size and content
//! are still what was written (else it is left, with a warning: someone changed it), it is
//! inside the allowed folders and it is no file this run writes or reads, nor one any entry of
//! the project names or (planned from another shard) writes or reads.
//!
//! The state file records paths as the project names them, relative to its folder, not where
//! links led when they were written: every check looks at what a recorded path leads to now,
//! so a link re-pointed since shows as a change. A file a model names reaches the record only
//! by its canonical path, and is recorded through the folder of a file the entry names that
//! holds it (`Project::stored_inputs`); a link below that folder leading out of it is
//! recorded resolved.
//!
//! The state file is untrusted input like any other: bounded (`MAX_STATE_BYTES`), a corrupt
//! one ignored with a warning (everything is rebuilt), and the files it names are read (to hash
//! them) only inside the allowed folders, each at most once a run. A record naming a path in a
//! form no run records it in (`./a.png`, `out//a.png`, or `x/../a.png` where no path its
//! entry names climbs out of `x`) is not believed at all: its entry is rebuilt, with a warning.
//! A record is believed only to skip an entry whose outputs are all there with the size and
//! content it records, and to remove files the entry's output can name; it can neither block
//! a run (step 3) nor make one write anywhere.

mod cover;
mod entry;
mod parse;
mod paths;
mod records;
mod refusals;
mod run;
mod state;
mod steps;
mod types;

pub use entry::{Entry, Kind};
pub use types::{EntryReport, Event, Project, Report, RunOptions, Status};
