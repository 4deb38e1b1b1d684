//! Text escaped for XML and HTML (attribute values and element text).

pub(super) fn escape(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '&' => "&amp;".into(),
            '<' => "&lt;".into(),
            '>' => "&gt;".into(),
            '"' => "&quot;".into(),
            '\'' => "&apos;".into(),
            c if (c as u32) < 0x20 && !matches!(c, '\n' | '\t') => " ".into(),
            c => c.to_string(),
        })
        .collect()
}
