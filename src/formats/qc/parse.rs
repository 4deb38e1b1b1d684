//! [`parse`]: a QC script and its `$include`s read into a [`Qc`], without touching a file it
//! names (includes come through a callback).

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use glam::Vec3;

use super::commands::{NO_EFFECT, arg, is_command, motion_flag, number, option_values, positive, skip_args, word};
use super::script::{At, AttachmentDef, BodyEntry, BodyGroup, FORMAT, Included, Placement, Qc, Sequence, TextureMode};
use crate::error::Result;
use crate::formats::smd;
use crate::formats::tokens::{Syntax, Token, Tokens};

/// How deep `$include`s may nest.
pub const MAX_INCLUDE_DEPTH: usize = 8;
/// How many `$include`s one QC may read in all (a file including itself twice at every level
/// would otherwise ask for 2⁸ reads).
pub const MAX_INCLUDES: usize = 64;
/// Most of each thing a QC may declare (sequences and `$animation`s, body groups, entries of
/// one group, attachments, texture folders). Real models stay far below (HL2 characters have a
/// few hundred sequences); the limits keep a hostile script of tiny commands from costing
/// more memory, or more file reads, than its text. Past a limit the rest are skipped with a
/// warning.
pub const MAX_ITEMS: usize = 16384;
/// Most unknown command names one warning lists.
const MAX_UNKNOWN: usize = 32;

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
                "$texrendermode" => {
                    let texture = word(&mut s, &at, "a texture name")?;
                    let mode = word(&mut s, &at, "a render mode")?;
                    skip_args(&mut s);
                    let drawn = match mode.to_ascii_lowercase().as_str() {
                        "masked" => Some(TextureMode::Masked),
                        "additive" => Some(TextureMode::Additive),
                        "chrome" => Some(TextureMode::Chrome),
                        // `fullbright` and `flatshade` change lighting a sprite's key light
                        // stands in for.
                        _ => None,
                    };
                    match drawn {
                        None => self
                            .qc
                            .warnings
                            .push(format!("{at}: $texrendermode {texture} {mode}: drawn as an ordinary texture")),
                        Some(mode) if self.room(self.qc.texture_modes.len(), "texture render modes") => {
                            self.qc.texture_modes.push((texture.to_lowercase(), mode));
                        }
                        Some(_) => {}
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
            loops: false,
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
                    "loop" => sequence.loops = true,
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
            } else if t.text.len() > 4 && t.text.get(..4).is_some_and(|p| p.eq_ignore_ascii_case("ACT_")) {
                // (`get`: a token may start with a character of several bytes.)
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
        // `loop` on the line form; the others play once.
        let loops: Vec<bool> = qc.sequences.iter().map(|s| s.loops).collect();
        assert_eq!(loops, [true, false, false]);
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
}
