//! The words of studiomdl's commands as the parser reads them: the commands that change
//! nothing spritebake draws, the options of `$sequence` with how many values each takes, the
//! motion flags, and the readers of one command's arguments (errors name the line).

use super::script::{At, err};
use crate::error::{Result, excerpt};
use crate::formats::tokens::{Token, Tokens};

/// Commands that do not change how a model looks: skipped without a warning.
pub(super) const NO_EFFECT: &[&str] = &[
    "$modelname",
    "$bbox",
    "$cbox",
    "$eyeposition",
    "$hbox",
    "$hboxset",
    "$hgroup",
    "$flags",
    "$controller",
    "$externaltextures",
    "$cliptotextures",
    "$surfaceprop",
    "$contents",
    "$staticprop",
    "$illumposition",
    "$keyvalues",
    "$collisionmodel",
    "$collisionjoints",
    "$poseparameter",
    "$ikchain",
    "$ikautoplaylock",
    "$lod",
    "$shadowlod",
    "$mostlyopaque",
    "$opaque",
    "$pushd",
    "$popd",
    "$sectionframes",
    "$maxverts",
    "$autocenter",
    "$skiptransition",
    "$declaresequence",
    "$declareanimation",
    "$includemodel",
    "$bonemerge",
    "$alwayscollapse",
    "$attachmentexport",
    "$jigglebone",
    "$weightlist",
    "$defaultweightlist",
    "$gamma",
];

/// Words that are options of `$sequence` and `$animation`, with how many values follow them.
pub(super) fn option_values(word: &str) -> Option<usize> {
    Some(match word.to_ascii_lowercase().as_str() {
        "loop" | "snap" | "hidden" | "delta" | "autoplay" | "realtime" | "noforceloop" | "worldspace" | "post"
        | "predelta" | "noautoik" => 0,
        "fps" | "rotate" | "scale" | "node" | "fadein" | "fadeout" | "exitphase" | "entryphase" | "addlayer"
        | "blendlayer" | "animation" | "subtract" | "posecycle" | "numframes" | "weightlist" | "alignto" | "match" => 1,
        "frame" | "transition" | "activity" => 2,
        "origin" | "blend" | "pivot" | "rtransition" => 3,
        _ => return None,
    })
}

/// Motion flags studiomdl reads on a sequence (only `LX LY LZ` matter here).
pub(super) fn motion_flag(word: &str) -> Option<Option<usize>> {
    let w = word.to_ascii_uppercase();
    match w.as_str() {
        "LX" => Some(Some(0)),
        "LY" => Some(Some(1)),
        "LZ" => Some(Some(2)),
        "X" | "Y" | "Z" | "XR" | "YR" | "ZR" | "LXR" | "LYR" | "LZR" | "AX" | "AY" | "AZ" | "AXR" | "AYR" | "AZR" => {
            Some(None)
        }
        _ => None,
    }
}

pub(super) fn is_command(t: &Token) -> bool {
    !t.quoted && t.text.starts_with('$')
}

/// The next argument of the current command: `None` at the next command or the end.
pub(super) fn arg<'a>(s: &mut Tokens<'a>) -> Option<Token<'a>> {
    match s.peek() {
        Some(t) if !is_command(&t) => s.next_token(),
        _ => None,
    }
}

/// Skips the rest of the current command's arguments (blocks included).
pub(super) fn skip_args(s: &mut Tokens) {
    while let Some(t) = arg(s) {
        if t.is("{") {
            s.skip_block();
        }
    }
}

pub(super) fn word(s: &mut Tokens, at: &At, what: &str) -> Result<String> {
    match arg(s) {
        Some(t) if !t.is("{") && !t.is("}") => Ok(t.text.to_string()),
        Some(t) => {
            Err(err(&At { line: t.line, ..at.clone() }, format!("expected {what}, found `{}`", excerpt(t.text))))
        }
        None => Err(err(at, format!("expected {what}"))),
    }
}

pub(super) fn number(s: &mut Tokens, at: &At, what: &str) -> Result<f32> {
    match arg(s) {
        Some(t) => match t.text.parse::<f32>() {
            Ok(x) if x.is_finite() => Ok(x),
            _ => Err(err(&At { line: t.line, ..at.clone() }, format!("expected {what}, found `{}`", excerpt(t.text)))),
        },
        None => Err(err(at, format!("expected {what}"))),
    }
}

pub(super) fn positive(x: f32, at: &At, what: &str) -> Result<f32> {
    if x > 0.0 && x <= 1e6 { Ok(x) } else { Err(err(at, format!("{what} {x}: expected a number above 0"))) }
}
