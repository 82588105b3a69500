//! The installed layout (`docs/packaging.md` §5): `cargo cinstall --release --prefix P
//! --libdir P/lib` into a temporary prefix installs the versioned shared library with its SONAME
//! link, the static library, the committed header and `contact_solvers.pc` (both with the SPDX
//! license identifier); a C program
//! (`examples_c/rolling_cylinder.c`) then builds with `pkg-config --cflags --libs
//! contact_solvers` (shared, run through `LD_LIBRARY_PATH`) and with `pkg-config --static` (no
//! run-time dependency on the library), and, when cmake is installed, as the CMake project
//! `examples_c/cmake` (`pkg_check_modules(... IMPORTED_TARGET contact_solvers)`); each prints
//! Drake's reference values.
//!
//! Needs cargo-c (`cargo cinstall`, pinned 0.10.24: `.ci/install-deps tests` builds it) and
//! pkg-config; without cargo-c the tests print `skipped: …`. The release build goes to its own
//! target folder under `target/tmp`, kept between runs.

use crate::c_support;
use support::tamsi_support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use c_support::{compiler, examples_dir, remove_stale_scratch, skipped};
use tamsi_support::example_output::check_rolling_cylinder;

fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".into())
}

fn succeeded(cmd: &mut Command) -> bool {
    cmd.output().map(|o| o.status.success()).unwrap_or(false)
}

#[track_caller]
fn run_checked(cmd: &mut Command) -> Output {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed ({:?}):\nstdout:\n{}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn soname() -> String {
    format!("libcontact_solvers.so.0.{}", env!("CARGO_PKG_VERSION_MINOR"))
}

/// The install prefix, installed once per test run; `None` when cargo-c is missing.
fn prefix() -> Option<&'static Path> {
    static PREFIX: OnceLock<Option<PathBuf>> = OnceLock::new();
    PREFIX
        .get_or_init(|| {
            if !succeeded(Command::new(cargo()).args(["cinstall", "--version"])) {
                return None;
            }
            let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
            remove_stale_scratch();
            let prefix = tmp.join(format!("install-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&prefix);
            let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
            run_checked(
                Command::new(cargo())
                    .arg("cinstall")
                    .arg("--release")
                    .arg("--manifest-path")
                    .arg(&manifest)
                    .arg("--target-dir")
                    .arg(tmp.join("cinstall-target"))
                    .arg(format!("--prefix={}", prefix.display()))
                    .arg(format!("--libdir={}", prefix.join("lib").display())),
            );
            Some(prefix)
        })
        .as_deref()
}

fn pkg_config(prefix: &Path, args: &[&str]) -> Vec<String> {
    let out = run_checked(
        Command::new("pkg-config")
            .args(args)
            .arg("contact_solvers")
            .env("PKG_CONFIG_PATH", prefix.join("lib/pkgconfig")),
    );
    String::from_utf8(out.stdout).unwrap().split_whitespace().map(str::to_string).collect()
}

/// The `NEEDED` entries of an ELF file and its `SONAME`, from `readelf -d`.
fn dynamic_section(file: &Path) -> (Vec<String>, Option<String>) {
    let out = run_checked(Command::new("readelf").arg("-d").arg(file));
    let text = String::from_utf8(out.stdout).unwrap();
    let value = |line: &str| line.split('[').nth(1).and_then(|s| s.split(']').next()).map(str::to_string);
    let needed = text.lines().filter(|l| l.contains("(NEEDED)")).filter_map(value).collect();
    let soname = text.lines().find(|l| l.contains("(SONAME)")).and_then(value);
    (needed, soname)
}

fn build_rolling_cylinder(dir: &Path, flags: &[String]) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let exe = dir.join("rolling_cylinder");
    run_checked(
        compiler(false)
            .args(["-std=c99", "-Wall", "-Wextra", "-Wpedantic", "-Werror"])
            .arg(examples_dir().join("rolling_cylinder.c"))
            .arg("-o")
            .arg(&exe)
            .args(flags)
            .arg("-lm"),
    );
    exe
}

#[test]
fn cinstall_lays_out_library_header_and_pkg_config() {
    let Some(prefix) = prefix() else {
        return skipped("cargo-c not installed (cargo install cargo-c --version 0.10.24 --locked)");
    };
    let lib = prefix.join("lib");
    let version = env!("CARGO_PKG_VERSION");
    // The versioned file, the SONAME link the loader needs, the development link.
    let real = lib.join(format!("libcontact_solvers.so.{version}"));
    assert!(real.is_file(), "{} missing", real.display());
    for link in [soname(), "libcontact_solvers.so".to_string()] {
        let p = lib.join(&link);
        assert!(p.is_symlink(), "{} is not a symlink", p.display());
        assert_eq!(std::fs::canonicalize(&p).unwrap(), std::fs::canonicalize(&real).unwrap());
    }
    // Trap 2 of docs/packaging.md §5: the SONAME is cargo-c's, and a file of that name is installed.
    assert_eq!(dynamic_section(&real).1.as_deref(), Some(soname().as_str()));
    assert!(lib.join("libcontact_solvers.a").is_file());
    // The committed header, byte for byte, directly in include/ (trap 1: subdirectory = false).
    let header = std::fs::read(prefix.join("include/contact_solvers.h")).unwrap();
    let committed =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("include/contact_solvers.h")).unwrap();
    assert!(header == committed, "installed header differs from include/contact_solvers.h");
    // The license travels with the .pc file: cargo-c writes no comments, so the identifier ends
    // the Description line (Cargo.toml).
    let pc = std::fs::read_to_string(lib.join("pkgconfig/contact_solvers.pc")).unwrap();
    let spdx = "SPDX-License-Identifier: MIT OR Apache-2.0";
    assert!(pc.lines().any(|l| l.starts_with("Description: ") && l.ends_with(spdx)), "{pc}");
    assert!(String::from_utf8_lossy(&header).starts_with(&format!("/* {spdx} */\n")));
    let cflags = pkg_config(prefix, &["--cflags"]);
    assert_eq!(cflags, [format!("-I{}", prefix.join("include").display())]);
    assert_eq!(pkg_config(prefix, &["--modversion"]), [version]);
    let libs = pkg_config(prefix, &["--libs"]);
    assert_eq!(libs, [format!("-L{}", lib.display()), "-lcontact_solvers".to_string()]);
    let static_libs = pkg_config(prefix, &["--static", "--libs"]);
    for l in ["-lcontact_solvers", "-lpthread", "-lm", "-ldl"] {
        assert!(static_libs.iter().any(|x| x == l), "--static --libs lacks {l}: {static_libs:?}");
    }
}

#[test]
fn pkg_config_shared_build_runs() {
    let Some(prefix) = prefix() else {
        return skipped("cargo-c not installed (cargo install cargo-c --version 0.10.24 --locked)");
    };
    let flags = pkg_config(prefix, &["--cflags", "--libs"]);
    let exe = build_rolling_cylinder(&prefix.join("build-shared"), &flags);
    let (needed, _) = dynamic_section(&exe);
    assert!(needed.contains(&soname()), "not linked against {}: {needed:?}", soname());
    // Without the library path the loader must not find it (nothing else is installed there)...
    let out = Command::new(&exe).env_remove("LD_LIBRARY_PATH").output().unwrap();
    assert!(!out.status.success(), "ran without LD_LIBRARY_PATH: is another libcontact_solvers installed?");
    // ... and with it, the program runs and prints Drake's values.
    let out = run_checked(Command::new(&exe).env("LD_LIBRARY_PATH", prefix.join("lib")));
    check_rolling_cylinder(&String::from_utf8(out.stdout).unwrap());
}

#[test]
fn pkg_config_static_build_runs() {
    let Some(prefix) = prefix() else {
        return skipped("cargo-c not installed (cargo install cargo-c --version 0.10.24 --locked)");
    };
    // `--static` adds the system libraries Rust's standard library needs (Libs.private); the
    // archive is chosen over the .so next to it with GNU ld's -l:libcontact_solvers.a.
    let flags: Vec<String> = pkg_config(prefix, &["--cflags", "--static", "--libs"])
        .into_iter()
        .map(|f| if f == "-lcontact_solvers" { "-l:libcontact_solvers.a".to_string() } else { f })
        .collect();
    let exe = build_rolling_cylinder(&prefix.join("build-static"), &flags);
    let (needed, _) = dynamic_section(&exe);
    assert!(!needed.iter().any(|n| n.contains("contact_solvers")), "static build needs {needed:?}");
    let out = run_checked(Command::new(&exe).env_remove("LD_LIBRARY_PATH"));
    check_rolling_cylinder(&String::from_utf8(out.stdout).unwrap());
}

#[test]
fn cmake_consumer_builds_and_runs() {
    let Some(prefix) = prefix() else {
        return skipped("cargo-c not installed (cargo install cargo-c --version 0.10.24 --locked)");
    };
    if !succeeded(Command::new("cmake").arg("--version")) {
        return skipped("cmake not installed");
    }
    let build = prefix.join("build-cmake");
    let cc = compiler(false);
    run_checked(
        Command::new("cmake")
            .arg("-S")
            .arg(examples_dir().join("cmake"))
            .arg("-B")
            .arg(&build)
            .arg(format!("-DCMAKE_PREFIX_PATH={}", prefix.display()))
            .arg(format!("-DCMAKE_C_COMPILER={}", cc.get_program().to_string_lossy()))
            .env_remove("PKG_CONFIG_PATH"),
    );
    run_checked(Command::new("cmake").arg("--build").arg(&build));
    // CMake links the imported target by full path and adds its folder to the build rpath.
    let out = run_checked(Command::new(build.join("rolling_cylinder")).env_remove("LD_LIBRARY_PATH"));
    check_rolling_cylinder(&String::from_utf8(out.stdout).unwrap());
}
