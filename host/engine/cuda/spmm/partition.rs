//! A's entries cut into the blocks `block-rows` walks: the host side of
//! an SpMM plan, no device needed. Blocks of whole rows of about
//! [`block_cost`]; rows longer than a block cut into pieces (summed within
//! a warp where they are few, else combined through partial rows of C);
//! a block cost that fills one wave of the GPU's groups.

use gpu_kernels::Semiring;
use gpu_kernels::args::{SPMM_LOCAL_PIECE, SpmmBlockArgs};
use gpu_kernels::kernels::{Family, family};

/// Work a block of `block-rows` holds, in entries plus one a row (so that
/// a run of empty rows, each still written, is work too). A group streams
/// a block with four entries' loads of B in flight: at 64, the block's two
/// latencies before them (descriptor, entries) are a small part of its
/// sixteen rounds. Smaller blocks favour stencils, larger ones graphs:
/// tried 32, Poisson 6% faster but R-MAT 4–10% slower; tried 128, R-MAT
/// 5% faster at k = 256 but Poisson 30% slower.
const BLOCK_COST: usize = 64;

/// The smallest block cost with fewer than four groups a warp (tiny
/// products aside, [`block_cost`]): below it a block's fixed chain
/// (descriptor, entries) outweighs its rounds of loads.
const MIN_BLOCK_COST: usize = 16;

/// The smallest block cost with four or more groups a warp (`k` ≤ 32 in
/// f32) where rows are long: a warp's groups share its fixed costs, so
/// smaller blocks pay; smaller still would cut rows of a few tens of
/// entries into pieces.
const MIN_BLOCK_COST_SHARED: usize = 12;

/// The smallest block cost with four or more groups a warp where A's mean
/// row (entries plus one) is shorter than [`MIN_BLOCK_COST_SHARED`]: about
/// a row a block, down to this. A small matrix of short rows fills a few
/// groups an SM, and a block of one row is one round of loads of B where
/// a block of two or three is two; matrices of longer rows keep the larger
/// minimum.
const MIN_BLOCK_COST_SHORT_ROWS: usize = 6;

/// The most pieces a long row may have for `auto` to take the `_fused`
/// kernel: its last piece sums the row's pieces one after another (four
/// loads at a time), where the fix-up launch spreads a row over `k`
/// threads; fusing saves a launch but serializes a row of many pieces.
const FUSED_MAX_PIECES: usize = 64;

/// Groups resident on `sm_count` multiprocessors at once, `groups` a warp:
/// 32 warps an SM (the block kernels' 64 registers a thread).
pub(super) fn wave(groups: usize, sm_count: usize) -> usize {
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
/// would pay the block's fixed chain twice. A tiny product, at most a
/// block of [`MIN_BLOCK_COST`] a multiprocessor, takes blocks of
/// [`TINY_BLOCK_COST`]: most SMs idle anyway, so only the chain counts.
pub(super) fn block_cost(
    total: usize,
    rows: usize,
    tiles: usize,
    groups: usize,
    sm_count: usize,
) -> usize {
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
    pub(super) fn per_load(self, value_bytes: usize) -> usize {
        if self.vec { 16 / value_bytes } else { 1 }
    }

    /// The shape of half the lanes over twice the tiles, from 32 lanes:
    /// two groups a warp, so that a row cut in up to four pieces can be
    /// summed within a warp (local pieces), where with one group it takes
    /// partial rows; and B is read half as wide a tile at a time (more of
    /// its rows in L1 and L2), at the cost of staging A's entries twice as
    /// often. `Blocks::new` takes it where at least half the entries would
    /// be in such pieces; where few are, the extra staging costs more than
    /// it saves.
    pub(super) fn narrow(self) -> Option<BlockShape> {
        (self.lanes == 32).then_some(BlockShape { lanes: 16, ..self })
    }

    /// Column tiles of `k`: one group's lanes cover a tile.
    pub(super) fn tiles(self, k: usize, value_bytes: usize) -> usize {
        k.div_ceil(self.lanes as usize * self.per_load(value_bytes))
    }

    /// Groups in a warp.
    pub(super) fn groups(self) -> u32 {
        32 / self.lanes
    }

    /// The kernel family: `_vec` for 16-byte loads, `_fused` where the
    /// last piece of a long row combines its pieces.
    pub(super) fn kernel<S: Semiring>(
        self,
        fused: bool,
    ) -> Family<S, SpmmBlockArgs<'static, S::Value>> {
        match (self.vec, fused) {
            (true, false) => family::spmm_csr_block_vec(),
            (false, false) => family::spmm_csr_block(),
            (true, true) => family::spmm_csr_block_vec_fused(),
            (false, true) => family::spmm_csr_block_fused(),
        }
    }
}

/// Entries a piece of a row of `len > block` entries takes: a block's
/// work, or `√len` when longer, so that neither the group walking a piece
/// nor the fix-up thread summing the row's pieces one after another takes
/// long (a fixed number of pieces leaves a hub's pieces thousands of
/// entries long).
pub(super) fn piece_len(len: usize, block: usize) -> usize {
    len.isqrt().max(block)
}

/// A's entries cut into the blocks of `block-rows` ([`SpmmBlockArgs`]).
#[derive(Debug)]
pub(super) struct Partition {
    /// `(first row, end row, first entry, end entry)` per block: the
    /// pieces of long rows, the local pieces (end row
    /// [`SPMM_LOCAL_PIECE`] `| width`) and padding, then the blocks of
    /// whole rows and padding ([`partition_blocks`]).
    pub(super) blocks: Vec<u32>,
    pub(super) n_pieces: usize,
    /// Rows cut into local pieces.
    pub(super) n_local_rows: usize,
    /// The long rows (cut into pieces combined through `partial`), and
    /// each one's first piece (`n_long + 1` offsets).
    pub(super) long_rows: Vec<u32>,
    pub(super) long_first: Vec<u32>,
}

impl Partition {
    /// Entries in pieces combined through partial rows.
    pub(super) fn piece_entries(&self) -> usize {
        let pieces = self.blocks[..4 * self.n_pieces].chunks(4);
        pieces.map(|b| (b[3] - b[2]) as usize).sum()
    }
}

/// Cuts A (its row offsets `ptr`) into blocks of at most `block` cost: the rows longer than `block`
/// entries into even pieces of about [`piece_len`], the other rows, in
/// order, into blocks of whole rows (a block always takes its first row).
/// A long row of at most `2 · groups` pieces (`groups`: a warp's groups,
/// 1 for none) is cut instead into a power of two of *local* pieces, at
/// most `groups` (so up to twice as long), summed within a warp (no
/// partial rows). Order: the pieces, the local pieces (the widest rows
/// first, so that each row's run is aligned to its width, from a multiple
/// of `groups`), the blocks: the longest work starts first.
pub(super) fn partition_blocks(ptr: &[usize], block: usize, groups: usize) -> Partition {
    let nrows = ptr.len() - 1;
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
    close(&mut blocks, first, nrows);
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
/// one wave (or reach [`BLOCK_COST`]).
pub(super) fn partition_in_waves(
    row_ptr: &[usize],
    tiles: usize,
    groups: usize,
    local: usize,
    sm_count: usize,
) -> Partition {
    let wave = wave(groups, sm_count);
    let nrows = row_ptr.len() - 1;
    let nnz = row_ptr[nrows];
    let mut cost = block_cost(nnz + nrows, nrows, tiles, groups, sm_count);
    let mut partition = partition_blocks(row_ptr, cost, local);
    let items = |p: &Partition| p.blocks.len() / 4 * tiles;
    while items(&partition) > wave && cost < BLOCK_COST {
        cost = (cost * items(&partition))
            .div_ceil(wave)
            .clamp(cost + 1, BLOCK_COST);
        partition = partition_blocks(row_ptr, cost, local);
    }
    partition
}

/// Whether `auto` takes the `_fused` kernel for long rows whose pieces
/// start at `long_first` (`n_long + 1` offsets): rows were cut, none into
/// more than [`FUSED_MAX_PIECES`].
pub(super) fn auto_fuses(long_first: &[u32]) -> bool {
    let most = long_first.windows(2).map(|w| (w[1] - w[0]) as usize).max();
    most.is_some_and(|p| p <= FUSED_MAX_PIECES)
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
        } = partition_blocks(a.row_ptr(), BLOCK_COST, 1);
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
        let p = partition_blocks(a.row_ptr(), MIN_BLOCK_COST, 1);
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
        let p = partition_blocks(a.row_ptr(), MIN_BLOCK_COST, groups);
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
        let p = partition_blocks(a.row_ptr(), MIN_BLOCK_COST, 1);
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
        assert_eq!(
            partition_blocks(one_wave.row_ptr(), 27, 1).blocks.len() / 4,
            40
        );
        let p = partition_in_waves(one_wave.row_ptr(), 1, 1, 1, 1);
        assert_eq!(p.blocks.len() / 4, 20);
        assert!(p.blocks.chunks(4).all(|b| b[1] - b[0] == 2));
        // Two tiles count twice: 40 items of 20 blocks fit no wave below
        // cost 64, where blocks of three rows make 14 blocks, 28 items.
        let p = partition_in_waves(one_wave.row_ptr(), 2, 1, 1, 1);
        assert_eq!(p.blocks.len() / 4, 14);
        // At the largest cost they stay past a wave: 200 rows of 10, five
        // a block, 40 blocks.
        let many = with_rows(&[10; 200]);
        assert_eq!(block_cost(2200, 200, 1, 1, 1), BLOCK_COST);
        assert_eq!(
            partition_in_waves(many.row_ptr(), 1, 1, 1, 1).blocks.len() / 4,
            40
        );
    }

    #[test]
    pub(super) fn auto_fuses_rows_cut_into_few_pieces() {
        // No long rows: nothing to combine.
        assert!(!auto_fuses(&[0]));
        // Rows of 2 and 64 pieces; then one of 65.
        assert!(auto_fuses(&[0, 2, 2 + FUSED_MAX_PIECES as u32]));
        assert!(!auto_fuses(&[0, 2, 3 + FUSED_MAX_PIECES as u32]));
    }
}
