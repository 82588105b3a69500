//! The C ABI's safety contract for issue 13, checked from C: bad data and parameters rejected
//! with messages that name the argument (`tests/c/contract_safety.c`), allocation failure as a
//! status under a memory cap (`tests/c/contract_alloc.c`), and a bounded run of the seeded C-ABI
//! fuzzer (`tests/c/fuzz_abi.c`). Every program runs plain, under AddressSanitizer/UBSan and
//! under valgrind where those are installed (each part prints `skipped: …` when its tool is
//! missing).

mod c_support;

use std::path::{Path, PathBuf};
use std::process::Command;

use c_support::{Link, SANITIZE, build, have_sanitizers, have_valgrind, out_dir, run_ok, skipped};

const FLAGS: &[&str] = &["-std=c99", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-g", "-D_DEFAULT_SOURCE"];

fn source(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c").join(name)
}

/// The last line is "<n> checks, 0 failed" with at least `min` checks.
#[track_caller]
fn assert_checks(stdout: &str, min: usize) {
    let last = stdout.lines().last().unwrap_or_default();
    assert!(last.ends_with(" checks, 0 failed"), "contract failures:\n{stdout}");
    let checks: usize = last.split_whitespace().next().unwrap().parse().unwrap();
    assert!(checks >= min, "too few checks ran: {last}");
}

/// Runs `exe` with `ASAN_OPTIONS` set; stdout of a successful run, panics otherwise.
fn run_with_asan_options(exe: &Path, options: &str) -> String {
    let out = Command::new(exe).env("ASAN_OPTIONS", options).output().expect("program runs");
    assert!(
        out.status.success(),
        "{} failed ({:?}):\nstdout:\n{}\nstderr:\n{}",
        exe.display(),
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn bad_data_is_rejected_and_named_from_c() {
    let src = source("contract_safety.c");
    let dir = out_dir("abi-safety");
    let exe = dir.join("contract_safety");
    build(&[&src], &exe, false, FLAGS, Link::Shared);
    assert_checks(&run_ok(&exe, false), 70);
    if have_valgrind() {
        assert_checks(&run_ok(&exe, true), 70);
    } else {
        skipped("valgrind not installed");
    }
    if have_sanitizers() {
        let exe = dir.join("contract_safety_asan");
        build(&[&src], &exe, false, &[FLAGS, SANITIZE].concat(), Link::Shared);
        assert_checks(&run_ok(&exe, false), 70);
    } else {
        skipped("AddressSanitizer/UBSan runtime not installed");
    }
}

/// Under a memory cap, workspaces sized by honest but large inputs fail as statuses and the
/// process lives on (plain and valgrind: `setrlimit(RLIMIT_AS)` inside the program; ASan:
/// `max_allocation_size_mb`, since an address-space cap breaks ASan's shadow memory).
#[test]
fn allocation_failure_is_a_status_under_a_memory_cap() {
    let src = source("contract_alloc.c");
    let dir = out_dir("abi-alloc");
    let exe = dir.join("contract_alloc");
    build(&[&src], &exe, false, FLAGS, Link::Shared);
    assert_checks(&run_ok(&exe, false), 20);
    if have_valgrind() {
        assert_checks(&run_ok(&exe, true), 20);
    } else {
        skipped("valgrind not installed");
    }
    if have_sanitizers() {
        let exe = dir.join("contract_alloc_asan");
        build(&[&src], &exe, false, &[FLAGS, SANITIZE].concat(), Link::Shared);
        let options = "allocator_may_return_null=1:max_allocation_size_mb=128";
        assert_checks(&run_with_asan_options(&exe, options), 20);
    } else {
        skipped("AddressSanitizer/UBSan runtime not installed");
    }
}
