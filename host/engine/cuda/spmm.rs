//! SpMM on the GPU: `C = A ⊗ B` with A sparse (CSR, m × n) and B, C dense
//! (n × k, m × k), row-major or column-major, with the kernels of
//! `gpu_kernels::spmm`.
//!
//! An [`SpmmPlan`] holds A on the device with everything its kernel needs
//! (for `block-rows`, A's entries cut into nnz-balanced blocks, each
//! entry's row, and scratch for the pieces of long rows) and queues the
//! product on any B and C already there: build it once, run it many times
//! (what `spmx bench spmm` times). [`spmm`] is the one-shot host call
//! behind `ops::spmm` on the cuda engine.
//!
//! Column-major operands go through `transposed`: B transposed to
//! row-major on the device (`gpu_kernels::util`'s `transpose_*`), the
//! row-major kernel, C transposed back, all in one [`SpmmPlan::run`].
//!
//! [`SpmmKernel::Auto`] picks from the layout ([`choose`]); the row-length
//! statistics shape the blocks, and `k` the lanes a block's group takes
//! ([`BlockShape::for_k`]), halved where most entries would otherwise be
//! in pieces summed through partial rows (`BlockShape::narrow`).

use cudarc::driver::CudaSlice;
use gpu_kernels::Semiring;
use gpu_kernels::args::{
    DevPtr, DevPtrMut, SPMM_BLOCK_STAGE, SPMM_LOCAL_PIECE, SPMM_THREAD_COLS, SpmmBlockArgs,
    SpmmCsrThreadArgs, SpmmFixupArgs, TRANSPOSE_THREADS, TransposeArgs,
};

use super::Gpu;
use super::matrix::{DevCsr, index};
use crate::Scalar;
use crate::error::{Error, Result};
use crate::format::{Csr, Dense};

/// Work a block of `block-rows` holds, in entries plus one a row (so that
/// a run of empty rows, each still written, is work too). A group streams
/// a block with four entries' loads of B in flight: at 64, the block's two
/// latencies before them (descriptor, entries) are a small part of its
/// sixteen rounds. Measured on an H100 (f32, k = 64 and 256): 32 was 6%
/// faster on 2D Poisson but 4–10% slower on R-MAT; 128 was 5% faster on
/// R-MAT at k = 256 but 30% slower on 2D Poisson.
const BLOCK_COST: usize = 64;

/// The smallest block cost with fewer than four groups a warp (tiny
/// products aside, [`block_cost`]): below it a block's fixed chain
/// (descriptor, entries) outweighs its rounds of loads (on an H100, 16
/// beat 8 and 4 over the real set).
const MIN_BLOCK_COST: usize = 16;

/// The smallest block cost with four or more groups a warp (`k` ≤ 32 in
/// f32) where rows are long: a warp's groups share its fixed costs, so
/// smaller blocks pay. On an H100 at k = 32, against 16 (rows that cross a
/// block are local pieces): bcspwr10, G61 and commanche_dual 0.86–0.90× →
/// 0.93–0.97× cuSPARSE, the real set +0.7%; 8 lost bcsstk13 (1.05× →
/// 0.81×), whose rows of 42 entries it cut into pieces. With two groups
/// (k = 64), 12 lost up to 18% (4elt, bayer10).
const MIN_BLOCK_COST_SHARED: usize = 12;

/// The smallest block cost with four or more groups a warp where A's mean
/// row (entries plus one) is shorter than [`MIN_BLOCK_COST_SHARED`]: about
/// a row a block, down to this. A small matrix of short rows fills a few
/// groups an SM, and a block of one row is one round of loads of B where
/// a block of two or three is two. H100, k = 32, against 12: G61 0.90× →
/// 0.97× cuSPARSE, bcspwr10 0.93× → 1.04×, commanche_dual 0.98× → 1.03×,
/// 4elt 1.16× → 1.23×; bcsstk13 and bcsstk25, with longer rows, keep 12
/// (6 for every matrix took them to 0.80×).
const MIN_BLOCK_COST_SHORT_ROWS: usize = 6;

/// The most pieces a long row may have for `auto` to take the `_fused`
/// kernel: its last piece sums the row's pieces one after another (four
/// loads at a time), where the fix-up launch spreads a row over `k`
/// threads. Measured on an H100 over the real set (both kernels in one
/// process), where rows were cut into at most 49 pieces: fused 1.14×
/// faster (0.97–1.37×, 57 cases, blocks of 64 included); on arrow, a row
/// of 217 pieces, 0.88–0.94×.
const FUSED_MAX_PIECES: usize = 64;

/// Groups resident on `sm_count` multiprocessors at once, `groups` a warp:
/// 32 warps an SM (the block kernels' 64 registers a thread).
fn wave(groups: usize, sm_count: usize) -> usize {
    32 * sm_count * groups
}

/// The block cost for `total` cost (entries plus rows) over `rows` rows in
/// `tiles` column tiles, `groups` groups a warp, on `sm_count`
/// multiprocessors: [`BLOCK_COST`], or less where that would leave the GPU
/// short of one full [`wave`] of groups, down to [`MIN_BLOCK_COST`] (or,
/// with four groups a warp or more, [`MIN_BLOCK_COST_SHARED`], or the mean
/// row's cost down to [`MIN_BLOCK_COST_SHORT_ROWS`]). A group walks its
/// block four loads at a time, a memory latency a round, so a small
/// matrix in blocks of 64 is 16 latencies long on a few SMs; a second wave
/// would pay the block's fixed chain twice. Measured on an H100 over the
/// 25 real matrices at k = 32..256 (f32), geomean against cuSPARSE: 0.86×
/// with blocks of 64, 0.94× filling two waves with blocks down to 8, 0.98×
/// filling one with blocks down to 16. A tiny product, at most a block of
/// [`MIN_BLOCK_COST`] a multiprocessor, takes blocks of
/// [`TINY_BLOCK_COST`]: most SMs idle anyway, so only the chain counts
/// (the 7 × 7 APSP matrices: 0.82–0.89× → 0.90–0.96× cuSPARSE).
fn block_cost(total: usize, rows: usize, tiles: usize, groups: usize, sm_count: usize) -> usize {
    if total * tiles <= sm_count * MIN_BLOCK_COST {
        return TINY_BLOCK_COST;
    }
    let min = match groups {
        4.. => total
            .div_ceil(rows.max(1))
            .clamp(MIN_BLOCK_COST_SHORT_ROWS, MIN_BLOCK_COST_SHARED),
        _ => MIN_BLOCK_COST,
    };
    (total * tiles)
        .div_ceil(wave(groups, sm_count).max(1))
        .clamp(min, BLOCK_COST)
}

/// The block cost of a tiny product ([`block_cost`]).
const TINY_BLOCK_COST: usize = 8;

/// How a dense operand is stored on the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DenseLayout {
    /// Element `(i, j)` at `i · cols + j` (the host's [`Dense`]).
    RowMajor,
    /// Element `(i, j)` at `j · rows + i` (cuBLAS's and Fortran's).
    ColMajor,
}

impl DenseLayout {
    pub const ALL: [DenseLayout; 2] = [DenseLayout::RowMajor, DenseLayout::ColMajor];

    pub fn name(self) -> &'static str {
        match self {
            DenseLayout::RowMajor => "row-major",
            DenseLayout::ColMajor => "col-major",
        }
    }
}

parse_by_name!(DenseLayout, "layout");

/// A GPU SpMM kernel, named as on the command line (`--kernel`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SpmmKernel {
    /// Chosen by [`choose`].
    Auto,
    /// Row-major: nnz-balanced blocks of whole rows (rows longer than a
    /// block cut into pieces, combined in order by a second launch), a
    /// group of lanes per block and tile of columns, streaming the block's
    /// entries across row boundaries.
    BlockRows,
    /// `block-rows` with each long row's pieces combined by the last of
    /// them to finish, in the same order: one launch, an atomic count a
    /// piece (`auto` takes it where no long row has many pieces).
    BlockRowsFused,
    /// Any layout: a thread per row and 8 columns, summing in row order
    /// (the serial engine's bits).
    ThreadRow,
    /// Column-major: B transposed to row-major on the device, `block-rows`
    /// (fused as `auto` chooses), C transposed back; both transposes are
    /// part of the run. The kernel `auto` takes for column-major operands.
    Transposed,
}

impl SpmmKernel {
    pub const ALL: [SpmmKernel; 5] = [
        SpmmKernel::Auto,
        SpmmKernel::BlockRows,
        SpmmKernel::BlockRowsFused,
        SpmmKernel::ThreadRow,
        SpmmKernel::Transposed,
    ];

    pub fn name(self) -> &'static str {
        match self {
            SpmmKernel::Auto => "auto",
            SpmmKernel::BlockRows => "block-rows",
            SpmmKernel::BlockRowsFused => "block-rows-fused",
            SpmmKernel::ThreadRow => "thread-row",
            SpmmKernel::Transposed => "transposed",
        }
    }
}

parse_by_name!(SpmmKernel, "SpMM kernel");

/// How the block kernels cover `k` columns: 16-byte loads or single
/// values, and lanes per group (a lane owns one load's values of a tile).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockShape {
    /// `spmm_csr_block_vec` (16-byte loads) rather than `spmm_csr_block`.
    pub vec: bool,
    /// Lanes per group: a power of two up to 32.
    pub lanes: u32,
}

impl BlockShape {
    /// The shape for `k` columns of `value_bytes`-byte values: 16-byte
    /// loads when `k` is a multiple of their width (so every row of B and C
    /// stays 16-byte aligned); as few lanes as cover the columns when they
    /// take less than a warp (the rest of the warp takes other blocks);
    /// otherwise 32 lanes and as many tiles of 32 loads as cover `k`.
    pub fn for_k(k: usize, value_bytes: usize) -> BlockShape {
        let width = 16 / value_bytes;
        let vec = k.is_multiple_of(width);
        let loads = match vec {
            true => k / width,
            false => k,
        };
        BlockShape {
            vec,
            lanes: loads.clamp(1, 32).next_power_of_two() as u32,
        }
    }

    /// Values one load brings.
    fn per_load(self, value_bytes: usize) -> usize {
        if self.vec { 16 / value_bytes } else { 1 }
    }

    /// The shape of half the lanes over twice the tiles, from 32 lanes:
    /// two groups a warp, so that a row cut in up to four pieces can be
    /// summed within a warp (local pieces), where with one group it takes
    /// partial rows; and B is read half as wide a tile at a time (more of
    /// its rows in L1 and L2), at the cost of staging A's entries twice as
    /// often. `Blocks::new` takes it where at least half the entries would
    /// be in such pieces. H100, f32, against cuSPARSE: R-MAT 20 at k = 128
    /// and 256 1.15× → 1.25× and 1.12× → 1.24×, bcsstk13 at k = 128 0.80× →
    /// 0.98×, MIT8 at k = 256 0.84× → 0.90×. Where few entries are in
    /// pieces it lost up to 13% (bcsstk25 at k = 128).
    fn narrow(self) -> Option<BlockShape> {
        (self.lanes == 32).then_some(BlockShape { lanes: 16, ..self })
    }

    /// Column tiles of `k`: one group's lanes cover a tile.
    fn tiles(self, k: usize, value_bytes: usize) -> usize {
        k.div_ceil(self.lanes as usize * self.per_load(value_bytes))
    }

    /// Groups in a warp.
    fn groups(self) -> u32 {
        32 / self.lanes
    }

    /// The kernel family: `_vec` for 16-byte loads, `_fused` where the
    /// last piece of a long row combines its pieces.
    fn family(self, fused: bool) -> &'static str {
        match (self.vec, fused) {
            (true, false) => "spmm_csr_block_vec",
            (false, false) => "spmm_csr_block",
            (true, true) => "spmm_csr_block_vec_fused",
            (false, true) => "spmm_csr_block_fused",
        }
    }
}

/// The kernel [`SpmmKernel::Auto`] runs: `block-rows`, fused where rows
/// were cut into few pieces (`Blocks::fused`), for row-major operands;
/// for column-major ones the same behind two transposes (`transposed`):
/// a transpose streams B and C once at copy bandwidth, while `thread-row`
/// leaves a long row to one thread and reads B a column at a time.
pub fn choose(layout: DenseLayout) -> SpmmKernel {
    match layout {
        DenseLayout::ColMajor => SpmmKernel::Transposed,
        DenseLayout::RowMajor => SpmmKernel::BlockRows,
    }
}

/// Entries a piece of a row of `len > block` entries takes: a block's
/// work, or `√len` when longer, so that neither the group walking a piece
/// nor the fix-up thread summing the row's pieces one after another takes
/// long (a piece of a 214 000-entry row capped at 64 pieces, 3 300 entries
/// a group, held an H100 0.8 ms; power-law 1M at k = 32 took 1.7 ms).
fn piece_len(len: usize, block: usize) -> usize {
    len.isqrt().max(block)
}

/// A's entries cut into the blocks of `block-rows` ([`SpmmBlockArgs`]).
#[derive(Debug)]
struct Partition {
    /// `(first row, end row, first entry, end entry)` per block: the
    /// pieces of long rows, the local pieces (end row
    /// [`SPMM_LOCAL_PIECE`] `| width`) and padding, then the blocks of
    /// whole rows and padding ([`partition_blocks`]).
    blocks: Vec<u32>,
    n_pieces: usize,
    /// Rows cut into local pieces.
    n_local_rows: usize,
    /// The long rows (cut into pieces combined through `partial`), and
    /// each one's first piece (`n_long + 1` offsets).
    long_rows: Vec<u32>,
    long_first: Vec<u32>,
}

impl Partition {
    /// Entries in pieces combined through partial rows.
    fn piece_entries(&self) -> usize {
        let pieces = self.blocks[..4 * self.n_pieces].chunks(4);
        pieces.map(|b| (b[3] - b[2]) as usize).sum()
    }
}

/// Cuts A into blocks of at most `block` cost: the rows longer than `block`
/// entries into even pieces of about [`piece_len`], the other rows, in
/// order, into blocks of whole rows (a block always takes its first row).
/// A long row of at most `2 · groups` pieces (`groups`: a warp's groups,
/// 1 for none) is cut instead into a power of two of *local* pieces, at
/// most `groups` (so up to twice as long), summed within a warp (no
/// partial rows). Order: the pieces, the local pieces (the widest rows
/// first, so that each row's run is aligned to its width, from a multiple
/// of `groups`), the blocks: the longest work starts first.
fn partition_blocks<T: Scalar>(a: &Csr<T>, block: usize, groups: usize) -> Partition {
    let ptr = a.row_ptr();
    let (mut pieces, mut long_rows, mut long_first) = (Vec::new(), Vec::new(), vec![0u32]);
    // Local pieces by log2 of their row's width.
    let mut local: Vec<Vec<u32>> = vec![Vec::new(); groups.ilog2() as usize + 1];
    let mut blocks = Vec::new();
    let close = |blocks: &mut Vec<u32>, first: usize, end: usize| {
        if first < end {
            blocks.extend([first, end, ptr[first], ptr[end]].map(|i| i as u32));
        }
    };
    // The open block's first row and cost.
    let (mut first, mut cost) = (0, 0);
    for (row, span) in ptr.windows(2).enumerate() {
        let (start, len) = (span[0], span[1] - span[0]);
        if len > block {
            close(&mut blocks, first, row);
            let n = len.div_ceil(piece_len(len, block));
            let cut = |n: usize, out: &mut Vec<u32>, end: u32| {
                for i in 0..n {
                    let (s, e) = (start + i * len / n, start + (i + 1) * len / n);
                    out.extend([row as u32, end, s as u32, e as u32]);
                }
            };
            if n <= 2 * groups && groups > 1 {
                let width = n.next_power_of_two().min(groups);
                let flag = SPMM_LOCAL_PIECE | width as u32;
                cut(width, &mut local[width.ilog2() as usize], flag);
            } else {
                cut(n, &mut pieces, row as u32 + 1);
                long_rows.push(row as u32);
                long_first.push((pieces.len() / 4) as u32);
            }
            (first, cost) = (row + 1, 0);
            continue;
        }
        if cost > 0 && cost + len + 1 > block {
            close(&mut blocks, first, row);
            (first, cost) = (row, 0);
        }
        cost += len + 1;
    }
    close(&mut blocks, first, a.nrows());
    let n_pieces = pieces.len() / 4;
    let n_local_rows = local
        .iter()
        .enumerate()
        .map(|(l, p)| (p.len() / 4) >> l)
        .sum();
    if n_local_rows > 0 {
        // Padding (width 0: no entries, nothing written) to a multiple of
        // the groups, before the runs and at the end (so that with several
        // tiles, item by item, a warp's groups share a tile).
        let pad = |pieces: &mut Vec<u32>| {
            while !(pieces.len() / 4).is_multiple_of(groups) {
                pieces.extend([0, SPMM_LOCAL_PIECE, 0, 0]);
            }
        };
        pad(&mut pieces);
        for run in local.iter().rev() {
            pieces.extend(run);
        }
        pieces.extend(blocks);
        pad(&mut pieces);
    } else {
        pieces.extend(blocks);
    }
    Partition {
        blocks: pieces,
        n_pieces,
        n_local_rows,
        long_rows,
        long_first,
    }
}

/// A's blocks for `tiles` column tiles of `groups` groups a warp (`local`:
/// the groups local pieces may span, [`partition_blocks`]), in blocks of
/// [`block_cost`], or larger where those spill past one [`wave`] into
/// part of a second: that cost aims at one wave, but rows cut into pieces
/// or kept whole make more blocks than it counts, and a second wave's
/// groups start only as the first wave's finish, paying a block's whole
/// chain again for a few blocks. The cost grows until the blocks fit
/// one wave (or reach [`BLOCK_COST`]). H100, f32, against cuSPARSE:
/// bcsstk13 at k = 256 0.88× → 1.06× (5 654 items over a wave of 4 224 at
/// cost 41; at 64, 3 726 and wide groups), the real set 1.41× → 1.46×
/// (bayer10 at k = 128 1.42× → 1.73×, delaunay_n16 at k = 32 1.31× →
/// 1.61×), no case more than 3% slower.
fn partition_in_waves<T: Scalar>(
    a: &Csr<T>,
    tiles: usize,
    groups: usize,
    local: usize,
    sm_count: usize,
) -> Partition {
    let wave = wave(groups, sm_count);
    let mut cost = block_cost(a.nnz() + a.nrows(), a.nrows(), tiles, groups, sm_count);
    let mut partition = partition_blocks(a, cost, local);
    let items = |p: &Partition| p.blocks.len() / 4 * tiles;
    while items(&partition) > wave && cost < BLOCK_COST {
        cost = (cost * items(&partition))
            .div_ceil(wave)
            .clamp(cost + 1, BLOCK_COST);
        partition = partition_blocks(a, cost, local);
    }
    partition
}

/// Whether `auto` takes the `_fused` kernel for long rows whose pieces
/// start at `long_first` (`n_long + 1` offsets): rows were cut, none into
/// more than [`FUSED_MAX_PIECES`].
fn auto_fuses(long_first: &[u32]) -> bool {
    let most = long_first.windows(2).map(|w| (w[1] - w[0]) as usize).max();
    most.is_some_and(|p| p <= FUSED_MAX_PIECES)
}

/// The blocks of a `block-rows` plan on the device.
struct Blocks<T> {
    shape: BlockShape,
    /// `(first row, end row, first entry, end entry)` per block, pieces
    /// first, then local pieces, then whole rows (as [`SpmmBlockArgs`] has
    /// them for the kernel `fused` picks).
    blocks: CudaSlice<u32>,
    n_blocks: u32,
    n_pieces: u32,
    /// Rows cut into local pieces (summed within a warp).
    n_local_rows: usize,
    /// The row of each entry of A.
    rows: CudaSlice<u32>,
    long_rows: CudaSlice<u32>,
    /// `n_long + 1` offsets into the pieces.
    long_first: CudaSlice<u32>,
    n_long: u32,
    /// A partial row of C per piece (one value when there are none).
    partial: CudaSlice<T>,
    /// The `_fused` kernel: the last piece of a long row combines the
    /// row's pieces (no fix-up launch). `auto` takes it where rows were cut
    /// into at most [`FUSED_MAX_PIECES`] pieces each: it saves the fix-up
    /// launch and its partial rows' trip (H100, real set: 1.14× faster
    /// there). Where a row has more (a hub of R-MAT or power-law,
    /// arrow's dense row), one group summing them all takes longer than
    /// the fix-up.
    fused: bool,
    /// `_fused`: a count of finished pieces per long row and tile, 0
    /// between runs.
    done: CudaSlice<u32>,
}

impl<T: Scalar> Blocks<T> {
    /// Cuts A into blocks for `k` columns in the shape [`BlockShape::for_k`]
    /// gives, or in groups of half the lanes where that leaves most entries
    /// in pieces of a warp's one group ([`BlockShape::narrow`]); `fused`:
    /// the `_fused` kernel or not, or (`None`) as `auto` chooses
    /// (`fused`).
    fn new(gpu: &Gpu, a: &Csr<T>, k: usize, fused: Option<bool>) -> Result<Self> {
        // Local pieces need the flag bit free in row numbers.
        let local_ok = a.nrows() < SPMM_LOCAL_PIECE as usize;
        let cut = |shape: BlockShape| {
            let tiles = shape.tiles(k, size_of::<T>());
            let groups = shape.groups() as usize;
            let local = if local_ok { groups } else { 1 };
            let sm_count = gpu.sm_count() as usize;
            (
                shape,
                tiles,
                partition_in_waves(a, tiles, groups, local, sm_count),
            )
        };
        let (mut shape, mut tiles, mut partition) = cut(BlockShape::for_k(k, size_of::<T>()));
        let in_pieces = partition.piece_entries();
        if let Some(narrow) = shape.narrow()
            && local_ok
            && in_pieces > 0
            && 2 * in_pieces >= a.nnz()
        {
            (shape, tiles, partition) = cut(narrow);
        }
        let Partition {
            mut blocks,
            n_pieces,
            n_local_rows,
            long_rows,
            long_first,
        } = partition;
        let n_blocks = blocks.len() / 4;
        let n_long = long_rows.len();
        index(
            n_blocks * tiles + 32,
            "the SpMM's work items (blocks × column tiles)",
        )?;
        let fused = fused.unwrap_or_else(|| auto_fuses(&long_first));
        if fused {
            // A fused piece names its long row where a block names its
            // end row.
            for (l, run) in long_first.windows(2).enumerate() {
                for p in run[0] as usize..run[1] as usize {
                    blocks[4 * p + 1] = l as u32;
                }
            }
        } else {
            index(n_long * k, "the long rows' columns (fix-up threads)")?;
        }
        let counts = if fused { n_long * tiles } else { 0 };
        Ok(Blocks {
            shape,
            blocks: gpu.upload(&blocks)?,
            n_blocks: n_blocks as u32,
            n_pieces: n_pieces as u32,
            n_local_rows,
            rows: gpu.upload(&a.entry_rows())?,
            n_long: n_long as u32,
            long_rows: gpu.upload(&long_rows)?,
            long_first: gpu.upload(&long_first)?,
            partial: gpu.zeros::<T>((n_pieces * k).max(1))?,
            fused,
            done: gpu.zeros::<u32>(counts.max(1))?,
        })
    }

    fn bytes(&self) -> usize {
        4 * (self.blocks.len()
            + self.rows.len()
            + self.long_rows.len()
            + self.long_first.len()
            + self.done.len())
            + self.partial.len() * size_of::<T>()
    }

    /// Queues the blocks' product, then, when long rows were cut and the
    /// kernel is not `_fused`, the fix-up that combines their pieces.
    fn run<S: Semiring<Value = T>>(
        &mut self,
        gpu: &Gpu,
        a: &DevCsr<T>,
        k: u32,
        b: &CudaSlice<T>,
        c: &mut CudaSlice<T>,
    ) -> Result<()> {
        let (shape, value_bytes) = (self.shape, size_of::<T>());
        let tiles = shape.tiles(k as usize, value_bytes) as u64;
        let args = SpmmBlockArgs {
            blocks: gpu.ptr(&self.blocks),
            rows: gpu.ptr(&self.rows),
            col_idx: gpu.ptr(&a.col_idx),
            values: gpu.ptr(&a.values),
            b: gpu.ptr(b),
            c: gpu.ptr_mut(c),
            partial: gpu.ptr_mut(&mut self.partial),
            long_first: gpu.ptr(&self.long_first),
            done: gpu.ptr_mut(&mut self.done),
            n_blocks: self.n_blocks,
            n_pieces: self.n_pieces,
            k,
            lanes: shape.lanes as u8,
            local: u8::from(self.n_local_rows > 0),
            // Tile by tile: B's rows read one tile wide at a time (measured
            // in BENCHMARKS.md: R-MAT 20 at k = 256 3.77 → 3.48 ms).
            tile_major: u16::from(tiles > 1),
        };
        let warps = (u64::from(self.n_blocks) * tiles).div_ceil(u64::from(shape.groups()));
        // A thread's share of its warp's staging: `groups · STAGE` entries.
        let stage = shape.groups() * SPMM_BLOCK_STAGE * (8 + value_bytes as u32) / 32;
        let family = shape.family(self.fused);
        gpu.launch_threads_shared::<S, _>(family, warps * 32, stage, args)?;
        if self.n_long > 0 && !self.fused {
            let fixup = SpmmFixupArgs {
                partial: gpu.ptr(&self.partial),
                c: gpu.ptr_mut(c),
                long_rows: gpu.ptr(&self.long_rows),
                long_first: gpu.ptr(&self.long_first),
                n_long: self.n_long,
                k,
            };
            let threads = u64::from(self.n_long) * u64::from(k);
            gpu.launch_threads::<S, _>("spmm_csr_fixup", threads, fixup)?;
        }
        Ok(())
    }
}

/// An SpMM ready to run: A on the device, the kernel and its shape.
pub struct SpmmPlan<T> {
    kernel: SpmmKernel,
    layout: DenseLayout,
    k: u32,
    a: DevCsr<T>,
    /// `block-rows`' blocks (`None` for `thread-row`).
    blocks: Option<Blocks<T>>,
    /// `transposed`: B and C in row-major order.
    row_major: Option<(CudaSlice<T>, CudaSlice<T>)>,
}

impl<T: Scalar> SpmmPlan<T> {
    /// Uploads A for products with `k`-column operands in `layout`.
    /// `Auto` is resolved by [`choose`]; a kernel for the other layout is
    /// refused, naming the kernels that read this one.
    pub fn new<S: Semiring<Value = T>>(
        gpu: &Gpu,
        a: &Csr<T>,
        k: usize,
        layout: DenseLayout,
        kernel: SpmmKernel,
    ) -> Result<Self> {
        let requested = kernel;
        let kernel = match kernel {
            SpmmKernel::Auto => choose(layout),
            other => other,
        };
        let reads: &[SpmmKernel] = match layout {
            DenseLayout::ColMajor => &[SpmmKernel::Transposed, SpmmKernel::ThreadRow],
            DenseLayout::RowMajor => &[
                SpmmKernel::BlockRows,
                SpmmKernel::BlockRowsFused,
                SpmmKernel::ThreadRow,
            ],
        };
        if !reads.contains(&kernel) {
            let names: Vec<_> = reads.iter().map(|k| k.name()).collect();
            return Err(Error::Unavailable {
                engine: "cuda",
                reason: format!(
                    "SpMM kernel {kernel} does not read {layout} operands; for {layout} use {} \
                     (or auto)",
                    names.join(", ")
                ),
            });
        }
        let k32 = index(k, "k (columns of B)")?;
        let dev = DevCsr::upload(gpu, a)?;
        let blocks = match kernel {
            SpmmKernel::BlockRows | SpmmKernel::BlockRowsFused | SpmmKernel::Transposed => {
                let fused = match requested {
                    SpmmKernel::BlockRows | SpmmKernel::BlockRowsFused => {
                        Some(requested == SpmmKernel::BlockRowsFused)
                    }
                    _ => None,
                };
                Some(Blocks::new(gpu, a, k, fused)?)
            }
            _ => {
                // A thread per row and column tile, counted in u32.
                let threads = a.nrows() * k.div_ceil(SPMM_THREAD_COLS as usize);
                index(threads, "the SpMM's work items (rows × column tiles)")?;
                None
            }
        };
        let row_major = match kernel {
            SpmmKernel::Transposed => Some((
                gpu.output::<T>((a.ncols() * k).max(1))?,
                gpu.output::<T>((a.nrows() * k).max(1))?,
            )),
            _ => None,
        };
        let kernel = match &blocks {
            Some(b) if b.fused && kernel == SpmmKernel::BlockRows => SpmmKernel::BlockRowsFused,
            _ => kernel,
        };
        Ok(SpmmPlan {
            kernel,
            layout,
            k: k32,
            a: dev,
            blocks,
            row_major,
        })
    }

    /// The kernel this plan runs (never `Auto`).
    pub fn kernel(&self) -> SpmmKernel {
        self.kernel
    }

    /// The kernel and its shape: `block-rows(vec16, 8 lanes, 76748 blocks,
    /// 8636 rows in local pieces, 34063 pieces of 3973 long rows)` (blocks
    /// counting padding), `thread-row(col-major)`.
    pub fn label(&self) -> String {
        match &self.blocks {
            None => format!("{}({})", self.kernel, self.layout),
            Some(b) => {
                let load = if b.shape.vec { "vec16" } else { "scalar" };
                let fused = if b.fused { "fused, " } else { "" };
                format!(
                    "{}({fused}{load}, {} lanes, {} blocks, {} rows in local pieces, {} pieces \
                     of {} long rows)",
                    self.kernel, b.shape.lanes, b.n_blocks, b.n_local_rows, b.n_pieces, b.n_long
                )
            }
        }
    }

    /// Rows of A, columns of A (rows of B), and `k`.
    pub fn shape(&self) -> (usize, usize, usize) {
        (
            self.a.n_rows as usize,
            self.a.n_cols as usize,
            self.k as usize,
        )
    }

    /// Bytes A and the plan's blocks and scratch occupy on the device.
    pub fn matrix_bytes(&self) -> usize {
        let row_major = self
            .row_major
            .as_ref()
            .map_or(0, |(b, c)| (b.len() + c.len()) * size_of::<T>());
        self.a.bytes() + self.blocks.as_ref().map_or(0, Blocks::bytes) + row_major
    }

    /// Queues `C = A ⊗ B` on the GPU's stream. `b` holds `n · k` values and
    /// `c` `m · k`, both in the plan's layout; every value of C is written.
    pub fn run<S: Semiring<Value = T>>(
        &mut self,
        gpu: &Gpu,
        b: &CudaSlice<T>,
        c: &mut CudaSlice<T>,
    ) -> Result<()> {
        let (m, n, k) = self.shape();
        assert_eq!(b.len(), n * k, "B must hold A.ncols() × k values");
        assert_eq!(c.len(), m * k, "C must hold A.nrows() × k values");
        let a = &self.a;
        if let Some((b_rows, c_rows)) = self.row_major.as_mut() {
            let blocks = self.blocks.as_mut().expect("transposed runs block-rows");
            transpose(gpu, b, b_rows, self.k, a.n_cols)?;
            blocks.run::<S>(gpu, a, self.k, b_rows, c_rows)?;
            return transpose(gpu, c_rows, c, a.n_rows, self.k);
        }
        if let Some(blocks) = self.blocks.as_mut() {
            return blocks.run::<S>(gpu, a, self.k, b, c);
        }
        let ((b_rs, b_cs), (c_rs, c_cs)) = match self.layout {
            DenseLayout::RowMajor => ((self.k, 1), (self.k, 1)),
            DenseLayout::ColMajor => ((1, a.n_cols), (1, a.n_rows)),
        };
        let args = SpmmCsrThreadArgs {
            row_ptr: gpu.ptr(&a.row_ptr),
            col_idx: gpu.ptr(&a.col_idx),
            values: gpu.ptr(&a.values),
            b: gpu.ptr(b),
            c: gpu.ptr_mut(c),
            n_rows: a.n_rows,
            k: self.k,
            b_row_stride: b_rs,
            b_col_stride: b_cs,
            c_row_stride: c_rs,
            c_col_stride: c_cs,
        };
        let threads = u64::from(a.n_rows) * u64::from(self.k.div_ceil(SPMM_THREAD_COLS));
        gpu.launch_threads::<S, _>("spmm_csr_thread", threads, args)
    }
}

/// Queues `output = inputᵀ` for a `rows × cols` row-major `input` (a
/// column-major `cols × rows` matrix read as row-major).
fn transpose<T: Scalar>(
    gpu: &Gpu,
    input: &CudaSlice<T>,
    output: &mut CudaSlice<T>,
    rows: u32,
    cols: u32,
) -> Result<()> {
    let size = size_of::<T>();
    let name = match size {
        1 => "transpose_1",
        4 => "transpose_4",
        _ => "transpose_8",
    };
    let args = TransposeArgs {
        input: DevPtr::new(gpu.ptr(input).addr()),
        output: DevPtrMut::new(gpu.ptr_mut(output).addr()),
        rows,
        cols,
    };
    let tiles = u64::from(rows.div_ceil(32)) * u64::from(cols.div_ceil(32));
    let grid = tiles.clamp(1, u64::from(gpu.sm_count()) * 16) as u32;
    let shared = (32 * 33 * size) as u32;
    gpu.launch_named(name, grid, TRANSPOSE_THREADS, shared, args)
}

/// `C = A ⊗ B` on the GPU with row-major host operands and the automatic
/// kernel: what `ops::spmm` runs on the cuda engine.
pub fn spmm<S: Semiring>(a: &Csr<S::Value>, b: &Dense<S::Value>) -> Result<Dense<S::Value>>
where
    S::Value: Scalar,
{
    crate::engine::serial::spmm::check_shapes(a, b);
    let gpu = Gpu::get()?;
    let mut plan = SpmmPlan::new::<S>(gpu, a, b.ncols(), DenseLayout::RowMajor, SpmmKernel::Auto)?;
    run_once::<S>(&mut plan, b)
}

/// `C = A ⊗ B` with a row-major plan of A: uploads B, runs, downloads C.
/// Out of device memory is [`Error::TooLarge`] with the numbers.
///
/// # Panics
/// When B is not `A.ncols() × k` for the plan's `k`, or the plan is not
/// row-major.
pub fn run_once<S: Semiring>(
    plan: &mut SpmmPlan<S::Value>,
    b: &Dense<S::Value>,
) -> Result<Dense<S::Value>>
where
    S::Value: Scalar,
{
    let (m, n, k) = plan.shape();
    assert_eq!((b.nrows(), b.ncols()), (n, k), "B is not A.ncols() × k");
    assert_eq!(plan.layout, DenseLayout::RowMajor, "a row-major plan");
    let gpu = Gpu::get()?;
    let bd = gpu.upload(b.as_slice())?;
    let mut cd = gpu.zeros::<S::Value>(m * k)?;
    plan.run::<S>(gpu, &bd, &mut cd)?;
    Dense::try_new(m, k, gpu.download(&cd)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::cuda::spmv::tests::with_rows;

    #[test]
    fn block_shapes_cover_k_with_the_fewest_lanes() {
        let shape = |k, bytes| {
            let s = BlockShape::for_k(k, bytes);
            (s.vec, s.lanes, s.tiles(k, bytes))
        };
        assert_eq!(shape(32, 4), (true, 8, 1));
        assert_eq!(shape(64, 4), (true, 16, 1));
        assert_eq!(shape(128, 4), (true, 32, 1));
        assert_eq!(shape(256, 4), (true, 32, 2));
        assert_eq!(shape(32, 8), (true, 16, 1));
        assert_eq!(shape(1, 4), (false, 1, 1));
        assert_eq!(shape(3, 8), (false, 4, 1));
        assert_eq!(shape(33, 4), (false, 32, 2));
        assert_eq!(shape(257, 4), (false, 32, 9));
        assert_eq!(shape(0, 4), (true, 1, 0));
        // Narrowed: 32 lanes to 16, over twice the tiles.
        let narrow = BlockShape::for_k(256, 4).narrow().unwrap();
        assert_eq!((narrow.lanes, narrow.tiles(256, 4)), (16, 4));
        assert_eq!(BlockShape::for_k(32, 4).narrow(), None);
        for k in 1..600 {
            for bytes in [1, 4, 8] {
                let s = BlockShape::for_k(k, bytes);
                assert!(s.lanes.is_power_of_two() && s.lanes <= 32, "{k}");
                if s.vec {
                    assert!(k.is_multiple_of(16 / bytes), "{k}");
                }
                // Every column is some lane's; no tile is all idle.
                let tile = s.lanes as usize * s.per_load(bytes);
                let tiles = s.tiles(k, bytes);
                assert!((tiles - 1) * tile < k && tiles * tile >= k, "{k}");
            }
        }
    }

    #[test]
    fn blocks_cover_every_entry_once_pieces_first_and_within_budget() {
        let long = BLOCK_COST;
        let lens = [0, 3, long, long + 1, 0, 0, 7, 100_000, 1, 60, 2, 0];
        let a = with_rows(&lens);
        let Partition {
            blocks,
            n_pieces,
            n_local_rows,
            long_rows,
            long_first,
        } = partition_blocks(&a, BLOCK_COST, 1);
        assert_eq!(n_local_rows, 0);
        let blocks: Vec<[usize; 4]> = blocks
            .chunks(4)
            .map(|b| [b[0], b[1], b[2], b[3]].map(|v| v as usize))
            .collect();
        assert_eq!(long_rows, [3, 7]);
        // Row 3: two pieces of a block; row 7: 317 of about √100 000.
        assert_eq!(long_first, [0, 2, 2 + 317]);
        assert_eq!(n_pieces, 2 + 317);
        let ptr = a.row_ptr();
        for (p, &[r0, r1, e0, e1]) in blocks[..n_pieces].iter().enumerate() {
            let l = long_first.iter().rposition(|&f| f as usize <= p).unwrap();
            assert_eq!((r0, r1), (long_rows[l] as usize, long_rows[l] as usize + 1));
            assert!(ptr[r0] <= e0 && e0 < e1 && e1 <= ptr[r1], "{p}");
        }
        // Each long row's pieces tile it, in order.
        for (l, &row) in long_rows.iter().enumerate() {
            let row = row as usize;
            let ps = &blocks[long_first[l] as usize..long_first[l + 1] as usize];
            assert_eq!((ps[0][2], ps[ps.len() - 1][3]), (ptr[row], ptr[row + 1]));
            assert!(ps.windows(2).all(|w| w[0][3] == w[1][2]), "row {row}");
        }
        // The row blocks: whole rows, in order, every short row once, each
        // within budget unless it holds one row.
        let mut covered = vec![0; a.nrows()];
        let mut last_end = 0;
        for &[r0, r1, e0, e1] in &blocks[n_pieces..] {
            assert!(r0 >= last_end && r0 < r1);
            assert_eq!((e0, e1), (ptr[r0], ptr[r1]));
            let cost: usize = (r0..r1).map(|r| a.row_len(r) + 1).sum();
            assert!(cost <= BLOCK_COST || r1 == r0 + 1, "{r0}..{r1}: {cost}");
            for c in &mut covered[r0..r1] {
                *c += 1;
            }
            last_end = r1;
        }
        for (row, &len) in lens.iter().enumerate() {
            let want = usize::from(len <= BLOCK_COST);
            assert_eq!(covered[row], want, "row {row}");
        }
        let piece_entries: usize = blocks[..n_pieces].iter().map(|b| b[3] - b[2]).sum();
        assert_eq!(piece_entries, long + 1 + 100_000);
        // A smaller budget cuts more rows, into even pieces of about its size.
        let p = partition_blocks(&a, MIN_BLOCK_COST, 1);
        assert_eq!(p.long_rows, [2, 3, 7, 9]);
        for p in p.blocks[..4 * p.n_pieces].chunks(4) {
            let most = piece_len(lens[p[0] as usize], MIN_BLOCK_COST) as u32;
            assert!((most / 2..=most).contains(&(p[3] - p[2])), "{p:?}");
        }
    }

    #[test]
    fn rows_of_few_pieces_become_local_runs_aligned_to_their_width() {
        // Blocks of 16 in warps of 4 groups: rows of 17..=128 entries (2..=8
        // pieces of 16) are local, in at most 4 pieces; rows of 129 (9
        // pieces) and 1000 (33 of 31) are long.
        let lens = [3, 17, 0, 40, 5, 65, 64, 33, 2, 1000, 20, 128, 129];
        let a = with_rows(&lens);
        let groups = 4;
        let p = partition_blocks(&a, MIN_BLOCK_COST, groups);
        assert_eq!(p.long_rows, [9, 12]);
        assert_eq!(p.n_local_rows, 7);
        let blocks: Vec<[u32; 4]> = p
            .blocks
            .chunks(4)
            .map(|b| [b[0], b[1], b[2], b[3]])
            .collect();
        assert_eq!(blocks.len() % groups, 0, "padded to whole warps");
        let ptr = a.row_ptr();
        let width_of = |b: &[u32; 4]| match b[1] & SPMM_LOCAL_PIECE {
            0 => None,
            _ => Some((b[1] & !SPMM_LOCAL_PIECE) as usize),
        };
        // After the pieces: padding, runs from a multiple of the groups,
        // widest first, then the blocks and padding.
        let mut covered = vec![0usize; a.nrows()];
        let (mut i, mut last_width) = (p.n_pieces, groups);
        while i < blocks.len() {
            match width_of(&blocks[i]) {
                None => {
                    let [r0, r1, ..] = blocks[i].map(|v| v as usize);
                    assert!(r0 < r1);
                    for c in &mut covered[r0..r1] {
                        *c += 1;
                    }
                    i += 1;
                }
                Some(0) => {
                    assert_eq!(blocks[i][2..], [0, 0], "padding has no entries");
                    i += 1;
                }
                Some(width) => {
                    assert!(i.is_multiple_of(width) && width <= last_width);
                    last_width = width;
                    let run = &blocks[i..i + width];
                    let row = run[0][0] as usize;
                    assert!(
                        run.iter()
                            .all(|b| b[0] as usize == row && b[1] == run[0][1])
                    );
                    assert_eq!(run[0][2] as usize, ptr[row]);
                    assert_eq!(run[width - 1][3] as usize, ptr[row + 1]);
                    assert!(run.windows(2).all(|w| w[0][3] == w[1][2]));
                    let n = lens[row].div_ceil(MIN_BLOCK_COST);
                    assert_eq!(width, n.next_power_of_two().min(groups), "row {row}");
                    covered[row] += 1;
                    i += width;
                }
            }
        }
        // Every row once, in a run, a block or pieces.
        for &row in &p.long_rows {
            covered[row as usize] += 1;
        }
        assert!(covered.iter().all(|&c| c == 1), "{covered:?}");
        // Without groups to share, the same rows are long rows.
        let p = partition_blocks(&a, MIN_BLOCK_COST, 1);
        assert_eq!(p.n_local_rows, 0);
        assert_eq!(p.long_rows, [1, 3, 5, 6, 7, 9, 10, 11, 12]);
    }

    #[test]
    fn small_matrices_get_small_blocks_to_fill_the_gpu() {
        // 132 SMs; k = 32 in f32 is one tile of four groups a warp, k = 256
        // two tiles of one. Rows of 20 entries, then of 4.
        let cost = |total: usize, tiles, groups| block_cost(total, total / 21, tiles, groups, 132);
        assert_eq!(cost(4_200_000, 1, 4), BLOCK_COST);
        assert_eq!(cost(600_000, 1, 4), 36);
        assert_eq!(cost(300_000, 2, 1), BLOCK_COST);
        assert_eq!(cost(132 * 16 + 1, 1, 4), MIN_BLOCK_COST_SHARED);
        assert_eq!(cost(132 * 16 + 1, 1, 2), MIN_BLOCK_COST);
        // Short rows with four groups a warp: about a row a block.
        let short = |total: usize, rows, groups| block_cost(total, rows, 1, groups, 132);
        assert_eq!(short(50_000, 10_000, 4), MIN_BLOCK_COST_SHORT_ROWS);
        assert_eq!(short(50_000, 5_000, 4), 10);
        assert_eq!(short(50_000, 5_000, 2), MIN_BLOCK_COST);
        assert_eq!(short(50_000, 0, 4), MIN_BLOCK_COST_SHARED);
        // Less than a smallest block a multiprocessor: tiny blocks.
        assert_eq!(cost(132 * 16, 1, 4), TINY_BLOCK_COST);
        assert_eq!(block_cost(50, 5, 2, 1, 132), TINY_BLOCK_COST);
        assert_eq!(block_cost(0, 0, 0, 4, 0), TINY_BLOCK_COST);
    }

    #[test]
    fn blocks_spilling_past_one_wave_grow_to_fit_it() {
        // One SM, one group a warp: a wave is 32 groups. 40 rows of 20:
        // cost 27 keeps a row a block (40 > 32); 43 takes two (20 blocks).
        let one_wave = with_rows(&[20; 40]);
        assert_eq!(block_cost(840, 40, 1, 1, 1), 27);
        assert_eq!(partition_blocks(&one_wave, 27, 1).blocks.len() / 4, 40);
        let p = partition_in_waves(&one_wave, 1, 1, 1, 1);
        assert_eq!(p.blocks.len() / 4, 20);
        assert!(p.blocks.chunks(4).all(|b| b[1] - b[0] == 2));
        // Two tiles count twice: 40 items of 20 blocks fit no wave below
        // cost 64, where blocks of three rows make 14 blocks, 28 items.
        let p = partition_in_waves(&one_wave, 2, 1, 1, 1);
        assert_eq!(p.blocks.len() / 4, 14);
        // At the largest cost they stay past a wave: 200 rows of 10, five
        // a block, 40 blocks.
        let many = with_rows(&[10; 200]);
        assert_eq!(block_cost(2200, 200, 1, 1, 1), BLOCK_COST);
        assert_eq!(partition_in_waves(&many, 1, 1, 1, 1).blocks.len() / 4, 40);
    }

    #[test]
    fn auto_fuses_rows_cut_into_few_pieces() {
        // No long rows: nothing to combine.
        assert!(!auto_fuses(&[0]));
        // Rows of 2 and 64 pieces; then one of 65.
        assert!(auto_fuses(&[0, 2, 2 + FUSED_MAX_PIECES as u32]));
        assert!(!auto_fuses(&[0, 2, 3 + FUSED_MAX_PIECES as u32]));
    }

    #[test]
    fn auto_follows_the_layout() {
        assert_eq!(choose(DenseLayout::ColMajor), SpmmKernel::Transposed);
        assert_eq!(choose(DenseLayout::RowMajor), SpmmKernel::BlockRows);
    }
}
