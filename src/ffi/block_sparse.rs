//! The block-sparse (M, J) form in the C ABI (`docs/block_sparse.md` §1): one struct of borrowed,
//! packed arrays, shared by the solvers that take problem data in that form (TAMSI's
//! `cts_tamsi_solver_set_*_block_problem_data`; the interior-point solver later).
//!
//! This module only turns the C struct into validated raw parts and words the errors with the
//! struct's field names; the structure and value checks themselves are
//! [`BlockSparseLayout::set_indices`] and [`BlockSparseSystem::new`].

#![allow(non_snake_case)] // field names follow the matrices: M, J, M_len, J_len

use super::alloc;
use super::message::{self, Index, g};
use super::status::{FfiError, cts_status};
use super::view::{RawIntVector, RawVector};
use crate::block_sparse::{BlockSparseError, BlockSparseLayout, BlockSparseSystem};

/// Problem data in block-sparse form: the generalized velocities split into *trees* (contiguous
/// dof ranges, in order, covering 0..nv: a free body is a 6-dof tree, an articulated robot one
/// tree, a fixed base no tree), M given as one dense block per tree, and each contact's three
/// Jacobian rows given as one dense block per tree it touches (`docs/block_sparse.md` §1).
///
/// All arrays are packed, column-major `double`s or `int32_t`s:
///
/// * `tree_dofs`: `num_trees` entries, n_t >= 1 dofs of tree t (MuJoCo's `tree_dofnum`); tree t
///   owns the velocities `sum_{s<t} n_s .. sum_{s<=t} n_s - 1`, and `sum_t n_t` must equal the
///   solver's nv.
/// * `M`: `M_len = sum_t n_t^2` doubles, the trees' diagonal blocks of the mass matrix back to
///   back, each n_t×n_t column-major (kg, kg·m² for angular velocities; symmetric positive
///   definite). M is block diagonal by trees: entries between two trees are zero by definition.
/// * `contact_trees`: `2*num_contacts` entries, the trees of contact i at `[2i]` and `[2i+1]`;
///   `-1` marks a static side (the world, a fixed base), at most one per contact; a contact
///   never lists the same tree twice.
/// * `J`: `J_len = 3 * sum_i sum_{t in trees(i)} n_t` doubles: per contact, in contact order, one
///   3×n_t column-major block per tree it touches, in the order its trees are listed (a contact
///   `(-1, b)` has only the block of tree b). Rows: normal, tangent 1, tangent 2 (MuJoCo's
///   elliptic-cone row order): the block maps the tree's velocities to the contact's relative
///   velocity (m/s), the normal component positive when the bodies separate.
///
/// Every value of M and J must be finite. A pointer may be NULL only where its length is 0.
/// The struct itself is copied when it is passed; the arrays it points to are **borrowed** like
/// all problem data: read at the set call and by every later solve, so they must stay allocated
/// and unchanged until the next set call, resize or free.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct cts_block_sparse_data {
    /// Number of trees (ntree).
    pub num_trees: usize,
    /// `num_trees` entries, each >= 1: the dofs of each tree.
    pub tree_dofs: *const i32,
    /// Number of doubles in `M`; must equal the sum of n_t².
    pub M_len: usize,
    /// The trees' diagonal blocks of M, each n_t×n_t column-major, back to back.
    pub M: *const f64,
    /// Number of contacts (nc).
    pub num_contacts: usize,
    /// `2*num_contacts` entries: the trees of contact i at `[2i]`, `[2i+1]`; -1 = static side.
    pub contact_trees: *const i32,
    /// Number of doubles in `J`; must equal 3 times the sum over contacts of the dofs of the
    /// trees each touches.
    pub J_len: usize,
    /// Per contact, one 3×n_t column-major block per tree it touches (rows normal, tangent 1,
    /// tangent 2).
    pub J: *const f64,
}

/// The raw parts of a [`cts_block_sparse_data`], copied from the struct and NULL-checked.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RawBlockSparse {
    tree_dofs: RawIntVector,
    contact_trees: RawIntVector,
    m: RawVector,
    j: RawVector,
    num_contacts: usize,
}

impl RawBlockSparse {
    /// Copies `*data` and checks that every array with a nonzero length has a pointer.
    ///
    /// # Safety
    /// `data` must be NULL or point to a readable struct.
    pub(crate) unsafe fn new(data: *const cts_block_sparse_data) -> Result<Self, FfiError> {
        // SAFETY: NULL or readable (the contract).
        let d = *unsafe { data.as_ref() }.ok_or_else(|| FfiError::null("data"))?;
        let two_nc = d.num_contacts.checked_mul(2).ok_or_else(|| {
            FfiError::new(
                cts_status::InvalidArgument,
                format!(
                    "data->num_contacts = {} is too large (contact_trees has 2 entries per contact)",
                    d.num_contacts
                ),
            )
        })?;
        Ok(Self {
            tree_dofs: RawIntVector::new("data->tree_dofs", d.tree_dofs, d.num_trees)?,
            m: RawVector::new("data->M", d.M, d.M_len)?,
            contact_trees: RawIntVector::new("data->contact_trees", d.contact_trees, two_nc)?,
            j: RawVector::new("data->J", d.J, d.J_len)?,
            num_contacts: d.num_contacts,
        })
    }

    /// Number of contacts.
    pub(crate) fn num_contacts(&self) -> usize {
        self.num_contacts
    }

    /// Number of trees (a lower bound of nv: every tree has at least one dof).
    pub(crate) fn num_trees(&self) -> usize {
        self.tree_dofs.len()
    }

    /// Validates the structure (tree sizes, contact trees) and sets it into `layout`, which is
    /// left as it was on error.
    ///
    /// # Safety
    /// The caller's arrays must be valid (the borrowing rule).
    pub(crate) unsafe fn set_layout(&self, layout: &mut BlockSparseLayout) -> Result<(), FfiError> {
        // SAFETY: forwarded contract; the parts were NULL-checked.
        let (trees, contacts) = unsafe { (self.tree_dofs.slice(), self.contact_trees.slice()) };
        layout.set_indices(trees, contacts).map_err(data_error)
    }

    /// The values as a system on `layout` (the structure set by [`set_layout`](Self::set_layout)),
    /// checking their lengths and that every value is finite.
    ///
    /// # Safety
    /// As [`set_layout`](Self::set_layout).
    pub(crate) unsafe fn system<'a>(
        &self,
        layout: &'a BlockSparseLayout,
    ) -> Result<BlockSparseSystem<'a>, FfiError> {
        // SAFETY: forwarded contract.
        unsafe { self.values_on(layout, BlockSparseSystem::new) }
    }

    /// As [`system`](Self::system) for values [`system`](Self::system) accepted at the set call
    /// and unchanged since (the borrowing rule): lengths only, no scan of the values.
    ///
    /// # Safety
    /// As [`set_layout`](Self::set_layout).
    pub(crate) unsafe fn checked_system<'a>(
        &self,
        layout: &'a BlockSparseLayout,
    ) -> Result<BlockSparseSystem<'a>, FfiError> {
        // SAFETY: forwarded contract.
        unsafe { self.values_on(layout, BlockSparseSystem::with_checked_values) }
    }

    /// The values M and J as a system on `layout`, built by `make`.
    ///
    /// # Safety
    /// As [`set_layout`](Self::set_layout).
    unsafe fn values_on<'a>(
        &self,
        layout: &'a BlockSparseLayout,
        make: impl FnOnce(
            &'a BlockSparseLayout,
            &'a [f64],
            &'a [f64],
        ) -> Result<BlockSparseSystem<'a>, BlockSparseError>,
    ) -> Result<BlockSparseSystem<'a>, FfiError> {
        // SAFETY: forwarded contract.
        let (m, j) = unsafe { (self.m.slice(), self.j.slice()) };
        make(layout, m, j).map_err(data_error)
    }
}

/// A block-sparse structure or value error, worded with the C struct's field names.
fn data_error(e: BlockSparseError) -> FfiError {
    use BlockSparseError as E;
    let invalid = |message: String| FfiError::new(cts_status::InvalidArgument, message);
    match e {
        E::TreeDofs { tree, dofs } => invalid(format!(
            "data->tree_dofs[{tree}] = {dofs} is outside its domain: expected >= 1 (every tree has at least one dof)"
        )),
        E::ContactTree { contact, slot, tree, ntree } => invalid(format!(
            "data->contact_trees[{}] = {tree} (contact {contact}, slot {slot}) is outside its domain: expected -1 \
             (a static side) or a tree index below num_trees = {ntree}",
            2 * contact + slot
        )),
        E::RepeatedTree { contact, tree } => invalid(format!(
            "data->contact_trees[{}], [{}] = {tree}, {tree}: contact {contact} lists tree {tree} twice; expected two \
             distinct trees, or one tree and -1 (its Jacobian blocks would overlap)",
            2 * contact,
            2 * contact + 1
        )),
        E::NoTree { contact } => invalid(format!(
            "data->contact_trees[{}], [{}] = -1, -1: contact {contact} touches no tree; expected at most one \
             static side (-1)",
            2 * contact,
            2 * contact + 1
        )),
        E::Length { what, got, want } => {
            let rule = if what == "M" {
                "the sum of n_t^2 over the trees"
            } else {
                "3 times the sum over the contacts of the dofs of the trees each touches"
            };
            FfiError::new(
                cts_status::DimensionMismatch,
                format!("data->{what}_len = {got}, expected {want} ({rule})"),
            )
        }
        E::NonFinite { what, index, value } => {
            invalid(format!("data->{what}[{index}] = {} is outside its domain: expected finite", g(value)))
        }
        e @ E::Allocation { .. } => {
            FfiError::new(cts_status::AllocationFailed, format!("data: {e}; nothing was changed"))
        }
        e @ (E::ContactTreesLength { .. } | E::TooLarge { .. }) => invalid(format!("data: {e}")),
    }
}

/// The one mapping from block-sparse structure and value errors to status codes and messages.
impl From<BlockSparseError> for FfiError {
    fn from(e: BlockSparseError) -> Self {
        match e {
            BlockSparseError::Length { .. } => Self::new(cts_status::DimensionMismatch, e.to_string()),
            BlockSparseError::NonFinite { what, index, value } => {
                message::non_finite_input(what, Index::Vector(index), value)
            }
            BlockSparseError::Allocation { what, len } => alloc::entries_failed(what, len),
            _ => Self::new(cts_status::InvalidArgument, e.to_string()),
        }
    }
}
