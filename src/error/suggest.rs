//! "Did you mean" for names users type: joints, clips.
//!
//! Edit distance (Levenshtein over characters, compared case-insensitively) ranks the known
//! names; the closest (ties included, at most three) within a distance that grows with the
//! name's length are suggested.
//! A name that differs only in case, or that one name contains, always counts as close.

/// Edit distance between two strings over characters (insert, delete, substitute cost 1).
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = i;
        let mut left = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row.get(j + 1).copied().unwrap_or(usize::MAX);
            let cost = diagonal + usize::from(ca != *cb);
            let value = cost.min(above.saturating_add(1)).min(left + 1);
            diagonal = above;
            if let Some(cell) = row.get_mut(j + 1) {
                *cell = value;
            }
            left = value;
        }
        if let Some(first) = row.first_mut() {
            *first = i + 1;
        }
    }
    row.last().copied().unwrap_or(0)
}

/// Up to three of `candidates` closest to `name` (all at the smallest distance found).
pub(crate) fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let wanted = name.to_lowercase();
    let limit = (wanted.chars().count() / 3).max(2);
    let mut scored: Vec<(usize, &str)> = candidates
        .into_iter()
        .filter_map(|c| {
            let lower = c.to_lowercase();
            let d = if lower == wanted || (!wanted.is_empty() && lower.contains(&wanted)) {
                0
            } else {
                edit_distance(&wanted, &lower)
            };
            (d <= limit).then_some((d, c))
        })
        .collect();
    scored.sort_by_key(|&(d, _)| d);
    scored.dedup_by_key(|(_, c)| *c);
    // Only the best matches: a clear typo gets one suggestion, not its neighbours too.
    let best = scored.first().map_or(0, |&(d, _)| d);
    scored.into_iter().take_while(|&(d, _)| d == best).take(3).map(|(_, c)| c).collect()
}

/// `"; did you mean 'a' or 'b'?"`, or an empty string when nothing is close.
pub(crate) fn did_you_mean<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    let close = closest(name, candidates);
    match close.as_slice() {
        [] => String::new(),
        [one] => format!("; did you mean '{one}'?"),
        many => {
            let quoted: Vec<String> = many.iter().map(|c| format!("'{c}'")).collect();
            format!("; did you mean {}?", quoted.join(" or "))
        }
    }
}

/// A name a user typed (a clip, a joint, a model in a project...) that matches nothing: what
/// kind of thing, the name, the closest known names and every known name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownName {
    /// What was looked up: `"clip"`, `"joint"`, ...
    pub kind: &'static str,
    /// The name as typed.
    pub name: String,
    /// Up to three close known names (the `closest` ones).
    pub suggestions: Vec<String>,
    /// Every known name, in their own order.
    pub known: Vec<String>,
    /// What the list of known names is called and where to find it, when there are none or
    /// they are too many to print (`"the model has no animation clips"`).
    pub context: String,
}

impl UnknownName {
    /// The error for `name` among `known`, `context` saying where names of this kind live.
    pub fn new<'a>(
        kind: &'static str,
        name: &str,
        known: impl IntoIterator<Item = &'a str>,
        context: impl Into<String>,
    ) -> UnknownName {
        let known: Vec<String> = known.into_iter().map(str::to_string).collect();
        let suggestions = closest(name, known.iter().map(String::as_str)).into_iter().map(str::to_string).collect();
        UnknownName { kind, name: name.to_string(), suggestions, known, context: context.into() }
    }
}

impl std::fmt::Display for UnknownName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "no {} named '{}'", self.kind, self.name)?;
        match self.suggestions.as_slice() {
            [] => {}
            [one] => write!(f, "; did you mean '{one}'?")?,
            many => {
                let quoted: Vec<String> = many.iter().map(|c| format!("'{c}'")).collect();
                write!(f, "; did you mean {}?", quoted.join(" or "))?;
            }
        }
        if !self.context.is_empty() {
            write!(f, " ({})", self.context)?;
        }
        Ok(())
    }
}

impl std::error::Error for UnknownName {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_and_suggestions() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("same", "same"), 0);
        let joints = ["Bip01", "Bip01 Head", "Bip01 Neck", "Bip01 R Hand", "Bip01 L Hand"];
        assert_eq!(closest("Bip01 Haed", joints), vec!["Bip01 Head"]);
        assert_eq!(closest("bip01 head", joints), vec!["Bip01 Head"]);
        assert_eq!(did_you_mean("Bip01 Haed", joints), "; did you mean 'Bip01 Head'?");
        assert_eq!(did_you_mean("tail", joints), "");
        assert_eq!(closest("Hand", joints), vec!["Bip01 R Hand", "Bip01 L Hand"]);
        let e = UnknownName::new("joint", "Bip01 Haed", joints, "`spritebake info` lists the joints");
        assert_eq!(e.suggestions, vec!["Bip01 Head"]);
        assert_eq!(
            e.to_string(),
            "no joint named 'Bip01 Haed'; did you mean 'Bip01 Head'? (`spritebake info` lists the joints)"
        );
    }
}
