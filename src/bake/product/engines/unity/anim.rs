//! An animation clip (`.anim`) per tag, as Unity's Animation window saves a sprite animation:
//! one `m_PPtrCurves` curve on the `m_Sprite` of a `SpriteRenderer` (class 212) on the clip's
//! own object (path `""`), a key at each frame's start referring to its sprite (the frame's
//! `internalID` in the `guid` of the page it is on, `type: 3`: an asset's sub-object), and the
//! `m_ClipBindingConstant` Unity keeps beside it (the binding and each key's object in order).
//!
//! `m_SampleRate` is the tag's rate (its frames over its length, [`Atlas::fps`]); the clip
//! lasts its length (`m_StopTime`), the last frame showing for its own time; `m_LoopTime`
//! says whether it loops (clips do, transitions and clips marked to play once do not).
//!
//! A sheet with mirrored directions (`--mirror`) gives every clip a constant `m_FlipX` float
//! curve on the same `SpriteRenderer`: 1 on a mirrored direction's clip, which keys its source's
//! sprites (Unity flips a sprite about its pivot), 0 on the others.

use std::fmt::Write as _;

use super::ids::Ids;
use super::yaml::scalar;
use crate::bake::product::engines::{Atlas, Tag};

/// Bytes of a key and its mapping entry, to size the text once (measured: 190).
const KEY_BYTES: usize = 200;

/// The clip of `tag`, named `name` (its file's stem: Unity names a clip after its file).
pub(crate) fn to_anim(atlas: &Atlas, tag: &Tag, name: &str, ids: &Ids) -> String {
    let frames = atlas.tag_frames(tag);
    // A sheet with mirrored directions: every clip says whether it flips the sprite.
    let flip_curve = atlas.tags.iter().any(|t| t.flipped).then(|| flip_x_curve(tag.flipped));
    let mut out = String::with_capacity(2048 + frames.len() * KEY_BYTES);
    // A key's object: the frame's sprite in its page's texture.
    let sprites: Vec<String> = (tag.frames.clone().zip(frames))
        .map(|(i, f)| format!("{{fileID: {}, guid: {}, type: 3}}", ids.internal(i), ids.guid(f.page)))
        .collect();
    // Writing to a String cannot fail.
    let _ = write!(
        out,
        "%YAML 1.1\n%TAG !u! tag:unity3d.com,2011:\n--- !u!74 &7400000\nAnimationClip:\n  m_ObjectHideFlags: 0\n  \
         m_CorrespondingSourceObject: {{fileID: 0}}\n  m_PrefabInstance: {{fileID: 0}}\n  m_PrefabAsset: {{fileID: 0}}\n  \
         m_Name: {}\n  serializedVersion: 7\n  m_Legacy: 0\n  m_Compressed: 0\n  m_UseHighQualityCurve: 1\n  \
         m_RotationCurves: []\n  m_CompressedRotationCurves: []\n  m_EulerCurves: []\n  m_PositionCurves: []\n  \
         m_ScaleCurves: []\n  m_FloatCurves:{}  m_PPtrCurves:\n  - serializedVersion: 2\n    curve:\n",
        scalar(name),
        flip_curve.as_deref().unwrap_or(" []\n")
    );
    // Each key at its frame's start: the durations added up in seconds, written as the f32
    // Unity keeps.
    let mut start = 0.0f64;
    for (f, sprite) in frames.iter().zip(&sprites) {
        let _ = writeln!(out, "    - time: {}\n      value: {sprite}", start as f32);
        start += f64::from(f.placement.duration);
    }
    let _ = write!(
        out,
        "    attribute: m_Sprite\n    path: \n    classID: 212\n    script: {{fileID: 0}}\n    flags: 2\n  \
         m_SampleRate: {}\n  m_WrapMode: 0\n  m_Bounds:\n    m_Center: {{x: 0, y: 0, z: 0}}\n    \
         m_Extent: {{x: 0, y: 0, z: 0}}\n  m_ClipBindingConstant:\n    genericBindings:\n{}    - serializedVersion: 2\n      \
         path: 0\n      attribute: 0\n      script: {{fileID: 0}}\n      typeID: 212\n      customType: 23\n      \
         isPPtrCurve: 1\n      isIntCurve: 0\n      isSerializeReferenceCurve: 0\n    pptrCurveMapping:\n",
        atlas.fps(tag) as f32,
        if flip_curve.is_some() { FLIP_X_BINDING } else { "" }
    );
    for sprite in &sprites {
        let _ = writeln!(out, "    - {sprite}");
    }
    let _ = write!(
        out,
        "  m_AnimationClipSettings:\n    serializedVersion: 2\n    m_AdditiveReferencePoseClip: {{fileID: 0}}\n    \
         m_AdditiveReferencePoseTime: 0\n    m_StartTime: 0\n    m_StopTime: {}\n    m_OrientationOffsetY: 0\n    \
         m_Level: 0\n    m_CycleOffset: 0\n    m_HasAdditiveReferencePose: 0\n    m_LoopTime: {}\n    m_LoopBlend: 0\n    \
         m_LoopBlendOrientation: 0\n    m_LoopBlendPositionY: 0\n    m_LoopBlendPositionXZ: 0\n    \
         m_KeepOriginalOrientation: 0\n    m_KeepOriginalPositionY: 1\n    m_KeepOriginalPositionXZ: 0\n    \
         m_HeightFromFeet: 0\n    m_Mirror: 0\n  m_EditorCurves:{}  m_EulerEditorCurves: []\n  \
         m_HasGenericRootTransform: 0\n  m_HasMotionFloatCurves: 0\n  m_Events: []\n",
        atlas.seconds(tag) as f32,
        u8::from(tag.looping),
        flip_curve.as_deref().unwrap_or(" []\n")
    );
    out
}

/// The binding of the `m_FlipX` curve: its attribute is the CRC-32 of the property's name, as
/// Unity writes it.
const FLIP_X_BINDING: &str = "    - serializedVersion: 2\n      path: 0\n      attribute: 555744692\n      \
                              script: {fileID: 0}\n      typeID: 212\n      customType: 0\n      isPPtrCurve: 0\n      \
                              isIntCurve: 0\n      isSerializeReferenceCurve: 0\n";

/// A float curve (after `m_FloatCurves:` or `m_EditorCurves:`) holding the `SpriteRenderer`'s
/// `flipX` at `flipped` for the whole clip: one constant key, as the Animation window keys a
/// checkbox. A mirrored direction's clip flips its source's sprites about their pivot; every
/// other clip of the sheet unflips them, so changing clips never leaves a sprite flipped.
fn flip_x_curve(flipped: bool) -> String {
    format!(
        "\n  - serializedVersion: 2\n    curve:\n      serializedVersion: 2\n      m_Curve:\n      - serializedVersion: 3\n        \
         time: 0\n        value: {}\n        inSlope: Infinity\n        outSlope: Infinity\n        tangentMode: 103\n        \
         weightedMode: 0\n        inWeight: 0\n        outWeight: 0\n      m_PreInfinity: 2\n      m_PostInfinity: 2\n      \
         m_RotationOrder: 4\n    attribute: m_FlipX\n    path: \n    classID: 212\n    script: {{fileID: 0}}\n    flags: 0\n",
        u8::from(flipped)
    )
}
