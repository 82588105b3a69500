//! Compiling and running C and C++ against the library from tests (`docs/packaging.md` §6).
//!
//! `cargo test` leaves the cdylib and staticlib in `target/<profile>/deps/`; they are linked
//! (hard link, or copied) into a private folder, so programs link with `-lcontact_solvers` and
//! run through an rpath (the build folder's shared library has the SONAME
//! `libcontact_solvers.so`, the name of the file itself: see `build.rs`). Scratch folders of test
//! processes that have exited are removed (`remove_stale_scratch`). Tools that may be missing
//! (valgrind, the sanitizer runtimes, Eigen) are detected; CI installs them, and a test without
//! them prints `skipped: …` for that part only.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
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

/// How a program links the library.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Link {
    /// Not at all (header-only checks).
    None,
    /// Against `libcontact_solvers.so`, found at run time through an rpath.
    Shared,
    /// Against `libcontact_solvers.a` plus the system libraries the README names.
    Static,
}

/// System libraries a static link needs (`rustc --print native-static-libs`).
pub const NATIVE_STATIC_LIBS: &[&str] = &["-lgcc_s", "-lutil", "-lrt", "-lpthread", "-lm", "-ldl", "-lc"];

/// Compiles `sources` into `exe` with `flags` (then the library, if linked, and `-lm`); panics with the compiler's output on failure.
pub fn build(sources: &[&Path], exe: &Path, cpp: bool, flags: &[&str], link: Link) {
    let mut cmd = compiler(cpp);
    cmd.arg("-I").arg(include_dir()).args(flags).args(sources).arg("-o").arg(exe);
    match link {
        Link::None => {}
        Link::Shared => {
            let d = lib_dir().join("shared");
            cmd.arg(format!("-L{}", d.display()))
                .arg("-lcontact_solvers")
                .arg(format!("-Wl,-rpath,{}", d.display()));
        }
        Link::Static => {
            let d = lib_dir().join("static");
            cmd.arg(format!("-L{}", d.display()))
                .arg("-Wl,-Bstatic")
                .arg("-lcontact_solvers")
                .arg("-Wl,-Bdynamic");
            cmd.args(NATIVE_STATIC_LIBS);
        }
    }
    if cpp {
        cmd.arg("-lstdc++");
    }
    cmd.arg("-lm");
    let out = cmd.output().expect("compiler runs");
    assert!(out.status.success(), "compiling {sources:?} failed:\n{}", String::from_utf8_lossy(&out.stderr));
}

/// Runs `exe` (optionally under valgrind) and returns its output.
pub fn run(exe: &Path, valgrind: bool) -> Output {
    let mut cmd = if valgrind {
        let mut c = Command::new("valgrind");
        c.args(["--error-exitcode=1", "--leak-check=full", "--errors-for-leak-kinds=definite", "-q"])
            .arg(exe);
        c
    } else {
        Command::new(exe)
    };
    cmd.output().expect("program runs")
}

/// Stdout of a successful run; panics with both streams otherwise.
pub fn run_ok(exe: &Path, valgrind: bool) -> String {
    let out = run(exe, valgrind);
    assert!(
        out.status.success(),
        "{} failed ({:?}){}:\nstdout:\n{}\nstderr:\n{}",
        exe.display(),
        out.status,
        if valgrind { " under valgrind" } else { "" },
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Flags of the AddressSanitizer/UBSan builds: any report is fatal, so it fails the test.
pub const SANITIZE: &[&str] =
    &["-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer"];

/// Whether valgrind is installed.
pub fn have_valgrind() -> bool {
    Command::new("valgrind").arg("--version").output().map(|o| o.status.success()).unwrap_or(false)
}

/// Whether the compiler can build and run with AddressSanitizer and UBSan.
pub fn have_sanitizers() -> bool {
    static HAVE: OnceLock<bool> = OnceLock::new();
    *HAVE.get_or_init(|| {
        let d = out_dir("asan-probe");
        let src = d.join("probe.c");
        std::fs::write(&src, "int main(void) { return 0; }\n").unwrap();
        let exe = d.join("probe");
        let ok = compiler(false)
            .args(["-fsanitize=address,undefined"])
            .arg(&src)
            .arg("-o")
            .arg(&exe)
            .output()
            .map(|o| o.status.success())
            .unwrap_or(false);
        ok && Command::new(&exe).output().map(|o| o.status.success()).unwrap_or(false)
    })
}

/// Whether Eigen's headers are installed (`/usr/include/eigen3`).
pub fn eigen_include() -> Option<PathBuf> {
    let p = PathBuf::from("/usr/include/eigen3");
    p.join("Eigen/Core").exists().then_some(p)
}

/// Prints a clear skip line for a part of a test whose tool is missing.
pub fn skipped(what: &str) {
    println!("skipped: {what}");
}

/// Builds a C++ wrapper test program from `tests/c/{main_src}` and `tests/c/{second_src}` (two
/// translation units, so ODR violations would show) with warnings as errors plus `extra` flags,
/// runs it (its output must contain `expect` and end its count with `0 failures`), then again
/// under valgrind and rebuilt with ASan/UBSan when those are installed.
pub fn run_cpp_wrapper(main_src: &str, second_src: &str, name: &str, extra: &[&str], expect: &str) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c");
    let (a, b) = (dir.join(main_src), dir.join(second_src));
    let flags = [&["-std=c++17", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-g"][..], extra].concat();
    let exe = out_dir(name).join("wrapper");
    build(&[&a, &b], &exe, true, &flags, Link::Shared);
    let out = run_ok(&exe, false);
    assert!(out.contains(expect) && out.contains("\n0 failures"), "{out}");
    if have_valgrind() {
        assert!(run_ok(&exe, true).contains("\n0 failures"));
    } else {
        skipped("valgrind not installed");
    }
    if have_sanitizers() {
        let exe = out_dir(&format!("{name}-asan")).join("wrapper");
        let flags = [&flags[..], SANITIZE].concat();
        build(&[&a, &b], &exe, true, &flags, Link::Shared);
        assert!(run_ok(&exe, false).contains("\n0 failures"));
    } else {
        skipped("AddressSanitizer/UBSan runtime not installed");
    }
}
