//! The repository explains and tests itself without anything beside it:
//!
//! * no text file under `src/`, `tests/`, `benches/`, `examples/`, `examples_c/`, `include/`,
//!   `docs/`, `.ci/` or the top-level build files, README and CHANGELOG names a path outside the
//!   repository: the reference folder `shared` that used to sit beside it (or any path into it),
//!   the old `specs` documents (cited as `docs/<name>.md` now), a path in the home folder (`~`),
//!   or an absolute path other than the few system paths of [`ALLOWED_ABSOLUTE`];
//! * every `docs/<name>.md §N` cited anywhere (and every `<name>.md §N` inside `docs/`) names an
//!   existing document with a heading numbered `N`;
//! * the status-code table of `docs/c_api.md` §2 is the header's `cts_status`.
//!
//! Skipped: `tests/data/` (third-party data and its license texts), binary files, and folders
//! that builds and tools create (`target`, `__pycache__`, hidden folders such as
//! `.pytest_cache`). The patterns below are assembled at run time so that this file does not
//! name what it forbids.
//!
//! For authors, the rules in short: cite a document as `` `docs/<name>.md` §N `` (inside `docs/`
//! also `` `<name>.md` §N `` or a link `[…](<name>.md)`), where `N` is a numbered heading of that
//! document (`## N.`, `### N.M`; a lettered case such as `§9 A9` may be a sub-heading, a table row
//! or a bold label of section 9); a bare `§N` with no document name is not checked, so name the
//! document. Name files by paths relative to the repository root, and build paths from
//! `CARGO_MANIFEST_DIR` or a temporary folder at run time rather than writing them out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// What is scanned, relative to the repository root.
const SCANNED: [&str; 14] = [
    "src",
    "tests",
    "benches",
    "examples",
    "examples_c",
    "include",
    "docs",
    ".ci",
    "README.md",
    "CHANGELOG.md",
    "Cargo.toml",
    "build.rs",
    "cbindgen.toml",
    "Makefile",
];

/// Absolute paths a file may name: `(path, whether paths below it are allowed too)`. Eigen's
/// headers (C++ examples and tests), `/proc` (tests find live processes), `/proc/self/status`
/// (the allocation-limit test reads its own address-space size), `/proc/stat` (the VM's steal
/// time, `examples/thread_cpus.py`), `/dev/null` (shell redirections),
/// `/dev/zero` (the rigid solver's size test maps it read-only) and the usual install prefixes of `make install PREFIX=…`.
const ALLOWED_ABSOLUTE: [(&str, bool); 8] = [
    ("/usr/include/eigen3", true),
    ("/proc", false),
    ("/proc/self/status", false),
    ("/proc/stat", false),
    ("/dev/null", false),
    ("/dev/zero", false),
    ("/usr", false),
    ("/usr/local", false),
];

/// Every scanned text file, as (path relative to the root, contents).
fn scanned_files() -> Vec<(String, String)> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for p in entries {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            if p.is_dir() {
                let generated = name.starts_with('.') || name == "target" || name == "__pycache__";
                if !generated {
                    walk(&p, out);
                }
            } else {
                out.push(p);
            }
        }
    }
    let root = Path::new(ROOT);
    let mut paths = Vec::new();
    for s in SCANNED {
        let p = root.join(s);
        if p.is_dir() { walk(&p, &mut paths) } else { paths.push(p) }
    }
    let data = root.join("tests/data");
    paths
        .into_iter()
        .filter(|p| !p.starts_with(&data))
        .filter_map(|p| {
            let bytes = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            // Binary files (a NUL byte, or not UTF-8) are not text that could cite anything.
            if bytes.contains(&0) {
                return None;
            }
            let text = String::from_utf8(bytes).ok()?;
            Some((p.strip_prefix(root).unwrap().to_string_lossy().into_owned(), text))
        })
        .collect()
}

/// The old reference folder's name and the old specification folder's name.
const SHARED: &str = "shared";
const SPECS: &str = "specs";

/// Whether a `/` after `before` starts a path (rather than ending a word, a unit, a number or a
/// closing quote: `` `kN`/`kF` `` is not a path).
fn starts_token(before: &str) -> bool {
    let mut rev = before.chars().rev();
    match rev.next() {
        None => true,
        Some(c) if c.is_whitespace() || "([{=,;".contains(c) => true,
        // A quote or backtick opens a token only when it follows a space, a bracket or another
        // opening character; after a word it closes one.
        Some(c) if "\"'`".contains(c) => {
            rev.next().is_none_or(|p| p.is_whitespace() || "([{=,;#\"'`".contains(p))
        }
        Some(_) => before.ends_with("-I") || before.ends_with("-L"),
    }
}

fn is_path_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "_.+-/".contains(c)
}

fn path_token(s: &str) -> String {
    s.chars().take_while(|&c| c == '~' || is_path_char(c)).collect()
}

fn allowed_absolute(token: &str) -> bool {
    let token = token.trim_end_matches('/');
    ALLOWED_ABSOLUTE.iter().any(|&(p, below)| token == p || (below && token.starts_with(&format!("{p}/"))))
}

/// Whether `rest` starts with `dir` followed by a slash.
fn folder(rest: &str, dir: &str) -> bool {
    rest.strip_prefix(dir).is_some_and(|r| r.starts_with('/'))
}

/// The outside paths named on one line.
fn outside_paths(line: &str) -> Vec<String> {
    let mut found = Vec::new();
    let up_shared = format!("..{}{SHARED}", '/');
    if line.contains(&up_shared) {
        found.push(up_shared);
    }
    for (i, c) in line.char_indices() {
        let (before, rest) = line.split_at(i);
        let word_start =
            before.chars().next_back().is_none_or(|p| !(p.is_ascii_alphanumeric() || p == '_' || p == '-'));
        // The reference folder, except the tests' own build folder of that name in the target
        // folder (`lib-<pid>`, then `shared`, then `libcontact_solvers.so`).
        if word_start && folder(rest, SHARED) && !rest[SHARED.len() + 1..].starts_with("libcontact_solvers") {
            found.push(path_token(rest));
        }
        // The specification folder is cited as `docs` now.
        if word_start && folder(rest, SPECS) && !before.ends_with("docs/") {
            found.push(path_token(rest));
        }
        if c == '~' && rest[1..].starts_with('/') && starts_token(before) {
            found.push(path_token(rest));
        }
        // An absolute path: a slash at the start of a token, followed by a path component of
        // two or more characters or by several components (a lone `/P` is a fraction in prose).
        // Strings appended to the repository's own root (`CARGO_MANIFEST_DIR`) are inside it.
        if c == '/' && starts_token(before) {
            let token = path_token(rest);
            let first = token[1..].split('/').next().unwrap_or("");
            let starts = first.chars().next().is_some_and(|c| c.is_ascii_alphanumeric() || "_.-".contains(c));
            let component = starts && (first.len() >= 2 || token[1..].contains('/'));
            if component && !before.contains("CARGO_MANIFEST_DIR") && !allowed_absolute(&token) {
                found.push(token);
            }
        }
    }
    found
}

#[test]
fn no_file_names_a_path_outside_the_repository() {
    let mut bad = Vec::new();
    for (path, text) in scanned_files() {
        for (n, line) in text.lines().enumerate() {
            for p in outside_paths(line) {
                bad.push(format!("{path}:{}: `{p}` in: {}", n + 1, line.trim()));
            }
        }
    }
    assert!(bad.is_empty(), "paths outside the repository:\n{}", bad.join("\n"));
}

/// The rule itself, on lines it must flag and lines it must accept (`@` stands for a slash, so
/// that this file does not contain the paths).
#[test]
fn outside_path_rule_flags_what_it_should() {
    let slash = |s: &str| s.replace('@', "/");
    for line in [
        r#"let p = "..@shared@bench@x.txt";"#,
        "// see shared@specs@tamsi.md",
        "//! (`specs@tamsi.md` §5.1)",
        r#"std::fs::read("@work@data@x")"#,
        "cp x @tmp@y",
        "ls @x@y and @srv",
        "# built in @home@user@src",
        "open('~@data.txt')",
        "cc -I@opt@include x.c",
        "see `@work@x` and (\"@tmp@y\")",
    ] {
        assert!(!outside_paths(&slash(line)).is_empty(), "not flagged: {line}");
    }
    for line in [
        "//! (`docs@tamsi.md` §5.1)",
        r#"concat!(env!("CARGO_MANIFEST_DIR"), "@tests@data@x.gz")"#,
        r#"lib_dir().join("shared@libcontact_solvers.so")"#,
        "-isystem @usr@include@eigen3 x.cpp",
        "python -c 'import numpy' 2> @dev@null",
        "a = b @ c; // N·s@m, |f_t|@f_n, (a)@b",
        "see <https:@@github.com@RobotLocomotion@drake> and target@<profile>@deps",
        "make install PREFIX=@usr DESTDIR=stage",
        "wrong `kN`@`kF`@γ@`cf`@output length, Drake's@ours, \"a\"@\"b\"",
        "relative tolerance (momentum @P, velocity @V)",
    ] {
        let line = slash(line);
        assert!(outside_paths(&line).is_empty(), "flagged: {line}: {:?}", outside_paths(&line));
    }
}

/// The text with comment continuations joined, so that a citation broken over two comment
/// lines ("(`docs/rigid.md`\n//! §8.2)") reads as one.
fn flatten(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for (k, line) in text.lines().enumerate() {
        let mut l = line.trim_start();
        if k > 0 {
            for leader in ["//!", "///", "//", "*", "#", "%", "--"] {
                if let Some(rest) = l.strip_prefix(leader) {
                    l = rest.trim_start();
                    break;
                }
            }
            out.push(' ');
        }
        out.push_str(l);
    }
    out
}

/// A cited section: the document's name and the section id (`7.1`, `9.A9`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Citation {
    doc: String,
    section: Option<String>,
}

/// Parses one section id at the start of `s` (`7`, `7.1`, `9.A3`); returns it and its length.
fn section_id(s: &str) -> Option<(String, usize)> {
    let b = s.as_bytes();
    let digits = |from: usize| b[from..].iter().take_while(|c| c.is_ascii_digit()).count();
    let mut end = digits(0);
    if end == 0 {
        return None;
    }
    loop {
        if end + 1 < b.len() && b[end] == b'.' {
            let d = digits(end + 1);
            if d > 0 {
                end += 1 + d;
                continue;
            }
            if b[end + 1].is_ascii_uppercase() {
                let d = digits(end + 2);
                if d > 0 {
                    end += 2 + d;
                    continue;
                }
            }
        }
        break;
    }
    Some((s[..end].to_owned(), end))
}

/// A lettered id such as `A9` at the start of `s`.
fn lettered_id(s: &str) -> Option<(String, usize)> {
    let b = s.as_bytes();
    if b.first().is_some_and(|c| c.is_ascii_uppercase()) {
        let d = b[1..].iter().take_while(|c| c.is_ascii_digit()).count();
        let after = b.get(1 + d).copied();
        if d > 0 && after.is_none_or(|c| !c.is_ascii_alphanumeric()) {
            return Some((s[..1 + d].to_owned(), 1 + d));
        }
    }
    None
}

/// The section list after a document name: `§4, §5, §7`, `§8–9`, `§2.2–§2.3`, `§9.A3/A4`,
/// `§9 A9`, `§8.2 and §9`.
fn section_list(s: &str) -> Vec<String> {
    let mut ids = Vec::new();
    let Some(mut rest) = s.strip_prefix('§') else { return ids };
    let mut top = String::new();
    loop {
        // A numbered section, or (after a separator) a lettered case of the current one.
        if let Some((id, n)) = section_id(rest) {
            top = id.split('.').next().unwrap().to_owned();
            ids.push(id);
            rest = &rest[n..];
            // `§9 A9`: a lettered case of section 9.
            if let Some(after) = rest.strip_prefix(' ')
                && let Some((letter, n)) = lettered_id(after)
            {
                ids.push(format!("{top}.{letter}"));
                rest = &after[n..];
            }
        } else if let Some((letter, n)) = lettered_id(rest).filter(|_| !top.is_empty()) {
            ids.push(format!("{top}.{letter}"));
            rest = &rest[n..];
        } else {
            break;
        }
        // A separator, then the next id with or without its own `§`.
        let trimmed = rest.trim_start();
        let Some(r) = [",", "–", "-", "/", "and ", "or "].iter().find_map(|sep| trimmed.strip_prefix(sep))
        else {
            break;
        };
        let r = r.trim_start();
        let r = r.strip_prefix('§').unwrap_or(r);
        if section_id(r).is_none() && lettered_id(r).is_none() {
            break;
        }
        rest = r;
    }
    ids
}

/// Every citation of a document in `text`. Outside `docs/`, a document is `docs/<name>.md`; inside,
/// also a bare `<name>.md` that is a link target (`[…](name.md)`) or followed by a section.
fn citations(text: &str, inside_docs: bool) -> Vec<Citation> {
    let flat = flatten(text);
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(k) = flat[from..].find(".md") {
        let dot = from + k;
        from = dot + 3;
        let before = &flat[..dot];
        let name_len = before.bytes().rev().take_while(|c| c.is_ascii_alphanumeric() || *c == b'_').count();
        if name_len == 0 {
            continue;
        }
        let name = &before[before.len() - name_len..];
        let prefix = &before[..before.len() - name_len];
        let in_docs = prefix.ends_with("docs/");
        let bare = !prefix.ends_with('/');
        if !(in_docs || (inside_docs && bare)) {
            continue;
        }
        let after = flat[from..].trim_start_matches(['`', ')', ']']);
        let after = after.strip_prefix(',').unwrap_or(after).trim_start();
        let sections = section_list(after);
        // Inside `docs/`, a bare name is a document only as a link target or with a section
        // (`CHANGELOG.md` in prose is the repository's file).
        if !in_docs && sections.is_empty() && !prefix.ends_with("](") {
            continue;
        }
        if sections.is_empty() {
            out.push(Citation { doc: name.to_owned(), section: None });
        }
        for s in sections {
            out.push(Citation { doc: name.to_owned(), section: Some(s) });
        }
    }
    out
}

/// The numbered headings of a document (`## 7. …` → `7`, `### 7.1 …` → `7.1`, `### A1 …` under
/// `## 9.` → `9.A1`) and the text of each top-level section.
struct DocIndex {
    ids: BTreeSet<String>,
    sections: BTreeMap<String, String>,
}

fn headings(text: &str) -> DocIndex {
    let mut ids = BTreeSet::new();
    let mut sections: BTreeMap<String, String> = BTreeMap::new();
    let mut top = String::new();
    let mut in_code = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
        }
        let hashes = line.bytes().take_while(|&c| c == b'#').count();
        if !in_code && hashes > 0 && line[hashes..].starts_with(' ') {
            let title = line[hashes..].trim_start();
            if let Some((id, _)) = section_id(title) {
                if !id.contains('.') {
                    top = id.clone();
                }
                ids.insert(id);
            } else if let Some((letter, _)) = lettered_id(title) {
                ids.insert(format!("{top}.{letter}"));
            }
        }
        sections.entry(top.clone()).or_default().push_str(line);
        sections.get_mut(&top).unwrap().push('\n');
    }
    DocIndex { ids, sections }
}

fn section_exists(id: &str, doc: &DocIndex) -> bool {
    let DocIndex { ids, sections } = doc;
    if ids.contains(id) {
        return true;
    }
    // A lettered case (`9.A9`, `11.B2`) may be a table row or a bold label rather than a heading:
    // its section must exist and name it as a word.
    let mut parts = id.rsplitn(2, '.');
    let (last, parent) = (parts.next().unwrap(), parts.next());
    match (lettered_id(last), parent) {
        (Some(_), Some(parent)) if ids.contains(parent) => {
            let top = parent.split('.').next().unwrap();
            sections
                .get(top)
                .is_some_and(|t| t.split(|c: char| !c.is_ascii_alphanumeric()).any(|w| w == last))
        }
        _ => false,
    }
}

#[test]
fn every_cited_docs_section_exists() {
    let docs = Path::new(ROOT).join("docs");
    let mut cache: BTreeMap<String, Option<DocIndex>> = BTreeMap::new();
    let mut bad = Vec::new();
    let mut checked = 0;
    for (path, text) in scanned_files() {
        let inside_docs = path.starts_with("docs/") && path.ends_with(".md");
        for c in citations(&text, inside_docs) {
            let doc = cache.entry(c.doc.clone()).or_insert_with(|| {
                std::fs::read_to_string(docs.join(format!("{}.md", c.doc))).ok().map(|t| headings(&t))
            });
            let Some(doc) = doc else {
                bad.push(format!("{path}: docs/{}.md does not exist", c.doc));
                continue;
            };
            if let Some(s) = &c.section {
                checked += 1;
                if !section_exists(s, doc) {
                    bad.push(format!("{path}: docs/{}.md has no section §{s}", c.doc));
                }
            }
        }
    }
    assert!(bad.is_empty(), "citations that lead nowhere:\n{}", bad.join("\n"));
    // The scan must actually see the citations (a broken parser would pass vacuously).
    assert!(checked > 100, "only {checked} section citations found");
}

#[test]
fn citation_parser_reads_the_forms_in_use() {
    let secs = |s: &str| {
        citations(s, false)
            .into_iter()
            .map(|c| format!("{}:{}", c.doc, c.section.unwrap_or_default()))
            .collect::<Vec<_>>()
    };
    assert_eq!(secs("(`docs/tamsi.md` §4, §5, §7)."), ["tamsi:4", "tamsi:5", "tamsi:7"]);
    assert_eq!(secs("(`docs/rigid.md` §8–9)"), ["rigid:8", "rigid:9"]);
    assert_eq!(secs("(`docs/packaging.md` §2.2–§2.3)"), ["packaging:2.2", "packaging:2.3"]);
    assert_eq!(secs("`docs/ipm.md` §9.A3/A4 (exact"), ["ipm:9.A3", "ipm:9.A4"]);
    assert_eq!(secs("and `docs/ipm.md` §9 A9: 43"), ["ipm:9", "ipm:9.A9"]);
    assert_eq!(secs("(`docs/rigid.md`\n//! §8.2 and §9)"), ["rigid:8.2", "rigid:9"]);
    assert_eq!(secs("docs/tamsi_cases.md §2-§3 with"), ["tamsi_cases:2", "tamsi_cases:3"]);
    assert_eq!(secs("`docs/blog_methods.md` §6, checks 1–5"), ["blog_methods:6"]);
    assert_eq!(secs("`docs/c_api.md`, \"Status codes\""), ["c_api:"]);
    assert_eq!(secs("tests/data/README.md §2"), Vec::<String>::new());
    let inside: Vec<_> = citations("see [`tamsi.md`](tamsi.md) §7.2 and `c_api.md` §3", true)
        .into_iter()
        .filter_map(|c| c.section.map(|s| format!("{}:{s}", c.doc)))
        .collect();
    assert_eq!(inside, ["tamsi:7.2", "c_api:3"]);
    let linked: Vec<_> =
        citations("[`ipm.md`](ipm.md); see `CHANGELOG.md`", true).into_iter().map(|c| c.doc).collect();
    assert_eq!(linked, ["ipm"]);
    let doc = headings("# T\n## 0. Sources\n## 7. Loop\n### 7.1 Main\n## 9. Cases\n### A1 — x\n| B2 | y |\n");
    for id in ["0", "7", "7.1", "9", "9.A1", "9.B2"] {
        assert!(section_exists(id, &doc), "{id}");
    }
    for id in ["1", "7.2", "9.A2", "7.B2"] {
        assert!(!section_exists(id, &doc), "{id}");
    }
}

/// `docs/c_api.md` §2 lists exactly the header's status codes with their values.
#[test]
fn c_api_status_table_is_the_headers() {
    let header = std::fs::read_to_string(Path::new(ROOT).join("include/contact_solvers.h")).unwrap();
    let from_header: BTreeMap<String, i64> = header
        .lines()
        .filter_map(|l| {
            let (name, value) = l.trim().trim_end_matches(',').split_once(" = ")?;
            let value: i64 = value.trim().parse().ok()?;
            name.starts_with("CTS_STATUS_").then(|| (name.to_owned(), value))
        })
        .collect();
    let doc = std::fs::read_to_string(Path::new(ROOT).join("docs/c_api.md")).unwrap();
    let table =
        doc.split("## 2. Status codes").nth(1).expect("docs/c_api.md §2").split("\n## ").next().unwrap();
    let from_doc: BTreeMap<String, i64> = table
        .lines()
        .filter_map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            let name = cells.get(1)?.trim_matches('`');
            let value = cells.get(2)?.parse().ok()?;
            name.starts_with("CTS_STATUS_").then(|| (name.to_owned(), value))
        })
        .collect();
    assert!(from_header.len() >= 20, "header parse: {from_header:?}");
    assert_eq!(from_doc, from_header, "docs/c_api.md §2 and include/contact_solvers.h disagree");
}
