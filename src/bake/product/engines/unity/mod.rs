//! Unity's own files for a sheet, so a Unity 2D project takes it with no slicing by hand: each
//! page's texture importer settings (`walk.png.meta`: a Sprite texture of Multiple sprites,
//! one per frame, [`meta`]), one animation clip per tag (`walk_walk_S.anim`: the frames'
//! sprites keyed on a `SpriteRenderer`, [`anim`]), and with `--points` the frames' points in a
//! JSON that `JsonUtility` reads ([`points`]).
//!
//! The fields are Unity 2021.3 LTS's, as it writes them (TextureImporter `serializedVersion:
//! 12`, AnimationClip `serializedVersion: 7`): 2022.3 and Unity 6 upgrade them on import, and
//! an older format is what every later version reads. The reference files they were matched
//! against are named in `tests/fixtures/unity/README.md`.
//!
//! **Ids are derived, never random**, so a rerun writes the same bytes and a re-bake keeps
//! every reference a scene or prefab holds (Unity refers to a sprite as the texture's `guid`
//! and the sprite's `internalID`):
//! * a page's `guid` (32 hex digits) is a hash of its path from the Unity project's `Assets`
//!   folder when it is written inside one (`Assets/Sprites/walk.png`: unique in the project,
//!   whatever the art), else of its file name and the sheet's frame names;
//! * a sprite's `internalID` (64 bits, never 0) and `spriteID` are hashes of its frame name,
//!   so a frame keeps them whichever page or place it lands on.
//!
//! Rejected: random guids, as the Unity editor makes them. Every bake would then break the
//! references to the sheet, and `check` goldens could never match.

mod anim;
mod ids;
mod meta;
mod points;
mod yaml;

pub(crate) use anim::to_anim;
pub(crate) use ids::Ids;
pub(crate) use meta::to_meta;
pub(crate) use points::to_json as points_json;
