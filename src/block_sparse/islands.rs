//! Islands: the connected components of the graph whose nodes are trees and whose edges are
//! contacts (`docs/block_sparse.md` §2).

use super::{BlockSparseError, BlockSparseLayout, try_grow};

const NONE: u32 = u32::MAX;

/// The islands of a [`BlockSparseLayout`]: trees joined by contacts, directly or through other
/// trees. The Newton matrix of a contact problem is block diagonal by islands, so each island can
/// be assembled and factored on its own. Trees that no contact touches belong to no island
/// ("free trees").
///
/// Numbering is deterministic: islands in increasing order of their smallest tree; inside an
/// island, trees and contacts in increasing order. An island's local dof numbering follows its
/// trees' order. Storage only grows: partitioning a layout no larger than one seen before
/// allocates nothing.
#[derive(Debug, Clone, Default)]
pub struct Islands {
    count: usize,
    /// Union–find parent per tree.
    parent: Vec<u32>,
    /// Island of tree t, or `NONE` for a free tree.
    tree_island: Vec<u32>,
    /// First dof of tree t in its island's local numbering.
    tree_local: Vec<usize>,
    /// Position of tree t among its island's trees.
    tree_index: Vec<u32>,
    /// Island k's trees are `trees[tree_start[k]..tree_start[k + 1]]`.
    tree_start: Vec<usize>,
    trees: Vec<u32>,
    /// Island k's contacts are `contacts[contact_start[k]..contact_start[k + 1]]`.
    contact_start: Vec<usize>,
    contacts: Vec<u32>,
    /// Island k's dofs: `dof_start[k + 1] − dof_start[k]`.
    dof_start: Vec<usize>,
    free_trees: Vec<u32>,
    nfree: usize,
    /// Per-island fill cursor (scratch).
    cursor: Vec<usize>,
}

impl Islands {
    /// An empty partition.
    pub fn new() -> Self {
        Self::default()
    }

    /// Partitions `layout`: union–find over its contacts' trees, O(ntree + nc).
    pub fn partition(&mut self, layout: &BlockSparseLayout) -> Result<(), BlockSparseError> {
        let (ntree, nc) = (layout.num_trees(), layout.num_contacts());
        let what = "island partition";
        try_grow(&mut self.parent, ntree, 0, what)?;
        try_grow(&mut self.tree_island, ntree, NONE, what)?;
        try_grow(&mut self.tree_local, ntree, 0, what)?;
        try_grow(&mut self.tree_index, ntree, 0, what)?;
        try_grow(&mut self.tree_start, ntree + 1, 0, what)?;
        try_grow(&mut self.trees, ntree, 0, what)?;
        try_grow(&mut self.contact_start, ntree + 1, 0, what)?;
        try_grow(&mut self.contacts, nc, 0, what)?;
        try_grow(&mut self.dof_start, ntree + 1, 0, what)?;
        try_grow(&mut self.free_trees, ntree, 0, what)?;
        try_grow(&mut self.cursor, ntree, 0, what)?;

        // Components. `tree_island` first only marks the trees a contact touches (0).
        let parent = &mut self.parent[..ntree];
        for (t, p) in parent.iter_mut().enumerate() {
            *p = t as u32;
        }
        let island = &mut self.tree_island[..ntree];
        island.fill(NONE);
        for i in 0..nc {
            let (a, b) = layout.contact_trees(i);
            island[a] = 0;
            if let Some(b) = b {
                island[b] = 0;
                union(parent, a as u32, b as u32);
            }
        }
        // A component's root is its smallest tree (see `union`), met first in this increasing
        // sweep, so islands come numbered by their smallest tree.
        let (mut count, mut nfree) = (0, 0);
        for t in 0..ntree {
            if island[t] == NONE {
                self.free_trees[nfree] = t as u32;
                nfree += 1;
                continue;
            }
            let root = find(parent, t as u32) as usize;
            island[t] = if root == t {
                count += 1;
                (count - 1) as u32
            } else {
                island[root]
            };
        }
        self.count = count;
        self.nfree = nfree;

        // Trees by island (counting sort keeps increasing order), their local dof offsets.
        let (ts, ds) = (&mut self.tree_start[..count + 1], &mut self.dof_start[..count + 1]);
        ts.fill(0);
        ds.fill(0);
        for &k in island.iter().filter(|&&k| k != NONE) {
            ts[k as usize + 1] += 1;
        }
        for k in 0..count {
            ts[k + 1] += ts[k];
        }
        let cursor = &mut self.cursor[..count];
        cursor.copy_from_slice(&ts[..count]);
        for (t, &k) in island.iter().enumerate().filter(|&(_, &k)| k != NONE) {
            let k = k as usize;
            self.trees[cursor[k]] = t as u32;
            self.tree_index[t] = (cursor[k] - ts[k]) as u32;
            cursor[k] += 1;
            self.tree_local[t] = ds[k + 1];
            ds[k + 1] += layout.tree_dofs(t);
        }
        for k in 0..count {
            ds[k + 1] += ds[k];
        }

        // Contacts by island of their (first) tree.
        let cs = &mut self.contact_start[..count + 1];
        cs.fill(0);
        for i in 0..nc {
            cs[island[layout.contact_trees(i).0] as usize + 1] += 1;
        }
        for k in 0..count {
            cs[k + 1] += cs[k];
        }
        cursor.copy_from_slice(&cs[..count]);
        for i in 0..nc {
            let k = island[layout.contact_trees(i).0] as usize;
            self.contacts[cursor[k]] = i as u32;
            cursor[k] += 1;
        }
        Ok(())
    }

    /// Number of islands.
    #[inline]
    pub fn count(&self) -> usize {
        self.count
    }

    /// The trees of island k, increasing.
    #[inline]
    pub fn trees(&self, k: usize) -> &[u32] {
        &self.trees[self.tree_start[k]..self.tree_start[k + 1]]
    }

    /// The contacts of island k, increasing.
    #[inline]
    pub fn contacts(&self, k: usize) -> &[u32] {
        &self.contacts[self.contact_start[k]..self.contact_start[k + 1]]
    }

    /// Position of island k's first contact in the island order of the contacts (island 0's
    /// contacts, then island 1's, …); `k = count` gives the number of contacts.
    #[inline]
    pub fn contact_offset(&self, k: usize) -> usize {
        self.contact_start[k]
    }

    /// Number of dofs of island k.
    #[inline]
    pub fn dofs(&self, k: usize) -> usize {
        self.dof_start[k + 1] - self.dof_start[k]
    }

    /// The island of tree t, `None` for a free tree.
    #[inline]
    pub fn island_of_tree(&self, t: usize) -> Option<usize> {
        let k = self.tree_island[t];
        (k != NONE).then_some(k as usize)
    }

    /// First dof of tree t in its island's local numbering (trees in increasing order).
    #[inline]
    pub fn local_offset(&self, t: usize) -> usize {
        self.tree_local[t]
    }

    /// Position of tree t among the trees of its island ([`trees`](Self::trees)).
    #[inline]
    pub fn local_index(&self, t: usize) -> usize {
        self.tree_index[t] as usize
    }

    /// The trees no contact touches, increasing.
    #[inline]
    pub fn free_trees(&self) -> &[u32] {
        &self.free_trees[..self.nfree]
    }
}

fn find(parent: &mut [u32], mut t: u32) -> u32 {
    while parent[t as usize] != t {
        // Path halving.
        let up = parent[parent[t as usize] as usize];
        parent[t as usize] = up;
        t = up;
    }
    t
}

/// Joins the components of a and b under the smaller root, so a root is always its component's
/// smallest tree.
fn union(parent: &mut [u32], a: u32, b: u32) {
    let (ra, rb) = (find(parent, a), find(parent, b));
    if ra != rb {
        let (lo, hi) = if ra < rb { (ra, rb) } else { (rb, ra) };
        parent[hi as usize] = lo;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_free_trees_and_numbering() {
        // Trees 0..6; contacts join {4, 1}, {1, 5}, {3} (floor), {2, 0}; tree 6 is free.
        let mut layout = BlockSparseLayout::new();
        let dofs = [6, 6, 7, 6, 6, 6, 6];
        layout.set(&dofs, &[(4, Some(1)), (3, None), (1, Some(5)), (2, Some(0)), (5, None)]).unwrap();
        let mut islands = Islands::new();
        islands.partition(&layout).unwrap();
        assert_eq!(islands.count(), 3);
        assert_eq!(
            (islands.trees(0), islands.trees(1), islands.trees(2)),
            (&[0u32, 2][..], &[1u32, 4, 5][..], &[3u32][..])
        );
        assert_eq!(
            (islands.contacts(0), islands.contacts(1), islands.contacts(2)),
            (&[3u32][..], &[0u32, 2, 4][..], &[1u32][..])
        );
        assert_eq!((islands.dofs(0), islands.dofs(1), islands.dofs(2)), (13, 18, 6));
        assert_eq!((islands.local_offset(2), islands.local_offset(4), islands.local_offset(5)), (6, 6, 12));
        assert_eq!((islands.local_index(2), islands.local_index(4), islands.local_index(5)), (1, 1, 2));
        assert_eq!(islands.free_trees(), &[6]);
        assert_eq!((islands.island_of_tree(4), islands.island_of_tree(6)), (Some(1), None));
        // A smaller problem reuses the storage.
        layout.set(&[6], &[]).unwrap();
        islands.partition(&layout).unwrap();
        assert_eq!((islands.count(), islands.free_trees()), (0, &[0u32][..]));
    }
}
