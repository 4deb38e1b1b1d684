//! Manifest numbers within the same bounds as the command-line flags they mirror
//! ([`crate::bounds`]): a manifest is as untrusted as a model, and `size = "100000"` or
//! `frames = [1e30]` must be refused with the key's name, not rendered for hours.

use std::fmt::Display;
use std::str::FromStr;

use super::manifest::{CaseSpec, FramesSpec};
use crate::bounds::{self, Bound};
use crate::error::{Error, Result};

/// Checks every numeric key of a case; the error names the first key out of range.
/// (`size` is checked where it is parsed, by [`crate::parse::size`].)
///
/// # Errors
/// `Error::Invalid("`key` = value: must be from MIN to MAX")`.
pub fn check_numbers(spec: &CaseSpec) -> Result<()> {
    within("ssaa", spec.ssaa, bounds::SSAA)?;
    within("bands", spec.bands, bounds::BANDS)?;
    within("frame", spec.frame, bounds::FRAME)?;
    within("time", spec.time, bounds::TIME)?;
    within("yaw", spec.yaw, bounds::YAW)?;
    within("pitch", spec.pitch, bounds::PITCH)?;
    within("fov", spec.fov, bounds::FOV)?;
    within("margin", spec.margin, bounds::MARGIN)?;
    within("ambient", spec.ambient, bounds::AMBIENT)?;
    within("threshold", spec.threshold, bounds::THRESHOLD)?;
    within("max_percent", spec.max_percent, bounds::MAX_PERCENT)?;
    within("columns", spec.columns, bounds::COLUMNS)?;
    if let Some(FramesSpec::List(frames)) = &spec.frames {
        if frames.len() > bounds::FRAMES.max {
            return Err(Error::Invalid(format!(
                "`frames` lists {} frames: at most {} are allowed",
                frames.len(),
                bounds::FRAMES.max
            )));
        }
        for &f in frames {
            within("frames", Some(f), bounds::FRAME)?;
        }
    }
    Ok(())
}

fn within<T: PartialOrd + Copy + Display + FromStr + Send + Sync + 'static>(
    key: &str,
    value: Option<T>,
    bound: Bound<T>,
) -> Result<()> {
    match value {
        Some(v) => bound.check(v).map(|_| ()).map_err(|e| Error::Invalid(format!("`{key}` = {v}: {e}"))),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn out_of_range_keys_are_named() {
        let spec = CaseSpec { ssaa: Some(9), ..CaseSpec::default() };
        assert_eq!(check_numbers(&spec).unwrap_err().to_string(), "`ssaa` = 9: must be from 1 to 4");
        let spec = CaseSpec { frames: Some(FramesSpec::List(vec![0.0, 1e30])), ..CaseSpec::default() };
        assert!(
            check_numbers(&spec).unwrap_err().to_string().starts_with("`frames` = 1000000000000000000000000000000")
        );
        let spec = CaseSpec { yaw: Some(240.0), frame: Some(3.5), columns: Some(8), ..CaseSpec::default() };
        assert!(check_numbers(&spec).is_ok());
    }
}
