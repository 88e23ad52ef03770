//! Where a thread is: thread, block and grid indices, lanes and warps, the
//! block barrier, grid-stride loops, and `require` (stop on a broken
//! launch contract).
//!
//! The `_1d` helpers and [`warp_id`] assume one-dimensional blocks and grids,
//! which is how every spmx kernel is launched. Indices are `u32`: a launch
//! has fewer than 2³² threads.

use super::llvm;
use core::arch::nvptx;

/// Threads in a warp.
pub const WARP_SIZE: u32 = 32;

/// Stops the kernel unless `ok` (the host sees a launch error): for a
/// broken launch contract that would otherwise give a wrong result.
#[inline(always)]
pub fn require(ok: bool) {
    if !ok {
        // SAFETY: `trap` aborts the kernel; always sound.
        unsafe { nvptx::trap() }
    }
}

macro_rules! special_registers {
    ($($(#[$doc:meta])* $name:ident => $intrinsic:ident;)*) => {$(
        $(#[$doc])*
        #[inline(always)]
        pub fn $name() -> u32 {
            // SAFETY: reads a special register; valid in any kernel.
            unsafe { nvptx::$intrinsic() }
        }
    )*};
}

special_registers! {
    /// `threadIdx.x`
    thread_idx_x => _thread_idx_x;
    /// `threadIdx.y`
    thread_idx_y => _thread_idx_y;
    /// `threadIdx.z`
    thread_idx_z => _thread_idx_z;
    /// `blockIdx.x`
    block_idx_x => _block_idx_x;
    /// `blockIdx.y`
    block_idx_y => _block_idx_y;
    /// `blockIdx.z`
    block_idx_z => _block_idx_z;
    /// `blockDim.x`
    block_dim_x => _block_dim_x;
    /// `blockDim.y`
    block_dim_y => _block_dim_y;
    /// `blockDim.z`
    block_dim_z => _block_dim_z;
    /// `gridDim.x`
    grid_dim_x => _grid_dim_x;
    /// `gridDim.y`
    grid_dim_y => _grid_dim_y;
    /// `gridDim.z`
    grid_dim_z => _grid_dim_z;
}

/// This thread's index in the whole (1D) grid:
/// `blockIdx.x * blockDim.x + threadIdx.x`.
#[inline(always)]
pub fn index_1d() -> u32 {
    block_idx_x() * block_dim_x() + thread_idx_x()
}

/// Threads in the whole (1D) grid: `gridDim.x * blockDim.x`.
#[inline(always)]
pub fn grid_size_1d() -> u32 {
    grid_dim_x() * block_dim_x()
}

/// This thread's lane in its warp, 0..32 (`%laneid`).
#[inline(always)]
pub fn lane_id() -> u32 {
    // SAFETY: reads a special register.
    unsafe { llvm::laneid() }
}

/// This thread's warp within its (1D) block: `threadIdx.x / 32`. (Not
/// `%warpid`, which names a hardware slot and can change during a run.)
#[inline(always)]
pub fn warp_id() -> u32 {
    thread_idx_x() / WARP_SIZE
}

/// This thread's warp in the whole (1D) grid.
#[inline(always)]
pub fn global_warp_id() -> u32 {
    index_1d() / WARP_SIZE
}

/// Warps in the whole (1D) grid (block size a multiple of 32).
#[inline(always)]
pub fn grid_warps() -> u32 {
    grid_size_1d() / WARP_SIZE
}

/// [`grid_warps`], read where it is called. LLVM hoists reads of the
/// grid's size out of a loop, and ptxas then holds the product in a
/// register for the loop's life or spills it; read here by `asm!`, it is
/// two reads of the launch's constants and a multiply at each call. For a
/// loop whose registers are capped.
#[inline(always)]
pub fn grid_warps_reread() -> u32 {
    let (blocks, threads): (u32, u32);
    // SAFETY: reads two special registers; valid in any kernel.
    unsafe {
        core::arch::asm!(
            "mov.u32 {b}, %nctaid.x;",
            "mov.u32 {t}, %ntid.x;",
            b = out(reg32) blocks,
            t = out(reg32) threads,
            options(nostack, nomem, preserves_flags),
        )
    };
    blocks * threads / WARP_SIZE
}

/// Block barrier, `__syncthreads()`: waits until every thread of the block
/// has reached it, and makes their earlier shared and global writes visible
/// to each other.
///
/// # Safety
/// Every thread of the block must reach this same barrier (not inside a
/// branch only some threads take); otherwise the block hangs.
#[inline(always)]
pub unsafe fn sync_threads() {
    // SAFETY: the caller's contract.
    unsafe { nvptx::_syncthreads() }
}

/// `start, start + step, …` below `end`: the indices a grid-stride loop
/// visits. Stops cleanly instead of wrapping when `i + step` passes `u32::MAX`.
#[derive(Clone, Copy, Debug)]
pub struct GridStride {
    next: u32,
    end: u32,
    step: u32,
}

impl GridStride {
    #[inline(always)]
    pub fn new(start: u32, end: u32, step: u32) -> Self {
        GridStride {
            next: start,
            end,
            step,
        }
    }
}

impl Iterator for GridStride {
    type Item = u32;
    #[inline(always)]
    fn next(&mut self) -> Option<u32> {
        let i = self.next;
        if i < self.end {
            self.next = i.saturating_add(self.step);
            Some(i)
        } else {
            None
        }
    }
}

/// Grid-stride loop over `0..n`, one index per thread at a time:
/// `for i in grid_stride(n) { … }` works for any grid size.
#[inline(always)]
pub fn grid_stride(n: u32) -> GridStride {
    GridStride::new(index_1d(), n, grid_size_1d())
}

/// Grid-stride loop over `0..n`, one index per warp at a time: every lane
/// of a warp gets the same sequence, so the loop is warp-uniform and warp
/// collectives may be used inside it. Block size must be a multiple of 32.
#[inline(always)]
pub fn grid_stride_warps(n: u32) -> GridStride {
    GridStride::new(global_warp_id(), n, grid_warps())
}
