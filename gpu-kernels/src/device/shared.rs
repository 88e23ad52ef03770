//! Shared memory.

/// The dynamic shared memory of this block (CUDA's `extern __shared__ T s[]`):
/// as many bytes as the launch asked for (`shared_mem_bytes`), aligned for
/// `T`. Every call, whatever `T`, returns the same address.
///
/// The pointer is valid for the launch's byte count only; the kernel's
/// documentation says how many bytes it needs. Threads of a block see each
/// other's writes after [`sync_threads`](super::thread::sync_threads).
#[inline(always)]
pub fn dynamic<T>() -> *mut T {
    core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<T>()
}
