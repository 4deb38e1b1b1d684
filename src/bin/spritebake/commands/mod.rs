//! One module per subcommand: its flags and its `run`.

pub mod bake;
pub mod bench;
pub mod check;
pub mod compare;
pub mod completions;
pub mod export;
pub mod info;
pub mod man;
pub mod render;
pub mod sprite;
pub mod thumbnail;
