//! The plan's replay: C's values again from the products listed.
//!
//! A plan (the host's `SpgemmPlan`) that has listed each entry's products
//! in the serial order recomputes C's values with `spgemm_replay_4` or
//! `_8`: the lists lie end to end in tiles, a warp's, 4 or 8 products a
//! lane; each lane folds the lists that begin among its products, and a
//! list that runs on from the lanes before waits for their sum, passed by
//! shuffles. No row is walked, searched or sorted again, and every lane
//! computes its products at once however the lists' lengths vary (a
//! thread an entry idled most lanes of a warp, on lists of unequal
//! lengths). The long tiles' block kernels are in [`super::replay_long`].

use crate::args::{
    REPLAY_LONG_TILE, REPLAY_NARROW_LANE, REPLAY_RUNS_ON, REPLAY_WIDE_LANE, REPLAY_WIDE_TILE,
    SpgemmReplayArgs, replay_before, replay_bounds, replay_entry, replay_real,
};
use crate::device::memory::{load_readonly, load_streaming};
use crate::device::shared;
use crate::device::thread::{
    WARP_SIZE, block_dim_x, global_warp_id, grid_warps, grid_warps_reread, lane_id, require,
    warp_id,
};
use crate::device::warp::{self, FULL_MASK, Shuffle, lane_mask_lt};
use crate::semiring::Semiring;

/// 16 bytes of words, one vector load.
#[repr(C, align(16))]
#[derive(Clone, Copy)]
struct Words16([u32; 4]);

/// `N` words from `p` (a multiple of 4) of a 16-byte aligned global
/// buffer read once, in 16-byte loads (`ld.global.cs.v4`: a plain read
/// of a `Words16` compiles to four 4-byte loads).
///
/// # Safety
/// `p + N` within the buffer.
#[inline(always)]
unsafe fn read_words<const N: usize>(words: *const u32, p: usize) -> [u32; N] {
    const { assert!(N % 4 == 0) };
    let mut ws = [0; N];
    for (q, chunk) in ws.chunks_exact_mut(4).enumerate() {
        // SAFETY: the caller's; `p` a multiple of 4 keeps every load
        // 16-byte aligned.
        let w: Words16 = unsafe { load_streaming(words.cast::<Words16>().add(p / 4 + q)) };
        chunk.copy_from_slice(&w.0);
    }
    ws
}

/// A plan's lists as the replay reads them.
pub(super) struct ReplayLists<'a, T> {
    pub(super) a: SpgemmReplayArgs<'a, T>,
}

impl<T: Copy> ReplayLists<'_, T> {
    /// The A positions of a lane's words `ws`, its `N` from word `p` of a
    /// tile (of `32 × N`) whose `tile_entry` is `info` and `tile_a` `base`:
    /// `base` plus the offset packed in each word, or, in a
    /// far tile ([`REPLAY_WIDE_TILE`]), `wide_a`'s (`base` the tile's place
    /// among the far tiles).
    ///
    /// # Safety
    /// `p` a multiple of 4 below the tile's end, the lists as
    /// [`SpgemmReplayArgs`] says.
    #[inline(always)]
    unsafe fn a_positions<const N: usize>(
        &self,
        ws: &[u32; N],
        p: usize,
        info: u64,
        base: u32,
    ) -> [u32; N] {
        if info & REPLAY_WIDE_TILE != 0 {
            let from = WARP_SIZE as usize * N * base as usize + p;
            // SAFETY: each far tile has `32 × N` positions in `wide_a`.
            unsafe { read_words::<N>(self.a.wide_a.as_ptr(), from) }
        } else {
            core::array::from_fn(|u| base + (ws[u] >> self.a.b_bits))
        }
    }

    /// The lane's words, its `N` from word `p` of tile `t`, with their A
    /// positions, the tile's `tile_entry` and the lane's `lane_flags`: the
    /// loads go out together.
    ///
    /// # Safety
    /// `t < n_tiles`, `p` a multiple of 4 below the tile's end, `p / N`
    /// the calling lane's.
    #[inline(always)]
    pub(super) unsafe fn lane<const N: usize>(
        &self,
        t: usize,
        p: usize,
    ) -> ([u32; N], [u32; N], u64, u16) {
        // SAFETY: the caller's; the lists are read-only to the replay.
        unsafe {
            let ws = read_words::<N>(self.a.words.as_ptr(), WARP_SIZE as usize * N * t + p);
            let info = load_readonly(self.a.tile_entry.as_ptr().add(t));
            let base = load_readonly(self.a.tile_a.as_ptr().add(t));
            let flags = self
                .a
                .lane_flags
                .as_ptr()
                .add(WARP_SIZE as usize * t + p / N);
            let flags = load_readonly(flags);
            (ws, self.a_positions(&ws, p, info, base), info, flags)
        }
    }

    /// The products of a lane's words `ws` at A positions `at`, or the
    /// semiring's zero for each where `skip`: their loads issue together.
    ///
    /// Tried tiles sorted by B's position: half the data sectors read, yet
    /// 0.87×, as the replay is not bound by sectors and the added stores,
    /// warp barrier and loads back lengthen each tile's chain of waits.
    /// Tried `ld.global.cs` here: it evicts first what other lanes read
    /// again (banded 0.45×); streaming loads only for data read once.
    ///
    /// # Safety
    /// `ws` and `at` the lists', as [`Self::lane`] gives them.
    #[inline(always)]
    unsafe fn products<S: Semiring<Value = T>, const N: usize>(
        &self,
        ws: &[u32; N],
        at: &[u32; N],
        skip: bool,
    ) -> [T; N] {
        if skip {
            return [S::zero(); N];
        }
        let b_mask = (1u32 << self.a.b_bits) - 1;
        // SAFETY: the caller's: the lists' positions, a pad's too, lie
        // within A's and B's values, which no thread writes while the
        // replay runs.
        core::array::from_fn(|u| unsafe {
            S::mul(
                load_readonly(self.a.a_values.as_ptr().add(at[u] as usize)),
                load_readonly(self.a.b_values.as_ptr().add((ws[u] & b_mask) as usize)),
            )
        })
    }
}

/// C's values from a plan's tiled lists ([`SpgemmReplayArgs`]), each
/// entry's products added in the listed (serial) order, the first taken
/// as it is, as the serial engine does. A warp a tile, 4 products a lane
/// (`spgemm_replay_4`) or 8 (`spgemm_replay_8`): every lane reads its words
/// in 16-byte loads and computes its products at once, however the lists
/// fall, then folds the sums that begin among them; a sum that runs on
/// from the lanes before waits for theirs, passed lane to lane by shuffles
/// (one round where lists are short). The warp that begins a list
/// finishes it: a list that runs past its tile, the warp reads on, a tile
/// a round, adding them in order: every lane all of them at 4 a lane
/// (`fold_prefix`), lane by lane at 8 (`relay_prefix`). The tiles in
/// `long_tiles` go first.
///
/// A lane's stores of C's entries, a few words apart, write each sector of
/// C in parts; `spgemm_replay_4_staged` and `_8_staged` stage a tile's
/// entries in shared memory and copy them out whole, which pays where L2's
/// traffic bounds the replay (many entries of few products).
///
/// Launch: 1D, block size a multiple of 32, any grid; the staged kernels
/// `32 × 4` values of dynamic shared memory a warp (`32 × 8` for
/// `spgemm_replay_8_staged`).
///
/// # Safety
/// [`SpgemmReplayArgs`] valid for tiles of 32 × 4 products: every list
/// non-empty, every position within A's and B's values, `words` and
/// `wide_a` 16-byte aligned, `b_bits` from 1 to 31, `n_tiles` below
/// [`REPLAY_MAX_TILES`](crate::args::REPLAY_MAX_TILES); when staging, the
/// shared memory above.
#[inline(always)]
pub unsafe fn spgemm_replay_4<S: Semiring>(a: SpgemmReplayArgs<S::Value>)
where
    S::Value: Shuffle,
{
    // SAFETY: the caller's.
    unsafe { spgemm_replay::<S, { REPLAY_NARROW_LANE as usize }, false>(a) }
}

/// [`spgemm_replay_4`], each tile's entries staged in shared memory.
///
/// # Safety
/// [`spgemm_replay_4`]'s, with its shared memory.
#[inline(always)]
pub unsafe fn spgemm_replay_4_staged<S: Semiring>(a: SpgemmReplayArgs<S::Value>)
where
    S::Value: Shuffle,
{
    // SAFETY: the caller's.
    unsafe { spgemm_replay::<S, { REPLAY_NARROW_LANE as usize }, true>(a) }
}

/// [`spgemm_replay_4`] with 8 products a lane, tiles of 32 × 8.
///
/// # Safety
/// [`spgemm_replay_4`]'s, for tiles of 32 × 8 products.
#[inline(always)]
pub unsafe fn spgemm_replay_8<S: Semiring>(a: SpgemmReplayArgs<S::Value>)
where
    S::Value: Shuffle,
{
    // SAFETY: the caller's.
    unsafe { spgemm_replay::<S, { REPLAY_WIDE_LANE as usize }, false>(a) }
}

/// [`spgemm_replay_8`], each tile's entries staged in shared memory.
///
/// # Safety
/// [`spgemm_replay_4`]'s, for tiles of 32 × 8 products, with its shared
/// memory.
#[inline(always)]
pub unsafe fn spgemm_replay_8_staged<S: Semiring>(a: SpgemmReplayArgs<S::Value>)
where
    S::Value: Shuffle,
{
    // SAFETY: the caller's.
    unsafe { spgemm_replay::<S, { REPLAY_WIDE_LANE as usize }, true>(a) }
}

/// [`spgemm_replay_4`] and [`spgemm_replay_8`], `N` products a lane,
/// staging each tile's entries where `STAGE`.
///
/// # Safety
/// Theirs.
#[inline(always)]
unsafe fn spgemm_replay<S: Semiring, const N: usize, const STAGE: bool>(
    a: SpgemmReplayArgs<S::Value>,
) where
    S::Value: Shuffle,
{
    require(block_dim_x().is_multiple_of(WARP_SIZE));
    let (n_long, n_tiles) = (a.n_long as u32, a.n_tiles as u32);
    let shift = a.tile_run_shift;
    let tiles_a_warp = 1 << shift;
    let long_tiles = a.long_tiles.as_ptr();
    let lists = ReplayLists { a };
    let p = N * lane_id() as usize;
    // A warp's share: a long tile, or `tiles_a_warp` tiles in a row (the
    // `i`th now), one tile a round so that the tile's code is inlined
    // once. Tiles are counted in `u32` (fewer than `REPLAY_MAX_TILES`).
    let shares = n_long + ((n_tiles + tiles_a_warp - 1) >> shift);
    let mut w = global_warp_id();
    let mut i = 0;
    // Warp-uniform: a warp's lanes share the tile.
    while w < shares {
        let (t, first, last_of_share) = if w < n_long {
            // SAFETY: `w < n_long` entries are listed, read-only.
            (
                unsafe { load_readonly(long_tiles.add(w as usize)) } as usize,
                true,
                true,
            )
        } else {
            let t = ((w - n_long) << shift) + i;
            (t as usize, false, i + 1 == tiles_a_warp || t + 1 == n_tiles)
        };
        // SAFETY: `t` is a listed long tile or below `n_tiles`: its words
        // and entry are readable; the lists as the contract says.
        unsafe {
            let (ws, at, info, flags) = lists.lane::<N>(t, p);
            if first || info & REPLAY_LONG_TILE == 0 {
                replay_tile::<S, N, STAGE, true>(&lists, t, &ws, &at, info, flags);
            }
        }
        if last_of_share {
            // LLVM hoists the stride out of the loop; f64's kernels, short
            // of registers, spilled it, so they read it again here. f32's
            // hold it in a register, where reading it again cost them 1–3%
            // on the largest products.
            w += if size_of::<S::Value>() > 4 {
                grid_warps_reread()
            } else {
                grid_warps()
            };
            i = 0;
        } else {
            i += 1;
        }
    }
}

/// The products of the list run on into tile `t` from the tiles before,
/// those before the tile's first flag (all of them where it has none): the
/// lane's `N` (the semiring's zero past the list) and their count.
///
/// # Safety
/// `t < n_tiles`; the lists as [`SpgemmReplayArgs`] says; the whole warp
/// calls it.
#[inline(always)]
pub(super) unsafe fn run_on_products<S: Semiring, const N: usize>(
    lists: &ReplayLists<S::Value>,
    t: usize,
) -> ([S::Value; N], u32)
where
    S::Value: Shuffle,
{
    let p = N as u32 * lane_id();
    // SAFETY: the caller's; the shuffle and vote are the whole warp's.
    unsafe {
        let (ws, at, _, flags) = lists.lane::<N>(t, p as usize);
        let bounds = replay_bounds(flags);
        let bounded = warp::ballot(bounds != 0);
        let stop = if bounded == 0 {
            WARP_SIZE * N as u32
        } else {
            let l = bounded.trailing_zeros();
            N as u32 * l + warp::shuffle_idx(bounds.trailing_zeros(), l)
        };
        (lists.products::<S, N>(&ws, &at, p >= stop), stop)
    }
}

/// `sum` plus the warp's first `stop` products `x` of a run-on list, in
/// order: every lane adds them all at 4 a lane ([`fold_prefix`], as many
/// a step as registers allow), lane by lane at 8 ([`relay_prefix`]).
///
/// # Safety
/// The whole warp calls it with the same `stop`, at most `32·N`.
#[inline(always)]
pub(super) unsafe fn fold_run_on<S: Semiring, const N: usize>(
    sum: S::Value,
    x: &[S::Value; N],
    stop: u32,
) -> S::Value
where
    S::Value: Shuffle,
{
    // SAFETY: the caller's.
    unsafe {
        if N == REPLAY_NARROW_LANE as usize {
            if size_of::<S::Value>() <= 4 {
                fold_prefix::<S, N, 8>(sum, x, stop)
            } else {
                fold_prefix::<S, N, 4>(sum, x, stop)
            }
        } else {
            relay_prefix::<S, N>(sum, x, stop)
        }
    }
}

/// `sum` plus the warp's first `stop` products, in order: lane `l`'s
/// `x[u]` is product `N·l + u`. Every lane returns the same sum. The
/// products come to every lane by shuffles, `K` a step, and each
/// product's shuffle for the next step is asked for as soon as this
/// step's product in its register is added: the adds, which must follow
/// one another, then seldom wait for a shuffle. `K` is what registers
/// allow: 8 of 4 bytes or 4 of 8 (2 of 8, a step of half a lane's, left
/// the adds waiting on shuffles: lists running on in f64 took twice f32's time).
///
/// # Safety
/// The whole warp calls it with the same `stop`, at most `32·N`.
#[inline(always)]
unsafe fn fold_prefix<S: Semiring, const N: usize, const K: usize>(
    mut sum: S::Value,
    x: &[S::Value; N],
    stop: u32,
) -> S::Value
where
    S::Value: Shuffle,
{
    const { assert!(K % N == 0 || N % K == 0) };
    // Product `K·s + k`, from lane `(K·s + k) / N`. Where a step is part
    // of a lane's products (`K < N`), selects pick the part: an index into
    // `x` that is not a constant would put it in local memory.
    let product = |s: u32, k: usize| -> S::Value {
        let i = K * s as usize + k;
        let mut v = x[k % N];
        if K < N {
            for part in 1..N / K {
                if (i % N) / K == part {
                    v = x[part * K + k];
                }
            }
        }
        // SAFETY: the whole warp calls with the same `s` (the caller's).
        unsafe { warp::shuffle_idx(v, (i / N) as u32) }
    };
    let steps = stop.div_ceil(K as u32);
    if steps == 0 {
        return sum;
    }
    let mut ys: [S::Value; K] = core::array::from_fn(|k| product(0, k));
    // Every step but the last adds all its products; the last asks for
    // no more shuffles.
    let mut s = 0;
    while s + 1 < steps {
        for (k, y) in ys.iter_mut().enumerate() {
            sum = S::add(sum, *y);
            *y = product(s + 1, k);
        }
        s += 1;
    }
    for (k, &y) in ys.iter().enumerate() {
        if K as u32 * s + (k as u32) < stop {
            sum = S::add(sum, y);
        }
    }
    sum
}

/// [`fold_prefix`]'s sum by a relay: lane by lane, lane `l` adds its
/// products to the sum so far and one shuffle passes the result to all
/// (the other lanes' adds are thrown away, so none needs a test but the
/// last lane's, which adds only those below `stop`). `N` adds and one
/// shuffle a lane, where `fold_prefix` takes a shuffle and an add a
/// product; the adds of a lane wait for the shuffle before them.
///
/// # Safety
/// The whole warp calls it with the same `stop`, at most `32·N`.
#[inline(always)]
unsafe fn relay_prefix<S: Semiring, const N: usize>(
    mut sum: S::Value,
    x: &[S::Value; N],
    stop: u32,
) -> S::Value
where
    S::Value: Shuffle,
{
    let (whole, rest) = (stop / N as u32, stop % N as u32);
    for l in 0..whole {
        let s = x.iter().fold(sum, |s, &y| S::add(s, y));
        // SAFETY: the whole warp calls with the same `l` (the caller's).
        sum = unsafe { warp::shuffle_idx(s, l) };
    }
    if rest > 0 {
        // SAFETY: as above.
        sum = unsafe { warp::shuffle_idx(add_first::<S, N>(sum, x, rest), whole) };
    }
    sum
}

/// `s` plus the first `k` of `x`, in order.
#[inline(always)]
fn add_first<S: Semiring, const N: usize>(mut s: S::Value, x: &[S::Value; N], k: u32) -> S::Value {
    for (u, &y) in x.iter().enumerate() {
        if (u as u32) < k {
            s = S::add(s, y);
        }
    }
    s
}

/// One warp's tile `t` of [`spgemm_replay`]: the lane's words `ws`, their
/// A positions `at`, the tile's `tile_entry` word `info` and the lane's
/// `lane_flags`. Stores the entries that end in the tile, and where `WALK`
/// the entry whose list runs on, read on by the warp. Where it does not
/// walk and the tile has no pads, returns the sum open at its end (every
/// lane's) and that entry's place in C.
///
/// # Safety
/// `t < n_tiles`; the lists as [`SpgemmReplayArgs`] says; the whole warp
/// calls it.
#[inline(always)]
pub(super) unsafe fn replay_tile<S: Semiring, const N: usize, const STAGE: bool, const WALK: bool>(
    lists: &ReplayLists<S::Value>,
    t: usize,
    ws: &[u32; N],
    at: &[u32; N],
    info: u64,
    flags: u16,
) -> Option<(S::Value, usize)>
where
    S::Value: Shuffle,
{
    let tile = WARP_SIZE * N as u32;
    let c = lists.a.c_values.as_mut_ptr();
    let lane = lane_id();
    let (entry, real) = (replay_entry(info), replay_real(info));
    // The lane's first word in the tile; its words before the pads.
    let p = N as u32 * lane;
    let real_mask = (1u32 << real.saturating_sub(p).min(N as u32)) - 1;
    // SAFETY (whole body): the tile's words are readable (`t < n_tiles`),
    // a flagged word's entry is below `n_entries`, a tile's entries number
    // at most `tile` (the staging slots'), and every shuffle, vote and
    // warp barrier is reached by the whole warp (the branches on them are
    // warp-uniform).
    unsafe {
        let bounds = replay_bounds(flags);
        let starts = bounds & real_mask;
        let bounded = warp::ballot(bounds != 0);
        if bounded == 0 {
            // Within a list that runs on, its first warp's.
            return None;
        }
        // The lanes before the first flag hold the end of a list begun
        // in an earlier tile, another warp's.
        let first_lane = bounded.trailing_zeros();
        let x = lists.products::<S, N>(ws, at, lane < first_lane);
        let count = starts.count_ones();
        let before = replay_before(flags);
        // The tile's entries, from its first; a tile holds at most
        // `32·N` of them, so they are counted from there in `u32`.
        let c = c.add(entry as usize);
        // Where the lanes write the tile's entries: C, or the warp's slots
        // in shared memory (the launch gives it `tile` values there) when
        // staging.
        let out = if STAGE {
            shared::dynamic::<S::Value>().add((warp_id() * tile) as usize)
        } else {
            c
        };
        // The lane's own sums, each from its flag to the next. A flag ends
        // the sum begun at the flag before it in the lane where the word
        // before it is no pad (pads only follow pads, so that flag began
        // an entry); that entry is the lane's starts so far, counted from
        // `before`. The sum open before the lane's first flag is the next
        // lanes' to finish, so the first word needs no add.
        let ends = bounds & bounds.wrapping_sub(1) & real_mask << 1;
        let mut open = x[0];
        for u in 1..N {
            if ends >> u & 1 != 0 {
                let e = before + (starts & ((1 << u) - 1)).count_ones();
                *out.add(e as usize - 1) = open;
            }
            open = if bounds >> u & 1 != 0 {
                x[u]
            } else {
                S::add(open, x[u])
            };
        }
        // A lane with no flag after the first adds its products to the sum
        // open at the lane before once that is final: `d` rounds after the
        // last lane before it with a flag. Rounds run while a run of lanes
        // with no flag is longer than the rounds so far (`run`).
        let flagged_before = bounded & lane_mask_lt();
        let d = if bounds == 0 && flagged_before != 0 {
            lane - (31 - flagged_before.leading_zeros())
        } else {
            0
        };
        let mut run = !bounded & u32::MAX << first_lane;
        let mut round = 1;
        while run != 0 {
            let carried = warp::shuffle_up(open, 1);
            if d == round {
                open = x.iter().fold(carried, |s, &y| S::add(s, y));
            }
            run &= run << 1;
            round += 1;
        }
        // A lane with a flag ends the sum open at the lane before, an
        // entry's where that lane's last word is no pad (pads only follow
        // pads), adding its words before the flag.
        let carried = warp::shuffle_up(open, 1);
        if bounds != 0 && lane > first_lane && p <= real {
            let head = add_first::<S, N>(carried, &x, bounds.trailing_zeros());
            *out.add(before as usize - 1) = head;
        }
        // Staged entries go to C a sector at a time. Where the tile has no
        // pads, the last entry is the sum open at its end, which runs on
        // into the next tiles where `info` says.
        // The tile's entries: asked for only where needed (a shuffle, and
        // a register held across the stores).
        let total = || warp::shuffle_idx(before + count, WARP_SIZE - 1);
        let staged_total = STAGE.then(total);
        if let Some(total) = staged_total {
            let done = if real < tile { total } else { total - 1 };
            warp::sync_warp(FULL_MASK);
            let mut r = lane;
            while r < done {
                *c.add(r as usize) = *out.add(r as usize);
                r += WARP_SIZE;
            }
            // The slots are free for the warp's next tile.
            warp::sync_warp(FULL_MASK);
        }
        if real < tile {
            return None;
        }
        let mut sum = warp::shuffle_idx(open, WARP_SIZE - 1);
        let last = staged_total.unwrap_or_else(total) as usize - 1;
        if !WALK {
            return Some((sum, entry as usize + last));
        }
        let n_tiles = lists.a.n_tiles as usize;
        let mut next = t + 1;
        while info & REPLAY_RUNS_ON != 0 && next < n_tiles {
            let (x, stop) = run_on_products::<S, N>(lists, next);
            sum = fold_run_on::<S, N>(sum, &x, stop);
            if stop < tile {
                break;
            }
            next += 1;
        }
        if lane == 0 {
            *c.add(last) = sum;
        }
        None
    }
}
