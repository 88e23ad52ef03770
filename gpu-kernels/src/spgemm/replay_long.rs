//! The replay's long tiles: a tile whose last list runs on through the
//! tiles after it, replayed by a block (warp 0 replays the tile and folds,
//! the others read the tiles after it at once), beside the replay of the
//! other tiles ([`super::replay`]).

use crate::args::{
    REPLAY_LONG_BLOCK, REPLAY_NARROW_LANE, REPLAY_RUNS_ON, REPLAY_WIDE_LANE, SpgemmReplayArgs,
    replay_real,
};
use crate::device::memory::load_readonly;
use crate::device::shared;
use crate::device::thread::{
    WARP_SIZE, block_dim_x, block_idx_x, grid_dim_x, lane_id, require, sync_threads, warp_id,
};
use crate::device::warp::Shuffle;
use crate::semiring::Semiring;

use super::replay::{ReplayLists, fold_run_on, replay_tile, run_on_products};

/// The long tiles of a plan's lists ([`SpgemmReplayArgs::long_tiles`]),
/// a block each, where the plan runs them beside [`spgemm_replay_4`](super::spgemm_replay_4) (which
/// is then launched with `n_long` 0, and skips them). A long tile's last
/// list runs on through a chain of tiles that one warp would read one
/// after another, two trips to memory each (words, then products), while
/// the rest of the replay has long finished: here its block's warps read
/// a tile each at once. Warp 0 replays the tile, while the others compute
/// the list's products in the tiles after it into their slots of shared
/// memory; then warp 0 folds the slots in order (the same sums, in the
/// serial order) while the others wait (a chain of adds runs fastest with
/// no other warp issuing), and the next 16 tiles are read, until the list
/// ends. Warp 0 stores the sum.
///
/// Launch: 1D, blocks of [`REPLAY_LONG_BLOCK`] threads, any grid; dynamic
/// shared memory: `32 × 4` values and 4 bytes a warp, and one value more
/// (16 bytes in all, for any value's alignment).
///
/// # Safety
/// [`spgemm_replay_4`](super::spgemm_replay_4)'s, each long tile's last list running on into the
/// tiles after it, and the shared memory above.
#[inline(always)]
pub unsafe fn spgemm_replay_long_4<S: Semiring>(a: SpgemmReplayArgs<S::Value>)
where
    S::Value: Shuffle,
{
    // SAFETY: the caller's.
    unsafe { replay_long_tiles::<S, { REPLAY_NARROW_LANE as usize }>(a) }
}

/// [`spgemm_replay_long_4`] for tiles of 32 × 8 products
/// ([`spgemm_replay_8`](super::spgemm_replay_8)'s), `32 × 8` values a warp.
///
/// # Safety
/// [`spgemm_replay_long_4`]'s, for tiles of 32 × 8 products.
#[inline(always)]
pub unsafe fn spgemm_replay_long_8<S: Semiring>(a: SpgemmReplayArgs<S::Value>)
where
    S::Value: Shuffle,
{
    // SAFETY: the caller's.
    unsafe { replay_long_tiles::<S, { REPLAY_WIDE_LANE as usize }>(a) }
}

/// [`spgemm_replay_long_4`] and `_8`, `N` products a lane.
///
/// # Safety
/// Theirs.
#[inline(always)]
unsafe fn replay_long_tiles<S: Semiring, const N: usize>(a: SpgemmReplayArgs<S::Value>)
where
    S::Value: Shuffle,
{
    require(block_dim_x() == REPLAY_LONG_BLOCK);
    let (n_long, long_tiles) = (a.n_long as u32, a.long_tiles.as_ptr());
    let lists = ReplayLists { a };
    let mut b = block_idx_x();
    // Block-uniform.
    while b < n_long {
        // SAFETY: `b < n_long` tiles are listed, read-only; the whole block
        // is here, with its shared memory.
        unsafe {
            let t = load_readonly(long_tiles.add(b as usize));
            replay_long_tile::<S, N>(&lists, t as usize);
        }
        b += grid_dim_x();
    }
}

/// Long tile `t` by the whole block (see [`spgemm_replay_long_4`]).
///
/// # Safety
/// `t < n_tiles`; the lists as [`SpgemmReplayArgs`] says; the whole block
/// calls it, with the shared memory [`spgemm_replay_long_4`] says.
#[inline(always)]
unsafe fn replay_long_tile<S: Semiring, const N: usize>(lists: &ReplayLists<S::Value>, t: usize)
where
    S::Value: Shuffle,
{
    let (tile, warps) = (WARP_SIZE * N as u32, REPLAY_LONG_BLOCK / WARP_SIZE);
    let (lane, k) = (lane_id(), warp_id());
    let p = (N as u32 * lane) as usize;
    let n_tiles = lists.a.n_tiles as usize;
    // Each warp's slot of `tile` values, then each slot's count of the
    // list's products, then the sum open at `t`'s end (aligned for any
    // value after the counts, which follow whole slots).
    let slots = shared::dynamic::<S::Value>();
    // SAFETY (whole body): the shared memory holds the slots, the sum and
    // the counts; tiles below `n_tiles` are readable; every barrier,
    // shuffle and vote is reached by the whole block or warp (the branches
    // around them are on `k`, or on values every warp computes alike).
    unsafe {
        let counts = slots.add((warps * tile) as usize).cast::<u32>();
        let open_at = counts.add(warps as usize).cast::<S::Value>();
        // The sum open at `t`'s end, and that entry's place in C: warp 0's.
        let mut open = None;
        if k == 0 {
            let (ws, at, info, flags) = lists.lane::<N>(t, p);
            open = replay_tile::<S, N, false, false>(lists, t, &ws, &at, info, flags);
        }
        let info = load_readonly(lists.a.tile_entry.as_ptr().add(t));
        if replay_real(info) < tile || info & REPLAY_RUNS_ON == 0 {
            // No list runs on (the host marks no such tile long).
            if let Some((open, last)) = open
                && lane == 0
            {
                *lists.a.c_values.as_mut_ptr().add(last) = open;
            }
            return;
        }
        // A round reads tiles `from` to `from + warps - 1`, slot `k` warp
        // `k`'s (in the first, slot 0 is `t`, replayed); `s` is the slot
        // folded next, `warps` where a round is to be read. One fold is
        // written, so that its code is inlined once.
        let (mut from, mut s, mut sum) = (t, warps, S::zero());
        loop {
            if s == warps {
                let j = from + k as usize;
                if j == t {
                    if let Some((open, _)) = open
                        && lane == 0
                    {
                        *open_at = open;
                    }
                } else {
                    let count = if j < n_tiles {
                        let (x, count) = run_on_products::<S, N>(lists, j);
                        let slot = slots.add((k * tile) as usize + p);
                        for (u, &v) in x.iter().enumerate() {
                            *slot.add(u) = v;
                        }
                        count
                    } else {
                        0
                    };
                    if lane == 0 {
                        *counts.add(k as usize) = count;
                    }
                }
                sync_threads();
                s = 0;
                if from == t {
                    sum = *open_at;
                    s = 1;
                }
            }
            // Warp 0 folds slot `s`; the list ends in the tile where it
            // has fewer products than the tile.
            let count = *counts.add(s as usize);
            if k == 0 {
                let slot = slots.add((s * tile) as usize + p);
                let x: [S::Value; N] = core::array::from_fn(|u| *slot.add(u));
                sum = fold_run_on::<S, N>(sum, &x, count);
            }
            s += 1;
            if count < tile || s == warps {
                // The slots are free for the next round, or the block's
                // next tile.
                sync_threads();
                if count < tile {
                    break;
                }
                from += warps as usize;
            }
        }
        if let Some((_, last)) = open
            && lane == 0
        {
            *lists.a.c_values.as_mut_ptr().add(last) = sum;
        }
    }
}
