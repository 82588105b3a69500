//! The C and C++ examples of `examples_c/` compile with warnings as errors, run, and print
//! Drake's reference values (`specs/tamsi_cases.md`, `specs/rigid_cases.md`); they also run
//! clean under AddressSanitizer/UBSan and valgrind when those are installed (CI installs them),
//! and the C examples link statically as well.

mod c_support;
mod tamsi_support;

use std::collections::HashMap;
use std::path::PathBuf;

use c_support::{
    Link, build, eigen_include, examples_dir, have_sanitizers, have_valgrind, out_dir, run_ok, skipped,
};
use tamsi_support::reference::{
    PIZZA_LARGE_MOMENT, PIZZA_NO_CONTACT, PIZZA_SMALL_MOMENT, SLIDING_AFTER_IMPACT, STICTION_REFERENCE,
};

const C_FLAGS: &[&str] = &["-std=c99", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-g"];
const CPP_FLAGS: &[&str] = &["-std=c++17", "-Wall", "-Wextra", "-Werror", "-g"];
const SANITIZE: &[&str] = &["-fsanitize=address,undefined", "-fno-omit-frame-pointer"];

/// One block of an example's output: its heading and `label: numbers` lines.
struct Block {
    heading: String,
    fields: HashMap<String, Vec<f64>>,
}

impl Block {
    #[track_caller]
    fn get(&self, label: &str) -> &[f64] {
        self.fields.get(label).unwrap_or_else(|| panic!("{}: no '{label}'", self.heading))
    }
}

fn parse(stdout: &str) -> Vec<Block> {
    let mut blocks: Vec<Block> = Vec::new();
    for line in stdout.lines() {
        if let Some(rest) = line.strip_prefix("  ") {
            let Some((label, values)) = rest.split_once(':') else { continue };
            let numbers = values.split_whitespace().filter_map(|t| t.parse::<f64>().ok()).collect();
            if let Some(b) = blocks.last_mut() {
                b.fields.insert(label.trim().to_string(), numbers);
            }
        } else if line.contains(", nc = ") {
            blocks.push(Block { heading: line.to_string(), fields: HashMap::new() });
        }
    }
    blocks
}

#[track_caller]
fn close(what: &str, got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len(), "{what}: {got:?} vs {want:?}");
    for (a, b) in got.iter().zip(want) {
        assert!((a - b).abs() <= 1e-12 * b.abs().max(1.0), "{what}: {a:e} vs {b:e}");
    }
}

fn check_rolling_cylinder(stdout: &str) {
    let blocks = parse(stdout);
    assert_eq!(blocks.len(), STICTION_REFERENCE.len() + 1, "{stdout}");
    for (b, r) in blocks.iter().zip(&STICTION_REFERENCE) {
        assert_eq!(b.heading, format!("stiction after impact: vx0 = 0.5 m/s, nc = {}", r.nc));
        assert_eq!(b.get("outcome"), &[0.0]);
        assert_eq!(b.get("iterations"), &[r.iterations as f64]);
        close("v", b.get("v [m/s, m/s, rad/s]"), &r.v);
        close("fn", b.get("fn contact 0 [N]"), &[r.fn_]);
        close("ft", b.get("ft contact 0 [N]"), &[r.ft0, 0.0]);
        close("tau_f", b.get("tau_f [N, N, N m]"), &r.tau_f);
    }
    let s = blocks.last().unwrap();
    assert_eq!(s.heading, "sliding after impact: vx0 = 0.7 m/s, nc = 1");
    assert_eq!(s.get("iterations"), &[SLIDING_AFTER_IMPACT.iterations as f64]);
    close("v", s.get("v [m/s, m/s, rad/s]"), SLIDING_AFTER_IMPACT.v);
    close("fn", s.get("fn contact 0 [N]"), SLIDING_AFTER_IMPACT.fn_);
    close("ft", s.get("ft contact 0 [N]"), SLIDING_AFTER_IMPACT.ft);
    close("tau", s.get("tau [N, N, N m]"), SLIDING_AFTER_IMPACT.tau);
    assert!(stdout.contains("regime                : sliding"));
}

fn check_pizza_saver(stdout: &str) {
    let blocks = parse(stdout);
    let cases = [
        ("small applied moment: Mz = 3 N m, nc = 3", &PIZZA_SMALL_MOMENT),
        ("large applied moment: Mz = 6 N m, nc = 3", &PIZZA_LARGE_MOMENT),
        ("no contact: Mz = 6 N m, nc = 0", &PIZZA_NO_CONTACT),
    ];
    assert_eq!(blocks.len(), cases.len(), "{stdout}");
    for (b, (heading, r)) in blocks.iter().zip(cases) {
        assert_eq!(b.heading, heading);
        assert_eq!(b.get("outcome"), &[0.0]);
        assert_eq!(b.get("iterations"), &[r.iterations as f64]);
        close("v", b.get("v [m/s, m/s, rad/s]"), r.v);
        close("tau_f", b.get("tau_f [N, N, N m]"), r.tau_f);
        close("tau", b.get("tau [N, N, N m]"), r.tau);
        if !r.ft.is_empty() {
            close("fn", b.get("fn [N]"), r.fn_);
            close("ft", b.get("ft [N]"), r.ft);
        }
    }
    assert!(stdout.contains("usage error caught: no problem data"), "{stdout}");
}

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
// Rigid constraint solver examples: examples_c/rod2d.c (C99, cts_rigid_*) and
// examples_c/box_on_plane.cpp (C++, cts::ConstraintSolver). The Rod2D numbers are those of
// specs/rigid_cases.md (Drake's assertions with their tolerances, and the [ref] values); the
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
