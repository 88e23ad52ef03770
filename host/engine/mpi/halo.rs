//! [`Halo`]: which rows of a row-distributed operand (x, a dense B, a sparse
//! B) the columns of this rank's block reference, who owns them, and the
//! exchange that brings exactly those rows here. Built once from the
//! block's pattern; each exchange afterwards sends only row data.

use super::matrix::block;
use super::{Ranks, RowPartition};
use crate::error::{Error, Result};
use crate::format::Csr;
use crate::scalar::Scalar;

/// The rows this rank needs of an operand split by `RowPartition`, and the
/// rows it must send to the ranks that need its own.
#[derive(Clone, Debug)]
pub struct Halo {
    /// Global rows needed here, increasing (so grouped by owner, in rank order).
    needed: Vec<u32>,
    /// How many of `needed` each rank owns.
    recv_counts: Vec<usize>,
    /// Rows of this rank's block (numbered from its first row) that other
    /// ranks need, grouped by the rank that needs them.
    send_rows: Vec<u32>,
    /// How many of `send_rows` go to each rank.
    send_counts: Vec<usize>,
}

impl Halo {
    /// The halo of a block whose entries have columns `cols`, against an
    /// operand split by `operand` (one range a rank). Collective.
    pub fn new(ranks: &Ranks, cols: &[u32], operand: &RowPartition) -> Result<Halo> {
        let needed = distinct_sorted(cols, operand.nrows());
        let recv_counts = operand.count_sorted(&needed);
        let send_counts = ranks.exchange_counts(&recv_counts);
        let requested = ranks.exchange(&needed, &recv_counts, &send_counts)?;
        let mine = operand.range(ranks.rank());
        let send_rows = requested
            .iter()
            .map(|&row| {
                if mine.contains(&(row as usize)) {
                    Ok((row as usize - mine.start) as u32)
                } else {
                    Err(Error::invalid(
                        "halo",
                        format!("row {row} was requested of a rank that owns rows {mine:?}"),
                    ))
                }
            })
            .collect();
        let send_rows = ranks.agree(send_rows)?;
        Ok(Halo {
            needed,
            recv_counts,
            send_rows,
            send_counts,
        })
    }

    /// The operand's rows needed here, in increasing order.
    pub fn needed(&self) -> &[u32] {
        &self.needed
    }

    /// `a` (this rank's block) with column `needed[j]` renumbered `j`: a
    /// matrix of `needed().len()` columns against the fetched rows. The
    /// renumbering keeps column order, so every row sums in the same order.
    pub fn renumber_columns<T: Scalar>(&self, a: &Csr<T>) -> Csr<T> {
        let (cols, n) = (a.col_idx(), a.ncols());
        let cols = if dense_enough(cols.len(), n) {
            let mut number = vec![u32::MAX; n];
            for (j, &c) in self.needed.iter().enumerate() {
                number[c as usize] = j as u32;
            }
            cols.iter().map(|&c| number[c as usize]).collect()
        } else {
            cols.iter()
                .map(|c| {
                    self.needed
                        .binary_search(c)
                        .expect("every column of the block is in its halo")
                        as u32
                })
                .collect()
        };
        Csr::from_parts_unchecked(
            a.nrows(),
            self.needed.len(),
            a.row_ptr().to_vec(),
            cols,
            a.values().to_vec(),
        )
    }

    /// The needed rows of a dense operand (`width` values a row, row-major),
    /// this rank's rows being `local`: `needed().len()` rows. Collective.
    pub fn dense_rows<T: Scalar>(
        &self,
        ranks: &Ranks,
        local: &[T],
        width: usize,
    ) -> Result<Vec<T>> {
        let mut send = Vec::with_capacity(self.send_rows.len() * width);
        for &row in &self.send_rows {
            let at = row as usize * width;
            send.extend_from_slice(&local[at..at + width]);
        }
        let times = |counts: &[usize]| counts.iter().map(|c| c * width).collect::<Vec<_>>();
        ranks.exchange(&send, &times(&self.send_counts), &times(&self.recv_counts))
    }

    /// The needed rows of a sparse operand, this rank's rows being `local`:
    /// a matrix of `needed().len()` rows and `local`'s columns. Collective.
    pub fn sparse_rows<T: Scalar>(&self, ranks: &Ranks, local: &Csr<T>) -> Result<Csr<T>> {
        let lens: Vec<u64> = self
            .send_rows
            .iter()
            .map(|&r| local.row_len(r as usize) as u64)
            .collect();
        let recv_lens = ranks.exchange(&lens, &self.send_counts, &self.recv_counts)?;
        // Entries to and from each rank: the sums of its rows' lengths.
        let per_rank = |lens: &[u64], counts: &[usize]| {
            let mut at = 0;
            counts
                .iter()
                .map(|&c| {
                    let sum: u64 = lens[at..at + c].iter().sum();
                    at += c;
                    sum as usize
                })
                .collect::<Vec<_>>()
        };
        let send_entries = per_rank(&lens, &self.send_counts);
        let recv_entries = per_rank(&recv_lens, &self.recv_counts);
        let total: usize = send_entries.iter().sum();
        let (mut cols, mut values) = (Vec::with_capacity(total), Vec::with_capacity(total));
        for &r in &self.send_rows {
            let (c, v) = local.row(r as usize);
            cols.extend_from_slice(c);
            values.extend_from_slice(v);
        }
        let cols = ranks.exchange(&cols, &send_entries, &recv_entries)?;
        let values = ranks.exchange(&values, &send_entries, &recv_entries)?;
        Ok(block(recv_lens, local.ncols(), cols, values))
    }

    /// The bytes (sent, received) this rank exchanged with other ranks in
    /// [`Halo::new`] (its requests) and will in [`Halo::sparse_rows`] of
    /// `local` (row lengths, columns, values): a plan's prediction. Only
    /// the entry counts move here. Collective.
    pub fn sparse_bytes<T: Scalar>(&self, ranks: &Ranks, local: &Csr<T>) -> (u64, u64) {
        let me = ranks.rank();
        let mut send_entries = Vec::with_capacity(self.send_counts.len());
        let mut at = 0;
        for &c in &self.send_counts {
            let rows = &self.send_rows[at..at + c];
            send_entries.push(rows.iter().map(|&r| local.row_len(r as usize)).sum());
            at += c;
        }
        let recv_entries = ranks.exchange_counts(&send_entries);
        let others = |counts: &[usize]| (counts.iter().sum::<usize>() - counts[me]) as u64;
        let entry = (size_of::<u32>() + size_of::<T>()) as u64;
        let (asked, asked_of_me) = (others(&self.recv_counts), others(&self.send_counts));
        let sent = asked * 4 + asked_of_me * 8 + others(&send_entries) * entry;
        let received = asked_of_me * 4 + asked * 8 + others(&recv_entries) * entry;
        (sent, received)
    }
}

/// Whether `entries` column indices below `n` are many enough for a table
/// of `n` (marks, numbers) to beat sorting or searching them.
fn dense_enough(entries: usize, n: usize) -> bool {
    n <= 8 * entries
}

/// The distinct values of `cols` (all below `n`), increasing: by marking a
/// table of `n` when the columns are many, else by sorting a copy.
fn distinct_sorted(cols: &[u32], n: usize) -> Vec<u32> {
    if dense_enough(cols.len(), n) {
        let mut seen = vec![false; n];
        for &c in cols {
            seen[c as usize] = true;
        }
        (0..n as u32).filter(|&c| seen[c as usize]).collect()
    } else {
        let mut distinct = cols.to_vec();
        distinct.sort_unstable();
        distinct.dedup();
        distinct
    }
}
