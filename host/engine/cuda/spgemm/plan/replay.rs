//! The replay's launch shape: which kernel (lane width, staged, the long
//! tiles' own), its grid ([`ReplayGrid`]) and its shared memory.

use gpu_kernels::Semiring;
use gpu_kernels::args::{REPLAY_LONG_BLOCK, REPLAY_NARROW_LANE, SpgemmReplayArgs, replay_tile};
use gpu_kernels::kernels::{Family, family};

/// Dynamic shared memory a thread of the replay, `lane` products a lane:
/// where it `stages`, a warp stages its tile's entries (at most one a
/// product) before copying them to C; else none.
pub(super) fn replay_shared_per_thread<T>(lane: u64, stages: bool) -> u32 {
    if stages {
        (lane as usize * size_of::<T>()) as u32
    } else {
        0
    }
}

/// Which warps replay which tiles of a plan's lists
/// ([`CudaSpgemmPlan::set_replay_grid`]).
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ReplayGrid {
    /// Each warp replays this many tiles in a row (1, 2 or 4): its start
    /// (its arguments and lane constants, about an eighth of a tile's
    /// instructions) is paid once for them, while the GPU still balances
    /// runs of unequal cost.
    TilesAWarp(u32),
    /// Only the warps the GPU runs at once, each looping over tiles.
    Resident,
}

impl ReplayGrid {
    /// Every grid the replay runs on; [`CudaSpgemmPlan::new`] times each.
    pub const ALL: [ReplayGrid; 4] = [
        ReplayGrid::TilesAWarp(1),
        ReplayGrid::TilesAWarp(2),
        ReplayGrid::TilesAWarp(4),
        ReplayGrid::Resident,
    ];

    /// The replay's threads on this grid (one of [`Self::ALL`]) for
    /// `n_long` long tiles and `n_tiles` in all, at most `resident` on
    /// the resident grid, and its `SpgemmReplayArgs::tile_run_shift`.
    pub(super) fn launch(self, n_long: u64, n_tiles: u64, resident: u64) -> (u64, u32) {
        let shift = match self {
            ReplayGrid::TilesAWarp(n) => n.trailing_zeros(),
            ReplayGrid::Resident => 0,
        };
        let threads = 32 * (n_long + n_tiles.div_ceil(1 << shift));
        match self {
            ReplayGrid::TilesAWarp(_) => (threads, shift),
            ReplayGrid::Resident => (threads.min(resident), shift),
        }
    }
}

/// The kernel for the long tiles beside the replay, `lane` products a
/// lane, and its dynamic shared memory: a slot of a tile's values a warp,
/// a count a warp and the sum (16 bytes, for any value's alignment).
pub(super) fn replay_long_kernel<S: Semiring>(lane: u64) -> (Replay<S>, u32) {
    let warps = (REPLAY_LONG_BLOCK / 32) as usize;
    let slot = replay_tile(lane) as usize * size_of::<S::Value>();
    let shared = warps * (slot + size_of::<u32>()) + 16;
    let kernel = if lane == REPLAY_NARROW_LANE {
        family::spgemm_replay_long_4()
    } else {
        family::spgemm_replay_long_8()
    };
    (kernel, shared as u32)
}

/// A replay kernel's typed handle.
pub(super) type Replay<S> = Family<S, SpgemmReplayArgs<'static, <S as Semiring>::Value>>;

/// The replay kernel for `lane` products a lane, staging C's entries or
/// not.
pub(super) fn replay_kernel<S: Semiring>(lane: u64, stages: bool) -> Replay<S> {
    match (lane == REPLAY_NARROW_LANE, stages) {
        (true, false) => family::spgemm_replay_4(),
        (true, true) => family::spgemm_replay_4_staged(),
        (false, false) => family::spgemm_replay_8(),
        (false, true) => family::spgemm_replay_8_staged(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replay_grids_launch_a_warp_a_run_of_tiles() {
        // 3 long tiles, 10 tiles in all: runs of 1, 2, 4 tiles take 10, 5,
        // 3 warps beside the long tiles'; the resident grid no more than
        // the GPU holds.
        let launch = |grid: ReplayGrid, resident| grid.launch(3, 10, resident);
        assert_eq!(launch(ReplayGrid::TilesAWarp(1), 64), (32 * 13, 0));
        assert_eq!(launch(ReplayGrid::TilesAWarp(2), 64), (32 * 8, 1));
        assert_eq!(launch(ReplayGrid::TilesAWarp(4), 64), (32 * 6, 2));
        assert_eq!(launch(ReplayGrid::Resident, 64), (64, 0));
        assert_eq!(launch(ReplayGrid::Resident, 1 << 20), (32 * 13, 0));
    }
}
