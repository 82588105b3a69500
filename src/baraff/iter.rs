//! The iterative variant (`docs/baraff.md` §7, Darwin2K's `computeForcesIter` as the spec reads
//! it): solve the forces; on an unbounded ray apply a consistency impulse (the ray's contact
//! treated as sticking) and retry; after a few impulses fall back to "frictionless at the ray's
//! row" for this step and flag it.
//!
//! The engine decides what an impulse does to its state (velocities, slip classification,
//! `J̇ q̇`), so it takes part through [`ConsistencyHost`].

use super::{BaraffError, BaraffOutcome, BaraffSolver, Level, ModelProblem};

/// The engine side of [`BaraffSolver::solve_forces_iter`].
pub trait ConsistencyHost {
    /// The force-level problem ([`Level::Acceleration`]) at the host's current state. Sliding
    /// contacts are normal rows with `N − μQ` columns ([`super::Sliding`]).
    fn force_problem(&self) -> ModelProblem<'_>;

    /// The velocity-level problem ([`Level::Velocity`]) of the consistency impulse for an
    /// unbounded ray while driving force-problem row `row` (§7 step 2): every active constraint at
    /// the host's current velocities, plus `row`'s contact as sticking (its normal row and its
    /// tangent rows as [`super::RowKind::Friction`] with μ_s). Returns the problem and the index of
    /// that contact's normal row in it.
    fn consistency_problem(&self, row: usize) -> (ModelProblem<'_>, usize);

    /// Applies a consistency impulse's generalized velocity change `dqdot = M⁻¹ J_fᵀ p` (n): the
    /// host adds it to `q̇`, re-classifies the contact (static once its slip speed is below its
    /// `vtol`) and recomposes (`J̇ q̇` included) for the next [`ConsistencyHost::force_problem`].
    fn apply_velocity_change(&mut self, dqdot: &[f64]);
}

impl BaraffSolver {
    /// `computeForcesIter` (§7): [`BaraffSolver::solve_model`] on the host's force problem; on
    /// [`BaraffOutcome::UnboundedRay`] a [`BaraffSolver::consistency_impulse`] on the host's
    /// consistency problem, handed to the host, and a new attempt, at most
    /// [`super::BaraffParameters::max_consistency_impulses`] times; then the ray's row is made
    /// frictionless (its `μ_d` taken as 0) and the forces solved again, row after row while new
    /// rays appear.
    ///
    /// Returns the outcome of the last force solve, except that a verified solve that needed the
    /// fallback is [`BaraffOutcome::FrictionlessFallback`]. The results are those of the last
    /// force solve; [`super::BaraffStats`] counts the impulses, fallback rows and all pivots.
    pub fn solve_forces_iter<H: ConsistencyHost + ?Sized>(
        &mut self,
        host: &mut H,
    ) -> Result<BaraffOutcome, BaraffError> {
        self.frictionless.clear();
        let max_impulses = self.params.max_consistency_impulses as usize;
        let (mut impulses, mut pivots) = (0usize, 0usize);
        loop {
            let outcome = {
                let p = host.force_problem();
                if !matches!(p.level, Level::Acceleration(_)) {
                    return Err(BaraffError::WrongLevel {
                        call: "solve_forces_iter (force problem)",
                        expected: "acceleration",
                    });
                }
                self.model_solve(&p, None, true)?
            };
            pivots += self.stats.pivots;
            let BaraffOutcome::UnboundedRay { row } = outcome else {
                let outcome = match self.frictionless.first() {
                    Some(&row) if outcome.is_solved() => BaraffOutcome::FrictionlessFallback { row },
                    _ => outcome,
                };
                return Ok(self.finish_iter(outcome, pivots, impulses));
            };
            if impulses < max_impulses && self.frictionless.is_empty() {
                let impulse = {
                    let (p, normal) = host.consistency_problem(row);
                    self.consistency_impulse(&p, normal)?
                };
                pivots += self.stats.pivots;
                if impulse.is_solved() {
                    host.apply_velocity_change(self.generalized_change());
                    impulses += 1;
                    continue;
                }
            }
            if self.frictionless.contains(&row) {
                // Already frictionless and still a ray: nothing left to try.
                return Ok(self.finish_iter(outcome, pivots, impulses));
            }
            self.frictionless.push(row);
        }
    }

    fn finish_iter(&mut self, outcome: BaraffOutcome, pivots: usize, impulses: usize) -> BaraffOutcome {
        self.stats.outcome = outcome;
        self.stats.pivots = pivots;
        self.stats.consistency_impulses = impulses;
        self.stats.frictionless_rows = self.frictionless.len();
        outcome
    }
}
