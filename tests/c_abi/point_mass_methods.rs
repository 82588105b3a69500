//! `examples_c/point_mass_methods.c`, the worked example of `docs/blog_methods.md` (a point mass
//! dropped from 1 m, simulated hybrid, smooth and time-stepping on the library's solvers):
//! compiled with warnings as errors, linked shared and static, run under AddressSanitizer/UBSan
//! and valgrind when installed; its CSV trajectories reproduce the reference numbers
//! (`docs/blog_methods.md` §6, checks 1–5; `docs/ipm.md` §9 A9) with their tolerances. The plot script
//! `examples_c/plot_methods.py` turns the printout into a PNG when a Python with matplotlib is
//! there (the venv of `.ci/install-deps tests`). Timings are printed by the example, never
//! asserted.

use crate::c_support;

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use c_support::{
    Link, SANITIZE, build, examples_dir, have_sanitizers, have_valgrind, out_dir, run_ok, skipped,
};

const C_FLAGS: &[&str] = &["-std=c99", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-g"];

const M: f64 = 10.0;
const G: f64 = 9.81;
const DT: f64 = 0.001;
const MG: f64 = M * G;

/// One run of the printout: the CSV rows (k, t, z, v, F) and the summary's labelled values.
struct Run {
    name: String,
    rows: Vec<[f64; 5]>,
    summary: HashMap<String, Vec<f64>>,
}

impl Run {
    fn z(&self, k: usize) -> f64 {
        self.rows[k][2]
    }
    fn v(&self, k: usize) -> f64 {
        self.rows[k][3]
    }
    fn f(&self, k: usize) -> f64 {
        self.rows[k][4]
    }
    fn n(&self) -> usize {
        self.rows.len()
    }
    #[track_caller]
    fn get(&self, label: &str) -> f64 {
        let v = self.summary.get(label).unwrap_or_else(|| panic!("{}: no summary line '{label}'", self.name));
        assert_eq!(v.len(), 1, "{}: '{label}' = {v:?}", self.name);
        v[0]
    }
    /// Indices of the steps with a positive force.
    fn forced(&self) -> Vec<usize> {
        (0..self.n() - 1).filter(|&k| self.f(k) > 0.0).collect()
    }
}

fn parse(stdout: &str) -> HashMap<String, Run> {
    let mut runs: Vec<Run> = Vec::new();
    let mut in_summary = false;
    for line in stdout.lines() {
        if let Some(rest) = line.strip_prefix("run: ") {
            let name = rest.split_whitespace().next().unwrap().to_string();
            runs.push(Run { name, rows: vec![], summary: HashMap::new() });
            in_summary = false;
        } else if let Some(name) = line.strip_prefix("summary: ") {
            let run = runs.last().expect("summary after a run");
            assert_eq!(run.name, name, "summary of another run");
            in_summary = true;
        } else if let (true, Some(run), Some(rest)) = (in_summary, runs.last_mut(), line.strip_prefix("  ")) {
            let (label, values) = rest.split_once(':').unwrap_or_else(|| panic!("summary line '{line}'"));
            let values = values.split_whitespace().map(|t| t.parse::<f64>().unwrap()).collect();
            run.summary.insert(label.trim().to_string(), values);
        } else if line == "k,t,z,v,F" || line.is_empty() {
            // The CSV header of every run.
        } else if let (false, Some(run)) = (in_summary, runs.last_mut()) {
            let row: Vec<f64> = line.split(',').map(|t| t.parse::<f64>().unwrap()).collect();
            run.rows.push(row.try_into().unwrap_or_else(|r| panic!("{}: row {r:?}", run.name)));
        } else {
            panic!("unexpected line '{line}'");
        }
    }
    runs.into_iter().map(|r| (r.name.clone(), r)).collect()
}

#[track_caller]
fn close(got: f64, want: f64, tol: f64, what: &str) {
    assert!((got - want).abs() <= tol, "{what}: {got} vs {want} (tol {tol:e})");
}

const RUNS: [(&str, usize); 9] = [
    ("hybrid_e0.7", 1000),
    ("hybrid_e0", 1000),
    ("hybrid_e0.7_long", 5000),
    ("hybrid_e0.7_rest_long", 5000),
    ("smooth_tanh", 1000),
    ("smooth_tamsi", 1000),
    ("timestepping_lemke", 1000),
    ("timestepping_ipm", 1000),
    ("timestepping_ipm_btol1e-4", 1000),
];

/// Every check of the printout; `csv` is false for the `--summary` mode (summaries only).
fn check(stdout: &str, csv: bool) {
    let runs = parse(stdout);
    assert_eq!(runs.len(), RUNS.len(), "runs: {:?}", runs.keys().collect::<Vec<_>>());
    for (name, n) in RUNS {
        let r = runs.get(name).unwrap_or_else(|| panic!("no run {name}"));
        assert_eq!(r.get("failed solves"), 0.0, "{name}");
        assert!(r.get("cost per step [us]") > 0.0, "{name}: timing printed (never asserted)");
        if !csv {
            assert!(r.rows.is_empty());
            continue;
        }
        assert_eq!(r.n(), n, "{name}: samples");
        for (k, row) in r.rows.iter().enumerate() {
            assert_eq!(row[0], k as f64, "{name}: numbering");
            close(row[1], k as f64 * DT, 1e-12, "t");
        }
        assert_eq!((r.z(0), r.v(0)), (1.0, 0.0), "{name}: initial state");
        assert!(r.f(n - 1).is_nan(), "{name}: the last sample has no step");
        assert!(
            r.rows[..n - 1].iter().all(|row| row[4].is_finite() && row[2].is_finite() && row[3].is_finite())
        );
    }
    check_summaries(&runs);
    if csv {
        check_hybrid(&runs);
        check_smooth(&runs);
        check_time_stepping(&runs);
    }
}

/// Summary values that are not derived from the CSV rows.
fn check_summaries(runs: &HashMap<String, Run>) {
    // Hybrid: the pre-reset sample is 4.3282 mm below ground, v⁻ = −4.44393 m/s (§2).
    let h = &runs["hybrid_e0.7"];
    close(h.get("hidden penetration (pre-reset z) [m]"), -4.3282e-3, 1e-7, "hidden penetration");
    close(h.get("v- [m/s]"), -4.44393, 1e-6, "v-");
    close(h.get("v+ [m/s]"), 3.110751, 1e-6, "v+ (summary)");
    close(h.get("force at the first guard [N]"), 75546.8, 0.1, "hybrid force (summary)");
    close(h.get("apex after the first bounce [m]"), 0.494765, 1e-6, "apex (summary)");
    assert_eq!(h.get("apex index"), 771.0);
    assert_eq!(h.get("first guard index"), 453.0);
    close(h.get("final z [m]"), 0.238889, 1e-6, "final z (summary)");
    close(h.get("final v [m/s]"), -2.24551, 1e-6, "final v (summary)");
    let h0 = &runs["hybrid_e0"];
    close(h0.get("v+ [m/s]"), 0.0, 1e-12, "e = 0: v+");
    close(h0.get("force at the first guard [N]"), 44439.3, 0.1, "e = 0: force");
    let rest = &runs["hybrid_e0.7_rest_long"];
    close(rest.get("rest threshold [m/s]"), 10.0 * G * DT, 1e-15, "rest threshold");
    // Smooth, the post's law: the equilibrium formula z_eq = atanh(1 − mg/750)/100 = 0.0132980.
    let s = &runs["smooth_tanh"];
    close(s.get("z_eq = atanh(1 - mg/750)/100 [m]"), 0.0132980, 1e-7, "z_eq");
    close(s.get("peak force [N]"), 11042.37, 0.01, "smooth peak (summary)");
    // TAMSI: the documented parameters and its Newton iterations.
    let t = &runs["smooth_tamsi"];
    assert_eq!((t.get("stiffness k [N/m]"), t.get("dissipation d [s/m]")), (1e6, 2.0));
    close(t.get("-mg/k [m]"), -MG / 1e6, 1e-18, "-mg/k");
    assert!(t.get("iterations max") <= 20.0, "TAMSI iterations: {}", t.get("iterations max"));
    // Lemke: a 1×1 LCP takes at most one pivot.
    assert!(runs["timestepping_lemke"].get("pivots max") <= 1.0);
    // Interior point at 1e-8: A9's mean of 6.2 iterations.
    let ipm = &runs["timestepping_ipm"];
    close(ipm.get("iterations mean"), 6.2, 0.05, "IPM mean iterations");
    for name in ["timestepping_lemke", "timestepping_ipm"] {
        let r = &runs[name];
        close(r.summary["F_449 F_450 F_451 F_452 F_453 [N]"][2], 43281.80, 0.5, "F_451 (summary)");
    }
}

fn check_hybrid(runs: &HashMap<String, Run>) {
    // §6 check 1, e = 0.7: guard at 453, v⁺ = 3.110751, F = 75 546.8 N (the only non-zero force),
    // apex 0.494765 m at index 771, final (0.238889, −2.24551).
    let h = &runs["hybrid_e0.7"];
    assert_eq!(h.forced(), [453], "hybrid e = 0.7: guard indices");
    assert_eq!(h.z(453), 0.0, "jump map: z = 0 stored");
    close(h.v(453), 3.110751, 1e-6, "v+");
    close(h.v(453), -0.7 * -4.44393, 1e-6, "v+ = -e v-");
    close(h.f(453), 75546.8, 0.1, "hybrid force");
    assert!((0..453).all(|k| h.z(k) > 0.0), "the stored trajectory never shows negative z");
    let (apex_k, apex) =
        (454..1000).map(|k| (k, h.z(k))).fold((0, f64::MIN), |a, b| if b.1 > a.1 { b } else { a });
    assert_eq!(apex_k, 771, "apex index");
    close(apex, 0.494765, 1e-6, "apex");
    // Check 5: e² h = 0.49 m within the discretisation error (1 %); first contact at 0.451–0.453 s.
    assert!((apex - 0.49).abs() <= 0.01 * 0.49, "apex {apex} vs e² h");
    close(h.z(999), 0.238889, 1e-6, "final z");
    close(h.v(999), -2.24551, 1e-6, "final v");
    assert!((h.z(999) - 0.238889).abs() < 1e-6 && h.z(999) > 0.0, "airborne at 0.999 s");

    // e = 0: 44 439.3 N at the guard, then m g on every step; z stays 0 and the last stored
    // sample is the post-integration (0, −g dt).
    let h0 = &runs["hybrid_e0"];
    assert_eq!(h0.forced(), (453..999).collect::<Vec<_>>(), "e = 0: the guard fires on every step");
    close(h0.f(453), 44439.3, 0.1, "e = 0 impact force");
    for k in 454..999 {
        close(h0.f(k), MG, 1e-6, "e = 0 resting force");
        assert_eq!((h0.z(k), h0.v(k)), (0.0, 0.0), "e = 0: at rest at {k}");
    }
    assert_eq!(h0.z(999), 0.0);
    close(h0.v(999), -G * DT, 1e-15, "e = 0: last stored v");

    // The long run (§2): impacts at 0.453, 1.089, 1.537, 1.853, 2.077, 2.237, 2.352, 2.435 s with
    // "forces" 75 547, 53 183, 37 485, 26 460, 18 835, 13 499, 9 729, 7 031 N, apexes 0.49477,
    // 0.24552, 0.12220, 0.06105, 0.03104, 0.01603, 0.00838 m; then it never comes to rest.
    let long = &runs["hybrid_e0.7_long"];
    let rest = &runs["hybrid_e0.7_rest_long"];
    let impacts = [453, 1089, 1537, 1853, 2077, 2237, 2352, 2435];
    let forces = [75547.0, 53183.0, 37485.0, 26460.0, 18835.0, 13499.0, 9729.0, 7031.0];
    let apexes = [0.49477, 0.24552, 0.12220, 0.06105, 0.03104, 0.01603, 0.00838];
    let guards = long.forced();
    assert_eq!(guards[..8], impacts, "long run: impact indices");
    for (i, &k) in impacts.iter().enumerate() {
        close(long.f(k), forces[i], 0.5, &format!("long run: force of impact {i}"));
        close(long.v(k), -0.7 * (long.v(k - 1) - G * DT), 1e-12, "long run: v+ = -e v-");
        if i + 1 < impacts.len() {
            let apex = (k..impacts[i + 1]).map(|j| long.z(j)).fold(f64::MIN, f64::max);
            close(apex, apexes[i], 5e-6, &format!("long run: apex {i}"));
        }
    }
    // The discrete limit cycle of the last second: ≈ 111 guard events, max height 8.66e-5 m,
    // |v| <= 0.0421 m/s, every impact still bouncing (no sample at rest).
    let last: Vec<usize> = guards.iter().copied().filter(|&k| k >= 4000).collect();
    assert!((110..=112).contains(&last.len()), "guard events in the last second: {}", last.len());
    let zmax = (4000..5000).map(|k| long.z(k)).fold(f64::MIN, f64::max);
    close(zmax, 8.66e-5, 1e-7, "micro-bounce height");
    let vmax = (4000..5000).map(|k| long.v(k).abs()).fold(0.0, f64::max);
    assert!(vmax <= 0.0421 + 5e-5, "micro-bounce speed {vmax}");
    assert!(last.iter().all(|&k| long.v(k) > 0.0), "restitution on every impact");
    close(long.get("last guard with restitution"), *guards.last().unwrap() as f64, 0.0, "last bounce");

    // With the rest threshold the same run comes to rest: the first plastic impact is at index
    // 2642 (2.642 s; the analytic Zeno time is 2.5586 s); from there z = 0, v = 0 and F = m g on
    // every step. Before it the two runs are identical.
    let rest_from = rest.forced().into_iter().find(|&k| rest.v(k) == 0.0).expect("a plastic impact");
    assert_eq!(rest_from, 2642, "first plastic impact");
    assert!((rest_from as f64 * DT - 2.558634).abs() < 0.1, "rests near the Zeno time");
    assert!(rest.rows[..rest_from] == long.rows[..rest_from], "identical before the threshold acts");
    assert!(long.rows[rest_from] != rest.rows[rest_from]);
    assert!((-rest.v(rest_from - 1) + G * DT) < 10.0 * G * DT, "the threshold decides");
    assert_eq!(
        rest.get("last guard with restitution"),
        *rest.forced().iter().rfind(|&&k| k < rest_from).unwrap() as f64
    );
    for k in rest_from + 1..rest.n() - 1 {
        assert_eq!((rest.z(k), rest.v(k)), (0.0, 0.0), "at rest at {k}");
        close(rest.f(k), MG, 1e-6, "resting force");
    }
}

fn check_smooth(runs: &HashMap<String, Run>) {
    // §6 check 2, the post's tanh law: peak 11 042.37 N at 451, z_min −8.8e-5 m at 455 (three
    // samples below ground), final z 0.013298 m; force > 1 N from 0.440 s; v_min −4.35544 m/s at
    // 0.445 s; resting force ≈ m g.
    let s = &runs["smooth_tanh"];
    let (k_peak, peak) =
        (0..999).map(|k| (k, s.f(k))).fold((0, f64::MIN), |a, b| if b.1 > a.1 { b } else { a });
    assert_eq!(k_peak, 451, "smooth peak index");
    close(peak, 11042.37, 0.01, "smooth peak force");
    let (k_min, z_min) =
        (0..1000).map(|k| (k, s.z(k))).fold((0, f64::MAX), |a, b| if b.1 < a.1 { b } else { a });
    assert_eq!(k_min, 455, "smooth z_min index");
    close(z_min, -8.8e-5, 1e-6, "smooth z_min");
    assert_eq!((0..1000).filter(|&k| s.z(k) < 0.0).count(), 3, "samples below ground");
    close(s.z(999), 0.013298, 1e-6, "smooth final z");
    close(s.z(999), (1.0 - MG / 750.0).atanh() / 100.0, 1e-6, "final z vs z_eq");
    assert_eq!((0..999).find(|&k| s.f(k) > 1.0), Some(440), "force at a distance from 0.440 s");
    let (k_v, v_min) =
        (0..1000).map(|k| (k, s.v(k))).fold((0, f64::MAX), |a, b| if b.1 < a.1 { b } else { a });
    assert_eq!(k_v, 445);
    close(v_min, -4.35544, 1e-5, "smooth v_min");
    close(s.f(998), 98.098, 1e-3, "smooth force at 0.998 s");
    assert!((0..999).all(|k| s.f(k) >= 0.0), "never sticky in this run");
    assert!((456..1000).all(|k| s.z(k) < 0.0133), "no rebound above the hover height");

    // TAMSI two-way (no reference numbers in the spec; k = 1e6 N/m, d = 2 s/m): the physics.
    let t = &runs["smooth_tamsi"];
    let (k_stiff, d) = (1e6, 2.0);
    let first = t.forced()[0];
    assert_eq!(first, 452, "first penetrating sample (semi-implicit Euler crosses 0 between 451 and 452)");
    assert!((449..=455).contains(&first), "check 5: first contact within 2 dt of 0.451–0.453 s");
    assert!(t.z(first) < 0.0 && t.z(first - 1) > 0.0);
    for k in 0..999 {
        // Semi-implicit Euler and the momentum balance of the step with the returned force.
        close(t.z(k + 1), t.z(k) + DT * t.v(k + 1), 1e-15, "z update");
        close(M * (t.v(k + 1) - t.v(k)), DT * (t.f(k) - MG), 1e-9, &format!("momentum of step {k}"));
        // The force is the Hunt–Crossley law at the new velocity, fn0 − dt k vn = −k z_{k+1}.
        let law = if t.z(k) < 0.0 {
            (1.0 - d * t.v(k + 1)).max(0.0) * (-k_stiff * t.z(k + 1)).max(0.0)
        } else {
            0.0
        };
        close(t.f(k), law, 1e-6 * law.max(1.0), &format!("Hunt-Crossley law at step {k}"));
    }
    // Bounded penetration: deeper than the static m g / k during the impact, under 1 cm.
    let z_min = (0..1000).map(|k| t.z(k)).fold(f64::MAX, f64::min);
    assert!(z_min < -MG / k_stiff && z_min > -0.01, "TAMSI max penetration {z_min}");
    // At rest by 0.999 s: force m g, penetration m g / k.
    close(t.f(998), MG, 1e-6, "TAMSI resting force");
    close(t.z(999), -MG / k_stiff, 1e-10, "TAMSI equilibrium penetration");
    assert!(t.v(999).abs() < 1e-8, "TAMSI at rest: v = {}", t.v(999));
}

fn check_time_stepping(runs: &HashMap<String, Run>) {
    // §6 check 3 for Lemke and the interior point at 1e-8: F_451 = 43 281.80, F_452 = 1 157.50
    // (±0.5 N), m g afterwards, z = 0 from index 452 on.
    for name in ["timestepping_lemke", "timestepping_ipm"] {
        let r = &runs[name];
        close(r.f(451), 43281.80, 0.5, &format!("{name}: F_451"));
        close(r.f(452), 1157.50, 0.5, &format!("{name}: F_452"));
        // Check 3 asks for 98.1 ± 1e-6 N from 453 on. The exact LCP does that; the interior point
        // first settles to its hover height (7e-11 m: 0.0064 N off at 453, 0.0029 N at 454) and
        // holds m g to 1e-6 N from 455 on.
        let from = if name == "timestepping_lemke" { 453 } else { 455 };
        for k in 453..from {
            close(r.f(k), MG, 0.01, &format!("{name}: F_{k} while settling"));
        }
        for k in from..999 {
            close(r.f(k), MG, 1e-6, &format!("{name}: F_{k}"));
        }
        for k in 452..1000 {
            assert!(r.z(k).abs() < 1e-8, "{name}: z_{k} = {}", r.z(k));
        }
        close(r.z(999), 0.0, 1e-8, &format!("{name}: final z"));
        close(r.v(999), 0.0, 1e-8, &format!("{name}: final v"));
        for k in 0..999 {
            close(r.z(k + 1), r.z(k) + DT * r.v(k + 1), 1e-15, "semi-implicit Euler");
            close(
                M * (r.v(k + 1) - r.v(k)),
                DT * (r.f(k) - MG),
                1e-7,
                &format!("{name}: momentum of step {k}"),
            );
        }
        // Check 6: the impact impulse over the two steps ≈ 44.44 N·s.
        close((r.f(451) + r.f(452)) * DT, 44.44, 0.005, &format!("{name}: impact impulse"));
    }
    let l = &runs["timestepping_lemke"];
    assert!((0..451).all(|k| l.f(k) == 0.0), "Lemke: no force in free flight");
    close(l.z(451), 1.0594e-4, 1e-8, "last free sample z_451");
    close(l.v(451), -4.42431, 1e-5, "last free sample v_451");
    for k in 0..999 {
        assert!(l.z(k + 1) >= -1e-15, "Lemke: no penetration");
    }
    // Interior point at 1e-8 (A9): 43 281.76 N, 1 157.55 N, resting z ≈ 7e-11 m; check 4 (impulse
    // over the window within 1e-3 N·s of 45.2241, resting height < 1e-5 m, peak within 1 %).
    let i = &runs["timestepping_ipm"];
    close(i.f(451), 43281.76, 0.005, "IPM F_451 (A9)");
    close(i.f(452), 1157.55, 0.005, "IPM F_452 (A9)");
    assert!(i.z(999) > 0.0 && (i.z(999) - 7e-11).abs() < 0.05 * 7e-11, "IPM resting z {}", i.z(999));
    let window: f64 = (440..=460).map(|k| i.f(k) * DT).sum();
    close(window, 45.2241, 1e-3, "IPM impulse over 440..460");
    assert!((i.f(451) - 43281.8).abs() < 0.01 * 43281.8);
    // Default btol = 1e-4 (A9): force at a distance spread over 449–451 (2.1, 117.6, 42 708 N),
    // resting at 1.7e-4 m.
    let b = &runs["timestepping_ipm_btol1e-4"];
    close(b.f(449), 2.1, 0.05, "btol 1e-4: F_449");
    close(b.f(450), 117.6, 0.05, "btol 1e-4: F_450");
    close(b.f(451), 42708.0, 0.5, "btol 1e-4: F_451");
    assert!((b.z(999) - 1.7e-4).abs() < 0.03 * 1.7e-4, "btol 1e-4: resting z {}", b.z(999));
}

fn source() -> PathBuf {
    examples_dir().join("point_mass_methods.c")
}

fn build_example(dir: &str, flags: &[&str], link: Link) -> PathBuf {
    let exe = out_dir(dir).join("point_mass_methods");
    build(&[&source()], &exe, false, flags, link);
    exe
}

fn run_args(exe: &Path, args: &[&str], valgrind: bool) -> String {
    let mut cmd = if valgrind {
        let mut c = Command::new("valgrind");
        c.args(["--error-exitcode=1", "--leak-check=full", "--errors-for-leak-kinds=definite", "-q"])
            .arg(exe);
        c
    } else {
        Command::new(exe)
    };
    let out = cmd.args(args).output().expect("program runs");
    assert!(
        out.status.success(),
        "{} {args:?} failed ({:?}):\n{}",
        exe.display(),
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn point_mass_methods_reproduces_the_spec() {
    let exe = build_example("point-mass-methods", C_FLAGS, Link::Shared);
    let stdout = run_ok(&exe, false);
    check(&stdout, true);
    check(&run_args(&exe, &["--summary"], false), false);
}

#[test]
fn point_mass_methods_links_statically() {
    let exe = build_example("point-mass-methods-static", C_FLAGS, Link::Static);
    check(&run_ok(&exe, false), true);
}

#[test]
fn point_mass_methods_under_sanitizers_and_valgrind() {
    if have_sanitizers() {
        let exe = build_example("point-mass-methods-asan", &[C_FLAGS, SANITIZE].concat(), Link::Shared);
        check(&run_ok(&exe, false), true);
    } else {
        skipped("AddressSanitizer/UBSan runtime not installed");
    }
    if have_valgrind() {
        // Every run and solve, without the CSV printing.
        let exe = build_example("point-mass-methods-valgrind", C_FLAGS, Link::Shared);
        check(&run_args(&exe, &["--summary"], true), false);
    } else {
        skipped("valgrind not installed");
    }
}

#[test]
fn point_mass_methods_rejects_unknown_arguments() {
    let exe = build_example("point-mass-methods-args", C_FLAGS, Link::Shared);
    let out = Command::new(&exe).arg("--bogus").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("usage"));
}

/// The venv's interpreter (as in tests/packaging/python_ctypes.rs): `CONTACT_SOLVERS_PYTHON`, else
/// `python-venv/bin/python` in the target folder.
fn python() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("CONTACT_SOLVERS_PYTHON") {
        return Some(PathBuf::from(p));
    }
    let exe = std::env::current_exe().unwrap();
    let mut candidates: Vec<PathBuf> =
        exe.ancestors().skip(1).take(4).map(|d| d.join("python-venv/bin/python")).collect();
    candidates.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("target/python-venv/bin/python"));
    candidates.into_iter().find(|p| p.exists())
}

/// The documented command (`docs/blog_methods.md` §8), `point_mass_methods | python plot_methods.py -
/// OUT.png`, writes a PNG.
#[test]
fn plot_methods_writes_the_png() {
    let Some(python) = python() else {
        return skipped("no Python venv (.ci/install-deps tests creates target/python-venv with matplotlib)");
    };
    let has_matplotlib = Command::new(&python)
        .args(["-c", "import matplotlib, numpy"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !has_matplotlib {
        return skipped("the Python venv has no matplotlib (.ci/install-deps tests installs it)");
    }
    let exe = build_example("point-mass-methods-plot", C_FLAGS, Link::Shared);
    let stdout = run_ok(&exe, false);
    let png = out_dir("point-mass-methods-plot").join("point_mass_methods.png");
    let _ = std::fs::remove_file(&png);
    let mut child = Command::new(&python)
        .arg(examples_dir().join("plot_methods.py"))
        .arg("-")
        .arg(&png)
        .env("MPLCONFIGDIR", out_dir("point-mass-methods-mpl"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdout.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "plot_methods.py failed:\n{}", String::from_utf8_lossy(&out.stderr));
    let bytes = std::fs::read(&png).expect("the PNG was written");
    assert!(bytes.len() > 50_000, "a plot, not an empty image: {} bytes", bytes.len());
    // 14 × 15 inches at 90 dpi.
    assert_eq!(png_size(&bytes), (1260, 1350));

    // The summary-only printout has no trajectories to plot: the script says so and fails.
    let summary = run_args(&exe, &["--summary"], false);
    let mut child = Command::new(&python)
        .arg(examples_dir().join("plot_methods.py"))
        .arg("-")
        .arg(out_dir("point-mass-methods-plot").join("none.png"))
        .env("MPLCONFIGDIR", out_dir("point-mass-methods-mpl"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(summary.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no CSV rows"));
}

/// Width and height from a PNG's IHDR chunk (after checking the signature).
fn png_size(bytes: &[u8]) -> (u32, u32) {
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "a PNG file");
    let be = |i: usize| u32::from_be_bytes(bytes[i..i + 4].try_into().unwrap());
    (be(16), be(20))
}

/// The committed plot exists, is the script's 1260×1350 PNG, and the documentation shows it with
/// the command that regenerates it (the one `plot_methods_writes_the_png` runs). The section moved
/// from the README to `docs/blog_methods.md` §8 (issue 28); the test keeps its name.
#[test]
fn committed_plot_is_in_the_readme() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(root.join("docs/point_mass_methods.png")).expect("docs/point_mass_methods.png");
    assert_eq!(png_size(&bytes), (1260, 1350));
    let doc = std::fs::read_to_string(root.join("docs/blog_methods.md")).unwrap();
    assert!(doc.contains("## 8. Three ways to simulate contact"));
    // Inside `docs/`, the link to the plot beside the page.
    assert!(doc.contains("](point_mass_methods.png)"), "docs/blog_methods.md shows the plot");
    assert!(
        doc.contains(
            "target/examples_c/point_mass_methods | target/python-venv/bin/python \
             examples_c/plot_methods.py - docs/point_mass_methods.png"
        ),
        "docs/blog_methods.md documents the command"
    );
}
