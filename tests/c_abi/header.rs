//! The committed header is what cbindgen generates from `src/ffi`, byte for byte; it compiles as
//! C99 (pedantic, warnings as errors) and as C++17, alone and included twice; the library's
//! exported dynamic symbols are exactly the header's functions; the version macros match
//! `Cargo.toml` and the library; the build folder's SONAME is the file's own name; the license
//! (`MIT OR Apache-2.0`) is declared in the manifest, both license files and both headers;
//! CHANGELOG.md records this version's ABI.
//!
//! Regenerate the header with `CONTACT_SOLVERS_BLESS=1 cargo test --test c_abi header::`.

#![allow(unsafe_code)]

use crate::c_support;

use std::path::Path;

fn generate() -> Vec<u8> {
    let dir = env!("CARGO_MANIFEST_DIR");
    let config = cbindgen::Config::from_file(Path::new(dir).join("cbindgen.toml")).expect("cbindgen.toml");
    // Only the `ffi` module tree is the C API: solver modules may hold `#[repr(i32)]` enums
    // that are not part of it.
    let bindings = cbindgen::Builder::new()
        .with_src(Path::new(dir).join("src/ffi/mod.rs"))
        .with_config(config)
        .generate()
        .expect("cbindgen");
    let mut out = Vec::new();
    bindings.write(&mut out);
    out
}

#[test]
fn header_is_current() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("include/contact_solvers.h");
    let generated = generate();
    if std::env::var_os("CONTACT_SOLVERS_BLESS").is_some() {
        std::fs::write(&path, &generated).unwrap();
        return;
    }
    let committed = std::fs::read(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "include/contact_solvers.h is stale: regenerate it with `CONTACT_SOLVERS_BLESS=1 cargo test --test c_abi header::`"
    );
}

fn header_text() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("include/contact_solvers.h")).unwrap()
}

/// Function names declared in the header: every `cts_…(`.
fn header_functions() -> std::collections::BTreeSet<String> {
    let text = header_text();
    let bytes = text.as_bytes();
    let mut names = std::collections::BTreeSet::new();
    let mut i = 0;
    while let Some(pos) = text[i..].find("cts_") {
        let start = i + pos;
        let mut end = start;
        while end < bytes.len() && (bytes[end].is_ascii_alphanumeric() || bytes[end] == b'_') {
            end += 1;
        }
        let preceded_by_ident =
            start > 0 && (bytes[start - 1].is_ascii_alphanumeric() || bytes[start - 1] == b'_');
        if !preceded_by_ident && bytes.get(end) == Some(&b'(') {
            names.insert(text[start..end].to_string());
        }
        i = end;
    }
    names
}

#[test]
fn header_compiles_as_c99_and_cpp17_alone_and_twice() {
    let dir = c_support::out_dir("header");
    let once = dir.join("once.c");
    std::fs::write(&once, "#include \"contact_solvers.h\"\nint main(void) { return CTS_STATUS_OK; }\n")
        .unwrap();
    let twice = dir.join("twice.c");
    std::fs::write(
        &twice,
        "#include \"contact_solvers.h\"\n#include \"contact_solvers.h\"\nint main(void) { return (int)CTS_ABI_VERSION - 1; }\n",
    )
    .unwrap();
    let strict = ["-Wall", "-Wextra", "-Wpedantic", "-Werror"];
    for src in [&once, &twice] {
        let exe = src.with_extension("c99");
        c_support::build(&[src], &exe, false, &[&["-std=c99"][..], &strict].concat(), c_support::Link::None);
        let cpp_src = src.with_extension("cpp");
        std::fs::copy(src, &cpp_src).unwrap();
        let exe = src.with_extension("cxx17");
        c_support::build(
            &[&cpp_src],
            &exe,
            true,
            &[&["-std=c++17"][..], &strict].concat(),
            c_support::Link::None,
        );
    }
}

/// The functions `docs/c_api.md` §3 fixes by name.
const C_API_FUNCTIONS: &[&str] = &[
    "cts_status_string",
    "cts_version",
    "cts_abi_version",
    "cts_last_error_message",
    "cts_tamsi_parameters_default",
    "cts_tamsi_solver_new",
    "cts_tamsi_solver_free",
    "cts_tamsi_solver_clone",
    "cts_tamsi_solver_resize",
    "cts_tamsi_solver_set_parameters",
    "cts_tamsi_solver_get_parameters",
    "cts_tamsi_solver_set_one_way_coupled_problem_data",
    "cts_tamsi_solver_set_two_way_coupled_problem_data",
    "cts_tamsi_solver_solve_with_guess",
    "cts_tamsi_solver_get_generalized_velocities",
    "cts_tamsi_solver_get_normal_velocities",
    "cts_tamsi_solver_get_tangential_velocities",
    "cts_tamsi_solver_get_normal_forces",
    "cts_tamsi_solver_get_friction_forces",
    "cts_tamsi_solver_get_generalized_friction_forces",
    "cts_tamsi_solver_get_generalized_contact_forces",
    "cts_tamsi_solver_get_iteration_stats",
    "cts_tamsi_solver_get_residuals",
    "cts_tamsi_solver_num_velocities",
    "cts_tamsi_solver_num_contacts",
    "cts_tamsi_solver_last_error",
    "cts_tamsi_calc_alpha",
    "cts_tamsi_solver_calc_jacobian",
];

#[test]
fn exported_symbols_are_exactly_the_header_functions() {
    let so = c_support::lib_dir().join("shared/libcontact_solvers.so");
    let out =
        std::process::Command::new("nm").args(["-D", "--defined-only"]).arg(&so).output().expect("nm runs");
    assert!(out.status.success());
    let exported: std::collections::BTreeSet<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| {
            let mut f = l.split_whitespace();
            let (_, kind, name) = (f.next()?, f.next()?, f.next()?);
            (kind == "T").then(|| name.to_string())
        })
        .collect();
    let declared = header_functions();
    for name in C_API_FUNCTIONS {
        assert!(declared.contains(*name), "{name} (fixed by docs/c_api.md) is not declared");
    }
    assert_eq!(exported, declared, "exported functions differ from the header's");
}

#[test]
fn version_macros_match_cargo_and_the_library() {
    let text = header_text();
    let macro_value = |name: &str| -> u32 {
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("#define {name} ")))
            .unwrap_or_else(|| panic!("{name}"));
        line.split_whitespace().nth(2).unwrap().parse().unwrap()
    };
    let cargo = |v: &str| -> u32 { v.parse().unwrap() };
    assert_eq!(macro_value("CTS_VERSION_MAJOR"), cargo(env!("CARGO_PKG_VERSION_MAJOR")));
    assert_eq!(macro_value("CTS_VERSION_MINOR"), cargo(env!("CARGO_PKG_VERSION_MINOR")));
    assert_eq!(macro_value("CTS_VERSION_PATCH"), cargo(env!("CARGO_PKG_VERSION_PATCH")));
    assert_eq!(macro_value("CTS_ABI_VERSION"), contact_solvers::ffi::version::cts_abi_version());
    let version = unsafe { std::ffi::CStr::from_ptr(contact_solvers::ffi::version::cts_version()) };
    assert_eq!(version.to_str().unwrap(), env!("CARGO_PKG_VERSION"));
}

/// The build folder's library is named after its own file (`build.rs`), so `-L<build folder>
/// -lcontact_solvers` plus an rpath finds it at run time; the versioned SONAME is cargo-c's, for
/// installs (`tests/packaging/install.rs` checks it).
#[test]
fn build_folder_library_has_its_file_name_as_soname() {
    let so = c_support::lib_dir().join("shared/libcontact_solvers.so");
    let out = std::process::Command::new("objdump").arg("-p").arg(&so).output().expect("objdump runs");
    let text = String::from_utf8(out.stdout).unwrap();
    let soname = text.lines().find(|l| l.trim_start().starts_with("SONAME")).expect("no SONAME");
    assert_eq!(soname.split_whitespace().nth(1), Some("libcontact_solvers.so"));
}

/// `MIT OR Apache-2.0`: both license texts, the Cargo.toml field, and the SPDX identifier as the
/// first line of both headers (the generated one gets it from cbindgen.toml's `header`).
#[test]
fn license_is_declared_in_the_manifest_and_the_headers() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(read("LICENSE-MIT").contains("Copyright (c) the contact_solvers developers"));
    assert!(
        read("LICENSE-APACHE")
            .contains("Apache License\n                           Version 2.0, January 2004")
    );
    assert!(read("Cargo.toml").lines().any(|l| l == r#"license = "MIT OR Apache-2.0""#));
    for header in ["include/contact_solvers.h", "include/contact_solvers.hpp"] {
        let text = read(header);
        assert_eq!(text.lines().next(), Some("/* SPDX-License-Identifier: MIT OR Apache-2.0 */"), "{header}");
    }
}

/// CHANGELOG.md has a section for this crate version that names its ABI version and SONAME (a
/// release renames `[Unreleased]` and states both), and an `[Unreleased]` section for what follows.
#[test]
fn changelog_records_this_versions_abi() {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("CHANGELOG.md")).unwrap();
    assert!(text.contains("\n## [Unreleased]\n"), "CHANGELOG.md has no [Unreleased] section");
    let heading = format!("\n## [{}]", env!("CARGO_PKG_VERSION"));
    let start = text.find(&heading).unwrap_or_else(|| panic!("CHANGELOG.md has no section{heading}"));
    let section = &text[start + heading.len()..];
    let section = &section[..section.find("\n## ").unwrap_or(section.len())];
    let minor = env!("CARGO_PKG_VERSION_MINOR");
    assert!(section.contains(&format!("`libcontact_solvers.so.0.{minor}`")), "{section}");
    assert!(section.contains(&format!("`CTS_ABI_VERSION {minor}`")), "{section}");
}

/// Issue 24: a test program loads the library it was linked against, not another
/// `libcontact_solvers.so` on `LD_LIBRARY_PATH` (cargo test puts target/debug there, where a
/// stale build may lie). A decoy library of that name whose `cts_abi_version` returns 999 sits
/// first on `LD_LIBRARY_PATH`; the program, linked with the rpath of `c_support::build`, still
/// reports this build's ABI version.
#[test]
fn test_programs_load_this_build_not_a_stale_library_on_ld_library_path() {
    let dir = c_support::out_dir("stale-library");
    let decoy_dir = dir.join("decoy");
    std::fs::create_dir_all(&decoy_dir).unwrap();
    let decoy_src = dir.join("decoy.c");
    std::fs::write(&decoy_src, "unsigned cts_abi_version(void) { return 999; }\n").unwrap();
    let mut cc = c_support::compiler(false);
    cc.args(["-shared", "-fPIC", "-o"]).arg(decoy_dir.join("libcontact_solvers.so")).arg(&decoy_src);
    assert!(cc.status().unwrap().success());
    let src = dir.join("abi.c");
    std::fs::write(
        &src,
        "#include <stdio.h>\n#include \"contact_solvers.h\"\nint main(void) { printf(\"%u\\n\", cts_abi_version()); return 0; }\n",
    )
    .unwrap();
    let exe = dir.join("abi");
    c_support::build(&[&src], &exe, false, &[], c_support::Link::Shared);
    let path = std::env::var("LD_LIBRARY_PATH").unwrap_or_default();
    let out = std::process::Command::new(&exe)
        .env("LD_LIBRARY_PATH", format!("{}:{path}", decoy_dir.display()))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let reported: u32 = String::from_utf8(out.stdout).unwrap().trim().parse().unwrap();
    assert_eq!(
        reported,
        contact_solvers::ffi::version::cts_abi_version(),
        "the decoy on LD_LIBRARY_PATH was loaded"
    );
}
