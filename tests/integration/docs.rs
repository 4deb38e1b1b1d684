//! The book: a README short enough to read first, and every page it leads to reachable. Each
//! relative link of `README.md` and `docs/**/*.md` names a file of the repository, and each
//! `#anchor` a heading of the page it points into (GitHub's anchors: lower case, spaces to
//! hyphens, punctuation dropped).

use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The README's most lines: what, why, the two commands, the formats and the map of `docs/`.
const README_LINES: usize = 200;

/// The Markdown pages of the book: the README and everything under `docs/`.
fn pages() -> Vec<PathBuf> {
    let mut pages = vec![Path::new(ROOT).join("README.md")];
    let mut folders = vec![Path::new(ROOT).join("docs")];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                pages.push(path);
            }
        }
    }
    pages
}

/// The page's text outside fenced code blocks.
fn prose(text: &str) -> String {
    let mut fenced = false;
    let mut out = String::new();
    for line in text.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
        } else if !fenced {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// GitHub's anchor of each heading of `text`.
fn anchors(text: &str) -> Vec<String> {
    prose(text)
        .lines()
        .filter(|l| l.starts_with('#'))
        .map(|l| {
            let title = l.trim_start_matches('#').trim().to_lowercase();
            title.chars().filter(|c| c.is_alphanumeric() || *c == '-' || *c == ' ' || *c == '_').collect::<String>()
        })
        .map(|t| t.replace(' ', "-"))
        .collect()
}

/// The targets of the inline links and images of `text` (`[label](target)`).
fn link_targets(text: &str) -> Vec<String> {
    let prose = prose(text);
    let mut targets = Vec::new();
    let mut rest = prose.as_str();
    while let Some(at) = rest.find("](") {
        rest = &rest[at + 2..];
        if let Some(end) = rest.find(')') {
            targets.push(rest[..end].to_string());
        }
    }
    targets
}

#[test]
fn every_link_of_the_book_leads_to_a_file_and_heading() {
    let mut checked = 0;
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        for target in link_targets(&text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (file, anchor) = target.split_once('#').unwrap_or((&target, ""));
            let linked = if file.is_empty() { page.clone() } else { page.parent().unwrap().join(file) };
            assert!(linked.exists(), "{}: link to {target}: no such file", page.display());
            if !anchor.is_empty() {
                let headings = anchors(&std::fs::read_to_string(&linked).unwrap());
                assert!(headings.iter().any(|h| h == anchor), "{}: no heading #{anchor} in {}", page.display(), file);
            }
            checked += 1;
        }
    }
    assert!(checked > 40, "{checked} links");
}

#[test]
fn the_readme_is_a_front_page_that_maps_every_docs_page() {
    let readme = std::fs::read_to_string(Path::new(ROOT).join("README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(lines <= README_LINES, "README.md has {lines} lines, more than {README_LINES}");
    // Every page of docs/ is reachable from the README, directly or through a page it links.
    let mut reached = vec![Path::new(ROOT).join("README.md").canonicalize().unwrap()];
    let mut next = 0;
    while next < reached.len() {
        let page = reached[next].clone();
        next += 1;
        for target in link_targets(&std::fs::read_to_string(&page).unwrap()) {
            let file = target.split('#').next().unwrap_or("");
            if file.ends_with(".md") && !target.contains("://") {
                let linked = page.parent().unwrap().join(file).canonicalize().unwrap();
                if !reached.contains(&linked) {
                    reached.push(linked);
                }
            }
        }
    }
    for page in pages() {
        let page = page.canonicalize().unwrap();
        assert!(reached.contains(&page), "{} is not reachable from the README", page.display());
    }
}
