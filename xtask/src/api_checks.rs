//! Two structural checks of the workspace's sources, run by `cargo xtask names` and
//! `cargo xtask circles` (both are steps of `cargo xtask ci`):
//!
//! - **names**: no public type name (`pub struct`, `pub enum`, `pub trait`, `pub type`) is
//!   defined in two model crates. `Result` aliases and items marked `#[deprecated]` (the old
//!   names kept for one release) are exempt.
//! - **circles**: no circle between two or more files of one crate. The module dependency
//!   graph is read from the paths in each file (`crate::a::b`, `super::x`, `self::x`, also
//!   inside `use` groups), with comments and string literals skipped. An edge joins the file
//!   that names a path to the file that defines the module the path reaches. Edges to the
//!   crate root and between a module and its own ancestors (a parent declaring and
//!   re-exporting its children) are not counted: only files that lean on each other sideways
//!   form a circle.
//!
//! Both checks report every finding, then fail if there was one.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The model crates of the workspace (they hold one model each; a type name must say which).
pub const MODEL_CRATES: &[&str] = &[
    "slarm-stats",
    "slarm-queueing",
    "slarm-workload",
    "slarm-sim",
    "slarm-pricing",
    "slarm-overbook",
    "slarm-provision",
    "slarm-grid",
];

/// `cargo xtask names`.
pub fn run_names(_args: &[String]) -> ExitCode {
    let root = crate::workspace_root().join("crates");
    let mut sources = Vec::new();
    for krate in MODEL_CRATES {
        match rust_files(&root.join(krate).join("src")) {
            Ok(files) => {
                for f in files {
                    match std::fs::read_to_string(&f) {
                        Ok(text) => sources.push((krate.to_string(), rel(&root, &f), text)),
                        Err(e) => {
                            eprintln!("xtask names: {}: {e}", f.display());
                            return ExitCode::FAILURE;
                        }
                    }
                }
            }
            Err(e) => {
                eprintln!("xtask names: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    let clashes = name_clashes(&sources);
    if clashes.is_empty() {
        println!(
            "names: no public type name defined in two model crates ({} crates)",
            MODEL_CRATES.len()
        );
        return ExitCode::SUCCESS;
    }
    for (name, places) in &clashes {
        let where_: Vec<String> = places.iter().map(|(c, f)| format!("{c} ({f})")).collect();
        println!("names: `{name}` is defined in {}", where_.join(", "));
    }
    println!(
        "names: {} public type name(s) defined in two or more model crates",
        clashes.len()
    );
    ExitCode::FAILURE
}

/// `cargo xtask circles`.
pub fn run_circles(_args: &[String]) -> ExitCode {
    let root = crate::workspace_root();
    let mut crate_dirs: Vec<PathBuf> = Vec::new();
    for parent in ["crates", "."] {
        let Ok(entries) = std::fs::read_dir(root.join(parent)) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.join("Cargo.toml").is_file() && p.join("src").is_dir() {
                crate_dirs.push(p);
            }
        }
    }
    crate_dirs.sort();
    crate_dirs.dedup();
    let mut failures = 0usize;
    for dir in &crate_dirs {
        let files = match rust_files(&dir.join("src")) {
            Ok(f) => f,
            Err(e) => {
                eprintln!("xtask circles: {e}");
                return ExitCode::FAILURE;
            }
        };
        let mut sources = Vec::new();
        for f in files {
            let Ok(rel_path) = f.strip_prefix(dir.join("src")) else {
                continue;
            };
            match std::fs::read_to_string(&f) {
                Ok(text) => sources.push((rel_path.to_string_lossy().replace('\\', "/"), text)),
                Err(e) => {
                    eprintln!("xtask circles: {}: {e}", f.display());
                    return ExitCode::FAILURE;
                }
            }
        }
        let name = rel(&root, dir);
        for circle in file_circles(&sources) {
            failures += 1;
            println!("circles: {name}: {}", circle.join(" <-> "));
        }
    }
    if failures == 0 {
        println!("circles: no file circle in {} crates", crate_dirs.len());
        ExitCode::SUCCESS
    } else {
        println!("circles: {failures} file circle(s)");
        ExitCode::FAILURE
    }
}

fn rel(root: &Path, p: &Path) -> String {
    p.strip_prefix(root)
        .unwrap_or(p)
        .to_string_lossy()
        .replace('\\', "/")
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries = std::fs::read_dir(&d).map_err(|e| format!("{}: {e}", d.display()))?;
        for e in entries {
            let p = e.map_err(|e| format!("{}: {e}", d.display()))?.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// `text` with comments, string literals and character literals replaced by spaces (line
/// breaks kept), so that what is left is code.
pub fn strip_comments_and_strings(text: &str) -> String {
    let b: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < b.len() && b[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0usize;
            while i < b.len() {
                if b[i] == '/' && b.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if b[i] == '*' && b.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(b[i]));
                    i += 1;
                }
            }
        } else if c == 'r' && (next == Some('"') || next == Some('#')) && !prev_is_ident(&b, i) {
            // raw string r"..." or r#"..."#
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            j += 1;
            loop {
                if j >= b.len() {
                    break;
                }
                if b[j] == '"' && (0..hashes).all(|k| b.get(j + 1 + k) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            for &ch in &b[i..j.min(b.len())] {
                out.push(blank(ch));
            }
            i = j;
        } else if c == '"' {
            let mut j = i + 1;
            while j < b.len() && b[j] != '"' {
                if b[j] == '\\' {
                    j += 1;
                }
                j += 1;
            }
            let end = (j + 1).min(b.len());
            for &ch in &b[i..end] {
                out.push(blank(ch));
            }
            i = end;
        } else if c == '\'' {
            // a character literal ('x', '\n', '\u{..}') or a lifetime ('a)
            let is_char = matches!(
                (next, b.get(i + 2)),
                (Some('\\'), _) | (Some(_), Some('\''))
            );
            if is_char {
                let mut j = i + 1;
                if b[j] == '\\' {
                    j += 1;
                }
                j += 1;
                while j < b.len() && b[j] != '\'' {
                    j += 1;
                }
                let end = (j + 1).min(b.len());
                for &ch in &b[i..end] {
                    out.push(blank(ch));
                }
                i = end;
            } else {
                out.push(c);
                i += 1;
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn prev_is_ident(b: &[char], i: usize) -> bool {
    i > 0 && (b[i - 1].is_alphanumeric() || b[i - 1] == '_')
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Public type names defined in more than one crate: name -> [(crate, file)], over
/// `(crate, file, text)` sources.
pub fn name_clashes(
    sources: &[(String, String, String)],
) -> BTreeMap<String, Vec<(String, String)>> {
    let mut by_name: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for (krate, file, text) in sources {
        for name in public_type_names(text) {
            by_name
                .entry(name)
                .or_default()
                .entry(krate.clone())
                .or_insert_with(|| file.clone());
        }
    }
    by_name
        .into_iter()
        .filter(|(_, crates)| crates.len() > 1)
        .map(|(n, crates)| (n, crates.into_iter().collect()))
        .collect()
}

/// The public (`pub`, not `pub(crate)`) struct, enum, trait and type names defined in
/// `text`, except `Result` aliases and items marked `#[deprecated]`.
pub fn public_type_names(text: &str) -> Vec<String> {
    let code = strip_comments_and_strings(text);
    let mut out = Vec::new();
    let mut deprecated = false;
    for line in code.lines() {
        let t = line.trim();
        if t.starts_with("#[") || t.starts_with("#!") {
            if t.starts_with("#[deprecated") {
                deprecated = true;
            }
            continue;
        }
        if t.is_empty() {
            continue;
        }
        let was_deprecated = std::mem::take(&mut deprecated);
        let Some(rest) = t.strip_prefix("pub ") else {
            continue;
        };
        let mut words = rest.split_whitespace();
        let mut kw = words.next().unwrap_or("");
        if kw == "unsafe" || kw == "auto" {
            kw = words.next().unwrap_or("");
        }
        if !matches!(kw, "struct" | "enum" | "trait" | "type") {
            continue;
        }
        let name: String = words
            .next()
            .unwrap_or("")
            .chars()
            .take_while(|&c| is_ident_char(c))
            .collect();
        if name.is_empty() || was_deprecated || (kw == "type" && name == "Result") {
            continue;
        }
        out.push(name);
    }
    out
}

/// The module path of a file under `src/` (`lib.rs` -> `[]`, `a/mod.rs` -> `["a"]`, `a/b.rs`
/// -> `["a", "b"]`); a binary root such as `bin/x.rs` is its own crate root and gives `[]` as
/// well.
fn module_of(file: &str) -> Vec<String> {
    let parts: Vec<&str> = file.split('/').collect();
    if parts.first() == Some(&"bin") {
        return Vec::new();
    }
    let mut m: Vec<String> = parts.iter().map(|s| s.to_string()).collect();
    let last = m.pop().unwrap_or_default();
    let stem = last.trim_end_matches(".rs");
    if !(m.is_empty() && (stem == "lib" || stem == "main")) && stem != "mod" {
        m.push(stem.to_string());
    }
    m
}

/// The module paths named in one file, resolved to absolute module paths (segments from the
/// crate root), given the file's own module path.
fn referenced_paths(text: &str, own: &[String]) -> Vec<Vec<String>> {
    let code = strip_comments_and_strings(text);
    let b: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    // Inline modules: (brace depth at which they opened, name).
    let mut inline: Vec<(usize, String)> = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == '{' {
            depth += 1;
            i += 1;
            continue;
        }
        if c == '}' {
            depth = depth.saturating_sub(1);
            while inline.last().is_some_and(|(d, _)| *d > depth) {
                inline.pop();
            }
            i += 1;
            continue;
        }
        if is_ident_char(c) && !prev_is_ident(&b, i) {
            let start = i;
            while i < b.len() && is_ident_char(b[i]) {
                i += 1;
            }
            let word: String = b[start..i].iter().collect();
            if word == "mod" {
                // `mod name {` opens an inline module
                let mut j = i;
                while j < b.len() && b[j].is_whitespace() {
                    j += 1;
                }
                let s = j;
                while j < b.len() && is_ident_char(b[j]) {
                    j += 1;
                }
                let name: String = b[s..j].iter().collect();
                while j < b.len() && b[j].is_whitespace() {
                    j += 1;
                }
                if !name.is_empty() && b.get(j) == Some(&'{') {
                    inline.push((depth + 1, name));
                    depth += 1;
                    i = j + 1;
                }
                continue;
            }
            let preceded_by_colons = start >= 2 && b[start - 1] == ':' && b[start - 2] == ':';
            if preceded_by_colons || !matches!(word.as_str(), "crate" | "super" | "self") {
                continue;
            }
            if !(b.get(i) == Some(&':') && b.get(i + 1) == Some(&':')) {
                continue;
            }
            // the module this path starts from
            let mut here: Vec<String> = own.to_vec();
            here.extend(inline.iter().map(|(_, n)| n.clone()));
            let mut base = match word.as_str() {
                "crate" => Vec::new(),
                "self" => here.clone(),
                _ => {
                    let mut h = here.clone();
                    h.pop();
                    h
                }
            };
            i += 2;
            // further `super::` segments
            loop {
                let s = i;
                let mut j = i;
                while j < b.len() && is_ident_char(b[j]) {
                    j += 1;
                }
                let w: String = b[s..j].iter().collect();
                if w == "super" && b.get(j) == Some(&':') && b.get(j + 1) == Some(&':') {
                    base.pop();
                    i = j + 2;
                } else {
                    break;
                }
            }
            let (paths, end) = read_path_tree(&b, i);
            i = end;
            for p in paths {
                let mut full = base.clone();
                full.extend(p);
                out.push(full);
            }
            continue;
        }
        i += 1;
    }
    out
}

/// Reads a path tail at `i` (`a::b::C`, `a::{b, c::D}`, `{x, y}`), returning every path
/// (segments) it names and the position after it.
fn read_path_tree(b: &[char], mut i: usize) -> (Vec<Vec<String>>, usize) {
    let mut prefix: Vec<String> = Vec::new();
    loop {
        while i < b.len() && b[i].is_whitespace() {
            i += 1;
        }
        if b.get(i) == Some(&'{') {
            i += 1;
            let mut all = Vec::new();
            loop {
                while i < b.len() && (b[i].is_whitespace() || b[i] == ',') {
                    i += 1;
                }
                if i >= b.len() {
                    break;
                }
                if b[i] == '}' {
                    i += 1;
                    break;
                }
                let before = i;
                let (sub, end) = read_path_tree(b, i);
                for s in sub {
                    let mut p = prefix.clone();
                    p.extend(s);
                    all.push(p);
                }
                i = end;
                // skip `as x` and anything else up to the next comma or brace
                while i < b.len() && b[i] != ',' && b[i] != '}' && b[i] != '{' {
                    i += 1;
                }
                if i == before {
                    i += 1;
                }
            }
            return (all, i);
        }
        let s = i;
        while i < b.len() && is_ident_char(b[i]) {
            i += 1;
        }
        if s == i {
            return (vec![prefix], i);
        }
        prefix.push(b[s..i].iter().collect());
        if b.get(i) == Some(&':') && b.get(i + 1) == Some(&':') {
            i += 2;
        } else {
            return (vec![prefix], i);
        }
    }
}

/// Circles between files of one crate, over `(path under src/, text)` sources; each circle
/// is the list of its files, smallest first, in order.
pub fn file_circles(sources: &[(String, String)]) -> Vec<Vec<String>> {
    let modules: BTreeMap<Vec<String>, String> = sources
        .iter()
        .filter(|(f, _)| !f.starts_with("bin/"))
        .map(|(f, _)| (module_of(f), f.clone()))
        .collect();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (file, text) in sources {
        if file.starts_with("bin/") {
            continue;
        }
        let own = module_of(file);
        for path in referenced_paths(text, &own) {
            // the longest prefix of the path that is a file module
            let Some(target) = (0..=path.len())
                .rev()
                .find_map(|k| modules.get(&path[..k]).map(|f| (k, f)))
            else {
                continue;
            };
            let target_mod = &path[..target.0];
            let related = target_mod.is_empty()
                || own.starts_with(target_mod)
                || target_mod.starts_with(&own[..]);
            if related || target.1 == file {
                continue;
            }
            edges
                .entry(file.clone())
                .or_default()
                .insert(target.1.clone());
        }
    }
    strongly_connected(&edges)
}

/// Strongly connected components with two or more nodes (Tarjan), each sorted, the list
/// sorted.
fn strongly_connected(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    let mut nodes: BTreeSet<&String> = edges.keys().collect();
    for t in edges.values() {
        nodes.extend(t.iter());
    }
    let nodes: Vec<&String> = nodes.into_iter().collect();
    let index_of: BTreeMap<&String, usize> =
        nodes.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let adj: Vec<Vec<usize>> = nodes
        .iter()
        .map(|n| {
            edges
                .get(*n)
                .map(|t| t.iter().map(|x| index_of[x]).collect())
                .unwrap_or_default()
        })
        .collect();
    let n = nodes.len();
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut next = 0;
    let mut out = Vec::new();
    // iterative Tarjan: (node, next neighbour position)
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        let mut call: Vec<(usize, usize)> = vec![(root, 0)];
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut pos)) = call.last_mut() {
            if *pos < adj[v].len() {
                let w = adj[v][*pos];
                *pos += 1;
                if index[w] == usize::MAX {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    call.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
            } else {
                call.pop();
                if let Some(&(u, _)) = call.last() {
                    low[u] = low[u].min(low[v]);
                }
                if low[v] == index[v] {
                    let mut comp = Vec::new();
                    while let Some(w) = stack.pop() {
                        on_stack[w] = false;
                        comp.push(nodes[w].clone());
                        if w == v {
                            break;
                        }
                    }
                    if comp.len() > 1 {
                        comp.sort();
                        out.push(comp);
                    }
                }
            }
        }
    }
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn src(files: &[(&str, &str)]) -> Vec<(String, String)> {
        files
            .iter()
            .map(|(f, t)| (f.to_string(), t.to_string()))
            .collect()
    }

    #[test]
    fn finds_a_two_file_circle_and_names_both_files() {
        let s = src(&[
            ("lib.rs", "pub mod a;\npub mod b;\n"),
            ("a.rs", "use crate::b::B;\npub struct A;\n"),
            ("b.rs", "use crate::a::A;\npub struct B;\n"),
        ]);
        assert_eq!(
            file_circles(&s),
            vec![vec!["a.rs".to_string(), "b.rs".to_string()]]
        );
    }

    #[test]
    fn a_chain_is_no_circle() {
        let s = src(&[
            ("lib.rs", "pub mod a;\npub mod b;\npub mod c;\n"),
            ("a.rs", "use crate::b::B;\n"),
            ("b.rs", "use crate::c::C;\n"),
            ("c.rs", "pub use crate::Result;\n"),
        ]);
        assert!(file_circles(&s).is_empty());
    }

    #[test]
    fn use_groups_super_and_three_file_circles() {
        let s = src(&[
            ("lib.rs", "pub mod p;\n"),
            (
                "p/mod.rs",
                "pub mod x;\npub mod y;\npub mod z;\npub use x::X;\n",
            ),
            ("p/x.rs", "use super::{y::Y, z};\n"),
            ("p/y.rs", "fn f() -> super::super::p::z::Z { todo!() }\n"),
            ("p/z.rs", "use crate::p::{\n    x::{self, X},\n};\n"),
        ]);
        assert_eq!(
            file_circles(&s),
            vec![vec![
                "p/x.rs".to_string(),
                "p/y.rs".to_string(),
                "p/z.rs".to_string()
            ]]
        );
    }

    #[test]
    fn comments_strings_tests_and_parents_do_not_count() {
        let s = src(&[
            ("lib.rs", "pub mod a;\npub mod b;\nuse crate::a::A;\n"),
            (
                "a.rs",
                "/// See [`crate::b::B`].\nconst S: &str = \"crate::b::B\";\nconst R: &str = r#\"crate::b\"#;\nuse crate::b::B;\n#[cfg(test)]\nmod tests {\n    use super::*;\n}\n",
            ),
            ("b.rs", "// crate::a::A\nfn f<'a>(c: char) -> bool { c == '\"' }\npub struct B;\n"),
        ]);
        assert!(file_circles(&s).is_empty());
    }

    #[test]
    fn inline_module_super_resolves_to_its_file() {
        // `super::` inside `mod tests` of b.rs names b itself, not the crate root's child a.
        let s = src(&[
            ("lib.rs", "pub mod a;\npub mod b;\n"),
            ("a.rs", "use crate::b::B;\n"),
            ("b.rs", "pub struct B;\nmod tests {\n    use super::B;\n    use self::inner::C;\n    mod inner { pub struct C; }\n}\n"),
        ]);
        assert!(file_circles(&s).is_empty());
        let with_circle = src(&[
            ("lib.rs", "pub mod a;\npub mod b;\n"),
            ("a.rs", "use crate::b::B;\n"),
            ("b.rs", "mod tests {\n    use super::super::a::A;\n}\n"),
        ]);
        assert_eq!(file_circles(&with_circle).len(), 1);
    }

    #[test]
    fn public_names_skip_private_deprecated_and_result() {
        let text = "pub struct A;\npub(crate) struct B;\nstruct C;\n/// doc\n#[deprecated(since = \"0.2.0\", note = \"renamed\")]\npub type Old = A;\npub type Result<T> = std::result::Result<T, E>;\npub enum D { X }\n    pub trait E {}\n#[derive(Debug)]\npub struct F<T>(T);\n// pub struct G;\n";
        assert_eq!(public_type_names(text), vec!["A", "D", "E", "F"]);
    }

    #[test]
    fn clashes_name_every_crate() {
        let s = vec![
            (
                "one".to_string(),
                "a.rs".to_string(),
                "pub struct Job;\npub enum Only;".to_string(),
            ),
            (
                "two".to_string(),
                "b.rs".to_string(),
                "pub struct Job;".to_string(),
            ),
            (
                "two".to_string(),
                "c.rs".to_string(),
                "pub struct Job;".to_string(),
            ),
        ];
        let c = name_clashes(&s);
        assert_eq!(c.len(), 1);
        assert_eq!(
            c["Job"],
            vec![
                ("one".to_string(), "a.rs".to_string()),
                ("two".to_string(), "b.rs".to_string())
            ]
        );
    }
}
