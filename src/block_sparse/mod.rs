//! The block-sparse problem form shared by the solvers that take (M, J): velocities split into
//! trees, M one dense block per tree, each contact's three Jacobian rows one dense block per tree
//! it touches (`docs/block_sparse.md`).
//!
//! This is the structure of an engine's state (MuJoCo's kinematic trees, Drake's cliques, a game
//! engine's body pairs): a pile of 200 boxes has nv = 1200 but each contact row has at most 12
//! nonzeros. The form keeps the data at that size and lets a solver work per *island* (a
//! connected component of the tree–contact graph), whose Newton matrices are independent.
//!
//! * [`BlockSparseLayout`]: the structure (tree sizes, each contact's trees) and the offsets of
//!   every block in the packed value arrays; validated when set.
//! * [`BlockSparseSystem`]: the layout plus borrowed packed values of M and J; the products
//!   `M·v`, `J·v` and `Jᵀ·f` block by block.
//! * [`Islands`]: the connected components of trees and contacts, and the trees no contact
//!   touches.
//! * [`BlockNewtonMatrix`]: per island, the Newton matrix `M + s·Σᵢ Jᵢᵀ Wᵢ Jᵢ` with a 3×3 weight
//!   `Wᵢ` per contact, assembled in place, factored (dense LU or LDLᵀ) and solved; the trees no
//!   contact touches are solved with their own M block; with a worker pool the islands are
//!   assembled, factored and solved in parallel.
//! * [`WorkSplit`]: the contacts and trees cut into ranges for the participants of a pool.

mod islands;
mod layout;
mod newton;
mod rows;
mod split;
mod system;

pub use islands::Islands;
pub(crate) use layout::try_grow;
pub use layout::{BlockSparseLayout, MAX_BLOCK_INDEX};
pub use newton::{BlockNewtonMatrix, Factorization, IslandChunk, IslandCost};
pub use rows::ContactRows;
pub(crate) use rows::{Rows, transpose_into};
pub use split::WorkSplit;
pub use system::BlockSparseSystem;

/// A block-sparse structure or value array that cannot be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BlockSparseError {
    /// A tree with fewer than one dof.
    #[error("tree {tree} has {dofs} dofs; every tree needs at least 1")]
    TreeDofs {
        /// Index of the tree.
        tree: usize,
        /// Its dof count as given.
        dofs: i64,
    },
    /// A contact's tree index outside `−1..ntree` (−1: static side).
    #[error(
        "contact {contact}: tree index {tree} in slot {slot} is outside -1..{ntree} (-1 marks a static side)"
    )]
    ContactTree {
        /// Index of the contact.
        contact: usize,
        /// 0 for the first tree, 1 for the second.
        slot: usize,
        /// The index as given.
        tree: i64,
        /// Number of trees.
        ntree: usize,
    },
    /// A contact lists the same tree twice (its blocks would overlap).
    #[error("contact {contact} lists tree {tree} twice; a contact touches one tree or two distinct trees")]
    RepeatedTree {
        /// Index of the contact.
        contact: usize,
        /// The repeated tree.
        tree: usize,
    },
    /// A contact with both sides static.
    #[error("contact {contact} touches no tree (both sides are -1)")]
    NoTree {
        /// Index of the contact.
        contact: usize,
    },
    /// The C encoding of contact trees has two entries per contact.
    #[error("contact_trees has odd length {len}; it holds two tree indices per contact")]
    ContactTreesLength {
        /// Length as given.
        len: usize,
    },
    /// A size past what can be indexed or allocated.
    #[error("{what} is too large ({value})")]
    TooLarge {
        /// What overflowed.
        what: &'static str,
        /// The offending value (u64::MAX when it overflowed).
        value: u64,
    },
    /// A packed value array of the wrong length.
    #[error("{what} has {got} values; the layout needs {want}")]
    Length {
        /// Which array.
        what: &'static str,
        /// Its length.
        got: usize,
        /// The length the layout implies.
        want: usize,
    },
    /// A NaN or infinite value.
    #[error("{what}[{index}] = {value} is not finite")]
    NonFinite {
        /// Which array.
        what: &'static str,
        /// Index of the first non-finite value.
        index: usize,
        /// The value.
        value: f64,
    },
    /// Storage for the structure could not be allocated.
    #[error("cannot allocate {len} entries for the {what}")]
    Allocation {
        /// What was being allocated.
        what: &'static str,
        /// Number of entries.
        len: usize,
    },
}
