//! The C ABI against its committed snapshot, `tests/data/abi_snapshot.txt` (`docs/packaging.md`
//! §3.1): the functions the shared library exports (`nm -D --defined-only`, `cts_` symbols), every
//! prototype of the header, the size, alignment and field offsets of every `cts_` struct and the
//! value of every `CTS_` constant (enumerators and macros), measured by a C program compiled
//! against the header. The snapshot is keyed by `CTS_ABI_VERSION`: an ABI that differs from the
//! snapshot of the same ABI version fails, and so does a version the snapshot does not record.
//!
//! After an intended ABI change, bump the crate's minor version (it is the ABI version while the
//! crate is 0.x) unless the current version is not released yet (`CHANGELOG.md`), then bless:
//!
//! ```sh
//! CONTACT_SOLVERS_BLESS_ABI=1 cargo test --test packaging abi_snapshot::
//! ```

use crate::c_support;

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

const BLESS: &str = "CONTACT_SOLVERS_BLESS_ABI=1 cargo test --test packaging abi_snapshot::";

fn snapshot_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/abi_snapshot.txt")
}

#[track_caller]
fn output(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(out.status.success(), "{cmd:?} failed:\n{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The identifiers of `text` that start with `prefix` (a whole identifier, not a suffix).
fn identifiers<'a>(text: &'a str, prefix: &str) -> Vec<&'a str> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(pos) = text[i..].find(prefix) {
        let start = i + pos;
        let mut end = start;
        while end < bytes.len() && is_ident(bytes[end]) {
            end += 1;
        }
        if start == 0 || !is_ident(bytes[start - 1]) {
            out.push(&text[start..end]);
        }
        i = end.max(start + 1);
    }
    out
}

/// The last identifier of a declaration (`const double *M` → `M`, `double a[3]` → `a`).
fn declared_name(decl: &str) -> &str {
    let decl = decl.split('[').next().unwrap().trim_end();
    let start = decl.rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).map_or(0, |p| p + 1);
    &decl[start..]
}

/// A prototype without its parameters' names (renaming one changes no ABI): `int f(const double
/// *x, size_t n)` → `int f(const double *, size_t)`. Parameters are the last parenthesized list.
fn without_parameter_names(stmt: &str) -> String {
    let (Some(open), true) = (stmt.rfind('('), stmt.ends_with(')')) else { return stmt.to_string() };
    let params: Vec<String> = stmt[open + 1..stmt.len() - 1]
        .split(',')
        .map(|p| {
            let p = p.trim();
            let name = declared_name(p);
            let ty = p[..p.len() - name.len()].trim_end();
            if p == "void" || ty.is_empty() { p.to_string() } else { ty.to_string() }
        })
        .collect();
    format!("{}({})", &stmt[..open], params.join(", "))
}

/// What the preprocessed header declares: the prototypes (whitespace collapsed, no parameter
/// names), the structs with
/// their field declarations and the enumerators' names.
struct Declarations {
    prototypes: BTreeSet<String>,
    structs: Vec<(String, Vec<String>)>,
    enumerators: Vec<String>,
}

fn declarations(preprocessed: &str) -> Declarations {
    let text: String = preprocessed.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut prototypes = BTreeSet::new();
    let mut structs = Vec::new();
    let mut enumerators = Vec::new();
    // Struct and enum bodies first, so that their statements are not read as prototypes.
    let mut rest = text.as_str();
    let mut outside = String::new();
    while let Some(open) = rest.find('{') {
        let close = open + rest[open..].find('}').expect("unbalanced braces");
        let head = rest[..open].rsplit(';').next().unwrap().trim();
        let body = &rest[open + 1..close];
        outside.push_str(&rest[..open]);
        outside.push(';');
        if let Some(name) = head.strip_prefix("typedef struct ").filter(|n| n.starts_with("cts_")) {
            let fields = body.split(';').map(str::trim).filter(|f| !f.is_empty()).map(String::from).collect();
            structs.push((name.trim().to_string(), fields));
        } else if head.starts_with("enum cts_") {
            for e in body.split(',').map(str::trim).filter(|e| !e.is_empty()) {
                enumerators.push(e.split('=').next().unwrap().trim().to_string());
            }
        }
        rest = &rest[close + 1..];
    }
    outside.push_str(rest);
    for stmt in outside.split(';').map(str::trim) {
        let declares_function = identifiers(stmt, "cts_").iter().any(|name| {
            let after = stmt[stmt.find(name).unwrap() + name.len()..].trim_start();
            after.starts_with('(') || after.starts_with(")(")
        });
        if declares_function {
            prototypes.insert(without_parameter_names(stmt));
        }
    }
    Declarations { prototypes, structs, enumerators }
}

/// The snapshot of the header in `include/` and the built shared library.
fn current_snapshot() -> String {
    let dir = c_support::out_dir("abi-snapshot");
    let include = c_support::include_dir();
    let probe = dir.join("header.c");
    std::fs::write(&probe, "#include \"contact_solvers.h\"\n").unwrap();
    let preprocess = |mode: &str| {
        output(
            c_support::compiler(false).arg("-std=c99").arg("-I").arg(&include).args(["-E", mode]).arg(&probe),
        )
    };
    let (preprocessed, macros) = (preprocess("-P"), preprocess("-dM"));
    let decls = declarations(&preprocessed);
    let mut constants: Vec<String> = macros
        .lines()
        .filter_map(|l| l.strip_prefix("#define "))
        .map(|l| l.split_whitespace().next().unwrap().to_string())
        .filter(|n| n.starts_with("CTS_"))
        .collect();
    constants.extend(decls.enumerators.iter().cloned());
    constants.sort();
    assert!(constants.contains(&"CTS_ABI_VERSION".to_string()) && !decls.structs.is_empty());

    // One C program prints every layout and value the compiler sees.
    let mut c = String::from("#include <stddef.h>\n#include <stdio.h>\n#include \"contact_solvers.h\"\n");
    c.push_str("#define FIELD(S, F) printf(\"field %s.%s offset %zu size %zu\\n\", #S, #F, offsetof(S, F), sizeof(((S *)0)->F))\n");
    c.push_str("int main(void) {\n");
    for (name, fields) in &decls.structs {
        writeln!(c, "  printf(\"struct {name} size %zu align %zu\\n\", sizeof({name}), _Alignof({name}));")
            .unwrap();
        for f in fields {
            writeln!(c, "  FIELD({name}, {});", declared_name(f)).unwrap();
        }
    }
    for k in &constants {
        writeln!(c, "  printf(\"constant {k} %lld\\n\", (long long)({k}));").unwrap();
    }
    c.push_str("  return 0;\n}\n");
    let src = dir.join("layout.c");
    std::fs::write(&src, c).unwrap();
    let exe = dir.join("layout");
    let mut build = c_support::compiler(false);
    build.arg("-std=c11").arg("-I").arg(&include).arg(&src).arg("-o").arg(&exe);
    output(&mut build);
    let measured = output(&mut Command::new(&exe));

    let so = c_support::lib_dir().join("shared/libcontact_solvers.so");
    let symbols: BTreeSet<String> = output(Command::new("nm").args(["-D", "--defined-only"]).arg(&so))
        .lines()
        .filter_map(|l| l.split_whitespace().nth(2))
        .filter(|n| n.starts_with("cts_"))
        .map(String::from)
        .collect();

    let version = contact_solvers::ffi::version::cts_abi_version();
    let mut s = String::new();
    writeln!(s, "# The C ABI of libcontact_solvers, checked by tests/packaging/abi_snapshot.rs.").unwrap();
    writeln!(s, "# Generated: do not edit. Bless with {BLESS}").unwrap();
    writeln!(s, "abi_version {version}").unwrap();
    for sym in &symbols {
        writeln!(s, "symbol {sym}").unwrap();
    }
    for p in &decls.prototypes {
        writeln!(s, "prototype {p}").unwrap();
    }
    for (name, fields) in &decls.structs {
        for f in fields {
            writeln!(s, "declaration {name}: {f}").unwrap();
        }
    }
    s.push_str(&measured);
    s
}

fn abi_version_of(snapshot: &str) -> Option<u32> {
    snapshot.lines().find_map(|l| l.strip_prefix("abi_version "))?.trim().parse().ok()
}

/// The lines of `a` that `b` lacks, at most 40.
fn missing_from(a: &str, b: &str) -> String {
    let b: BTreeSet<&str> = b.lines().collect();
    let lines: Vec<&str> = a.lines().filter(|l| !l.starts_with('#') && !b.contains(l)).collect();
    let mut out = lines.iter().take(40).map(|l| format!("    {l}\n")).collect::<String>();
    if lines.len() > 40 {
        writeln!(out, "    … and {} more", lines.len() - 40).unwrap();
    }
    out
}

#[test]
fn abi_matches_the_snapshot_of_its_version() {
    let current = current_snapshot();
    let path = snapshot_path();
    if std::env::var_os("CONTACT_SOLVERS_BLESS_ABI").is_some() {
        std::fs::write(&path, &current).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    if committed == current {
        return;
    }
    let version = contact_solvers::ffi::version::cts_abi_version();
    let diff = format!(
        "only in the snapshot:\n{}only in this build:\n{}",
        missing_from(&committed, &current),
        missing_from(&current, &committed)
    );
    match abi_version_of(&committed) {
        Some(v) if v == version => panic!(
            "the C ABI differs from tests/data/abi_snapshot.txt, but CTS_ABI_VERSION is still {version}.\n\
             A released ABI version never changes: bump the crate's minor version (Cargo.toml, \
             cbindgen.toml's CTS_VERSION_MINOR and CTS_ABI_VERSION, the bindings' ABI_VERSION, \
             CHANGELOG.md). If version {version} is not released yet (CHANGELOG.md), record the \
             change there and bless:\n    {BLESS}\n{diff}"
        ),
        recorded => panic!(
            "CTS_ABI_VERSION is {version} but tests/data/abi_snapshot.txt records ABI version {recorded:?}: \
             bless the new version's snapshot with\n    {BLESS}\n{diff}"
        ),
    }
}

/// The snapshot sees what it must: a change of any kind it records is a difference.
#[test]
fn snapshot_records_symbols_prototypes_layouts_and_constants() {
    let committed = std::fs::read_to_string(snapshot_path()).unwrap_or_default();
    for (kind, example) in [
        ("symbol ", "symbol cts_abi_version"),
        ("prototype ", "prototype uint32_t cts_abi_version(void)"),
        ("prototype ", "prototype cts_status cts_lcp_solver_new(struct cts_lcp_solver **)"),
        ("struct ", "struct cts_lcp_parameters size 64 align 8"),
        ("field ", "field cts_tamsi_iteration_stats."),
        ("declaration ", "declaration cts_lcp_parameters: double residual_tolerance"),
        ("constant ", "constant CTS_STATUS_OK 0"),
    ] {
        assert!(committed.lines().any(|l| l.starts_with(kind)), "no `{kind}` lines in the snapshot");
        assert!(committed.contains(example), "the snapshot lacks `{example}`");
    }
    assert_eq!(abi_version_of(&committed), Some(contact_solvers::ffi::version::cts_abi_version()));
}
