//! The state of a solve that the iterations (`solver.rs`: Dojo's, `solver/engine.rs`: the engine
//! iteration) and the sensitivities (`sensitivity.rs`) share: the workspace with the iterate, the
//! residual and its violation measures (§4), the Newton system's data and solves (§2), and the
//! sensitivities' storage (§7).

use super::form::{Form, PartScratch, SparseSlot, Split};
use super::model::by_model;
use super::newton::{NewtonSystem, SystemData};
use super::{ContactModel, IpmError, IpmProblem, IpmStats, NewtonSolve};
use crate::linalg::{PartialPivLu, grow};
use crate::parallel::Parts;

/// Grow-only storage of the solver: problem layout, iterate, residuals, Newton factorization,
/// results, histories and sensitivities.
#[derive(Debug, Clone, Default)]
pub struct IpmWorkspace {
    pub(crate) n: usize,
    pub(crate) nc: usize,
    pub(crate) k_total: usize,
    pub(crate) models: Vec<ContactModel>,
    pub(crate) offsets: Vec<usize>,
    pub(crate) mu: Vec<f64>,
    pub(crate) v: Vec<f64>,
    pub(crate) s: Vec<f64>,
    pub(crate) g: Vec<f64>,
    pub(super) vc: Vec<f64>,
    pub(super) sc: Vec<f64>,
    pub(super) gc: Vec<f64>,
    /// Residual `[r_dyn | γ∘s (raw) | r_eq]` at the iterate and at the candidate.
    pub(super) r: Vec<f64>,
    pub(super) rc: Vec<f64>,
    pub(super) daff: Vec<f64>,
    pub(super) delta: Vec<f64>,
    pub(super) scratch: Vec<f64>,
    pub(super) e: Vec<f64>,
    pub(crate) newton: NewtonSystem,
    /// Local impulses (normal, t1, t2) per contact, N·s.
    pub(super) impulses: Vec<f64>,
    pub(super) next_gaps: Vec<f64>,
    pub(super) rvio_history: Vec<f64>,
    pub(super) bvio_history: Vec<f64>,
    pub(super) kappa_history: Vec<f64>,
    pub(super) alpha_history: Vec<f64>,
    pub(crate) stats: IpmStats,
    /// The last engine solve's cone variables by contact id, for the next warm start.
    pub(super) previous: PreviousSolution,
    /// Whether the last engine solve had contact ids (`previous` holds its solution).
    pub(super) previous_has_ids: bool,
    pub(crate) has_solution: bool,
    pub(crate) sens: Sensitivities,
    /// Gap row `φ_i·phi_scale + gap_h·J_n,i v − s_n,i`: Dojo's `(1, h)` (gap in m) in the reference
    /// iteration, `(1/h, 1)` (separating velocity in m/s) in the engine iteration.
    pub(crate) phi_scale: f64,
    pub(crate) gap_h: f64,
    pub(crate) phi_eff: Vec<f64>,
    /// Normal compliance `R_n,i` (1/kg) per contact of the engine iteration (§11.3, §11.7): the
    /// gap rows read `φ/h + J_n v + R_n,i γ_n − s_n`. Empty for hard contact and for Dojo's
    /// iteration; capacity nc once set up.
    pub(crate) compliance: Vec<f64>,
    /// Whether the last setup was for the engine iteration (warm start needs the same units).
    pub(crate) engine: bool,
    /// `p* = M v0 + hτ`, then the free velocity `M⁻¹p*` (engine scales).
    pub(crate) p_star: Vec<f64>,
    pub(crate) v_free: Vec<f64>,
    /// Nesterov–Todd data per contact (21 numbers, see `SystemData::nt`).
    pub(super) nt: Vec<f64>,
    /// The same at the line search's candidate (swapped with `nt` when the candidate is taken).
    pub(super) nt_c: Vec<f64>,
    pub(super) best_v: Vec<f64>,
    pub(super) best_s: Vec<f64>,
    pub(super) best_g: Vec<f64>,
    /// The tight setting's exact candidates (`docs/ipm.md` §11.9).
    pub(super) exact: ExactWorkspace,
    /// The parallel passes (`docs/performance.md` §8): `kcuts[p]` is the offset (in the
    /// K-blocks) of the form's split's part p's first contact, `kcuts[parts] = K`; the parts'
    /// slots of partial results.
    pub(crate) kcuts: Vec<usize>,
    pub(crate) part: PartScratch,
}

impl IpmWorkspace {
    /// Records the cone-variable offsets of `split`'s contact bounds and grows the parts' slots
    /// (after [`setup`](Self::setup); nothing without a split).
    pub(crate) fn prepare_split(&mut self, split: Option<Split<'_>>) {
        let Some(sp) = split else { return };
        let (parts, kt) = (sp.parts(), self.k_total);
        let offsets = &self.offsets;
        self.kcuts.clear();
        self.kcuts.extend(sp.contacts().iter().map(|&c| offsets.get(c).copied().unwrap_or(kt)));
        self.part.index.clear();
        self.part.index.extend(0..=parts);
        if self.part.partials.len() < parts {
            self.part.partials.resize(parts, [0.0; 8]);
        }
    }
}

/// The cone variables of the last engine solve that had contact ids (`docs/ipm.md` §11.5),
/// grow-only.
#[derive(Debug, Clone, Default)]
pub(super) struct PreviousSolution {
    pub(super) ids: Vec<u64>,
    /// Contact indices sorted by id.
    pub(super) order: Vec<usize>,
    pub(super) models: Vec<ContactModel>,
    pub(super) offsets: Vec<usize>,
    pub(super) s: Vec<f64>,
    pub(super) g: Vec<f64>,
}

impl PreviousSolution {
    /// Records the solution `(s, g)` of contacts `ids`.
    pub(super) fn record(
        &mut self,
        ids: &[u64],
        models: &[ContactModel],
        offsets: &[usize],
        s: &[f64],
        g: &[f64],
    ) {
        self.ids.clear();
        self.ids.extend_from_slice(ids);
        self.order.clear();
        self.order.extend(0..ids.len());
        let key = &self.ids;
        self.order.sort_unstable_by_key(|&j| key[j]);
        self.models.clear();
        self.models.extend_from_slice(models);
        self.offsets.clear();
        self.offsets.extend_from_slice(offsets);
        self.s.clear();
        self.s.extend_from_slice(s);
        self.g.clear();
        self.g.extend_from_slice(g);
    }

    /// Grows the storage for `nc` contacts of total dimension `k` (so that recording allocates
    /// nothing once grown).
    fn reserve(&mut self, nc: usize, k: usize) {
        fn at_least<T>(v: &mut Vec<T>, n: usize) {
            v.reserve(n.saturating_sub(v.len()));
        }
        at_least(&mut self.ids, nc);
        at_least(&mut self.order, nc);
        at_least(&mut self.models, nc);
        at_least(&mut self.offsets, nc);
        at_least(&mut self.s, k);
        at_least(&mut self.g, k);
    }
}

/// Violation measures of one point.
#[derive(Debug, Clone, Copy)]
pub(super) struct Viol {
    pub(super) rvio: f64,
    pub(super) bvio: f64,
    /// ∞-norm of γ∘s − κe (fixed-κ mode).
    pub(super) cvio: f64,
    /// Parts of `rvio`: momentum rows (N·s), velocity-unit equality rows (gap rows in the
    /// engine's units, tangential rows), impulse-unit rows (`μγ_n − ξ_0`, linear model's ψ row).
    pub(super) dyn_norm: f64,
    pub(super) vel_norm: f64,
    pub(super) imp_norm: f64,
}

impl Viol {
    const NAN: Self = Self {
        rvio: f64::NAN,
        bvio: f64::NAN,
        cvio: f64::NAN,
        dyn_norm: f64::NAN,
        vel_norm: f64::NAN,
        imp_norm: f64::NAN,
    };
}

impl IpmWorkspace {
    /// Records the problem's layout and grows every buffer to its size. `by_id`: the solve
    /// records its solution by contact id ([`PreviousSolution`], engine iteration with ids);
    /// only then is that storage grown.
    pub(super) fn setup(
        &mut self,
        p: &IpmProblem<'_>,
        max_iter: usize,
        mode: super::NewtonSolve,
        engine: bool,
        by_id: bool,
    ) {
        let n = p.num_velocities();
        let nc = p.num_contacts();
        self.n = n;
        self.nc = nc;
        self.engine = engine;
        self.compliance.clear();
        if self.compliance.capacity() < nc {
            self.compliance.reserve(nc);
        }
        (self.phi_scale, self.gap_h) = if engine { (1.0 / p.h, 1.0) } else { (1.0, p.h) };
        self.phi_eff.clear();
        self.phi_eff.extend(p.phi.iter().map(|&x| x * self.phi_scale));
        grow(&mut self.nt, 21 * nc);
        grow(&mut self.nt_c, 21 * nc);
        self.models.clear();
        self.models.extend_from_slice(p.models);
        self.offsets.clear();
        let mut k = 0;
        for m in p.models {
            self.offsets.push(k);
            k += m.dim();
        }
        self.k_total = k;
        self.mu.clear();
        self.mu.extend(p.mu.iter().copied());
        let big = n + 2 * k;
        for buf in [&mut self.v, &mut self.vc, &mut self.p_star, &mut self.v_free, &mut self.best_v] {
            grow(buf, n);
        }
        for buf in [
            &mut self.s,
            &mut self.g,
            &mut self.sc,
            &mut self.gc,
            &mut self.e,
            &mut self.best_s,
            &mut self.best_g,
        ] {
            grow(buf, k);
        }
        for buf in [&mut self.r, &mut self.rc, &mut self.daff, &mut self.delta, &mut self.scratch] {
            grow(buf, big);
        }
        grow(&mut self.impulses, 3 * nc);
        grow(&mut self.next_gaps, nc);
        for h in
            [&mut self.rvio_history, &mut self.bvio_history, &mut self.kappa_history, &mut self.alpha_history]
        {
            h.clear();
            if h.capacity() < max_iter + 1 {
                h.reserve(max_iter + 1);
            }
        }
        for (i, m) in p.models.iter().enumerate() {
            let off = self.offsets[i];
            m.neutral(&mut self.e[off..off + m.dim()]);
        }
        let block_entries = p.models.iter().map(|m| 4 * m.dim() * m.dim()).sum();
        self.newton.reserve(mode, n, nc, k, block_entries);
        if by_id {
            self.previous.reserve(nc, k);
        }
        self.newton.factored = false;
    }
}

/// The Newton system's data from the workspace's fields (a macro so the borrows stay disjoint
/// from `ws.newton` and the iterate buffers).
macro_rules! system_data {
    ($ws:expr) => {
        system_data!($ws, &[])
    };
    ($ws:expr, $nt:expr) => {
        SystemData {
            h: $ws.gap_h,
            mu: &$ws.mu,
            models: &$ws.models,
            offsets: &$ws.offsets,
            n: $ws.n,
            k_total: $ws.k_total,
            nt: $nt,
            shift_normal: 0.0,
            shift_tangent: 0.0,
            compliance: &$ws.compliance,
            kcuts: &$ws.kcuts,
        }
    };
}
pub(crate) use system_data;

/// Evaluates `r = [M(v − v0) − hτ − Jᵀb | γ∘s | r_eq]` (raw products in the middle block) and the
/// violation measures (§4) with κ for the centred measure.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(super) fn residual<F: Form>(
    form: &F,
    p: &IpmProblem<'_>,
    phi: &[f64],
    gap_h: f64,
    models: &[ContactModel],
    offsets: &[usize],
    mu: &[f64],
    e: &[f64],
    v: &[f64],
    s: &[f64],
    g: &[f64],
    kappa: f64,
    compliance: &[f64],
    dv: &mut [f64],
    r: &mut [f64],
) -> Viol {
    let n = v.len();
    let kt = s.len();
    let (rd, rk) = r.split_at_mut(n);
    let (rc, re) = rk.split_at_mut(kt);
    // Slices, not nalgebra's strided iterators (issue 30 item 5).
    for ((d, &x), &x0) in dv.iter_mut().zip(v).zip(p.v0.as_slice()) {
        *d = x - x0;
    }
    for (x, &t) in rd.iter_mut().zip(p.tau.as_slice()) {
        *x = -p.h * t;
    }
    form.add_mass_product(dv, rd);
    let rows = ResidualRows { phi, gap_h, models, offsets, mu, e, compliance };
    let mut acc = [0.0; 8];
    for (i, (&model, &off)) in models.iter().zip(offsets).enumerate() {
        by_model(
            model,
            #[inline(always)]
            |model| {
                let k = model.dim();
                residual_contact(
                    form,
                    p,
                    &rows,
                    model,
                    i,
                    (v, s, g),
                    kappa,
                    &mut rc[off..off + k],
                    &mut re[off..off + k],
                    &mut acc,
                );
                let dirs = if model == ContactModel::Impact { 1 } else { 3 };
                let b = model.impulse(&g[off..off + k]);
                form.sub_contact_impulse(i, dirs, &b, rd);
            },
        );
    }
    let mut nan = acc[0] != 0.0;
    let (bvio, cvio, vel_norm, imp_norm) = (acc[1], acc[2], acc[3], acc[4]);
    let mut dyn_norm: f64 = 0.0;
    for &x in rd.iter() {
        nan |= x.is_nan();
        dyn_norm = dyn_norm.max(x.abs());
    }
    if nan {
        return Viol::NAN;
    }
    Viol { rvio: dyn_norm.max(vel_norm).max(imp_norm), bvio, cvio, dyn_norm, vel_norm, imp_norm }
}

/// The [`ResidualRows`] of a workspace (a macro so that the borrows stay disjoint from the
/// buffers the residual writes).
macro_rules! residual_rows {
    ($ws:expr) => {
        ResidualRows {
            phi: &$ws.phi_eff,
            gap_h: $ws.gap_h,
            models: &$ws.models,
            offsets: &$ws.offsets,
            mu: &$ws.mu,
            e: &$ws.e,
            compliance: &$ws.compliance,
        }
    };
}

/// What [`residual`] reads besides the problem and the point.
pub(super) struct ResidualRows<'a> {
    phi: &'a [f64],
    gap_h: f64,
    models: &'a [ContactModel],
    offsets: &'a [usize],
    mu: &'a [f64],
    e: &'a [f64],
    compliance: &'a [f64],
}

/// Contact i's rows of [`residual`] (its model `model`, a constant where the caller takes it
/// through [`by_model`]): `re`, `rc` are the contact's k entries; returns its impulse
/// and direction count for `Jᵀb`, and folds its entries into the measures `acc` (NaN flag as 1,
/// `bvio`, `cvio`, the velocity- and impulse-unit norms: slots 0–4).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn residual_contact<F: Form>(
    form: &F,
    p: &IpmProblem<'_>,
    rows: &ResidualRows<'_>,
    model: ContactModel,
    i: usize,
    (v, s, g): (&[f64], &[f64], &[f64]),
    kappa: f64,
    rc: &mut [f64],
    re: &mut [f64],
    acc: &mut [f64; 8],
) {
    let off = rows.offsets[i];
    let k = model.dim();
    let (si, gi) = (&s[off..off + k], &g[off..off + k]);
    let dirs = if model == ContactModel::Impact { 1 } else { 3 };
    let mut u = form.contact_velocity(i, dirs, v);
    if let Some(o) = &p.vt_offset {
        for (a, ua) in u.iter_mut().enumerate().take(dirs).skip(1) {
            *ua += o[2 * i + a - 1];
        }
    }
    model.equality_residual(&u, rows.phi[i], rows.gap_h, rows.mu[i], si, gi, re);
    if let Some(&c) = rows.compliance.get(i) {
        re[0] += c * gi[0];
    }
    model.product(gi, si, rc);
    for j in 0..k {
        if rc[j].is_nan() || re[j].is_nan() {
            acc[0] = 1.0;
        }
        acc[1] = acc[1].max(rc[j].abs());
        acc[2] = acc[2].max((rc[j] - kappa * rows.e[off + j]).abs());
        // Row 1 of the friction models is in impulse units (μγ_n − ξ_0, μγ_n − Σβ − s_ψ).
        if j == 1 {
            acc[4] = acc[4].max(re[j].abs());
        } else {
            acc[3] = acc[3].max(re[j].abs());
        }
    }
}

/// [`residual`] on the participants of `sp` (`docs/performance.md` §8), one pass: each part
/// takes its range of contacts (their velocities, equality and complementarity rows and
/// measures) and its range of trees (`M(v − v0) − hτ − Σ J_iᵀ b_i`, the contacts of each tree in
/// increasing order, and its momentum norm), then calls `hook` (see
/// [`IpmWorkspace::candidate_residual_with`]). Every entry gets the operations of [`residual`] in
/// the same order; the norms are maxima (NaN flagged apart), which do not depend on the order in
/// which the parts' maxima are combined. So the bits are those of [`residual`].
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn residual_split<F: Form>(
    form: &F,
    sp: Split<'_>,
    kcuts: &[usize],
    part: &mut PartScratch,
    p: &IpmProblem<'_>,
    rows: &ResidualRows<'_>,
    (v, s, g): (&[f64], &[f64], &[f64]),
    kappa: f64,
    dv: &mut [f64],
    r: &mut [f64],
    hook: impl Fn(usize, &[ContactModel], &[usize], &[f64], &[f64], &mut [f64; 8]) + Sync,
) -> Viol {
    let n = v.len();
    let kt = s.len();
    let parts = sp.parts();
    let (rd, rk) = r.split_at_mut(n);
    let (rc, re) = rk.split_at_mut(kt);
    let (cuts, trees, dofs) = (sp.contacts(), sp.trees(), sp.dofs());
    let (rd, dv) = (Parts::new(rd, dofs, 1), Parts::new(dv, dofs, 1));
    let (rc, re) = (Parts::new(rc, kcuts, 1), Parts::new(re, kcuts, 1));
    let (v0, tau) = (p.v0.as_slice(), p.tau.as_slice());
    let slots = part.slots(parts);
    let form_split = &sp;
    sp.run(
        #[inline(always)]
        |q| {
            let acc = &mut slots.take(q)[0];
            *acc = [0.0; 8];
            let (rc, re) = (rc.take(q), re.take(q));
            for i in cuts[q]..cuts[q + 1] {
                by_model(
                    rows.models[i],
                    #[inline(always)]
                    |model| {
                        let (off, k) = (rows.offsets[i] - kcuts[q], model.dim());
                        residual_contact(
                            form,
                            p,
                            rows,
                            model,
                            i,
                            (v, s, g),
                            kappa,
                            &mut rc[off..off + k],
                            &mut re[off..off + k],
                            acc,
                        );
                    },
                );
            }
            let (rd, dv) = (rd.take(q), dv.take(q));
            let first = dofs[q];
            for t in trees[q]..trees[q + 1] {
                let r = form_split.tree_range(t);
                let local = r.start - first..r.end - first;
                let (dv, rd) = (&mut dv[local.clone()], &mut rd[local]);
                for ((d, &x), &x0) in dv.iter_mut().zip(&v[r.clone()]).zip(&v0[r.clone()]) {
                    *d = x - x0;
                }
                for (x, &tq) in rd.iter_mut().zip(&tau[r]) {
                    *x = -p.h * tq;
                }
                form_split.add_tree_mass_product(t, dv, rd);
                form_split.add_tree_forces(
                    t,
                    #[inline(always)]
                    |i| {
                        // The force of `Form::sub_contact_impulse(i, dirs, b)`.
                        let (m, off) = (rows.models[i], rows.offsets[i]);
                        let b = m.impulse(&g[off..off + m.dim()]);
                        let mut f = [-b[0], -b[1], -b[2]];
                        if m == ContactModel::Impact {
                            f[1..].fill(0.0);
                        }
                        Some(f)
                    },
                    rd,
                );
                for &x in rd.iter() {
                    if x.is_nan() {
                        acc[0] = 1.0;
                    }
                    acc[5] = acc[5].max(x.abs());
                }
            }
            hook(q, rows.models, rows.offsets, s, g, acc);
        },
    );
    let mut m = [0.0f64; 8];
    for acc in &part.partials[..parts] {
        for (a, &b) in m.iter_mut().zip(acc) {
            *a = a.max(b);
        }
    }
    if m[0] != 0.0 {
        return Viol::NAN;
    }
    let (bvio, cvio, vel_norm, imp_norm, dyn_norm) = (m[1], m[2], m[3], m[4], m[5]);
    Viol { rvio: dyn_norm.max(vel_norm).max(imp_norm), bvio, cvio, dyn_norm, vel_norm, imp_norm }
}

impl IpmWorkspace {
    /// The largest step `α ≤ 1` from the iterate's (s, γ) along (Δs, Δγ) over every contact's
    /// primal and dual pair, with `step(model, x, Δx)` the step of one cone: the
    /// fraction-to-the-boundary rule of Dojo's iteration (§4.1; the engine iteration's exact one
    /// takes runs of contacts side by side, `solver/engine.rs`).
    #[inline(always)]
    pub(super) fn largest_step(
        &self,
        ds: &[f64],
        dg: &[f64],
        step: impl Fn(ContactModel, &[f64], &[f64]) -> f64,
    ) -> f64 {
        let mut alpha: f64 = 1.0;
        for (&model, &off) in self.models.iter().zip(&self.offsets) {
            let r = off..off + model.dim();
            alpha = alpha.min(step(model, &self.s[r.clone()], &ds[r.clone()]));
            alpha = alpha.min(step(model, &self.g[r.clone()], &dg[r]));
        }
        alpha
    }

    /// [`residual_at`](Self::residual_at) at the candidate on the participants of the form's
    /// split, with `hook(p, models, offsets, sc, gc, acc)` called once by every part `p` after
    /// its contacts, with its slot of partial results `acc` (slots 0–5 hold the residual's
    /// measures; read `self.part.partials` afterwards). `None` (nothing computed) without a split.
    #[inline(always)]
    pub(super) fn candidate_residual_with<F: Form>(
        &mut self,
        form: &F,
        p: &IpmProblem<'_>,
        hook: impl Fn(usize, &[ContactModel], &[usize], &[f64], &[f64], &mut [f64; 8]) + Sync,
    ) -> Option<Viol> {
        let (n, kt) = (self.n, self.k_total);
        let big = n + 2 * kt;
        let sp = form.split().filter(|sp| self.kcuts.len() == sp.parts() + 1)?;
        let rows = residual_rows!(self);
        let point = (&self.vc[..n], &self.sc[..kt], &self.gc[..kt]);
        let (dv, r) = (&mut self.scratch[..n], &mut self.rc[..big]);
        Some(residual_split(form, sp, &self.kcuts, &mut self.part, p, &rows, point, 0.0, dv, r, hook))
    }

    /// The candidate (vc, sc, gc, rc) of the line search becomes the iterate (§4 step 9), and an
    /// iterate with a pair on its cone's boundary is counted in `IpmStats::boundary_hits`.
    #[inline(always)]
    pub(super) fn commit_candidate(&mut self) {
        std::mem::swap(&mut self.v, &mut self.vc);
        std::mem::swap(&mut self.s, &mut self.sc);
        std::mem::swap(&mut self.g, &mut self.gc);
        std::mem::swap(&mut self.r, &mut self.rc);
        let (s, g) = (&self.s, &self.g);
        if !self.models.iter().zip(&self.offsets).all(|(&m, &off)| {
            by_model(
                m,
                #[inline(always)]
                |m| {
                    let k = m.dim();
                    m.is_interior(&s[off..off + k]) && m.is_interior(&g[off..off + k])
                },
            )
        }) {
            self.stats.boundary_hits += 1;
        }
    }

    /// [`residual`] at the current iterate (v, s, g) into `r`, or with `candidate` at the line
    /// search's candidate (vc, sc, gc) into `rc`, with `scratch` as the momentum buffer.
    #[inline(always)]
    pub(super) fn residual_at<F: Form>(
        &mut self,
        form: &F,
        p: &IpmProblem<'_>,
        kappa: f64,
        candidate: bool,
    ) -> Viol {
        let (n, kt) = (self.n, self.k_total);
        let big = n + 2 * kt;
        let (v, s, g, r) = if candidate {
            (&self.vc, &self.sc, &self.gc, &mut self.rc)
        } else {
            (&self.v, &self.s, &self.g, &mut self.r)
        };
        if let Some(sp) = form.split().filter(|sp| self.kcuts.len() == sp.parts() + 1) {
            let rows = residual_rows!(self);
            let point = (&v[..n], &s[..kt], &g[..kt]);
            let (dv, r) = (&mut self.scratch[..n], &mut r[..big]);
            let hook = |_: usize, _: &[ContactModel], _: &[usize], _: &[f64], _: &[f64], _: &mut [f64; 8]| {};
            return residual_split(
                form,
                sp,
                &self.kcuts,
                &mut self.part,
                p,
                &rows,
                point,
                kappa,
                dv,
                r,
                hook,
            );
        }
        residual(
            form,
            p,
            &self.phi_eff,
            self.gap_h,
            &self.models,
            &self.offsets,
            &self.mu,
            &self.e,
            &v[..n],
            &s[..kt],
            &g[..kt],
            kappa,
            &self.compliance,
            &mut self.scratch[..n],
            &mut r[..big],
        )
    }
}

/// `Σ sᵀγ` over contacts for the point `(s + α ds, γ + α dg)`.
#[inline(always)]
pub(super) fn duality(s: &[f64], g: &[f64], ds: &[f64], dg: &[f64], alpha: f64) -> f64 {
    s.iter()
        .zip(g)
        .zip(ds.iter().zip(dg))
        .map(|((&s, &g), (&ds, &dg))| (s + alpha * ds) * (g + alpha * dg))
        .sum()
}

/// `(Σ sᵀγ, Σ (s + α ds)ᵀ(γ + α dg))` in one pass: [`duality`] at 0 and at `alpha`, each sum with
/// the operations of [`duality`] in the same order (the same bits), the two chains of additions
/// side by side (issue 29: Mehrotra's centring takes both).
#[inline(always)]
pub(super) fn duality_pair(s: &[f64], g: &[f64], ds: &[f64], dg: &[f64], alpha: f64) -> (f64, f64) {
    // -0.0: the neutral element `Sum for f64` starts from.
    let (mut at0, mut at) = (-0.0, -0.0);
    for ((&s, &g), (&ds, &dg)) in s.iter().zip(g).zip(ds.iter().zip(dg)) {
        at0 += (s + 0.0 * ds) * (g + 0.0 * dg);
        at += (s + alpha * ds) * (g + alpha * dg);
    }
    (at0, at)
}

/// The block and Delassus forms have no full Newton matrix ([`NewtonSolve::Dense`] assembles the
/// dense one).
pub(crate) fn check_block_newton_solve(mode: NewtonSolve) -> Result<(), IpmError> {
    match mode {
        NewtonSolve::Condensed => Ok(()),
        NewtonSolve::Dense => Err(IpmError::OutOfRange {
            what: "newton_solve",
            value: NewtonSolve::Dense as i32 as f64,
            requirement: "Condensed (0) for block-sparse or Delassus data",
        }),
    }
}

/// A contact's mode in a candidate.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(crate) enum Mode {
    /// No impulse.
    #[default]
    Separated,
    /// Zero velocity, impulse free.
    Sticking,
    /// Zero normal velocity, friction `r_t = −μ r_n u_t/‖u_t‖` against the slip, linearized at
    /// the slip direction `t = u_t/‖u_t‖` and `c = μ r_n/‖u_t‖` (`[t_1, t_2, c]`):
    /// `r_t + μ r_n t + c (I − t tᵀ) u_t = 0`, refined by Newton's method ([`MAX_NEWTON`]).
    Sliding([f64; 3]),
}

/// Grow-only storage of the tight setting's exact candidates (`solver/exact.rs`,
/// `docs/ipm.md` §11.9): part of the iteration state, so that the workspace owns it.
#[derive(Debug, Clone, Default)]
pub(crate) struct ExactWorkspace {
    pub(super) lu: PartialPivLu,
    pub(super) rhs: Vec<f64>,
    pub(super) tmp: Vec<f64>,
    pub(super) col: Vec<f64>,
    pub(super) modes: Vec<Mode>,
    /// The modes of the last candidate tried (a candidate is not tried twice).
    pub(super) tried: Vec<Mode>,
    /// Delassus form (`v` eliminated): each contact's position among the active ones (or
    /// `usize::MAX`) and its first unknown, the active contacts' sizes, the pairs of active
    /// contacts that `W` couples, and the sparse LU of the modes' system.
    pub(super) pos: Vec<usize>,
    pub(super) at: Vec<usize>,
    pub(super) dims: Vec<usize>,
    pub(super) pairs: Vec<(usize, usize)>,
    pub(super) sparse: SparseSlot,
}

impl ExactWorkspace {
    /// Whether the modes are those of the last candidate tried.
    pub(super) fn same_as_tried(&self) -> bool {
        self.modes == self.tried
    }
}

#[derive(Clone, Copy)]
pub(super) enum NewtonBuf {
    Affine,
    Delta,
}

impl NewtonBuf {
    /// The workspace buffer that holds this step (`daff` or `delta`).
    #[inline(always)]
    pub(super) fn of(self, ws: &mut IpmWorkspace) -> &mut Vec<f64> {
        match self {
            NewtonBuf::Affine => &mut ws.daff,
            NewtonBuf::Delta => &mut ws.delta,
        }
    }
}

/// Solves the Newton system for the right-hand side held in `daff` or `delta`, in place.
#[inline(always)]
pub(super) fn solve_newton<F: Form>(ws: &mut IpmWorkspace, form: &mut F, which: NewtonBuf) {
    let big = ws.n + 2 * ws.k_total;
    let data = system_data!(ws);
    let buf = match which {
        NewtonBuf::Affine => &mut ws.daff[..big],
        NewtonBuf::Delta => &mut ws.delta[..big],
    };
    ws.newton.solve_in_place(&data, form, buf);
}

/// `out = −r` with the complementarity block `−(γ∘s − κe)`.
#[inline(always)]
pub(super) fn build_rhs(r: &[f64], e: &[f64], n: usize, kt: usize, kappa: f64, out: &mut [f64]) {
    for (o, &x) in out.iter_mut().zip(r) {
        *o = -x;
    }
    for (o, &ej) in out[n..n + kt].iter_mut().zip(e) {
        *o += kappa * ej;
    }
}

/// Grow-only storage of the sensitivity matrices (column-major).
#[derive(Debug, Clone, Default)]
pub(crate) struct Sensitivities {
    pub valid: bool,
    /// `∂v/∂θ` per parameter: n × cols.
    pub(super) dv: [Vec<f64>; 4],
    /// `∂λ/∂θ` per parameter (λ = local impulses, 3 per contact): 3nc × cols.
    pub(super) dl: [Vec<f64>; 4],
    pub(super) cols: [usize; 4],
    pub(super) rhs: Vec<f64>,
}
