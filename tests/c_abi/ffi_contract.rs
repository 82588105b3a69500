//! The C ABI contract, checked from C (`tests/c/contract.c`): misuse of every function returns
//! its documented status with a message, writes nothing, and never crashes. Run plain, under
//! AddressSanitizer/UndefinedBehaviorSanitizer, and under valgrind (when present; CI installs
//! both).

use crate::c_support;

use c_support::{Link, build, have_sanitizers, have_valgrind, out_dir, run_ok, skipped};

const FLAGS: &[&str] = &["-std=c99", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-g"];

fn source() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c/contract.c")
}

#[track_caller]
fn assert_all_checks_pass(stdout: &str) {
    let last = stdout.lines().last().unwrap_or_default();
    assert!(last.ends_with(" checks, 0 failed"), "contract failures:\n{stdout}");
    let checks: usize = last.split_whitespace().next().unwrap().parse().unwrap();
    assert!(checks > 150, "too few checks ran: {last}");
}

#[test]
fn contract_holds_from_c() {
    let dir = out_dir("contract");
    let exe = dir.join("contract");
    build(&[&source()], &exe, false, FLAGS, Link::Shared);
    assert_all_checks_pass(&run_ok(&exe, false));
}

#[test]
fn contract_holds_with_static_linking() {
    let dir = out_dir("contract-static");
    let exe = dir.join("contract");
    build(&[&source()], &exe, false, FLAGS, Link::Static);
    assert_all_checks_pass(&run_ok(&exe, false));
}

#[test]
fn contract_holds_under_sanitizers() {
    if !have_sanitizers() {
        return skipped("AddressSanitizer/UBSan runtime not installed");
    }
    let dir = out_dir("contract-asan");
    let exe = dir.join("contract");
    let flags = [FLAGS, c_support::SANITIZE].concat();
    build(&[&source()], &exe, false, &flags, Link::Shared);
    assert_all_checks_pass(&run_ok(&exe, false));
}

#[test]
fn contract_holds_under_valgrind() {
    if !have_valgrind() {
        return skipped("valgrind not installed");
    }
    let dir = out_dir("contract-valgrind");
    let exe = dir.join("contract");
    build(&[&source()], &exe, false, FLAGS, Link::Shared);
    assert_all_checks_pass(&run_ok(&exe, true));
}

/// The LCP and rigid constraint-solver part of the contract (`tests/c/contract_lcp_rigid.c`):
/// shared and static linking, then AddressSanitizer/UBSan and valgrind when present.
#[test]
fn lcp_and_rigid_contract_holds_from_c() {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c/contract_lcp_rigid.c");
    let check = |stdout: &str| {
        let last = stdout.lines().last().unwrap_or_default();
        assert!(last.ends_with(" checks, 0 failed"), "contract failures:\n{stdout}");
        let checks: usize = last.split_whitespace().next().unwrap().parse().unwrap();
        assert!(checks > 250, "too few checks ran: {last}");
    };
    let dir = out_dir("contract-lcp-rigid");
    let exe = dir.join("contract_lcp_rigid");
    build(&[&src], &exe, false, FLAGS, Link::Shared);
    check(&run_ok(&exe, false));
    if have_valgrind() {
        check(&run_ok(&exe, true));
    } else {
        skipped("valgrind not installed");
    }
    let exe = dir.join("contract_lcp_rigid_static");
    build(&[&src], &exe, false, FLAGS, Link::Static);
    check(&run_ok(&exe, false));
    if have_sanitizers() {
        let exe = dir.join("contract_lcp_rigid_asan");
        let flags = [FLAGS, c_support::SANITIZE].concat();
        build(&[&src], &exe, false, &flags, Link::Shared);
        check(&run_ok(&exe, false));
    } else {
        skipped("AddressSanitizer/UBSan runtime not installed");
    }
}

// The Baraff solver's part of the contract (`tests/c/contract_baraff.c`), in the same four
// settings.

fn baraff_source() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c/contract_baraff.c")
}

#[test]
fn baraff_contract_holds_from_c() {
    let dir = out_dir("contract-baraff");
    let exe = dir.join("contract_baraff");
    build(&[&baraff_source()], &exe, false, FLAGS, Link::Shared);
    assert_all_checks_pass(&run_ok(&exe, false));
}

#[test]
fn baraff_contract_holds_with_static_linking() {
    let dir = out_dir("contract-baraff-static");
    let exe = dir.join("contract_baraff");
    build(&[&baraff_source()], &exe, false, FLAGS, Link::Static);
    assert_all_checks_pass(&run_ok(&exe, false));
}

#[test]
fn baraff_contract_holds_under_sanitizers() {
    if !have_sanitizers() {
        return skipped("AddressSanitizer/UBSan runtime not installed");
    }
    let dir = out_dir("contract-baraff-asan");
    let exe = dir.join("contract_baraff");
    let flags = [FLAGS, c_support::SANITIZE].concat();
    build(&[&baraff_source()], &exe, false, &flags, Link::Shared);
    assert_all_checks_pass(&run_ok(&exe, false));
}

#[test]
fn baraff_contract_holds_under_valgrind() {
    if !have_valgrind() {
        return skipped("valgrind not installed");
    }
    let dir = out_dir("contract-baraff-valgrind");
    let exe = dir.join("contract_baraff");
    build(&[&baraff_source()], &exe, false, FLAGS, Link::Shared);
    assert_all_checks_pass(&run_ok(&exe, true));
}

/// The interior-point API (`tests/c/contract_ipm.c`): plain, statically linked, under
/// AddressSanitizer/UBSan and under valgrind (each printing `skipped: …` when its tool is missing).
#[test]
fn ipm_contract_holds_from_c() {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c/contract_ipm.c");
    let dir = out_dir("contract-ipm");
    let exe = dir.join("contract_ipm");
    build(&[&src], &exe, false, FLAGS, Link::Shared);
    assert_all_checks_pass(&run_ok(&exe, false));

    let exe_static = dir.join("contract_ipm_static");
    build(&[&src], &exe_static, false, FLAGS, Link::Static);
    assert_all_checks_pass(&run_ok(&exe_static, false));

    if have_sanitizers() {
        let exe = dir.join("contract_ipm_asan");
        let flags = [FLAGS, c_support::SANITIZE].concat();
        build(&[&src], &exe, false, &flags, Link::Shared);
        assert_all_checks_pass(&run_ok(&exe, false));
    } else {
        skipped("AddressSanitizer/UBSan runtime not installed");
    }

    if have_valgrind() {
        assert_all_checks_pass(&run_ok(&exe, true));
    } else {
        skipped("valgrind not installed");
    }
}

/// TAMSI's block-sparse setters (`tests/c/contract_tamsi_blocks.c`): NULLs, sizes, tree indices,
/// overlapping trees, non-finite and negative values, each with its status and message and
/// nothing lost; block data solving as its dense twin. Plain, statically linked, under
/// AddressSanitizer/UBSan and under valgrind (each printing `skipped: …` when its tool is
/// missing).
#[test]
fn tamsi_block_contract_holds_from_c() {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c/contract_tamsi_blocks.c");
    let check = |stdout: &str| {
        let last = stdout.lines().last().unwrap_or_default();
        assert!(last.ends_with(" checks, 0 failed"), "contract failures:\n{stdout}");
        let checks: usize = last.split_whitespace().next().unwrap().parse().unwrap();
        assert!(checks > 200, "too few checks ran: {last}");
    };
    let dir = out_dir("contract-tamsi-blocks");
    let exe = dir.join("contract_tamsi_blocks");
    build(&[&src], &exe, false, FLAGS, Link::Shared);
    check(&run_ok(&exe, false));
    if have_valgrind() {
        check(&run_ok(&exe, true));
    } else {
        skipped("valgrind not installed");
    }
    let exe_static = dir.join("contract_tamsi_blocks_static");
    build(&[&src], &exe_static, false, FLAGS, Link::Static);
    check(&run_ok(&exe_static, false));
    if have_sanitizers() {
        let exe = dir.join("contract_tamsi_blocks_asan");
        let flags = [FLAGS, c_support::SANITIZE].concat();
        build(&[&src], &exe, false, &flags, Link::Shared);
        check(&run_ok(&exe, false));
    } else {
        skipped("AddressSanitizer/UBSan runtime not installed");
    }
}

/// TAMSI's sensitivities (`tests/c/contract_tamsi_sensitivities.c`): NULLs, no data, no solve, no
/// convergence (CTS_STATUS_NO_SENSITIVITIES), unknown and other-scheme parameter codes, column
/// counts, leading dimensions, sizes, non-finite gradients, each with its status and message and
/// nothing written; good calls write exactly their matrix and the product equals gᵀ·J. Plain,
/// under valgrind and under AddressSanitizer/UBSan (each printing `skipped: …` when its tool is
/// missing).
#[test]
fn tamsi_sensitivity_contract_holds_from_c() {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c/contract_tamsi_sensitivities.c");
    let check = |stdout: &str| {
        let last = stdout.lines().last().unwrap_or_default();
        assert!(last.ends_with(" checks, 0 failed"), "contract failures:\n{stdout}");
        let checks: usize = last.split_whitespace().next().unwrap().parse().unwrap();
        assert!(checks > 80, "too few checks ran: {last}");
    };
    let dir = out_dir("contract-tamsi-sensitivities");
    let exe = dir.join("contract_tamsi_sensitivities");
    build(&[&src], &exe, false, FLAGS, Link::Shared);
    check(&run_ok(&exe, false));
    if have_valgrind() {
        check(&run_ok(&exe, true));
    } else {
        skipped("valgrind not installed");
    }
    if have_sanitizers() {
        let exe = dir.join("contract_tamsi_sensitivities_asan");
        let flags = [FLAGS, c_support::SANITIZE].concat();
        build(&[&src], &exe, false, &flags, Link::Shared);
        check(&run_ok(&exe, false));
    } else {
        skipped("AddressSanitizer/UBSan runtime not installed");
    }
}
