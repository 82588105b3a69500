//! The engine iteration (`docs/ipm.md` §11): the default of [`super::IpmSolver`], chosen for
//! simulation. Same problem, residual and Newton system as Dojo's reference iteration (§1–§2), with
//! these changes, each fixing a failure measured on the engine scenes (`tests/ipm_engine.rs`):
//!
//! 1. **Velocity-level gap row.** The gap row is divided by `h`: `φ/h + J_n v − s_n` with `s_n`
//!    the predicted separating velocity (m/s). Dojo's `s_n` is a gap in metres, `h` times smaller
//!    than the friction pair's velocities, while one κ targets every pair: at dt = 1 ms the
//!    centring drives the normal products up towards the friction ones and lifts resting contacts.
//!    Now every product is an impulse times a velocity.
//! 2. **Scale-invariant start and measures.** A momentum scale `P` and a velocity scale `V` are
//!    taken from the data (see [`scales`]); the cone variables start on the central path of
//!    `ν = P·V` with the duals from the start velocities ([`central_start`]) instead of at `1.5·e`
//!    (1.5 N·s impulses and 1.5 m gaps on a problem whose impulses are 2.5e-3 N·s), and convergence
//!    is tested on `‖·‖/P`, `‖·‖/V`, `‖γ∘s‖/(P·V)`.
//! 3. **Nesterov–Todd scaling of the second-order-cone pairs** (§4.2). Dojo's rows
//!    `Arw(ξ)Δη + Arw(η)Δξ` give a direction that can point out of the cone when ξ and η are not
//!    aligned: on the 50-box pile a dual block η sits on the boundary and every direction leaves it,
//!    the step length falls to 6.5e-13 and stays there. The NT direction is the Newton direction of
//!    the scaled pair `(Wξ)∘(W⁻¹η)` and keeps the step bounded away from 0.
//! 4. **No violation backtracking; a neighbourhood safeguard instead.** Every equality row is
//!    linear, so a step α lowers the equality residual by exactly (1 − α); Dojo's "accept unless both
//!    ∞-norms got worse" rule only blocks steps when `rvio` sits at its round-off floor and centring
//!    raises the largest product (the sliding box: 46 exhausted line searches). The step is the
//!    fraction 0.99 to the boundary, halved while a pair leaves the wide neighbourhood
//!    `λ_min(pair)² ≥ β·ν` (β = [`NEIGHBOURHOOD`]), which keeps the iterates central.
//! 5. **Best iterate.** On failure the iterate with the smallest merit
//!    `max(residual/tolerance, complementarity/complementarity_tolerance)` (the start included) is
//!    returned.

use std::sync::atomic::{AtomicBool, Ordering};

use crate::ipm::cone::{self, LANES};
use crate::ipm::form::Form;
use crate::ipm::iteration::{
    IpmWorkspace, NewtonBuf, Viol, build_rhs, duality, duality_pair, solve_newton, system_data,
};
use crate::ipm::model::{by_model, visit_runs};
use crate::ipm::newton::SystemData;
use crate::ipm::regularization::near_rigid_compliance;
use crate::linalg::all_finite;
use crate::parallel::Parts;

use super::exact;
use crate::ipm::{ContactModel, IpmOutcome, IpmParameters, IpmProblem, IpmStats};

/// β of the wide neighbourhood: every pair keeps `λ_min² ≥ β·ν` (ν = mean product).
const NEIGHBOURHOOD: f64 = 1e-4;
/// Fraction to the boundary of the accepted step.
const FRACTION_TO_BOUNDARY: f64 = 0.99;
/// Gondzio correctors (§11.2, after RipQP): trial step `α + 0.1`, band `[0.1·κ, 10·κ]` for every
/// pair's product, a corrector kept only if the step grows by at least 0.01.
const CORRECTOR_TRIAL: f64 = 0.1;
const CORRECTOR_BAND: (f64, f64) = (0.1, 10.0);
const CORRECTOR_MIN_GAIN: f64 = 0.01;
/// Stall exit (§11.2): progress is a 10 % fall of the best merit; a step below 1e-4 on three
/// iterations in a row is a stall (Clarabel and ECOS stop at 1e-4 and 1e-6).
const STALL_PROGRESS: f64 = 0.9;
const SMALL_STEP: f64 = 1e-4;
const SMALL_STEP_COUNT: usize = 3;
/// Merit of [`IpmOutcome::AlmostConverged`]: 100× the tolerances.
const ALMOST: f64 = 100.0;

/// Momentum scale `P` (N·s) and velocity scale `V` (m/s) of the problem (`docs/ipm.md` §11):
///
/// * `V = max(‖J M⁻¹p* + o‖∞, ‖J v0 + o‖∞, max_i(−φ_i)/h)`: the largest contact velocity without
///   contact impulses, at the start, or needed to close a penetration within the step
///   (`o` = tangential offsets); 1 if all are 0.
/// * `P = max(‖p*‖∞, max_j M_jj·V)` with `p* = M v0 + hτ`: the largest generalized momentum, or
///   the momentum of changing a velocity by `V`; 1 if both are 0.
///
/// Both scale with the data (a problem whose units are changed by a factor gets the scales changed
/// by that factor), so the tests on `‖·‖/P`, `‖·‖/V` and `‖γ∘s‖/(P·V)` are scale-invariant.
///
/// With `delassus`, `ws.compliance` receives every contact's normal Delassus diagonal (1/kg) from
/// the same factorization of M (§11.7). Inlined into the solve's SIMD dispatch: as a function of
/// its own every `f64::mul_add` of its kernels was a call to libm's `fma` (issue 29,
/// `tests/alloc/hot_path_fma.rs`).
#[inline(always)]
fn scales<F: Form>(ws: &mut IpmWorkspace, p: &IpmProblem<'_>, form: &mut F, delassus: bool) -> (f64, f64) {
    let n = ws.n;
    for (x, &t) in ws.p_star[..n].iter_mut().zip(p.tau.as_slice()) {
        *x = p.h * t;
    }
    form.add_mass_product(p.v0.as_slice(), &mut ws.p_star[..n]);
    ws.v_free[..n].copy_from_slice(&ws.p_star[..n]);
    if ws.nc > 0 {
        let w = if delassus {
            ws.compliance.clear();
            ws.compliance.resize(ws.nc, 0.0);
            Some(&mut ws.compliance[..])
        } else {
            None
        };
        form.solve_mass_in_place(&mut ws.v_free[..n], w);
    }
    let free_ok = ws.v_free[..n].iter().all(|x| x.is_finite());
    let mut v: f64 = 0.0;
    for (i, &model) in ws.models.iter().enumerate() {
        let dirs = if model == ContactModel::Impact { 1 } else { 3 };
        let u0 = form.contact_velocity(i, dirs, p.v0.as_slice());
        let uf = form.contact_velocity(i, dirs, &ws.v_free[..n]);
        for a in 0..dirs {
            let o = match (&p.vt_offset, a) {
                (Some(o), 1 | 2) => o[2 * i + a - 1],
                _ => 0.0,
            };
            v = v.max((u0[a] + o).abs());
            if free_ok {
                v = v.max((uf[a] + o).abs());
            }
        }
        v = v.max(-p.phi[i] / p.h);
    }
    let v = if v > 0.0 && v.is_finite() { v } else { 1.0 };
    let pmax = ws.p_star[..n].iter().fold(0.0f64, |a, &x| a.max(x.abs()));
    let mmax = form.mass_diagonal_max();
    let pscale = pmax.max(mmax * v);
    let pscale = if pscale > 0.0 && pscale.is_finite() { pscale } else { 1.0 };
    (pscale, v)
}

/// Centred start of the cone variables (`docs/ipm.md` §11): the dual variables from the
/// velocities at the start, `s_n = max(φ/h + J_n v, 0) + V`, `η = (|u_t| + V, u_t)`, and the primal
/// ones on the central path of `ν = P·V`: `γ_n = ν/s_n`, `ξ = ν·η⁻¹` (Jordan inverse), so that
/// `γ∘s = ν e` exactly. Contacts about to close start with large impulses, far ones with small
/// impulses, sliding ones with friction opposing the slip. Other pairs (the linear model's) start
/// at `s = V`, `γ = P`.
#[inline(always)]
fn central_start<F: Form>(ws: &mut IpmWorkspace, p: &IpmProblem<'_>, form: &F, pscale: f64, vscale: f64) {
    let n = ws.n;
    let nu = pscale * vscale;
    for (i, (&m, &off)) in ws.models.iter().zip(&ws.offsets).enumerate() {
        let k = m.dim();
        ws.s[off..off + k].fill(vscale);
        ws.g[off..off + k].fill(pscale);
        let dirs = if m == ContactModel::Impact { 1 } else { 3 };
        let mut u = form.contact_velocity(i, dirs, &ws.v[..n]);
        for (a, ua) in u.iter_mut().enumerate().take(dirs) {
            if let (Some(o), 1 | 2) = (&p.vt_offset, a) {
                *ua += o[2 * i + a - 1];
            }
        }
        let sn = (ws.phi_eff[i] + u[0]).max(0.0) + vscale;
        ws.s[off] = sn;
        ws.g[off] = nu / sn;
        if m == ContactModel::SecondOrderCone {
            let eta = [u[1].hypot(u[2]) + vscale, u[1], u[2]];
            let det = eta[0] * eta[0] - eta[1] * eta[1] - eta[2] * eta[2];
            ws.s[off + 1..off + 4].copy_from_slice(&eta);
            ws.g[off + 1] = nu * eta[0] / det;
            ws.g[off + 2] = -nu * eta[1] / det;
            ws.g[off + 3] = -nu * eta[2] / det;
        }
    }
}

/// How the engine iteration starts its cone variables (`docs/ipm.md` §11.5).
#[derive(Clone, Copy)]
pub(crate) enum WarmStart<'a> {
    /// The central start of the scales.
    Cold,
    /// The previous solution, contact by position (same layout).
    ByPosition,
    /// The previous solution of the contact with the same caller id; the central start for new
    /// contacts.
    ById(&'a [u64]),
}

/// Moves every contact whose id the previous solve had (and whose model is unchanged) to the
/// previous solution pushed inside by a tenth of the scales, then Dojo's interior shift; the
/// others keep their central start.
fn warm_start_by_id(ws: &mut IpmWorkspace, ids: &[u64], pscale: f64, vscale: f64) {
    for (i, (&m, &off)) in ws.models.iter().zip(&ws.offsets).enumerate() {
        let prev = &ws.previous;
        let Ok(pos) = prev.order.binary_search_by_key(&ids[i], |&j| prev.ids[j]) else { continue };
        let j = prev.order[pos];
        if prev.models[j] != m {
            continue;
        }
        let (k, po) = (m.dim(), prev.offsets[j]);
        ws.s[off..off + k].copy_from_slice(&prev.s[po..po + k]);
        ws.g[off..off + k].copy_from_slice(&prev.g[po..po + k]);
        push_inside_by_mode(
            m,
            &mut ws.s[off..off + k],
            &mut ws.g[off..off + k],
            &ws.e[off..off + k],
            pscale,
            vscale,
        );
    }
}

/// Which of a pair's primal and dual the warm start pushes inside, from their distances `ds`
/// (m/s) and `dg` (N·s) to the boundary at the previous solution (the pair's mode, `docs/ipm.md`
/// §11.5): a primal well inside (≥ a tenth of V) with its dual at the boundary (a separated
/// contact's gap, a sliding contact's friction pair) is kept and only the dual is pushed; a dual
/// well inside with its primal at the boundary (a touching contact's gap, a sticking contact's
/// friction pair) is kept and only the primal is pushed; otherwise both are pushed.
fn pushed_by_mode(ds: f64, dg: f64, pscale: f64, vscale: f64) -> (bool, bool) {
    let s_inside = ds >= 0.1 * vscale;
    let g_inside = dg >= 0.1 * pscale;
    match (s_inside, g_inside) {
        (true, false) => (false, true),
        (false, true) => (true, false),
        _ => (true, true),
    }
}

/// One contact's previous solution `(s, g)` moved inside by a tenth of the scales along the
/// identity `e`, pair by pair (each orthant entry, the `Q³` block) as [`pushed_by_mode`] says, then
/// Dojo's interior shift: a converged point sits on the boundary, where the shift alone leaves
/// products near 0 and the first steps collapse (§11 item 3). Keeping the variable the mode says
/// is inside keeps the part of the previous solution that carries over: in MuJoCo's 200-box loop
/// 3.92 iterations a step on average against 4.85 when every variable is pushed (§11.5).
fn push_inside_by_mode(m: ContactModel, s: &mut [f64], g: &mut [f64], e: &[f64], pscale: f64, vscale: f64) {
    let push = |s: &mut [f64], g: &mut [f64], r: std::ops::Range<usize>, ds: f64, dg: f64| {
        let (push_s, push_g) = pushed_by_mode(ds, dg, pscale, vscale);
        for j in r {
            if push_s {
                s[j] += 0.1 * vscale * e[j];
            }
            if push_g {
                g[j] += 0.1 * pscale * e[j];
            }
        }
    };
    let no = m.orthant_len();
    for j in 0..no {
        let (ds, dg) = (s[j], g[j]);
        push(s, g, j..j + 1, ds, dg);
    }
    if m == ContactModel::SecondOrderCone {
        let (ds, dg) = (cone::soc_margin(&s[no..no + 3]), cone::soc_margin(&g[no..no + 3]));
        push(s, g, no..no + 3, ds, dg);
    }
    m.shift(s, g);
}

/// Largest step `α ≤ 1` keeping the fraction `tau` inside every cone, primal and dual
/// (scale-invariant second-order-cone step): [`ContactModel::step_exact`] of every contact, runs
/// of [`cone::LANES`] second-order-cone contacts side by side ([`soc_contact_steps`]). The step
/// is a minimum, which does not depend on the order in which the contacts' steps are taken, so
/// the same number as contact by contact (issue 29: the step's divisions and square roots were
/// 9 % of an iteration's time on pile50 t1.0, in scalar units).
#[inline(always)]
fn cone_search(ws: &IpmWorkspace, ds: &[f64], dg: &[f64], tau: f64) -> f64 {
    let (models, offsets) = (&ws.models, &ws.offsets);
    let mut run_min: [f64; LANES] = [1.0; LANES];
    let mut alpha: f64 = 1.0;
    visit_runs(
        models,
        offsets,
        #[inline(always)]
        |i, run| {
            if let Some(o) = run {
                for (x, dx) in [(&ws.s[..], ds), (&ws.g[..], dg)] {
                    let step = soc_contact_steps(&soc_blocks(x, &o), &soc_blocks(dx, &o), tau);
                    run_min = cone::lanes(|l| run_min[l].min(step[l]));
                }
            } else {
                let (m, off) = (models[i], offsets[i]);
                let r = off..off + m.dim();
                alpha = alpha.min(m.step_exact(&ws.s[r.clone()], &ds[r.clone()], tau));
                alpha = alpha.min(m.step_exact(&ws.g[r.clone()], &dg[r], tau));
            }
            true
        },
    );
    run_min.iter().fold(alpha, |a, &x| a.min(x))
}

/// The 4 entries `x[o..o + 4]` (the orthant entry, then the cone block) of the second-order-cone
/// contacts at offsets `o`, contact by contact.
#[inline(always)]
fn soc_blocks(x: &[f64], o: &[usize; LANES]) -> [[f64; 4]; LANES] {
    core::array::from_fn(|l| x[o[l]..o[l] + 4].try_into().expect("4 entries"))
}

/// Entries 1–3 (the cone blocks) of [`soc_blocks`] for the lane kernels: component-major.
#[inline(always)]
fn cone_blocks(b: &[[f64; 4]; LANES]) -> [[f64; LANES]; 3] {
    core::array::from_fn(|c| cone::lanes(|l| b[l][c + 1]))
}

/// [`ContactModel::step_exact`] of [`LANES`] second-order-cone contacts (blocks `x` along `dx`, as
/// [`soc_blocks`]), lane by lane the operations of the scalar step: the orthant entry's
/// `min(1, −τx/Δx)` where `Δx < 0` (the division in every lane, kept by a bit mask: as a select
/// LLVM turns it into a branch around a scalar division), then the cone's
/// [`cone::soc_step_lanes`].
#[inline(always)]
fn soc_contact_steps(x: &[[f64; 4]; LANES], dx: &[[f64; 4]; LANES], tau: f64) -> [f64; LANES] {
    let q: [f64; LANES] = cone::lanes(|l| -tau * x[l][0] / dx[l][0]);
    let orthant: [f64; LANES] = cone::lanes(|l| {
        let keep = if dx[l][0] < 0.0 { u64::MAX } else { 0 };
        f64::from_bits((1.0f64.min(q[l]).to_bits() & keep) | (1.0f64.to_bits() & !keep))
    });
    let soc = cone::soc_step_lanes(&cone_blocks(x), &cone_blocks(dx), tau, f64::MIN_POSITIVE, 0.0);
    cone::lanes(|l| orthant[l].min(soc[l]))
}

/// The Nesterov–Todd data (layout of [`nesterov_todd`]) of the [`LANES`] second-order-cone
/// contacts at offsets `o` of `(s, g)` into `d` (21 numbers each, contact after contact), by
/// [`cone::nt_scaling_lanes`] (the bits of [`pair_scaling`]); returns their λ, component-major.
#[inline(always)]
fn pair_scalings(o: &[usize; LANES], s: &[f64], g: &[f64], d: &mut [f64]) -> [[f64; LANES]; 3] {
    let (w, wi, l) = cone::nt_scaling_lanes(&cone_blocks(&soc_blocks(g, o)), &cone_blocks(&soc_blocks(s, o)));
    for (k, dk) in d.chunks_exact_mut(21).take(LANES).enumerate() {
        for e in 0..9 {
            dk[e] = w[e][k];
            dk[9 + e] = wi[e][k];
        }
        for e in 0..3 {
            dk[18 + e] = l[e][k];
        }
    }
    l
}

/// Scaled measures `(residual, complementarity)` of a point.
#[inline(always)]
fn measures(viol: &Viol, pscale: f64, vscale: f64) -> (f64, f64) {
    let res = (viol.dyn_norm / pscale).max(viol.vel_norm / vscale).max(viol.imp_norm / pscale);
    (res, viol.bvio / (pscale * vscale))
}

/// Scaled natural-map error (`docs/ipm.md` §11.8) of the iterate whose residual is in `ws.r`:
/// `max_i ‖r̃_i − Π_K(r̃_i − û_i)‖∞ / V` over the second-order-cone and impact contacts, with
/// `r̃ = r·V/P` (impulses in velocity units, so the measure is scale-invariant like the others),
/// `û = (u_n + μ‖u_t‖, u_t)` (De Saxcé's modified velocity), `u_n` the gap row's velocity (with
/// the compliance `R γ_n` when there is one) and `u_t` the tangential velocity, both recovered
/// from the equality residual as `r_eq + s`. `K` is the Coulomb cone `‖r_t‖ ≤ μ r_n`.
///
/// With the form's split the contacts' maxima are taken by parts and combined by `max`, which
/// does not depend on the order (`docs/performance.md` §8).
#[inline(always)]
fn natural_map<F: Form>(ws: &mut IpmWorkspace, form: &F, pscale: f64, vscale: f64) -> f64 {
    let (n, kt) = (ws.n, ws.k_total);
    let c = vscale / pscale;
    let IpmWorkspace { r, s, g, models, offsets, mu, part, .. } = ws;
    let re = &r[n + kt..n + 2 * kt];
    let pair =
        PairState { models: &models[..], offsets: &offsets[..], s: &s[..], g: &g[..], mu: &mu[..], re, c };
    let mut worst: f64 = 0.0;
    match form.split() {
        Some(sp) => {
            let (parts, cuts) = (sp.parts(), sp.contacts());
            let slots = part.slots(parts);
            sp.run(
                #[inline(always)]
                |q| {
                    let acc = &mut slots.take(q)[0];
                    acc[0] = (cuts[q]..cuts[q + 1]).fold(
                        0.0,
                        #[inline(always)]
                        |w, i| natural_map_contact(&pair, i, w),
                    );
                },
            );
            for acc in &part.partials[..parts] {
                worst = worst.max(acc[0]);
            }
        }
        None => {
            for i in 0..models.len() {
                worst = natural_map_contact(&pair, i, worst);
            }
        }
    }
    worst / vscale
}

/// What [`natural_map_contact`] reads: the iterate, the equality residual `re` and `c = V/P`.
struct PairState<'a> {
    models: &'a [ContactModel],
    offsets: &'a [usize],
    s: &'a [f64],
    g: &'a [f64],
    mu: &'a [f64],
    re: &'a [f64],
    c: f64,
}

/// `max(worst, contact i's natural-map error)` (unscaled; [`natural_map`]).
#[inline(always)]
fn natural_map_contact(st: &PairState<'_>, i: usize, worst: f64) -> f64 {
    let (m, off, c, re) = (st.models[i], st.offsets[i], st.c, st.re);
    let (s, g) = (&st.s[off..], &st.g[off..]);
    let un = re[off] + s[0];
    let (r, ut, mu) = match m {
        ContactModel::Impact => ([c * g[0], 0.0, 0.0], [0.0, 0.0], 0.0),
        ContactModel::SecondOrderCone => {
            ([c * g[0], c * g[2], c * g[3]], [re[off + 2] + s[2], re[off + 3] + s[3]], st.mu[i])
        }
        ContactModel::Linear => return worst,
    };
    let x = [r[0] - (un + mu * norm2(ut[0], ut[1])), r[1] - ut[0], r[2] - ut[1]];
    let p = project_coulomb(x, mu);
    worst.max((r[0] - p[0]).abs()).max((r[1] - p[1]).abs()).max((r[2] - p[2]).abs())
}

/// `√(a² + b²)` without `hypot`'s overflow guard: the natural map's arguments are scaled (velocity
/// units over V, §11.8), and libm's `hypot` was 4 % of a 3-contact FC3D solve at the tight
/// setting (perf, issue 30 item 5). An underflow to 0 takes the projection's first two branches.
#[inline(always)]
fn norm2(a: f64, b: f64) -> f64 {
    (a * a + b * b).sqrt()
}

/// Projection of `x = (normal, t1, t2)` onto the Coulomb cone `‖x_t‖ ≤ μ x_n`.
#[inline(always)]
fn project_coulomb(x: [f64; 3], mu: f64) -> [f64; 3] {
    let xt = norm2(x[1], x[2]);
    if x[0] >= 0.0 && xt <= mu * x[0] {
        x
    } else if mu * xt <= -x[0] {
        [0.0; 3]
    } else {
        let a = (x[0] + mu * xt) / (1.0 + mu * mu);
        [a, mu * a * x[1] / xt, mu * a * x[2] / xt]
    }
}

/// Nesterov–Todd data of every second-order-cone contact at the iterate (21 numbers per contact),
/// by ranges of contacts on the participants of the form's split if it has one.
#[inline(always)]
fn nesterov_todd<F: Form>(ws: &mut IpmWorkspace, form: &F) {
    let (models, offsets, s, g) = (&ws.models, &ws.offsets, &ws.s, &ws.g);
    match form.split() {
        Some(sp) => {
            let cuts = sp.contacts();
            let nt = Parts::new(&mut ws.nt, cuts, 21);
            sp.run(
                #[inline(always)]
                |q| {
                    let nt = nt.take(q);
                    for i in cuts[q]..cuts[q + 1] {
                        let j = i - cuts[q];
                        pair_scaling(models[i], offsets[i], s, g, &mut nt[21 * j..21 * j + 21]);
                    }
                },
            );
        }
        None => {
            let nt = &mut ws.nt;
            visit_runs(
                models,
                offsets,
                #[inline(always)]
                |i, run| {
                    match run {
                        Some(o) => {
                            pair_scalings(&o, s, g, &mut nt[21 * i..21 * (i + LANES)]);
                        }
                        None => pair_scaling(models[i], offsets[i], s, g, &mut nt[21 * i..21 * i + 21]),
                    }
                    true
                },
            );
        }
    }
}

/// One contact's Nesterov–Todd data `d` (21 numbers) at `(s, g)` when it is a second-order-cone
/// contact.
#[inline(always)]
fn pair_scaling(m: ContactModel, off: usize, s: &[f64], g: &[f64], d: &mut [f64]) {
    if m == ContactModel::SecondOrderCone {
        let (w, wi, l) = cone::nt_scaling(&g[off + 1..off + 4], &s[off + 1..off + 4]);
        d[..9].copy_from_slice(&w);
        d[9..18].copy_from_slice(&wi);
        d[18..].copy_from_slice(&l);
    }
}

/// The predictor's (`Affine`, κ = 0) or the corrector's (`Delta`, with the predictor's cross
/// term) Newton step at the NT scaling: its complementarity rows by [`nt_complementarity_rhs`]
/// (the rest of the right-hand side is already in the buffer), the solve in place, and, when
/// every entry of the step is finite, the step length [`cone_search`] with fraction `tau` (`None`:
/// a non-finite step, which ends the solve, `NonFiniteStep`).
///
/// With the form's split (`docs/performance.md` §8) the complementarity rows are written by each
/// contact just before its pass 1 of the solve, and each contact's step length and finiteness are
/// taken just after its pass 2, on the participants; the step is the minimum of the parts' minima
/// (each from 1, in contact order), combined in part order, and the finiteness test is a
/// conjunction: the same numbers as the sequential passes.
#[inline(always)]
fn nt_solve<F: Form>(
    ws: &mut IpmWorkspace,
    form: &mut F,
    kappa: f64,
    which: NewtonBuf,
    tau: f64,
) -> Option<f64> {
    let (n, kt) = (ws.n, ws.k_total);
    let big = n + 2 * kt;
    let mut rhs = std::mem::take(which.of(ws));
    let split = {
        let data = system_data!(ws);
        ws.newton.splits(&data, form)
    };
    if !split {
        let affine = matches!(which, NewtonBuf::Delta).then(|| &ws.daff[..big]);
        nt_complementarity_rhs(ws, kappa, affine, &mut rhs[..big]);
        *which.of(ws) = rhs;
        solve_newton(ws, form, which);
        if !all_finite(&which.of(ws)[..big]) {
            return None;
        }
        let step = match which {
            NewtonBuf::Affine => ws.daff[n..big].split_at(kt),
            NewtonBuf::Delta => ws.delta[n..big].split_at(kt),
        };
        return Some(cone_search(ws, step.0, step.1, tau));
    }
    let parts = form.split().map_or(0, |sp| sp.parts());
    {
        let data = system_data!(ws);
        let affine = matches!(which, NewtonBuf::Delta).then(|| &ws.daff[..big]);
        let (models, offsets, nt, s, g) = (&ws.models, &ws.offsets, &ws.nt, &ws.s, &ws.g);
        let init = [0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0];
        ws.newton.solve_split(
            &data,
            form,
            &mut rhs[..big],
            Some(&mut ws.part),
            init,
            #[inline(always)]
            |i: usize, fc: &mut [f64], _: &mut [f64]| {
                if models[i] == ContactModel::SecondOrderCone {
                    let off = offsets[i];
                    let cross = affine
                        .map(|d| (&d[n + off + 1..n + off + 4], &d[n + kt + off + 1..n + kt + off + 4]));
                    fc[1..4].copy_from_slice(&nt_pair_rhs(&nt[21 * i..21 * i + 21], kappa, cross));
                }
            },
            #[inline(always)]
            |i: usize, ds: &[f64], dg: &[f64], acc: &mut [f64; 8]| {
                if !ds.iter().chain(dg).all(|x| x.is_finite()) {
                    acc[0] = 1.0;
                }
                let (m, off) = (models[i], offsets[i]);
                let r = off..off + m.dim();
                acc[1] = acc[1].min(m.step_exact(&s[r.clone()], ds, tau));
                acc[1] = acc[1].min(m.step_exact(&g[r], dg, tau));
            },
        );
    }
    let finite = all_finite(&rhs[..n]);
    *which.of(ws) = rhs;
    let mut alpha: f64 = 1.0;
    let mut nonfinite = !finite;
    for acc in &ws.part.partials[..parts] {
        nonfinite |= acc[0] != 0.0;
        alpha = alpha.min(acc[1]);
    }
    (!nonfinite).then_some(alpha)
}

/// Replaces the second-order-cone complementarity entries of the right-hand side `rhs` (full
/// length n + 2K) by the Nesterov–Todd ones [`nt_pair_rhs`]; with `affine = None` (predictor)
/// without the cross term. The orthant entries are already right.
#[inline(always)]
fn nt_complementarity_rhs(ws: &IpmWorkspace, kappa: f64, affine: Option<&[f64]>, rhs: &mut [f64]) {
    let (n, kt) = (ws.n, ws.k_total);
    for (i, (&m, &off)) in ws.models.iter().zip(&ws.offsets).enumerate() {
        if m != ContactModel::SecondOrderCone {
            continue;
        }
        let cross = affine.map(|d| (&d[n + off + 1..n + off + 4], &d[n + kt + off + 1..n + kt + off + 4]));
        let a = nt_pair_rhs(&ws.nt[21 * i..21 * i + 21], kappa, cross);
        rhs[n + off + 1..n + off + 4].copy_from_slice(&a);
    }
}

/// One second-order-cone pair's Nesterov–Todd complementarity entries
/// `Arw(λ)⁻¹(κe − λ∘λ − (W⁻¹Δη_a)∘(WΔξ_a))` from its data `d` (21 numbers) and, for the
/// corrector, the predictor's `(Δη_a, Δξ_a)`.
#[inline(always)]
fn nt_pair_rhs(d: &[f64], kappa: f64, affine: Option<(&[f64], &[f64])>) -> [f64; 3] {
    let w: &[f64; 9] = d[..9].try_into().expect("9 entries");
    let wi: &[f64; 9] = d[9..18].try_into().expect("9 entries");
    let l = &d[18..21];
    let mut c = [0.0; 3];
    cone::soc_product(l, l, &mut c);
    c[0] = kappa - c[0];
    c[1] = -c[1];
    c[2] = -c[2];
    if let Some((deta, dxi)) = affine {
        let de = cone::mat3_vec(wi, deta);
        let dx = cone::mat3_vec(w, dxi);
        let mut cross = [0.0; 3];
        cone::soc_product(&de, &dx, &mut cross);
        for (ck, x) in c.iter_mut().zip(cross) {
            *ck -= x;
        }
    }
    cone::arrow_solve(l, &c)
}

/// Whether every pair of the candidate `(ws.sc, ws.gc)` lies in the wide neighbourhood
/// `λ_min² ≥ β·ν`. The Nesterov–Todd data of every second-order-cone pair (layout of
/// [`nesterov_todd`]) go to `ws.nt_c` on the way: when the point lies in the neighbourhood they are
/// complete, and they are the next iteration's scaling if the point is accepted (the same
/// function of the same numbers, so the same bits as recomputing them).
///
/// With the form's split the pairs are tested by ranges of contacts on the participants (ν, a
/// sum in contact order, is taken first on this thread): every pair's data are the same numbers,
/// and the answer is a conjunction (`docs/performance.md` §8).
#[inline(always)]
fn in_neighbourhood<F: Form>(ws: &mut IpmWorkspace, form: &F, degree: f64) -> bool {
    if degree == 0.0 {
        return true;
    }
    let (kt, nc) = (ws.k_total, ws.nc);
    let (models, offsets, s, g) = (&ws.models, &ws.offsets, &ws.sc[..kt], &ws.gc[..kt]);
    let nu = duality(s, g, s, g, 0.0) / degree;
    let floor = NEIGHBOURHOOD * nu;
    let Some(sp) = form.split() else {
        // Runs of second-order-cone contacts side by side (issue 29); a run is tested whole
        // (a failing pair's successors in it get their data too, which only an accepted point
        // uses).
        let nt = &mut ws.nt_c[..21 * nc];
        return visit_runs(
            models,
            offsets,
            #[inline(always)]
            |i, run| match run {
                Some(o) => {
                    let l = pair_scalings(&o, s, g, &mut nt[21 * i..21 * (i + LANES)]);
                    (0..LANES).all(|k| {
                        s[o[k]] * g[o[k]] >= floor && cone_centred(&[l[0][k], l[1][k], l[2][k]], floor)
                    })
                }
                None => {
                    pair_in_neighbourhood(models[i], offsets[i], s, g, floor, &mut nt[21 * i..21 * i + 21])
                }
            },
        );
    };
    let cuts = sp.contacts();
    let nt = Parts::new(&mut ws.nt_c, cuts, 21);
    let inside = AtomicBool::new(true);
    sp.run(
        #[inline(always)]
        |q| {
            let nt = nt.take(q);
            let c0 = cuts[q];
            let ok = (c0..cuts[q + 1]).all(
                #[inline(always)]
                |i| {
                    let j = i - c0;
                    pair_in_neighbourhood(models[i], offsets[i], s, g, floor, &mut nt[21 * j..21 * j + 21])
                },
            );
            if !ok {
                inside.store(false, Ordering::Relaxed);
            }
        },
    );
    inside.load(Ordering::Relaxed)
}

/// [`in_neighbourhood`] and the residual at the candidate (`ws.residual_at(form, p, 0.0, true)`)
/// in one pass on the participants of the form's split (`None` without one): each part tests
/// its contacts' pairs after their residual rows. The same numbers as the two calls; the
/// residual is computed also for a candidate the test rejects (the line search's next trial
/// overwrites it, and the last trial's is the one the sequential iteration computes).
#[inline(always)]
fn neighbourhood_and_residual<F: Form>(
    ws: &mut IpmWorkspace,
    form: &F,
    p: &IpmProblem<'_>,
    degree: f64,
) -> Option<(bool, Viol)> {
    let sp = form.split()?;
    if degree == 0.0 {
        return None;
    }
    let kt = ws.k_total;
    let (s, g) = (&ws.sc[..kt], &ws.gc[..kt]);
    let floor = NEIGHBOURHOOD * (duality(s, g, s, g, 0.0) / degree);
    let mut nt_c = std::mem::take(&mut ws.nt_c);
    let viol = {
        let cuts = sp.contacts();
        let nt = Parts::new(&mut nt_c, cuts, 21);
        ws.candidate_residual_with(
            form,
            p,
            #[inline(always)]
            |q: usize,
             models: &[ContactModel],
             offsets: &[usize],
             s: &[f64],
             g: &[f64],
             acc: &mut [f64; 8]| {
                let (nt, c0) = (nt.take(q), cuts[q]);
                let inside = (c0..cuts[q + 1]).all(
                    #[inline(always)]
                    |i| {
                        let j = i - c0;
                        pair_in_neighbourhood(
                            models[i],
                            offsets[i],
                            s,
                            g,
                            floor,
                            &mut nt[21 * j..21 * j + 21],
                        )
                    },
                );
                acc[6] = if inside { 0.0 } else { 1.0 };
            },
        )
    };
    ws.nt_c = nt_c;
    let viol = viol?;
    let inside = ws.part.partials[..sp.parts()].iter().all(|a| a[6] == 0.0);
    Some((inside, viol))
}

/// Whether one pair of `(s, g)` lies in the wide neighbourhood `λ_min² ≥ floor`; a
/// second-order-cone pair's Nesterov–Todd data go to `d` (21 numbers).
#[inline(always)]
fn pair_in_neighbourhood(
    m: ContactModel,
    off: usize,
    s: &[f64],
    g: &[f64],
    floor: f64,
    d: &mut [f64],
) -> bool {
    let no = m.orthant_len();
    let orthant_ok = (off..off + no).all(|j| s[j] * g[j] >= floor);
    orthant_ok
        && (m != ContactModel::SecondOrderCone || {
            pair_scaling(m, off, s, g, d);
            cone_centred(&d[18..21], floor)
        })
}

/// Whether a cone pair whose Nesterov–Todd λ is `l` is inside the neighbourhood: λ strictly
/// inside the cone with its smallest eigenvalue squared at least `floor`.
#[inline(always)]
fn cone_centred(l: &[f64], floor: f64) -> bool {
    let lmin = cone::soc_margin(l);
    lmin > 0.0 && lmin * lmin >= floor
}

/// Runs the engine iteration from `ws.v` (set by the caller) and returns its outcome; the
/// returned iterate (converged, or the best by merit) is left in `ws.v`, `ws.s`, `ws.g`.
#[inline(always)]
pub(super) fn iterate_engine<F: Form>(
    ws: &mut IpmWorkspace,
    prm: &IpmParameters,
    p: &IpmProblem<'_>,
    form: &mut F,
    warm: WarmStart<'_>,
) -> IpmOutcome {
    let (n, nc, kt) = (ws.n, ws.nc, ws.k_total);
    let big = n + 2 * kt;
    let per_contact = prm.near_rigid_beta > 0.0;
    let (pscale, vscale) = scales(ws, p, form, per_contact);
    // §11.3 and §11.7: the gap rows' compliance, global (relative to V/P) plus per contact.
    let global = prm.normal_compliance * vscale / pscale;
    if per_contact {
        for c in ws.compliance.iter_mut() {
            *c = global + near_rigid_compliance(prm.near_rigid_beta, *c);
        }
    } else {
        ws.compliance.clear();
        if global > 0.0 {
            ws.compliance.resize(nc, global);
        }
    }
    // §11.8: the natural-map term only with a tolerance.
    let nm_tol = prm.natural_map_tolerance;
    let merit = |res: f64, comp: f64, nm: f64| {
        let m = (res / prm.tolerance).max(comp / prm.complementarity_tolerance);
        if nm_tol > 0.0 { m.max(nm / nm_tol) } else { m }
    };
    // §11.9: the tight setting's exact candidates (hard contact, no linearized cone).
    let try_exact = prm.tries_exact_candidates()
        && ws.compliance.is_empty()
        && ws.models.iter().all(|&m| m != ContactModel::Linear);
    let converged = |res: f64, comp: f64, nm: f64| {
        res <= prm.tolerance && comp <= prm.complementarity_tolerance && (nm_tol == 0.0 || nm <= nm_tol)
    };
    if try_exact && nc > 0 {
        // The start velocity, restored when the candidate fails.
        ws.best_v[..n].copy_from_slice(&ws.v[..n]);
        exact::modes_from_free_velocity(ws, form);
        if exact::candidate(ws, p, form) {
            let viol = ws.residual_at(form, p, 0.0, false);
            let (res, comp) = measures(&viol, pscale, vscale);
            let nm = natural_map(ws, form, pscale, vscale);
            if converged(res, comp, nm) {
                ws.rvio_history.push(viol.rvio);
                ws.bvio_history.push(viol.bvio);
                ws.stats = IpmStats {
                    rvio: viol.rvio,
                    bvio: viol.bvio,
                    momentum_scale: pscale,
                    velocity_scale: vscale,
                    residual: res,
                    complementarity: comp,
                    merit: merit(res, comp, nm),
                    natural_map: nm,
                    ..Default::default()
                };
                return IpmOutcome::Converged;
            }
        }
        ws.v[..n].copy_from_slice(&ws.best_v[..n]);
    }
    let mut polish_left = if try_exact { exact::MAX_POLISH } else { 0 };
    match warm {
        WarmStart::ByPosition => {
            for (&m, &off) in ws.models.iter().zip(&ws.offsets) {
                let r = off..off + m.dim();
                push_inside_by_mode(m, &mut ws.s[r.clone()], &mut ws.g[r.clone()], &ws.e[r], pscale, vscale);
            }
        }
        WarmStart::Cold => central_start(ws, p, form, pscale, vscale),
        WarmStart::ById(ids) => {
            central_start(ws, p, form, pscale, vscale);
            warm_start_by_id(ws, ids, pscale, vscale);
        }
    }
    let degree: f64 = ws.models.iter().map(|m| m.degree() as f64).sum();

    let mut viol = ws.residual_at(form, p, 0.0, false);
    ws.stats = IpmStats {
        rvio: viol.rvio,
        bvio: viol.bvio,
        momentum_scale: pscale,
        velocity_scale: vscale,
        ..Default::default()
    };
    ws.rvio_history.push(viol.rvio);
    ws.bvio_history.push(viol.bvio);
    let save_best = |ws: &mut IpmWorkspace| {
        ws.best_v[..n].copy_from_slice(&ws.v[..n]);
        ws.best_s[..kt].copy_from_slice(&ws.s[..kt]);
        ws.best_g[..kt].copy_from_slice(&ws.g[..kt]);
    };
    let (res0, comp0) = measures(&viol, pscale, vscale);
    // §11.8: without a natural-map tolerance the measure only goes to the statistics of the
    // returned iterate, and is computed for it alone after the loop (issue 29).
    let mut nm = if nm_tol > 0.0 { natural_map(ws, form, pscale, vscale) } else { 0.0 };
    let mut best = if res0.is_finite() && comp0.is_finite() { merit(res0, comp0, nm) } else { f64::INFINITY };
    let mut best_viol = viol;
    let mut best_nm = nm;
    save_best(ws);

    let mut outcome = IpmOutcome::MaxIterationsReached;
    let mut iter = 0;
    let (mut progress_ref, mut progress_iter, mut small_steps, mut stalled) = (best, 0, 0, false);
    // Whether `ws.nt` already holds the scaling of the iterate (computed by the neighbourhood
    // test of the step that reached it).
    let mut nt_ready = false;
    loop {
        let (res, comp) = measures(&viol, pscale, vscale);
        if converged(res, comp, nm) {
            outcome = IpmOutcome::Converged;
            break;
        }
        if !(res.is_finite() && comp.is_finite()) {
            outcome = IpmOutcome::NonFiniteStep;
            break;
        }
        if iter == prm.max_iter {
            break;
        }
        if !nt_ready {
            nesterov_todd(ws, form);
        }
        // §11.2: the proximal term vanishes by 10× per iteration, down to 1e-10·V/P.
        let prox = if prm.proximal_regularization > 0.0 {
            (prm.proximal_regularization * 0.1f64.powi(iter.min(400) as i32)).max(1e-10) * vscale / pscale
        } else {
            0.0
        };
        {
            let mut data = system_data!(ws, &ws.nt[..21 * nc]);
            data.shift_normal = prox;
            data.shift_tangent = prox;
            ws.newton.factor(prm.newton_solve, &data, form, &ws.s[..kt], &ws.g[..kt], 0.0);
        }
        // Predictor (κ = 0).
        build_rhs(&ws.r[..big], &ws.e[..kt], n, kt, 0.0, &mut ws.daff[..big]);
        let Some(alpha_aff) = nt_solve(ws, form, 0.0, NewtonBuf::Affine, 1.0) else {
            outcome = IpmOutcome::NonFiniteStep;
            break;
        };
        let (ds, dg) = ws.daff[n..big].split_at(kt);
        // Mehrotra centring σ = (ν_aff/ν)³ and corrector with the same factorization.
        let kappa = if degree > 0.0 {
            let (at0, at) = duality_pair(&ws.s[..kt], &ws.g[..kt], ds, dg, alpha_aff);
            let (nu, nu_aff) = (at0 / degree, at / degree);
            (nu_aff / nu).clamp(0.0, 1.0).powi(3) * nu
        } else {
            0.0
        };
        build_rhs(&ws.r[..big], &ws.e[..kt], n, kt, kappa, &mut ws.delta[..big]);
        {
            let (dsa, dga) = ws.daff[n..big].split_at(kt);
            let rc = &mut ws.delta[n..n + kt];
            for (&m, &off) in ws.models.iter().zip(&ws.offsets) {
                by_model(
                    m,
                    #[inline(always)]
                    |m| {
                        for j in off..off + m.orthant_len() {
                            rc[j] -= dsa[j] * dga[j];
                        }
                    },
                );
            }
        }
        let Some(mut alpha) = nt_solve(ws, form, kappa, NewtonBuf::Delta, FRACTION_TO_BOUNDARY) else {
            outcome = IpmOutcome::NonFiniteStep;
            break;
        };
        // §11.2: Gondzio's centrality correctors on the same factorization, each kept only if it
        // lengthens the step.
        for _ in 0..prm.centrality_correctors {
            // κ can round to ≤ 0 (or NaN) on degenerate data: then there is no band to centre in.
            if alpha >= 1.0 || !(kappa > 0.0) {
                break;
            }
            centrality_rhs(ws, kappa, (alpha + CORRECTOR_TRIAL).min(1.0));
            solve_newton(ws, form, NewtonBuf::Affine);
            for ((c, &d), &dc) in ws.scratch[..big].iter_mut().zip(&ws.delta[..big]).zip(&ws.daff[..big]) {
                *c = d + dc;
            }
            if !all_finite(&ws.scratch[..big]) {
                break;
            }
            let (ds, dg) = ws.scratch[n..big].split_at(kt);
            let corrected = cone_search(ws, ds, dg, FRACTION_TO_BOUNDARY);
            if corrected < alpha + CORRECTOR_MIN_GAIN {
                break;
            }
            std::mem::swap(&mut ws.delta, &mut ws.scratch);
            alpha = corrected;
            ws.stats.centrality_correctors += 1;
        }
        // Neighbourhood safeguard: halve the step while a pair leaves the neighbourhood.
        let mut step = alpha;
        let mut accepted = false;
        // The residual at the last candidate tried, when the test computed it on the way.
        let mut cand = None;
        for _ in 0..prm.max_ls {
            for ((c, &x), &d) in ws.vc[..n].iter_mut().zip(&ws.v[..n]).zip(&ws.delta[..n]) {
                *c = x + step * d;
            }
            for ((c, &x), &d) in ws.sc[..kt].iter_mut().zip(&ws.s[..kt]).zip(&ws.delta[n..n + kt]) {
                *c = x + step * d;
            }
            for ((c, &x), &d) in ws.gc[..kt].iter_mut().zip(&ws.g[..kt]).zip(&ws.delta[n + kt..big]) {
                *c = x + step * d;
            }
            let inside = match neighbourhood_and_residual(ws, form, p, degree) {
                Some((inside, viol)) => {
                    cand = Some(viol);
                    inside
                }
                None => in_neighbourhood(ws, form, degree),
            };
            if inside {
                accepted = true;
                break;
            }
            step *= 0.5;
        }
        if !accepted {
            ws.stats.line_search_exhausted += 1;
        }
        nt_ready = accepted && degree > 0.0;
        if nt_ready {
            std::mem::swap(&mut ws.nt, &mut ws.nt_c);
        }
        let cand = match cand {
            Some(viol) => viol,
            None => ws.residual_at(form, p, 0.0, true),
        };
        ws.commit_candidate();
        viol = cand;
        iter += 1;
        ws.stats.iterations = iter;
        ws.stats.kappa = kappa;
        ws.kappa_history.push(kappa);
        ws.alpha_history.push(step);
        ws.rvio_history.push(viol.rvio);
        ws.bvio_history.push(viol.bvio);
        let (res, comp) = measures(&viol, pscale, vscale);
        if nm_tol > 0.0 {
            nm = natural_map(ws, form, pscale, vscale);
        }
        // §11.9: once the natural map is small the modes are known; a candidate that passes the
        // convergence test ends the solve, a failed one leaves the iterate as it was.
        if polish_left > 0 && nm <= exact::POLISH_FROM {
            exact::modes_from_iterate(ws, vscale / exact::impulse_scale(ws, pscale));
            if !ws.exact.same_as_tried() {
                polish_left -= 1;
                ws.vc[..n].copy_from_slice(&ws.v[..n]);
                ws.sc[..kt].copy_from_slice(&ws.s[..kt]);
                ws.gc[..kt].copy_from_slice(&ws.g[..kt]);
                ws.rc[..big].copy_from_slice(&ws.r[..big]);
                // The candidate, and once more with the modes its own answer contradicts.
                let mut found = None;
                for attempt in 0..2 {
                    if (attempt == 1 && !exact::correct_modes(ws, vscale)) || !exact::candidate(ws, p, form) {
                        break;
                    }
                    let cv = ws.residual_at(form, p, 0.0, false);
                    let (cr, cc) = measures(&cv, pscale, vscale);
                    let cn = natural_map(ws, form, pscale, vscale);
                    if converged(cr, cc, cn) {
                        found = Some((cv, cn));
                        break;
                    }
                }
                if let Some((cv, cn)) = found {
                    viol = cv;
                    nm = cn;
                    outcome = IpmOutcome::Converged;
                    break;
                }
                std::mem::swap(&mut ws.v, &mut ws.vc);
                std::mem::swap(&mut ws.s, &mut ws.sc);
                std::mem::swap(&mut ws.g, &mut ws.gc);
                std::mem::swap(&mut ws.r, &mut ws.rc);
            }
        }
        let mt = merit(res, comp, nm);
        if mt < best {
            best = mt;
            best_viol = viol;
            best_nm = nm;
            save_best(ws);
        }
        // §11.2: the stall exit.
        if best < STALL_PROGRESS * progress_ref {
            progress_ref = best;
            progress_iter = iter;
        }
        small_steps = if step < SMALL_STEP { small_steps + 1 } else { 0 };
        if prm.stall_iterations > 0
            && (iter - progress_iter >= prm.stall_iterations || small_steps >= SMALL_STEP_COUNT)
        {
            stalled = true;
            break;
        }
    }
    if outcome != IpmOutcome::Converged {
        ws.v[..n].copy_from_slice(&ws.best_v[..n]);
        ws.s[..kt].copy_from_slice(&ws.best_s[..kt]);
        ws.g[..kt].copy_from_slice(&ws.best_g[..kt]);
        viol = best_viol;
        nm = best_nm;
    }
    if nm_tol == 0.0 {
        if outcome != IpmOutcome::Converged {
            // The residual of the best iterate (the same function of the same numbers as when
            // it was evaluated in the loop), for its natural map.
            ws.residual_at(form, p, 0.0, false);
        }
        nm = natural_map(ws, form, pscale, vscale);
    }
    let (res, comp) = measures(&viol, pscale, vscale);
    if outcome != IpmOutcome::Converged {
        if merit(res, comp, nm) <= ALMOST {
            outcome = IpmOutcome::AlmostConverged;
        } else if stalled {
            outcome = IpmOutcome::Stalled;
        }
    }
    ws.stats.rvio = viol.rvio;
    ws.stats.bvio = viol.bvio;
    ws.stats.residual = res;
    ws.stats.complementarity = comp;
    ws.stats.merit = merit(res, comp, nm);
    ws.stats.natural_map = nm;
    outcome
}

/// Gondzio corrector right-hand side (§11.2) into `ws.daff`: zero momentum and equality rows;
/// each pair's product at the trial step `at` along `ws.delta` is moved into the band
/// `[0.1·κ, 10·κ]`, a large product by at most `10·κ` (orthant: entrywise; second-order cone: the
/// eigenvalues of the Nesterov–Todd scaled product `(Wξ)∘(W⁻¹η)`, mapped back by `Arw(λ)⁻¹`).
#[inline(always)]
fn centrality_rhs(ws: &mut IpmWorkspace, kappa: f64, at: f64) {
    let (n, kt) = (ws.n, ws.k_total);
    let big = n + 2 * kt;
    let (lo, hi) = (CORRECTOR_BAND.0 * kappa, CORRECTOR_BAND.1 * kappa);
    // max/min, not clamp: clamp panics on a NaN or inverted band, and no panic may reach the
    // C ABI (the caller skips correctors unless κ > 0, so the band is ordered here).
    let correction = |p: f64| (p.max(lo).min(hi) - p).max(-hi);
    // Every complementarity entry is written below: zero the momentum and equality rows only.
    ws.daff[..n].fill(0.0);
    ws.daff[n + kt..big].fill(0.0);
    for (i, (&m, &off)) in ws.models.iter().zip(&ws.offsets).enumerate() {
        for j in off..off + m.orthant_len() {
            let st = ws.s[j] + at * ws.delta[n + j];
            let gt = ws.g[j] + at * ws.delta[n + kt + j];
            ws.daff[n + j] = correction(st * gt);
        }
        if m != ContactModel::SecondOrderCone {
            continue;
        }
        let d = &ws.nt[21 * i..21 * i + 21];
        let w: &[f64; 9] = d[..9].try_into().expect("9 entries");
        let wi: &[f64; 9] = d[9..18].try_into().expect("9 entries");
        let mut eta = [0.0; 3];
        let mut xi = [0.0; 3];
        for a in 0..3 {
            eta[a] = ws.s[off + 1 + a] + at * ws.delta[n + off + 1 + a];
            xi[a] = ws.g[off + 1 + a] + at * ws.delta[n + kt + off + 1 + a];
        }
        let mut p = [0.0; 3];
        cone::soc_product(&cone::mat3_vec(w, &xi), &cone::mat3_vec(wi, &eta), &mut p);
        // Spectral decomposition p = λ1 (1, −u)/2 + λ2 (1, u)/2.
        let norm = p[1].hypot(p[2]);
        let u = if norm > 0.0 { [p[1] / norm, p[2] / norm] } else { [1.0, 0.0] };
        let (c1, c2) = (correction(p[0] - norm), correction(p[0] + norm));
        let c = [(c1 + c2) / 2.0, (c2 - c1) / 2.0 * u[0], (c2 - c1) / 2.0 * u[1]];
        let a = cone::arrow_solve(&d[18..21], &c);
        ws.daff[n + off + 1..n + off + 4].copy_from_slice(&a);
    }
}

#[cfg(test)]
mod tests {
    use super::pushed_by_mode;

    #[test]
    fn the_warm_start_keeps_the_variable_the_previous_mode_has_inside() {
        let (p, v) = (2.0, 0.5); // P (N·s), V (m/s)
        // Separated gap: slack well inside, impulse at 0 -> only the impulse is pushed.
        assert_eq!(pushed_by_mode(0.3, 0.0, p, v), (false, true));
        // Touching gap / sticking friction pair: impulse inside, slack at 0 -> only the slack.
        assert_eq!(pushed_by_mode(1e-9, 0.5, p, v), (true, false));
        // Sliding friction pair (both on the boundary), or both inside: both, as before.
        assert_eq!(pushed_by_mode(1e-9, 1e-9, p, v), (true, true));
        assert_eq!(pushed_by_mode(0.3, 0.5, p, v), (true, true));
        // The thresholds are a tenth of each scale.
        assert_eq!(pushed_by_mode(0.049, 0.0, p, v), (true, true));
        assert_eq!(pushed_by_mode(0.05, 0.0, p, v), (false, true));
    }
}
