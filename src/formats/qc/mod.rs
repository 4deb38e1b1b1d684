//! studiomdl's `.qc` script as a model: the reference SMDs of its bodies, its sequences as
//! clips, its attachment points.
//!
//! [`parse`] reads the script (and its `$include`s, through a callback) into a [`Qc`] without
//! touching a file it names; [`build`] then reads those files through the loader's
//! [`Files`] (confined, bounded, each charged to the model's budget) and makes one [`Model`]
//! with the SMD parser.
//!
//! What is read, and how (decisions, documented in the README):
//! * **Folders.** `$cd`, `$cdtexture`, `$texturepath` and `$cdmaterials` are relative to the
//!   QC's folder (backslashes are separators; an absolute `$cd` is ignored with a warning, as
//!   decompiled QCs carry the author's `C:\...` folders). Files are named without `.smd`.
//!   Texture folders are searched after the QC's own folder. Every file is read through the
//!   confinement: the QC's folder and the `--texture-root`s.
//! * **Placement.** `$scale` and `$origin x y z [rot]` apply to the files named after them, as
//!   in studiomdl: a point becomes `scale · Rz(rot) · (p − origin)`. The 90° every studiomdl
//!   source is turned by is the model's orientation (SMD sources face −Y), as for plain SMD
//!   files; `$origin`'s fourth value turns the model further, and a sequence's `rotate DEG`
//!   replaces it for that sequence (studiomdl: the sequence turns by `DEG + 90`).
//! * **Bodies.** `$body NAME FILE`, `$model NAME FILE` and `$bodygroup NAME { studio FILE ...
//!   blank }`: every group shows its first entry unless a [`BodyChoice`] picks another by its
//!   file name (without folders and `.smd`, any case) or `blank`. The chosen references are
//!   merged into one skeleton by bone name (the first file's rest pose wins, as in studiomdl).
//!   A chosen body file that is missing is an error.
//! * **Sequences.** `$sequence NAME FILE [options]` or `$sequence NAME { FILE options }`: a clip
//!   named NAME at `fps` (30 by default), `frame A B` keeps those frames, `LX LY LZ` mark root
//!   travel ([`MarkedMotion`], in the compiled model's axes: X forward, so `LX` is the source's
//!   Y), `rotate DEG` and `origin X Y Z` place it; events (`{ event ... }`), activities and the
//!   other options are ignored; of several blend files the first is used. `$animation NAME FILE
//!   options` defines a file a sequence may name. A sequence whose file is missing or refused is
//!   a warning.
//! * **Attachments.** `$attachment NAME BONE X Y Z [absolute]`: a point on a joint, scaled by
//!   `$scale` ([`AttachmentPoint`]).
//! * **Includes.** `$include FILE`, relative to the including file, at most
//!   [`MAX_INCLUDE_DEPTH`] deep and [`MAX_INCLUDES`] in all; a missing or refused include is a
//!   warning (decompilers write includes they do not ship).
//! * Commands that do not change a render (hit boxes, bounding boxes, eye position, ...) are
//!   skipped silently; every other unknown command is skipped, and named in one warning.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

use glam::{Affine3A, Quat, Vec3};

use super::tokens::{Syntax, Token, Tokens};
use super::{Files, FormatError, smd};
use crate::budget::MemoryBudget;
use crate::confine::Denied;
use crate::error::{Error, Result};
use crate::model::{AttachmentPoint, Clip, ClipFrames, JointPose, MarkedMotion, Model, Skeleton, suggest};

const FORMAT: &str = "QC";
/// How deep `$include`s may nest.
pub const MAX_INCLUDE_DEPTH: usize = 8;
/// How many `$include`s one QC may read in all (a file including itself twice at every level
/// would otherwise ask for 2⁸ reads).
pub const MAX_INCLUDES: usize = 64;
/// Most bones a model merged from several references may have.
const MAX_JOINTS: usize = 4096;
/// Most of each thing a QC may declare (sequences and `$animation`s, body groups, entries of
/// one group, attachments, texture folders). Real models stay far below (HL2 characters have a
/// few hundred sequences); the limits keep a hostile script of tiny commands from costing
/// more memory, or more file reads, than its text. Past a limit the rest are skipped with a
/// warning.
pub const MAX_ITEMS: usize = 16384;
/// Most unknown command names one warning lists.
const MAX_UNKNOWN: usize = 32;

/// Commands that do not change how a model looks: skipped without a warning.
const NO_EFFECT: &[&str] = &[
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
    "$texrendermode",
];

/// Which body of a `$bodygroup` to show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BodyChoice {
    /// The group's name (any case).
    pub group: String,
    /// A studio entry's file name without folders and `.smd` (any case), or `blank`.
    pub choice: String,
}

/// Where a command was written: the QC or include file, and the line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct At {
    /// The file as the loader named it.
    pub file: PathBuf,
    /// 1-based line.
    pub line: usize,
}

impl std::fmt::Display for At {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} line {}", self.file.display(), self.line)
    }
}

/// How a source file is placed in the model: studiomdl's `$scale`, `$origin` and turn.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Placement {
    /// Uniform scale.
    pub scale: f32,
    /// Subtracted from every point before turning and scaling.
    pub origin: Vec3,
    /// Degrees about Z beyond the 90° the model's orientation already carries.
    pub turn_degrees: f32,
}

impl Default for Placement {
    fn default() -> Self {
        Placement { scale: 1.0, origin: Vec3::ZERO, turn_degrees: 0.0 }
    }
}

impl Placement {
    fn is_identity(&self) -> bool {
        *self == Placement::default()
    }

    fn rotation(&self) -> Quat {
        Quat::from_rotation_z(self.turn_degrees.to_radians())
    }

    /// A model-space point of the source, placed.
    fn point(&self, p: Vec3) -> Vec3 {
        self.rotation() * (p - self.origin) * self.scale
    }

    /// A joint's parent-relative pose, placed: roots move with the model, every translation
    /// scales.
    fn pose(&self, pose: &mut JointPose, root: bool) {
        if root {
            pose.translation = self.point(pose.translation);
            pose.rotation = (self.rotation() * pose.rotation).normalize();
        } else {
            pose.translation *= self.scale;
        }
    }

    /// Places a reference model: its rest pose, vertices and normals. Influence positions are
    /// in their joint's frame, which turns with the model, so only the scale reaches them.
    pub fn place_model(&self, model: &mut Model) {
        if self.is_identity() {
            return;
        }
        let rotation = self.rotation();
        if let Some(skeleton) = &mut model.skeleton {
            for joint in &mut skeleton.joints {
                self.pose(&mut joint.rest, joint.parent.is_none());
            }
        }
        for mesh in &mut model.meshes {
            for p in &mut mesh.positions {
                *p = self.point(*p);
            }
            for n in &mut mesh.normals {
                *n = rotation * *n;
            }
            for influence in &mut mesh.influences {
                influence.position *= self.scale;
            }
        }
    }

    /// Places every frame of a skeletal clip of `skeleton`.
    pub fn place_clip(&self, skeleton: &Skeleton, clip: &mut Clip) {
        if self.is_identity() {
            return;
        }
        if let ClipFrames::Skeletal(frames) = &mut clip.frames {
            for frame in frames {
                for (pose, joint) in frame.iter_mut().zip(&skeleton.joints) {
                    self.pose(pose, joint.parent.is_none());
                }
            }
        }
    }
}

/// One entry of a body group.
#[derive(Debug, Clone, PartialEq)]
pub enum BodyEntry {
    /// A reference SMD.
    Studio {
        /// The file as written (the name `--body` matches, without folders and `.smd`).
        name: String,
        /// The file.
        path: PathBuf,
        /// Its placement.
        placement: Placement,
    },
    /// Nothing.
    Blank,
}

impl BodyEntry {
    /// The name a [`BodyChoice`] picks this entry by.
    pub fn choice_name(&self) -> String {
        match self {
            BodyEntry::Studio { name, .. } => {
                let base = name.rsplit('/').next().unwrap_or(name);
                strip_smd(base).to_string()
            }
            BodyEntry::Blank => "blank".to_string(),
        }
    }
}

/// A `$body`, `$model` or `$bodygroup`.
#[derive(Debug, Clone, PartialEq)]
pub struct BodyGroup {
    /// The group's name.
    pub name: String,
    /// Its entries; the first shows by default.
    pub entries: Vec<BodyEntry>,
    /// Where it was written.
    pub at: At,
}

/// A `$sequence`.
#[derive(Debug, Clone, PartialEq)]
pub struct Sequence {
    /// The clip's name.
    pub name: String,
    /// The SMD file (`None`: the sequence names no file).
    pub path: Option<PathBuf>,
    /// Frames per second.
    pub fps: f32,
    /// `LX`, `LY`, `LZ`: travel marked on the compiled model's axes.
    pub travel: [bool; 3],
    /// `frame A B`: the frames kept.
    pub frames: Option<(usize, usize)>,
    /// Its placement.
    pub placement: Placement,
    /// Where it was written.
    pub at: At,
}

/// An `$attachment`.
#[derive(Debug, Clone, PartialEq)]
pub struct AttachmentDef {
    /// Its name.
    pub name: String,
    /// The bone it hangs on.
    pub bone: String,
    /// Position in the bone's frame (model space with `absolute`), before placement.
    pub offset: Vec3,
    /// `absolute`: `offset` is a model-space position.
    pub absolute: bool,
    /// The placement in force when it was written.
    pub placement: Placement,
    /// Where it was written.
    pub at: At,
}

/// What a QC script asks for.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Qc {
    /// The QC file.
    pub file: PathBuf,
    /// Bodies, in order.
    pub groups: Vec<BodyGroup>,
    /// Sequences, in order.
    pub sequences: Vec<Sequence>,
    /// Attachment points.
    pub attachments: Vec<AttachmentDef>,
    /// Folders searched for textures, in order (`$cdtexture`, `$texturepath`, `$cdmaterials`,
    /// then the last `$cd`).
    pub texture_folders: Vec<PathBuf>,
    /// The placement in force at the end of the script (files added with `--anim` get it).
    pub placement: Placement,
    /// Non-fatal problems.
    pub warnings: Vec<String>,
}

/// An included file as the include callback read it: its path and text.
pub type Included = (PathBuf, String);

/// Reads a QC script. `include` reads an `$include` (a path joined to the including file's
/// folder): `Ok(Err(reason))` for a file that is missing or refused (a warning), `Err` for a
/// failure that stops the load (a budget overrun).
///
/// # Errors
/// A malformed number or option, naming the file and line; what `include` returns as `Err`.
pub fn parse(
    src: &str,
    file: &Path,
    include: &mut dyn FnMut(&Path) -> Result<std::result::Result<Included, String>>,
) -> Result<Qc> {
    let dir = file.parent().unwrap_or(Path::new("")).to_path_buf();
    let mut parser = Parser {
        home: dir.clone(),
        cd: dir,
        placement: Placement::default(),
        qc: Qc::default(),
        animations: HashMap::new(),
        unknown: BTreeSet::new(),
        unknown_count: 0,
        includes: 0,
        over: BTreeSet::new(),
        absolute_warned: false,
    };
    parser.script(src, file, 0, include)?;
    let mut qc = parser.qc;
    if parser.cd != parser.home && !qc.texture_folders.contains(&parser.cd) {
        qc.texture_folders.push(parser.cd.clone());
    }
    qc.placement = parser.placement;
    if !parser.unknown.is_empty() {
        let list: Vec<&str> = parser.unknown.iter().map(String::as_str).collect();
        let more = parser.unknown_count.saturating_sub(list.len());
        let more = if more > 0 { format!(" and {more} more") } else { String::new() };
        qc.warnings.push(format!(
            "{}: commands spritebake does not use were skipped: {}{more}",
            file.display(),
            list.join(", ")
        ));
    }
    for what in &parser.over {
        qc.warnings.push(format!("{}: more than {MAX_ITEMS} {what}; the rest were skipped", file.display()));
    }
    qc.file = file.to_path_buf();
    Ok(qc)
}

struct Parser {
    /// The QC's folder.
    home: PathBuf,
    /// `$cd`.
    cd: PathBuf,
    placement: Placement,
    qc: Qc,
    /// `$animation` definitions by lower-cased name: the sequence they make.
    animations: HashMap<String, Sequence>,
    /// Unknown command names (at most [`MAX_UNKNOWN`]) and how many distinct ones were seen.
    unknown: BTreeSet<String>,
    unknown_count: usize,
    includes: usize,
    /// What went over [`MAX_ITEMS`].
    over: BTreeSet<&'static str>,
    absolute_warned: bool,
}

/// `name` without a final `.smd` (any case).
fn strip_smd(name: &str) -> &str {
    match name.len().checked_sub(4) {
        Some(cut) if name.is_char_boundary(cut) && name[cut..].eq_ignore_ascii_case(".smd") => &name[..cut],
        _ => name,
    }
}

/// A file name as written in a QC: backslashes are separators.
fn written_path(name: &str) -> PathBuf {
    PathBuf::from(name.trim().replace('\\', "/"))
}

/// `relative` joined to `base`, `.` components dropped (`$cd "./"` names the QC's folder).
fn join(base: &Path, relative: &Path) -> PathBuf {
    let mut out = base.to_path_buf();
    for c in relative.components() {
        if c != std::path::Component::CurDir {
            out.push(c);
        }
    }
    out
}

/// True for an absolute or drive-letter path (`/x`, `C:/x`).
fn absolute(path: &Path) -> bool {
    let s = path.to_string_lossy();
    path.has_root() || s.as_bytes().get(1) == Some(&b':')
}

fn err(at: &At, message: impl Into<String>) -> Error {
    FormatError::at_line(FORMAT, at.line, message).in_file(&at.file).into()
}

/// Words that are options of `$sequence` and `$animation`, with how many values follow them.
fn option_values(word: &str) -> Option<usize> {
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
fn motion_flag(word: &str) -> Option<Option<usize>> {
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

impl Parser {
    /// Whether a list holding `len` items may take one more; notes the overrun once.
    fn room(&mut self, len: usize, what: &'static str) -> bool {
        if len < MAX_ITEMS {
            return true;
        }
        self.over.insert(what);
        false
    }

    fn script(
        &mut self,
        src: &str,
        file: &Path,
        depth: usize,
        include: &mut dyn FnMut(&Path) -> Result<std::result::Result<Included, String>>,
    ) -> Result<()> {
        let mut s = Tokens::new(FORMAT, Syntax::QC, src);
        while let Some(t) = s.next_token() {
            if t.is("{") {
                s.skip_block();
                continue;
            }
            if t.quoted || !t.text.starts_with('$') {
                continue;
            }
            let at = At { file: file.to_path_buf(), line: t.line };
            let command = t.text.to_ascii_lowercase();
            match command.as_str() {
                "$cd" => {
                    if let Some(dir) = self.folder(&mut s, &at) {
                        self.cd = dir;
                    }
                    skip_args(&mut s);
                }
                "$cdtexture" | "$texturepath" | "$cdmaterials" => {
                    while let Some(a) = arg(&mut s) {
                        if a.is("{") {
                            s.skip_block();
                        } else if let Some(dir) = self.folder_named(a.text, &at)
                            && !self.qc.texture_folders.contains(&dir)
                            && self.room(self.qc.texture_folders.len(), "texture folders")
                        {
                            self.qc.texture_folders.push(dir);
                        }
                    }
                }
                "$scale" => {
                    self.placement.scale = positive(number(&mut s, &at, "a scale")?, &at, "$scale")?;
                    skip_args(&mut s);
                }
                "$origin" => {
                    let [x, y, z] = [(); 3].map(|_| number(&mut s, &at, "3 numbers"));
                    self.placement.origin = Vec3::new(x?, y?, z?);
                    let turn = match s.peek() {
                        Some(t) if !is_command(&t) && t.text.parse::<f32>().is_ok() => number(&mut s, &at, "")?,
                        _ => 0.0,
                    };
                    self.placement.turn_degrees = turn;
                    skip_args(&mut s);
                }
                "$body" | "$model" => {
                    let name = word(&mut s, &at, "a body name")?;
                    let file = word(&mut s, &at, "a file name")?;
                    let entry = self.studio(&mut s, &file, &at, false)?;
                    skip_args(&mut s);
                    if self.room(self.qc.groups.len(), "bodies") {
                        self.qc.groups.push(BodyGroup { name, entries: vec![entry], at });
                    }
                }
                "$bodygroup" => {
                    let name = word(&mut s, &at, "a group name")?;
                    let entries = self.bodygroup(&mut s, &at)?;
                    if self.room(self.qc.groups.len(), "bodies") {
                        self.qc.groups.push(BodyGroup { name, entries, at });
                    }
                }
                "$sequence" | "$animation" => {
                    let name = word(&mut s, &at, "a sequence name")?;
                    let sequence = self.sequence(&mut s, name.clone(), at)?;
                    if command == "$sequence" {
                        if self.room(self.qc.sequences.len(), "sequences") {
                            self.qc.sequences.push(sequence);
                        }
                    } else if self.room(self.animations.len(), "$animations") {
                        self.animations.insert(name.to_lowercase(), sequence);
                    }
                }
                "$attachment" => {
                    let name = word(&mut s, &at, "an attachment name")?;
                    let bone = word(&mut s, &at, "a bone name")?;
                    let [x, y, z] = [(); 3].map(|_| number(&mut s, &at, "3 numbers"));
                    let offset = Vec3::new(x?, y?, z?);
                    let mut absolute = false;
                    while let Some(a) = arg(&mut s) {
                        absolute |= a.is_keyword("absolute");
                        if a.is("{") {
                            s.skip_block();
                        }
                    }
                    let placement = self.placement;
                    if self.room(self.qc.attachments.len(), "attachments") {
                        self.qc.attachments.push(AttachmentDef { name, bone, offset, absolute, placement, at });
                    }
                }
                "$include" => {
                    let name = word(&mut s, &at, "a file name")?;
                    skip_args(&mut s);
                    self.include(&name, file, depth, &at, include)?;
                }
                _ if NO_EFFECT.contains(&command.as_str()) => skip_args(&mut s),
                _ => {
                    if !self.unknown.contains(t.text) {
                        self.unknown_count += 1;
                        if self.unknown.len() < MAX_UNKNOWN {
                            self.unknown.insert(t.text.to_string());
                        }
                    }
                    skip_args(&mut s);
                }
            }
        }
        Ok(())
    }

    fn include(
        &mut self,
        name: &str,
        file: &Path,
        depth: usize,
        at: &At,
        include: &mut dyn FnMut(&Path) -> Result<std::result::Result<Included, String>>,
    ) -> Result<()> {
        if depth + 1 > MAX_INCLUDE_DEPTH {
            self.qc
                .warnings
                .push(format!("{at}: $include \"{name}\" skipped: includes nest deeper than {MAX_INCLUDE_DEPTH}"));
            return Ok(());
        }
        if self.includes >= MAX_INCLUDES {
            self.qc.warnings.push(format!("{at}: $include \"{name}\" skipped: more than {MAX_INCLUDES} includes"));
            return Ok(());
        }
        self.includes += 1;
        let path = join(file.parent().unwrap_or(Path::new("")), &written_path(name));
        match include(&path)? {
            Ok((path, text)) => self.script(&text, &path, depth + 1, include),
            Err(reason) => {
                self.qc.warnings.push(format!("{at}: $include \"{name}\" skipped: {reason}"));
                Ok(())
            }
        }
    }

    /// The folder a `$cd`-style command names, joined to the QC's folder; `None` (with a
    /// warning) for an absolute one.
    fn folder(&mut self, s: &mut Tokens, at: &At) -> Option<PathBuf> {
        let t = arg(s)?;
        self.folder_named(t.text, at)
    }

    fn folder_named(&mut self, name: &str, at: &At) -> Option<PathBuf> {
        let path = written_path(name);
        if absolute(&path) {
            if !std::mem::replace(&mut self.absolute_warned, true) {
                self.qc.warnings.push(format!(
                    "{at}: the absolute folder \"{name}\" is ignored, and any after it (folders are relative to \
                     the QC's folder)"
                ));
            }
            return None;
        }
        Some(join(&self.home, &path))
    }

    /// A studio entry's file, with its options (`reverse`, `scale N`) up to the next entry.
    fn studio(&mut self, s: &mut Tokens, file: &str, at: &At, in_group: bool) -> Result<BodyEntry> {
        let mut placement = self.placement;
        while let Some(t) = s.peek() {
            if is_command(&t) || (in_group && (t.is("}") || t.is_keyword("studio") || t.is_keyword("blank"))) {
                break;
            }
            s.next_token();
            if t.is_keyword("scale") {
                placement.scale = positive(number(s, at, "a scale")?, at, "scale")?;
            } else if t.is("{") {
                s.skip_block();
            }
        }
        let name = written_path(file).to_string_lossy().into_owned();
        Ok(BodyEntry::Studio { path: join(&self.cd, &smd_file(&name)), name, placement })
    }

    fn bodygroup(&mut self, s: &mut Tokens, at: &At) -> Result<Vec<BodyEntry>> {
        match s.peek() {
            Some(t) if t.is("{") => {
                s.next_token();
            }
            _ => {
                self.qc.warnings.push(format!("{at}: $bodygroup without a {{ block; skipped"));
                skip_args(s);
                return Ok(Vec::new());
            }
        }
        let mut entries = Vec::new();
        while let Some(t) = s.next_token() {
            if t.is("}") {
                break;
            } else if t.is("{") {
                s.skip_block();
            } else if t.is_keyword("studio") {
                let line = s.line();
                let file = word(s, &At { line, ..at.clone() }, "a file name")?;
                let entry = self.studio(s, &file, at, true)?;
                if self.room(entries.len(), "entries in one $bodygroup") {
                    entries.push(entry);
                }
            } else if t.is_keyword("blank") && self.room(entries.len(), "entries in one $bodygroup") {
                entries.push(BodyEntry::Blank);
            }
        }
        Ok(entries)
    }

    fn sequence(&mut self, s: &mut Tokens, name: String, at: At) -> Result<Sequence> {
        // `$sequence NAME { ... }` (Source) is read to its `}`; in the line form, a block that
        // starts with `event` (or another block) is skipped, any other holds more options.
        let braced = s.peek().is_some_and(|t| t.is("{"));
        let mut depth = usize::from(braced);
        if braced {
            s.next_token();
        }
        let mut sequence = Sequence {
            name,
            path: None,
            fps: smd::DEFAULT_FPS,
            travel: [false; 3],
            frames: None,
            placement: self.placement,
            at: at.clone(),
        };
        let mut fps = None;
        let mut rotate = None;
        // The file: the first quoted name or name with an extension, else the first word.
        let (mut named, mut first_word): (Option<Token>, Option<Token>) = (None, None);
        loop {
            let t = if depth > 0 {
                match s.next_token() {
                    Some(t) if t.is("}") => {
                        depth -= 1;
                        if depth == 0 && braced {
                            break;
                        }
                        continue;
                    }
                    Some(t) => t,
                    None => break,
                }
            } else {
                match arg(s) {
                    Some(t) => t,
                    None => break,
                }
            };
            let line_at = At { line: t.line, ..at.clone() };
            if t.is("{") {
                if s.peek().is_some_and(|n| n.is_keyword("event") || n.is("{") || n.is("}")) {
                    s.skip_block();
                } else {
                    depth += 1;
                }
            } else if t.quoted || (t.text.contains('.') && t.text.parse::<f32>().is_err()) {
                named = named.or(Some(t));
            } else if let Some(flag) = motion_flag(t.text) {
                if let Some(axis) = flag {
                    sequence.travel[axis] = true;
                }
            } else if let Some(count) = option_values(t.text) {
                match t.text.to_ascii_lowercase().as_str() {
                    "fps" => fps = Some(number(s, &line_at, "a frame rate")?),
                    "rotate" => rotate = Some(number(s, &line_at, "degrees")?),
                    "scale" => {
                        sequence.placement.scale = positive(number(s, &line_at, "a scale")?, &line_at, "scale")?;
                    }
                    "origin" => {
                        let [x, y, z] = [(); 3].map(|_| number(s, &line_at, "3 numbers"));
                        sequence.placement.origin = Vec3::new(x?, y?, z?);
                    }
                    "frame" => {
                        let first = number(s, &line_at, "a first frame")?;
                        let last = number(s, &line_at, "a last frame")?;
                        if first >= 0.0 && last >= first {
                            sequence.frames = Some((first as usize, last as usize));
                        }
                    }
                    _ => {
                        for _ in 0..count {
                            if s.peek().is_some_and(|v| !is_command(&v) && !v.is("}") && !v.is("{")) {
                                s.next_token();
                            }
                        }
                    }
                }
            } else if t.text.len() > 4 && t.text[..4].eq_ignore_ascii_case("ACT_") {
                // An activity and its weight.
                if s.peek().is_some_and(|v| v.text.parse::<f32>().is_ok()) {
                    s.next_token();
                }
            } else if t.text.parse::<f32>().is_err() {
                first_word = first_word.or(Some(t));
            }
        }
        let file = named.or(first_word).map(|t| t.text.to_string());
        if let Some(file) = file {
            match self.animations.get(&file.to_lowercase()) {
                Some(animation) => {
                    sequence.path = animation.path.clone();
                    fps = fps.or(Some(animation.fps));
                    for (t, a) in sequence.travel.iter_mut().zip(animation.travel) {
                        *t |= a;
                    }
                    sequence.frames = sequence.frames.or(animation.frames);
                    sequence.placement = animation.placement;
                }
                None => sequence.path = Some(join(&self.cd, &smd_file(&written_path(&file).to_string_lossy()))),
            }
        }
        if let Some(fps) = fps {
            if fps.is_finite() && (0.01..=1000.0).contains(&fps) {
                sequence.fps = fps;
            } else {
                self.qc.warnings.push(format!(
                    "{at}: sequence '{}': fps {fps} is not from 0.01 to 1000; {} used",
                    sequence.name,
                    smd::DEFAULT_FPS
                ));
            }
        }
        if let Some(rotate) = rotate {
            sequence.placement.turn_degrees = rotate;
        }
        Ok(sequence)
    }
}

/// `name` with `.smd` added unless it has an extension already (QCs name files without it).
fn smd_file(name: &str) -> PathBuf {
    let path = PathBuf::from(name);
    if path.extension().is_some() { path } else { PathBuf::from(format!("{name}.smd")) }
}

fn is_command(t: &Token) -> bool {
    !t.quoted && t.text.starts_with('$')
}

/// The next argument of the current command: `None` at the next command or the end.
fn arg<'a>(s: &mut Tokens<'a>) -> Option<Token<'a>> {
    match s.peek() {
        Some(t) if !is_command(&t) => s.next_token(),
        _ => None,
    }
}

/// Skips the rest of the current command's arguments (blocks included).
fn skip_args(s: &mut Tokens) {
    while let Some(t) = arg(s) {
        if t.is("{") {
            s.skip_block();
        }
    }
}

fn word(s: &mut Tokens, at: &At, what: &str) -> Result<String> {
    match arg(s) {
        Some(t) if !t.is("{") && !t.is("}") => Ok(t.text.to_string()),
        Some(t) => Err(err(&At { line: t.line, ..at.clone() }, format!("expected {what}, found `{}`", t.text))),
        None => Err(err(at, format!("expected {what}"))),
    }
}

fn number(s: &mut Tokens, at: &At, what: &str) -> Result<f32> {
    match arg(s) {
        Some(t) => match t.text.parse::<f32>() {
            Ok(x) if x.is_finite() => Ok(x),
            _ => Err(err(&At { line: t.line, ..at.clone() }, format!("expected {what}, found `{}`", t.text))),
        },
        None => Err(err(at, format!("expected {what}"))),
    }
}

fn positive(x: f32, at: &At, what: &str) -> Result<f32> {
    if x > 0.0 && x <= 1e6 { Ok(x) } else { Err(err(at, format!("{what} {x}: expected a number above 0"))) }
}

/// What [`build`] made: the model and where its textures may be.
#[derive(Debug)]
pub struct Built {
    /// The model.
    pub model: Model,
    /// Texture folders to search after the QC's own.
    pub texture_folders: Vec<PathBuf>,
    /// The placement for animation files added on top (`--anim walk.smd`).
    pub placement: Placement,
}

/// The chosen entry of every group.
fn chosen<'q>(qc: &'q Qc, choices: &[BodyChoice]) -> Result<Vec<(&'q BodyGroup, &'q BodyEntry)>> {
    for choice in choices {
        if !qc.groups.iter().any(|g| g.name.eq_ignore_ascii_case(&choice.group)) {
            let known = qc.groups.iter().map(|g| g.name.as_str());
            let list: Vec<&str> = qc.groups.iter().map(|g| g.name.as_str()).collect();
            return Err(suggest::UnknownName::new(
                "body group",
                &choice.group,
                known,
                format!("groups: {}", list.join(", ")),
            )
            .into());
        }
    }
    let mut out = Vec::new();
    for group in &qc.groups {
        let pick = choices.iter().rev().find(|c| c.group.eq_ignore_ascii_case(&group.name));
        let entry = match pick {
            Some(c) => {
                let found = group.entries.iter().find(|e| e.choice_name().eq_ignore_ascii_case(&c.choice));
                let Some(entry) = found else {
                    let entries: Vec<String> = group.entries.iter().map(BodyEntry::choice_name).collect();
                    let context = format!("group '{}' has: {}", group.name, entries.join(", "));
                    let known = entries.iter().map(String::as_str);
                    return Err(suggest::UnknownName::new("body", &c.choice, known, context).into());
                };
                entry
            }
            None => match group.entries.first() {
                Some(e) => e,
                None => continue,
            },
        };
        out.push((group, entry));
    }
    Ok(out)
}

/// Reads a QC script (its `$include`s through `files`) and builds its model with [`build`].
///
/// # Errors
/// As [`parse`] and [`build`].
pub fn load(src: &str, file: &Path, choices: &[BodyChoice], files: &mut Files, budget: &MemoryBudget) -> Result<Built> {
    let qc = {
        let mut include = |path: &Path| -> Result<std::result::Result<Included, String>> {
            match files.read(path) {
                Ok((_, bytes)) => {
                    let reading = (bytes.len() as u64).saturating_mul(2);
                    budget.charge(reading, || {
                        format!("{}: reading {} KiB", path.display(), bytes.len().div_ceil(1024))
                    })?;
                    Ok(Ok((path.to_path_buf(), String::from_utf8_lossy(&bytes).into_owned())))
                }
                Err(denied) => Ok(Err(format!("{} {denied}", path.display()))),
            }
        };
        parse(src, file, &mut include)?
    };
    build(qc, choices, files, budget)
}

/// Builds the model a parsed QC describes: the chosen bodies (reference SMDs, placed and
/// merged), every sequence as a clip, the attachment points. Files are read through `files`;
/// what they make spritebake allocate is charged to `budget`.
///
/// # Errors
/// A `--body` choice naming no group or entry, a chosen body file that is missing, refused or
/// malformed, a malformed sequence file, no body at all, the budget.
pub fn build(qc: Qc, choices: &[BodyChoice], files: &mut Files, budget: &MemoryBudget) -> Result<Built> {
    let mut model = Model::default();
    let mut warnings = qc.warnings.clone();
    for (group, entry) in chosen(&qc, choices)? {
        let BodyEntry::Studio { path, placement, name } = entry else { continue };
        let subject = format!("{}: body '{}' file '{name}'", group.at, group.name);
        let (_, bytes) = files.read(path).map_err(|d| match d {
            Denied::Missing(_) => err(&group.at, format!("body '{}': {} is missing", group.name, path.display())),
            refused => refused.into_error(path, &subject),
        })?;
        let cost = (bytes.len() as u64).saturating_mul(super::Format::Smd.parse_bytes_per_byte());
        budget.charge(cost, || format!("{}: parsing {} KiB of SMD", path.display(), bytes.len().div_ceil(1024)))?;
        let mut part =
            smd::parse_reference(&String::from_utf8_lossy(&bytes)).map_err(|e| Error::Format(e.in_file(path)))?;
        warnings.extend(part.warnings.drain(..).map(|w| format!("{}: {w}", path.display())));
        placement.place_model(&mut part);
        merge(&mut model, part, path, &mut warnings)?;
    }
    if model.meshes.is_empty() {
        let message = "no body to show: a $body, $model or $bodygroup must name a reference SMD";
        return Err(FormatError::whole_file(FORMAT, message).in_file(&qc.file).into());
    }
    let skeleton = model.skeleton.clone().unwrap_or_default();
    let mut missing = Vec::new();
    let mut names = HashSet::new();
    for sequence in &qc.sequences {
        if !names.insert(sequence.name.as_str()) {
            warnings.push(format!("{}: a second sequence '{}' skipped", sequence.at, sequence.name));
            continue;
        }
        if !add_sequence(&mut model, &skeleton, sequence, files, budget, &mut warnings)? {
            missing.push(sequence);
        }
    }
    if let Some(first) = missing.first() {
        // One folder for all (the usual case) is named once; otherwise each file in full.
        let folder_of = |s: &&Sequence| s.path.as_deref().and_then(Path::parent).map(Path::to_path_buf);
        let folder = folder_of(first).filter(|f| missing.iter().all(|s| folder_of(s).as_ref() == Some(f)));
        let list: Vec<String> = missing
            .iter()
            .map(|s| {
                let path = s.path.as_deref().unwrap_or(Path::new(""));
                let file = match &folder {
                    Some(_) => path.file_name().unwrap_or_default().to_string_lossy(),
                    None => path.to_string_lossy(),
                };
                format!("{} ({file}, line {})", s.name, s.at.line)
            })
            .collect();
        let from = folder.map(|f| format!(" from {}", f.display())).unwrap_or_default();
        warnings.push(format!(
            "{}: {} sequence(s) skipped, their files are missing{from}: {}",
            first.at.file.display(),
            missing.len(),
            list.join(", ")
        ));
    }
    for def in &qc.attachments {
        match attachment_point(&skeleton, def) {
            Some(point) => model.attachment_points.push(point),
            None => warnings.push(format!("{}: attachment '{}': no bone '{}'; skipped", def.at, def.name, def.bone)),
        }
    }
    model.warnings.extend(warnings);
    Ok(Built { model, texture_folders: qc.texture_folders, placement: qc.placement })
}

/// Adds a sequence's clip; `Ok(false)` when its file is missing (the caller lists those in
/// one warning).
fn add_sequence(
    model: &mut Model,
    skeleton: &Skeleton,
    sequence: &Sequence,
    files: &mut Files,
    budget: &MemoryBudget,
    warnings: &mut Vec<String>,
) -> Result<bool> {
    let at = &sequence.at;
    let name = &sequence.name;
    let Some(path) = &sequence.path else {
        warnings.push(format!("{at}: sequence '{name}' names no file; skipped"));
        return Ok(true);
    };
    let bytes = match files.read(path) {
        Ok((_, bytes)) => bytes,
        Err(Denied::Missing(_)) => return Ok(false),
        Err(refused) => {
            warnings.push(format!("{at}: sequence '{name}': {} {refused}; skipped", path.display()));
            return Ok(true);
        }
    };
    let reading = (bytes.len() as u64).saturating_mul(2);
    budget.charge(reading, || format!("{}: reading {} KiB", path.display(), bytes.len().div_ceil(1024)))?;
    let text = String::from_utf8_lossy(&bytes);
    let (mut clip, seq_warnings) =
        smd::parse_sequence_within(&text, name, skeleton, budget).map_err(|e| super::files::in_file(e, path))?;
    warnings.extend(seq_warnings.into_iter().map(|w| format!("{}: {w}", path.display())));
    clip.fps = sequence.fps;
    if let (Some((first, last)), ClipFrames::Skeletal(frames)) = (sequence.frames, &mut clip.frames) {
        if first < frames.len() {
            frames.truncate(last.saturating_add(1));
            frames.drain(..first);
        } else {
            warnings.push(format!(
                "{at}: sequence '{name}': frame {first} {last} is past its {} frames; every frame kept",
                frames.len()
            ));
        }
    }
    sequence.placement.place_clip(skeleton, &mut clip);
    if sequence.travel.iter().any(|&t| t) {
        // The compiled model faces +X: its X is the source's Y (turned 90° about Z).
        let [lx, ly, lz] = sequence.travel;
        model.marked_motion.push(MarkedMotion { clip: name.clone(), axes: [ly, lx, lz] });
    }
    model.clips.push(clip);
    Ok(true)
}

/// The attachment point `def` makes on `skeleton`'s rest pose.
fn attachment_point(skeleton: &Skeleton, def: &AttachmentDef) -> Option<AttachmentPoint> {
    let joint = skeleton
        .find(&def.bone)
        .or_else(|| skeleton.joints.iter().position(|j| j.name.eq_ignore_ascii_case(&def.bone)))?;
    let offset = if def.absolute {
        let rest = skeleton.to_model_space(&skeleton.rest_pose());
        let at = rest.get(joint).copied().unwrap_or(Affine3A::IDENTITY);
        at.inverse().transform_point3(def.placement.point(def.offset))
    } else {
        def.offset * def.placement.scale
    };
    Some(AttachmentPoint { name: def.name.clone(), joint, offset })
}

/// Merges a reference `part` into `model`: bones by name (the first file's rest pose and
/// parent win; a different parent is a warning), meshes and materials appended.
fn merge(model: &mut Model, mut part: Model, path: &Path, warnings: &mut Vec<String>) -> Result<()> {
    let Some(skeleton) = &mut model.skeleton else {
        *model = part;
        return Ok(());
    };
    let part_skeleton = part.skeleton.take().unwrap_or_default();
    let mut map = Vec::with_capacity(part_skeleton.joints.len());
    for joint in &part_skeleton.joints {
        let parent = joint.parent.and_then(|p| map.get(p).copied());
        match skeleton.find(&joint.name) {
            Some(i) => {
                if skeleton.joints.get(i).map(|j| j.parent) != Some(parent) {
                    warnings.push(format!(
                        "{}: bone '{}' has another parent than in the first body; the first's is kept",
                        path.display(),
                        joint.name
                    ));
                }
                map.push(i);
            }
            None => {
                if skeleton.joints.len() >= MAX_JOINTS {
                    return Err(Error::Invalid(format!(
                        "{}: the bodies together have more than {MAX_JOINTS} bones",
                        path.display()
                    )));
                }
                map.push(skeleton.joints.len());
                skeleton.joints.push(crate::model::Joint { parent, ..joint.clone() });
            }
        }
    }
    if model.meshes.len() + part.meshes.len() > super::MAX_MESHES {
        return Err(Error::Invalid(format!(
            "{}: the bodies together have more than {} materials",
            path.display(),
            super::MAX_MESHES
        )));
    }
    let material_base = model.materials.len();
    model.materials.append(&mut part.materials);
    for mut mesh in part.meshes {
        mesh.material += material_base;
        for influence in &mut mesh.influences {
            influence.joint = map.get(influence.joint as usize).copied().unwrap_or(0) as u32;
        }
        model.meshes.push(mesh);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_text(src: &str) -> Qc {
        parse(src, Path::new("m/x.qc"), &mut |p| Ok(Err(format!("{} is missing", p.display())))).unwrap()
    }

    #[test]
    fn commands_fill_bodies_sequences_and_folders() {
        let qc = parse_text(
            "$modelname \"x.mdl\"\n$cd \".\\src\"\n$cdtexture \"tex\"\n$scale 2\n$origin 1 2 3 90\n\
             $body studio \"ref\"\n$bodygroup heads { studio \"heads/a\" blank studio \"b.smd\" scale 3 }\n\
             $sequence walk \"walk\" LX fps 12 loop ACT_WALK 1 { event 1 2 }\n\
             $sequence idle { \"idle\" fps 10 frame 2 4 { event 5 0 } }\n$sequence turn turn rotate 45 {\n fps 8\n}\n\
             $attachment 0 \"hand\" 1 0 0 absolute\n$frob 1 2\n$wibble\n$hbox 0 \"x\" 1 2 3 4 5 6",
        );
        let dir = Path::new("m");
        assert_eq!(qc.texture_folders, vec![dir.join("tex"), dir.join("./src")]);
        assert_eq!(qc.groups.len(), 2);
        let BodyEntry::Studio { path, placement, .. } = &qc.groups[0].entries[0] else { panic!() };
        assert_eq!(path, &dir.join("./src/ref.smd"));
        assert_eq!(*placement, Placement { scale: 2.0, origin: Vec3::new(1.0, 2.0, 3.0), turn_degrees: 90.0 });
        let names: Vec<String> = qc.groups[1].entries.iter().map(BodyEntry::choice_name).collect();
        assert_eq!(names, ["a", "blank", "b"]);
        let BodyEntry::Studio { placement, .. } = &qc.groups[1].entries[2] else { panic!() };
        assert_eq!(placement.scale, 3.0);
        type Row<'a> = (&'a str, f32, [bool; 3], Option<(usize, usize)>);
        let seq: Vec<Row> = qc.sequences.iter().map(|s| (s.name.as_str(), s.fps, s.travel, s.frames)).collect();
        assert_eq!(
            seq,
            [
                ("walk", 12.0, [true, false, false], None),
                ("idle", 10.0, [false; 3], Some((2, 4))),
                ("turn", 8.0, [false; 3], None)
            ]
        );
        assert_eq!(qc.sequences[1].path.as_deref(), Some(dir.join("./src/idle.smd").as_path()));
        assert_eq!(qc.sequences[2].placement.turn_degrees, 45.0);
        assert!(qc.attachments[0].absolute && qc.attachments[0].bone == "hand");
        assert_eq!(qc.warnings.len(), 1, "{:?}", qc.warnings);
        assert!(qc.warnings[0].ends_with("skipped: $frob, $wibble"), "{:?}", qc.warnings);
    }

    #[test]
    fn bad_numbers_name_the_line_and_includes_are_bounded() {
        let e = parse("$cd .\n\n$scale big", Path::new("a.qc"), &mut |_| Ok(Err("missing".into())))
            .unwrap_err()
            .to_string();
        assert!(e.contains("a.qc") && e.contains("line 3") && e.contains("`big`"), "{e}");
        // A file including itself stops at the depth limit with a warning.
        let mut reads = 0;
        let qc = parse("$include \"self.qci\"\n$include \"self.qci\"", Path::new("self.qc"), &mut |p| {
            reads += 1;
            Ok(Ok((p.to_path_buf(), "$include \"self.qci\"\n$include \"self.qci\"".to_string())))
        })
        .unwrap();
        assert!(reads <= MAX_INCLUDES, "{reads} reads");
        assert!(qc.warnings.iter().any(|w| w.contains("skipped")), "{:?}", qc.warnings);
    }

    #[test]
    fn scripts_of_tiny_commands_stay_bounded() {
        let many = "$attachment a b 0 0 0\n$sequence s s\n$xyz\n".repeat(MAX_ITEMS + 5);
        let unknown: String = (0..100).map(|i| format!("$unknown{i}\n")).collect();
        let qc = parse_text(&(many + &unknown));
        assert_eq!((qc.attachments.len(), qc.sequences.len()), (MAX_ITEMS, MAX_ITEMS));
        let over: Vec<&String> = qc.warnings.iter().filter(|w| w.contains("the rest were skipped")).collect();
        assert_eq!(over.len(), 2, "{:?}", qc.warnings);
        let unknown = qc.warnings.iter().find(|w| w.contains("does not use")).unwrap();
        assert!(unknown.ends_with("and 69 more"), "{unknown}");
    }

    #[test]
    fn placement_moves_roots_and_scales_every_translation() {
        let p = Placement { scale: 2.0, origin: Vec3::new(1.0, 0.0, 0.0), turn_degrees: 90.0 };
        assert!((p.point(Vec3::new(2.0, 0.0, 0.0)) - Vec3::new(0.0, 2.0, 0.0)).length() < 1e-5);
        let mut root = JointPose { translation: Vec3::new(1.0, 1.0, 0.0), ..JointPose::IDENTITY };
        p.pose(&mut root, true);
        assert!((root.translation - Vec3::new(-2.0, 0.0, 0.0)).length() < 1e-5);
        let mut child = JointPose { translation: Vec3::new(1.0, 1.0, 0.0), ..JointPose::IDENTITY };
        p.pose(&mut child, false);
        assert_eq!(child.translation, Vec3::new(2.0, 2.0, 0.0));
    }
}
