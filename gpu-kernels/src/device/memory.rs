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
use core::mem::{align_of, size_of, transmute_copy};

/// `fence.acq_rel.gpu` (CUDA's `__threadfence()` is the stronger
/// `fence.sc.gpu`; acquire-release is what the pattern needs).
#[inline(always)]
pub fn fence_gpu() {
    // SAFETY: a fence has no operands; it only orders this thread's memory
    // operations.
    unsafe { asm!("fence.acq_rel.gpu;", options(nostack, preserves_flags)) }
}

/// `*p`, read from L2 (`ld.global.cg`, CUDA's `__ldcg`). Values of 1, 2, 4,
/// 8 bytes, and 16 bytes aligned to 16 (one vector load), take this path;
/// another type traps.
///
/// # Safety
/// `p` a valid, aligned address of global memory.
#[inline(always)]
pub unsafe fn load_from_l2<T: Copy>(p: *const T) -> T {
    macro_rules! load {
        ($t:ty, $class:ident, $ins:literal) => {{
            let v: $t;
            asm!(
                concat!("{{ .reg .b64 g; cvta.to.global.u64 g, {p}; ", $ins, " {v}, [g]; }}"),
                p = in(reg64) p, v = out($class) v,
                options(nostack, readonly, preserves_flags),
            );
            v
        }};
    }
    // SAFETY: the caller's contract; each arm reads the `size_of::<T>()`
    // bytes at `p` and reinterprets them as the `T` they hold.
    unsafe {
        match (size_of::<T>(), align_of::<T>()) {
            (16, 16) => {
                let (a, b, c, d): (u32, u32, u32, u32);
                asm!(
                    "{{ .reg .b64 g; cvta.to.global.u64 g, {p}; ld.global.cg.v4.b32 {{{a}, {b}, {c}, {d}}}, [g]; }}",
                    p = in(reg64) p, a = out(reg32) a, b = out(reg32) b, c = out(reg32) c,
                    d = out(reg32) d,
                    options(nostack, readonly, preserves_flags),
                );
                transmute_copy(&[a, b, c, d])
            }
            (8, _) => transmute_copy(&load!(u64, reg64, "ld.global.cg.b64")),
            (4, _) => transmute_copy(&load!(u32, reg32, "ld.global.cg.b32")),
            (2, _) => transmute_copy(&load!(u16, reg16, "ld.global.cg.b16")),
            (1, _) => transmute_copy(&(load!(u16, reg16, "ld.global.cg.u8") as u8)),
            _ => panic!("load_from_l2: a value of 1, 2, 4, 8 or 16 bytes"),
        }
    }
}
