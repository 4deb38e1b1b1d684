//! The one mapping from text found in model files (clip, material and transition names) to a
//! file-name component.
//!
//! Model files are untrusted: a glTF animation named `../../escape` or `/tmp/x`, an MD2 frame
//! named with a control character, must never steer where an output lands. Every name that
//! becomes part of a file name goes through [`sanitize_component`], so the result is always one
//! plain path component inside the folder the user chose.

/// Longest component [`sanitize_component`] returns, in bytes. Well under every common file
/// system's 255-byte name limit, leaving room for the prefix and suffix of a pattern.
pub const MAX_COMPONENT_BYTES: usize = 64;

/// Turns model-supplied text into a safe single path component.
///
/// The mapping, in order:
/// 1. a transition `A->B` is written `A-to-B` (`>` is not allowed in Windows file names);
/// 2. path separators and characters Windows forbids (`/ \ : * ? " < > |`) and every control
///    character (U+0000–U+001F, U+007F–U+009F) become `_`;
/// 3. leading dots become `_` (no `.`, no `..`, no hidden files);
/// 4. an empty name becomes `_`;
/// 5. a name longer than [`MAX_COMPONENT_BYTES`] bytes is cut at a character boundary and
///    `~` plus 8 hex digits of a hash of the full original name are appended, so two long names
///    that share a prefix stay distinct (the hash is FNV-1a, stable across runs and platforms).
///
/// Names that are already safe (`walk`, `Run_Fast`, `attack-2`) are unchanged. Two different
/// names may map to the same component (`a/b` and `a_b`); the output plan then refuses the
/// command as a collision rather than writing one file over the other.
pub fn sanitize_component(name: &str) -> String {
    let joined = name.replace("->", "-to-");
    let mut out: String = joined.chars().map(|c| if is_forbidden(c) { '_' } else { c }).collect();
    let dots = out.len() - out.trim_start_matches('.').len();
    out.replace_range(..dots, &"_".repeat(dots));
    if out.is_empty() {
        out.push('_');
    }
    if out.len() > MAX_COMPONENT_BYTES {
        let suffix = format!("~{:08x}", fnv1a(name.as_bytes()));
        let mut cut = MAX_COMPONENT_BYTES - suffix.len();
        while !out.is_char_boundary(cut) {
            cut -= 1;
        }
        out.truncate(cut);
        out.push_str(&suffix);
    }
    out
}

/// Whether `c` can be in a name [`sanitize_component`] returns (`first`: as its first
/// character): what a matcher of the names a pattern expands to must hold a name's field to,
/// so that no spelling it accepts is `.`, `..` or holds a separator.
pub fn is_component_char(c: char, first: bool) -> bool {
    !(is_forbidden(c) || (first && c == '.'))
}

fn is_forbidden(c: char) -> bool {
    c.is_control() || matches!(c, '/' | '\\' | ':' | '*' | '?' | '"' | '<' | '>' | '|')
}

/// 32-bit FNV-1a: tiny, and unlike `std`'s hasher its output is fixed across Rust versions,
/// so a shortened name stays the same file from one release to the next.
fn fnv1a(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5u32, |h, &b| (h ^ u32::from(b)).wrapping_mul(0x0100_0193))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn safe_names_are_unchanged() {
        for name in ["walk", "Run_Fast", "attack-2", "stand.01", "ходьба"] {
            assert_eq!(sanitize_component(name), name);
        }
    }

    #[test]
    fn separators_dots_and_controls_never_survive() {
        assert_eq!(sanitize_component("../../escape"), "___.._escape");
        assert_eq!(sanitize_component("/tmp/abs"), "_tmp_abs");
        assert_eq!(sanitize_component("a\\b:c*d?e\"f<g>h|i"), "a_b_c_d_e_f_g_h_i");
        assert_eq!(sanitize_component("bad\nname\x1b[31m"), "bad_name_[31m");
        assert_eq!(sanitize_component(".."), "__");
        assert_eq!(sanitize_component("."), "_");
        assert_eq!(sanitize_component(".hidden"), "_hidden");
        assert_eq!(sanitize_component(""), "_");
        assert_eq!(sanitize_component("idle->walk"), "idle-to-walk");
        for name in ["../..", "/", "\0", "a/../../b", "..\\..\\x", "\u{85}"] {
            let s = sanitize_component(name);
            let mut parts = std::path::Path::new(&s).components();
            assert!(matches!(parts.next(), Some(std::path::Component::Normal(_))), "{name:?} -> {s:?}");
            assert!(parts.next().is_none(), "{name:?} -> {s:?}");
            assert!(!s.chars().any(is_forbidden), "{name:?} -> {s:?}");
        }
    }

    #[test]
    fn long_names_are_bounded_and_stay_distinct() {
        let a = format!("{}a", "x".repeat(300));
        let b = format!("{}b", "x".repeat(300));
        let (sa, sb) = (sanitize_component(&a), sanitize_component(&b));
        assert!(sa.len() <= MAX_COMPONENT_BYTES && sb.len() <= MAX_COMPONENT_BYTES);
        assert_ne!(sa, sb);
        assert_eq!(sa, sanitize_component(&a), "stable");
        // Cut at a character boundary: multi-byte text does not panic and stays valid UTF-8.
        let wide = "é".repeat(100);
        assert!(sanitize_component(&wide).len() <= MAX_COMPONENT_BYTES);
        assert_eq!(sanitize_component(&"y".repeat(64)), "y".repeat(64));
    }
}
