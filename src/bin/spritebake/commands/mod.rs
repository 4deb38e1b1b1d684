//! One module per subcommand: its flags and its `run`.

pub mod bench;
pub mod check;
pub mod compare;
pub mod export;
pub mod frames;
pub mod gif;
pub mod info;
pub mod render;
pub mod sheet;
pub mod thumbnail;
