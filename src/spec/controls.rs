//! Animation controls as users write them — clip and joint *names*, attachment *files*.
//!
//! The command line and `check` manifests share these text forms (and this code):
//!
//! | form | meaning |
//! |---|---|
//! | `FILE` | attach a model in lockstep (Quake 2 linked model, e.g. `weapon.md2`) |
//! | `FILE@NAME` | attach a model's rest pose to a joint, attachment point or tag (split at the last `@`) |
//! | `t=x,y,z;r=yaw,pitch,roll;s=k` | attachment offset: translation, degrees, uniform scale (groups optional, any order) |
//! | `JOINT:yaw=Y,pitch=P,roll=R` | bone override in degrees (keys optional, split at the last `:`) |
//! | `CLIP:WEIGHT` | blend CLIP into the motion with WEIGHT in 0..=1 |
//! | `A->B:SECONDS` | transition from clip A into clip B over SECONDS |
//!
//! Offsets and overrides use the rotation `Rz(yaw) · Ry(pitch) · Rx(roll)` (see
//! [`anim::rotation_from_degrees`]). An unknown clip or joint name is an error that names the
//! closest known names.
//!
//! Resolving them against a loaded model is [`crate::bake::frame::rig`]'s job.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use glam::{Affine3A, Quat, Vec3};

use crate::anim;
use crate::error::{Error, Result};

/// Where and how an attachment sits relative to its joint (or the body), applied as
/// `T(translation) · R(yaw, pitch, roll) · S(scale)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Offset {
    /// Translation.
    pub translation: Vec3,
    /// Rotation about Z, degrees.
    pub yaw: f32,
    /// Rotation about Y, degrees.
    pub pitch: f32,
    /// Rotation about X, degrees.
    pub roll: f32,
    /// Uniform scale. The default is 1.
    pub scale: f32,
}

impl Default for Offset {
    fn default() -> Self {
        Offset { translation: Vec3::ZERO, yaw: 0.0, pitch: 0.0, roll: 0.0, scale: 1.0 }
    }
}

impl Offset {
    /// The offset as an affine transform.
    pub fn to_affine(self) -> Affine3A {
        if self == Offset::default() {
            return Affine3A::IDENTITY;
        }
        let rotation: Quat = anim::rotation_from_degrees(self.yaw, self.pitch, self.roll);
        Affine3A::from_scale_rotation_translation(Vec3::splat(self.scale), rotation, self.translation)
    }
}

fn numbers(s: &str) -> Option<Vec<f32>> {
    s.split(',').map(|p| p.trim().parse::<f32>().ok().filter(|v| v.is_finite())).collect()
}

impl FromStr for Offset {
    type Err = String;

    /// `t=X,Y,Z;r=YAW,PITCH,ROLL;s=SCALE`: groups in any order, each optional, each at most once.
    fn from_str(s: &str) -> Result<Offset, String> {
        let bad = |why: &str| format!("bad offset '{s}': {why} (expected e.g. 't=0,0,-11;r=0,90,0;s=1.5')");
        let mut offset = Offset::default();
        let mut seen: Vec<String> = Vec::new();
        for group in s.split(';').map(str::trim).filter(|g| !g.is_empty()) {
            let (key, values) = group.split_once('=').ok_or_else(|| bad(&format!("'{group}' is not KEY=NUMBERS")))?;
            let key = key.trim().to_ascii_lowercase();
            if seen.contains(&key) {
                return Err(bad(&format!("'{key}' given twice")));
            }
            let v = numbers(values).ok_or_else(|| bad(&format!("'{values}' is not a list of numbers")))?;
            match (key.as_str(), v.as_slice()) {
                ("t", &[x, y, z]) => offset.translation = Vec3::new(x, y, z),
                ("r", &[yaw, pitch, roll]) => (offset.yaw, offset.pitch, offset.roll) = (yaw, pitch, roll),
                ("s", &[scale]) if scale > 0.0 => offset.scale = scale,
                ("t", _) => return Err(bad("t takes three numbers x,y,z")),
                ("r", _) => return Err(bad("r takes three angles yaw,pitch,roll in degrees")),
                ("s", _) => return Err(bad("s takes one number above 0")),
                _ => return Err(bad(&format!("unknown key '{key}' (t, r or s)"))),
            }
            seen.push(key);
        }
        if seen.is_empty() {
            return Err(bad("nothing given"));
        }
        Ok(offset)
    }
}

/// `FILE` or `FILE@NAME`.
#[derive(Debug, Clone, PartialEq)]
pub struct AttachSpec {
    /// The model file.
    pub path: PathBuf,
    /// The joint, attachment point or tag to hang it on; `None` for lockstep (linked models).
    pub joint: Option<String>,
    /// Placement relative to the joint (or the body).
    pub offset: Offset,
}

impl AttachSpec {
    /// `path` attached in lockstep with no offset.
    pub fn new(path: impl Into<PathBuf>) -> AttachSpec {
        AttachSpec { path: path.into(), joint: None, offset: Offset::default() }
    }
}

impl FromStr for AttachSpec {
    type Err = String;

    fn from_str(s: &str) -> Result<AttachSpec, String> {
        // Joint names may contain spaces and '@' is rare in file names: split at the last '@'.
        let (path, joint) = match s.rsplit_once('@') {
            Some((p, j)) => (p, Some(j.to_string())),
            None => (s, None),
        };
        if path.trim().is_empty() || joint.as_deref().is_some_and(str::is_empty) {
            return Err(format!("bad attachment '{s}' (expected 'FILE' or 'FILE@NAME')"));
        }
        Ok(AttachSpec { joint, ..AttachSpec::new(path) })
    }
}

/// `JOINT:yaw=Y,pitch=P,roll=R`.
#[derive(Debug, Clone, PartialEq)]
pub struct BoneSpec {
    /// Joint name.
    pub joint: String,
    /// Degrees about the joint's Z axis.
    pub yaw: f32,
    /// Degrees about its Y axis.
    pub pitch: f32,
    /// Degrees about its X axis.
    pub roll: f32,
}

impl FromStr for BoneSpec {
    type Err = String;

    fn from_str(s: &str) -> Result<BoneSpec, String> {
        let bad = |why: &str| format!("bad bone override '{s}': {why} (expected 'JOINT:yaw=30,pitch=-10,roll=0')");
        let (joint, angles) = s.rsplit_once(':').ok_or_else(|| bad("no ':'"))?;
        if joint.is_empty() {
            return Err(bad("no joint name"));
        }
        let mut spec = BoneSpec { joint: joint.to_string(), yaw: 0.0, pitch: 0.0, roll: 0.0 };
        for item in angles.split(',').map(str::trim).filter(|i| !i.is_empty()) {
            let (key, value) = item.split_once('=').ok_or_else(|| bad(&format!("'{item}' is not KEY=DEGREES")))?;
            let value: f32 = value
                .trim()
                .parse()
                .ok()
                .filter(|v: &f32| v.is_finite())
                .ok_or_else(|| bad(&format!("'{value}' is not a number")))?;
            match key.trim().to_ascii_lowercase().as_str() {
                "yaw" => spec.yaw = value,
                "pitch" => spec.pitch = value,
                "roll" => spec.roll = value,
                other => return Err(bad(&format!("unknown angle '{other}' (yaw, pitch or roll)"))),
            }
        }
        Ok(spec)
    }
}

/// `CLIP:WEIGHT`.
#[derive(Debug, Clone, PartialEq)]
pub struct BlendSpec {
    /// Clip name (or animation file stem).
    pub clip: String,
    /// Weight in 0..=1.
    pub weight: f32,
}

impl FromStr for BlendSpec {
    type Err = String;

    fn from_str(s: &str) -> Result<BlendSpec, String> {
        let bad = || format!("bad blend '{s}' (expected 'CLIP:WEIGHT' with WEIGHT from 0 to 1)");
        let (clip, weight) = s.rsplit_once(':').ok_or_else(bad)?;
        let weight: f32 = weight.trim().parse().map_err(|_| bad())?;
        if clip.is_empty() || !(0.0..=1.0).contains(&weight) {
            return Err(bad());
        }
        Ok(BlendSpec { clip: clip.to_string(), weight })
    }
}

/// The longest crossfade accepted: a sequence is as long as its crossfade, and every frame of
/// it is rendered.
pub const MAX_FADE_SECONDS: f32 = 60.0;

/// `A->B:SECONDS`.
#[derive(Debug, Clone, PartialEq)]
pub struct TransitionSpec {
    /// Clip played first.
    pub from: String,
    /// Clip faded into.
    pub to: String,
    /// Crossfade length in seconds.
    pub seconds: f32,
}

impl FromStr for TransitionSpec {
    type Err = String;

    fn from_str(s: &str) -> Result<TransitionSpec, String> {
        let bad = || {
            format!(
                "bad transition '{s}' (expected 'FROM->TO:SECONDS' with SECONDS from 0 to {MAX_FADE_SECONDS}, e.g. 'walk->run:0.5')"
            )
        };
        let (clips, seconds) = s.rsplit_once(':').ok_or_else(bad)?;
        let (from, to) = clips.split_once("->").ok_or_else(bad)?;
        let seconds: f32 = seconds.trim().parse().map_err(|_| bad())?;
        if from.is_empty() || to.is_empty() || !(0.0..=MAX_FADE_SECONDS).contains(&seconds) {
            return Err(bad());
        }
        Ok(TransitionSpec { from: from.to_string(), to: to.to_string(), seconds })
    }
}

/// Every animation control, as written.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Controls {
    /// Models drawn with the body.
    pub attachments: Vec<AttachSpec>,
    /// Extra joint rotations.
    pub bones: Vec<BoneSpec>,
    /// A clip mixed into the motion.
    pub blend: Option<BlendSpec>,
    /// Crossfade sequences (sprite commands render each as one more clip).
    pub transitions: Vec<TransitionSpec>,
}

impl Controls {
    /// Gives the i-th offset to the i-th attachment.
    ///
    /// # Errors
    /// More offsets than attachments.
    pub fn set_offsets(&mut self, offsets: &[Offset]) -> Result<()> {
        if offsets.len() > self.attachments.len() {
            return Err(Error::Invalid(format!(
                "{} attachment offsets for {} attachments (each offset goes with the attachment in the same position)",
                offsets.len(),
                self.attachments.len()
            )));
        }
        for (a, o) in self.attachments.iter_mut().zip(offsets) {
            a.offset = *o;
        }
        Ok(())
    }
}

impl fmt::Display for Offset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let t = self.translation;
        write!(f, "t={},{},{};r={},{},{};s={}", t.x, t.y, t.z, self.yaw, self.pitch, self.roll, self.scale)
    }
}

impl fmt::Display for AttachSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.path.display())?;
        match &self.joint {
            Some(j) => write!(f, "@{j}"),
            None => Ok(()),
        }
    }
}

impl fmt::Display for BoneSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:yaw={},pitch={},roll={}", self.joint, self.yaw, self.pitch, self.roll)
    }
}

impl fmt::Display for BlendSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.clip, self.weight)
    }
}

impl fmt::Display for TransitionSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}->{}:{}", self.from, self.to, self.seconds)
    }
}

super::values::text_serde!(Offset, AttachSpec, BoneSpec, BlendSpec, TransitionSpec);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_forms() {
        let a: AttachSpec = "sword.obj@Bip01 R Hand".parse().unwrap();
        assert_eq!((a.path, a.joint.as_deref()), (PathBuf::from("sword.obj"), Some("Bip01 R Hand")));
        assert_eq!("weapon.md2".parse::<AttachSpec>().unwrap().joint, None);
        assert!("x.obj@".parse::<AttachSpec>().is_err());
        let b: BoneSpec = "Bip01 Head:yaw=30,pitch=-10".parse().unwrap();
        assert_eq!((b.joint.as_str(), b.yaw, b.pitch, b.roll), ("Bip01 Head", 30.0, -10.0, 0.0));
        assert!("head:tilt=3".parse::<BoneSpec>().is_err());
        assert!("head".parse::<BoneSpec>().is_err());
        assert_eq!("run:0.25".parse::<BlendSpec>().unwrap(), BlendSpec { clip: "run".into(), weight: 0.25 });
        assert!("run:1.5".parse::<BlendSpec>().is_err());
        let t: TransitionSpec = "walk->run:0.5".parse().unwrap();
        assert_eq!((t.from.as_str(), t.to.as_str(), t.seconds), ("walk", "run", 0.5));
        for bad in ["walk-run:1", "walk->run:-1", "walk->run:1e9", "walk->run:nan", "->run:1", "walk->run"] {
            assert!(bad.parse::<TransitionSpec>().is_err(), "{bad}");
        }
        let o: Offset = "t=1,2,3; r=90,0,0; s=2".parse().unwrap();
        assert_eq!((o.translation, o.yaw, o.scale), (Vec3::new(1.0, 2.0, 3.0), 90.0, 2.0));
        assert!((o.to_affine().transform_point3(Vec3::X) - Vec3::new(1.0, 4.0, 3.0)).length() < 1e-5);
        assert_eq!("s=3;t=0,0,-1".parse::<Offset>().unwrap().translation, Vec3::NEG_Z);
        assert_eq!("t=0,0,0".parse::<Offset>().unwrap().to_affine(), Affine3A::IDENTITY);
        for bad in ["1,2,3", "t=1,2", "r=90", "s=0", "s=-1", "q=1", "t=1,2,3;t=1,2,3", "", "t=a,b,c", "s=inf"] {
            assert!(bad.parse::<Offset>().is_err(), "{bad}");
        }
        // Every text form reads back what it writes.
        assert_eq!(o.to_string().parse::<Offset>().unwrap(), o);
        let a: AttachSpec = "sword.obj@Bip01 R Hand".parse().unwrap();
        assert_eq!(a.to_string().parse::<AttachSpec>().unwrap(), a);
        assert_eq!(b.to_string().parse::<BoneSpec>().unwrap(), b);
        assert_eq!(t.to_string().parse::<TransitionSpec>().unwrap(), t);
    }
}
