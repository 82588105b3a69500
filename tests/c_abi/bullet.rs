//! Bullet as a C++ client (`include/contact_solvers_bullet.hpp`, `docs/bullet.md`, issue 32):
//! programs built against the real Bullet (Debian's `libbullet-dev`, which `.ci/install-deps`
//! installs) with `-Wall -Wextra -Wpedantic -Werror`: the physics of `tests/c/bullet_physics.cpp`
//! (one test per section), the allocation count of `tests/c/bullet_alloc.cpp`, and the example
//! `examples_c/bullet/bullet_scenes.cpp` built and run under AddressSanitizer/UBSan. Without Bullet
//! these tests FAIL with a message that says so.

use crate::c_support;

use c_support::{SANITIZE, compiler, eigen_include, have_sanitizers, include_dir, lib_dir, out_dir, skipped};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Bullet's include folder, from pkg-config as a user's build finds it (used as a system include
/// folder: Bullet's own headers do not build warning-free with -Wextra).
fn bullet_include() -> PathBuf {
    let out = std::process::Command::new("pkg-config").args(["--cflags-only-I", "bullet"]).output();
    let dir = out
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.split_whitespace().find_map(|f| f.strip_prefix("-I").map(PathBuf::from)));
    match dir {
        Some(p) if p.join("btBulletDynamicsCommon.h").exists() => p,
        _ => panic!(
            "Bullet is not installed (pkg-config finds no `bullet` with btBulletDynamicsCommon.h): these tests \
             build against the real Bullet; install it with `.ci/install-deps tests` (Debian package libbullet-dev)"
        ),
    }
}

/// Compiles `sources` with Bullet, the library (shared, rpath) and `extra` flags into `exe`.
fn build(sources: &[&Path], exe: &Path, extra: &[&str]) {
    static BULLET: OnceLock<PathBuf> = OnceLock::new();
    let bullet = BULLET.get_or_init(bullet_include);
    let mut cmd = compiler(true);
    cmd.args(["-std=c++17", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-g", "-O2"])
        .arg("-I")
        .arg(include_dir())
        .arg("-I")
        .arg(c_support::examples_dir().join("bullet"))
        .arg("-isystem")
        .arg(bullet);
    if let Some(eigen) = eigen_include() {
        cmd.arg("-isystem").arg(eigen);
    }
    let d = lib_dir().join("shared");
    cmd.args(extra)
        .args(sources)
        .arg("-o")
        .arg(exe)
        .arg(format!("-L{}", d.display()))
        .arg("-lcontact_solvers")
        .arg(format!("-Wl,-rpath,{}", d.display()))
        // DT_RPATH before LD_LIBRARY_PATH, as c_support::build (issue 24).
        .arg("-Wl,--disable-new-dtags")
        .args(["-lBulletDynamics", "-lBulletCollision", "-lLinearMath", "-lstdc++", "-lm"]);
    let out = cmd.output().expect("compiler runs");
    assert!(out.status.success(), "compiling {sources:?} failed:\n{}", String::from_utf8_lossy(&out.stderr));
}

/// The physics program, built once per test process.
fn physics() -> &'static Path {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c/bullet_physics.cpp");
        let exe = out_dir("bullet-physics").join("bullet_physics");
        build(&[&src], &exe, &[]);
        exe
    })
}

fn section(name: &str) {
    let out = std::process::Command::new(physics()).arg(name).output().expect("program runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    print!("{stdout}");
    assert!(
        out.status.success() && stdout.contains("\n0 failures"),
        "bullet_physics {name} failed ({:?}):\n{stdout}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    // Every check prints a line: a section that checked nothing is a failure too.
    assert!(stdout.lines().filter(|l| l.starts_with("ok  ")).count() >= 4, "{stdout}");
}

#[test]
fn bullet_slope_sticks_or_slides_with_the_coulomb_acceleration() {
    section("slope");
}

#[test]
fn bullet_stack_stands_through_contact_solver() {
    section("stack");
}

#[test]
fn bullet_stack_stands_through_the_mlcp_adapters() {
    section("stack-mlcp");
}

#[test]
fn bullet_pile_gains_no_energy_and_penetrates_no_deeper_than_bullet() {
    section("pile");
}

#[test]
fn bullet_sphere_rolls_at_five_sevenths() {
    section("sphere");
}

#[test]
fn bullet_mlcp_adapters_match_dantzig() {
    section("mlcp");
}

/// No allocation per step once grown in the adapters' own code (issue 32): every scene run twice
/// with one adapter object, `operator new` counted inside the adapter's calls on the second run.
#[test]
fn bullet_adapters_allocate_nothing_once_grown() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c/bullet_alloc.cpp");
    let exe = out_dir("bullet-alloc").join("bullet_alloc");
    build(&[&src], &exe, &[]);
    let out = std::process::Command::new(&exe).output().expect("program runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    print!("{stdout}");
    assert!(
        out.status.success() && stdout.contains("\n0 failures"),
        "bullet_alloc failed ({:?}):\n{stdout}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    // The counters work, and each of the 7 counted runs (Baraff stack and pile, Lemke stack, TAMSI and
    // the interior point on the stack and the pile) checked its adapter calls and operator new.
    assert_eq!(stdout.lines().filter(|l| l.starts_with("ok  ")).count(), 1 + 7 * 2, "{stdout}");
}

#[test]
fn bullet_example_runs_clean_under_sanitizers() {
    bullet_include();
    if !have_sanitizers() {
        return skipped("AddressSanitizer/UBSan runtime not installed");
    }
    let src = c_support::examples_dir().join("bullet/bullet_scenes.cpp");
    let exe = out_dir("bullet-example-asan").join("bullet_scenes");
    build(&[&src], &exe, SANITIZE);
    // --quick: the same scenes and solvers over shorter runs (a sanitized build is ~10× slower).
    let out = std::process::Command::new(&exe).arg("--quick").output().expect("program runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "the example failed under ASan/UBSan ({:?}):\n{stdout}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    for scene in ["| slope", "| stack 10 boxes", "| pile 50 boxes", "| sphere rolling"] {
        assert_eq!(
            stdout.matches(scene).count(),
            if scene == "| slope" { 24 } else { 12 },
            "{scene}:\n{stdout}"
        );
    }
}
