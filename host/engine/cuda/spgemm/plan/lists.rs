//! The plan's product lists, built on the host: every entry of C's
//! products in the serial order (`product_lists`), laid out in the
//! replay's tiles (`TiledLists`).

use gpu_kernels::args::{
    REPLAY_BEFORE_SHIFT, REPLAY_LONG_TILE, REPLAY_LONG_TILES, REPLAY_MAX_TILES, REPLAY_PAD,
    REPLAY_REAL_SHIFT, REPLAY_RUNS_ON, REPLAY_WIDE_TILE, replay_entry, replay_real, replay_short,
    replay_tile,
};
use rayon::prelude::*;

use crate::Scalar;
use crate::engine::shared::partition::{balanced_row_chunks, for_each_chunk, split_rows_mut};
use crate::engine::shared::spgemm::flops_prefix;
use crate::format::Csr;

/// Product lists laid out in tiles of [`replay_tile`] words, as
/// [`SpgemmReplayArgs`] describes them: in C's order, each entry's first
/// product flagged in its lane's `lane_flags`; a list of at most
/// [`replay_short`] products that would cross a tile's end starts the
/// next tile instead, the end padded. B's positions take `b_bits` of each
/// `u32` word; A's pack above them, less the tile's lowest, in every tile
/// whose A positions span less than 2^(32 − `b_bits`), and lie in `wide_a`
/// in the others (R-MAT's long rows of A): 4 bytes a product instead of
/// 8, tile by tile. The replay reads those bytes once a numeric phase, so
/// they are most of its time.
pub(super) struct TiledLists {
    pub(super) words: Vec<u32>,
    pub(super) tile_entry: Vec<u64>,
    pub(super) tile_a: Vec<u32>,
    pub(super) wide_a: Vec<u32>,
    pub(super) lane_flags: Vec<u16>,
    pub(super) long_tiles: Vec<u32>,
    pub(super) b_bits: u32,
}

impl TiledLists {
    /// Lays out `entry_ptr`'s lists of `pairs` (`a_position | b_position
    /// << 32`) for a B of `b_nnz` entries, in tiles of `lane` products a
    /// lane; `None` where `b_nnz` is 2³¹ or more (B's bits in a word are at
    /// most 31, so that A's offset has one) or the tiles would be
    /// [`REPLAY_MAX_TILES`] or more.
    pub(super) fn new(
        entry_ptr: &[usize],
        pairs: Vec<u64>,
        b_nnz: usize,
        lane: u64,
    ) -> Option<TiledLists> {
        if b_nnz >= 1 << 31 {
            return None;
        }
        debug_assert!(entry_ptr.windows(2).all(|l| l[0] < l[1]), "an empty list");
        debug_assert!(
            entry_ptr.len() <= 1 << REPLAY_REAL_SHIFT,
            "entries past the tiles' bits"
        );
        let (tile, short) = (replay_tile(lane) as usize, replay_short(lane) as usize);
        // Where each entry's list goes, given the next free word.
        let place = |len: usize, at: usize| {
            let room = tile - at % tile;
            if len <= short && len > room {
                at + room
            } else {
                at
            }
        };
        // Chunks of entries of about equal products, each from a new tile;
        // each entry's first word.
        let chunks = balanced_row_chunks(entry_ptr);
        let mut starts = vec![0usize; entry_ptr.len() - 1];
        let chunk_tiles: Vec<usize> = split_rows_mut(&mut starts, &chunks, 1)
            .into_par_iter()
            .zip(&chunks)
            .map(|(starts, entries)| {
                let mut at = 0;
                for (start, e) in starts.iter_mut().zip(entries.clone()) {
                    let len = entry_ptr[e + 1] - entry_ptr[e];
                    at = place(len, at);
                    *start = at;
                    at += len;
                }
                at.div_ceil(tile)
            })
            .collect();
        let tile_chunks: Vec<_> = chunk_tiles
            .iter()
            .scan(0, |t, &n| {
                *t += n;
                Some(*t - n..*t)
            })
            .collect();
        let n_tiles = tile_chunks.last().map_or(0, |t| t.end);
        if n_tiles as u64 >= REPLAY_MAX_TILES {
            return None;
        }
        // Each tile's lowest and highest A position (a tile of pads: none).
        let mut spans: Vec<Option<(u32, u32)>> = vec![None; n_tiles];
        split_rows_mut(&mut starts, &chunks, 1)
            .into_par_iter()
            .zip(split_rows_mut(&mut spans, &tile_chunks, 1))
            .zip(&chunks)
            .zip(&tile_chunks)
            .for_each(|(((starts, spans), entries), tiles)| {
                // A list's A positions rise (A's row left to right): each
                // piece of it in a tile spans its first to its last.
                for (start, e) in starts.iter_mut().zip(entries.clone()) {
                    let list = &pairs[entry_ptr[e]..entry_ptr[e + 1]];
                    let mut x = 0;
                    while x < list.len() {
                        let q = *start + x;
                        let n = (tile - q % tile).min(list.len() - x);
                        let (lo, hi) = (list[x] as u32, list[x + n - 1] as u32);
                        let span = &mut spans[q / tile];
                        *span = Some(span.map_or((lo, hi), |(l, h)| (l.min(lo), h.max(hi))));
                        x += n;
                    }
                    *start += tiles.start * tile;
                }
            });
        let b_bits = (usize::BITS - b_nnz.saturating_sub(1).leading_zeros()).max(1);
        let offsets = 1u64 << (32 - b_bits);
        let wide: Vec<bool> = (spans.par_iter())
            .map(|s| s.is_some_and(|(lo, hi)| u64::from(hi - lo) >= offsets))
            .collect();
        let mut n_wide = 0;
        let tile_a: Vec<u32> = (spans.iter().zip(&wide))
            .map(|(s, &w)| match (s, w) {
                (_, true) => {
                    n_wide += 1;
                    n_wide - 1
                }
                (&s, false) => s.map_or(0, |(lo, _)| lo),
            })
            .collect();
        let layout = TileLayout {
            entry_ptr,
            starts: &starts,
            chunks: &chunks,
            tile_chunks: &tile_chunks,
            tile,
        };
        let words = layout.fill(&pairs, REPLAY_PAD, &|t, pair| {
            let a = if wide[t] {
                0
            } else {
                (pair as u32 - tile_a[t]) << b_bits
            };
            a | (pair >> 32) as u32
        });
        let wide_tiles: Vec<usize> = (0..n_tiles).filter(|&t| wide[t]).collect();
        let wide_a = layout.wide_a(&pairs, &wide_tiles);
        drop(pairs);
        // Each tile's entry, and its words up to the end of the last list
        // begun before its end (the pads follow).
        let mut tile_entry: Vec<u64> = (0..n_tiles)
            .into_par_iter()
            .map(|t| {
                let entry = starts.partition_point(|&s| s < t * tile);
                let last = starts.partition_point(|&s| s < (t + 1) * tile) - 1;
                let end = starts[last] + entry_ptr[last + 1] - entry_ptr[last];
                let real = end.min((t + 1) * tile) - t * tile;
                entry as u64 | (real as u64) << REPLAY_REAL_SHIFT
            })
            .collect();
        let lane_flags = layout.lane_flags(&tile_entry);
        // A tile whose last list runs on into the next is marked; one
        // whose last list runs on through many more goes first, the
        // longest first.
        let running: Vec<(usize, usize, usize)> = (0..starts.len())
            .into_par_iter()
            .filter_map(|e| {
                let (first, len) = (starts[e], entry_ptr[e + 1] - entry_ptr[e]);
                let (t, end) = (first / tile, (first + len - 1) / tile);
                (end > t).then_some((len, t, end))
            })
            .collect();
        let mut long = Vec::new();
        for &t in &wide_tiles {
            tile_entry[t] |= REPLAY_WIDE_TILE;
        }
        for (len, t, end) in running {
            tile_entry[t] |= REPLAY_RUNS_ON;
            if end - t > REPLAY_LONG_TILES as usize {
                tile_entry[t] |= REPLAY_LONG_TILE;
                long.push((len, t as u32));
            }
        }
        long.sort_unstable_by(|x, y| y.cmp(x));
        let long_tiles = long.into_iter().map(|(_, t)| t).collect();
        Some(TiledLists {
            words,
            tile_entry,
            tile_a,
            wide_a,
            lane_flags,
            long_tiles,
            b_bits,
        })
    }
}

/// Where [`TiledLists`] puts each list: each entry's first word
/// (`starts`), chunks of entries (`chunks`) and their tiles
/// (`tile_chunks`, of `tile` words).
pub(super) struct TileLayout<'l> {
    pub(super) entry_ptr: &'l [usize],
    pub(super) starts: &'l [usize],
    pub(super) chunks: &'l [std::ops::Range<usize>],
    pub(super) tile_chunks: &'l [std::ops::Range<usize>],
    pub(super) tile: usize,
}

impl TileLayout<'_> {
    /// The words: `word(tile, pair)` for each of `pairs`, `pad` elsewhere.
    /// Zeroed first, so that the pages are mapped by the threads that fill
    /// them, each word written once (a serial fill of pads took longer than
    /// the rest of the plan's lists).
    pub(super) fn fill<W: Copy + Default + Send + Sync>(
        &self,
        pairs: &[u64],
        pad: W,
        word: &(dyn Fn(usize, u64) -> W + Sync),
    ) -> Vec<W> {
        let (tile, n_tiles) = (self.tile, self.tile_chunks.last().map_or(0, |t| t.end));
        let mut words = vec![W::default(); n_tiles * tile];
        split_rows_mut(&mut words, self.tile_chunks, tile)
            .into_par_iter()
            .zip(self.chunks)
            .zip(self.tile_chunks)
            .for_each(|((words, entries), tiles)| {
                let base = tiles.start * tile;
                let mut at = 0;
                for e in entries.clone() {
                    let start = self.starts[e] - base;
                    words[at..start].fill(pad);
                    let list = &pairs[self.entry_ptr[e]..self.entry_ptr[e + 1]];
                    for (q, &pair) in (start..).zip(list) {
                        words[q] = word((base + q) / tile, pair);
                    }
                    at = start + list.len();
                }
                words[at..].fill(pad);
            });
        words
    }

    /// Each lane's flags (`SpgemmReplayArgs::lane_flags`), 32 a tile of
    /// `tile_entry` (its words before the pads and its first entry): the
    /// lane's words that begin a list or are pads, and the lists begun in
    /// the lanes before it.
    pub(super) fn lane_flags(&self, tile_entry: &[u64]) -> Vec<u16> {
        // A tile is a warp's: 32 lanes of `lane` words.
        let (tile, lanes) = (self.tile, 32);
        let lane = tile / lanes;
        let mut flags = vec![0u16; tile_entry.len() * lanes];
        (flags.par_chunks_mut(lanes).zip(tile_entry).enumerate()).for_each(
            |(t, (flags, &info))| {
                let at = t * tile;
                let firsts = &self.starts[replay_entry(info) as usize..];
                for &s in firsts.iter().take_while(|&&s| s < at + tile) {
                    flags[(s - at) / lane] |= 1 << ((s - at) % lane);
                }
                let mut before = 0;
                for f in flags.iter_mut() {
                    let begun = f.count_ones() as u16;
                    *f |= before << REPLAY_BEFORE_SHIFT;
                    before += begun;
                }
                for q in replay_real(info) as usize..tile {
                    flags[q / lane] |= 1 << (q % lane);
                }
            },
        );
        flags
    }

    /// The A positions of `pairs` in each of the tiles `wide` (ascending),
    /// a tile's `tile` after the one's before it, 0 at the pads.
    pub(super) fn wide_a(&self, pairs: &[u64], wide: &[usize]) -> Vec<u32> {
        let tile = self.tile;
        let mut out = vec![0u32; wide.len() * tile];
        out.par_chunks_mut(tile).zip(wide).for_each(|(out, &t)| {
            let at = t * tile..(t + 1) * tile;
            // The list running into the tile, then those begun in it.
            let first = self
                .starts
                .partition_point(|&s| s <= at.start)
                .saturating_sub(1);
            for e in (first..self.starts.len()).take_while(|&e| self.starts[e] < at.end) {
                let (start, list) = (self.starts[e], self.entry_ptr[e]);
                let end = start + self.entry_ptr[e + 1] - list;
                for q in start.max(at.start)..end.min(at.end) {
                    out[q - at.start] = pairs[list + q - start] as u32;
                }
            }
        });
        out
    }
}

/// For C = A·B of pattern `c_row_ptr` / `c_col_idx`: each entry's products
/// in the serial order (A's row left to right, each row of B left to
/// right), as `entry_ptr` (C's entries + 1 offsets) into `pairs`
/// (`a_position | b_position << 32`). Rows in chunks of equal products on
/// every thread; a row's lists lie where its products would.
pub(super) fn product_lists<T: Scalar>(
    a: &Csr<T>,
    b: &Csr<T>,
    c_row_ptr: &[u64],
    c_col_idx: &[u32],
) -> (Vec<usize>, Vec<u64>) {
    let n = a.nrows();
    let products = flops_prefix(a, b);
    let chunks = balanced_row_chunks(&products);
    let entries =
        |r: &std::ops::Range<usize>| c_row_ptr[r.start] as usize..c_row_ptr[r.end] as usize;
    let entry_chunks: Vec<_> = chunks.iter().map(entries).collect();
    let product_chunks: Vec<_> = chunks
        .iter()
        .map(|r| products[r.start]..products[r.end])
        .collect();
    let nnz = c_col_idx.len();
    let mut entry_ptr = vec![0usize; nnz + 1];
    entry_ptr[nnz] = products[n];
    let mut pairs = vec![0u64; products[n]];
    let parts: Vec<_> = split_rows_mut(&mut entry_ptr[..nnz], &entry_chunks, 1)
        .into_iter()
        .zip(split_rows_mut(&mut pairs, &product_chunks, 1))
        .collect();
    // A thread's column → position in the row of C, and the row's cursors.
    let threads = rayon::current_num_threads().min(chunks.len());
    let mut work: Vec<(Vec<u32>, Vec<usize>)> = (0..threads)
        .map(|_| (vec![0; b.ncols()], Vec::new()))
        .collect();
    for_each_chunk(&mut work, parts, |(position, cursor), c, (ptr, out)| {
        let rows = chunks[c].clone();
        let (first_entry, first_product) = (c_row_ptr[rows.start], products[rows.start]);
        for i in rows {
            let row = c_row_ptr[i] as usize..c_row_ptr[i + 1] as usize;
            for (p, &j) in c_col_idx[row.clone()].iter().enumerate() {
                position[j as usize] = p as u32;
            }
            cursor.clear();
            cursor.resize(row.len(), 0);
            let a_row = a.row_ptr()[i]..a.row_ptr()[i + 1];
            let b_row = |k: u32| b.row_ptr()[k as usize]..b.row_ptr()[k as usize + 1];
            for &k in &a.col_idx()[a_row.clone()] {
                for &j in &b.col_idx()[b_row(k)] {
                    cursor[position[j as usize] as usize] += 1;
                }
            }
            // Counts to starts: entry p's list follows those before it.
            let mut at = products[i];
            let local = (row.start - first_entry as usize)..(row.end - first_entry as usize);
            for (start, count) in ptr[local].iter_mut().zip(cursor.iter_mut()) {
                *start = at;
                at += *count;
                *count = *start - first_product;
            }
            for a_pos in a_row {
                let k = a.col_idx()[a_pos];
                for b_pos in b_row(k) {
                    let slot = &mut cursor[position[b.col_idx()[b_pos] as usize] as usize];
                    out[*slot] = a_pos as u64 | (b_pos as u64) << 32;
                    *slot += 1;
                }
            }
        }
    });
    (entry_ptr, pairs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpu_kernels::args::{replay_before, replay_bounds};

    #[test]
    fn product_lists_follow_the_serial_order() {
        // A = [[a0, a1], [0, a2]], B = [[b0, b1], [b2, 0]]: C(0,0) = a0·b0 +
        // a1·b2, C(0,1) = a0·b1, C(1,0) = a2·b2.
        let a = Csr::try_new(2, 2, vec![0, 2, 3], vec![0, 1, 1], vec![1.0, 2.0, 3.0]).unwrap();
        let b = Csr::try_new(2, 2, vec![0, 2, 3], vec![0, 1, 0], vec![4.0, 5.0, 6.0]).unwrap();
        let pair = |a: u64, b: u64| a | b << 32;
        let (ptr, pairs) = product_lists(&a, &b, &[0, 2, 3], &[0, 1, 0]);
        assert_eq!(ptr, [0, 2, 3, 4]);
        assert_eq!(pairs, [pair(0, 0), pair(1, 2), pair(0, 1), pair(2, 2)]);
        let (ptr, pairs) = product_lists(&Csr::<f64>::empty(3, 0), &Csr::empty(0, 4), &[0; 4], &[]);
        assert_eq!((ptr, pairs), (vec![0], vec![]));
    }

    /// Whether word `p` of lists of `tile` words a tile is flagged in its
    /// lane's flags.
    fn flagged(t: &TiledLists, tile: usize, p: usize) -> bool {
        let lane = tile / 32;
        replay_bounds(t.lane_flags[p / lane]) >> (p % lane) & 1 != 0
    }

    /// Every entry's list of positions, read back in word order as the
    /// replay reads them: a flag begins an entry, a pad ends one. Checks
    /// that each lane's flags count the entries begun in the lanes before
    /// it, and that pads are flagged.
    fn replayed(t: &TiledLists, tile: usize) -> Positions {
        let lane = tile / 32;
        let mut before = 0;
        for (l, &f) in t.lane_flags.iter().enumerate() {
            let real = replay_real(t.tile_entry[l / 32]) as usize;
            let begun = (0..lane)
                .filter(|u| l % 32 * lane + u < real && flagged(t, tile, l * lane + u))
                .count() as u32;
            before = if l % 32 == 0 { 0 } else { before };
            assert_eq!(replay_before(f), before, "lane {l}");
            before += begun;
        }
        let words = (t.words.iter().enumerate()).map(|(p, &w)| {
            let (tl, b_bits) = (p / tile, t.b_bits);
            let offset = w >> b_bits;
            let wide = t.tile_entry[tl] & REPLAY_WIDE_TILE != 0;
            let a = if wide {
                assert_eq!(offset, 0, "an offset in a wide tile");
                t.wide_a[t.tile_a[tl] as usize * tile + p % tile]
            } else {
                t.tile_a[tl] + offset
            };
            // After the tile's real words, pads, read as the tile's lowest A
            // position (a wide tile's 0) and B's first.
            let real = p % tile < replay_real(t.tile_entry[tl]) as usize;
            let lowest = if wide { 0 } else { t.tile_a[tl] };
            assert!(real || (w, a) == (REPLAY_PAD, lowest), "word {p}: a pad");
            assert!(real || flagged(t, tile, p), "word {p}: a pad unflagged");
            real.then_some((flagged(t, tile, p), a, w & ((1 << b_bits) - 1)))
        });
        let mut lists: Positions = Vec::new();
        let mut open = false;
        for w in words {
            match w {
                Some((true, a, b)) => lists.push(vec![(a, b)]),
                Some((false, a, b)) => {
                    assert!(open, "a product outside any list");
                    lists.last_mut().unwrap().push((a, b));
                }
                None => {}
            }
            open = w.is_some();
        }
        lists
    }

    /// Each list's positions in A and B.
    type Positions = Vec<Vec<(u32, u32)>>;

    /// Lists of `lens` products, A's positions from 7 a list on, rising by
    /// 1 a product or, in every 97th list, by 100; B's anywhere below 1000:
    /// their `entry_ptr`, pairs and positions.
    fn lists_of(lens: &[usize]) -> (Vec<usize>, Vec<u64>, Positions) {
        let want: Positions = (lens.iter().enumerate())
            .map(|(e, &n)| {
                let step = if e % 97 == 50 { 100 } else { 1 };
                (0..n)
                    .map(|k| ((7 * e + step * k) as u32, ((e * 31 + k) % 1000) as u32))
                    .collect()
            })
            .collect();
        let entry_ptr = std::iter::once(0)
            .chain(want.iter().scan(0, |n, l| {
                *n += l.len();
                Some(*n)
            }))
            .collect();
        let pairs = (want.iter().flatten())
            .map(|&(a, b)| a as u64 | (b as u64) << 32)
            .collect();
        (entry_ptr, pairs, want)
    }

    #[test]
    fn tiled_lists_keep_every_list_in_order() {
        // Mostly lists of 1 to 3 products; some of 40 to 64, which never
        // cross a tile of 8 products a lane; some longer, which do; one of
        // 2 000, replayed first.
        let lens: Vec<usize> = (0..3_000)
            .map(|e| match e % 97 {
                13 => 40 + e % 25,
                50 => 65 + e % 300,
                _ if e == 1_500 => 2_000,
                _ => 1 + e % 3,
            })
            .collect();
        let (entry_ptr, pairs, want) = lists_of(&lens);
        // B of 1000 entries: 10 bits for B, 22 for an offset of A, so that
        // every tile packs; of 2²¹, 11 for an offset, too few for the
        // lists stepping by 100; of 2³¹ − 1, 1 bit, too few for any.
        let cases = [(1000, "none"), (1 << 21, "some"), ((1 << 31) - 1, "most")];
        for ((b_nnz, wide), lane) in cases.into_iter().flat_map(|c| [(c, 4), (c, 8)]) {
            let (tile, short) = (replay_tile(lane) as usize, replay_short(lane) as usize);
            let t = TiledLists::new(&entry_ptr, pairs.clone(), b_nnz, lane).unwrap();
            let n_wide = (t.tile_entry.iter())
                .filter(|&&e| e & REPLAY_WIDE_TILE != 0)
                .count();
            assert_eq!(t.wide_a.len(), n_wide * tile);
            let n_tiles = t.tile_entry.len();
            match wide {
                "none" => assert_eq!(n_wide, 0),
                "some" => assert!(n_wide > 0 && n_wide < n_tiles, "{n_wide} of {n_tiles}"),
                _ => assert!(n_wide > n_tiles / 2, "{n_wide} of {n_tiles}"),
            }
            assert_eq!(replayed(&t, tile), want);
            // Each tile's entry is the lists begun before it; a list of
            // at most `short` products lies in one tile.
            let (mut begun, mut at, mut firsts) = (0, 0, Vec::new());
            for (e, l) in want.iter().enumerate() {
                let first = (at..)
                    .find(|&p| {
                        let real = replay_real(t.tile_entry[p / tile]) as usize;
                        flagged(&t, tile, p) && p % tile < real
                    })
                    .unwrap();
                for tl in at.div_ceil(tile)..=first / tile {
                    if tl * tile <= first {
                        assert_eq!(replay_entry(t.tile_entry[tl]), begun, "tile {tl}");
                    }
                }
                // A list that crosses a tile's end is its tile's last, marked.
                let crosses = first / tile != (first + l.len() - 1) / tile;
                assert!(!crosses || l.len() > short, "list {e}");
                let marked = t.tile_entry[first / tile] & REPLAY_RUNS_ON != 0;
                assert!(!crosses || marked, "list {e}");
                begun += 1;
                at = first + l.len();
                firsts.push(first);
            }
            // The tiles of the lists that run on through more than
            // REPLAY_LONG_TILES more go first, longest first, marked; the
            // list of 2 000 products first of all.
            let mut long: Vec<(usize, u32)> = (firsts.iter().zip(&want))
                .filter(|&(&f, l)| (f + l.len() - 1) / tile - f / tile > REPLAY_LONG_TILES as usize)
                .map(|(&f, l)| (l.len(), (f / tile) as u32))
                .collect();
            long.sort_unstable_by(|x, y| y.cmp(x));
            let long: Vec<u32> = long.into_iter().map(|(_, t)| t).collect();
            assert_eq!(t.long_tiles, long);
            assert_eq!(long[0] as usize, firsts[1_500] / tile);
            let marked = (t.tile_entry.iter()).filter(|&&e| e & REPLAY_LONG_TILE != 0);
            assert_eq!(marked.count(), long.len());
        }
        // No entries: no tiles.
        let empty = TiledLists::new(&[0], Vec::new(), 0, 8).unwrap();
        assert!(empty.tile_entry.is_empty() && empty.long_tiles.is_empty());
        // B of 2³¹ entries: 32 bits for B, none for A's offset.
        assert!(TiledLists::new(&entry_ptr, pairs, 1 << 31, 8).is_none());
    }
}
