//! Passing data between blocks of a running kernel through global memory,
//! as CUDA's `__threadfence()` and `__ldcg` do:
//!
//! - [`fence_gpu`]: `fence.acq_rel.gpu`. After a thread's atomic that
//!   observes a publication, it makes the published stores visible to the
//!   thread's later loads (and, through a following barrier, to its warp's
//!   or block's). It also invalidates the multiprocessor's L1, so it
//!   belongs only where a thread acquires, not on every publisher's path;
//! - [`load_from_l2`]: `ld.global.cg`, a load that reads L2, where every
//!   store lands, not a line this multiprocessor's L1 may hold from
//!   before.
//!
//! The pattern (the last of several pieces combining their results): the
//! writers store; a barrier; one thread counts its piece done with a
//! releasing atomic (`device::atomic::atomic_inc_release_u32`: the stores
//! it has observed, its own and those the barrier ordered before it, are
//! visible GPU-wide first); the thread that sees the count complete calls
//! [`fence_gpu`]; a barrier; the readers load the others' results.

use core::arch::asm;
use core::mem::{align_of_val, size_of_val, transmute_copy};

/// `fence.acq_rel.gpu` (CUDA's `__threadfence()` is the stronger
/// `fence.sc.gpu`; acquire-release is what the pattern needs).
#[inline(always)]
pub fn fence_gpu() {
    // SAFETY: a fence has no operands; it only orders this thread's memory
    // operations.
    unsafe { asm!("fence.acq_rel.gpu;", options(nostack, preserves_flags)) }
}

/// A global load with cache operator `$op` (`cg`, `cs`, `nc`, …) of a
/// value of 1, 2, 4, 8 bytes, or 16 bytes aligned to 16 (one vector
/// load); another type panics (a trap).
macro_rules! load_global {
    ($p:expr, $op:literal, $name:literal) => {{
        let p = $p;
        macro_rules! load {
            ($t:ty, $class:ident, $ty:literal) => {{
                let v: $t;
                asm!(
                    concat!("{{ .reg .b64 g; cvta.to.global.u64 g, {p}; ld.global.", $op, ".", $ty, " {v}, [g]; }}"),
                    p = in(reg64) p, v = out($class) v,
                    options(nostack, readonly, preserves_flags),
                );
                v
            }};
        }
        match (size_of_val(&*p), align_of_val(&*p)) {
            (16, 16) => {
                let (a, b, c, d): (u32, u32, u32, u32);
                asm!(
                    concat!("{{ .reg .b64 g; cvta.to.global.u64 g, {p}; ld.global.", $op, ".v4.b32 {{{a}, {b}, {c}, {d}}}, [g]; }}"),
                    p = in(reg64) p, a = out(reg32) a, b = out(reg32) b, c = out(reg32) c,
                    d = out(reg32) d,
                    options(nostack, readonly, preserves_flags),
                );
                transmute_copy(&[a, b, c, d])
            }
            (8, _) => transmute_copy(&load!(u64, reg64, "b64")),
            (4, _) => transmute_copy(&load!(u32, reg32, "b32")),
            (2, _) => transmute_copy(&load!(u16, reg16, "b16")),
            (1, _) => transmute_copy(&(load!(u16, reg16, "u8") as u8)),
            _ => panic!(concat!($name, ": a value of 1, 2, 4, 8 or 16 bytes")),
        }
    }};
}

/// `*p`, read from L2 (`ld.global.cg`, CUDA's `__ldcg`).
///
/// # Safety
/// `p` a valid, aligned address of global memory.
#[inline(always)]
pub unsafe fn load_from_l2<T: Copy>(p: *const T) -> T {
    // SAFETY: the caller's contract; each arm reads the `size_of::<T>()`
    // bytes at `p` and reinterprets them as the `T` they hold.
    unsafe { load_global!(p, "cg", "load_from_l2") }
}

/// `*p` of data read once (`ld.global.cs`, CUDA's `__ldcs`): its lines are
/// the first evicted, so that they do not push out data read again (SpMV's
/// `x`, among a matrix's stream of entries).
///
/// # Safety
/// `p` a valid, aligned address of global memory.
#[inline(always)]
pub unsafe fn load_streaming<T: Copy>(p: *const T) -> T {
    // SAFETY: as `load_from_l2`.
    unsafe { load_global!(p, "cs", "load_streaming") }
}

/// `*p` of data no thread writes while the kernel runs, through the
/// read-only path (`ld.global.nc`, CUDA's `__ldg`).
///
/// # Safety
/// `p` a valid, aligned address of global memory, not written during the
/// kernel.
#[inline(always)]
pub unsafe fn load_readonly<T: Copy>(p: *const T) -> T {
    // SAFETY: as `load_from_l2`.
    unsafe { load_global!(p, "nc", "load_readonly") }
}
