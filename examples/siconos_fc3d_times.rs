//! Speed of the interior point's tight setting (`IpmParameters::tight()`, `docs/ipm.md` §11.9) on
//! Siconos' 3-D files, beside Siconos' own solvers (`docs/performance.md` §4).
//!
//! `cargo run --release --example siconos_fc3d_times -- [SICONOS_TIMES]` solves every 3-D file of
//! `tests/data/siconos/friction_contact` `RUNS` times (default 5) with a fresh solver each time and
//! prints per file: contacts, outcome, iterations, Siconos' natural-map error of the answer
//! (recomputed from the outputs, `tests/support/siconos_fc3d.rs`) and the median thread CPU time of
//! `IpmSolver::new` + `solve` (the mapping of the file is not timed). With `SICONOS_TIMES`, the
//! output of `tools/siconos_fc3d_bench` (same session, same machine), it adds the best Siconos
//! solver that reached 1e-8 on that file, its time and our ratio, as a Markdown table.
//!
//! The local problems (`u = W r + q`) are given to the solver in the Delassus data form
//! (`IpmData::Delassus`, `docs/ipm.md` §11.10: `W` and `q` as they are); `FORM=velocity` maps them
//! instead onto dense velocity-form data (`W = A (I + K) Aᵀ` from W's eigen-decomposition, as before
//! §11.10, `tests/support/siconos_fc3d.rs`). The global problems are velocity-form data either way.
//!
//! Environment: `RUNS`; `FILTER=substring` selects files; `HASH=1` adds a column with a hash of the
//! bits of the answer's velocities and impulses (to check that a change keeps the same bits);
//! `MODE=continuation` times instead what
//! `tests/solvers/ipm_siconos.rs` did before the tight setting (Dojo's iteration with impulses
//! scaled by σ, `rtol = 1e-12‖q‖`, `btol = 1e-14‖q‖²`, re-solved from scratch with btol 10×,
//! 100×, … smaller while the answer is above 1e-8).
use contact_solvers::ipm::{IpmOutcome, IpmParameters, IpmSolver};
use support::siconos_fc3d::{
    Impulses, LARGE, MID, Mapped, SMALL, load_delassus, load_with, natural_map_error,
};

fn thread_seconds() -> f64 {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `t` is a valid, writable timespec; the clock id is a constant of the platform.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    t.tv_sec as f64 + 1e-9 * t.tv_nsec as f64
}

/// FNV-1a of the bits of the answer's velocities and impulses (`HASH=1`).
fn answer_hash(s: &IpmSolver) -> u64 {
    s.velocities().iter().chain(s.impulses()).fold(0xcbf2_9ce4_8422_2325, |h, x| {
        x.to_bits().to_le_bytes().iter().fold(h, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3))
    })
}

/// One timed solve: outcome, iterations (summed over the re-solves), error, seconds, solves,
/// hash of the answer (0 for the continuation).
fn solve(p: &Mapped, continuation: bool) -> (IpmOutcome, usize, f64, f64, usize, u64) {
    if !continuation {
        let t0 = thread_seconds();
        let mut s = IpmSolver::new(IpmParameters::tight()).unwrap();
        let out = s.solve(&p.problem()).unwrap();
        let dt = thread_seconds() - t0;
        let err = natural_map_error(p, s.velocities(), s.impulses());
        return (out, s.stats().iterations, err, dt, 1, answer_hash(&s));
    }
    let (mut total, mut iters) = (0.0, 0);
    let mut last = (IpmOutcome::MaxIterationsReached, 0, f64::INFINITY, 0.0, 0, 0);
    for (k, factor) in [1.0, 1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6].into_iter().enumerate() {
        let prm = IpmParameters {
            rtol: 1e-12 * p.norm,
            btol: 1e-14 * factor * p.norm * p.norm,
            max_iter: 100,
            rvio_floor_in_backtracking: true,
            ..IpmParameters::dojo()
        };
        let t0 = thread_seconds();
        let mut s = IpmSolver::new(prm).unwrap();
        let out = s.solve(&p.problem()).unwrap();
        total += thread_seconds() - t0;
        iters += s.stats().iterations;
        let err = natural_map_error(p, s.velocities(), s.impulses());
        last = (out, iters, err, total, k + 1, 0);
        if out != IpmOutcome::Converged || err <= 1e-8 {
            break;
        }
    }
    last
}

/// Best Siconos time per file among the solvers whose answer reached 1e-8 in every run.
fn siconos_best(path: &str) -> std::collections::HashMap<String, (String, f64)> {
    let mut best = std::collections::HashMap::<String, (String, f64)>::new();
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    for line in text.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        // name solver time "s" "err" err "info" info "it" it "solved" runs (bench.c)
        if f.len() < 12 || f[3] != "s" {
            continue;
        }
        let (Ok(t), Ok(err), Ok(solved)) = (f[2].parse::<f64>(), f[5].parse::<f64>(), f[11].parse::<usize>())
        else {
            continue;
        };
        if solved == 0 || err.is_nan() || err > 1e-8 {
            continue;
        }
        let e = best.entry(f[0].to_owned()).or_insert((f[1].to_owned(), t));
        if t < e.1 {
            *e = (f[1].to_owned(), t);
        }
    }
    best
}

fn main() {
    let runs: usize = std::env::var("RUNS").ok().and_then(|x| x.parse().ok()).unwrap_or(5);
    let filter = std::env::var("FILTER").ok();
    let continuation = std::env::var("MODE").is_ok_and(|m| m == "continuation");
    let velocity_form = std::env::var("FORM").is_ok_and(|m| m == "velocity");
    let hash = std::env::var("HASH").is_ok_and(|m| m == "1");
    let siconos = std::env::args().nth(1).map(|p| siconos_best(&p));
    println!(
        "| file | nc | outcome | iterations | natural-map error | ours (s) | best Siconos solver | Siconos (s) | ratio |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    let (mut solved, mut worst): (usize, (f64, &str)) = (0, (0.0, ""));
    for name in SMALL.iter().chain(&MID).chain(&LARGE) {
        if filter.as_ref().is_some_and(|f| !name.contains(f.as_str())) {
            continue;
        }
        let p = if continuation {
            load_with(name, Impulses::Scaled)
        } else if velocity_form {
            load_with(name, Impulses::Unit)
        } else {
            load_delassus(name)
        };
        let p = p.expect("a 3-D file");
        let mut times = Vec::with_capacity(runs);
        let mut last = None;
        for _ in 0..runs.max(1) {
            let r = solve(&p, continuation);
            times.push(r.3);
            last = Some(r);
            if r.3 > 5.0 {
                break;
            }
        }
        times.sort_by(f64::total_cmp);
        let t = times[times.len() / 2];
        let (out, it, err, _, solves, bits) = last.unwrap();
        solved += usize::from(out == IpmOutcome::Converged && err <= 1e-8);
        let its = if continuation { format!("{it} ({solves} solves)") } else { it.to_string() };
        let (who, ts, ratio) = match siconos.as_ref().and_then(|s| s.get(*name)) {
            Some((who, ts)) => {
                let ratio = t / ts;
                if ratio > worst.0 {
                    worst = (ratio, name);
                }
                (who.clone(), format!("{ts:.2e}"), format!("{ratio:.1}"))
            }
            None => ("none reaches 1e-8".to_owned(), "–".to_owned(), "–".to_owned()),
        };
        let bits = if hash { format!(" {bits:016x} |") } else { String::new() };
        println!(
            "| {} | {} | {out:?} | {its} | {err:.1e} | {t:.2e} | {who} | {ts} | {ratio} |{bits}",
            name.trim_end_matches(".dat"),
            p.mu.len()
        );
    }
    println!("\n{solved} files solved to 1e-8; largest ratio {:.1} ({})", worst.0, worst.1);
}
