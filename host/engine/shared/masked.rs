//! Masked products, GraphBLAS's `C⟨M⟩ = A ⊕.⊗ B` and `y⟨m⟩ = A ⊕.⊗ x`: a
//! structural mask — where M stores an entry, whatever its value — or its
//! complement says which entries of the result exist; the others are never
//! formed. The row kernels here serve the serial engine (all rows on one
//! thread) and the cpu engine (chunks of rows on its threads), so the two
//! give the same bits.
//!
//! A masked SpGEMM row skips everything a mask rules out: a row whose mask
//! row is empty (or, complemented, full) is not computed at all, and a
//! product landing on a column the mask rules out is neither added nor
//! stored. What it computes it adds in the unmasked engines' order (A's row
//! left to right, each row of B left to right, the first product taken as
//! it is), so `C⟨M⟩` has the bits of the unmasked `C` where M allows.
//! A masked SpMV computes only the rows the mask allows, each as the
//! unmasked SpMV computes it.

use super::partition::csr_by_rows;
use super::spmv::csr_row_dot;
use crate::error::{Error, Result};
use crate::format::Csr;
use crate::scalar::Scalar;
use gpu_kernels::Semiring;

/// The structural mask of a product's sparse result: the entries of
/// `pattern` (values ignored), or every entry but those when `complement`.
#[derive(Debug)]
pub struct Mask<'m, M> {
    /// The mask's entries, of the result's shape.
    pub pattern: &'m Csr<M>,
    /// Whether the mask allows the entries `pattern` does not store.
    pub complement: bool,
}

impl<M> Clone for Mask<'_, M> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<M> Copy for Mask<'_, M> {}

impl<'m, M> Mask<'m, M> {
    /// The entries of `pattern`.
    pub fn structural(pattern: &'m Csr<M>) -> Self {
        Mask {
            pattern,
            complement: false,
        }
    }
    /// Every entry but those of `pattern`.
    pub fn complement(pattern: &'m Csr<M>) -> Self {
        Mask {
            pattern,
            complement: true,
        }
    }
}

/// The mask of a dense vector result: the positions where `allowed` is
/// true, or (`complement`) where it is false.
#[derive(Clone, Copy, Debug)]
pub struct VectorMask<'m> {
    /// One flag per position of the result.
    pub allowed: &'m [bool],
    /// Whether the mask allows the positions `allowed` says false.
    pub complement: bool,
}

impl VectorMask<'_> {
    /// Whether position `i` is allowed.
    #[inline]
    pub fn allows(&self, i: usize) -> bool {
        self.allowed[i] != self.complement
    }
}

/// Ok when the mask has the shape of `C = A ⊗ B` (`what` names the
/// operation in the error).
pub fn mask_fits<M: Scalar>(
    what: &'static str,
    shape: (usize, usize),
    mask: &Csr<M>,
) -> Result<()> {
    if mask.shape() == shape {
        return Ok(());
    }
    let (m, n) = mask.shape();
    Err(Error::mismatch(
        what,
        format!("the mask is {m}×{n}, the result {}×{}", shape.0, shape.1),
    ))
}

/// One thread's workspace for masked SpGEMM rows: per column of B, a
/// stamp saying the mask marked it in the current row, a stamp saying a
/// value was formed there, and the value; stamps are row numbers + 1, so
/// nothing is cleared between rows.
pub struct MaskedRows<T> {
    marked: Vec<usize>,
    formed: Vec<usize>,
    values: Vec<T>,
    touched: Vec<u32>,
}

impl<T: Scalar> MaskedRows<T> {
    /// A workspace for products with `ncols` columns.
    pub fn new(ncols: usize) -> Self {
        MaskedRows {
            marked: vec![0; ncols],
            formed: vec![0; ncols],
            values: vec![T::ZERO; ncols],
            touched: Vec::new(),
        }
    }

    /// Appends row `i` of `C⟨M⟩ = A ⊗ B` to `cols` and `vals`, sorted.
    pub fn row<S: Semiring<Value = T>, M: Scalar>(
        &mut self,
        i: usize,
        a: &Csr<T>,
        b: &Csr<T>,
        mask: Mask<'_, M>,
        cols: &mut Vec<u32>,
        vals: &mut Vec<T>,
    ) {
        let stamp = i + 1;
        let (mask_cols, _) = mask.pattern.row(i);
        if !mask.complement && mask_cols.is_empty()
            || mask.complement && mask_cols.len() == b.ncols()
        {
            return;
        }
        for &j in mask_cols {
            self.marked[j as usize] = stamp;
        }
        // Allowed: marked, or (complement) not marked.
        let allowed = |marked: &[usize], j: usize| (marked[j] == stamp) != mask.complement;
        let (a_cols, a_vals) = a.row(i);
        self.touched.clear();
        for (&k, &aik) in a_cols.iter().zip(a_vals) {
            let (b_cols, b_vals) = b.row(k as usize);
            for (&j, &bkj) in b_cols.iter().zip(b_vals) {
                let at = j as usize;
                if !allowed(&self.marked, at) {
                    continue;
                }
                let p = S::mul(aik, bkj);
                if self.formed[at] == stamp {
                    self.values[at] = S::add(self.values[at], p);
                } else {
                    self.formed[at] = stamp;
                    self.values[at] = p;
                    if mask.complement {
                        self.touched.push(j);
                    }
                }
            }
        }
        // The row's columns in order: the mask's own (already sorted) for a
        // mask, the touched ones sorted for a complement.
        let order: &[u32] = if mask.complement {
            self.touched.sort_unstable();
            &self.touched
        } else {
            mask_cols
        };
        for &j in order {
            if self.formed[j as usize] == stamp {
                cols.push(j);
                vals.push(self.values[j as usize]);
            }
        }
    }
}

/// `C⟨M⟩ = A ⊗ B` on the calling thread (the serial engine, and the cpu
/// engine's product too small to share); shapes already checked.
pub fn spgemm_masked_one_thread<S: Semiring, M: Scalar>(
    a: &Csr<S::Value>,
    b: &Csr<S::Value>,
    mask: Mask<'_, M>,
) -> Csr<S::Value>
where
    S::Value: Scalar,
{
    csr_by_rows(
        a.nrows(),
        b.ncols(),
        None,
        || MaskedRows::new(b.ncols()),
        |w, i, cols, vals| w.row::<S, M>(i, a, b, mask, cols, vals),
    )
}

/// GraphBLAS's `C⟨M⟩ = T` (or `C⟨M, replace⟩ = T`) for row `i`, appended
/// to `cols` and `vals`: where the mask allows, T's entry (C's is deleted
/// where T has none); elsewhere C's entry kept, or (`replace`) deleted.
pub fn assign_row<T: Scalar, M: Scalar>(
    i: usize,
    c: &Csr<T>,
    t: &Csr<T>,
    mask: Mask<'_, M>,
    replace: bool,
    cols: &mut Vec<u32>,
    vals: &mut Vec<T>,
) {
    let (c_cols, c_vals) = c.row(i);
    let (t_cols, t_vals) = t.row(i);
    let (m_cols, _) = mask.pattern.row(i);
    let (mut p, mut q, mut r) = (0, 0, 0);
    // Whether the mask allows column j; `r` walks the mask row in step.
    let mut allows = |j: u32| {
        while r < m_cols.len() && m_cols[r] < j {
            r += 1;
        }
        (r < m_cols.len() && m_cols[r] == j) != mask.complement
    };
    while p < c_cols.len() || q < t_cols.len() {
        let j = match (c_cols.get(p), t_cols.get(q)) {
            (Some(&cj), Some(&tj)) => cj.min(tj),
            (Some(&cj), None) => cj,
            (None, Some(&tj)) => tj,
            (None, None) => unreachable!("the loop runs while one row has entries"),
        };
        let in_c = c_cols.get(p) == Some(&j);
        let in_t = t_cols.get(q) == Some(&j);
        if allows(j) {
            if in_t {
                cols.push(j);
                vals.push(t_vals[q]);
            }
        } else if in_c && !replace {
            cols.push(j);
            vals.push(c_vals[p]);
        }
        p += usize::from(in_c);
        q += usize::from(in_t);
    }
}

/// `y⟨m⟩ = A ⊗ x` for rows `rows` of `y` (`y_rows`, the same length):
/// allowed rows computed as the unmasked SpMV computes them, others kept
/// or (`replace`) set to the semiring's zero.
pub fn spmv_masked_rows<S: Semiring>(
    a: &Csr<S::Value>,
    x: &[S::Value],
    rows: std::ops::Range<usize>,
    y_rows: &mut [S::Value],
    mask: VectorMask<'_>,
    replace: bool,
) where
    S::Value: Scalar,
{
    for (i, y) in rows.zip(y_rows) {
        if mask.allows(i) {
            let (cols, vals) = a.row(i);
            *y = csr_row_dot::<S>(cols, vals, x);
        } else if replace {
            *y = S::zero();
        }
    }
}
