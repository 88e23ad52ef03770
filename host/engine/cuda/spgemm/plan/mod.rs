//! A planned SpGEMM on the GPU: C = A ⊗ B's structure found once, its
//! values computed again as often as A's and B's values change while
//! their patterns stay (AMG setup, iterative methods; cuSPARSE's
//! `cusparseSpGEMMreuse`).
//!
//! The plan runs the product as [`spgemm`](super::spgemm) does (the
//! symbolic phase, C allocated, the numeric phase), then lists, for every
//! entry of C, the positions in A's and B's values of its products in the
//! serial order (on the host, over all cores, from C's pattern). Each
//! [`numeric`](CudaSpgemmPlan::numeric) is then one launch of
//! `gpu_kernels::spgemm::spgemm_replay_4` or `_8` — a warp a tile of
//! listed products, each lane computing 4 or 8 of them at once and folding
//! the lists that begin among them — so no row is walked,
//! searched or sorted again, every lane is busy however long the lists
//! are, and C keeps the serial engine's bits. The lists take 4 bytes a
//! product where its tile's positions pack into `u32`s, 8 in the few
//! tiles whose A positions span too far, the tiles' padding, and 2 bytes a
//! lane saying where its lists begin, found here once rather than by the
//! replay each time (`TiledLists`). [`CudaSpgemmPlan::new`] times the replay
//! on its grids ([`ReplayGrid`]: a warp 1, 2 or 4 tiles in a row, or only
//! the warps the GPU runs at once, each looping over tiles), each with C's
//! entries staged in shared memory and copied out a sector at a time or
//! stored by each lane ([`CudaSpgemmPlan::set_replay_stages`]), and, where
//! some list runs on through many tiles, with those lists in the replay
//! (a warp walking each) or in a kernel of their own beside it
//! (`spgemm_replay_long_4`, a block a list reading 16 tiles at once;
//! [`CudaSpgemmPlan::set_replay_long_beside`]), and keeps the fastest.
//! Where the lists do not fit in half the free device memory, where
//! rerunning the row kernels' numeric phase was faster still when `new`
//! timed it (bands, whose rows of B are read whole), or with
//! [`CudaSpgemmPlan::recomputing`], each numeric phase reruns the row kernels
//! instead; the bits are the same.

mod lists;
mod replay;

use std::marker::PhantomData;
use std::time::{Duration, Instant};

use cudarc::driver::CudaSlice;
use gpu_kernels::Semiring;
use gpu_kernels::args::{
    DevPtr, REPLAY_BLOCK, REPLAY_LONG_BLOCK, REPLAY_NARROW_BELOW, REPLAY_NARROW_LANE,
    REPLAY_WIDE_LANE, SpgemmReplayArgs,
};

use lists::{TiledLists, product_lists};
pub use replay::ReplayGrid;
use replay::{replay_kernel, replay_long_kernel, replay_shared_per_thread};

use super::symbolic::Product;
use super::whole;
use crate::Scalar;
use crate::engine::cuda::Gpu;
use crate::engine::cuda::matrix::{DevCsr, download_csr};
use crate::engine::shared::spgemm::check_new_values;
use crate::engine::shared::spgemm::shapes_agree;
use crate::error::{Error, Result};
use crate::format::Csr;

/// C = A ⊗ B over `S` planned once, recomputed by [`numeric`](Self::numeric)
/// for new values of A and B (see the module documentation). The plan owns
/// A, B and C on the device; C is held whole there: one that does not fit
/// is [`Error::TooLarge`] ([`spgemm_blocks`](crate::engine::cuda::spgemm::spgemm_blocks)
/// multiplies it in row blocks).
pub struct CudaSpgemmPlan<'g, S: Semiring>
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

impl<'g, S: Semiring> CudaSpgemmPlan<'g, S>
where
    S::Value: Scalar,
{
    /// Plans C = A ⊗ B and computes it once; keeps the product lists when
    /// they fit, and of the replay's grids and the row kernels, the
    /// fastest when timed (see the module documentation).
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
    #[doc(hidden)]
    pub fn recomputing(gpu: &'g Gpu, a: &Csr<S::Value>, b: &Csr<S::Value>) -> Result<Self> {
        shapes_agree(a, b)?;
        let (a, b) = (DevCsr::upload(gpu, a)?, DevCsr::upload(gpu, b)?);
        let (product, c) = whole::<S>(gpu, &a, &b)?;
        let Some((col_idx, values)) = c else {
            return Err(Error::TooLarge(format!(
                "a plan holds C whole on the GPU, and its {} entries do not fit in the free \
                 memory (multiply in row blocks with spgemm_blocks instead)",
                product.nnz
            )));
        };
        Ok(CudaSpgemmPlan {
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
                format!(
                    "CudaSpgemmPlan::set_replay_grid: {n} tiles a warp; a warp replays 1, 2 or 4"
                ),
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
                    "CudaSpgemmPlan::{setter}: the plan recomputes rows; it has no lists to replay"
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
            "CudaSpgemmPlan::set_values",
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
        fn optional<'l>(gpu: &Gpu, l: &'l Option<CudaSlice<u32>>) -> DevPtr<'l, u32> {
            l.as_ref().map_or(DevPtr::null(), |l| gpu.ptr(l))
        }
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
            wide_a: optional(gpu, &lists.wide_a),
            lane_flags: gpu.ptr(&lists.lane_flags),
            long_tiles: optional(gpu, &lists.long_tiles),
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
    /// for [`CudaSpgemmPlan::new`]'s choice: no gain, as small cases are equal
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
