//! The layers of `src/` and the absence of import circles between its files
//! (`docs/architecture.md`), read from the code itself: every `use crate::…`, `use super::…`,
//! `use self::…` and `use <child module>::…` declaration and every `crate::…` / `super::…` path
//! written in the code, resolved through the re-exports (`pub use`) of the modules they name to
//! the file that defines the item.
//!
//! Two checks, each reporting every finding at once:
//!
//! * **No file-level circle**: the graph "file A names an item defined in file B" has no cycle.
//!   A re-export (`pub use`, `pub(crate) use`) is not an edge of its own: it is followed to the
//!   definition, so a `mod.rs` that re-exports its children is a facade, not a dependency.
//! * **Layers**: `linalg`, `parallel` and `coded` import nothing of the crate; `block_sparse` (the problem form) only
//!   `linalg` and `parallel`; a solver (`tamsi`, `ipm`, `lcp`, `rigid`, `baraff`) only those and `block_sparse`
//!   and its own files, except `rigid → lcp`; nothing outside `ffi` imports `ffi`. Re-exports count
//!   here. A new top-level module fails until it is given a layer below.
//!
//! Run it alone with `cargo test --test packaging architecture`.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The layer of each top-level module of `src/`; an edge may go to a lower layer or stay in its
/// own module. Solvers share layer 2 and may not import each other (except [`ALLOWED_ACROSS`]).
const LAYERS: &[(&str, u32)] = &[
    ("linalg", 0),
    ("parallel", 0),
    ("coded", 0),
    ("block_sparse", 1),
    ("tamsi", 2),
    ("ipm", 2),
    ("lcp", 2),
    ("rigid", 2),
    ("baraff", 2),
    ("ffi", 3),
];

/// Edges between two modules of the same layer that the architecture allows.
const ALLOWED_ACROSS: &[(&str, &str)] = &[("rigid", "lcp")];

/// A module path from the crate root (`["tamsi", "solver"]`); the crate root is `[]`.
type ModPath = Vec<String>;

/// One `use` binding or written path of a file.
#[derive(Debug, Clone)]
struct Reference {
    /// Absolute path (from the crate root) of what is named.
    path: Vec<String>,
    /// 1-based line of the reference.
    line: usize,
    /// A re-export (`pub use`, `pub(crate) use`, …): followed, not an edge of its own.
    reexport: bool,
}

/// What a file declares and references.
#[derive(Debug, Default)]
struct FileInfo {
    /// Names bound by `use` declarations at the file's top level (any visibility), each to its
    /// absolute path; `*` for glob imports.
    bindings: Vec<(String, Vec<String>)>,
    references: Vec<Reference>,
}

/// The parsed crate: file-level modules (path → file name relative to the crate root).
struct Crate {
    files: BTreeMap<ModPath, String>,
    info: BTreeMap<ModPath, FileInfo>,
}

/// An edge of the file graph, with where it comes from.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Edge {
    from: ModPath,
    to: ModPath,
    line: usize,
    reexport: bool,
}

/// The module path of a file of `src/` (`tamsi/solver.rs` → `["tamsi", "solver"]`).
fn module_path(rel: &str) -> ModPath {
    let rel = rel.strip_suffix(".rs").unwrap_or(rel);
    let mut parts: Vec<String> = rel.split('/').map(str::to_owned).collect();
    if parts.last().is_some_and(|p| p == "mod" || p == "lib") {
        parts.pop();
    }
    parts
}

/// Replaces comments, string and char literals by spaces, keeping line breaks (so line numbers
/// and identifiers in code stay where they were, and `crate::` in a doc comment is not a path).
fn strip(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let blank = |out: &mut Vec<u8>, c: u8| out.push(if c == b'\n' { b'\n' } else { b' ' });
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                out.push(b' ');
                i += 1;
            }
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                    depth += 1;
                    out.extend_from_slice(b"  ");
                    i += 2;
                } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                    depth -= 1;
                    out.extend_from_slice(b"  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    blank(&mut out, b[i]);
                    i += 1;
                }
            }
        } else if c == b'r'
            && (b.get(i + 1) == Some(&b'"') || b.get(i + 1) == Some(&b'#'))
            && (i == 0 || !is_ident(b[i - 1]) || (b[i - 1] == b'b' && (i == 1 || !is_ident(b[i - 2]))))
        {
            // Raw string r"…", r#"…"# (or br"…").
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&b'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&b'"') {
                out.push(c);
                i += 1;
                continue;
            }
            j += 1;
            loop {
                if j >= b.len() {
                    break;
                }
                if b[j] == b'"' && b[j + 1..].iter().take(hashes).filter(|&&h| h == b'#').count() == hashes {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            for &x in &b[i..j.min(b.len())] {
                blank(&mut out, x);
            }
            i = j;
        } else if c == b'"' {
            out.push(b' ');
            i += 1;
            while i < b.len() && b[i] != b'"' {
                if b[i] == b'\\' {
                    out.push(b' ');
                    i += 1;
                }
                if i < b.len() {
                    blank(&mut out, b[i]);
                    i += 1;
                }
            }
            out.push(b' ');
            i += 1;
        } else if c == b'\'' {
            // A char literal ('a', '\n', '\u{..}'), else a lifetime or label.
            let end = if b.get(i + 1) == Some(&b'\\') {
                // Skip the escaped character ('\'', '\\'), then find the closing quote.
                b.get(i + 3..).and_then(|r| r.iter().position(|&x| x == b'\'')).map(|p| i + 3 + p)
            } else {
                let ch_len = src[i + 1..].chars().next().map_or(1, char::len_utf8);
                (b.get(i + 1 + ch_len) == Some(&b'\'')).then_some(i + 1 + ch_len)
            };
            match end {
                Some(e) => {
                    for &x in &b[i..=e] {
                        blank(&mut out, x);
                    }
                    i = e + 1;
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    // Multi-byte characters of code (in identifiers they do not occur here) stay intact.
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// A token of the stripped source: an identifier or a punctuation character, with its line.
#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    /// `::`
    Path,
    Punct(char),
}

fn tokenize(code: &str) -> Vec<(Tok, usize)> {
    let b = code.as_bytes();
    let mut toks = Vec::new();
    let mut line = 1;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'\n' {
            line += 1;
            i += 1;
        } else if c.is_ascii_whitespace() {
            i += 1;
        } else if is_ident(c) {
            let start = i;
            while i < b.len() && is_ident(b[i]) {
                i += 1;
            }
            toks.push((Tok::Ident(code[start..i].to_owned()), line));
        } else if c == b':' && b.get(i + 1) == Some(&b':') {
            toks.push((Tok::Path, line));
            i += 2;
        } else if c.is_ascii() {
            toks.push((Tok::Punct(c as char), line));
            i += 1;
        } else {
            // Non-ASCII outside literals (there is none in code); skip the character.
            i += code[i..].chars().next().map_or(1, char::len_utf8);
        }
    }
    toks
}

/// The absolute form of a path written in module `module` (itself inside file module `file`):
/// `crate::a` → `[a]`, `super::a` → parent of `module` + `a`, `self::a`, or a child module of
/// the file's module. `None` for a path into another crate (`std::…`, `nalgebra::…`).
fn absolute(
    segs: &[String],
    module: &ModPath,
    files: &BTreeMap<ModPath, String>,
    file: &ModPath,
) -> Option<Vec<String>> {
    let mut base = module.clone();
    let mut rest = segs;
    match segs.first().map(String::as_str) {
        Some("crate") => {
            base.clear();
            rest = &segs[1..];
        }
        Some("self") => rest = &segs[1..],
        Some("super") => {
            while rest.first().map(String::as_str) == Some("super") {
                base.pop()?;
                rest = &rest[1..];
            }
        }
        Some(first) => {
            // `use child::…` (2018 paths): a file module that is a child of this file.
            let mut child = file.clone();
            child.push(first.to_owned());
            if module == file && files.contains_key(&child) {
                base = file.clone();
            } else {
                return None;
            }
        }
        None => return None,
    }
    base.extend(rest.iter().cloned());
    Some(base)
}

/// Expands a `use` tree starting at `toks[*i]` (after `use`) into (binding name, path) pairs;
/// `prefix` is the path so far. Stops after the tree (at `;`, `,` or `}`).
fn use_tree(toks: &[(Tok, usize)], i: &mut usize, prefix: Vec<String>, out: &mut Vec<(String, Vec<String>)>) {
    let mut path = prefix;
    // Leading `::` (2015 absolute paths) is not used in this crate; skip it if present.
    if matches!(toks.get(*i), Some((Tok::Path, _))) {
        *i += 1;
    }
    loop {
        match toks.get(*i) {
            Some((Tok::Ident(id), _)) => {
                path.push(id.clone());
                *i += 1;
                match toks.get(*i) {
                    Some((Tok::Path, _)) => {
                        *i += 1;
                        continue;
                    }
                    Some((Tok::Ident(kw), _)) if kw == "as" => {
                        *i += 1;
                        let alias = match toks.get(*i) {
                            Some((Tok::Ident(a), _)) => a.clone(),
                            _ => String::new(),
                        };
                        *i += 1;
                        if path.last().is_some_and(|l| l == "self") {
                            path.pop();
                        }
                        out.push((alias, path));
                        return;
                    }
                    _ => {
                        if path.last().is_some_and(|l| l == "self") {
                            path.pop();
                        }
                        let name = path.last().cloned().unwrap_or_default();
                        out.push((name, path));
                        return;
                    }
                }
            }
            Some((Tok::Punct('*'), _)) => {
                *i += 1;
                out.push(("*".to_owned(), path));
                return;
            }
            Some((Tok::Punct('{'), _)) => {
                *i += 1;
                loop {
                    match toks.get(*i) {
                        Some((Tok::Punct('}'), _)) => {
                            *i += 1;
                            return;
                        }
                        Some((Tok::Punct(','), _)) => *i += 1,
                        None => return,
                        _ => use_tree(toks, i, path.clone(), out),
                    }
                }
            }
            _ => return,
        }
    }
}

/// Parses one file: its top-level `use` bindings and every reference with its line.
fn parse_file(src: &str, file: &ModPath, files: &BTreeMap<ModPath, String>) -> FileInfo {
    let toks = tokenize(&strip(src));
    let mut info = FileInfo::default();
    // Inline modules (`mod tests { … }`): (brace depth inside, module path).
    let mut depth = 0usize;
    let mut inline: Vec<(usize, ModPath)> = Vec::new();
    let module_at =
        |inline: &Vec<(usize, ModPath)>| inline.last().map_or_else(|| file.clone(), |m| m.1.clone());
    let mut i = 0;
    while i < toks.len() {
        let (tok, line) = &toks[i];
        match tok {
            Tok::Punct('{') => {
                depth += 1;
                i += 1;
            }
            Tok::Punct('}') => {
                if inline.last().is_some_and(|m| m.0 == depth) {
                    inline.pop();
                }
                depth = depth.saturating_sub(1);
                i += 1;
            }
            Tok::Ident(kw) if kw == "mod" => {
                if let (Some((Tok::Ident(name), _)), Some((Tok::Punct('{'), _))) =
                    (toks.get(i + 1), toks.get(i + 2))
                {
                    let mut m = module_at(&inline);
                    m.push(name.clone());
                    inline.push((depth + 1, m));
                }
                i += 1;
            }
            Tok::Ident(kw) if kw == "use" && !matches!(toks.get(i.wrapping_sub(1)), Some((Tok::Path, _))) => {
                // `pub use`, `pub(crate) use`, `pub(super) use`, `pub(in …) use`.
                let reexport = (1..=6).any(|back| {
                    i >= back
                        && matches!(&toks[i - back].0, Tok::Ident(p) if p == "pub")
                        && toks[i - back + 1..i]
                            .iter()
                            .all(|(t, _)| !matches!(t, Tok::Punct(';' | '{' | '}')))
                });
                let module = module_at(&inline);
                let mut j = i + 1;
                let mut bound = Vec::new();
                use_tree(&toks, &mut j, Vec::new(), &mut bound);
                for (name, segs) in bound {
                    let Some(path) = absolute(&segs, &module, files, file) else { continue };
                    if depth == 0 {
                        info.bindings.push((name, path.clone()));
                    }
                    info.references.push(Reference { path, line: *line, reexport });
                }
                i = j;
            }
            Tok::Ident(kw)
                if matches!(toks.get(i + 1), Some((Tok::Path, _)))
                    && !matches!(toks.get(i.wrapping_sub(1)), Some((Tok::Path, _)))
                    && (kw == "crate" || kw == "super" || kw == "self" || {
                        let mut child = file.clone();
                        child.push(kw.clone());
                        inline.is_empty() && files.contains_key(&child)
                    }) =>
            {
                // A path written in the code: `crate::a::b::c`, `super::form::DenseForm`,
                // `numeric::factor` (a child module of this file).
                let mut segs = vec![kw.clone()];
                let mut j = i + 1;
                while let (Some((Tok::Path, _)), Some((Tok::Ident(id), _))) = (toks.get(j), toks.get(j + 1)) {
                    segs.push(id.clone());
                    j += 2;
                }
                if let Some(path) = absolute(&segs, &module_at(&inline), files, file) {
                    info.references.push(Reference { path, line: *line, reexport: false });
                }
                i = j;
            }
            _ => i += 1,
        }
    }
    info
}

impl Crate {
    /// Parses the crate whose files are `sources` (path relative to `src/`, text).
    fn parse(sources: &[(String, String)]) -> Crate {
        let files: BTreeMap<ModPath, String> =
            sources.iter().map(|(rel, _)| (module_path(rel), format!("src/{rel}"))).collect();
        let info = sources
            .iter()
            .map(|(rel, text)| {
                let m = module_path(rel);
                let parsed = parse_file(text, &m, &files);
                (m, parsed)
            })
            .collect();
        Crate { files, info }
    }

    /// The file module that defines what `path` names, following re-exports (`None`: nothing of
    /// this crate, e.g. an inline module's path that leaves the crate).
    fn resolve(&self, path: &[String], depth: usize) -> Option<ModPath> {
        if depth > 32 {
            return None;
        }
        let mut cur: ModPath = Vec::new();
        for (k, seg) in path.iter().enumerate() {
            let mut next = cur.clone();
            next.push(seg.clone());
            if self.files.contains_key(&next) {
                cur = next;
                continue;
            }
            // `seg` is an item of `cur`: a `use` binding of that file (then follow it), or
            // defined there.
            let info = self.info.get(&cur)?;
            if let Some((_, target)) = info.bindings.iter().find(|(name, _)| name == seg) {
                let mut target = target.clone();
                target.extend(path[k + 1..].iter().cloned());
                return self.resolve(&target, depth + 1).or(Some(cur));
            }
            for (_, glob) in info.bindings.iter().filter(|(name, _)| name == "*") {
                let mut target = glob.clone();
                target.extend(path[k..].iter().cloned());
                if let Some(found) = self.resolve(&target, depth + 1)
                    && found != *glob
                {
                    return Some(found);
                }
            }
            return Some(cur);
        }
        Some(cur)
    }

    /// Every edge between two different files.
    fn edges(&self) -> Vec<Edge> {
        let mut edges = BTreeSet::new();
        for (from, info) in &self.info {
            for r in &info.references {
                if let Some(to) = self.resolve(&r.path, 0)
                    && to != *from
                {
                    edges.insert(Edge { from: from.clone(), to, line: r.line, reexport: r.reexport });
                }
            }
        }
        edges.into_iter().collect()
    }

    fn name(&self, m: &ModPath) -> &str {
        &self.files[m]
    }
}

/// The strongly connected components with more than one file of the graph (Tarjan).
fn cycles(nodes: &[ModPath], edges: &[Edge]) -> Vec<Vec<ModPath>> {
    let index_of: BTreeMap<&ModPath, usize> = nodes.iter().enumerate().map(|(i, m)| (m, i)).collect();
    let mut adj = vec![Vec::new(); nodes.len()];
    for e in edges {
        adj[index_of[&e.from]].push(index_of[&e.to]);
    }
    struct State {
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    fn visit(v: usize, adj: &[Vec<usize>], s: &mut State) {
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        for &w in &adj[v] {
            match s.index[w] {
                None => {
                    visit(w, adj, s);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(iw) if s.on_stack[w] => s.low[v] = s.low[v].min(iw),
                Some(_) => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack[w] = false;
                comp.push(w);
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort_unstable();
                s.out.push(comp);
            }
        }
    }
    let n = nodes.len();
    let mut s = State {
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if s.index[v].is_none() {
            visit(v, &adj, &mut s);
        }
    }
    s.out.into_iter().map(|c| c.into_iter().map(|i| nodes[i].clone()).collect()).collect()
}

/// The findings of both checks as a report, empty when there are none.
fn check(krate: &Crate) -> String {
    let edges = krate.edges();
    let mut report = String::new();

    let code_edges: Vec<Edge> = edges.iter().filter(|e| !e.reexport).cloned().collect();
    let nodes: Vec<ModPath> = krate.files.keys().cloned().collect();
    let found = cycles(&nodes, &code_edges);
    for comp in &found {
        let names: Vec<&str> = comp.iter().map(|m| krate.name(m)).collect();
        let _ = writeln!(report, "import circle among {} files: {}", comp.len(), names.join(", "));
        for e in code_edges.iter().filter(|e| comp.contains(&e.from) && comp.contains(&e.to)) {
            let _ = writeln!(report, "    {}:{} uses {}", krate.name(&e.from), e.line, krate.name(&e.to));
        }
    }

    let layer = |m: &ModPath| -> Option<(String, u32)> {
        let top = m.first()?;
        LAYERS.iter().find(|(name, _)| name == top).map(|&(name, l)| (name.to_owned(), l))
    };
    for m in krate.files.keys().filter(|m| !m.is_empty()) {
        if layer(m).is_none() && m.len() == 1 {
            let _ = writeln!(
                report,
                "module `{}` ({}) has no layer in tests/packaging/architecture.rs",
                m[0],
                krate.name(m)
            );
        }
    }
    for e in &edges {
        let (Some((from, lf)), Some((to, lt))) = (layer(&e.from), layer(&e.to)) else { continue };
        if from == to {
            continue;
        }
        // Down the layers only; `linalg` imports nothing of the crate and nothing imports `ffi`.
        let allowed = to != "ffi"
            && from != "linalg"
            && (lt < lf || ALLOWED_ACROSS.contains(&(from.as_str(), to.as_str())));
        if !allowed {
            let _ = writeln!(
                report,
                "layer violation: {}:{} ({from}) uses {} ({to}){}",
                krate.name(&e.from),
                e.line,
                krate.name(&e.to),
                if e.reexport { " (re-export)" } else { "" }
            );
        }
    }
    report
}

/// Every `.rs` file under `dir`, as (path relative to `root`, text).
fn read_sources(root: &Path, dir: &Path, out: &mut Vec<(String, String)>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            read_sources(root, &p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            let rel = p.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
            let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            out.push((rel, text));
        }
    }
}

#[test]
fn src_has_no_import_circle_and_respects_the_layers() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut sources = Vec::new();
    read_sources(&src, &src, &mut sources);
    let krate = Crate::parse(&sources);
    // The parser must see the crate's real structure, or an empty graph would pass.
    let edges = krate.edges();
    assert!(
        krate.files.len() > 50 && edges.len() > 200,
        "{} files, {} edges",
        krate.files.len(),
        edges.len()
    );
    let report = check(&krate);
    assert!(report.is_empty(), "src/ breaks the architecture (docs/architecture.md):\n{report}");
}

/// A small crate in memory: (path under src/, text).
fn fixture(files: &[(&str, &str)]) -> Crate {
    let sources: Vec<(String, String)> = files.iter().map(|&(p, t)| (p.to_owned(), t.to_owned())).collect();
    Crate::parse(&sources)
}

#[test]
fn finds_a_circle_through_a_reexport_and_a_child_module() {
    let krate = fixture(&[
        ("lib.rs", "pub mod tamsi;\npub mod linalg;\n"),
        ("linalg/mod.rs", "pub fn grow() {}\n"),
        (
            "tamsi/mod.rs",
            concat!(
                "//! Docs naming crate::ffi::x are not code.\n",
                "mod solver;\nmod sensitivity;\npub use solver::Solver;\npub use sensitivity::Sens;\n",
            ),
        ),
        (
            "tamsi/solver.rs",
            concat!(
                "use super::Sens;\nuse crate::linalg::grow;\npub struct Solver { s: Sens }\n",
                "mod engine;\nuse engine::run;\n",
            ),
        ),
        ("tamsi/solver/engine.rs", "pub fn run(s: &super::Solver) {}\n"),
        (
            "tamsi/sensitivity.rs",
            "pub struct Sens;\nimpl super::Solver {}\n#[cfg(test)]\nmod tests {\n    use super::*;\n}\n",
        ),
    ]);
    let report = check(&krate);
    // `mod.rs` re-exports every file and `linalg` is below: neither is part of the circle.
    let expected = "import circle among 3 files: src/tamsi/sensitivity.rs, src/tamsi/solver.rs, \
                    src/tamsi/solver/engine.rs\n    \
                    src/tamsi/sensitivity.rs:2 uses src/tamsi/solver.rs\n    \
                    src/tamsi/solver.rs:1 uses src/tamsi/sensitivity.rs\n    \
                    src/tamsi/solver.rs:5 uses src/tamsi/solver/engine.rs\n    \
                    src/tamsi/solver/engine.rs:1 uses src/tamsi/solver.rs\n";
    assert_eq!(report, expected);
}

#[test]
fn finds_layer_violations() {
    let krate = fixture(&[
        (
            "lib.rs",
            "pub mod ffi;\npub mod ipm;\npub mod linalg;\npub mod lcp;\npub mod rigid;\npub mod extra;\n",
        ),
        ("linalg/mod.rs", "use crate::lcp::Lcp;\n"),
        ("lcp/mod.rs", "pub struct Lcp;\n"),
        ("rigid/mod.rs", "use crate::lcp::Lcp;\n"),
        ("ipm/mod.rs", "pub use crate::lcp::Lcp;\nfn f() { crate::ffi::status(); }\n"),
        ("ffi/mod.rs", "use crate::ipm::Lcp;\npub fn status() {}\n"),
        ("extra.rs", "\n"),
    ]);
    let report = check(&krate);
    let violations: Vec<&str> = report.lines().filter(|l| l.starts_with("layer violation")).collect();
    assert_eq!(
        violations,
        [
            "layer violation: src/ipm/mod.rs:2 (ipm) uses src/ffi/mod.rs (ffi)",
            "layer violation: src/ipm/mod.rs:1 (ipm) uses src/lcp/mod.rs (lcp) (re-export)",
            "layer violation: src/linalg/mod.rs:1 (linalg) uses src/lcp/mod.rs (lcp)",
        ],
        "{report}"
    );
    assert!(report.contains("module `extra` (src/extra.rs) has no layer"), "{report}");
}
