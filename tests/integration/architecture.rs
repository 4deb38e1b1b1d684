//! The library's files import each other without circles (DESIGN.md, "Data flow": lower layers
//! never import higher ones).
//!
//! Every file under `src/` but the binary is a module (`bake/mod.rs` is `bake`, `bake/job.rs`
//! is `bake::job`). A file depends on the files that define what it names: its `use`
//! declarations and its `crate::`, `super::`, `self::` and child-module paths, each followed
//! through `use` re-exports to the file that defines the item (`crate::bake::Directions` is
//! defined in `sprite/directions.rs`, wherever it is re-exported). A `mod` declaration is not a
//! use, so a `mod.rs` that only declares, re-exports and orchestrates sits above its children.
//! Items under `#[cfg(test)]` are skipped (unit tests may use their parent), and so are
//! comments, doc comments and string literals.
//!
//! The test fails when the graph has a strongly connected component of more than one file, and
//! prints each one with its edges, each with a path that makes it. The usual fix is to move
//! what a `mod.rs` defines for its children into a child of its own.
//!
//! The parsing is by hand (no parser crate): it knows `use` trees, paths, comments, string and
//! character literals, which is all the question needs.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

#[test]
fn library_modules_import_without_circles() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    read_sources(&src, &src, &mut files);
    assert!(files.len() > 50, "found only {} files under {}", files.len(), src.display());
    let cycles = cycles(&files);
    assert!(cycles.is_empty(), "{} import cycle(s) between files of src/:\n{}", cycles.len(), describe(&cycles));
}

/// The analysis finds a circle made through a re-export, a nested `use` group and a `use` of
/// a module, and ignores what comments, strings and `#[cfg(test)]` items name.
#[test]
fn a_planted_circle_is_found() {
    let crate_with = |b: &str| {
        vec![
            ("lib.rs".to_string(), "mod a;\nmod b;\npub use a::A;\n".to_string()),
            ("a/mod.rs".to_string(), "mod inner;\npub use inner::A;\n".to_string()),
            ("a/inner.rs".to_string(), "use crate::{b::{B, other}};\npub struct A(B);\n".to_string()),
            ("b.rs".to_string(), b.to_string()),
        ]
    };
    let clean = "// crate::A\npub struct B;\n#[cfg(test)]\nimpl B { fn a() -> crate::A {} }\n\
                 fn f() { let _ = (\"crate::A\", '\"', r#\"\"crate::A\"#); }\n#[cfg(test)]\nmod tests { use crate::A; }\n\
                 pub(in crate::a) fn g() {}\n";
    assert_eq!(describe(&cycles(&crate_with(clean))), "");

    let circle = "pub struct B;\nfn f(_: crate::A) {}\n";
    let module = |s: &str| s.split("::").map(String::from).collect::<Module>();
    let inner_to_b = (module("a::inner"), module("b"), "crate::b::B".to_string());
    let b_to_inner = (module("b"), module("a::inner"), "crate::A".to_string());
    assert_eq!(cycles(&crate_with(circle)), [vec![inner_to_b, b_to_inner]]);

    let through_a_module = "use super::a::{self};\npub struct B;\nfn f() { a::A::new(); }\n";
    assert_eq!(describe(&cycles(&crate_with(through_a_module))).lines().next(), Some("[a, a::inner, b]"));
}

/// The library's layers, lowest first: a module may import its own layer's modules and lower
/// ones, never a higher one (DESIGN.md, "Data flow"). Each top-level module of `src/` is in
/// exactly one; the crate root (`lib.rs`, re-exports only) is above them all.
const LAYERS: [&[&str]; 8] = [
    // Plain facts every layer may use: errors, limits, confined reads, the memory budget.
    &["error", "bounds", "confine", "budget", "escape", "terminal"],
    // What a model is.
    &["model"],
    // The floors: reading files into models, posing them, rasterizing, writing files.
    &["formats", "anim", "raster", "output"],
    // Sprites (directions, framing facts, layouts) and golden comparisons over images.
    &["sprite", "golden"],
    // The settings of a bake, as flags, manifests and project files give them.
    &["spec"],
    // Baking: a spec's products from a loaded model.
    &["bake"],
    // What runs many bakes: golden checks, thumbnail batches and fuzzing entry points.
    &["check", "thumbnail", "fuzzing"],
    // Re-exports for the binary, the fuzz targets and the tests (as the crate root, above all).
    &["internal"],
];

/// The layer of a module: its top-level module's row of [`LAYERS`] (the root: above them all).
fn layer(module: &[String]) -> Option<usize> {
    let Some(top) = module.first() else { return Some(LAYERS.len()) };
    LAYERS.iter().position(|row| row.contains(&top.as_str()))
}

/// Every import of a higher layer's module, and every module in no layer, as text.
fn upward_imports(files: &[(String, String)]) -> Vec<String> {
    let mut found = Vec::new();
    for (from, targets) in imports(files) {
        let Some(from_layer) = layer(&from) else {
            found.push(format!("{} is in no layer of LAYERS", name(&from)));
            continue;
        };
        for (to, path) in targets {
            if layer(&to).is_some_and(|to_layer| to_layer > from_layer) {
                found.push(format!(
                    "{} (layer {from_layer}) imports {} (layer {:?}): {path}",
                    name(&from),
                    name(&to),
                    layer(&to)
                ));
            }
        }
    }
    found
}

#[test]
fn lower_layers_never_import_higher_ones() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    read_sources(&src, &src, &mut files);
    let upward = upward_imports(&files);
    assert!(upward.is_empty(), "{} import(s) against the layer order:\n{}", upward.len(), upward.join("\n"));
}

/// An import of `bake` from `raster` (a floor reaching up into baking) is found, and so is a
/// module nobody placed in a layer.
#[test]
fn a_planted_upward_import_is_found() {
    let crate_with = |raster: &str| {
        vec![
            ("lib.rs".to_string(), "mod bake;\nmod raster;\n".to_string()),
            ("bake/mod.rs".to_string(), "use crate::raster::Image;\npub struct Job;\n".to_string()),
            ("raster/mod.rs".to_string(), raster.to_string()),
        ]
    };
    assert_eq!(upward_imports(&crate_with("pub struct Image;\n")), Vec::<String>::new());
    let upward = upward_imports(&crate_with("pub struct Image;\nfn f(_: crate::bake::Job) {}\n"));
    assert_eq!(upward, ["raster (layer 2) imports bake (layer Some(5)): crate::bake::Job"]);
    let mut unplaced = crate_with("pub struct Image;\n");
    unplaced.push(("newcomer.rs".to_string(), "pub struct N;\n".to_string()));
    assert_eq!(upward_imports(&unplaced), ["newcomer is in no layer of LAYERS"]);
}

/// A module path: `["bake", "job"]`; the crate root is empty.
type Module = Vec<String>;

/// An edge of a cycle: from, to, and a path in `from` that names something defined in `to`.
type Edge = (Module, Module, String);

/// Every `.rs` file under `dir` but `src/bin`, as (path relative to `src`, text).
fn read_sources(src: &Path, dir: &Path, out: &mut Vec<(String, String)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for path in entries {
        let relative = path.strip_prefix(src).unwrap().to_string_lossy().replace('\\', "/");
        if path.is_dir() && relative != "bin" {
            read_sources(src, &path, out);
        } else if relative.ends_with(".rs") {
            out.push((relative, std::fs::read_to_string(&path).unwrap()));
        }
    }
}

/// The module a file under `src/` is: `lib.rs` is the root, `a/mod.rs` and `a.rs` are `a`.
fn module_of(relative: &str) -> Module {
    let mut parts: Module = relative.trim_end_matches(".rs").split('/').map(String::from).collect();
    if parts.last().is_some_and(|p| p == "mod" || p == "lib") {
        parts.pop();
    }
    parts
}

fn name(module: &[String]) -> String {
    if module.is_empty() { "lib".to_string() } else { module.join("::") }
}

/// Each module's targets, with the first path that leads to each.
fn imports(files: &[(String, String)]) -> BTreeMap<Module, BTreeMap<Module, String>> {
    let parsed: BTreeMap<Module, Parsed> =
        files.iter().map(|(path, text)| (module_of(path), parse(&tokens(text)))).collect();
    parsed
        .iter()
        .map(|(module, file)| {
            let mut targets = BTreeMap::new();
            for path in &file.paths {
                if let Some(target) = resolve(&parsed, module, path, 0).filter(|t| t != module) {
                    targets.entry(target).or_insert_with(|| path.join("::"));
                }
            }
            (module.clone(), targets)
        })
        .collect()
}

/// The strongly connected components of more than one module, each as its inner edges.
fn cycles(files: &[(String, String)]) -> Vec<Vec<Edge>> {
    let imports = imports(files);
    let graph: BTreeMap<&Module, BTreeMap<Module, String>> = imports.iter().map(|(m, t)| (m, t.clone())).collect();
    let mut found = Vec::new();
    for mut component in strongly_connected(&graph) {
        component.sort();
        let inside: BTreeSet<&Module> = component.iter().copied().collect();
        let edges = component.iter().flat_map(|&from| {
            let targets = graph[from].iter().filter(|(to, _)| inside.contains(to));
            targets.map(move |(to, path)| (from.clone(), to.clone(), path.clone()))
        });
        found.push(edges.collect());
    }
    found
}

/// Each cycle as its modules, then its edges with the path that makes each.
fn describe(cycles: &[Vec<Edge>]) -> String {
    let mut text = String::new();
    for edges in cycles {
        let members: BTreeSet<String> = edges.iter().map(|(from, _, _)| name(from)).collect();
        text += &format!("[{}]\n", members.into_iter().collect::<Vec<_>>().join(", "));
        for (from, to, path) in edges {
            text += &format!("    {} -> {}  ({path})\n", name(from), name(to));
        }
    }
    text
}

/// Tarjan's algorithm over the modules in order, so the report is stable.
fn strongly_connected<'a, T>(graph: &BTreeMap<&'a Module, BTreeMap<Module, T>>) -> Vec<Vec<&'a Module>> {
    struct Search<'a, 'g, T> {
        graph: &'g BTreeMap<&'a Module, BTreeMap<Module, T>>,
        /// Visit number and lowest visit number reachable, per module.
        index: BTreeMap<&'a Module, (usize, usize)>,
        stack: Vec<&'a Module>,
        found: Vec<Vec<&'a Module>>,
    }
    fn visit<'a, T>(s: &mut Search<'a, '_, T>, v: &'a Module) {
        let n = s.index.len();
        s.index.insert(v, (n, n));
        s.stack.push(v);
        let graph = s.graph;
        for w in graph[v].keys() {
            let Some((&w, _)) = graph.get_key_value(w) else { continue };
            let low = match s.index.get(w) {
                None => {
                    visit(s, w);
                    s.index[w].1
                }
                Some(&(i, _)) if s.stack.contains(&w) => i,
                Some(_) => continue,
            };
            let entry = s.index.get_mut(v).unwrap();
            entry.1 = entry.1.min(low);
        }
        if s.index[v].0 == s.index[v].1 {
            let at = s.stack.iter().rposition(|m| *m == v).unwrap();
            let component = s.stack.split_off(at);
            if component.len() > 1 {
                s.found.push(component);
            }
        }
    }
    let mut s = Search { graph, index: BTreeMap::new(), stack: Vec::new(), found: Vec::new() };
    for &v in graph.keys() {
        if !s.index.contains_key(v) {
            visit(&mut s, v);
        }
    }
    s.found
}

/// A token of Rust source that matters here; comments and literals are dropped.
#[derive(Debug, Clone, PartialEq)]
enum Token {
    Ident(String),
    /// `::`
    PathSep,
    Punct(char),
}

fn tokens(text: &str) -> Vec<Token> {
    let c: Vec<char> = text.chars().collect();
    let at = |i: usize| c.get(i).copied().unwrap_or('\0');
    let mut out = Vec::new();
    let mut i = 0;
    while i < c.len() {
        let ch = c[i];
        if ch == '/' && at(i + 1) == '/' {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && at(i + 1) == '*' {
            // Block comments nest.
            let mut depth = 0;
            while i < c.len() {
                if at(i) == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if at(i) == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if ch == '"' {
            i = skip_string(&c, i, false);
        } else if ch == '\'' {
            // A character literal ('a', '\n', '\u{1F600}') or a lifetime ('a, 'static).
            if at(i + 1) == '\\' {
                i += 3;
                while i < c.len() && c[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if at(i + 2) == '\'' {
                i += 3;
            } else {
                i += 1;
                while at(i).is_alphanumeric() || at(i) == '_' {
                    i += 1;
                }
            }
        } else if ch.is_alphabetic() || ch == '_' {
            let start = i;
            while at(i).is_alphanumeric() || at(i) == '_' {
                i += 1;
            }
            let word: String = c[start..i].iter().collect();
            // b"..", c"..", r"..", r#".."#, br"..", cr"..".
            let raw = word.ends_with('r');
            let hashes = c[i..].iter().take_while(|&&h| h == '#').count();
            let quote = at(i + hashes) == '"' && (raw || hashes == 0);
            if matches!(word.as_str(), "b" | "c" | "r" | "br" | "cr") && quote {
                i = skip_string(&c, i, raw);
            } else if word == "r" && at(i) == '#' {
                i += 1; // a raw identifier, r#type: the identifier follows
            } else {
                out.push(Token::Ident(word));
            }
        } else if ch.is_ascii_digit() {
            while at(i).is_alphanumeric() || at(i) == '_' || (at(i) == '.' && at(i + 1).is_ascii_digit()) {
                i += 1;
            }
        } else if ch == ':' && at(i + 1) == ':' {
            out.push(Token::PathSep);
            i += 2;
        } else {
            if !ch.is_whitespace() {
                out.push(Token::Punct(ch));
            }
            i += 1;
        }
    }
    out
}

/// The index after the string literal whose quote (or, raw, whose first `#`) is at `i`.
fn skip_string(c: &[char], mut i: usize, raw: bool) -> usize {
    let hashes = c[i..].iter().take_while(|&&h| h == '#').count();
    i += hashes + 1;
    while i < c.len() {
        if c[i] == '\\' && !raw {
            i += 2;
        } else if c[i] == '"' && c[i + 1..].iter().take(hashes).filter(|&&h| h == '#').count() == hashes {
            return i + 1 + hashes;
        } else {
            i += 1;
        }
    }
    i
}

/// What one file declares and names.
#[derive(Debug, Default)]
struct Parsed {
    /// Names its `use` declarations bind: `use a::b::C as D` binds `D` to `a::b::C`.
    bindings: BTreeMap<String, Vec<String>>,
    /// Every path it names: those of its `use` declarations (`a::b::*` as `a::b`) and of its
    /// code.
    paths: Vec<Vec<String>>,
    /// Its private child modules (`mod x;`): outside this module, `x` is another item of the
    /// same name (`bake::sheet::pack` is a function; the module is private).
    private_mods: BTreeSet<String>,
}

fn parse(tokens: &[Token]) -> Parsed {
    let tokens = without_test_items(tokens);
    let ident = |i: usize| match tokens.get(i) {
        Some(Token::Ident(word)) => Some(word.as_str()),
        _ => None,
    };
    let mut parsed = Parsed::default();
    let mut i = 0;
    while i < tokens.len() {
        let starts_path = tokens.get(i + 1) == Some(&Token::PathSep)
            && i.checked_sub(1).is_none_or(|before| tokens[before] != Token::PathSep);
        match ident(i) {
            Some("use") => {
                i = use_tree(&tokens, i + 1, &mut Vec::new(), &mut parsed);
            }
            Some("mod") => {
                // `pub mod x` and `pub(crate) mod x` are visible outside; `mod x` is not.
                let before = i.checked_sub(1).map(|p| &tokens[p]);
                let public = before == Some(&Token::Punct(')')) || before == Some(&Token::Ident("pub".into()));
                if let (false, Some(child)) = (public, ident(i + 1)) {
                    parsed.private_mods.insert(child.to_string());
                }
                i += 1;
            }
            // `pub(in crate::bake)` says where an item is seen, not what it uses.
            Some("in") if i >= 2 && tokens[i - 1] == Token::Punct('(') && ident(i - 2) == Some("pub") => {
                i += 1;
                while matches!(tokens.get(i), Some(Token::Ident(_) | Token::PathSep)) {
                    i += 1;
                }
            }
            Some(first) if starts_path => {
                let mut path = vec![first.to_string()];
                i += 1;
                while let (Some(Token::PathSep), Some(next)) = (tokens.get(i), ident(i + 1)) {
                    path.push(next.to_string());
                    i += 2;
                }
                parsed.paths.push(path);
            }
            _ => i += 1,
        }
    }
    parsed
}

/// Reads the `use` tree at `i`, under `prefix`, into `parsed`; returns the index after it.
fn use_tree(tokens: &[Token], mut i: usize, prefix: &mut Vec<String>, parsed: &mut Parsed) -> usize {
    let depth = prefix.len();
    loop {
        match tokens.get(i) {
            Some(Token::Ident(word)) if word != "as" => {
                prefix.push(word.clone());
                i += 1;
            }
            Some(Token::PathSep) => i += 1,
            Some(Token::Punct('*')) => {
                parsed.paths.push(prefix.clone());
                i += 1;
                break;
            }
            Some(Token::Punct('{')) => {
                i += 1;
                while !matches!(tokens.get(i), None | Some(Token::Punct('}'))) {
                    i = use_tree(tokens, i, prefix, parsed);
                    if tokens.get(i) == Some(&Token::Punct(',')) {
                        i += 1;
                    }
                }
                i += 1;
                break;
            }
            _ => {
                let mut path = prefix.clone();
                // `a::{self}` binds `a`.
                if path.len() > 1 && path.last().is_some_and(|s| s == "self") {
                    path.pop();
                }
                let mut bound = path.last().cloned().unwrap_or_default();
                if tokens.get(i) == Some(&Token::Ident("as".into())) {
                    if let Some(Token::Ident(alias)) = tokens.get(i + 1) {
                        bound = alias.clone();
                    }
                    i += 2;
                }
                if bound != "_" && !path.is_empty() {
                    parsed.bindings.insert(bound, path.clone());
                }
                parsed.paths.push(path);
                break;
            }
        }
    }
    prefix.truncate(depth);
    if depth == 0 && tokens.get(i) == Some(&Token::Punct(';')) { i + 1 } else { i }
}

/// The tokens without the items that follow `#[cfg(test)]`: each up to its `;`, or to the end
/// of its first `{ ... }` block.
fn without_test_items(tokens: &[Token]) -> Vec<Token> {
    let marker = [
        Token::Punct('#'),
        Token::Punct('['),
        Token::Ident("cfg".into()),
        Token::Punct('('),
        Token::Ident("test".into()),
        Token::Punct(')'),
        Token::Punct(']'),
    ];
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        if !tokens[i..].starts_with(&marker) {
            out.push(tokens[i].clone());
            i += 1;
            continue;
        }
        i += marker.len();
        let mut depth = 0usize;
        while let Some(token) = tokens.get(i) {
            i += 1;
            match token {
                Token::Punct('(' | '[' | '{') => depth += 1,
                Token::Punct(')' | ']') => depth = depth.saturating_sub(1),
                Token::Punct('}') => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        break;
                    }
                }
                Token::Punct(';') if depth == 0 => break,
                _ => {}
            }
        }
    }
    out
}

/// The module that defines what `path` names, seen from `from`; `None` for other crates and
/// local names. `hops` counts the `use` bindings followed.
fn resolve(files: &BTreeMap<Module, Parsed>, from: &Module, path: &[String], hops: usize) -> Option<Module> {
    let (first, mut rest) = path.split_first()?;
    if hops > 16 {
        return None;
    }
    let mut module = from.clone();
    match first.as_str() {
        "crate" => module.clear(),
        "self" => {}
        "super" => {
            module.pop();
            while rest.first().is_some_and(|s| s == "super") {
                module.pop();
                rest = &rest[1..];
            }
        }
        _ => {
            module.push(first.clone());
            if !files.contains_key(&module) {
                // Not a child module: a name this file imports, or not ours.
                let bound = files[from].bindings.get(first)?;
                if bound == std::slice::from_ref(first) {
                    return Some(from.clone()); // `use name;` of a macro defined here
                }
                let path: Vec<String> = bound.iter().chain(rest).cloned().collect();
                return resolve(files, from, &path, hops + 1);
            }
        }
    }
    // Down through modules: the first segment that is not a module (visible from `from`) is
    // an item of the module reached, defined there or imported there (and then followed).
    for (n, segment) in rest.iter().enumerate() {
        let mut child = module.clone();
        child.push(segment.clone());
        let visible = from.starts_with(&module) || !files[&module].private_mods.contains(segment);
        if visible && files.contains_key(&child) {
            module = child;
            continue;
        }
        return match files[&module].bindings.get(segment) {
            Some(bound) if bound != std::slice::from_ref(segment) => {
                let path: Vec<String> = bound.iter().chain(&rest[n + 1..]).cloned().collect();
                resolve(files, &module, &path, hops + 1)
            }
            _ => Some(module),
        };
    }
    Some(module)
}
