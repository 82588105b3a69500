//! The pivoting core (`docs/baraff.md` §3, §4, §6): Dantzig/Baraff "drive to zero" on a given
//! `a = A f + b`, with static friction tied to its normal, boxed rows, the full event table of
//! §3.5 and the cycling safeguards of §6.
//!
//! Row order (§3.2, fixed and deterministic): the sticking contact of a consistency impulse (its
//! normal, then its friction rows) when there is one, then bilateral rows by index, boxed rows
//! by index, unilateral normals by most negative current `a` (ties: lowest index), friction rows
//! by index.
//!
//! Deliberate choices where the spec leaves room (all deterministic):
//! * No pre-emptive deferral of a row whose Schur pivot is singular (myPhysicsLab defers before
//!   driving): its goal event is not a candidate (it could not join the clamped set), but the
//!   other events may still exchange rows.
//! * When no event limits the step (§3.3), the row is not reported as a ray at once: it is
//!   deferred (`R`, force kept; a friction row that carries force is *held*, tied to its normal
//!   at its current share so it stays in its cone) and re-treated after all other rows (§6).
//!   Only if the re-treatment meets a ray again is the outcome an unbounded ray (B5 still is).
//! * A friction row being driven also stops when its cone shrinks onto it from the other side
//!   (normal force falling faster than the row moves, an event the §3.5 table does not list); it
//!   is then locked at that bound and re-treated like the rows of safeguard 3.
//! * A friction row whose normal has zero force goes straight to `S±` only if the normal is not
//!   clamped (a clamped normal with zero force can still gain force, which the §7 sticking
//!   impulse needs).
//! * Re-treated friction rows stay tied to their normals (at their current share) until their
//!   turn comes, so that earlier re-drives cannot push them out of their cones.
//! * Ties between events: `d`'s goal, then `d`'s bounds, then other rows by index (strictly
//!   smaller step wins).
//! * Optional second attempt with the friction rows in decreasing index order
//!   ([`BaraffParameters::reverse_retry`]).

use nalgebra::DMatrixView;

use super::verify::{Scales, worst_violation};
use super::{BaraffOutcome, BaraffParameters, RowKind, RowSet};
use crate::linalg::UpdatableQr;

/// Internal row sets (§3.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum St {
    #[default]
    U,
    C,
    Nc,
    /// Friction at `+μ f_n` or boxed at `hi`.
    Sp,
    /// Friction at `−μ f_n` or boxed at `lo`.
    Sn,
    R,
    Lp,
    Ln,
    /// Deferred friction row that carries force: held at a fixed ratio of its normal's force
    /// (so it stays in its cone), sign condition not monitored.
    H,
}

impl St {
    /// The friction row follows its normal's force in this set.
    fn tied(self) -> bool {
        matches!(self, St::Sp | St::Lp | St::Sn | St::Ln | St::H)
    }

    fn public(self) -> RowSet {
        match self {
            St::U => RowSet::Untreated,
            St::C => RowSet::Clamped,
            St::Nc => RowSet::Separating,
            St::Sp => RowSet::AtUpper,
            St::Sn => RowSet::AtLower,
            St::R | St::H => RowSet::Deferred,
            St::Lp => RowSet::LockedUpper,
            St::Ln => RowSet::LockedLower,
        }
    }
}

/// Events of §3.5.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ev {
    /// `d` reached its goal → `C`.
    Goal,
    /// `d` (friction or boxed) reached its bound on the side of σ → `S^σ`.
    Bound,
    /// Friction `d`'s cone shrank onto it from the other side (its normal force falls faster
    /// than `d` moves) → locked `L^−σ`: `d` cannot be driven further here.
    OppositeBound,
    /// Clamped normal `j` lost its force → `NC`.
    LoseForce(usize),
    /// Separating normal `j` starts to press → `C`.
    Press(usize),
    /// Clamped friction/boxed `j` hits its upper bound → `S+`.
    ToUpper(usize),
    /// Clamped friction/boxed `j` hits its lower bound → `S−`.
    ToLower(usize),
    /// Saturated friction/boxed `j` stops accelerating → `C`.
    Release(usize),
}

/// Tolerances of one solve, absolute (scaled from the relative parameters).
#[derive(Debug, Clone, Copy, Default)]
struct Tols {
    scales: Scales,
    /// Acceleration comparisons.
    eps_a: f64,
    /// Δa candidacy.
    eps_da: f64,
    /// Δf candidacy (per unit driven force).
    eps_df: f64,
    /// Schur pivot (|Δa_d|, |R_jj|) below which a pivot is singular.
    piv: f64,
    /// Steps at or below this are zero-length (force units).
    zero_step: f64,
    /// Deferred/locked rows are re-treated only when violated by more than this (100·ε, §6).
    retreat_a: f64,
    /// Pivot cap.
    cap: usize,
}

/// Inputs of one pivoting solve.
pub(crate) struct CoreInput<'a, 'b> {
    /// `A` (m×m).
    pub a: DMatrixView<'a, f64>,
    /// `b` (m).
    pub b: &'b [f64],
    /// Decoded, validated rows (m).
    pub rows: &'b [RowKind],
    /// Normal row of the contact to treat as sticking (§7): processed first, clamped at zero
    /// force when its `a` is within ε of 0.
    pub sticking: Option<usize>,
}

/// State and workspace of the pivoting core (grow-only).
#[derive(Debug, Clone, Default)]
pub(crate) struct Core {
    m: usize,
    /// Forces (impulses).
    pub f: Vec<f64>,
    /// Accelerations (velocities) `A f + b`.
    pub a: Vec<f64>,
    /// Public set membership, written at the end of a solve.
    pub sets: Vec<RowSet>,
    df: Vec<f64>,
    da: Vec<f64>,
    st: Vec<St>,
    /// Zero-length transitions per row since the last positive step (§6 safeguard 1).
    flips: Vec<u8>,
    /// Tie coefficient `f_t / f_n` of a held friction row.
    ratio: Vec<f64>,
    /// Second attempt: friction rows in decreasing index order.
    reverse: bool,
    /// Held row waiting for its re-drive (it stays tied until its turn).
    redrive: Vec<bool>,
    /// Row was deferred because no event limited its drive (a ray if re-treatment fails).
    ray: Vec<bool>,
    /// The final re-treatment of deferred and locked rows is running.
    redriving: bool,
    /// Friction rows grouped by normal: those of normal `n` are
    /// `fric_idx[fric_ptr[n]..fric_ptr[n + 1]]`.
    fric_ptr: Vec<usize>,
    fric_idx: Vec<usize>,
    /// Every friction row, by index.
    fric_rows: Vec<usize>,
    next: Vec<usize>,
    /// Factorization of the clamped-set matrix `Acc` (rows: equations, columns: unknowns).
    qr: UpdatableQr,
    qr_rows: Vec<usize>,
    qr_cols: Vec<usize>,
    rhs: Vec<f64>,
    x: Vec<f64>,
    vbuf: Vec<f64>,
    /// Pivots of the current solve.
    pub pivots: usize,
    tol: Tols,
}

fn grow<T: Clone + Default>(v: &mut Vec<T>, len: usize) {
    if v.len() < len {
        v.resize(len, T::default());
    }
}

impl Core {
    /// Makes sure `m` rows need no further allocation.
    pub fn reserve(&mut self, m: usize) {
        for v in [
            &mut self.f,
            &mut self.a,
            &mut self.df,
            &mut self.da,
            &mut self.ratio,
            &mut self.rhs,
            &mut self.x,
            &mut self.vbuf,
        ] {
            grow(v, m);
        }
        grow(&mut self.sets, m);
        grow(&mut self.st, m);
        grow(&mut self.flips, m);
        grow(&mut self.ray, m);
        grow(&mut self.redrive, m);
        grow(&mut self.fric_ptr, m + 1);
        for v in
            [&mut self.fric_idx, &mut self.fric_rows, &mut self.next, &mut self.qr_rows, &mut self.qr_cols]
        {
            if v.capacity() < m {
                v.reserve(m - v.len());
            }
        }
        if self.qr.capacity() < m {
            self.qr.reserve(m);
        }
    }

    /// Sets the row count for results written from outside the pivoting (the §8 loop).
    pub fn set_rows(&mut self, m: usize) {
        self.reserve(m);
        self.m = m;
        self.pivots = 0;
    }

    /// Runs the whole algorithm; returns the outcome and the worst relative violation. When the
    /// first attempt does not verify and [`BaraffParameters::reverse_retry`] is set, a second
    /// attempt drives friction rows in decreasing index order (with friction the order decides
    /// success, §3.2); its result is the one reported, and the pivots of both count.
    pub fn run(&mut self, inp: &CoreInput, p: &BaraffParameters) -> (BaraffOutcome, f64) {
        let mut pivots = 0;
        let mut last = (BaraffOutcome::Solved, 0.0);
        for reverse in [false, true] {
            self.reverse = reverse;
            self.setup(inp, p);
            let result = self.drive_all(inp).and_then(|()| self.resolve_rejects(inp));
            let worst = self.finish(inp, p);
            pivots += self.pivots;
            let outcome = match result {
                Err(o) => o,
                Ok(()) if worst <= p.tolerance => BaraffOutcome::Solved,
                Ok(()) => BaraffOutcome::Inexact,
            };
            last = (outcome, worst);
            // Without two friction rows the reversed order is the same order.
            if outcome.is_solved() || p.reverse_retry == 0 || self.fric_rows.len() < 2 {
                break;
            }
        }
        self.pivots = pivots;
        last
    }

    fn setup(&mut self, inp: &CoreInput, p: &BaraffParameters) {
        let m = inp.rows.len();
        self.reserve(m);
        self.m = m;
        self.pivots = 0;
        self.f[..m].fill(0.0);
        self.a[..m].copy_from_slice(inp.b);
        self.st[..m].fill(St::U);
        self.flips[..m].fill(0);
        self.ray[..m].fill(false);
        self.redrive[..m].fill(false);
        self.redriving = false;
        self.qr.clear();
        self.qr_rows.clear();
        self.qr_cols.clear();

        // Normal → friction adjacency (counting sort by normal index).
        self.fric_ptr[..=m].fill(0);
        self.fric_rows.clear();
        for (i, k) in inp.rows.iter().enumerate() {
            if let RowKind::Friction { normal, .. } = *k {
                self.fric_ptr[normal + 1] += 1;
                self.fric_rows.push(i);
            }
        }
        for i in 0..m {
            self.fric_ptr[i + 1] += self.fric_ptr[i];
        }
        // Stable fill: rows of one normal stay in index order (`next` = next free slot).
        self.fric_idx.clear();
        self.fric_idx.resize(self.fric_rows.len(), 0);
        self.next.clear();
        self.next.extend_from_slice(&self.fric_ptr[..m]);
        for &t in &self.fric_rows {
            if let RowKind::Friction { normal, .. } = inp.rows[t] {
                self.fric_idx[self.next[normal]] = t;
                self.next[normal] += 1;
            }
        }

        // Scales (§12: tolerances relative to b and diag(A)).
        let sb = inp.b.iter().fold(0.0f64, |s, x| s.max(x.abs()));
        let mut sa = (0..m).fold(0.0f64, |s, i| s.max(inp.a[(i, i)].abs()));
        if sa == 0.0 {
            sa = inp.a.iter().fold(0.0f64, |s, x| s.max(x.abs()));
        }
        let scales = Scales { b: if sb > 0.0 { sb } else { 1.0 }, a: if sa > 0.0 { sa } else { 1.0 } };
        let e = p.epsilon;
        self.tol = Tols {
            scales,
            eps_a: e * scales.b,
            eps_da: e * scales.a,
            eps_df: e,
            piv: p.singular_tolerance * scales.a,
            zero_step: e * scales.f(),
            retreat_a: 100.0 * e * scales.b,
            cap: p.pivot_cap(m),
        };
    }

    /// Drives every untreated row, in the order of the module docs.
    fn drive_all(&mut self, inp: &CoreInput) -> Result<(), BaraffOutcome> {
        while let Some(d) = self.pick(inp) {
            self.drive(d, inp)?;
        }
        Ok(())
    }

    fn frictions_of(&self, n: usize) -> &[usize] {
        &self.fric_idx[self.fric_ptr[n]..self.fric_ptr[n + 1]]
    }

    fn pick(&self, inp: &CoreInput) -> Option<usize> {
        if let Some(n) = inp.sticking {
            if self.st[n] == St::U {
                return Some(n);
            }
            if let Some(&t) = self.frictions_of(n).iter().find(|&&t| self.st[t] == St::U) {
                return Some(t);
            }
        }
        let (mut boxed, mut normal, mut friction) = (None, None::<usize>, None);
        for (i, k) in inp.rows.iter().enumerate() {
            if self.st[i] != St::U && !(self.st[i] == St::H && self.redrive[i]) {
                continue;
            }
            match k {
                RowKind::Bilateral => return Some(i),
                RowKind::Boxed { .. } => {
                    boxed.get_or_insert(i);
                }
                RowKind::Normal => {
                    if normal.is_none_or(|j| self.a[i] < self.a[j]) {
                        normal = Some(i);
                    }
                }
                RowKind::Friction { .. } => {
                    if self.reverse {
                        friction = Some(i);
                    } else {
                        friction.get_or_insert(i);
                    }
                }
            }
        }
        boxed.or(normal).or(friction)
    }

    fn normal_of(&self, t: usize, inp: &CoreInput) -> usize {
        match inp.rows[t] {
            RowKind::Friction { normal, .. } => normal,
            _ => t,
        }
    }

    /// Coefficient `c` with `f_t = c·f_n` for a tied friction row `t` (0 if not tied).
    fn tie_coef(&self, t: usize, inp: &CoreInput) -> f64 {
        let RowKind::Friction { mu, .. } = inp.rows[t] else { return 0.0 };
        match self.st[t] {
            St::Sp | St::Lp => mu,
            St::Sn | St::Ln => -mu,
            St::H => self.ratio[t],
            _ => 0.0,
        }
    }

    /// Effective column `E_j` at row `i` (§3.4): `A[i, j]` plus, for a normal, its tied
    /// (saturated or locked) friction rows' columns times `±μ`.
    fn eff(&self, i: usize, j: usize, inp: &CoreInput) -> f64 {
        let mut v = inp.a[(i, j)];
        if inp.rows[j] == RowKind::Normal {
            for &t in self.frictions_of(j) {
                let c = self.tie_coef(t, inp);
                if c != 0.0 {
                    v += c * inp.a[(i, t)];
                }
            }
        }
        v
    }

    fn insert_clamped(&mut self, j: usize, inp: &CoreInput) {
        let k = self.qr_cols.len();
        for c in 0..k {
            let v = self.eff(j, self.qr_cols[c], inp);
            self.vbuf[c] = v;
        }
        self.qr.append_row(&self.vbuf[..k]);
        self.qr_rows.push(j);
        for r in 0..=k {
            let v = self.eff(self.qr_rows[r], j, inp);
            self.vbuf[r] = v;
        }
        self.qr.append_column(&self.vbuf[..=k]);
        self.qr_cols.push(j);
    }

    fn remove_clamped(&mut self, j: usize) {
        if let Some(c) = self.qr_cols.iter().position(|&x| x == j) {
            self.qr.remove_column(c);
            self.qr_cols.remove(c);
        }
        if let Some(r) = self.qr_rows.iter().position(|&x| x == j) {
            self.qr.remove_row(r);
            self.qr_rows.remove(r);
        }
    }

    /// Re-forms clamped normal `n`'s column after one of its friction rows was tied or untied.
    fn refresh_column(&mut self, n: usize, inp: &CoreInput) {
        if let Some(c) = self.qr_cols.iter().position(|&x| x == n) {
            self.qr.remove_column(c);
            self.qr_cols.remove(c);
            let k = self.qr_rows.len();
            for r in 0..k {
                let v = self.eff(self.qr_rows[r], n, inp);
                self.vbuf[r] = v;
            }
            self.qr.append_column(&self.vbuf[..k]);
            self.qr_cols.push(n);
        }
    }

    /// Moves row `j` to set `new`, keeping the clamped-set factorization and the tied columns
    /// of clamped normals up to date.
    fn set_state(&mut self, j: usize, new: St, inp: &CoreInput) {
        let old = self.st[j];
        if old == new {
            return;
        }
        if old == St::C {
            self.remove_clamped(j);
        }
        let old_coef = self.tie_coef(j, inp);
        self.st[j] = new;
        if let RowKind::Friction { normal, .. } = inp.rows[j]
            && (old.tied() || new.tied())
            && old_coef != self.tie_coef(j, inp)
            && self.st[normal] == St::C
        {
            self.refresh_column(normal, inp);
        }
        if new == St::C {
            self.insert_clamped(j, inp);
        }
    }

    /// Goal check of `drive_to_zero` (§3.3), done before the first pass and re-done at the top
    /// of every pass. On success moves `d` to its set and returns true.
    fn goal_reached(&mut self, d: usize, inp: &CoreInput) -> bool {
        let a = self.a[d];
        let e = self.tol.eps_a;
        if inp.rows[d] == RowKind::Normal {
            if a < -e {
                return false;
            }
            let clamp = self.f[d] > 0.0 || (inp.sticking == Some(d) && a <= e);
            if clamp {
                self.set_state(d, St::C, inp);
            } else {
                self.f[d] = 0.0;
                self.set_state(d, St::Nc, inp);
            }
            return true;
        }
        if a.abs() > e {
            return false;
        }
        self.set_state(d, St::C, inp);
        true
    }

    /// Force direction for driving `d` with σ = +1 (§3.4): `Δf_d = 1`, clamped unknowns from
    /// `Acc Δf_C = −E_d[C]`, tied rows follow their normals; `Δa = A Δf`.
    fn direction(&mut self, d: usize, inp: &CoreInput) {
        let m = self.m;
        let k = self.qr_cols.len();
        for r in 0..k {
            let v = self.eff(self.qr_rows[r], d, inp);
            self.rhs[r] = -v;
        }
        self.qr.solve(&self.rhs[..k], &mut self.x[..k], self.tol.piv);
        self.df[..m].fill(0.0);
        self.df[d] = 1.0;
        for c in 0..k {
            self.df[self.qr_cols[c]] = self.x[c];
        }
        for i in 0..self.fric_rows.len() {
            let t = self.fric_rows[i];
            let c = self.tie_coef(t, inp);
            if c != 0.0
                && let RowKind::Friction { normal, .. } = inp.rows[t]
            {
                self.df[t] = c * self.df[normal];
            }
        }
        let da = &mut self.da[..m];
        da.fill(0.0);
        for (j, &w) in self.df[..m].iter().enumerate() {
            if w != 0.0 {
                let col = inp.a.column(j);
                for (x, &y) in da.iter_mut().zip(col.as_slice()) {
                    *x += w * y;
                }
            }
        }
    }

    /// `maxstep` (§3.5): the smallest admissible step and its event, `None` if unbounded.
    fn max_step(&self, d: usize, sigma: f64, inp: &CoreInput) -> Option<(f64, Ev)> {
        let t = &self.tol;
        let (f, a, df, da) = (&self.f, &self.a, &self.df, &self.da);
        let mut best: Option<(f64, Ev)> = None;
        let mut consider = |s: f64, ev: Ev| {
            if !s.is_finite() {
                return;
            }
            let s = s.max(0.0);
            if best.is_none_or(|(b, _)| s < b) {
                best = Some((s, ev));
            }
        };
        // d's goal: Δa_d must point at zero and be a non-singular Schur pivot.
        let goal_thr = t.eps_da.max(t.piv);
        if (a[d] < 0.0 && da[d] > goal_thr) || (a[d] > 0.0 && da[d] < -goal_thr) {
            consider(-a[d] / da[d], Ev::Goal);
        }
        // d's bound.
        match inp.rows[d] {
            RowKind::Friction { normal, mu } => {
                let den = 1.0 - mu * df[normal];
                if den > t.eps_df {
                    consider((mu * f[normal] - sigma * f[d]) / den, Ev::Bound);
                }
                let opp = -(1.0 + mu * df[normal]);
                if opp > t.eps_df {
                    consider((mu * f[normal] + sigma * f[d]) / opp, Ev::OppositeBound);
                }
            }
            RowKind::Boxed { lo, hi } => {
                if sigma > 0.0 {
                    consider(hi - f[d], Ev::Bound);
                } else {
                    consider(f[d] - lo, Ev::Bound);
                }
            }
            _ => {}
        }
        for (j, k) in inp.rows.iter().enumerate() {
            if j == d {
                continue;
            }
            match self.st[j] {
                St::C => match *k {
                    RowKind::Bilateral => {}
                    RowKind::Normal => {
                        if df[j] < -t.eps_df {
                            consider(-f[j] / df[j], Ev::LoseForce(j));
                        }
                    }
                    RowKind::Friction { normal, mu } => {
                        let up = df[j] - mu * df[normal];
                        if up > t.eps_df {
                            consider((mu * f[normal] - f[j]) / up, Ev::ToUpper(j));
                        }
                        let down = -(df[j] + mu * df[normal]);
                        if down > t.eps_df {
                            consider((f[j] + mu * f[normal]) / down, Ev::ToLower(j));
                        }
                    }
                    RowKind::Boxed { lo, hi } => {
                        if df[j] > t.eps_df {
                            consider((hi - f[j]) / df[j], Ev::ToUpper(j));
                        } else if df[j] < -t.eps_df {
                            consider((lo - f[j]) / df[j], Ev::ToLower(j));
                        }
                    }
                },
                St::Nc => {
                    if da[j] < -t.eps_da {
                        consider(-a[j] / da[j], Ev::Press(j));
                    }
                }
                St::Sp => {
                    if da[j] > t.eps_da {
                        consider(-a[j] / da[j], Ev::Release(j));
                    }
                }
                St::Sn => {
                    if da[j] < -t.eps_da {
                        consider(-a[j] / da[j], Ev::Release(j));
                    }
                }
                St::U | St::R | St::Lp | St::Ln | St::H => {}
            }
        }
        best
    }

    /// The force a friction/boxed row has at the bound of set `s` (`Sp`/`Lp`: upper).
    fn bound_force(&self, j: usize, upper: bool, inp: &CoreInput) -> f64 {
        match inp.rows[j] {
            RowKind::Friction { normal, mu } => {
                let b = mu * self.f[normal];
                if upper { b } else { -b }
            }
            RowKind::Boxed { lo, hi } => {
                if upper {
                    hi
                } else {
                    lo
                }
            }
            _ => self.f[j],
        }
    }

    /// Safeguards 2 and 3 of §6 after a zero-length transition of row `j`; `upper` tells which
    /// bound a friction/boxed row is at.
    fn zero_flip(&mut self, j: usize, upper: bool, inp: &CoreInput) {
        self.flips[j] = self.flips[j].saturating_add(1);
        if self.flips[j] < 2 {
            return;
        }
        match inp.rows[j] {
            RowKind::Normal => {
                if self.f[j] == 0.0 {
                    self.set_state(j, St::R, inp);
                }
            }
            RowKind::Friction { .. } | RowKind::Boxed { .. } => {
                self.f[j] = self.bound_force(j, upper, inp);
                self.set_state(j, if upper { St::Lp } else { St::Ln }, inp);
            }
            RowKind::Bilateral => {}
        }
    }

    /// `drive_to_zero(d)` (§3.3).
    fn drive(&mut self, d: usize, inp: &CoreInput) -> Result<(), BaraffOutcome> {
        let kind = inp.rows[d];
        if self.st[d] == St::H {
            // A held row's turn to be re-driven: untie it (its force stays).
            self.redrive[d] = false;
            self.set_state(d, St::U, inp);
        }
        if self.goal_reached(d, inp) {
            return Ok(());
        }
        match kind {
            RowKind::Friction { normal, .. } if self.st[normal] != St::C => {
                // Its normal has zero force and cannot gain any while not clamped (§3.3).
                self.f[d] = 0.0;
                let s = if self.a[d] < 0.0 { St::Sp } else { St::Sn };
                self.set_state(d, s, inp);
                return Ok(());
            }
            RowKind::Boxed { lo, hi } => {
                if self.a[d] < 0.0 && self.f[d] >= hi {
                    self.f[d] = hi;
                    self.set_state(d, St::Sp, inp);
                    return Ok(());
                }
                if self.a[d] > 0.0 && self.f[d] <= lo {
                    self.f[d] = lo;
                    self.set_state(d, St::Sn, inp);
                    return Ok(());
                }
            }
            _ => {}
        }
        let m = self.m;
        let mut zero_run = 0usize;
        loop {
            // Re-check the goal at the top of every pass (§3.3).
            if self.goal_reached(d, inp) {
                return Ok(());
            }
            self.direction(d, inp);
            let sigma = match kind {
                RowKind::Normal => 1.0,
                RowKind::Bilateral => {
                    if self.a[d] * self.da[d] > 0.0 {
                        -1.0
                    } else {
                        1.0
                    }
                }
                _ => {
                    if self.a[d] > 0.0 {
                        -1.0
                    } else {
                        1.0
                    }
                }
            };
            if sigma < 0.0 {
                for x in &mut self.df[..m] {
                    *x = -*x;
                }
                for x in &mut self.da[..m] {
                    *x = -*x;
                }
            }
            let Some((s, ev)) = self.max_step(d, sigma, inp) else {
                // No event limits the step. A row that has not moved yet (zero force) is
                // deferred and re-treated after all others (§6), which may then succeed; a
                // re-treated row that fails again, or a row that carries force, is a ray.
                if !self.redriving {
                    // A friction row that carries force is held at its current share of its
                    // normal's force, so it stays in its cone while others move.
                    let held = match kind {
                        RowKind::Friction { normal, .. } if self.f[d] != 0.0 && self.f[normal] > 0.0 => {
                            self.ratio[d] = self.f[d] / self.f[normal];
                            St::H
                        }
                        _ => St::R,
                    };
                    self.set_state(d, held, inp);
                    self.ray[d] = true;
                    return Ok(());
                }
                return Err(BaraffOutcome::UnboundedRay { row: d });
            };
            self.pivots += 1;
            if self.pivots > self.tol.cap {
                return Err(BaraffOutcome::PivotLimit);
            }
            if s > 0.0 {
                for ((f, a), (&df, &da)) in
                    self.f[..m].iter_mut().zip(&mut self.a[..m]).zip(self.df[..m].iter().zip(&self.da[..m]))
                {
                    *f += s * df;
                    *a += s * da;
                }
            }
            let zero = s <= self.tol.zero_step;
            if zero {
                zero_run += 1;
                // Each row can flip only twice before it is deferred or locked; a longer run
                // means the safeguards did not break a cycle.
                if zero_run > 3 * m + 10 {
                    return Err(BaraffOutcome::Cycling);
                }
            } else {
                zero_run = 0;
                self.flips[..m].fill(0);
            }
            match ev {
                Ev::Goal => {
                    self.a[d] = 0.0;
                    self.set_state(d, St::C, inp);
                    return Ok(());
                }
                Ev::Bound => {
                    let upper = sigma > 0.0;
                    self.f[d] = self.bound_force(d, upper, inp);
                    self.set_state(d, if upper { St::Sp } else { St::Sn }, inp);
                    return Ok(());
                }
                Ev::OppositeBound => {
                    let upper = sigma < 0.0;
                    self.f[d] = self.bound_force(d, upper, inp);
                    self.set_state(d, if upper { St::Lp } else { St::Ln }, inp);
                    return Ok(());
                }
                Ev::LoseForce(j) => {
                    self.f[j] = 0.0;
                    self.set_state(j, St::Nc, inp);
                    if zero {
                        self.zero_flip(j, false, inp);
                    }
                }
                Ev::Press(j) => {
                    self.a[j] = 0.0;
                    self.set_state(j, St::C, inp);
                    if zero {
                        self.zero_flip(j, false, inp);
                    }
                }
                Ev::ToUpper(j) | Ev::ToLower(j) => {
                    let upper = matches!(ev, Ev::ToUpper(_));
                    self.set_state(j, if upper { St::Sp } else { St::Sn }, inp);
                    self.f[j] = self.bound_force(j, upper, inp);
                    if zero {
                        self.zero_flip(j, upper, inp);
                    }
                }
                Ev::Release(j) => {
                    let upper = self.st[j] == St::Sp;
                    self.a[j] = 0.0;
                    self.set_state(j, St::C, inp);
                    if zero {
                        self.zero_flip(j, upper, inp);
                    }
                }
            }
        }
    }

    /// After the main loop (§6): unlock locked rows and settle deferred ones whose conditions
    /// hold within 100·ε; re-drive the others (from their current force) while each pass
    /// reduces their number, with at most 3·m re-drives in all. Rows still deferred after a ray
    /// make the outcome an unbounded ray.
    fn resolve_rejects(&mut self, inp: &CoreInput) -> Result<(), BaraffOutcome> {
        let m = self.m;
        let e = self.tol.retreat_a;
        let mut prev = usize::MAX;
        let mut retries = 0usize;
        loop {
            let mut pending = 0usize;
            for j in 0..m {
                let (a, upper) = (self.a[j], self.st[j] == St::Lp);
                match self.st[j] {
                    St::Lp | St::Ln => {
                        if (upper && a <= e) || (!upper && a >= -e) {
                            self.set_state(j, if upper { St::Sp } else { St::Sn }, inp);
                        } else {
                            pending += 1;
                        }
                    }
                    St::R | St::H => match self.settle(j, inp) {
                        Some(s) => {
                            self.ray[j] = false;
                            self.set_state(j, s, inp);
                        }
                        None => pending += 1,
                    },
                    _ => {}
                }
            }
            if pending == 0 {
                return Ok(());
            }
            if pending >= prev {
                return match (0..m).find(|&j| matches!(self.st[j], St::R | St::H) && self.ray[j]) {
                    Some(row) => Err(BaraffOutcome::UnboundedRay { row }),
                    None => Ok(()),
                };
            }
            prev = pending;
            retries += pending;
            if retries > 3 * m {
                return Err(BaraffOutcome::Cycling);
            }
            // Re-drive from the current forces. Friction rows stay tied to their normals (held at
            // their current share) until their turn, so that they stay in their cones meanwhile.
            for j in 0..m {
                if !matches!(self.st[j], St::Lp | St::Ln | St::R | St::H) {
                    continue;
                }
                match inp.rows[j] {
                    RowKind::Friction { normal, .. } if self.st[normal] == St::C && self.f[normal] > 0.0 => {
                        self.ratio[j] = self.f[j] / self.f[normal];
                        self.set_state(j, St::H, inp);
                        self.redrive[j] = true;
                    }
                    _ => self.set_state(j, St::U, inp),
                }
            }
            self.flips[..m].fill(0);
            self.redriving = true;
            self.drive_all(inp)?;
        }
    }

    /// The set a deferred or held row can take with its current force and acceleration (within
    /// 100·ε), `None` if none: it must be re-driven.
    fn settle(&self, j: usize, inp: &CoreInput) -> Option<St> {
        let (f, a) = (self.f[j], self.a[j]);
        let e = self.tol.retreat_a;
        let near = 100.0 * self.tol.zero_step;
        // Boxed-type rule: at hi ⇒ a ≤ 0, at lo ⇒ a ≥ 0, interior ⇒ a = 0.
        let boxed = |lo: f64, hi: f64| {
            if f >= hi - near && a <= e {
                Some(St::Sp)
            } else if f <= lo + near && a >= -e {
                Some(St::Sn)
            } else if a.abs() <= e {
                Some(St::C)
            } else {
                None
            }
        };
        match inp.rows[j] {
            // A normal "at its lower bound" is a separating one.
            RowKind::Normal => boxed(0.0, f64::INFINITY).map(|s| if s == St::Sn { St::Nc } else { s }),
            RowKind::Bilateral => (a.abs() <= e).then_some(St::C),
            RowKind::Boxed { lo, hi } => boxed(lo, hi),
            RowKind::Friction { normal, mu } => {
                if self.st[normal] != St::C {
                    // Zero normal force: the row cannot carry force (§3.3).
                    return Some(if a < 0.0 { St::Sp } else { St::Sn });
                }
                let b = mu * self.f[normal];
                boxed(-b, b)
            }
        }
    }

    /// Snaps tied/bounded forces, recomputes `a = A f + b` and the worst violation (§3.6),
    /// writes the public sets.
    fn finish(&mut self, inp: &CoreInput, p: &BaraffParameters) -> f64 {
        let m = self.m;
        for j in 0..m {
            match self.st[j] {
                St::Nc => self.f[j] = 0.0,
                St::Sp | St::Lp => self.f[j] = self.bound_force(j, true, inp),
                St::Sn | St::Ln => self.f[j] = self.bound_force(j, false, inp),
                St::H => self.f[j] = self.tie_coef(j, inp) * self.f[self.normal_of(j, inp)],
                _ => {}
            }
            self.sets[j] = self.st[j].public();
        }
        let a = &mut self.a[..m];
        a.copy_from_slice(inp.b);
        for (j, &w) in self.f[..m].iter().enumerate() {
            if w != 0.0 {
                for (x, &y) in a.iter_mut().zip(inp.a.column(j).as_slice()) {
                    *x += w * y;
                }
            }
        }
        worst_violation(inp.rows, &self.f[..m], &self.a[..m], self.tol.scales, p.tolerance)
    }
}
