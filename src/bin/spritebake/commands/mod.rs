//! One module per subcommand: its flags and its `run`.

pub mod bench;
pub mod export;
pub mod info;
pub mod render;
