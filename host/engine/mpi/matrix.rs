//! Matrices split by rows across MPI ranks: [`RowPartition`] (contiguous row
//! ranges, one a rank, never splitting a row), [`DistCsr`] and
//! [`DistDense`] (this rank's rows). Rank 0 reads a whole matrix and
//! scatters it; results stay distributed and are gathered only to write.

use super::Ranks;
use crate::engine::shared::partition::balanced_cuts;
use crate::engine::shared::spgemm::row_flops;
use crate::error::{Error, Result};
use crate::format::{Csr, Dense};
use crate::scalar::Scalar;
use std::ops::Range;

/// Contiguous row ranges, one a rank, in rank order: rank `r` owns rows
/// `cuts[r]..cuts[r + 1]`. A rank may own none (more ranks than rows).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowPartition {
    cuts: Vec<usize>,
}

impl RowPartition {
    /// `n` rows in `parts` ranges of about equal work, where `work_prefix`
    /// has `n + 1` entries (the work of rows `0..i`).
    pub fn balanced(work_prefix: &[usize], parts: usize) -> Self {
        RowPartition {
            cuts: balanced_cuts(work_prefix, parts),
        }
    }

    /// `a`'s rows balanced by entries (for SpMV and SpMM).
    pub fn by_entries<T: Scalar>(a: &Csr<T>, parts: usize) -> Self {
        Self::balanced(a.row_ptr(), parts)
    }

    /// `a`'s rows balanced by the products each makes in `a · b` (for
    /// SpGEMM), plus one a row so that empty rows spread too.
    pub fn by_products<T: Scalar>(a: &Csr<T>, b: &Csr<T>, parts: usize) -> Self {
        let mut prefix = Vec::with_capacity(a.nrows() + 1);
        prefix.push(0);
        for i in 0..a.nrows() {
            prefix.push(prefix[i] + row_flops(a, b, i) + 1);
        }
        Self::balanced(&prefix, parts)
    }

    /// [`RowPartition::by_products`] of two distributed matrices, the same
    /// cuts, without gathering either, and the products of `a · b` in all:
    /// each rank fetches the lengths of the rows of `b` its block of `a`
    /// references, sums its rows' products, and finds the cuts that fall
    /// in its rows. Collective.
    pub fn by_products_of<T: Scalar>(
        ranks: &Ranks,
        a: &DistCsr<T>,
        b: &DistCsr<T>,
    ) -> Result<(Self, usize)> {
        let halo = super::Halo::new(ranks, a.local().col_idx(), b.rows())?;
        let b_lens: Vec<u64> = (0..b.local().nrows())
            .map(|i| b.local().row_len(i) as u64)
            .collect();
        let lens = halo.dense_rows(ranks, &b_lens, 1)?;
        let block = halo.renumber_columns(a.local());
        let mut prefix = Vec::with_capacity(block.nrows() + 1);
        prefix.push(0u64);
        for i in 0..block.nrows() {
            let (cols, _) = block.row(i);
            let products: u64 = cols.iter().map(|&j| lens[j as usize]).sum();
            prefix.push(prefix[i] + products + 1);
        }
        let first = a.rows().range(ranks.rank()).start;
        let (rows, total) = Self::balanced_across(ranks, first, &prefix, a.nrows())?;
        Ok((rows, total as usize - a.nrows()))
    }

    /// [`RowPartition::balanced`] over `n` rows whose work is known in
    /// slices: this rank's `prefix` is the work of its contiguous rows
    /// from `first` (`prefix[0] = 0`), the slices covering the rows in rank
    /// order. The same cuts as `balanced` over the whole prefix, found by
    /// each rank in its own slice; with the work in all. Collective.
    pub fn balanced_across(
        ranks: &Ranks,
        first: usize,
        prefix: &[u64],
        n: usize,
    ) -> Result<(Self, u64)> {
        let totals = ranks.all_gather_one(prefix.last().copied().unwrap_or(0));
        let offset: u64 = totals[..ranks.rank()].iter().sum();
        let total: u64 = totals.iter().sum();
        let parts = ranks.size();
        // Cut k is the first row whose prefix reaches k/parts of the work,
        // as `balanced_cuts` has it: each rank offers the first of its own,
        // and the least offer wins.
        let offers: Vec<u64> = (1..parts)
            .map(|k| {
                let target = (total as u128 * k as u128 / parts as u128) as u64;
                let at = prefix.partition_point(|&w| offset + w < target);
                if at < prefix.len() {
                    (first + at) as u64
                } else {
                    u64::MAX
                }
            })
            .collect();
        let mut cuts = vec![0];
        cuts.extend(ranks.min_each(&offers).into_iter().map(|c| c as usize));
        cuts.push(n);
        Ok((RowPartition::from_cuts(cuts)?, total))
    }

    /// `n` rows in `parts` ranges of equal length (within one).
    pub fn even(n: usize, parts: usize) -> Self {
        RowPartition {
            cuts: (0..=parts).map(|p| n * p / parts).collect(),
        }
    }

    /// Builds a partition from its cuts, checking them.
    pub fn from_cuts(cuts: Vec<usize>) -> Result<Self> {
        if cuts.len() < 2 || cuts[0] != 0 || cuts.windows(2).any(|w| w[0] > w[1]) {
            return Err(Error::invalid(
                "row partition",
                format!("cuts must start at 0 and never decrease, with one range a rank: {cuts:?}"),
            ));
        }
        Ok(RowPartition { cuts })
    }

    /// How many of `sorted` (increasing row numbers) fall in each rank's
    /// rows, in rank order.
    pub fn count_sorted(&self, sorted: &[u32]) -> Vec<usize> {
        (0..self.parts())
            .map(|r| {
                let range = self.range(r);
                let lo = sorted.partition_point(|&d| (d as usize) < range.start);
                let hi = sorted.partition_point(|&d| (d as usize) < range.end);
                hi - lo
            })
            .collect()
    }

    /// The rows rank `rank` owns.
    pub fn range(&self, rank: usize) -> Range<usize> {
        self.cuts[rank]..self.cuts[rank + 1]
    }

    /// Every rank's row count, in rank order.
    pub fn counts(&self) -> Vec<usize> {
        self.cuts.windows(2).map(|w| w[1] - w[0]).collect()
    }

    /// The boundaries: `parts() + 1` of them.
    pub fn cuts(&self) -> &[usize] {
        &self.cuts
    }

    /// How many ranges (ranks).
    pub fn parts(&self) -> usize {
        self.cuts.len() - 1
    }

    /// Rows in all.
    pub fn nrows(&self) -> usize {
        self.cuts[self.parts()]
    }

    /// The columns of rank 0's matrix of `shape` (others pass `None`), on
    /// every rank; the same error on every rank when these rows do not
    /// cover the matrix's. Collective.
    fn shape_of(&self, ranks: &Ranks, shape: Option<(usize, usize)>) -> Result<usize> {
        let shape = shape.map_or_else(Vec::new, |(m, n)| vec![m as u64, n as u64]);
        let shape = ranks.broadcast_from(0, shape);
        let (nrows, ncols) = (shape[0] as usize, shape[1] as usize);
        if self.nrows() != nrows {
            return Err(Error::invalid(
                "row partition",
                format!("it covers {} rows, the matrix has {nrows}", self.nrows()),
            ));
        }
        Ok(ncols)
    }

    /// Rank 0's partition on every rank (others pass `None`). Collective.
    fn broadcast(ranks: &Ranks, root: Option<&RowPartition>) -> Result<RowPartition> {
        let cuts: Vec<u64> =
            root.map_or_else(Vec::new, |p| p.cuts.iter().map(|&c| c as u64).collect());
        let cuts = ranks.broadcast_from(0, cuts);
        let partition = RowPartition::from_cuts(cuts.into_iter().map(|c| c as usize).collect())?;
        if partition.parts() != ranks.size() {
            return Err(Error::invalid(
                "row partition",
                format!("{} ranges for {} ranks", partition.parts(), ranks.size()),
            ));
        }
        Ok(partition)
    }
}

/// A sparse matrix split by rows: this rank's rows as a CSR matrix with all
/// of the columns.
#[derive(Clone, Debug, PartialEq)]
pub struct DistCsr<T> {
    rows: RowPartition,
    local: Csr<T>,
}

impl<T: Scalar> DistCsr<T> {
    /// Rank 0's matrix cut by `partition` (one range a rank), each rank
    /// getting its rows. Other ranks pass `None`. Collective.
    pub fn scatter(ranks: &Ranks, root: Option<(&Csr<T>, &RowPartition)>) -> Result<Self> {
        let rows = RowPartition::broadcast(ranks, root.map(|(_, p)| p))?;
        let ncols = rows.shape_of(ranks, root.map(|(a, _)| a.shape()))?;
        let parts = root.map(|(a, _)| {
            let lens: Vec<u64> = (0..a.nrows()).map(|i| a.row_len(i) as u64).collect();
            let entries: Vec<usize> = (0..rows.parts())
                .map(|r| a.row_ptr()[rows.range(r).end] - a.row_ptr()[rows.range(r).start])
                .collect();
            (a, lens, entries)
        });
        let row_counts = rows.counts();
        let lens = ranks.scatter(parts.as_ref().map(|(_, l, _)| (&l[..], &row_counts[..])))?;
        let cols = ranks.scatter(parts.as_ref().map(|(a, _, e)| (a.col_idx(), &e[..])))?;
        let values = ranks.scatter(parts.as_ref().map(|(a, _, e)| (a.values(), &e[..])))?;
        let local = block(lens, ncols, cols, values);
        Ok(DistCsr { rows, local })
    }

    /// The distributed matrix whose rows `rows.range(rank)` are `local` on
    /// each rank (a product's rows, say).
    pub fn from_local(rows: RowPartition, local: Csr<T>) -> Self {
        DistCsr { rows, local }
    }

    /// The same matrix split by `rows` instead: each rank sends the rows
    /// it holds to their new owners. Collective.
    pub fn repartition(&self, ranks: &Ranks, rows: RowPartition) -> Result<Self> {
        if rows.nrows() != self.nrows() || rows.parts() != ranks.size() {
            return Err(Error::mismatch(
                "DistCsr::repartition",
                format!(
                    "{} ranges of {} rows for {} ranks and a matrix of {} rows",
                    rows.parts(),
                    rows.nrows(),
                    ranks.size(),
                    self.nrows()
                ),
            ));
        }
        let mine = self.rows.range(ranks.rank());
        let (ptr, local) = (self.local.row_ptr(), &self.local);
        // Rows of mine that rank r owns now: a contiguous run, in rank order.
        let overlap = |r: usize| {
            let theirs = rows.range(r);
            let lo = theirs.start.clamp(mine.start, mine.end);
            let hi = theirs.end.clamp(lo, mine.end);
            (lo - mine.start)..(hi - mine.start)
        };
        let send_rows: Vec<usize> = (0..ranks.size()).map(|r| overlap(r).len()).collect();
        let send_entries: Vec<usize> = (0..ranks.size())
            .map(|r| ptr[overlap(r).end] - ptr[overlap(r).start])
            .collect();
        let lens = self.local_lens();
        let recv_rows = ranks.exchange_counts(&send_rows);
        let recv_entries = ranks.exchange_counts(&send_entries);
        let lens = ranks.exchange(&lens, &send_rows, &recv_rows)?;
        let cols = ranks.exchange(local.col_idx(), &send_entries, &recv_entries)?;
        let values = ranks.exchange(local.values(), &send_entries, &recv_entries)?;
        Ok(DistCsr {
            rows,
            local: block(lens, self.ncols(), cols, values),
        })
    }

    /// The whole matrix on rank 0 (`None` on the others). Collective.
    pub fn gather(&self, ranks: &Ranks) -> Result<Option<Csr<T>>> {
        let lens = ranks.gather(&self.local_lens())?;
        let cols = ranks.gather(self.local.col_idx())?;
        let values = ranks.gather(self.local.values())?;
        Ok(match (lens, cols, values) {
            (Some((lens, _)), Some((cols, _)), Some((values, _))) => {
                Some(block(lens, self.ncols(), cols, values))
            }
            _ => None,
        })
    }

    /// The whole matrix on every rank. Collective.
    pub fn all_gather(&self, ranks: &Ranks) -> Result<Csr<T>> {
        let (lens, _) = ranks.all_gather(&self.local_lens())?;
        let (cols, _) = ranks.all_gather(self.local.col_idx())?;
        let (values, _) = ranks.all_gather(self.local.values())?;
        Ok(block(lens, self.ncols(), cols, values))
    }

    fn local_lens(&self) -> Vec<u64> {
        (0..self.local.nrows())
            .map(|i| self.local.row_len(i) as u64)
            .collect()
    }

    /// Which rank owns which rows, and this rank's rows.
    pub fn into_parts(self) -> (RowPartition, Csr<T>) {
        (self.rows, self.local)
    }

    /// This rank's rows (global column numbers).
    pub fn local(&self) -> &Csr<T> {
        &self.local
    }

    /// Which rank owns which rows.
    pub fn rows(&self) -> &RowPartition {
        &self.rows
    }

    /// Rows of the whole matrix, over all ranks.
    pub fn nrows(&self) -> usize {
        self.rows.nrows()
    }

    /// Columns of the whole matrix.
    pub fn ncols(&self) -> usize {
        self.local.ncols()
    }

    /// Entries on every rank together. Collective.
    pub fn nnz(&self, ranks: &Ranks) -> usize {
        ranks.sum(self.local.nnz() as u64) as usize
    }
}

/// Rows of `lens[i]` entries each, from canonical rows concatenated.
pub(super) fn block<T: Scalar>(
    lens: Vec<u64>,
    ncols: usize,
    cols: Vec<u32>,
    values: Vec<T>,
) -> Csr<T> {
    let mut row_ptr = Vec::with_capacity(lens.len() + 1);
    row_ptr.push(0usize);
    for (i, len) in lens.iter().enumerate() {
        row_ptr.push(row_ptr[i] + *len as usize);
    }
    Csr::from_parts_unchecked(lens.len(), ncols, row_ptr, cols, values)
}

/// A dense matrix split by rows (row-major): this rank's rows. A vector is
/// one column.
#[derive(Clone, Debug, PartialEq)]
pub struct DistDense<T> {
    rows: RowPartition,
    local: Dense<T>,
}

impl<T: Scalar> DistDense<T> {
    /// Rank 0's matrix cut by `partition`; other ranks pass `None`.
    /// Collective.
    pub fn scatter(ranks: &Ranks, root: Option<(&Dense<T>, &RowPartition)>) -> Result<Self> {
        let rows = RowPartition::broadcast(ranks, root.map(|(_, p)| p))?;
        let width = rows.shape_of(ranks, root.map(|(d, _)| d.shape()))?;
        let counts: Vec<usize> = rows.counts().iter().map(|c| c * width).collect();
        let data = ranks.scatter(root.map(|(d, _)| (d.as_slice(), &counts[..])))?;
        let local = Dense::try_new(rows.range(ranks.rank()).len(), width, data)?;
        Ok(DistDense { rows, local })
    }

    /// The distributed matrix whose rows `rows.range(rank)` are `local`.
    pub fn from_local(rows: RowPartition, local: Dense<T>) -> Self {
        DistDense { rows, local }
    }

    /// The whole matrix on rank 0 (`None` on the others). Collective.
    pub fn gather(&self, ranks: &Ranks) -> Result<Option<Dense<T>>> {
        Ok(ranks.gather(self.local.as_slice())?.map(|(data, _)| {
            Dense::try_new(self.rows.nrows(), self.local.ncols(), data)
                .expect("every rank holds its rows of the same width")
        }))
    }

    /// This rank's rows.
    pub fn local(&self) -> &Dense<T> {
        &self.local
    }

    /// Which rank owns which rows.
    pub fn rows(&self) -> &RowPartition {
        &self.rows
    }
}
