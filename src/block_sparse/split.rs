//! How a solve on block-sparse data splits its per-contact and per-tree work over the
//! participants of a worker pool (`docs/performance.md` §8).

use super::rows::split_block;
use super::{BlockSparseError, BlockSparseSystem, ContactRows, try_grow};

/// Consecutive ranges of contacts and of trees, one per participant, of about equal work, and per
/// tree the contacts that touch it, so that `Jᵀ f` can be summed tree by tree: every dof then
/// receives its contacts' terms in increasing contact order, as in the sequential sum, and the
/// bits are the same.
///
/// Storage only grows; [`prepare`](Self::prepare) allocates nothing for a problem no larger than
/// one seen before.
#[derive(Debug, Clone, Default)]
pub struct WorkSplit {
    parts: usize,
    /// Participant p's contacts are `contacts[p]..contacts[p + 1]`.
    contacts: Vec<usize>,
    /// Participant p's trees are `trees[p]..trees[p + 1]`, its dofs `dofs[p]..dofs[p + 1]`.
    trees: Vec<usize>,
    dofs: Vec<usize>,
    /// Tree t's contacts, increasing, as `2·contact + slot` (slot: the contact's first or second
    /// tree): `by_tree[tree_start[t]..tree_start[t + 1]]`.
    tree_start: Vec<usize>,
    by_tree: Vec<u32>,
}

impl WorkSplit {
    /// Cuts the contacts and trees of `system` into `parts` ranges (contacts by count, trees by
    /// `n_t² + 3·n_t·(contacts on t)`, the cost of `M_t v_t` and of their `Jᵀ f`).
    pub fn prepare(&mut self, system: &BlockSparseSystem<'_>, parts: usize) -> Result<(), BlockSparseError> {
        let layout = system.layout();
        let (ntree, nc) = (layout.num_trees(), layout.num_contacts());
        let parts = parts.max(1);
        let what = "work split";
        try_grow(&mut self.contacts, parts + 1, 0, what)?;
        try_grow(&mut self.trees, parts + 1, 0, what)?;
        try_grow(&mut self.dofs, parts + 1, 0, what)?;
        try_grow(&mut self.tree_start, ntree + 1, 0, what)?;
        try_grow(&mut self.by_tree, 2 * nc, 0, what)?;
        self.parts = parts;
        // Per tree, its contacts (a counting sort keeps them increasing).
        let start = &mut self.tree_start[..ntree + 1];
        start.fill(0);
        for i in 0..nc {
            let (a, b) = layout.contact_trees(i);
            start[a + 1] += 1;
            if let Some(b) = b {
                start[b + 1] += 1;
            }
        }
        for t in 0..ntree {
            start[t + 1] += start[t];
        }
        for i in 0..nc {
            let (a, b) = layout.contact_trees(i);
            for (slot, t) in [(0, Some(a)), (1, b)] {
                if let Some(t) = t {
                    // `start[t]` is the fill cursor of tree t until the shift below.
                    self.by_tree[start[t]] = (2 * i + slot) as u32;
                    start[t] += 1;
                }
            }
        }
        for t in (0..ntree).rev() {
            start[t + 1] = start[t];
        }
        start[0] = 0;
        crate::parallel::balanced_cuts(nc, |_| 1.0, &mut self.contacts[..parts + 1]);
        let start = &self.tree_start;
        let cost = |t: usize| {
            let n = layout.tree_dofs(t) as f64;
            n * n + 3.0 * n * (start[t + 1] - start[t]) as f64
        };
        crate::parallel::balanced_cuts(ntree, cost, &mut self.trees[..parts + 1]);
        for (d, &t) in self.dofs[..parts + 1].iter_mut().zip(&self.trees[..parts + 1]) {
            *d = if t < ntree { layout.tree_range(t).start } else { layout.num_velocities() };
        }
        Ok(())
    }

    /// Number of participants the split was made for.
    #[inline]
    pub fn parts(&self) -> usize {
        self.parts
    }

    /// The contact bounds (`parts + 1`).
    #[inline]
    pub fn contact_bounds(&self) -> &[usize] {
        &self.contacts[..self.parts + 1]
    }

    /// The tree bounds (`parts + 1`).
    #[inline]
    pub fn tree_bounds(&self) -> &[usize] {
        &self.trees[..self.parts + 1]
    }

    /// The dof bounds (`parts + 1`): where each participant's trees start.
    #[inline]
    pub fn dof_bounds(&self) -> &[usize] {
        &self.dofs[..self.parts + 1]
    }

    /// `tau_t += J_tᵀ ft` and `tau_n += J_nᵀ fn` on tree t's dofs from the contacts touching t, in
    /// increasing contact order (the sums of [`ContactRows::add_split_force`], dof by dof);
    /// `forces(i) = (ft0, ft1, fn)`, `tau_t` and `tau_n` are tree t's entries.
    #[inline(always)]
    pub fn add_tree_forces(
        &self,
        rows: &ContactRows,
        system: &BlockSparseSystem<'_>,
        t: usize,
        forces: &impl Fn(usize) -> (f64, f64, f64),
        tau_t: &mut [f64],
        tau_n: &mut [f64],
    ) {
        for (i, slot) in self.tree_contacts(t) {
            let (ft0, ft1, fn_) = forces(i);
            if let Some(g) = rows.tree_block(system, i, slot) {
                split_block(g, [ft0, ft1], fn_, tau_t, tau_n);
            }
        }
    }

    /// Tree t's contacts in increasing order, as (contact, slot) with slot the contact's first
    /// (0) or second (1) tree.
    #[inline(always)]
    pub fn tree_contacts(&self, t: usize) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.by_tree[self.tree_start[t]..self.tree_start[t + 1]]
            .iter()
            .map(|&e| ((e / 2) as usize, (e % 2) as usize))
    }
}
