//! The C ABI's safety contract for issue 13, checked from C: bad data and parameters rejected
//! with messages that name the argument (`tests/c/contract_safety.c`), allocation failure as a
//! status under a memory cap (`tests/c/contract_alloc.c`), and a bounded run of the seeded C-ABI
//! fuzzer (`tests/c/fuzz_abi.c`). Every program runs plain, under AddressSanitizer/UBSan and
//! under valgrind where those are installed (each part prints `skipped: …` when its tool is
//! missing).

use crate::c_support;

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
    assert_checks(&run_ok(&exe, false), 110);
    if have_valgrind() {
        assert_checks(&run_ok(&exe, true), 110);
    } else {
        skipped("valgrind not installed");
    }
    if have_sanitizers() {
        let exe = dir.join("contract_safety_asan");
        build(&[&src], &exe, false, &[FLAGS, SANITIZE].concat(), Link::Shared);
        assert_checks(&run_ok(&exe, false), 110);
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

/// Parses "name N" out of the fuzzer's summary line.
fn count(summary: &str, name: &str) -> u64 {
    let at = summary.find(name).unwrap_or_else(|| panic!("no '{name}' in: {summary}"));
    let rest = summary[at + name.len()..].trim_start();
    rest.split(|c: char| !c.is_ascii_digit()).next().unwrap().parse().unwrap()
}

/// Runs the fuzzer for `seconds` of wall-clock time with `seed` (under valgrind when asked) and
/// checks its summary: no violation, and every solver reached OK solves (so the run exercised
/// the solvers' outputs, not only their argument checks).
fn fuzz(exe: &Path, seed: u64, seconds: u32, valgrind: bool) -> String {
    let mut cmd = if valgrind {
        let mut c = Command::new("valgrind");
        c.args(["--error-exitcode=1", "--leak-check=full", "--errors-for-leak-kinds=definite", "-q"])
            .arg(exe);
        c
    } else {
        Command::new(exe)
    };
    let out = cmd.arg(seed.to_string()).arg(seconds.to_string()).output().expect("fuzzer runs");
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "fuzz_abi seed {seed}{} failed ({:?}):\nstdout:\n{stdout}\nstderr:\n{}",
        if valgrind { " under valgrind" } else { "" },
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let summary = stdout.lines().last().unwrap_or_default().to_string();
    assert_eq!(count(&summary, "violations"), 0, "{summary}");
    let calls: u64 = summary.split_whitespace().nth(2).and_then(|c| c.parse().ok()).unwrap_or(0);
    assert!(calls > 1000, "too few calls: {summary}");
    let solves = &summary[summary.find("OK solves:").expect("summary line")..];
    for solver in ["tamsi", "lcp", "rigid", "baraff", "ipm"] {
        assert!(count(solves, &format!("{solver} ")) > 0, "no OK solve of {solver}: {summary}");
    }
    // TAMSI's block-sparse setters were reached past their checks, and solved.
    assert!(count(&summary, "sets OK") > 0, "no OK block-sparse TAMSI set call: {summary}");
    assert!(count(&summary, "solves OK") > 0, "no OK solve of block-sparse TAMSI data: {summary}");
    println!("{summary}");
    summary
}

/// The seeded C-ABI fuzzer (`tests/c/fuzz_abi.c`), bounded to about 45 s: seeds 1–3 for 12 s
/// each built with AddressSanitizer/UBSan (any report aborts the run and fails the test), then
/// seed 4 for 8 s under valgrind. Every run must end with no violation: known statuses only, a
/// message on every failure, no OK with a non-finite output of any of the five solvers.
#[test]
fn c_abi_fuzzer_finds_no_violation() {
    let src = source("fuzz_abi.c");
    let dir = out_dir("abi-fuzz");
    let plain = dir.join("fuzz_abi");
    build(&[&src], &plain, false, FLAGS, Link::Shared);
    if have_sanitizers() {
        let asan = dir.join("fuzz_abi_asan");
        build(&[&src], &asan, false, &[FLAGS, SANITIZE].concat(), Link::Shared);
        for seed in 1..=3 {
            fuzz(&asan, seed, 12, false);
        }
    } else {
        skipped("AddressSanitizer/UBSan runtime not installed (running the plain build)");
        for seed in 1..=3 {
            fuzz(&plain, seed, 12, false);
        }
    }
    if have_valgrind() {
        fuzz(&plain, 4, 8, true);
    } else {
        skipped("valgrind not installed");
    }
}
