//! The scratch folders, the built library and the C compiler for tests that compile and run
//! programs against the library (`docs/packaging.md` §6), shared by the test crates
//! `tests/c_abi` (whose `c_support` adds building, running and the tool checks) and
//! `tests/packaging`. Each includes this file as a module by path rather than through the
//! `support` crate: it needs the test crate's own build environment (`CARGO_TARGET_TMPDIR`, the
//! target triple `build.rs` passes).
//!
//! `cargo test` leaves the cdylib and staticlib in `target/<profile>/deps/`; they are linked
//! (hard link, or copied) into a private folder, so programs link with `-lcontact_solvers` and
//! run through an rpath (the build folder's shared library has the SONAME
//! `libcontact_solvers.so`, the name of the file itself: see `build.rs`). Scratch folders of test
//! processes that have exited are removed (`remove_stale_scratch`).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The folder holding the built libraries under the names a C linker expects.
pub fn lib_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        remove_stale_scratch();
        let deps = std::env::current_exe().unwrap().parent().unwrap().to_path_buf();
        let so = deps.join("libcontact_solvers.so");
        let a = deps.join("libcontact_solvers.a");
        assert!(so.exists() && a.exists(), "libcontact_solvers.{{so,a}} not found in {}", deps.display());
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("lib-{}", std::process::id()));
        let shared = dir.join("shared");
        let stat = dir.join("static");
        std::fs::create_dir_all(&shared).unwrap();
        std::fs::create_dir_all(&stat).unwrap();
        link_or_copy(&so, &shared.join("libcontact_solvers.so"));
        link_or_copy(&a, &stat.join("libcontact_solvers.a"));
        dir
    })
}

/// A hard link `to` → `from` (no copy of the ~300 MB of debug libraries per test process), or a
/// copy where hard links are not possible.
fn link_or_copy(from: &Path, to: &Path) {
    let _ = std::fs::remove_file(to);
    if std::fs::hard_link(from, to).is_err() {
        std::fs::copy(from, to).unwrap();
    }
}

/// Removes the scratch folders (`lib-<pid>`, `c-<name>-<pid>`, `install-<pid>`) under
/// `CARGO_TARGET_TMPDIR` whose process has exited, once per test process; those of live processes
/// (`cargo nextest` runs tests in parallel processes) stay.
pub fn remove_stale_scratch() {
    static DONE: OnceLock<()> = OnceLock::new();
    DONE.get_or_init(|| {
        let Ok(entries) = std::fs::read_dir(env!("CARGO_TARGET_TMPDIR")) else { return };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            let scratch = name.starts_with("lib-") || name.starts_with("c-") || name.starts_with("install-");
            let Some(pid) = name.rsplit('-').next().and_then(|p| p.parse::<u32>().ok()) else { continue };
            if scratch && pid != std::process::id() && !Path::new("/proc").join(pid.to_string()).exists() {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
    });
}

pub fn include_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("include")
}

pub fn examples_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples_c")
}

/// Scratch folder for build products of one test.
pub fn out_dir(name: &str) -> PathBuf {
    remove_stale_scratch();
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("c-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The C (or C++) compiler as the `cc` crate finds it for this target.
pub fn compiler(cpp: bool) -> Command {
    let target = env!("CONTACT_SOLVERS_TARGET");
    cc::Build::new()
        .target(target)
        .host(target)
        .opt_level(0)
        .cargo_metadata(false)
        .cpp(cpp)
        .get_compiler()
        .to_command()
}

/// Prints a clear skip line for a part of a test whose tool is missing.
pub fn skipped(what: &str) {
    println!("skipped: {what}");
}
