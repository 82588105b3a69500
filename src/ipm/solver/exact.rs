//! Exact candidates of the tight setting (`docs/ipm.md` §11.9, [`IpmParameters::tight`]).
//!
//! An interior point reaches a solution only in the limit: a contact whose impulse and velocity
//! both vanish at the solution (weakly active; `NESpheres_30_1` has 41 of 44) is approached at
//! the rate √κ, so a natural-map error of 1e-10 costs a long tail of iterations. But once every
//! contact's mode is known (separated, sticking, or sliding in a known direction) the solution is
//! that of one linear system, the KKT system of the modes:
//!
//! ```text
//! [ M     −J_Aᵀ B ] [ v   ]   [ p* ]        p* = M v0 + hτ
//! [ C J_A    0    ] [ r_A ] = [ −C w_A ]    w = (φ/h, tangential offsets)
//! ```
//!
//! where a sticking contact contributes its three impulse components and the three rows `u = 0`,
//! a sliding one its normal impulse `r_n` (the impulse `r_n·(1, μ t̂)` along the friction
//! direction `t̂` of the iterate) and the row `u_n = 0`, a separated one nothing. One dense LU of
//! size `n + m_A` ([`MAX_GROWTH`] bounds `m_A`) gives a candidate; the engine accepts it only if
//! it passes the same convergence test as an iterate (residual, complementarity, natural map), so
//! a wrong guess costs one factorization and changes nothing.
//!
//! Tried (1) before the first iteration, with the modes of the free velocity `M⁻¹p*` (a contact
//! that approaches sticks, the others separate): a problem whose contacts all separate is then
//! solved by the factorization of M alone (`m_A = 0`, no LU), and one whose first guess is right
//! by one more; (2) during the iteration, when the natural-map error is small enough for the modes
//! to be identified ([`POLISH_FROM`]) and the modes changed since the last try, at most
//! [`MAX_POLISH`] times. The iteration continues from its own iterate when a candidate fails:
//! nothing restarts.

use crate::ipm::form::{DelassusBlocks, Form};
use crate::ipm::iteration::{IpmWorkspace, Mode};
use crate::ipm::{ContactModel, IpmProblem};
use crate::linalg::{BLOCK_SPARSE_MIN_DIM, padded_dim, try_grow};

/// A candidate is formed only while `m_A ≤ MAX_GROWTH·n` (its LU then costs at most `(1 +
/// MAX_GROWTH)³` factorizations of an n×n matrix, about one condensed Newton assembly of a dense
/// problem).
const MAX_GROWTH: usize = 2;
/// Scaled natural-map error (§11.8) below which the iterate's modes are trusted for a candidate.
pub(super) const POLISH_FROM: f64 = 1e-5;
/// Candidates tried during one iteration at most.
pub(super) const MAX_POLISH: usize = 4;

/// Linear solves of one candidate at most (the first, then Newton steps on the sliding
/// contacts' friction directions, which converge quadratically from an identified mode).
const MAX_NEWTON: usize = 8;
/// Modes from the free velocity `ws.v_free`: approaching contacts stick, the others separate.
/// Returns whether every contact separates.
#[inline(always)]
pub(super) fn modes_from_free_velocity<F: Form>(ws: &mut IpmWorkspace, form: &F) -> bool {
    let n = ws.n;
    ws.exact.modes.clear();
    let mut all_separate = true;
    for (i, &m) in ws.models.iter().enumerate() {
        let dirs = if m == ContactModel::Impact { 1 } else { 3 };
        let un = form.contact_velocity(i, dirs, &ws.v_free[..n])[0] + ws.phi_eff[i];
        let mode = if un >= 0.0 { Mode::Separated } else { Mode::Sticking };
        all_separate &= mode == Mode::Separated;
        ws.exact.modes.push(mode);
    }
    all_separate
}

/// The impulse scale of the modes' test: the momentum scale `P`, or the largest normal impulse
/// of the iterate when that is smaller. `P = max(‖p*‖∞, max_j M_jj·V)` can exceed every impulse
/// by orders of magnitude when M's diagonal and the free velocity are large in different
/// directions (`GFC3D_Example00_badly_scaled`: M = diag(1e-4, 1, 1e4), P = 1e8 with impulses of
/// 0.1–1), and a resting contact's small separating velocity then looked larger than its
/// impulse in velocity units: a wrong mode, a failed candidate (`docs/ipm.md` §11.9).
pub(super) fn impulse_scale(ws: &IpmWorkspace, pscale: f64) -> f64 {
    let gmax = ws.offsets.iter().fold(0.0f64, |a, &off| a.max(ws.g[off]));
    if gmax > 0.0 && gmax.is_finite() { pscale.min(gmax) } else { pscale }
}

/// Modes from the iterate `(ws.s, ws.g)` with `c = V/P` (impulses in velocity units, `P` from
/// [`impulse_scale`]): a contact
/// whose separating velocity exceeds its scaled impulse separates; otherwise it sticks if its slip
/// velocity is below its scaled friction margin `c·(μγ_n − ‖ξ̄‖)`, and slides in the direction of
/// its slip velocity if not.
pub(super) fn modes_from_iterate(ws: &mut IpmWorkspace, c: f64) {
    ws.exact.modes.clear();
    for (i, (&m, &off)) in ws.models.iter().zip(&ws.offsets).enumerate() {
        let (s, g) = (&ws.s[off..], &ws.g[off..]);
        let mode = if s[0] > c * g[0] {
            Mode::Separated
        } else if m == ContactModel::Impact {
            Mode::Sticking
        } else {
            let (slip, friction) = (s[2].hypot(s[3]), g[2].hypot(g[3]));
            if slip <= c * (ws.mu[i] * g[0] - friction) || slip == 0.0 {
                Mode::Sticking
            } else {
                Mode::Sliding([s[2] / slip, s[3] / slip, ws.mu[i] * g[0] / slip])
            }
        };
        ws.exact.modes.push(mode);
    }
}

/// After a failed candidate (its point in `ws.s`, `ws.g`; the iterate it came from in `ws.sc`):
/// changes the modes that its own answer contradicts, an active set step: an active contact
/// whose normal impulse pulls separates, a separated one that penetrates sticks, a sticking one
/// whose impulse leaves the cone slides against that impulse (at the iterate's slip speed, at
/// least `1e-8·V`). Returns whether any mode changed.
pub(super) fn correct_modes(ws: &mut IpmWorkspace, vscale: f64) -> bool {
    let mut changed = false;
    for (i, (&m, &off)) in ws.models.iter().zip(&ws.offsets).enumerate() {
        let (s, g) = (&ws.s[off..], &ws.g[off..]);
        let new = match ws.exact.modes[i] {
            Mode::Separated if s[0] < 0.0 => Some(Mode::Sticking),
            Mode::Sticking | Mode::Sliding(_) if g[0] < 0.0 => Some(Mode::Separated),
            Mode::Sticking if m == ContactModel::SecondOrderCone => {
                let friction = g[2].hypot(g[3]);
                (friction > ws.mu[i] * g[0]).then(|| {
                    let slip = ws.sc[off + 2].hypot(ws.sc[off + 3]).max(1e-8 * vscale);
                    Mode::Sliding([-g[2] / friction, -g[3] / friction, ws.mu[i] * g[0] / slip])
                })
            }
            _ => None,
        };
        if let Some(mode) = new {
            ws.exact.modes[i] = mode;
            changed = true;
        }
    }
    changed
}

/// Writes the candidate of the current modes into `ws.v`, `ws.s`, `ws.g` (the caller evaluates
/// it). `ws.p_star` must hold `p*` (the engine's scales leave it there). Returns false, writing
/// nothing, when the system would be too large (see [`MAX_GROWTH`]) or its solution is not
/// finite. Supports the second-order-cone and impact models only (the caller checks).
#[inline(always)]
pub(super) fn candidate<F: Form>(ws: &mut IpmWorkspace, p: &IpmProblem<'_>, form: &F) -> bool {
    let n = ws.n;
    ws.exact.tried.clear();
    let modes = std::mem::take(&mut ws.exact.modes);
    ws.exact.tried.extend_from_slice(&modes);
    ws.exact.modes = modes;
    let dims = |m: &Mode, model: ContactModel| match (m, model) {
        (Mode::Separated, _) => 0,
        (_, ContactModel::Impact) => 1,
        _ => 3,
    };
    let ma: usize = ws.exact.modes.iter().zip(&ws.models).map(|(m, &model)| dims(m, model)).sum();
    if ma > MAX_GROWTH * n {
        return false;
    }
    let size = n + ma;
    let sliding = ws.exact.modes.iter().any(|m| matches!(m, Mode::Sliding(_)));
    for _ in 0..if sliding { MAX_NEWTON } else { 1 } {
        if !solve_modes(ws, p, form, size) {
            return false;
        }
        // Newton on the sliding contacts: relinearize at the new slip; done when no direction
        // moves.
        let mut moved: f64 = 0.0;
        let mut at = n;
        for i in 0..ws.nc {
            let d = dims(&ws.exact.modes[i], ws.models[i]);
            if let Mode::Sliding(old) = ws.exact.modes[i] {
                let u = form.contact_velocity(i, 3, &ws.exact.rhs[..n]);
                let o = p.vt_offset.as_ref().map_or([0.0; 2], |o| [o[2 * i], o[2 * i + 1]]);
                let ut = [u[1] + o[0], u[2] + o[1]];
                let slip = ut[0].hypot(ut[1]);
                if slip > 0.0 {
                    let t = [ut[0] / slip, ut[1] / slip];
                    moved = moved.max((t[0] - old[0]).abs()).max((t[1] - old[1]).abs());
                    ws.exact.modes[i] = Mode::Sliding([t[0], t[1], ws.mu[i] * ws.exact.rhs[at] / slip]);
                }
            }
            at += d;
        }
        if moved <= 1e-15 {
            break;
        }
    }
    let ex = &ws.exact;
    ws.v[..n].copy_from_slice(&ex.rhs[..n]);
    let mut at = n;
    for (i, (&model, &off)) in ws.models.iter().zip(&ws.offsets).enumerate() {
        let dirs = if model == ContactModel::Impact { 1 } else { 3 };
        let mut u = form.contact_velocity(i, dirs, &ws.v[..n]);
        u[0] += ws.phi_eff[i];
        if let (Some(o), 3) = (&p.vt_offset, dirs) {
            u[1] += o[2 * i];
            u[2] += o[2 * i + 1];
        }
        let d = dims(&ex.modes[i], model);
        let mut r = [0.0; 3];
        r[..d].copy_from_slice(&ex.rhs[at..at + d]);
        at += d;
        let (s, g) = (&mut ws.s[off..off + model.dim()], &mut ws.g[off..off + model.dim()]);
        s[0] = u[0];
        g[0] = r[0];
        if model == ContactModel::SecondOrderCone {
            s[1] = u[1].hypot(u[2]);
            s[2] = u[1];
            s[3] = u[2];
            g[1] = ws.mu[i] * r[0];
            g[2] = r[1];
            g[3] = r[2];
        }
    }
    true
}

/// Assembles, factors and solves the KKT system of the modes (module docs) of size `size`; the
/// solution `[v | r_A]` is left in `ws.exact.rhs`. False when it is not finite.
#[inline(always)]
fn solve_modes<F: Form>(ws: &mut IpmWorkspace, p: &IpmProblem<'_>, form: &F, size: usize) -> bool {
    let n = ws.n;
    // The Delassus form's system has `size − n` unknowns (its own storage below).
    let delassus = form.delassus_blocks().is_some();
    let ex = &mut ws.exact;
    // Grown here, the first time a candidate of this size is tried: a refused allocation is a
    // candidate not tried (the iteration goes on), never an abort.
    let grown = try_grow(&mut ex.rhs, size, 0.0)
        .and_then(|()| try_grow(&mut ex.tmp, size, 0.0))
        .and_then(|()| try_grow(&mut ex.col, 3 * n, 0.0))
        .and_then(|()| if size == n || delassus { Ok(()) } else { ex.lu.try_reserve(size) });
    if grown.is_err() {
        return false;
    }
    if size == n {
        // Every contact separates: the free velocity, already solved by the scales.
        ex.rhs[..n].copy_from_slice(&ws.v_free[..n]);
        return ex.rhs[..n].iter().all(|x| x.is_finite());
    }
    if let Some(w) = form.delassus_blocks() {
        return solve_modes_delassus(ws, p, form, w, size - n);
    }
    let mut k = ex.lu.padded_matrix_mut(size);
    k.fill(0.0);
    // M, column by column (one unit product each).
    for j in 0..n {
        ex.col[..n].fill(0.0);
        ex.col[j] = 1.0;
        ex.tmp[..n].fill(0.0);
        form.add_mass_product(&ex.col[..n], &mut ex.tmp[..n]);
        for r in 0..n {
            k[(r, j)] = ex.tmp[r];
        }
    }
    let mut at = n;
    for (i, (mode, &model)) in ex.modes.iter().zip(&ws.models).enumerate() {
        if *mode == Mode::Separated {
            continue;
        }
        let dirs = if model == ContactModel::Impact { 1 } else { 3 };
        let w = |a: usize| match a {
            0 => ws.phi_eff[i],
            _ => p.vt_offset.as_ref().map_or(0.0, |o| o[2 * i + a - 1]),
        };
        // The rows of J_i (J_iᵀ e_a, negated by sub_contact_impulse) into ex.col.
        for a in 0..dirs {
            let mut e = [0.0; 3];
            e[a] = 1.0;
            let row = &mut ex.col[a * n..(a + 1) * n];
            row.fill(0.0);
            form.sub_contact_impulse(i, dirs, &e, row);
            // Column of r_a: −J_iᵀ e_a.
            for (r, &x) in row.iter().enumerate() {
                k[(r, at + a)] = x;
            }
        }
        match *mode {
            Mode::Sliding([t0, t1, c]) => {
                // u_n = 0, then r_t + μ r_n t + c (I − t tᵀ)(J_t v + o) = 0.
                for col in 0..n {
                    k[(at, col)] = -ex.col[col];
                }
                let pm = [[1.0 - t0 * t0, -t0 * t1], [-t0 * t1, 1.0 - t1 * t1]];
                for b in 0..2 {
                    for col in 0..n {
                        k[(at + 1 + b, col)] =
                            -c * (pm[b][0] * ex.col[n + col] + pm[b][1] * ex.col[2 * n + col]);
                    }
                    k[(at + 1 + b, at + 1 + b)] = 1.0;
                    k[(at + 1 + b, at)] = ws.mu[i] * [t0, t1][b];
                    ex.rhs[at + 1 + b] = -c * (pm[b][0] * w(1) + pm[b][1] * w(2));
                }
                ex.rhs[at] = -w(0);
            }
            _ => {
                // u = J_i v + w = 0.
                for a in 0..dirs {
                    for col in 0..n {
                        k[(at + a, col)] = -ex.col[a * n + col];
                    }
                    ex.rhs[at + a] = -w(a);
                }
            }
        }
        at += dirs;
    }
    ex.rhs[..n].copy_from_slice(&ws.p_star[..n]);
    ex.lu.factor();
    ex.lu.solve_in_place(&mut ex.rhs[..size], &mut ex.tmp[..size]);
    ex.rhs[..size].iter().all(|x| x.is_finite())
}

/// The KKT system of the modes for the Delassus form (`M = I`, `J = I`, `W` in the momentum
/// rows; `form/delassus.rs`), with `v = p* + W r` eliminated: `ma` unknowns `r_A` and, per active
/// contact, the rows of its mode with `u_i = (p* + W r)_i + w_i` (sticking `u_i = 0`, sliding
/// `u_n = 0` and `r_t + μ r_n t + c (I − t tᵀ) u_t = 0`). Its matrix has `W`'s block pattern
/// restricted to the active contacts: sparse LU when `W` is block-sparse and the system is
/// large (the restricted pivoting's failure, e.g. a singular `W_AA`, is a candidate not
/// tried), dense LU otherwise. Leaves `[v | r_A]` in `ws.exact.rhs` like [`solve_modes`].
#[inline(always)]
fn solve_modes_delassus<F: Form>(
    ws: &mut IpmWorkspace,
    p: &IpmProblem<'_>,
    form: &F,
    w: DelassusBlocks<'_>,
    ma: usize,
) -> bool {
    let (n, nc) = (ws.n, ws.nc);
    let ex = &mut ws.exact;
    let grown = try_grow(&mut ex.pos, nc, 0).and_then(|()| try_grow(&mut ex.at, nc, 0));
    if grown.is_err() {
        return false;
    }
    ex.dims.clear();
    let mut at = 0;
    for (i, (mode, &model)) in ex.modes.iter().zip(&ws.models).enumerate() {
        ex.at[i] = at;
        if *mode == Mode::Separated {
            ex.pos[i] = usize::MAX;
            continue;
        }
        let d = if model == ContactModel::Impact { 1 } else { 3 };
        ex.pos[i] = ex.dims.len();
        if ex.dims.try_reserve(1).is_err() {
            return false;
        }
        ex.dims.push(d);
        at += d;
    }
    let na = ex.dims.len();
    ex.pairs.clear();
    for j in 0..nc {
        if ex.pos[j] == usize::MAX {
            continue;
        }
        for k in w.col_ptr[j]..w.col_ptr[j + 1] {
            let i = w.rows[k];
            if i != j && ex.pos[i] != usize::MAX {
                if ex.pairs.try_reserve(1).is_err() {
                    return false;
                }
                ex.pairs.push((ex.pos[i], ex.pos[j]));
            }
        }
    }
    let sparse = ma >= BLOCK_SPARSE_MIN_DIM && 2 * ex.pairs.len() + na <= na * na / 2;
    if sparse {
        let lu = ex.sparse.get();
        if lu.analyze(&ex.dims, &ex.pairs).is_err() {
            return false;
        }
        lu.clear_values();
    } else {
        if ex.lu.try_reserve(ma).is_err() {
            return false;
        }
        // In the LU's padded layout (no repacking before the factorization, issue 30 item 5).
        ex.lu.padded_storage_mut(ma).fill(0.0);
    }
    let ld = padded_dim(ma);
    let wv = |i: usize, a: usize| match a {
        0 => ws.phi_eff[i],
        _ => p.vt_offset.as_ref().map_or(0.0, |o| o[2 * i + a - 1]),
    };
    // Right-hand side: −(p* + w) through each row's mode.
    let rhs = &mut ex.rhs[n..n + ma];
    for (i, mode) in ex.modes.iter().enumerate() {
        let (r0, u) = (ex.at[i], |a: usize| ws.p_star[3 * i + a] + wv(i, a));
        match *mode {
            Mode::Separated => {}
            Mode::Sliding([t0, t1, c]) => {
                let pm = [[1.0 - t0 * t0, -t0 * t1], [-t0 * t1, 1.0 - t1 * t1]];
                rhs[r0] = -u(0);
                for b in 0..2 {
                    rhs[r0 + 1 + b] = -c * (pm[b][0] * u(1) + pm[b][1] * u(2));
                }
            }
            Mode::Sticking => {
                for a in 0..ex.dims[ex.pos[i]] {
                    rhs[r0 + a] = -u(a);
                }
            }
        }
    }
    // Matrix, block by block: rows of contact i, columns of r_j.
    for j in 0..nc {
        if ex.pos[j] == usize::MAX {
            continue;
        }
        let dj = ex.dims[ex.pos[j]];
        for k in w.col_ptr[j]..w.col_ptr[j + 1] {
            let i = w.rows[k];
            if ex.pos[i] == usize::MAX {
                continue;
            }
            let di = ex.dims[ex.pos[i]];
            let wb = &w.vals[9 * k..9 * k + 9];
            // Local block (di × dj, column-major with leading dimension 3).
            let mut b = [0.0; 9];
            match ex.modes[i] {
                Mode::Sliding([t0, t1, c]) => {
                    let pm = [[1.0 - t0 * t0, -t0 * t1], [-t0 * t1, 1.0 - t1 * t1]];
                    for a in 0..dj {
                        b[3 * a] = wb[3 * a];
                        for r in 0..2 {
                            b[1 + r + 3 * a] = c * (pm[r][0] * wb[1 + 3 * a] + pm[r][1] * wb[2 + 3 * a]);
                        }
                    }
                    if i == j {
                        for r in 0..2 {
                            b[1 + r + 3 * (1 + r)] += 1.0;
                            b[1 + r] += ws.mu[i] * [t0, t1][r];
                        }
                    }
                }
                _ => {
                    for a in 0..dj {
                        for r in 0..di {
                            b[r + 3 * a] = wb[r + 3 * a];
                        }
                    }
                }
            }
            if sparse {
                let Ok((blk, rs, cs)) = ex.sparse.get().block_slice_mut(ex.pos[i], ex.pos[j]) else {
                    return false;
                };
                for a in 0..dj {
                    for r in 0..di {
                        blk[r * rs + a * cs] += b[r + 3 * a];
                    }
                }
            } else {
                let kmat = ex.lu.padded_storage_mut(ma);
                for a in 0..dj {
                    let col = &mut kmat[(ex.at[j] + a) * ld + ex.at[i]..(ex.at[j] + a) * ld + ex.at[i] + di];
                    for (x, &y) in col.iter_mut().zip(&b[3 * a..3 * a + di]) {
                        *x += y;
                    }
                }
            }
        }
    }
    let rhs = &mut ex.rhs[n..n + ma];
    if sparse {
        let lu = ex.sparse.get();
        if lu.factor().is_err() || lu.solve_in_place(rhs).is_err() {
            return false;
        }
    } else {
        ex.lu.factor();
        ex.lu.solve_in_place(rhs, &mut ex.tmp[..ma]);
    }
    // v = p* + W r_A.
    ex.rhs[..n].copy_from_slice(&ws.p_star[..n]);
    for j in 0..nc {
        if ex.pos[j] == usize::MAX {
            continue;
        }
        let (r0, dj) = (n + ex.at[j], ex.dims[ex.pos[j]]);
        let mut neg = [0.0; 3];
        for (x, &r) in neg.iter_mut().zip(&ex.rhs[r0..r0 + dj]) {
            *x = -r;
        }
        form.sub_contact_impulse(j, dj, &neg, &mut ex.rhs[..n]);
    }
    ex.rhs[..n + ma].iter().all(|x| x.is_finite())
}
