//! Each contact's Jacobian rows, packed over their nonzero columns.
//!
//! Contact i owns three rows: `Jt[2i]`, `Jt[2i+1]` and `Jn[i]`. In articulated systems most of
//! their columns are exactly zero (only the joints between the root and the contact's body move
//! it), so the solver packs, once per solve, the union of their nonzero columns as runs of
//! consecutive columns plus the three rows' values over those runs. Every per-iteration kernel
//! (`Jt v`, `Jtᵀ ft`, the rank-3 Newton-matrix update) then costs O(nonzeros) instead of O(nv),
//! and reads contiguous memory. A column counts as nonzero when any of the three entries is not
//! exactly 0 (NaN counts, so it propagates as in a dense product).

use nalgebra::DMatrixView;

/// A run of consecutive nonzero columns of one contact.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Run {
    /// First column (generalized-velocity index).
    pub col: usize,
    /// Number of columns.
    pub len: usize,
    /// Offset of the run's first value in the contact's packed rows.
    pub packed: usize,
}

/// The rows of one contact over its nonzero columns.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ContactRowsRef<'a> {
    pub runs: &'a [Run],
    /// `Jt[2i]` over the packed columns.
    pub t0: &'a [f64],
    /// `Jt[2i+1]` over the packed columns.
    pub t1: &'a [f64],
    /// `Jn[i]` over the packed columns.
    pub n: &'a [f64],
}

impl ContactRowsRef<'_> {
    /// `(t0·v, t1·v, n·v)` for a full-length vector `v`.
    #[inline(always)]
    pub fn dot3(&self, v: &[f64]) -> (f64, f64, f64) {
        let (mut a, mut b, mut c) = (0.0, 0.0, 0.0);
        for r in self.runs {
            let v = &v[r.col..r.col + r.len];
            let p = r.packed..r.packed + r.len;
            for (((&vk, &t0), &t1), &n) in
                v.iter().zip(&self.t0[p.clone()]).zip(&self.t1[p.clone()]).zip(&self.n[p])
            {
                a += t0 * vk;
                b += t1 * vk;
                c += n * vk;
            }
        }
        (a, b, c)
    }

    /// `out += ct0·t0 + ct1·t1 + cn·n` (a full-length vector).
    #[inline(always)]
    pub fn scatter_add(&self, out: &mut [f64], ct0: f64, ct1: f64, cn: f64) {
        for r in self.runs {
            let out = &mut out[r.col..r.col + r.len];
            let p = r.packed..r.packed + r.len;
            for (((o, &t0), &t1), &n) in
                out.iter_mut().zip(&self.t0[p.clone()]).zip(&self.t1[p.clone()]).zip(&self.n[p])
            {
                *o += ct0 * t0 + ct1 * t1 + cn * n;
            }
        }
    }
}

/// Packed rows of all contacts of one problem (grow-only storage).
#[derive(Debug, Clone, Default)]
pub(crate) struct ContactRows {
    /// Contact i's runs are `runs[run_start[i]..run_start[i + 1]]`.
    run_start: Vec<usize>,
    runs: Vec<Run>,
    /// Contact i's values are `vals[val_start[i]..val_start[i + 1]]`: `t0`, `t1`, `n`, each of
    /// the contact's packed length.
    val_start: Vec<usize>,
    vals: Vec<f64>,
    /// Per-contact scratch of `pack`.
    count: Vec<usize>,
    next_col: Vec<usize>,
    run_cursor: Vec<usize>,
}

/// "No nonzero column seen yet" in `next_col`.
const NONE: usize = usize::MAX;

impl ContactRows {
    /// Packs `Jt` (2nc×nv) and `Jn` (nc×nv). Allocates only when the problem has more contacts,
    /// runs or nonzeros than any packed before.
    pub fn pack(&mut self, jt: &DMatrixView<'_, f64>, jn: &DMatrixView<'_, f64>) {
        let nc = jn.nrows();
        let nv = jn.ncols();
        for v in [&mut self.run_start, &mut self.val_start] {
            grow_usize(v, nc + 1);
        }
        for v in [&mut self.count, &mut self.next_col, &mut self.run_cursor] {
            grow_usize(v, nc);
        }
        let Self { run_start, runs, val_start, vals, count, next_col, run_cursor } = self;
        let (run_start, val_start) = (&mut run_start[..nc + 1], &mut val_start[..nc + 1]);
        let (count, next_col, run_cursor) = (&mut count[..nc], &mut next_col[..nc], &mut run_cursor[..nc]);

        // Pass 1: count nonzero columns and runs per contact (columns outer: contiguous reads).
        run_start.fill(0);
        count.fill(0);
        next_col.fill(NONE);
        for c in 0..nv {
            let (t, n) = (jt.column(c), jn.column(c));
            let (t, n) = (t.as_slice(), n.as_slice());
            for i in 0..nc {
                if t[2 * i] != 0.0 || t[2 * i + 1] != 0.0 || n[i] != 0.0 {
                    if next_col[i] != c {
                        run_start[i + 1] += 1;
                    }
                    count[i] += 1;
                    next_col[i] = c + 1;
                }
            }
        }
        val_start[0] = 0;
        for i in 0..nc {
            run_start[i + 1] += run_start[i];
            val_start[i + 1] = val_start[i] + 3 * count[i];
        }
        if runs.len() < run_start[nc] {
            runs.resize(run_start[nc], Run::default());
        }
        if vals.len() < val_start[nc] {
            vals.resize(val_start[nc], 0.0);
        }

        // Pass 2: fill values and runs; `count` is now each contact's fill position.
        count.fill(0);
        next_col.fill(NONE);
        run_cursor.copy_from_slice(&run_start[..nc]);
        for c in 0..nv {
            let (t, n) = (jt.column(c), jn.column(c));
            let (t, n) = (t.as_slice(), n.as_slice());
            for i in 0..nc {
                let (a, b, d) = (t[2 * i], t[2 * i + 1], n[i]);
                if a != 0.0 || b != 0.0 || d != 0.0 {
                    let k = count[i];
                    let base = val_start[i];
                    let len = (val_start[i + 1] - base) / 3;
                    vals[base + k] = a;
                    vals[base + len + k] = b;
                    vals[base + 2 * len + k] = d;
                    if next_col[i] != c {
                        runs[run_cursor[i]] = Run { col: c, len: 1, packed: k };
                        run_cursor[i] += 1;
                    } else {
                        runs[run_cursor[i] - 1].len += 1;
                    }
                    next_col[i] = c + 1;
                    count[i] = k + 1;
                }
            }
        }
    }

    /// The packed rows of contact `i`.
    #[inline]
    pub fn contact(&self, i: usize) -> ContactRowsRef<'_> {
        let runs = &self.runs[self.run_start[i]..self.run_start[i + 1]];
        let vals = &self.vals[self.val_start[i]..self.val_start[i + 1]];
        let len = vals.len() / 3;
        let (t0, rest) = vals.split_at(len);
        let (t1, n) = rest.split_at(len);
        ContactRowsRef { runs, t0, t1, n }
    }
}

fn grow_usize(v: &mut Vec<usize>, len: usize) {
    if v.len() < len {
        v.resize(len, 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::DMatrix;

    #[test]
    fn packs_runs_and_reproduces_dense_products() {
        // Two contacts over nv = 7; contact 0 touches columns {0, 1, 4}, contact 1 {2, 3, 4, 6}.
        let nv = 7;
        let mut jt = DMatrix::<f64>::zeros(4, nv);
        let mut jn = DMatrix::<f64>::zeros(2, nv);
        jt[(0, 0)] = 1.0;
        jt[(1, 1)] = 2.0;
        jn[(0, 4)] = 3.0;
        jt[(2, 2)] = -1.0;
        jt[(3, 3)] = 0.5;
        jn[(1, 4)] = 4.0;
        jn[(1, 6)] = f64::NAN;
        let mut rows = ContactRows::default();
        rows.pack(&jt.as_view(), &jn.as_view());
        let c0 = rows.contact(0);
        assert_eq!(c0.runs, &[Run { col: 0, len: 2, packed: 0 }, Run { col: 4, len: 1, packed: 2 }]);
        assert_eq!((c0.t0, c0.t1, c0.n), (&[1.0, 0.0, 0.0][..], &[0.0, 2.0, 0.0][..], &[0.0, 0.0, 3.0][..]));
        let c1 = rows.contact(1);
        assert_eq!(c1.runs, &[Run { col: 2, len: 3, packed: 0 }, Run { col: 6, len: 1, packed: 3 }]);

        jn[(1, 6)] = 5.0;
        rows.pack(&jt.as_view(), &jn.as_view());
        let v: Vec<f64> = (0..nv).map(|k| 1.0 + k as f64).collect();
        let jtv = &jt * nalgebra::DVector::from_column_slice(&v);
        let jnv = &jn * nalgebra::DVector::from_column_slice(&v);
        for i in 0..2 {
            let (a, b, c) = rows.contact(i).dot3(&v);
            assert_eq!((a, b, c), (jtv[2 * i], jtv[2 * i + 1], jnv[i]));
        }
        let mut out = vec![0.0; nv];
        for i in 0..2 {
            rows.contact(i).scatter_add(&mut out, 1.0, -2.0, 0.5);
        }
        let mut want = vec![0.0; nv];
        for i in 0..2 {
            for c in 0..nv {
                want[c] += jt[(2 * i, c)] - 2.0 * jt[(2 * i + 1, c)] + 0.5 * jn[(i, c)];
            }
        }
        assert_eq!(out, want);
    }
}
