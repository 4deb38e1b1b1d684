//! The directions of a sprite job and their names.
//!
//! Direction `d` of `n` shows the model turned `360 × d / n` degrees clockwise seen from above
//! (the camera orbits the other way), starting from its front facing the camera. Names are
//! compass points relative to the screen, as a top-down or isometric game places its camera
//! in the south: `S` faces the viewer (down the screen), `W` faces screen-left, `N` away, `E`
//! screen-right. The 16 points in turning order are `S, SSW, SW, WSW, W, ... SSE`; fewer
//! directions take every 2nd, 4th, 8th of them (8: `S, SW, W, NW, N, NE, E, SE`; 4: `S, W, N,
//! E`; 2: `S, N`; 1: `S`). Other counts are named by their angle in whole or fractional
//! degrees, the point written `_` (names go into file names): 6 gives `0, 60, 120, 180, 240,
//! 300`, 32 gives `0, 11_25, 22_5, ...`.
//!
//! Names a user gives instead (`--direction-names`) end up in frame names, animation names,
//! JSON keys and file names, so they are short ASCII words: letters, digits, `-` and `_`, at
//! most [`MAX_NAME_LEN`] bytes, and unique ignoring case (case-insensitive file systems
//! would write `s` and `S` to one file).
//!
//! **Mirrored directions.** Most 8-direction games draw the east-facing half as the west-facing
//! half flipped. With mirroring on ([`Directions::mirrored`]), the directions from the front
//! round the model's right side to the back (`S, SW, W, NW, N` of 8: turns of 0 to 180°) are
//! rendered, and each one past the back (`NE, E, SE`) is the flipped image of the direction
//! as far the other way round: direction `d` of `n` shows direction `n − d` flipped.

use serde_json::{Value, json};

/// The 16 compass points in turning order, from facing the viewer.
const COMPASS_16: [&str; 16] =
    ["S", "SSW", "SW", "WSW", "W", "WNW", "NW", "NNW", "N", "NNE", "NE", "ENE", "E", "ESE", "SE", "SSE"];

/// Longest direction name, bytes.
pub(super) const MAX_NAME_LEN: usize = 32;

/// The directions of a sprite job: their count and names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Directions {
    names: Vec<String>,
    /// Whether the directions past the back are their mirror images' flips (see the module
    /// notes).
    mirror: bool,
}

impl Default for Directions {
    /// One direction, `S`.
    fn default() -> Self {
        Directions::compass(1)
    }
}

impl Directions {
    /// `count` directions named by compass (see the module notes); a count that does not
    /// divide 16 is named by its angles. At least one direction.
    pub fn compass(count: u32) -> Directions {
        let count = count.max(1);
        let names = match 16u32.checked_rem(count) {
            Some(0) => (0..count).map(|d| COMPASS_16[(d * (16 / count)) as usize].to_string()).collect(),
            _ => (0..count).map(|d| degree_name(360.0 * f64::from(d) / f64::from(count))).collect(),
        };
        Directions { names, mirror: false }
    }

    /// Directions with these names, in turning order.
    ///
    /// # Errors
    /// No names, an empty or too long name, a character other than ASCII letters, digits, `-`
    /// and `_`, or two names equal ignoring case; the message says which.
    pub fn named(names: Vec<String>) -> Result<Directions, String> {
        if names.is_empty() {
            return Err("at least one name".into());
        }
        for (i, name) in names.iter().enumerate() {
            if name.is_empty() || name.len() > MAX_NAME_LEN {
                return Err(format!("name {} is {} bytes long; names are 1 to {MAX_NAME_LEN}", i + 1, name.len()));
            }
            if let Some(c) = name.chars().find(|c| !(c.is_ascii_alphanumeric() || *c == '-' || *c == '_')) {
                return Err(format!(
                    "'{name}' has {c:?}; names take ASCII letters, digits, '-' and '_' (they go into file names and JSON keys)"
                ));
            }
            if let Some(other) = names[..i].iter().find(|o| o.eq_ignore_ascii_case(name)) {
                return Err(format!("'{other}' and '{name}' are the same name (names are compared ignoring case)"));
            }
        }
        Ok(Directions { names, mirror: false })
    }

    /// These directions with mirroring on or off (see the module notes).
    pub fn mirrored(self, mirror: bool) -> Directions {
        Directions { mirror, ..self }
    }

    /// The direction whose flipped image direction `d` shows: `n − d` for a direction past the
    /// back when mirroring (`NE` of 8 shows `NW` flipped), else `None` (`d` is rendered).
    pub fn source_of(&self, d: u32) -> Option<u32> {
        let n = self.count();
        (self.mirror && d < n && 2 * d > n).then(|| n - d)
    }

    /// Whether some direction is the flip of another.
    pub fn mirrors(&self) -> bool {
        self.rendered_count() < self.count()
    }

    /// Whether direction `d` is rendered: it is not the flip of another.
    pub fn is_rendered(&self, d: u32) -> bool {
        self.source_of(d).is_none()
    }

    /// How many directions are rendered: all, or with mirroring those from the front to the
    /// back (5 of 8, 9 of 16, 4 of 6).
    pub fn rendered_count(&self) -> u32 {
        (0..self.count()).filter(|&d| self.is_rendered(d)).count() as u32
    }

    /// How many directions.
    pub fn count(&self) -> u32 {
        self.names.len() as u32
    }

    /// The names, in turning order.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The name of direction `d` (its index for one the job does not have).
    pub fn name(&self, d: u32) -> String {
        self.names.get(d as usize).cloned().unwrap_or_else(|| d.to_string())
    }

    /// The direction of this name, ignoring case.
    pub fn index_of(&self, name: &str) -> Option<u32> {
        self.names.iter().position(|n| n.eq_ignore_ascii_case(name)).map(|d| d as u32)
    }

    /// Degrees the model is turned in direction `d`, clockwise seen from above from facing the
    /// viewer: `360 × d / count`. The camera orbits by the same angle the other way.
    pub fn angle(&self, d: u32) -> f32 {
        360.0 * d as f32 / self.count().max(1) as f32
    }

    /// The table a sheet's JSON carries: `[{"index": 0, "name": "S", "angle": 0}, ...]`, a
    /// mirrored direction with the name of the one it shows flipped: `"flippedFrom": "NW"`.
    pub fn to_json(&self) -> Value {
        let entry = |(d, name): (usize, &String)| {
            let mut entry = json!({"index": d, "name": name, "angle": self.angle(d as u32)});
            if let Some(source) = self.source_of(d as u32) {
                entry["flippedFrom"] = json!(self.name(source));
            }
            entry
        };
        Value::Array(self.names.iter().enumerate().map(entry).collect())
    }
}

/// An angle as a direction name: degrees to two decimals, without trailing zeros, the point
/// written `_` (`60`, `11_25`, `51_43`). Two directions of a job up to 64 are at least 5.6°
/// apart, so their names differ.
fn degree_name(degrees: f64) -> String {
    let text = format!("{degrees:.2}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    text.replace('.', "_")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(d: &Directions) -> Vec<&str> {
        d.names().iter().map(String::as_str).collect()
    }

    #[test]
    fn compass_names_for_every_count() {
        assert_eq!(names(&Directions::compass(1)), ["S"]);
        assert_eq!(names(&Directions::compass(2)), ["S", "N"]);
        assert_eq!(names(&Directions::compass(4)), ["S", "W", "N", "E"]);
        assert_eq!(names(&Directions::compass(8)), ["S", "SW", "W", "NW", "N", "NE", "E", "SE"]);
        assert_eq!(Directions::compass(16).names(), COMPASS_16);
        assert_eq!(names(&Directions::compass(3)), ["0", "120", "240"]);
        assert_eq!(names(&Directions::compass(6)), ["0", "60", "120", "180", "240", "300"]);
        let vehicle = Directions::compass(32);
        assert_eq!(names(&vehicle)[..4], ["0", "11_25", "22_5", "33_75"]);
        assert_eq!(vehicle.angle(1), 11.25);
        let seven = Directions::compass(7);
        assert_eq!(names(&seven)[1], "51_43");
        // Every count's names are unique and valid as user-given names would be.
        for count in 1..=64 {
            let d = Directions::compass(count);
            assert_eq!(Directions::named(d.names().to_vec()).as_ref(), Ok(&d), "{count} directions");
        }
        let eight = Directions::compass(8);
        assert_eq!((eight.angle(1), eight.angle(6), eight.index_of("ne")), (45.0, 270.0, Some(5)));
        assert_eq!(eight.to_json()[2], json!({"index": 2, "name": "W", "angle": 90.0}));
    }

    #[test]
    fn mirrored_directions_show_the_one_as_far_round_the_other_way() {
        let eight = Directions::compass(8).mirrored(true);
        let sources: Vec<Option<u32>> = (0..8).map(|d| eight.source_of(d)).collect();
        assert_eq!(sources, [None, None, None, None, None, Some(3), Some(2), Some(1)]);
        assert_eq!((eight.rendered_count(), eight.name(5), eight.name(3)), (5, "NE".into(), "NW".into()));
        // Each mirrored direction's angle is its source's turned over: 360 - a.
        for n in [3, 6, 12, 16, 32, 64] {
            let d = Directions::compass(n).mirrored(true);
            for k in (0..n).filter(|&k| !d.is_rendered(k)) {
                let source = d.source_of(k).unwrap();
                assert!(d.is_rendered(source), "{n}: {k}");
                assert!((d.angle(k) + d.angle(source) - 360.0).abs() < 1e-3, "{n}: {k}");
            }
            assert_eq!(d.rendered_count(), n / 2 + 1, "{n}");
        }
        assert_eq!(Directions::compass(2).mirrored(true).rendered_count(), 2);
        assert_eq!(Directions::compass(8).rendered_count(), 8);
        assert!(eight.mirrors() && !Directions::compass(8).mirrors());
        assert_eq!(eight.to_json()[7], json!({"index": 7, "name": "SE", "angle": 315.0, "flippedFrom": "SW"}));
        assert_eq!(eight.to_json()[4], json!({"index": 4, "name": "N", "angle": 180.0}));
    }

    #[test]
    fn names_that_would_break_files_or_keys_are_refused() {
        let named = |list: &[&str]| Directions::named(list.iter().map(|s| s.to_string()).collect());
        assert_eq!(
            names(&named(&["front", "left_side", "back-1", "R"]).unwrap()),
            ["front", "left_side", "back-1", "R"]
        );
        for (list, words) in [
            (&[][..], "at least one"),
            (&["S", ""][..], "name 2 is 0 bytes"),
            (&["a/b"][..], "'a/b' has '/'"),
            (&["..", "x"][..], "'..' has '.'"),
            (&["Süd"][..], "'Süd' has 'ü'"),
            (&["S", "W", "s"][..], "'S' and 's' are the same name"),
        ] {
            let e = named(list).unwrap_err();
            assert!(e.contains(words), "{list:?}: {e}");
        }
        assert!(named(&["x".repeat(33).as_str()]).unwrap_err().contains("1 to 32"));
    }
}
