//! A planned SpGEMM on the GPU: C = A ⊗ B's structure found once, its
//! values computed again as often as A's and B's values change while
//! their patterns stay (AMG setup, iterative methods; cuSPARSE's
//! `cusparseSpGEMMreuse`).
//!
//! The plan runs the product as [`spgemm`](super::spgemm) does (the
//! symbolic phase, C allocated, the numeric phase), then lists, for every
//! entry of C, the positions in A's and B's values of its products in the
//! serial order (on the host, over all cores, from C's pattern). Each
//! [`numeric`](SpgemmPlan::numeric) is then one launch of
//! `gpu_kernels::spgemm::spgemm_replay_4` or `_8` — a warp a tile of
//! listed products, each lane computing 4 or 8 of them at once and folding
//! the lists that begin among them — so no row is walked,
//! searched or sorted again, every lane is busy however long the lists
//! are, and C keeps the serial engine's bits. The lists take 4 bytes a
//! product where its tile's positions pack into `u32`s, 8 in the few
//! tiles whose A positions span too far, the tiles' padding, and 2 bytes a
//! lane saying where its lists begin, found here once rather than by the
//! replay each time (`TiledLists`). [`SpgemmPlan::new`] times the replay
//! on its grids ([`ReplayGrid`]: a warp 1, 2 or 4 tiles in a row, or only
//! the warps the GPU runs at once, each looping over tiles), each with C's
//! entries staged in shared memory and copied out a sector at a time or
//! stored by each lane ([`SpgemmPlan::set_replay_stages`]), and, where
//! some list runs on through many tiles, with those lists in the replay
//! (a warp walking each) or in a kernel of their own beside it
//! (`spgemm_replay_long_4`, a block a list reading 16 tiles at once;
//! [`SpgemmPlan::set_replay_long_beside`]), and keeps the fastest.
//! Where the lists do not fit in half the free device memory, where
//! rerunning the row kernels' numeric phase was faster still when `new`
//! timed it (bands, whose rows of B are read whole), or with
//! [`SpgemmPlan::recomputing`], each numeric phase reruns the row kernels
//! instead; the bits are the same.

use std::marker::PhantomData;
use std::time::{Duration, Instant};

use cudarc::driver::CudaSlice;
use gpu_kernels::Semiring;
use gpu_kernels::args::{
    DevPtr, REPLAY_BEFORE_SHIFT, REPLAY_BLOCK, REPLAY_LONG_BLOCK, REPLAY_LONG_TILE,
    REPLAY_LONG_TILES, REPLAY_MAX_TILES, REPLAY_NARROW_BELOW, REPLAY_NARROW_LANE, REPLAY_PAD,
    REPLAY_REAL_SHIFT, REPLAY_RUNS_ON, REPLAY_WIDE_LANE, REPLAY_WIDE_TILE, SpgemmReplayArgs,
    replay_entry, replay_real, replay_short, replay_tile,
};
use gpu_kernels::kernels::{Family, family};
use rayon::prelude::*;

use super::Gpu;
use super::matrix::{DevCsr, download_csr};
use super::spgemm::{Product, whole};
use crate::Scalar;
use crate::engine::cpu::spgemm::{check_new_values, flops_prefix};
use crate::engine::cpu::{balanced_row_chunks, for_each_chunk, split_rows_mut};
use crate::engine::serial::spgemm::check_shapes;
use crate::error::{Error, Result};
use crate::format::Csr;

/// C = A ⊗ B over `S` planned once, recomputed by [`numeric`](Self::numeric)
/// for new values of A and B (see the module documentation). The plan owns
/// A, B and C on the device; C is held whole there: one that does not fit
/// is [`Error::TooLarge`] ([`spgemm_blocks`](super::spgemm::spgemm_blocks)
/// multiplies it in row blocks).
pub struct SpgemmPlan<'g, S: Semiring>
where
    S::Value: Scalar,
{
    a: DevCsr<S::Value>,
    b: DevCsr<S::Value>,
    product: Product<'g, S::Value>,
    col_idx: CudaSlice<u32>,
    values: CudaSlice<S::Value>,
    lists: Option<ProductLists>,
    _semiring: PhantomData<S>,
}

/// Every entry's products, in the serial order, on the device as
/// `spgemm_replay` reads them ([`SpgemmReplayArgs`], from [`TiledLists`]).
/// Tried replays that read B's rows as they lie instead: all slower (rows
/// of C in shared memory 0.43×, chunks of the product stream ~0.5×,
/// scattered slices 0.40×, tiles with sector headers 0.60×), as each step
/// waits on dependent loads, where lists keep independent loads in flight.
struct ProductLists {
    /// Products a lane: 4 or 8.
    lane: u64,
    words: CudaSlice<u32>,
    tile_entry: CudaSlice<u64>,
    tile_a: CudaSlice<u32>,
    wide_a: Option<CudaSlice<u32>>,
    lane_flags: CudaSlice<u16>,
    long_tiles: Option<CudaSlice<u32>>,
    b_bits: u32,
    /// Threads of the replay the GPU runs at once: storing C's entries by
    /// lane, and staging them.
    resident: [u64; 2],
    /// Which warps replay which tiles.
    grid: ReplayGrid,
    /// Whether a warp stages its tile's entries in shared memory and
    /// copies them to C together (`spgemm_replay_4_staged`, `_8_staged`).
    stages: bool,
    /// Whether the long tiles run in a kernel of their own beside the
    /// replay (`spgemm_replay_long_4`, `_8`), a block each.
    long_beside: bool,
}

impl<'g, S: Semiring> SpgemmPlan<'g, S>
where
    S::Value: Scalar,
{
    /// Plans C = A ⊗ B and computes it once; keeps the product lists when
    /// they fit, and of the replay's grids and the row kernels, the
    /// fastest when timed (see the module documentation).
    #[track_caller]
    pub fn new(gpu: &'g Gpu, a: &Csr<S::Value>, b: &Csr<S::Value>) -> Result<Self> {
        let mut plan = Self::replaying(gpu, a, b)?;
        if plan.replays() {
            plan.keep_the_fastest()?;
        }
        Ok(plan)
    }

    /// Plans C = A ⊗ B and computes it once; lists each entry's products
    /// whenever they fit, however fast the row kernels would be, and
    /// replays them a warp a tile, staging C's entries.
    #[track_caller]
    #[doc(hidden)]
    pub fn replaying(gpu: &'g Gpu, a: &Csr<S::Value>, b: &Csr<S::Value>) -> Result<Self> {
        let mut plan = Self::recomputing(gpu, a, b)?;
        // 9 bytes a product at most (4, 4 more in a wide tile, and half a
        // byte of lane flags) and the tiles' padding (under a third of the
        // products: a tile is padded inside only once it holds more than
        // three quarters of its products, `replay_short`), and a word an
        // entry for the tiles' entries and the chunks' last tiles.
        let products = plan.product.binned.products as usize;
        let bytes = 9 * (products + products / 3) + 8 * (plan.nnz() + 1);
        if bytes <= gpu.memory()?.0 / 2 {
            plan.lists = plan.list_products(a, b)?;
        }
        Ok(plan)
    }

    /// Plans C = A ⊗ B and computes it once, keeping no product lists: each
    /// numeric phase reruns the row kernels (less memory, slower: about
    /// 0.23× the lists on most products, as it sorts every row again).
    #[track_caller]
    #[doc(hidden)]
    pub fn recomputing(gpu: &'g Gpu, a: &Csr<S::Value>, b: &Csr<S::Value>) -> Result<Self> {
        check_shapes(a, b);
        let (a, b) = (DevCsr::upload(gpu, a)?, DevCsr::upload(gpu, b)?);
        let (product, c) = whole::<S>(gpu, &a, &b)?;
        let Some((col_idx, values)) = c else {
            return Err(Error::TooLarge(format!(
                "a plan holds C whole on the GPU, and its {} entries do not fit in the free \
                 memory (multiply in row blocks with spgemm_blocks instead)",
                product.nnz
            )));
        };
        Ok(SpgemmPlan {
            a,
            b,
            product,
            col_idx,
            values,
            lists: None,
            _semiring: PhantomData,
        })
    }

    /// Whether each numeric phase replays product lists (else it reruns
    /// the row kernels' numeric phase).
    pub fn replays(&self) -> bool {
        self.lists.is_some()
    }

    /// How the replay's warps take the tiles (`None` where the plan
    /// recomputes rows): [`Self::new`] keeps the fastest.
    #[doc(hidden)]
    pub fn replay_grid(&self) -> Option<ReplayGrid> {
        self.lists.as_ref().map(|l| l.grid)
    }

    /// Replays on `grid` from now on (C's bits are the same on every
    /// grid; only the time differs). A plan that recomputes rows, or
    /// [`ReplayGrid::TilesAWarp`] of other than 1, 2 or 4 tiles, is
    /// [`Error::Invalid`].
    #[doc(hidden)]
    pub fn set_replay_grid(&mut self, grid: ReplayGrid) -> Result<()> {
        let lists = self.lists_to_set("set_replay_grid")?;
        match grid {
            ReplayGrid::TilesAWarp(n) if !ReplayGrid::ALL.contains(&grid) => Err(Error::invalid(
                "SpGEMM plan",
                format!("SpgemmPlan::set_replay_grid: {n} tiles a warp; a warp replays 1, 2 or 4"),
            )),
            _ => {
                lists.grid = grid;
                Ok(())
            }
        }
    }

    /// Whether the replay's warps stage their tiles' entries in shared
    /// memory and copy them to C together, a sector at a time (`None`
    /// where the plan recomputes rows): [`Self::new`] keeps the faster.
    #[doc(hidden)]
    pub fn replay_stages(&self) -> Option<bool> {
        self.lists.as_ref().map(|l| l.stages)
    }

    /// Stages C's entries in shared memory from now on, or has each lane
    /// store its own (C's bits are the same either way; only the time
    /// differs). A plan that recomputes rows is [`Error::Invalid`].
    #[doc(hidden)]
    pub fn set_replay_stages(&mut self, stages: bool) -> Result<()> {
        self.lists_to_set("set_replay_stages")?.stages = stages;
        Ok(())
    }

    /// Whether the long tiles' lists (those running on through more than
    /// `REPLAY_LONG_TILES` tiles) run in a kernel of their own beside the
    /// replay, a block each reading 16 of a list's tiles at once, or in the
    /// replay, a warp walking each (`None` where the plan recomputes rows):
    /// [`Self::new`] keeps the faster. A plan without such lists has
    /// nothing beside the replay either way.
    #[doc(hidden)]
    pub fn replay_long_beside(&self) -> Option<bool> {
        self.lists.as_ref().map(|l| l.long_beside)
    }

    /// Runs the long tiles' lists beside the replay from now on, or in it
    /// (C's bits are the same either way; only the time differs). A plan
    /// that recomputes rows is [`Error::Invalid`].
    #[doc(hidden)]
    pub fn set_replay_long_beside(&mut self, beside: bool) -> Result<()> {
        self.lists_to_set("set_replay_long_beside")?.long_beside = beside;
        Ok(())
    }

    /// The lists whose replay `setter` sets; a plan that recomputes rows
    /// has none: [`Error::Invalid`] saying so.
    fn lists_to_set(&mut self, setter: &str) -> Result<&mut ProductLists> {
        self.lists.as_mut().ok_or_else(|| {
            Error::invalid(
                "SpGEMM plan",
                format!(
                    "SpgemmPlan::{setter}: the plan recomputes rows; it has no lists to replay"
                ),
            )
        })
    }

    /// Replaces A's and B's values (each in its CSR order, its pattern
    /// unchanged); [`numeric`](Self::numeric) then multiplies them. A slice
    /// of another length than its operand's entries is
    /// [`Error::Invalid`] naming it.
    pub fn set_values(&mut self, a_values: &[S::Value], b_values: &[S::Value]) -> Result<()> {
        check_new_values(
            "SpgemmPlan::set_values",
            (a_values.len(), self.a.nnz as usize),
            (b_values.len(), self.b.nnz as usize),
        )?;
        let gpu = self.product.gpu;
        for (v, m) in [(a_values, &mut self.a), (b_values, &mut self.b)] {
            if !v.is_empty() {
                gpu.copy_into(v, &mut m.values)?;
            }
        }
        Ok(())
    }

    /// C's values from A's and B's present values, queued on the GPU's
    /// stream.
    pub fn numeric(&mut self) -> Result<()> {
        let gpu = self.product.gpu;
        let Some(lists) = &self.lists else {
            let n = self.a.n_rows as usize;
            let (a, b) = (&self.a, &self.b);
            return self
                .product
                .numeric::<S>(a, b, 0..n, 0, &mut self.col_idx, &mut self.values);
        };
        let n_entries = self.nnz() as u64;
        if n_entries == 0 {
            return Ok(());
        }
        let n_tiles = lists.tile_entry.len() as u64;
        let n_long = lists.long_tiles.as_ref().map_or(0, |l| l.len() as u64);
        // The long tiles are the replay's where none runs beside it.
        let beside = lists.long_beside && n_long > 0;
        let replay_long = if beside { 0 } else { n_long };
        let optional =
            |l: &Option<CudaSlice<u32>>| l.as_ref().map_or(DevPtr::null(), |l| gpu.ptr(l));
        let resident = lists.resident[usize::from(lists.stages)];
        let (threads, tile_run_shift) = lists.grid.launch(replay_long, n_tiles, resident);
        let (a_values, b_values) = (gpu.ptr(&self.a.values), gpu.ptr(&self.b.values));
        let c_values = gpu.ptr_mut(&mut self.values);
        let args = |n_long| SpgemmReplayArgs {
            a_values,
            b_values,
            words: gpu.ptr(&lists.words),
            tile_entry: gpu.ptr(&lists.tile_entry),
            tile_a: gpu.ptr(&lists.tile_a),
            wide_a: optional(&lists.wide_a),
            lane_flags: gpu.ptr(&lists.lane_flags),
            long_tiles: optional(&lists.long_tiles),
            c_values,
            n_entries,
            n_tiles,
            n_long,
            b_bits: lists.b_bits,
            tile_run_shift,
        };
        // SAFETY (both launches): the lists of `ProductLists::new`, made
        // from A's and B's structure and C's, whose values the kernels
        // read and write: `n_tiles` tiles, `n_long` long ones, the words
        // they index, `n_entries` entries of C; the grid and shared memory
        // `ReplayGrid::launch` and `replay_shared_per_thread` give. The
        // long tiles beside the replay are not in its grid (`replay_long`
        // is 0), so no entry of C is written by both.
        let replay = || unsafe {
            gpu.launch_threads_in_blocks(
                replay_kernel::<S>(lists.lane, lists.stages),
                threads,
                REPLAY_BLOCK,
                replay_shared_per_thread::<S::Value>(lists.lane, lists.stages),
                args(replay_long),
            )
        };
        if !beside {
            return replay();
        }
        let (kernel, shared) = replay_long_kernel::<S>(lists.lane);
        // A block a long tile; `n_long` is below `REPLAY_MAX_TILES`.
        unsafe {
            gpu.launch_beside(
                kernel,
                n_long as u32,
                REPLAY_LONG_BLOCK,
                shared,
                args(n_long),
                replay,
            )
        }
    }

    /// Keeps the fastest numeric phase, each timed (the least of three
    /// runs) after the replay's first launch: the replay on each of
    /// [`ReplayGrid::ALL`], its entries staged or not, its long tiles in it
    /// or beside it, and the row kernels. Which wins depends on the
    /// matrix. The resident grid starts a warp once for many tiles, which
    /// pays where tiles cost alike (grids, bands); a warp a tile or a few
    /// lets the GPU balance tiles of unequal cost (power-law lists that
    /// run on). Staging pays where C's stores bound the replay (entries of
    /// one or two products each) and costs instructions where lists are
    /// longer. The row kernels read B's rows as they lie, which pays where
    /// many products fall on each entry of C (bands). A few long lists
    /// beside the replay end sooner than its warps walking them alone
    /// would (a circuit's ground node); where the replay's other tiles
    /// outlast them, the second stream's launch and events cost a little.
    /// C's values are the same bits every way.
    fn keep_the_fastest(&mut self) -> Result<()> {
        self.numeric()?;
        let long = self.lists.as_ref().is_some_and(|l| l.long_tiles.is_some());
        let besides: &[bool] = if long { &[false, true] } else { &[false] };
        let mut fastest = (Duration::MAX, ReplayGrid::Resident, true, false);
        for grid in ReplayGrid::ALL {
            self.set_replay_grid(grid)?;
            for stages in [false, true] {
                self.set_replay_stages(stages)?;
                for &beside in besides {
                    self.set_replay_long_beside(beside)?;
                    fastest = fastest.min((self.time_numeric()?, grid, stages, beside));
                }
            }
        }
        self.set_replay_grid(fastest.1)?;
        self.set_replay_stages(fastest.2)?;
        self.set_replay_long_beside(fastest.3)?;
        let lists = self.lists.take();
        let recompute = self.time_numeric();
        if recompute? >= fastest.0 {
            self.lists = lists;
        }
        Ok(())
    }

    /// A numeric phase, the least of three runs on the host clock, each
    /// from an idle stream to its end. Tried the median of up to 25 runs
    /// for [`SpgemmPlan::new`]'s choice: no gain, as small cases are equal
    /// within the launch floor's noise.
    fn time_numeric(&mut self) -> Result<Duration> {
        let gpu = self.product.gpu;
        let mut least = Duration::MAX;
        for _ in 0..3 {
            gpu.sync()?;
            let start = Instant::now();
            self.numeric()?;
            gpu.sync()?;
            least = least.min(start.elapsed());
        }
        Ok(least)
    }

    /// Device bytes the product lists take (0 without lists): 4 bytes a
    /// product (and a pad), 8 in a wide tile, 2 a lane for its flags, and
    /// 12 or 16 a tile.
    pub fn list_bytes(&self) -> usize {
        self.lists.as_ref().map_or(0, |l| {
            let len = |l: &Option<CudaSlice<u32>>| l.as_ref().map_or(0, |l| l.len());
            4 * (l.words.len() + l.tile_a.len() + len(&l.wide_a) + len(&l.long_tiles))
                + 2 * l.lane_flags.len()
                + 8 * l.tile_entry.len()
        })
    }

    /// Entries of C.
    pub fn nnz(&self) -> usize {
        self.product.nnz as usize
    }

    /// C on the host.
    pub fn download(&self) -> Result<Csr<S::Value>> {
        let shape = (self.a.n_rows as usize, self.b.n_cols as usize);
        download_csr(
            self.product.gpu,
            shape,
            &self.product.row_ptr,
            &self.col_idx,
            &self.values,
            self.nnz(),
        )
    }

    /// C's values on the host, in its CSR order, into `values` (of
    /// [`nnz`](Self::nnz) entries).
    pub fn download_values(&self, values: &mut [S::Value]) -> Result<()> {
        self.product
            .gpu
            .download_into(&self.values, 0..self.nnz(), values)
    }

    /// Lists every entry's products from C's pattern (brought back) and
    /// A's and B's, and uploads the lists; `None` where B has 2³¹ entries
    /// or more or the tiles are too many (see [`TiledLists`]).
    fn list_products(&self, a: &Csr<S::Value>, b: &Csr<S::Value>) -> Result<Option<ProductLists>> {
        let gpu = self.product.gpu;
        let n = a.nrows();
        let mut c_row_ptr = vec![0u64; n + 1];
        gpu.download_into(&self.product.row_ptr, 0..n + 1, &mut c_row_ptr)?;
        let mut c_col_idx = vec![0u32; self.nnz()];
        gpu.download_into(&self.col_idx, 0..self.nnz(), &mut c_col_idx)?;
        let (entry_ptr, pairs) = product_lists(a, b, &c_row_ptr, &c_col_idx);
        let lane = if (pairs.len() as u64) < REPLAY_NARROW_BELOW * self.nnz() as u64 {
            REPLAY_NARROW_LANE
        } else {
            REPLAY_WIDE_LANE
        };
        let Some(tiled) = TiledLists::new(&entry_ptr, pairs, b.nnz(), lane) else {
            return Ok(None);
        };
        let optional = |l: &[u32]| (!l.is_empty()).then(|| gpu.upload(l)).transpose();
        let resident = |stages: bool| {
            let shared = replay_shared_per_thread::<S::Value>(lane, stages);
            gpu.resident_threads(replay_kernel::<S>(lane, stages), REPLAY_BLOCK, shared)
        };
        Ok(Some(ProductLists {
            lane,
            words: gpu.upload(&tiled.words)?,
            tile_entry: gpu.upload(&tiled.tile_entry)?,
            tile_a: gpu.upload(&tiled.tile_a)?,
            wide_a: optional(&tiled.wide_a)?,
            lane_flags: gpu.upload(&tiled.lane_flags)?,
            long_tiles: optional(&tiled.long_tiles)?,
            b_bits: tiled.b_bits,
            resident: [resident(false)?, resident(true)?],
            grid: ReplayGrid::TilesAWarp(1),
            stages: true,
            long_beside: false,
        }))
    }
}

/// Dynamic shared memory a thread of the replay, `lane` products a lane:
/// where it `stages`, a warp stages its tile's entries (at most one a
/// product) before copying them to C; else none.
fn replay_shared_per_thread<T>(lane: u64, stages: bool) -> u32 {
    if stages {
        (lane as usize * size_of::<T>()) as u32
    } else {
        0
    }
}

/// Which warps replay which tiles of a plan's lists
/// ([`SpgemmPlan::set_replay_grid`]).
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
    /// Every grid the replay runs on; [`SpgemmPlan::new`] times each.
    pub const ALL: [ReplayGrid; 4] = [
        ReplayGrid::TilesAWarp(1),
        ReplayGrid::TilesAWarp(2),
        ReplayGrid::TilesAWarp(4),
        ReplayGrid::Resident,
    ];

    /// The replay's threads on this grid (one of [`Self::ALL`]) for
    /// `n_long` long tiles and `n_tiles` in all, at most `resident` on
    /// the resident grid, and its `SpgemmReplayArgs::tile_run_shift`.
    fn launch(self, n_long: u64, n_tiles: u64, resident: u64) -> (u64, u32) {
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
fn replay_long_kernel<S: Semiring>(lane: u64) -> (Replay<S>, u32) {
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
type Replay<S> = Family<S, SpgemmReplayArgs<<S as Semiring>::Value>>;

/// The replay kernel for `lane` products a lane, staging C's entries or
/// not.
fn replay_kernel<S: Semiring>(lane: u64, stages: bool) -> Replay<S> {
    match (lane == REPLAY_NARROW_LANE, stages) {
        (true, false) => family::spgemm_replay_4(),
        (true, true) => family::spgemm_replay_4_staged(),
        (false, false) => family::spgemm_replay_8(),
        (false, true) => family::spgemm_replay_8_staged(),
    }
}

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
struct TiledLists {
    words: Vec<u32>,
    tile_entry: Vec<u64>,
    tile_a: Vec<u32>,
    wide_a: Vec<u32>,
    lane_flags: Vec<u16>,
    long_tiles: Vec<u32>,
    b_bits: u32,
}

impl TiledLists {
    /// Lays out `entry_ptr`'s lists of `pairs` (`a_position | b_position
    /// << 32`) for a B of `b_nnz` entries, in tiles of `lane` products a
    /// lane; `None` where `b_nnz` is 2³¹ or more (B's bits in a word are at
    /// most 31, so that A's offset has one) or the tiles would be
    /// [`REPLAY_MAX_TILES`] or more.
    fn new(entry_ptr: &[usize], pairs: Vec<u64>, b_nnz: usize, lane: u64) -> Option<TiledLists> {
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
struct TileLayout<'l> {
    entry_ptr: &'l [usize],
    starts: &'l [usize],
    chunks: &'l [std::ops::Range<usize>],
    tile_chunks: &'l [std::ops::Range<usize>],
    tile: usize,
}

impl TileLayout<'_> {
    /// The words: `word(tile, pair)` for each of `pairs`, `pad` elsewhere.
    /// Zeroed first, so that the pages are mapped by the threads that fill
    /// them, each word written once (a serial fill of pads took longer than
    /// the rest of the plan's lists).
    fn fill<W: Copy + Default + Send + Sync>(
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
    fn lane_flags(&self, tile_entry: &[u64]) -> Vec<u16> {
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
    fn wide_a(&self, pairs: &[u64], wide: &[usize]) -> Vec<u32> {
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
fn product_lists<T: Scalar>(
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
