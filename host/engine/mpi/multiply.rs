//! Distributed products, each rank computing its own rows with its inner
//! engine ([`Ranks::inner`]):
//!
//! - SpMV and SpMM: [`HaloCsr`] renumbers this rank's block against the
//!   rows of x (or of a dense B) that it references, once; every product
//!   then moves only those rows, so the bytes a call exchanges follow the
//!   partition boundary, not the matrix size.
//! - SpGEMM ([`spgemm`]): each rank fetches the rows of B that its block of
//!   A references ([`Fetch::Rows`]), or, when B is small, every rank gets
//!   all of B at once ([`Fetch::Replicate`]); one rank multiplies its own
//!   A and B as they are. C stays split like A, so a
//!   chain of products (APSP's squarings) never gathers between steps.
//! - Masked products: [`spgemm_masked`] fetches B as [`spgemm`] does,
//!   with the mask split like A (each rank masks its own rows of C), and
//!   [`HaloCsr::spmv_masked`] moves x as [`HaloCsr::spmv`] does, y and its
//!   mask split like A.
//!
//! As `ops` does for whole matrices, each refuses an input value outside
//! the semiring's domain (max-times: values ≥ 0), naming its global place,
//! on every rank alike.

use super::{DistCsr, DistDense, Halo, Ranks, RowPartition};
use crate::engine::Op;
use crate::engine::shared::spgemm::product_shapes_agree;
use crate::error::{Error, Result};
use crate::format::{Csr, Dense};
use crate::ops::{self, Mask, VectorMask, dispatch, domain, spgemm_blocks};
use crate::scalar::Scalar;
use gpu_kernels::Semiring;

/// B no larger than this (entries, indices and row pointers) is replicated
/// on every rank by [`Fetch::Auto`]: one collective instead of a request
/// round, and too little data for the saving of fetching rows to matter.
pub const REPLICATE_B_BYTES: usize = 16 << 20;

/// How [`spgemm`] brings B's rows to the ranks that need them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Fetch {
    /// [`Fetch::Replicate`] for a B of at most [`REPLICATE_B_BYTES`], else
    /// [`Fetch::Rows`].
    #[default]
    Auto,
    /// Each rank fetches only the rows of B its block of A references.
    Rows,
    /// Every rank gets all of B.
    Replicate,
}

/// This rank's block of A with its columns renumbered against the rows of
/// the right-hand operand it references: built once, reused by every
/// [`HaloCsr::spmv`] or [`HaloCsr::spmm`].
#[derive(Clone, Debug)]
pub struct HaloCsr<T> {
    rows: RowPartition,
    operand: RowPartition,
    halo: Halo,
    block: Csr<T>,
}

impl<T: Scalar> HaloCsr<T> {
    /// The plan for `a` times operands (x, or dense B) split by `operand`,
    /// which must cover `a`'s columns. Collective.
    pub fn new(ranks: &Ranks, a: &DistCsr<T>, operand: &RowPartition) -> Result<Self> {
        if operand.nrows() != a.ncols() {
            return Err(Error::mismatch(
                "HaloCsr::new",
                format!(
                    "the operand's partition covers {} rows, but A has {} columns",
                    operand.nrows(),
                    a.ncols()
                ),
            ));
        }
        let halo = Halo::new(ranks, a.local().col_idx(), operand)?;
        let block = halo.renumber_columns(a.local());
        Ok(HaloCsr {
            rows: a.rows().clone(),
            operand: operand.clone(),
            halo,
            block,
        })
    }

    /// The exchange pattern.
    pub fn halo(&self) -> &Halo {
        &self.halo
    }

    /// y = A ⊗ x over `S`, x a column split like the plan's operand; y is
    /// split like A. Collective.
    pub fn spmv<S: Semiring<Value = T>>(
        &self,
        ranks: &Ranks,
        x: &DistDense<T>,
    ) -> Result<DistDense<T>> {
        if x.local().ncols() != 1 {
            return Err(Error::mismatch(
                "HaloCsr::spmv",
                format!("x must be one column, not {}", x.local().ncols()),
            ));
        }
        self.check_operand("HaloCsr::spmv", x)?;
        let first = self.operand.range(ranks.rank()).start;
        let in_domain = self
            .check_block::<S>(ranks)
            .and_then(|()| domain::check_vector::<S>("x", x.local().as_slice(), first));
        let xs = self.halo.dense_rows(ranks, x.local().as_slice(), 1)?;
        let y = in_domain.and_then(|()| {
            ranks
                .inner_for::<S>(Op::Spmv)
                .and_then(|e| dispatch::spmv::<S>(&self.block, &xs, e))
        });
        let y = ranks.agree(y)?;
        let y = Dense::try_new(y.len(), 1, y)?;
        Ok(DistDense::from_local(self.rows.clone(), y))
    }

    /// C = A ⊗ B over `S`, B dense and split like the plan's operand; C is
    /// split like A. Collective.
    pub fn spmm<S: Semiring<Value = T>>(
        &self,
        ranks: &Ranks,
        b: &DistDense<T>,
    ) -> Result<DistDense<T>> {
        self.check_operand("HaloCsr::spmm", b)?;
        let k = b.local().ncols();
        let first = self.operand.range(ranks.rank()).start;
        let in_domain = self
            .check_block::<S>(ranks)
            .and_then(|()| domain::check_dense::<S>("B", b.local().as_slice(), k, first));
        let rows = self.halo.dense_rows(ranks, b.local().as_slice(), k)?;
        let bs = Dense::try_new(self.halo.needed().len(), k, rows)?;
        let c = in_domain.and_then(|()| {
            ranks
                .inner_for::<S>(Op::Spmm)
                .and_then(|e| dispatch::spmm::<S>(&self.block, &bs, e))
        });
        let c = ranks.agree(c)?;
        Ok(DistDense::from_local(self.rows.clone(), c))
    }

    /// `y⟨m⟩ = A ⊗ x` over `S` ([`ops::spmv_masked`]): x split like the
    /// plan's operand, `y` split like A and this rank's rows of the mask
    /// in `allowed`; the allowed rows computed, the others kept from `y`
    /// or (`replace`) set to the semiring's zero. Collective.
    pub fn spmv_masked<S: Semiring<Value = T>>(
        &self,
        ranks: &Ranks,
        x: &DistDense<T>,
        y: &DistDense<T>,
        mask: VectorMask<'_>,
        replace: bool,
    ) -> Result<DistDense<T>> {
        if x.local().ncols() != 1 || y.local().ncols() != 1 || y.rows() != &self.rows {
            return Err(Error::mismatch(
                "HaloCsr::spmv_masked",
                "x and y must be one column each, y split like A",
            ));
        }
        self.check_operand("HaloCsr::spmv_masked", x)?;
        let first = self.operand.range(ranks.rank()).start;
        let in_domain = self
            .check_block::<S>(ranks)
            .and_then(|()| domain::check_vector::<S>("x", x.local().as_slice(), first));
        let xs = self.halo.dense_rows(ranks, x.local().as_slice(), 1)?;
        let mut out = y.local().as_slice().to_vec();
        let done = in_domain.and_then(|()| {
            let engine = ranks.inner_for::<S>(Op::MaskedSpmv)?;
            ops::spmv_masked::<S>(&self.block, &xs, &mut out, mask, replace, engine)
        });
        ranks.agree(done)?;
        let y = Dense::try_new(out.len(), 1, out)?;
        Ok(DistDense::from_local(self.rows.clone(), y))
    }

    /// Ok when this rank's block of A holds only values in `S`'s domain
    /// (named by their global rows and columns).
    fn check_block<S: Semiring<Value = T>>(&self, ranks: &Ranks) -> Result<()> {
        let first_row = self.rows.range(ranks.rank()).start;
        let needed = self.halo.needed();
        domain::check_csr_block::<S>("A", &self.block, first_row, |j| needed[j as usize] as usize)
    }

    /// Ok when `operand` is split as the plan's operand is (the same on
    /// every rank, so every rank returns the same).
    fn check_operand(&self, op: &'static str, operand: &DistDense<T>) -> Result<()> {
        if operand.rows() != &self.operand {
            return Err(Error::mismatch(
                op,
                "the operand is split differently from the plan's",
            ));
        }
        Ok(())
    }
}

/// C = A ⊗ B over `S`, A and B split by rows; C is split like A, each rank
/// holding the rows of its block of A. Collective.
pub fn spgemm<S: Semiring>(
    ranks: &Ranks,
    a: &DistCsr<S::Value>,
    b: &DistCsr<S::Value>,
    fetch: Fetch,
) -> Result<DistCsr<S::Value>>
where
    S::Value: Scalar,
{
    by_blocks::<S>(ranks, a, b, fetch, |a, b| {
        let engine = ranks.inner_for::<S>(Op::Spgemm)?;
        spgemm_blocks::check_c_fits(a, b)?;
        dispatch::spgemm::<S>(a, b, engine)
    })
}

/// `C⟨M⟩ = A ⊗ B` over `S` ([`ops::spgemm_masked`]: M's stored entries,
/// or every other one when `complement`), A, B and the mask split by
/// rows, the mask like A; C is split like A. Each rank computes only what
/// its rows of the mask allow. Collective.
pub fn spgemm_masked<S: Semiring, M: Scalar>(
    ranks: &Ranks,
    a: &DistCsr<S::Value>,
    b: &DistCsr<S::Value>,
    mask: &DistCsr<M>,
    complement: bool,
    fetch: Fetch,
) -> Result<DistCsr<S::Value>>
where
    S::Value: Scalar,
{
    if mask.rows() != a.rows() || mask.ncols() != b.ncols() {
        return Err(Error::mismatch(
            "mpi::spgemm_masked",
            format!(
                "the mask ({}×{}) must be split like A and have B's {} columns",
                mask.nrows(),
                mask.ncols(),
                b.ncols()
            ),
        ));
    }
    let pattern = mask.local();
    by_blocks::<S>(ranks, a, b, fetch, |a, b| {
        let engine = ranks.inner_for::<S>(Op::MaskedSpgemm)?;
        ops::spgemm_masked::<S, M>(
            a,
            b,
            Mask {
                pattern,
                complement,
            },
            engine,
        )
    })
}

/// `product(A's block, B's rows it needs)` on every rank, B's rows brought
/// as `fetch` says; the blocks' shapes and values' domain checked first.
fn by_blocks<S: Semiring>(
    ranks: &Ranks,
    a: &DistCsr<S::Value>,
    b: &DistCsr<S::Value>,
    fetch: Fetch,
    product: impl Fn(&Csr<S::Value>, &Csr<S::Value>) -> Result<Csr<S::Value>>,
) -> Result<DistCsr<S::Value>>
where
    S::Value: Scalar,
{
    check_operands::<S>(ranks, a, b)?;
    let replicate = replicates(ranks, b, fetch);
    let c = if ranks.size() == 1 {
        product(a.local(), b.local())
    } else if replicate {
        let b = b.all_gather(ranks)?;
        product(a.local(), &b)
    } else {
        let halo = Halo::new(ranks, a.local().col_idx(), b.rows())?;
        let b_rows = halo.sparse_rows(ranks, b.local())?;
        product(&halo.renumber_columns(a.local()), &b_rows)
    };
    let c = ranks.agree(c)?;
    Ok(DistCsr::from_local(a.rows().clone(), c))
}

/// Ok when A's columns are B's rows and (for a semiring of non-negative
/// values) every value is in `S`'s domain, named by its global place; the
/// same error on every rank. Collective.
pub(super) fn check_operands<S: Semiring>(
    ranks: &Ranks,
    a: &DistCsr<S::Value>,
    b: &DistCsr<S::Value>,
) -> Result<()>
where
    S::Value: Scalar,
{
    product_shapes_agree(
        "mpi::spgemm",
        (a.nrows(), a.ncols()),
        (b.nrows(), b.ncols()),
    )?;
    if S::NON_NEGATIVE {
        let first_row = |m: &DistCsr<S::Value>| m.rows().range(ranks.rank()).start;
        let column = |j: u32| j as usize;
        ranks.agree(
            domain::check_csr_block::<S>("A", a.local(), first_row(a), column)
                .and_then(|()| domain::check_csr_block::<S>("B", b.local(), first_row(b), column)),
        )?;
    }
    Ok(())
}

/// Whether [`spgemm`] with `fetch` gives every rank all of B (rather than
/// the rows its block of A references). Collective.
pub(super) fn replicates<T: Scalar>(ranks: &Ranks, b: &DistCsr<T>, fetch: Fetch) -> bool {
    match fetch {
        Fetch::Auto => {
            let bytes = b.nnz(ranks) * (4 + size_of::<T>()) + 8 * (b.nrows() + 1);
            bytes <= REPLICATE_B_BYTES
        }
        Fetch::Rows => false,
        Fetch::Replicate => true,
    }
}
