//! Compiling and running C and C++ against the library (`docs/packaging.md` §6): the scratch
//! folders, built library and compiler of `tests/c_support/mod.rs`, plus linking shared or
//! static, running under valgrind, the AddressSanitizer/UBSan builds and the C++ wrapper
//! programs. Tools that may be missing (valgrind, the sanitizer runtimes, Eigen) are detected; CI
//! installs them, and a test without them prints `skipped: …` for that part only.

#[path = "../c_support/mod.rs"]
mod shared;

pub use shared::*;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// How a program links the library.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Link {
    /// Not at all (header-only checks).
    None,
    /// Against `libcontact_solvers.so`, found at run time through an rpath.
    Shared,
    /// Against `libcontact_solvers.a` plus the system libraries `docs/packaging.md` §4.1 names.
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
                .arg(format!("-Wl,-rpath,{}", d.display()))
                // DT_RPATH, searched before LD_LIBRARY_PATH (DT_RUNPATH, the default, comes
                // after it): cargo test puts target/debug and target/debug/deps on
                // LD_LIBRARY_PATH, where a stale libcontact_solvers.so from an earlier build
                // would otherwise be loaded instead of this test's (issue 24).
                .arg("-Wl,--disable-new-dtags");
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
