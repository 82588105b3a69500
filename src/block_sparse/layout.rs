//! The structure of a block-sparse problem: trees, and the trees each contact touches.

use std::sync::atomic::{AtomicU64, Ordering};

use super::BlockSparseError;

/// Marks the empty second slot of a contact that touches one tree.
const NO_TREE: u32 = u32::MAX;

/// The next [`BlockSparseLayout::structure_id`] handed out (0 is the empty layout's).
static NEXT_STRUCTURE_ID: AtomicU64 = AtomicU64::new(1);

/// Largest number of trees or contacts a layout accepts (indices are stored as `u32`).
pub const MAX_BLOCK_INDEX: usize = (u32::MAX - 1) as usize;

/// The structure of a block-sparse (M, J) problem: which dofs form each tree and which trees each
/// contact touches, with the offset of every block in the packed value arrays
/// (`docs/block_sparse.md` §1).
///
/// * **Trees** are contiguous ranges of the generalized velocities, in order, covering `0..nv`:
///   tree t has `n_t ≥ 1` dofs starting at `Σ_{s<t} n_s` (a free body is a 6-dof tree, an
///   articulated robot one tree, a fixed base no tree). M is block diagonal by trees.
/// * **Contacts** touch one tree, or two distinct trees; the other side of a one-tree contact is
///   static (the world, a wall, a fixed base). The order in which a contact's trees are listed is
///   the order of its Jacobian blocks.
/// * **Packed M**: the trees' diagonal blocks back to back, each `n_t×n_t` column-major; tree t's
///   block starts at `Σ_{s<t} n_s²`.
/// * **Packed J**: per contact, in contact order, one `3×n_t` column-major block per tree it
///   touches, in the order its trees are listed; the rows are (normal, tangent 1, tangent 2) —
///   MuJoCo's elliptic-cone row order.
///
/// [`set`](Self::set) and [`set_indices`](Self::set_indices) validate a structure and replace the
/// current one; on an error the current structure is kept. Storage grows only when a structure is
/// larger than any seen before, and a failed allocation is an error, never an abort.
///
/// Every structure carries an id ([`structure_id`](Self::structure_id)): a set call that gives the
/// current structure again keeps it, any other gets an id no layout of the process had before.
/// Work that depends on the structure alone (the islands, the symbolic analysis, where each
/// contact's terms go in the Newton matrix) is redone only when the id changes: in an engine's
/// loop the contact graph holds for many steps (`docs/performance.md` §3 "The live loop").
#[derive(Debug, Clone, Default)]
pub struct BlockSparseLayout {
    current: Tables,
    /// Where a new structure is built and validated before it replaces `current`.
    spare: Tables,
    /// Whether the last successful set swapped `spare` in (a set of the current structure does
    /// not), so that [`restore_previous`](Self::restore_previous) knows what to undo.
    swapped: bool,
}

#[derive(Debug, Clone, Default)]
struct Tables {
    /// The structure's id: equal ids, equal structures (see [`BlockSparseLayout`]).
    id: u64,
    ntree: usize,
    nc: usize,
    /// Tree t's dofs are `tree_start[t]..tree_start[t + 1]`; `ntree + 1` entries.
    tree_start: Vec<usize>,
    /// Tree t's M block starts at `m_start[t]` in packed M; `ntree + 1` entries.
    m_start: Vec<usize>,
    /// The trees of contact i; the second is `NO_TREE` for a one-tree contact.
    contact_trees: Vec<[u32; 2]>,
    /// Contact i's Jacobian blocks start at `j_start[i]` in packed J; `nc + 1` entries.
    j_start: Vec<usize>,
}

impl Tables {
    /// Whether these tables hold the structure `tree_dofs`, `contact_trees` in the C encoding
    /// (`contact_trees` of even length): the same trees and, per contact, the same trees in the
    /// same block order (`(−1, b)` and `(b, −1)` both are the single block of tree b). Only a
    /// valid structure can equal the tables, so a match needs no other check.
    fn is(&self, tree_dofs: &[i32], contact_trees: &[i32]) -> bool {
        let (ntree, nc) = (tree_dofs.len(), contact_trees.len() / 2);
        if ntree != self.ntree
            || nc != self.nc
            || self.tree_start.len() <= ntree
            || self.contact_trees.len() < nc
        {
            return false;
        }
        // Branch-free folds over both arrays (the compiler vectorizes the first).
        let trees = self.tree_start[..=ntree]
            .windows(2)
            .zip(tree_dofs)
            .fold(true, |same, (w, &n)| same & (w[1] - w[0] == n as usize) & (n >= 1));
        let contacts = self.contact_trees[..nc].iter().zip(contact_trees.chunks_exact(2)).fold(
            true,
            |same, (&[a, b], c)| {
                // The stored pair in the C encoding, a static side as −1, listed first or second.
                let (a, b) = (i64::from(a), if b == NO_TREE { -1 } else { i64::from(b) });
                let (x, y) = (i64::from(c[0]), i64::from(c[1]));
                same & (((x, y) == (a, b)) | ((b == -1) & (x == -1) & (y == a)))
            },
        );
        trees & contacts
    }

    /// Whether `other` holds the same structure (trees and contact trees).
    fn same_structure(&self, other: &Tables) -> bool {
        let (ntree, nc) = (self.ntree, self.nc);
        ntree == other.ntree
            && nc == other.nc
            && other.tree_start.len() > ntree
            && other.contact_trees.len() >= nc
            && self.tree_start[..=ntree] == other.tree_start[..=ntree]
            && self.contact_trees[..nc] == other.contact_trees[..nc]
    }
}

/// Grows `v` to at least `len` entries without aborting on allocation failure.
pub(crate) fn try_grow<T: Clone>(
    v: &mut Vec<T>,
    len: usize,
    fill: T,
    what: &'static str,
) -> Result<(), BlockSparseError> {
    crate::linalg::try_grow(v, len, fill).map_err(|_| BlockSparseError::Allocation { what, len })
}

impl BlockSparseLayout {
    /// An empty layout (no trees, no contacts).
    pub fn new() -> Self {
        Self::default()
    }

    /// Validates and sets a structure given as Rust values: `tree_dofs[t] ≥ 1` dofs per tree,
    /// and per contact its first tree and its optional second tree (distinct from the first).
    pub fn set(
        &mut self,
        tree_dofs: &[usize],
        contact_trees: &[(usize, Option<usize>)],
    ) -> Result<(), BlockSparseError> {
        let index = |t: usize| i64::try_from(t).unwrap_or(i64::MAX);
        self.set_from(
            tree_dofs.iter().map(|&n| index(n)),
            contact_trees.iter().map(|&(a, b)| [index(a), b.map_or(-1, index)]),
        )
    }

    /// Validates and sets a structure in the C encoding (MuJoCo's integer arrays too):
    /// `tree_dofs[t] ≥ 1` dofs per tree, and `contact_trees[2i]`, `contact_trees[2i + 1]` the trees
    /// of contact i, where −1 marks a static side (at most one of the two; a contact `(−1, b)` has
    /// the single Jacobian block of tree b).
    ///
    /// The current structure given again (an engine's loop while its contact graph holds) is
    /// recognized by one comparison pass and kept as it is, with its id.
    pub fn set_indices(&mut self, tree_dofs: &[i32], contact_trees: &[i32]) -> Result<(), BlockSparseError> {
        if !contact_trees.len().is_multiple_of(2) {
            return Err(BlockSparseError::ContactTreesLength { len: contact_trees.len() });
        }
        if self.current.is(tree_dofs, contact_trees) {
            self.swapped = false;
            return Ok(());
        }
        self.set_from(
            tree_dofs.iter().map(|&n| i64::from(n)),
            contact_trees.chunks_exact(2).map(|c| [i64::from(c[0]), i64::from(c[1])]),
        )
    }

    fn set_from(
        &mut self,
        tree_dofs: impl ExactSizeIterator<Item = i64>,
        contacts: impl ExactSizeIterator<Item = [i64; 2]>,
    ) -> Result<(), BlockSparseError> {
        let (ntree, nc) = (tree_dofs.len(), contacts.len());
        if ntree > MAX_BLOCK_INDEX {
            return Err(BlockSparseError::TooLarge { what: "the number of trees", value: ntree as u64 });
        }
        if nc > MAX_BLOCK_INDEX {
            return Err(BlockSparseError::TooLarge { what: "the number of contacts", value: nc as u64 });
        }
        let s = &mut self.spare;
        try_grow(&mut s.tree_start, ntree + 1, 0, "tree offsets")?;
        try_grow(&mut s.m_start, ntree + 1, 0, "mass-block offsets")?;
        try_grow(&mut s.contact_trees, nc, [NO_TREE; 2], "contact trees")?;
        try_grow(&mut s.j_start, nc + 1, 0, "Jacobian-block offsets")?;
        s.tree_start[0] = 0;
        s.m_start[0] = 0;
        for (t, n) in tree_dofs.enumerate() {
            if n < 1 {
                return Err(BlockSparseError::TreeDofs { tree: t, dofs: n });
            }
            let n = n as u64;
            let too_large = || BlockSparseError::TooLarge { what: "the number of velocities", value: n };
            let n = usize::try_from(n).map_err(|_| too_large())?;
            let square = n.checked_mul(n).ok_or_else(too_large)?;
            s.tree_start[t + 1] = s.tree_start[t].checked_add(n).ok_or_else(too_large)?;
            s.m_start[t + 1] = s.m_start[t]
                .checked_add(square)
                .ok_or(BlockSparseError::TooLarge { what: "the packed mass matrix", value: u64::MAX })?;
        }
        s.j_start[0] = 0;
        for (i, [a, b]) in contacts.enumerate() {
            let check = |slot: usize, t: i64| {
                if t < -1 || t >= ntree as i64 {
                    Err(BlockSparseError::ContactTree { contact: i, slot, tree: t, ntree })
                } else {
                    Ok(t)
                }
            };
            let (a, b) = (check(0, a)?, check(1, b)?);
            let trees = match (a, b) {
                (-1, -1) => return Err(BlockSparseError::NoTree { contact: i }),
                (a, b) if a == b => {
                    return Err(BlockSparseError::RepeatedTree { contact: i, tree: a as usize });
                }
                (-1, t) | (t, -1) => [t as u32, NO_TREE],
                (a, b) => [a as u32, b as u32],
            };
            let dofs: usize = trees
                .iter()
                .filter(|&&t| t != NO_TREE)
                .map(|&t| s.tree_start[t as usize + 1] - s.tree_start[t as usize])
                .sum();
            s.contact_trees[i] = trees;
            s.j_start[i + 1] = dofs
                .checked_mul(3)
                .and_then(|len| s.j_start[i].checked_add(len))
                .ok_or(BlockSparseError::TooLarge { what: "the packed Jacobian", value: u64::MAX })?;
        }
        s.ntree = ntree;
        s.nc = nc;
        s.id = if s.same_structure(&self.current) {
            self.current.id
        } else {
            NEXT_STRUCTURE_ID.fetch_add(1, Ordering::Relaxed)
        };
        std::mem::swap(&mut self.current, &mut self.spare);
        self.swapped = true;
        Ok(())
    }

    /// Puts back the structure that the last successful [`set`](Self::set) or
    /// [`set_indices`](Self::set_indices) replaced, for a caller whose own checks of data on the
    /// new structure failed (the C API keeps the previous problem data usable that way). Valid
    /// once, directly after a successful set; it allocates nothing, since the previous structure
    /// is kept in the storage the next set builds into. After a set that kept the current
    /// structure there is nothing to put back.
    pub(crate) fn restore_previous(&mut self) {
        if std::mem::take(&mut self.swapped) {
            std::mem::swap(&mut self.current, &mut self.spare);
        }
    }

    /// The id of the current structure: two layouts (or one layout at two times) with the same id
    /// have the same trees and contact trees. The empty layout's is 0.
    #[inline]
    pub fn structure_id(&self) -> u64 {
        self.current.id
    }

    /// Number of trees.
    pub fn num_trees(&self) -> usize {
        self.current.ntree
    }

    /// Number of contacts.
    pub fn num_contacts(&self) -> usize {
        self.current.nc
    }

    /// Number of generalized velocities, `Σ_t n_t`.
    pub fn num_velocities(&self) -> usize {
        self.current.tree_start.get(self.current.ntree).copied().unwrap_or(0)
    }

    /// The dofs of tree t: `first..first + n_t`.
    #[inline]
    pub fn tree_range(&self, t: usize) -> std::ops::Range<usize> {
        self.current.tree_start[t]..self.current.tree_start[t + 1]
    }

    /// Number of dofs of tree t.
    #[inline]
    pub fn tree_dofs(&self, t: usize) -> usize {
        self.current.tree_start[t + 1] - self.current.tree_start[t]
    }

    /// Tree t's block in packed M: `n_t²` values from this offset.
    #[inline]
    pub fn m_offset(&self, t: usize) -> usize {
        self.current.m_start[t]
    }

    /// Length of packed M, `Σ_t n_t²`.
    pub fn m_len(&self) -> usize {
        self.current.m_start.get(self.current.ntree).copied().unwrap_or(0)
    }

    /// The trees of contact i, in the order of its Jacobian blocks: the first, and the second if
    /// it touches two.
    #[inline]
    pub fn contact_trees(&self, i: usize) -> (usize, Option<usize>) {
        let [a, b] = self.current.contact_trees[i];
        (a as usize, (b != NO_TREE).then_some(b as usize))
    }

    /// Contact i's Jacobian blocks in packed J: `3·Σ n_t` values from this offset.
    #[inline]
    pub fn j_offset(&self, i: usize) -> usize {
        self.current.j_start[i]
    }

    /// Length of packed J, `3·Σ_i Σ_{t ∈ trees(i)} n_t`.
    pub fn j_len(&self) -> usize {
        self.current.j_start.get(self.current.nc).copied().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_follow_the_packing_rules() {
        let mut l = BlockSparseLayout::new();
        l.set(&[6, 7, 6], &[(0, None), (2, Some(1)), (1, None)]).unwrap();
        assert_eq!((l.num_trees(), l.num_contacts(), l.num_velocities()), (3, 3, 19));
        assert_eq!((l.tree_range(1), l.tree_range(2)), (6..13, 13..19));
        assert_eq!((l.m_offset(1), l.m_offset(2), l.m_len()), (36, 85, 121));
        assert_eq!(l.contact_trees(1), (2, Some(1)));
        assert_eq!((l.j_offset(1), l.j_offset(2), l.j_len()), (18, 57, 78));
        // The C encoding, with a static first side.
        l.set_indices(&[6, 7, 6], &[-1, 0, 2, 1, 1, -1]).unwrap();
        assert_eq!(l.contact_trees(0), (0, None));
        assert_eq!(l.j_len(), 78);
    }

    #[test]
    fn invalid_structures_are_rejected_and_the_previous_one_kept() {
        let mut l = BlockSparseLayout::new();
        l.set(&[6, 6], &[(0, Some(1))]).unwrap();
        let cases: [(&[i32], &[i32], &str); 6] = [
            (&[6, 0], &[0, 1], "tree 1 has 0 dofs"),
            (&[6, 6], &[0, 2], "contact 0: tree index 2 in slot 1"),
            (&[6, 6], &[-2, 1], "tree index -2"),
            (&[6, 6], &[1, 1], "lists tree 1 twice"),
            (&[6, 6], &[-1, -1], "touches no tree"),
            (&[6, 6], &[0, 1, 0], "odd length 3"),
        ];
        for (trees, contacts, want) in cases {
            let e = l.set_indices(trees, contacts).unwrap_err().to_string();
            assert!(e.contains(want), "{e:?} should contain {want:?}");
            assert_eq!((l.num_trees(), l.num_contacts(), l.j_len()), (2, 1, 36));
        }
    }

    #[test]
    fn a_structure_keeps_its_id_while_it_is_given_again() {
        let mut l = BlockSparseLayout::new();
        assert_eq!(l.structure_id(), 0);
        l.set_indices(&[6, 7, 6], &[0, -1, 2, 1, -1, 1]).unwrap();
        let id = l.structure_id();
        assert_ne!(id, 0);
        // The same structure: by the C fast path (either encoding of a static side) and by `set`.
        l.set_indices(&[6, 7, 6], &[0, -1, 2, 1, -1, 1]).unwrap();
        l.set_indices(&[6, 7, 6], &[-1, 0, 2, 1, 1, -1]).unwrap();
        l.set(&[6, 7, 6], &[(0, None), (2, Some(1)), (1, None)]).unwrap();
        assert_eq!(l.structure_id(), id);
        assert_eq!((l.contact_trees(0), l.contact_trees(2), l.j_len()), ((0, None), (1, None), 78));
        // A restore after a set that kept the structure keeps it (the spare holds another one).
        l.set_indices(&[6, 6], &[0, 1]).unwrap();
        l.set_indices(&[6, 7, 6], &[0, -1, 2, 1, -1, 1]).unwrap();
        let id = l.structure_id();
        l.set_indices(&[6, 7, 6], &[0, -1, 2, 1, -1, 1]).unwrap();
        l.restore_previous();
        assert_eq!((l.structure_id(), l.num_trees(), l.num_contacts()), (id, 3, 3));
        // Any change is a new structure with a new id: a tree's size, a contact's trees or
        // their order (the block order), one contact more or less, an invalid structure.
        let changes: [(&[i32], &[i32]); 6] = [
            (&[6, 7, 5], &[0, -1, 2, 1, -1, 1]),
            (&[6, 7, 6], &[0, -1, 2, 0, -1, 1]),
            (&[6, 7, 6], &[0, -1, 1, 2, -1, 1]),
            (&[6, 7, 6], &[0, -1, 2, 1]),
            (&[6, 7, 6], &[0, -1, 2, 1, -1, 1, 0, 1]),
            (&[6, 7, 6, 1], &[0, -1, 2, 1, -1, 1]),
        ];
        let mut seen = vec![id];
        for (trees, contacts) in changes {
            l.set_indices(trees, contacts).unwrap();
            assert!(!seen.contains(&l.structure_id()), "{trees:?} {contacts:?}");
            seen.push(l.structure_id());
            l.set_indices(&[6, 7, 6], &[0, -1, 2, 1, -1, 1]).unwrap();
            seen.push(l.structure_id());
        }
        for (trees, contacts) in
            [(&[6, 7, 6][..], &[0, 0, 2, 1, -1, 1][..]), (&[6, 0, 6], &[0, -1, 2, 1, -1, 1])]
        {
            assert!(l.set_indices(trees, contacts).is_err(), "{trees:?} {contacts:?}");
        }
        // A clone has the same structure and id; another layout given it has another id.
        assert_eq!(l.clone().structure_id(), l.structure_id());
        let mut other = BlockSparseLayout::new();
        other.set_indices(&[6, 7, 6], &[0, -1, 2, 1, -1, 1]).unwrap();
        assert_ne!(other.structure_id(), l.structure_id());
    }

    #[test]
    fn the_previous_structure_can_be_restored() {
        let mut l = BlockSparseLayout::new();
        l.set(&[6, 6], &[(0, Some(1))]).unwrap();
        l.set_indices(&[1, 2, 3], &[2, -1]).unwrap();
        assert_eq!((l.num_trees(), l.num_contacts(), l.j_len()), (3, 1, 9));
        l.restore_previous();
        assert_eq!((l.num_trees(), l.num_contacts(), l.j_len()), (2, 1, 36));
        assert_eq!(l.contact_trees(0), (0, Some(1)));
    }
}
