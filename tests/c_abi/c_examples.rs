//! The C and C++ examples of `examples_c/` compile with warnings as errors, run, and print
//! Drake's reference values (`docs/tamsi_cases.md`, `docs/rigid_cases.md`) or, for
//! `baraff_box_and_rod.c`, those of `docs/baraff.md` §11; they also run clean under
//! AddressSanitizer/UBSan and valgrind when those are installed (CI installs them), and the C
//! examples link statically as well.

use crate::c_support;
use support::tamsi_support;

use std::collections::HashMap;
use std::path::PathBuf;

use c_support::{
    Link, SANITIZE, build, eigen_include, examples_dir, have_sanitizers, have_valgrind, out_dir, run_ok,
    skipped,
};
use tamsi_support::example_output::{Block, check_pizza_saver, check_rolling_cylinder, close, parse};

const C_FLAGS: &[&str] = &["-std=c99", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-g"];
const CPP_FLAGS: &[&str] = &["-std=c++17", "-Wall", "-Wextra", "-Werror", "-g"];

fn rolling_cylinder_source() -> PathBuf {
    examples_dir().join("rolling_cylinder.c")
}

fn pizza_saver_source() -> PathBuf {
    examples_dir().join("pizza_saver.cpp")
}

#[test]
fn rolling_cylinder_c_prints_drakes_values() {
    let exe = out_dir("rolling-cylinder").join("rolling_cylinder");
    build(&[&rolling_cylinder_source()], &exe, false, C_FLAGS, Link::Shared);
    check_rolling_cylinder(&run_ok(&exe, false));
}

#[test]
fn rolling_cylinder_c_links_statically() {
    let exe = out_dir("rolling-cylinder-static").join("rolling_cylinder");
    build(&[&rolling_cylinder_source()], &exe, false, C_FLAGS, Link::Static);
    check_rolling_cylinder(&run_ok(&exe, false));
}

#[test]
fn rolling_cylinder_c_under_sanitizers_and_valgrind() {
    if have_sanitizers() {
        let exe = out_dir("rolling-cylinder-asan").join("rolling_cylinder");
        build(&[&rolling_cylinder_source()], &exe, false, &[C_FLAGS, SANITIZE].concat(), Link::Shared);
        check_rolling_cylinder(&run_ok(&exe, false));
    } else {
        skipped("AddressSanitizer/UBSan runtime not installed");
    }
    if have_valgrind() {
        let exe = out_dir("rolling-cylinder-valgrind").join("rolling_cylinder");
        build(&[&rolling_cylinder_source()], &exe, false, C_FLAGS, Link::Shared);
        check_rolling_cylinder(&run_ok(&exe, true));
    } else {
        skipped("valgrind not installed");
    }
}

fn pizza_flags(eigen: &std::path::Path) -> Vec<String> {
    let mut f: Vec<String> = CPP_FLAGS.iter().map(|s| s.to_string()).collect();
    f.push("-isystem".into());
    f.push(eigen.display().to_string());
    f
}

#[test]
fn pizza_saver_cpp_prints_drakes_values() {
    let Some(eigen) = eigen_include() else {
        return skipped("Eigen (libeigen3-dev) not installed");
    };
    let flags = pizza_flags(&eigen);
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    let exe = out_dir("pizza-saver").join("pizza_saver");
    build(&[&pizza_saver_source()], &exe, true, &flags, Link::Shared);
    check_pizza_saver(&run_ok(&exe, false));
    if have_valgrind() {
        check_pizza_saver(&run_ok(&exe, true));
    } else {
        skipped("valgrind not installed");
    }
    if have_sanitizers() {
        let exe = out_dir("pizza-saver-asan").join("pizza_saver");
        build(&[&pizza_saver_source()], &exe, true, &[&flags[..], SANITIZE].concat(), Link::Shared);
        check_pizza_saver(&run_ok(&exe, false));
    } else {
        skipped("AddressSanitizer/UBSan runtime not installed");
    }
}

// ---------------------------------------------------------------------------------------------
// examples_c/baraff_box_and_rod.c: the Baraff solver's reference values (`docs/baraff.md` §11
// B2, B5, B5b) with the spec's tolerances (6-decimal values to 1e-6, exact ones and vanishing
// accelerations to 1e-9; the example prints 9 decimals).

/// Blocks of the Baraff example: every line not starting with two spaces is a heading.
fn parse_baraff(stdout: &str) -> Vec<Block> {
    let mut blocks: Vec<Block> = Vec::new();
    for line in stdout.lines() {
        if let Some(rest) = line.strip_prefix("  ") {
            let Some((label, values)) = rest.split_once(':') else { continue };
            let numbers = values.split_whitespace().filter_map(|t| t.parse::<f64>().ok()).collect();
            if let Some(b) = blocks.last_mut() {
                b.fields.insert(label.trim().to_string(), numbers);
            }
        } else {
            blocks.push(Block { heading: line.to_string(), fields: HashMap::new() });
        }
    }
    blocks
}

#[track_caller]
fn near(what: &str, got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len(), "{what}: {got:?} vs {want:?}");
    for (a, b) in got.iter().zip(want) {
        assert!((a - b).abs() <= tol, "{what}: {a} vs {b} (tol {tol})");
    }
}

fn check_baraff_box_and_rod(stdout: &str) {
    const G: f64 = 9.81;
    const MU: f64 = 0.5;
    let blocks = parse_baraff(stdout);
    let mut it = blocks.iter();
    let mut next = |heading: &str| {
        let b = it.next().unwrap_or_else(|| panic!("missing block '{heading}':\n{stdout}"));
        assert!(b.heading.starts_with(heading), "'{}' is not '{heading}'", b.heading);
        b
    };

    // B2 through the matrix interface.
    let b = next("particle on an incline (matrix interface, B2): tilt = 20 deg");
    assert_eq!(b.get("status"), &[0.0]);
    near("B2 20° forces", b.get("forces (f_n, f_t) [N]"), &[9.218385, -3.355218], 1e-6);
    near("B2 20° a", b.get("accelerations (a_n, a_t) [m/s^2]"), &[0.0, 0.0], 1e-9);
    assert_eq!(b.get("row sets"), &[0.0, 0.0]);
    let b = next("particle on an incline (matrix interface, B2): tilt = 30 deg");
    assert_eq!(b.get("status"), &[0.0]);
    near("B2 30° forces", b.get("forces (f_n, f_t) [N]"), &[8.495709, -4.247855], 1e-6);
    near("B2 30° a_n", &b.get("accelerations (a_n, a_t) [m/s^2]")[..1], &[0.0], 1e-9);
    near("B2 30° a_t", &b.get("accelerations (a_n, a_t) [m/s^2]")[1..], &[0.657145], 1e-6);
    assert_eq!(b.get("row sets"), &[0.0, 3.0]);

    // The box: totals are B2's, the corner split obeys the moment balance and the cone.
    for tilt in (0..=35).step_by(5) {
        let b = next(&format!("box on a tilted plane (model interface): tilt = {tilt} deg"));
        let th = (tilt as f64).to_radians();
        let slides = th.tan() > MU;
        assert_eq!(b.get("status"), &[0.0]);
        let n = b.get("normal forces (left, right) [N]");
        let t = b.get("friction forces (left, right) [N]");
        let total_t = if slides { -MU * G * th.cos() } else { -G * th.sin() };
        near("box totals", b.get("total (normal, friction) [N]"), &[G * th.cos(), total_t], 1e-9);
        near("box N_R − N_L = −T/2", &[n[1] - n[0]], &[-0.5 * (t[0] + t[1])], 1e-9);
        for i in 0..2 {
            assert!(t[i].abs() <= MU * n[i] + 1e-9 && n[i] >= 0.0, "cone at tilt {tilt}: {n:?} {t:?}");
        }
        let a_t = if slides { G * (th.sin() - MU * th.cos()) } else { 0.0 };
        near("box a_t", b.get("tangential acceleration [m/s^2]"), &[a_t], 1e-9);
        if tilt == 20 {
            near("box 20° totals (B2)", b.get("total (normal, friction) [N]"), &[9.218385, -3.355218], 1e-6);
        }
        if tilt == 30 {
            near("box 30° a_t (B2)", b.get("tangential acceleration [m/s^2]"), &[0.657145], 1e-6);
        }
        if slides {
            assert_eq!(b.get("row sets"), &[0.0, 0.0, 3.0, 3.0]);
        }
    }
    let regimes: Vec<&str> = stdout.lines().filter_map(|l| l.strip_prefix("  regime: ")).collect();
    assert_eq!(regimes, ["sticking"; 6].iter().chain(&["sliding"; 2]).copied().collect::<Vec<_>>());
    let b = next("slip onset of the box");
    let atan_mu = MU.atan().to_degrees();
    near("atan μ", b.get("atan(mu) [deg]"), &[26.565051], 1e-6);
    near("onset tilt", b.get("onset tilt [deg]"), &[atan_mu], 1e-6);

    // B5: the Painlevé rod.
    let b = next(
        "Painleve rod sliding left: mu_d = 3, theta = 30 deg (B5) -- cts_baraff_solver_solve: unbounded ray",
    );
    assert_eq!(b.get("status"), &[22.0]);
    assert_eq!(b.get("unbounded ray row"), &[0.0]);
    near("A' μ = 3 left", b.get("effective normal coefficient A' [1/kg]"), &[-0.647114], 1e-6);
    near("b", b.get("b [m/s^2]"), &[-G], 1e-9);
    assert_eq!(b.get("normal force [N]"), &[0.0]);
    for (heading, a, f) in [
        ("Painleve rod sliding left: mu_d = 0.3, theta = 30 deg (B5)", 2.860289, 3.429724),
        ("Painleve rod sliding right: mu_d = 3, theta = 30 deg (B5)", 7.147114, 1.372582),
    ] {
        let b = next(heading);
        assert_eq!(b.heading, heading);
        assert_eq!(b.get("status"), &[0.0]);
        assert_eq!(b.get("unbounded ray row"), &[-1.0]);
        near("A'", b.get("effective normal coefficient A' [1/kg]"), &[a], 1e-6);
        near("f_n", b.get("normal force [N]"), &[f], 1e-6);
    }

    // B5b: the consistency impulse and the forces after it.
    let b = next("consistency impulse for the rod sliding left at 1 m/s");
    assert_eq!(b.get("status"), &[0.0]);
    near("K", b.get("K = J M^-1 J^T (column-major)"), &[3.25, -1.299038, -1.299038, 1.75], 1e-6);
    near("v", b.get("pre-impulse contact velocities (v_n, v_t) [m/s]"), &[0.0, -1.0], 1e-9);
    near("P", b.get("impulse (P_n, P_t) [N s]"), &[0.324760, 0.812500], 1e-6);
    near("|P_t|/P_n", b.get("|P_t|/P_n"), &[2.5019], 1e-4);
    assert!(b.get("|P_t|/P_n")[0] <= 3.0, "admissible: |P_t|/P_n <= μ");
    near(
        "q̇⁺",
        b.get("velocities after (x', y', theta') [m/s, m/s, rad/s]"),
        &[-0.1875, 0.324760, 0.75],
        1e-6,
    );
    near("contact at rest", b.get("contact velocities after (v_n, v_t) [m/s]"), &[0.0, 0.0], 1e-9);
    let b = next("static-friction forces after the impulse (B5b)");
    assert_eq!(b.get("status"), &[0.0]);
    near("b with J̇q̇", b.get("b with the centripetal term [m/s^2]"), &[-9.669375, 0.243570], 1e-6);
    near("f", b.get("forces (f_n, f_t) [N]"), &[4.151250, 2.942321], 1e-6);
    near("|f_t|/f_n", b.get("|f_t|/f_n"), &[0.709], 1e-3);
    near("a", b.get("accelerations (a_n, a_t) [m/s^2]"), &[0.0, 0.0], 1e-9);
    assert_eq!(b.get("row sets"), &[0.0, 0.0]);
    assert!(it.next().is_none(), "unexpected output:\n{stdout}");
}

fn baraff_box_and_rod_source() -> PathBuf {
    examples_dir().join("baraff_box_and_rod.c")
}

#[test]
fn baraff_box_and_rod_c_prints_the_spec_values() {
    let exe = out_dir("baraff-box-and-rod").join("baraff_box_and_rod");
    build(&[&baraff_box_and_rod_source()], &exe, false, C_FLAGS, Link::Shared);
    check_baraff_box_and_rod(&run_ok(&exe, false));
}

#[test]
fn baraff_box_and_rod_c_links_statically() {
    let exe = out_dir("baraff-box-and-rod-static").join("baraff_box_and_rod");
    build(&[&baraff_box_and_rod_source()], &exe, false, C_FLAGS, Link::Static);
    check_baraff_box_and_rod(&run_ok(&exe, false));
}

#[test]
fn baraff_box_and_rod_c_under_sanitizers_and_valgrind() {
    if have_sanitizers() {
        let exe = out_dir("baraff-box-and-rod-asan").join("baraff_box_and_rod");
        build(&[&baraff_box_and_rod_source()], &exe, false, &[C_FLAGS, SANITIZE].concat(), Link::Shared);
        check_baraff_box_and_rod(&run_ok(&exe, false));
    } else {
        skipped("AddressSanitizer/UBSan runtime not installed");
    }
    if have_valgrind() {
        let exe = out_dir("baraff-box-and-rod-valgrind").join("baraff_box_and_rod");
        build(&[&baraff_box_and_rod_source()], &exe, false, C_FLAGS, Link::Shared);
        check_baraff_box_and_rod(&run_ok(&exe, true));
    } else {
        skipped("valgrind not installed");
    }
}

/// One model's run of `examples_c/box_cone_vs_pyramid.c`: the per-step trajectory
/// (step, t, x, y, z, vx, vy, vz) and the summary fields.
struct BoxRun {
    heading: String,
    steps: Vec<[f64; 8]>,
    summary: HashMap<String, Vec<f64>>,
}

impl BoxRun {
    #[track_caller]
    fn get(&self, label: &str) -> &[f64] {
        self.summary.get(label).unwrap_or_else(|| panic!("{}: no '{label}'", self.heading))
    }
}

fn parse_box(stdout: &str) -> Vec<BoxRun> {
    let mut runs: Vec<BoxRun> = Vec::new();
    for line in stdout.lines() {
        if line.contains(": box sliding on a plane, nc = 4") {
            runs.push(BoxRun { heading: line.to_string(), steps: vec![], summary: HashMap::new() });
        } else if let (Some(run), Some(rest)) = (runs.last_mut(), line.strip_prefix("  ")) {
            let numbers: Vec<f64> = rest.split_whitespace().filter_map(|t| t.parse::<f64>().ok()).collect();
            if let Some((label, values)) = rest.split_once(':') {
                let values = values.split_whitespace().filter_map(|t| t.parse::<f64>().ok()).collect();
                run.summary.insert(label.trim().to_string(), values);
            } else if numbers.len() == 8 {
                run.steps.push(numbers.try_into().unwrap());
            }
        }
    }
    runs
}

/// `docs/ipm.md` §9.A3/A4 (exact discrete solution, tolerance 1e-4 on the final position): the
/// box on the cone slides straight along (4, 0.8) and stops after 167 steps at
/// (3.306604, 0.661321), heading atan(0.2) within 1e-6 rad, |v| < 1e-8; on the linear model it
/// drifts sideways and stops after 196 steps at (3.372484, 1.300788), heading 21.09°.
fn check_box(stdout: &str) {
    let runs = parse_box(stdout);
    assert_eq!(runs.len(), 2, "{stdout}");
    let heading0 = 0.2f64.atan();
    let drift = |x: f64, y: f64| heading0.cos() * y - heading0.sin() * x;
    for (run, name, stop, (xe, ye)) in [
        (&runs[0], "second-order cone", 167.0, (3.306604, 0.661321)),
        (&runs[1], "linear (pyramid)", 196.0, (3.372484, 1.300788)),
    ] {
        assert!(run.heading.starts_with(name), "{}", run.heading);
        assert_eq!(run.steps.len(), 250, "{name}: steps");
        for (k, s) in run.steps.iter().enumerate() {
            assert_eq!(s[0], (k + 1) as f64, "{name}: step numbering");
            assert!((s[1] - 0.01 * (k + 1) as f64).abs() < 1e-9, "{name}: time of step {}", k + 1);
            assert!((s[4] - 0.25).abs() < 1e-6, "{name}: the box stays on the ground, z = {}", s[4]);
        }
        let last = run.steps[249];
        let p = run.get("final position [m]");
        assert_eq!(p, &last[2..5], "{name}: summary vs trajectory");
        assert!((p[0] - xe).abs() < 1e-4 && (p[1] - ye).abs() < 1e-4, "{name}: final {p:?} vs ({xe}, {ye})");
        assert_eq!(run.get("stopping step (|v| < 1e-3)"), &[stop], "{name}: stopping step");
        let k = stop as usize;
        let speed = |s: &[f64; 8]| s[5].hypot(s[6]);
        assert!(speed(&run.steps[k - 1]) < 1e-3 && speed(&run.steps[k - 2]) > 1e-3, "{name}: stops at {k}");
        assert!(run.get("final velocity [m/s]").iter().all(|v| v.abs() < 1e-8), "{name}: v_final");
        assert!(run.get("max |omega| [rad/s]")[0] < 2e-4, "{name}: the box stays flat");
        assert!((run.get("normal impulse at rest [N s]")[0] - 0.0981).abs() < 1e-6, "{name}: m g h");
        assert_eq!(run.get("failed solves"), &[0.0], "{name}");
        assert!(run.get("iterations min max mean")[1] <= 15.0, "{name}: iterations");
        let reported = run.get("lateral drift [m]")[0];
        assert!((reported - drift(p[0], p[1])).abs() < 1e-9, "{name}: drift as printed");
        assert!((reported - drift(xe, ye)).abs() < 1.5e-4, "{name}: drift {reported} vs {}", drift(xe, ye));
        let heading = p[1].atan2(p[0]);
        assert!((run.get("heading [deg]")[0] - heading.to_degrees()).abs() < 1e-6, "{name}: heading printed");
        if name == "second-order cone" {
            assert!((heading - heading0).abs() < 1e-6, "{name}: heading {heading} vs atan(0.2)");
            // No lateral drift at any time: every position lies on the launch line.
            for s in &run.steps {
                assert!(drift(s[2], s[3]).abs() < 1e-6, "{name}: drift at step {}", s[0]);
            }
        } else {
            assert!((heading.to_degrees() - 21.09).abs() < 0.005, "{name}: heading {}", heading.to_degrees());
            assert!(reported > 0.6, "{name}: the pyramid drifts to the left of the launch line");
        }
    }
}

fn box_source() -> PathBuf {
    examples_dir().join("box_cone_vs_pyramid.c")
}

#[test]
fn box_cone_vs_pyramid_c_matches_the_spec() {
    let exe = out_dir("box-cone-vs-pyramid").join("box_cone_vs_pyramid");
    build(&[&box_source()], &exe, false, C_FLAGS, Link::Shared);
    check_box(&run_ok(&exe, false));
    if have_valgrind() {
        check_box(&run_ok(&exe, true));
    } else {
        skipped("valgrind not installed");
    }
    if have_sanitizers() {
        let exe = out_dir("box-cone-vs-pyramid-asan").join("box_cone_vs_pyramid");
        let flags = [C_FLAGS, SANITIZE].concat();
        build(&[&box_source()], &exe, false, &flags, Link::Shared);
        check_box(&run_ok(&exe, false));
    } else {
        skipped("AddressSanitizer/UBSan runtime not installed");
    }
}

// Rigid constraint solver examples: examples_c/rod2d.c (C99, cts_rigid_*) and
// examples_c/box_on_plane.cpp (C++, cts::ConstraintSolver). The Rod2D numbers are those of
// docs/rigid_cases.md (Drake's assertions with their tolerances, and the [ref] values); the
// box's are the statics and impulse balances of the scene.

/// `|a − b| <= tol` element-wise.
#[track_caller]
fn within(what: &str, got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len(), "{what}: {got:?} vs {want:?}");
    for (a, b) in got.iter().zip(want) {
        assert!((a - b).abs() <= tol, "{what}: {got:?} vs {want:?} (tol {tol:e})");
    }
}

/// Drake's `eps_ = 100 eps`.
const EPS_: f64 = 100.0 * f64::EPSILON;

fn check_rod2d(stdout: &str) {
    let b = parse(stdout);
    let headings = [
        "resting on the ground, pushed by 100 N along +x (mu = 15, LCP), nc = 2",
        "resting on the ground, pushed by 100 N along +x (mu = 15, linear system), nc = 2",
        "sliding: left end on a conveyor belt at 1 m/s (mu 0.1 sliding, 1 sticking), nc = 2",
        "hitting the ground at (1, -1) m/s with mu = 15, nc = 2",
        "hitting the ground at (1, -1) m/s with mu = 0.0001, nc = 2",
        "upright rod pushed by 100 N, one 1e-4 s time step (discretized), nc = 1",
        "tilted rod dropped sliding: 1000 steps of 0.01 s (Drake's RodGoesToRest), nc = 2",
    ];
    assert_eq!(b.len(), headings.len(), "{stdout}");
    for (blk, h) in b.iter().zip(headings) {
        assert_eq!(blk.heading, h);
        assert_eq!(blk.get("outcome"), &[0.0], "{h}");
    }
    let norm = |v: &[f64]| v.iter().map(|x| x * x).sum::<f64>().sqrt();
    // §2.2 TwoPointSticking: Σ fN = mg, Σ fF = −100 (eps_·len(cf)); [ref] cf per element; the
    // 8×8 LCP in 9 Moby Lemke pivots; zero acceleration.
    for (i, (ff, lcp)) in [([-100.0, 0.0], [8.0, 9.0]), ([-50.0, -50.0], [0.0, 0.0])].iter().enumerate() {
        let (fn_, f) = (b[i].get("fN [N]"), b[i].get("fF [N]"));
        assert!(
            (fn_[0] + fn_[1] - 19.62).abs() <= 4.0 * EPS_ * 19.62
                && (f[0] + f[1] + 100.0).abs() <= 4.0 * EPS_ * 100.0
        );
        close("fN", fn_, &[9.81, 9.81]);
        close("fF", f, ff);
        assert!(norm(b[i].get("vdot [m/s^2, m/s^2, rad/s^2]")) < 4.0 * EPS_);
        assert_eq!(b[i].get("LCP size, pivots"), lcp);
    }
    // §2.7 TwoPointContactCrossTerms: [ref] cf = (9.81, 9.81, 0.981), |vdot_x| <= eps_, 3 pivots.
    close("fN", b[2].get("fN [N]"), &[9.81, 9.81]);
    close("sticking friction", b[2].get("friction, sticking contact [N]"), &[0.981]);
    close("sliding friction", b[2].get("friction, sliding contact [N]"), &[-0.981]);
    assert!(b[2].get("vdot [m/s^2, m/s^2, rad/s^2]")[0].abs() <= EPS_);
    assert_eq!(b[2].get("LCP size, pivots"), &[5.0, 3.0]);
    // §3.2 TwoPointImpactingAndSticking: [ref] (1, 1, −2, 0) N·s; the rod stops (eps_).
    close("fN", b[3].get("impulse fN [N s]"), &[1.0, 1.0]);
    close("fF", b[3].get("impulse fF [N s]"), &[-2.0, 0.0]);
    assert!(norm(b[3].get("v after [m/s, m/s, rad/s]")) < EPS_);
    // §3.1 TwoPointImpactNoTransitionToStiction: each contact saturates its cone (eps_), [ref]
    // (1, 1, −1e-4, −1e-4); it keeps sliding at 1 − 1e-4 m/s.
    let (n, t) = (b[4].get("impulse fN [N s]"), b[4].get("impulse fF [N s]"));
    for i in 0..2 {
        assert!((-t[i] - 1e-4 * n[i]).abs() <= EPS_);
    }
    close("fN", n, &[1.0, 1.0]);
    close("fF", t, &[-1e-4, -1e-4]);
    within("v after", b[4].get("v after [m/s, m/s, rad/s]"), &[0.9999, 0.0, 0.0], 1e-12);
    // §4.1 SinglePointStickingDiscretized: [ref] (19.62, −100) N, |vdot| <= eps_·len(cf).
    within("fN", b[5].get("fN [N]"), &[19.62], 1e-9);
    within("fF", b[5].get("fF [N]"), &[-100.0], 1e-9);
    assert!(norm(b[5].get("vdot [m/s^2, m/s^2, rad/s^2]")) <= 2.0 * EPS_);
    // §5.1 RodGoesToRest: |θ − π| < 1e-6 and |θ̇| < 1e-6 (Drake); [ref] θ − π below 1e-9,
    // θ̇ ≈ 1.06e-14, x ≈ −1.00679446340525, y ≈ −9.81e-6.
    let r = &b[6];
    assert!(r.get("theta - pi [rad]")[0].abs() < 1e-9);
    assert!(r.get("omega [rad/s]")[0].abs() < 1e-12);
    within("x, y", r.get("x, y [m]"), &[-1.00679446340525, -9.81e-6], 1e-9);
}

fn check_box_on_plane(stdout: &str) {
    let b = parse(stdout);
    let headings = [
        "pushed by 2 N along +x (mu = 0.5), nc = 4",
        "pushed by 8 N along +x (mu = 0.5), nc = 4",
        "dropped flat at 1 m/s moving at 0.3 m/s along +x (mu = 0.5), nc = 4",
        "dropped flat at 1 m/s moving at 0.6 m/s along +x (mu = 0.5), nc = 4",
        "resting, one 1 ms time step (discretized, operators as lambdas), nc = 4",
    ];
    assert_eq!(b.len(), headings.len(), "{stdout}");
    for (blk, h) in b.iter().zip(headings) {
        assert_eq!(blk.heading, h);
        assert_eq!(blk.get("outcome"), &[0.0], "{h}");
    }
    let tol = 1e-12;
    // Static friction holds 2 N (< μ m g = 4.905 N); 8 N saturates it: a = (8 − 4.905) / 1 kg.
    within("Σ fN", b[0].get("sum fN [N]"), &[9.81], tol);
    within("Σ friction", b[0].get("sum friction x, y [N]"), &[-2.0, 0.0], tol);
    within("vdot", b[0].get("vdot [m/s^2, rad/s^2]"), &[0.0; 6], 1e-12);
    within("Σ fN", b[1].get("sum fN [N]"), &[9.81], tol);
    within("Σ friction", b[1].get("sum friction x, y [N]"), &[-4.905, 0.0], tol);
    within("vdot", b[1].get("vdot [m/s^2, rad/s^2]"), &[3.095, 0.0, 0.0, 0.0, 0.0, 0.0], 1e-12);
    // Impacts: the normal impulse takes the 1 kg·m/s; friction stops 0.3 m/s, caps at 0.5 N·s.
    within("Σ fN", b[2].get("sum fN [N s]"), &[1.0], tol);
    within("Σ friction", b[2].get("sum friction x, y [N s]"), &[-0.3, 0.0], tol);
    within("v after", b[2].get("v after [m/s, rad/s]"), &[0.0; 6], 1e-12);
    within("Σ fN", b[3].get("sum fN [N s]"), &[1.0], tol);
    within("Σ friction", b[3].get("sum friction x, y [N s]"), &[-0.5, 0.0], tol);
    within("v after", b[3].get("v after [m/s, rad/s]"), &[0.1, 0.0, 0.0, 0.0, 0.0, 0.0], 1e-12);
    for blk in &b[2..4] {
        assert_eq!(blk.get("regularized LCP used"), &[0.0]);
    }
    // One time step at rest: the contacts carry m g, nothing moves.
    within("Σ fN", b[4].get("sum fN [N]"), &[9.81], 1e-9);
    within("Σ friction", b[4].get("sum friction x, y [N]"), &[0.0, 0.0], 1e-12);
    within("vdot", b[4].get("vdot [m/s^2, rad/s^2]"), &[0.0; 6], 1e-12);
}

fn rod2d_source() -> PathBuf {
    examples_dir().join("rod2d.c")
}

fn box_on_plane_source() -> PathBuf {
    examples_dir().join("box_on_plane.cpp")
}

#[test]
fn rod2d_c_prints_drakes_values() {
    let exe = out_dir("rod2d").join("rod2d");
    build(&[&rod2d_source()], &exe, false, C_FLAGS, Link::Shared);
    check_rod2d(&run_ok(&exe, false));
    if have_valgrind() {
        check_rod2d(&run_ok(&exe, true));
    } else {
        skipped("valgrind not installed");
    }
    let exe = out_dir("rod2d-static").join("rod2d");
    build(&[&rod2d_source()], &exe, false, C_FLAGS, Link::Static);
    check_rod2d(&run_ok(&exe, false));
    if have_sanitizers() {
        let exe = out_dir("rod2d-asan").join("rod2d");
        build(&[&rod2d_source()], &exe, false, &[C_FLAGS, SANITIZE].concat(), Link::Shared);
        check_rod2d(&run_ok(&exe, false));
    } else {
        skipped("AddressSanitizer/UBSan runtime not installed");
    }
}

#[test]
fn box_on_plane_cpp_prints_the_statics() {
    let Some(eigen) = eigen_include() else {
        return skipped("Eigen (libeigen3-dev) not installed");
    };
    let flags = pizza_flags(&eigen);
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    let exe = out_dir("box-on-plane").join("box_on_plane");
    build(&[&box_on_plane_source()], &exe, true, &flags, Link::Shared);
    check_box_on_plane(&run_ok(&exe, false));
    if have_valgrind() {
        check_box_on_plane(&run_ok(&exe, true));
    } else {
        skipped("valgrind not installed");
    }
    if have_sanitizers() {
        let exe = out_dir("box-on-plane-asan").join("box_on_plane");
        build(&[&box_on_plane_source()], &exe, true, &[&flags[..], SANITIZE].concat(), Link::Shared);
        check_box_on_plane(&run_ok(&exe, false));
    } else {
        skipped("AddressSanitizer/UBSan runtime not installed");
    }
}
