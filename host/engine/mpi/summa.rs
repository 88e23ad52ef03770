//! 2D SpGEMM (SUMMA) beside the 1D product of [`spgemm`], and the plan
//! that chooses one of them per product from the bytes each would move.
//!
//! - [`plan_spgemm`] predicts, before any matrix data moves (only counts,
//!   and the 1D product's row requests, are exchanged), the bytes this
//!   rank would send and receive in the 1D product and in the 2D one, and
//!   chooses ([`Partition`]).
//! - [`spgemm_planned`] runs the chosen product; C comes back split like
//!   A either way, so callers need not know which ran.
//! - The 2D product on a [`Grid`] of `pr × pc` ranks: A and B are sent
//!   from their row partitions to 2D blocks (contiguous row and column
//!   ranges); at each stage (a range of A's columns, B's rows) the ranks
//!   holding A's piece broadcast it along their grid row, those holding
//!   B's along their grid column, and every rank folds the products into
//!   its block of C ([`summa_blocks`]); then C's blocks go back to A's
//!   rows ([`BlockCsr::to_rows`]).
//!
//! Bits: the serial engine sums each C(r,c) over A's row r in increasing
//! column order, the first product stored as it is and each next one added
//! to the running value. Stages run in increasing column order, and within
//! a stage each entry's products are folded (stable-sorted by column) into
//! its running value in that same order, so C has the serial bits for
//! every semiring. The local kernel runs on the CPU, one thread a rank,
//! whatever the engine inside the ranks.

use super::matrix::block;
use super::multiply::{check_operands, replicates};
use super::{DistCsr, Fetch, Group, Halo, Ranks, RowPartition, spgemm};
use crate::engine::shared::spgemm::product_shapes_agree;
use crate::error::{Error, Result};
use crate::format::Csr;
use crate::scalar::Scalar;
use gpu_kernels::Semiring;
use std::fmt;
use std::ops::Range;
use std::str::FromStr;

/// How a distributed SpGEMM splits its work.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Partition {
    /// Each rank computes its rows of C, fetching the rows of B they
    /// need ([`spgemm`]).
    OneD,
    /// SUMMA on a grid of ranks ([`summa_blocks`]), on the CPU whatever
    /// the engine inside the ranks.
    TwoD,
    /// Whichever the plan predicts moves fewer bytes on its busiest rank.
    #[default]
    Auto,
}

impl FromStr for Partition {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "1d" => Ok(Partition::OneD),
            "2d" => Ok(Partition::TwoD),
            "auto" => Ok(Partition::Auto),
            _ => Err(Error::invalid(
                "partition",
                format!("`{s}`: expected 1d, 2d or auto"),
            )),
        }
    }
}

impl fmt::Display for Partition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Partition::OneD => "1d",
            Partition::TwoD => "2d",
            Partition::Auto => "auto",
        })
    }
}

/// A `rows × cols` grid of ranks, rank `r` at row `r / cols`, column
/// `r % cols`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Grid {
    rows: usize,
    cols: usize,
}

impl Grid {
    /// The grid of `p` ranks closest to square: `rows` the largest divisor
    /// of `p` at most √p (so `1 × p` for a prime `p`).
    pub fn for_ranks(p: usize) -> Grid {
        let rows = (1..=p)
            .take_while(|d| d * d <= p)
            .filter(|&d| p.is_multiple_of(d))
            .last()
            .unwrap_or(1);
        Grid {
            rows,
            cols: p / rows,
        }
    }

    /// (grid rows, grid columns).
    pub fn shape(&self) -> (usize, usize) {
        (self.rows, self.cols)
    }

    /// The grid row and column of `rank`.
    fn place(&self, rank: usize) -> (usize, usize) {
        (rank / self.cols, rank % self.cols)
    }
}

/// Bytes one rank sends to and receives from other ranks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Bytes {
    /// Sent to other ranks.
    pub sent: u64,
    /// Received from other ranks.
    pub received: u64,
}

impl Bytes {
    /// Sent and received together.
    pub fn total(&self) -> u64 {
        self.sent + self.received
    }

    fn add(&mut self, sent: u64, received: u64) {
        self.sent += sent;
        self.received += received;
    }
}

/// How a product's operands are cut into 2D blocks: every rank knows all
/// of it, and the entries of every stage's pieces.
#[derive(Clone, Debug)]
struct Layout {
    grid: Grid,
    /// A's (and C's) rows: one range a grid row.
    a_rows: RowPartition,
    /// A's columns: one range a grid column.
    a_cols: RowPartition,
    /// B's rows: one range a grid row.
    b_rows: RowPartition,
    /// B's (and C's) columns: one range a grid column.
    b_cols: RowPartition,
    /// The stages: the ranges of A's columns (B's rows) that lie in one
    /// block of A and one of B (the cuts of both, merged), none empty.
    stages: Vec<usize>,
    /// Entries of A in grid row `i` and stage `t`, at `i * stages + t`.
    a_pieces: Vec<u64>,
    /// Entries of B in stage `t` and grid column `j`, at `t * grid.cols + j`.
    b_pieces: Vec<u64>,
}

impl Layout {
    fn stage_count(&self) -> usize {
        self.stages.len() - 1
    }

    fn stage(&self, t: usize) -> Range<usize> {
        self.stages[t]..self.stages[t + 1]
    }

    /// Entries of A's piece for grid row `i` at stage `t`.
    fn a_piece(&self, i: usize, t: usize) -> u64 {
        self.a_pieces[i * self.stage_count() + t]
    }

    /// Entries of B's piece for grid column `j` at stage `t`.
    fn b_piece(&self, t: usize, j: usize) -> u64 {
        self.b_pieces[t * self.grid.cols + j]
    }
}

/// What [`plan_spgemm`] predicted and chose for one product, on this rank.
#[derive(Clone, Debug)]
pub struct SpgemmPlan {
    fetch: Fetch,
    replicate: bool,
    one_d: Bytes,
    two_d: Bytes,
    one_d_max: u64,
    two_d_max: u64,
    chosen: Partition,
    shapes: (RowPartition, RowPartition, usize),
    layout: Layout,
}

impl SpgemmPlan {
    /// [`Partition::OneD`] or [`Partition::TwoD`]: what [`spgemm_planned`] runs.
    pub fn chosen(&self) -> Partition {
        self.chosen
    }

    /// How the 1D product brings B's rows.
    pub fn fetch(&self) -> Fetch {
        self.fetch
    }

    /// Whether the 1D product gives every rank all of B.
    pub fn replicates_b(&self) -> bool {
        self.replicate
    }

    /// The bytes this rank would exchange in the 1D product ([`spgemm`]
    /// with [`SpgemmPlan::fetch`]): exactly what it exchanges.
    pub fn one_d(&self) -> Bytes {
        self.one_d
    }

    /// The bytes this rank would exchange in the 2D product up to C's
    /// blocks ([`summa_blocks`]: A and B sent to their blocks, then the
    /// stages' broadcasts): exactly what it exchanges. C's return to A's
    /// rows ([`BlockCsr::to_rows`]) is not predicted (its size is known
    /// only once C is), only measured.
    pub fn two_d(&self) -> Bytes {
        self.two_d
    }

    /// The largest [`one_d`](Self::one_d) total of any rank.
    pub fn one_d_max(&self) -> u64 {
        self.one_d_max
    }

    /// The largest [`two_d`](Self::two_d) total of any rank.
    pub fn two_d_max(&self) -> u64 {
        self.two_d_max
    }

    /// The 2D product's grid.
    pub fn grid(&self) -> Grid {
        self.layout.grid
    }
}

impl fmt::Display for SpgemmPlan {
    /// `2d (grid 2×2); predicted bytes, largest rank: 1d 1234, 2d 567`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (pr, pc) = self.layout.grid.shape();
        let how = [" (rows fetched)", " (B replicated)"][usize::from(self.replicate)];
        write!(
            f,
            "{} (grid {pr}×{pc}); predicted bytes, largest rank: 1d {}{how}, 2d {} (+ C's return)",
            self.chosen, self.one_d_max, self.two_d_max
        )
    }
}

/// The plan for `C = A ⊗ B`, A and B split by rows: the bytes this rank
/// would exchange in the 1D product (with `fetch`) and in the 2D one, and
/// the product to run. `partition` forces one, or ([`Partition::Auto`])
/// chooses 2D where its busiest rank's predicted bytes (sent and received)
/// are fewer than 1D's busiest rank's: the ranks wait for each other at
/// every exchange, so the busiest rank sets the time, not the sum. The
/// 2D figure leaves out C's return to A's rows, which 1D does not need;
/// both leave out the plan's own exchanges (counts, and the 1D product's
/// row requests, counted in [`Ranks::traffic`] when the plan is made).
/// The same plan on every rank but for its own bytes. Collective.
pub fn plan_spgemm<T: Scalar>(
    ranks: &Ranks,
    a: &DistCsr<T>,
    b: &DistCsr<T>,
    fetch: Fetch,
    partition: Partition,
) -> Result<SpgemmPlan> {
    product_shapes_agree(
        "mpi::plan_spgemm",
        (a.nrows(), a.ncols()),
        (b.nrows(), b.ncols()),
    )?;
    let replicate = replicates(ranks, b, fetch);
    let one_d = one_d_bytes(ranks, a, b, replicate)?;
    let layout = layout(ranks, a, b);
    let two_d = two_d_bytes(ranks, a, b, &layout);
    let largest = |bytes: Bytes| {
        let all = ranks.all_gather_one(bytes.total());
        all.into_iter().max().unwrap_or(0)
    };
    let (one_d_max, two_d_max) = (largest(one_d), largest(two_d));
    let chosen = match partition {
        Partition::Auto if two_d_max < one_d_max => Partition::TwoD,
        Partition::Auto => Partition::OneD,
        forced => forced,
    };
    Ok(SpgemmPlan {
        fetch,
        replicate,
        one_d,
        two_d,
        one_d_max,
        two_d_max,
        chosen,
        shapes: (a.rows().clone(), b.rows().clone(), b.ncols()),
        layout,
    })
}

/// C = A ⊗ B over `S` as `plan` chose; C is split like A. Collective.
pub fn spgemm_planned<S: Semiring>(
    ranks: &Ranks,
    a: &DistCsr<S::Value>,
    b: &DistCsr<S::Value>,
    plan: &SpgemmPlan,
) -> Result<DistCsr<S::Value>>
where
    S::Value: Scalar,
{
    match plan.chosen {
        Partition::TwoD => summa_blocks::<S>(ranks, a, b, plan)?.to_rows(ranks, a.rows()),
        _ => {
            check_plan(a, b, plan)?;
            spgemm::<S>(ranks, a, b, plan.fetch)
        }
    }
}

/// A block of a matrix on a grid of ranks: rows `rows` and columns `cols`
/// of the whole, held by one rank (numbered from the block's corner).
#[derive(Clone, Debug, PartialEq)]
pub struct BlockCsr<T> {
    rows: Range<usize>,
    cols: Range<usize>,
    ncols: usize,
    grid: Grid,
    /// The whole matrix's rows, one range a grid row.
    row_blocks: RowPartition,
    local: Csr<T>,
}

impl<T: Scalar> BlockCsr<T> {
    /// The block, its rows and columns numbered from its corner.
    pub fn local(&self) -> &Csr<T> {
        &self.local
    }

    /// The rows of the whole matrix the block holds.
    pub fn rows(&self) -> Range<usize> {
        self.rows.clone()
    }

    /// The columns of the whole matrix the block holds.
    pub fn cols(&self) -> Range<usize> {
        self.cols.clone()
    }

    /// The whole matrix split by `rows` (which must cover its rows), each
    /// rank's rows gathered from the blocks of its grid row. Collective.
    pub fn to_rows(&self, ranks: &Ranks, rows: &RowPartition) -> Result<DistCsr<T>> {
        let p = ranks.size();
        if rows.parts() != p || rows.nrows() != self.row_blocks.nrows() {
            return Err(Error::mismatch(
                "BlockCsr::to_rows",
                format!(
                    "{} rows in {} ranges for a matrix of {} rows on {p} ranks",
                    rows.nrows(),
                    rows.parts(),
                    self.row_blocks.nrows()
                ),
            ));
        }
        let mine = rows.range(ranks.rank());
        // To each rank: the lengths of its rows here, then their entries.
        let (mut lens, mut lens_to, mut entries_to) = (Vec::new(), vec![0; p], vec![0; p]);
        let (mut cols, mut values) = (Vec::new(), Vec::new());
        for (to, count) in lens_to.iter_mut().enumerate() {
            let overlap = overlap(&self.rows, &rows.range(to));
            *count = overlap.len();
            for r in overlap {
                let (c, v) = self.local.row(r - self.rows.start);
                lens.push(c.len() as u64);
                cols.extend(c.iter().map(|&c| c + self.cols.start as u32));
                values.extend_from_slice(v);
                entries_to[to] += c.len();
            }
        }
        let entries_from = ranks.exchange_counts(&entries_to);
        let lens_from = ranks.exchange_counts(&lens_to);
        let lens = ranks.exchange(&lens, &lens_to, &lens_from)?;
        let cols = ranks.exchange(&cols, &entries_to, &entries_from)?;
        let values = ranks.exchange(&values, &entries_to, &entries_from)?;
        // Each row of mine: its pieces from its grid row's ranks, by column.
        let starts = |counts: &[usize]| -> Vec<usize> {
            let mut at = 0;
            counts
                .iter()
                .map(|&c| {
                    at += c;
                    at - c
                })
                .collect()
        };
        let (mut len_at, mut entry_at) = (starts(&lens_from), starts(&entries_from));
        let (mut out_lens, mut out_cols, mut out_values) = (Vec::new(), Vec::new(), Vec::new());
        for r in mine {
            let i = owner(&self.row_blocks, r);
            let mut len = 0;
            for j in 0..self.grid.cols {
                let from = i * self.grid.cols + j;
                let n = lens[len_at[from]] as usize;
                len_at[from] += 1;
                let at = entry_at[from];
                out_cols.extend_from_slice(&cols[at..at + n]);
                out_values.extend_from_slice(&values[at..at + n]);
                entry_at[from] += n;
                len += n as u64;
            }
            out_lens.push(len);
        }
        let local = block(out_lens, self.ncols, out_cols, out_values);
        Ok(DistCsr::from_local(rows.clone(), local))
    }
}

/// This rank's block of C = A ⊗ B over `S`, by SUMMA on `plan`'s grid
/// (whatever the plan chose): A and B sent to their blocks, then at each
/// stage A's piece broadcast along each grid row and B's along each grid
/// column (a piece of no entries is not sent), the products folded into
/// C's block. Exchanges exactly [`SpgemmPlan::two_d`]. Collective.
pub fn summa_blocks<S: Semiring>(
    ranks: &Ranks,
    a: &DistCsr<S::Value>,
    b: &DistCsr<S::Value>,
    plan: &SpgemmPlan,
) -> Result<BlockCsr<S::Value>>
where
    S::Value: Scalar,
{
    check_plan(a, b, plan)?;
    check_operands::<S>(ranks, a, b)?;
    let lay = &plan.layout;
    let (i, j) = lay.grid.place(ranks.rank());
    let a_block = to_block(ranks, a, lay.grid, &lay.a_rows, &lay.a_cols)?;
    let b_block = to_block(ranks, b, lay.grid, &lay.b_rows, &lay.b_cols)?;
    let (row_group, col_group) = (ranks.group(i), ranks.group(j));
    let (c_rows, c_cols) = (lay.a_rows.range(i), lay.b_cols.range(j));
    let mut c = Csr::from_parts_unchecked(
        c_rows.len(),
        c_cols.len(),
        vec![0; c_rows.len() + 1],
        Vec::new(),
        Vec::new(),
    );
    let mut fold = Fold::default();
    for t in 0..lay.stage_count() {
        let stage = lay.stage(t);
        let a_piece = (lay.a_piece(i, t) > 0).then(|| {
            let root = owner(&lay.a_cols, stage.start);
            let mine = (root == j).then(|| {
                let first = lay.a_cols.range(j).start;
                columns(&a_block, stage.start - first..stage.end - first)
            });
            broadcast_csr(ranks, &row_group, root, mine, stage.len())
        });
        let b_piece = (lay.b_piece(t, j) > 0).then(|| {
            let root = owner(&lay.b_rows, stage.start);
            let mine = (root == i).then(|| {
                let first = lay.b_rows.range(i).start;
                b_block.rows(stage.start - first..stage.end - first)
            });
            broadcast_csr(ranks, &col_group, root, mine, c_cols.len())
        });
        if let (Some(a), Some(b)) = (a_piece, b_piece) {
            c = fold.product::<S>(&c, &a, &b);
        }
    }
    Ok(BlockCsr {
        rows: c_rows,
        cols: c_cols,
        ncols: b.ncols(),
        grid: lay.grid,
        row_blocks: lay.a_rows.clone(),
        local: c,
    })
}

/// Ok when `plan` was made for A and B split as these are.
fn check_plan<T: Scalar>(a: &DistCsr<T>, b: &DistCsr<T>, plan: &SpgemmPlan) -> Result<()> {
    let (a_rows, b_rows, ncols) = &plan.shapes;
    if a.rows() != a_rows || b.rows() != b_rows || b.ncols() != *ncols {
        return Err(Error::mismatch(
            "mpi::spgemm_planned",
            "the plan was made for operands of other shapes or partitions",
        ));
    }
    Ok(())
}

/// The rank of `partition` whose nonempty range holds row `r`.
fn owner(partition: &RowPartition, r: usize) -> usize {
    partition.cuts().partition_point(|&c| c <= r) - 1
}

/// The rows in both ranges.
fn overlap(x: &Range<usize>, y: &Range<usize>) -> Range<usize> {
    x.start.max(y.start)..x.end.min(y.end).max(x.start.max(y.start))
}

/// Columns `cols` of `m` (numbered from `cols.start`).
fn columns<T: Scalar>(m: &Csr<T>, cols: Range<usize>) -> Csr<T> {
    let (mut lens, mut out_cols, mut values) = (Vec::with_capacity(m.nrows()), vec![], vec![]);
    for r in 0..m.nrows() {
        let (c, v) = m.row(r);
        let at = within(c, &cols);
        lens.push(at.len() as u64);
        out_cols.extend(c[at.clone()].iter().map(|&c| c - cols.start as u32));
        values.extend_from_slice(&v[at]);
    }
    block(lens, cols.len(), out_cols, values)
}

/// `mine` (on the root: its row lengths, columns, values) on every member
/// of `group`, as a matrix of `ncols` columns. Collective over the group.
fn broadcast_csr<T: Scalar>(
    ranks: &Ranks,
    group: &Group,
    root: usize,
    mine: Option<Csr<T>>,
    ncols: usize,
) -> Csr<T> {
    let lens = mine.as_ref().map_or_else(Vec::new, |m| {
        (0..m.nrows()).map(|r| m.row_len(r) as u64).collect()
    });
    let (cols, values) = mine.map_or_else(Default::default, |m| {
        (m.col_idx().to_vec(), m.values().to_vec())
    });
    let lens = ranks.broadcast_within(group, root, lens);
    let cols = ranks.broadcast_within(group, root, cols);
    let values = ranks.broadcast_within(group, root, values);
    block(lens, ncols, cols, values)
}

/// This rank's block of `m` on `grid`, rows cut by `rows` and columns by
/// `cols` (one range a grid row, a grid column), from `m`'s row partition:
/// each rank sends each block the lengths of its rows there, then their
/// entries. Collective.
fn to_block<T: Scalar>(
    ranks: &Ranks,
    m: &DistCsr<T>,
    grid: Grid,
    rows: &RowPartition,
    cols: &RowPartition,
) -> Result<Csr<T>> {
    let (me, p) = (ranks.rank(), ranks.size());
    let (mut lens, mut lens_to, mut entries_to) = (Vec::new(), vec![0; p], vec![0; p]);
    let (mut out_cols, mut values) = (Vec::new(), Vec::new());
    each_block_row(m, me, grid, rows, cols, |to, (c, v), first| {
        lens_to[to] += 1;
        entries_to[to] += c.len();
        lens.push(c.len() as u64);
        out_cols.extend(c.iter().map(|&c| c - first));
        values.extend_from_slice(v);
    });
    let (i, j) = grid.place(me);
    let lens_from = rows_from(m, rows.range(i), ranks.size());
    let entries_from = ranks.exchange_counts(&entries_to);
    let lens = ranks.exchange(&lens, &lens_to, &lens_from)?;
    let out_cols = ranks.exchange(&out_cols, &entries_to, &entries_from)?;
    let values = ranks.exchange(&values, &entries_to, &entries_from)?;
    // The ranks' rows come in rank order, which is row order.
    Ok(block(lens, cols.range(j).len(), out_cols, values))
}

/// Calls `visit(to, row, first)` for every rank `to` and every row of this
/// rank's in `to`'s block of `rows`, restricted to `to`'s block of `cols`
/// (whose first column is `first`): in rank order, then row order.
fn each_block_row<T: Scalar>(
    m: &DistCsr<T>,
    me: usize,
    grid: Grid,
    rows: &RowPartition,
    cols: &RowPartition,
    mut visit: impl FnMut(usize, (&[u32], &[T]), u32),
) {
    let here = m.rows().range(me);
    for to in 0..rows.parts() * cols.parts() {
        let (i, j) = grid.place(to);
        let block_cols = cols.range(j);
        for r in overlap(&here, &rows.range(i)) {
            let (c, v) = m.local().row(r - here.start);
            let within = within(c, &block_cols);
            visit(
                to,
                (&c[within.clone()], &v[within]),
                block_cols.start as u32,
            );
        }
    }
}

/// How many of this rank's block rows `block` each of the `p` ranks holds
/// of `m`: how many row lengths it sends here.
fn rows_from<T: Scalar>(m: &DistCsr<T>, block: Range<usize>, p: usize) -> Vec<usize> {
    (0..p)
        .map(|from| overlap(&m.rows().range(from), &block).len())
        .collect()
}

/// The entries of a sorted row `c` whose columns lie in `cols`.
fn within(c: &[u32], cols: &Range<usize>) -> Range<usize> {
    c.partition_point(|&c| (c as usize) < cols.start)
        ..c.partition_point(|&c| (c as usize) < cols.end)
}

/// The 1D product's bytes on this rank (see [`SpgemmPlan::one_d`]).
/// Collective.
fn one_d_bytes<T: Scalar>(
    ranks: &Ranks,
    a: &DistCsr<T>,
    b: &DistCsr<T>,
    replicate: bool,
) -> Result<Bytes> {
    let p = ranks.size() as u64;
    if p == 1 {
        return Ok(Bytes::default());
    }
    if replicate {
        // An all-gather of B's row lengths, columns and values.
        let (rows, entries) = (b.local().nrows() as u64, b.local().nnz() as u64);
        let (all_rows, all_entries) = (b.nrows() as u64, b.nnz(ranks) as u64);
        let entry = (4 + size_of::<T>()) as u64;
        return Ok(Bytes {
            sent: (p - 1) * (rows * 8 + entries * entry),
            received: (all_rows - rows) * 8 + (all_entries - entries) * entry,
        });
    }
    let halo = Halo::new(ranks, a.local().col_idx(), b.rows())?;
    let (sent, received) = halo.sparse_bytes(ranks, b.local());
    Ok(Bytes { sent, received })
}

/// The 2D cuts of A and B, and every stage piece's entries. Collective.
fn layout<T: Scalar>(ranks: &Ranks, a: &DistCsr<T>, b: &DistCsr<T>) -> Layout {
    let grid = Grid::for_ranks(ranks.size());
    let (pr, pc) = grid.shape();
    let inner = a.ncols();
    let (a_rows, a_cols) = (
        RowPartition::even(a.nrows(), pr),
        RowPartition::even(inner, pc),
    );
    let (b_rows, b_cols) = (
        RowPartition::even(inner, pr),
        RowPartition::even(b.ncols(), pc),
    );
    let mut stages: Vec<usize> = a_cols.cuts().iter().chain(b_rows.cuts()).copied().collect();
    stages.sort_unstable();
    stages.dedup();
    let count = stages.len() - 1;
    let stage_of = |k: usize| stages.partition_point(|&c| c <= k) - 1;
    // This rank's entries of each piece, then everyone's.
    let mut a_pieces = vec![0u64; pr * count];
    let first = a.rows().range(ranks.rank()).start;
    for r in 0..a.local().nrows() {
        let i = owner(&a_rows, first + r);
        for &k in a.local().row(r).0 {
            a_pieces[i * count + stage_of(k as usize)] += 1;
        }
    }
    let mut b_pieces = vec![0u64; count * pc];
    let first = b.rows().range(ranks.rank()).start;
    for r in 0..b.local().nrows() {
        let t = stage_of(first + r);
        for &c in b.local().row(r).0 {
            b_pieces[t * pc + owner(&b_cols, c as usize)] += 1;
        }
    }
    let a_pieces = ranks.sum_each(&a_pieces);
    let b_pieces = ranks.sum_each(&b_pieces);
    Layout {
        grid,
        a_rows,
        a_cols,
        b_rows,
        b_cols,
        stages,
        a_pieces,
        b_pieces,
    }
}

/// The 2D product's bytes on this rank up to C's blocks (see
/// [`SpgemmPlan::two_d`]). Collective.
fn two_d_bytes<T: Scalar>(ranks: &Ranks, a: &DistCsr<T>, b: &DistCsr<T>, lay: &Layout) -> Bytes {
    let entry = (4 + size_of::<T>()) as u64;
    let mut bytes = Bytes::default();
    for (m, rows, cols) in [(a, &lay.a_rows, &lay.a_cols), (b, &lay.b_rows, &lay.b_cols)] {
        let (sent, received) = to_block_bytes(ranks, m, lay.grid, rows, cols);
        bytes.add(sent, received);
    }
    let (i, j) = lay.grid.place(ranks.rank());
    let (pr, pc) = (lay.grid.rows as u64, lay.grid.cols as u64);
    for t in 0..lay.stage_count() {
        let stage = lay.stage(t);
        let a_entries = lay.a_piece(i, t);
        if a_entries > 0 {
            let piece = lay.a_rows.range(i).len() as u64 * 8 + a_entries * entry;
            if owner(&lay.a_cols, stage.start) == j {
                bytes.add((pc - 1) * piece, 0);
            } else {
                bytes.add(0, piece);
            }
        }
        let b_entries = lay.b_piece(t, j);
        if b_entries > 0 {
            let piece = stage.len() as u64 * 8 + b_entries * entry;
            if owner(&lay.b_rows, stage.start) == i {
                bytes.add((pr - 1) * piece, 0);
            } else {
                bytes.add(0, piece);
            }
        }
    }
    bytes
}

/// The bytes (sent, received) of [`to_block`]. Collective.
fn to_block_bytes<T: Scalar>(
    ranks: &Ranks,
    m: &DistCsr<T>,
    grid: Grid,
    rows: &RowPartition,
    cols: &RowPartition,
) -> (u64, u64) {
    let (me, p) = (ranks.rank(), ranks.size());
    let (mut lens_to, mut entries_to) = (vec![0usize; p], vec![0usize; p]);
    each_block_row(m, me, grid, rows, cols, |to, (c, _), _| {
        lens_to[to] += 1;
        entries_to[to] += c.len();
    });
    let entries_from = ranks.exchange_counts(&entries_to);
    let lens_from = rows_from(m, rows.range(grid.place(me).0), p);
    let others = |counts: &[usize]| (counts.iter().sum::<usize>() - counts[me]) as u64;
    let entry = (4 + size_of::<T>()) as u64;
    (
        others(&lens_to) * 8 + others(&entries_to) * entry,
        others(&lens_from) * 8 + others(&entries_from) * entry,
    )
}

/// The local kernel: C's block with one stage's products folded in, each
/// entry's in the serial engine's order. Keeps its buffer between stages.
#[derive(Default)]
struct Fold<T> {
    products: Vec<(u32, T)>,
}

impl<T: Scalar> Fold<T> {
    /// `c ⊕ a ⊗ b`, every product of an entry folded into its running
    /// value in turn (A's columns left to right, each row of B left to
    /// right), the first of an entry new to `c` stored as it is.
    fn product<S: Semiring<Value = T>>(&mut self, c: &Csr<T>, a: &Csr<T>, b: &Csr<T>) -> Csr<T> {
        let mut lens = Vec::with_capacity(c.nrows());
        let (mut cols, mut values) = (Vec::with_capacity(c.nnz()), Vec::with_capacity(c.nnz()));
        for r in 0..c.nrows() {
            let products = &mut self.products;
            products.clear();
            let (a_cols, a_vals) = a.row(r);
            for (&k, &a_rk) in a_cols.iter().zip(a_vals) {
                let (b_cols, b_vals) = b.row(k as usize);
                products.extend(
                    b_cols
                        .iter()
                        .zip(b_vals)
                        .map(|(&j, &b)| (j, S::mul(a_rk, b))),
                );
            }
            // Stable: an entry's products keep their order.
            products.sort_by_key(|&(j, _)| j);
            let (run_cols, run_vals) = c.row(r);
            let before = cols.len();
            let (mut q, mut at) = (0, 0);
            while q < run_cols.len() || at < products.len() {
                if at == products.len() || (q < run_cols.len() && run_cols[q] < products[at].0) {
                    cols.push(run_cols[q]);
                    values.push(run_vals[q]);
                    q += 1;
                    continue;
                }
                let j = products[at].0;
                let mut sum = if q < run_cols.len() && run_cols[q] == j {
                    q += 1;
                    run_vals[q - 1]
                } else {
                    at += 1;
                    products[at - 1].1
                };
                while at < products.len() && products[at].0 == j {
                    sum = S::add(sum, products[at].1);
                    at += 1;
                }
                cols.push(j);
                values.push(sum);
            }
            lens.push((cols.len() - before) as u64);
        }
        block(lens, c.ncols(), cols, values)
    }
}
