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

use serde_json::{Value, json};

/// The 16 compass points in turning order, from facing the viewer.
const COMPASS_16: [&str; 16] =
    ["S", "SSW", "SW", "WSW", "W", "WNW", "NW", "NNW", "N", "NNE", "NE", "ENE", "E", "ESE", "SE", "SSE"];

/// Longest direction name, bytes.
pub const MAX_NAME_LEN: usize = 32;

/// The directions of a sprite job: their count and names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Directions {
    names: Vec<String>,
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
        Directions { names }
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
        Ok(Directions { names })
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

    /// The table a sheet's JSON carries: `[{"index": 0, "name": "S", "angle": 0}, ...]`.
    pub fn to_json(&self) -> Value {
        let entry = |(d, name): (usize, &String)| json!({"index": d, "name": name, "angle": self.angle(d as u32)});
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
