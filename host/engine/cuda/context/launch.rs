//! Launches: a typed kernel handle queued on spmx's stream (or beside it),
//! under the launch contract written on [`Gpu::launch`], and the grid of a
//! grid-stride kernel.

use cudarc::driver::{CudaStream, DeviceRepr, LaunchConfig, PushKernelArg};
use gpu_kernels::args::{KernelArgs, SpinArgs};
use gpu_kernels::kernels::{Launchable, utility};

use super::{Gpu, driver, unavailable};
use crate::error::Result;

/// A kernel argument struct as one kernel parameter: its bytes, by value.
#[repr(transparent)]
struct Param<A>(A);
// SAFETY: `KernelArgs` structs are `#[repr(C)]` plain data with no padding,
// the layout the PTX entry's single `.param` expects.
unsafe impl<A: KernelArgs> DeviceRepr for Param<A> {}

impl Gpu {
    /// Queues `kernel` on `grid` blocks of `block` threads with `shared`
    /// bytes of dynamic shared memory. A grid of zero blocks launches
    /// nothing.
    ///
    /// # Safety
    /// The contract of every launch (this and the `launch_*` below), which
    /// the driver cannot check:
    /// - every device pointer of `args` that the kernel follows, given the
    ///   counts in `args` and the geometry, addresses a buffer of this
    ///   [`Gpu`] holding at least the elements the kernel reads or writes
    ///   through it, and that buffer is alive when the launch is queued
    ///   (dropping a buffer frees it in stream order, after the kernel; a
    ///   pointer of [`Gpu::ptr`] or [`Gpu::ptr_mut`] borrows its buffer, so
    ///   the compiler checks this part for it);
    /// - the index data the kernel follows (offsets, columns, row lists,
    ///   classes) holds what the kernel's documentation requires (sorted,
    ///   in range), and values are valid for their type (a `bool` is 0 or 1);
    /// - the geometry is what the kernel's documentation requires (block
    ///   size, shared memory, a grid-stride or fixed grid);
    /// - no buffer a kernel writes is read or written through another of
    ///   its pointers, or by a kernel running at once, unless the kernel's
    ///   documentation allows it.
    pub unsafe fn launch<K: Launchable>(
        &self,
        kernel: K,
        grid: u32,
        block: u32,
        shared: u32,
        args: K::Args<'_>,
    ) -> Result<()> {
        // SAFETY: the caller's.
        unsafe { self.launch_on(&self.stream, kernel, grid, block, shared, args) }
    }

    /// [`Gpu::launch`] on a stream beside spmx's, so that the kernel runs at
    /// once with the work `beside` queues: after the work queued before and
    /// before the work queued after, as if both were one kernel. For a few
    /// long tasks that would otherwise leave the GPU idle at the end of a
    /// launch, at the cost of two event records and waits.
    ///
    /// # Safety
    /// As [`Gpu::launch`], where "a kernel running at once" includes every
    /// kernel `beside` queues; and the buffers of `args` stay alive until
    /// this returns (one freed inside `beside` would be freed on spmx's
    /// stream before the join, while the kernel may still use it).
    pub(crate) unsafe fn launch_beside<K: Launchable>(
        &self,
        kernel: K,
        grid: u32,
        block: u32,
        shared: u32,
        args: K::Args<'_>,
        beside: impl FnOnce() -> Result<()>,
    ) -> Result<()> {
        let ordered = |what: &str, e| driver(&format!("ordering the streams ({what})"), e);
        self.fork
            .record(&self.stream)
            .map_err(|e| ordered("fork", e))?;
        self.side.wait(&self.fork).map_err(|e| ordered("fork", e))?;
        // SAFETY: the caller's.
        unsafe { self.launch_on(&self.side, kernel, grid, block, shared, args)? };
        let queued = beside();
        self.join
            .record(&self.side)
            .map_err(|e| ordered("join", e))?;
        self.stream
            .wait(&self.join)
            .map_err(|e| ordered("join", e))?;
        queued
    }

    /// [`Gpu::launch`] on `stream`.
    ///
    /// # Safety
    /// As [`Gpu::launch`].
    unsafe fn launch_on<K: Launchable>(
        &self,
        stream: &CudaStream,
        kernel: K,
        grid: u32,
        block: u32,
        shared: u32,
        args: K::Args<'_>,
    ) -> Result<()> {
        if grid == 0 {
            return Ok(());
        }
        let f = self.kernel_function(kernel)?;
        let cfg = LaunchConfig {
            grid_dim: (grid, 1, 1),
            block_dim: (block, 1, 1),
            shared_mem_bytes: shared,
        };
        let param = Param(args);
        let mut builder = stream.launch_builder(&f);
        builder.arg(&param);
        // SAFETY: `param` is the struct the entry point takes (the handle's
        // type, checked against the entry in the nvptx64 build), and the
        // caller upholds the rest of the launch contract.
        unsafe { builder.launch(cfg) }.map_err(|e| {
            unavailable(format!(
                "launching kernel {} on {grid} blocks × {block} threads \
                 ({shared} B shared) failed: {e:?}",
                Gpu::kernel_name(kernel).unwrap_or(kernel.family())
            ))
        })?;
        Ok(())
    }

    /// Queues grid-stride `kernel` with a thread for each of `threads` work
    /// items (a capped grid is still correct). Blocks are [`Gpu::BLOCK`]
    /// threads, or smaller (down to one warp) when that leaves fewer than
    /// two blocks per multiprocessor: a small problem then spreads over
    /// every SM instead of a few.
    ///
    /// # Safety
    /// As [`Gpu::launch`].
    pub unsafe fn launch_threads<K: Launchable>(
        &self,
        kernel: K,
        threads: u64,
        args: K::Args<'_>,
    ) -> Result<()> {
        // SAFETY: the caller's.
        unsafe { self.launch_threads_in_blocks(kernel, threads, Gpu::BLOCK, 0, args) }
    }

    /// Threads of grid-stride `kernel`, in blocks of `block` threads with
    /// `shared_per_thread` bytes of dynamic shared memory a thread, that
    /// the device runs at once. Launched with no more (through
    /// [`Gpu::launch_threads_in_blocks`]), each warp starts once and loops
    /// over many items, instead of paying its start (its arguments read,
    /// its lane's constants) once an item.
    pub(crate) fn resident_threads<K: Launchable>(
        &self,
        kernel: K,
        block: u32,
        shared_per_thread: u32,
    ) -> Result<u64> {
        let shared = (block * shared_per_thread) as usize;
        let blocks = (self.kernel_function(kernel)?)
            .occupancy_max_active_blocks_per_multiprocessor(block, shared, None)
            .map_err(|e| {
                let name = Gpu::kernel_name(kernel).unwrap_or(kernel.family());
                driver(&format!("reading kernel {name}'s occupancy"), e)
            })?;
        Ok(u64::from(blocks.max(1)) * u64::from(self.sm_count) * u64::from(block))
    }

    /// [`Gpu::launch_threads`] with `shared_per_thread` bytes of dynamic
    /// shared memory for each thread of a block.
    ///
    /// # Safety
    /// As [`Gpu::launch`].
    pub unsafe fn launch_threads_shared<K: Launchable>(
        &self,
        kernel: K,
        threads: u64,
        shared_per_thread: u32,
        args: K::Args<'_>,
    ) -> Result<()> {
        // SAFETY: the caller's.
        unsafe {
            self.launch_threads_in_blocks(kernel, threads, Gpu::BLOCK, shared_per_thread, args)
        }
    }

    /// [`Gpu::launch_threads_shared`] in blocks of at most `block` threads
    /// (a multiple of 32) instead of [`Gpu::BLOCK`]: where a kernel's
    /// registers leave a part of a larger block's worth of them unused on
    /// each multiprocessor.
    ///
    /// # Safety
    /// As [`Gpu::launch`].
    pub(crate) unsafe fn launch_threads_in_blocks<K: Launchable>(
        &self,
        kernel: K,
        threads: u64,
        block: u32,
        shared_per_thread: u32,
        args: K::Args<'_>,
    ) -> Result<()> {
        let (grid, block) = grid_stride_launch(threads, block, self.sm_count);
        // SAFETY: the caller's.
        unsafe { self.launch(kernel, grid, block, block * shared_per_thread, args) }
    }

    /// Queues a kernel that holds the stream for `ns` nanoseconds (the
    /// `spin_ns` utility kernel): work queued behind it starts back to back.
    pub fn spin(&self, ns: u64) -> Result<()> {
        // SAFETY: `spin_ns` follows no pointer; one thread.
        unsafe { self.launch(utility::spin_ns(), 1, 1, 0, SpinArgs::new(ns)) }
    }
}

/// Blocks and threads a block for `threads` work items of a grid-stride
/// kernel in blocks of at most `block` (a multiple of 32) on `sm_count`
/// multiprocessors: smaller blocks (down to a warp) where there would be
/// fewer than two a multiprocessor, and no more than `u32::MAX` threads
/// in all, since a kernel numbers its threads in `u32` (`index_1d`): a
/// larger grid would wrap, its threads repeating some items and skipping
/// others; capped, each thread loops over more items instead.
fn grid_stride_launch(threads: u64, block: u32, sm_count: u32) -> (u32, u32) {
    let mut block = block;
    while block > 32 && threads.div_ceil(u64::from(block)) < 2 * u64::from(sm_count) {
        block /= 2;
    }
    let grid = threads
        .div_ceil(u64::from(block))
        .min(u64::from(u32::MAX / block));
    (grid as u32, block)
}

#[cfg(test)]
mod tests {
    use super::grid_stride_launch;

    #[test]
    fn grid_stride_launch_halves_small_grids_and_caps_thread_numbers() {
        // Enough work for two blocks a multiprocessor: blocks as asked.
        assert_eq!(grid_stride_launch(256 * 264, 256, 132), (264, 256));
        // Less: smaller blocks, down to a warp.
        assert_eq!(grid_stride_launch(128 * 264, 256, 132), (264, 128));
        assert_eq!(grid_stride_launch(100, 256, 132), (4, 32));
        assert_eq!(grid_stride_launch(0, 128, 132), (0, 32));
        // Every thread's number fits in u32, however many items.
        for threads in [1u64 << 32, (1 << 32) + 1, 1 << 40, u64::MAX] {
            for block in [32, 128, 256, 1024] {
                let (grid, b) = grid_stride_launch(threads, block, 132);
                assert_eq!(b, block);
                assert!(
                    u64::from(grid) * u64::from(b) <= u64::from(u32::MAX),
                    "{threads} {block}"
                );
                assert!(u64::from(grid) * u64::from(b) > u64::from(u32::MAX) - u64::from(b));
            }
        }
        // Just below the cap, nothing changes.
        assert_eq!(
            grid_stride_launch(u64::from(u32::MAX / 256) * 256, 256, 132).0,
            u32::MAX / 256
        );
    }
}
