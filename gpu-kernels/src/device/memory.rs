//! Passing data between blocks of a running kernel through global memory,
//! CUDA's `__threadfence()` and `__ldcg`:
//!
//! - [`fence_gpu`]: `fence.acq_rel.gpu`. A writer's stores before it are
//!   visible GPU-wide before its memory operations after it (say, counting
//!   itself done with an atomic); a reader's loads after it see what the
//!   writers it synchronized with stored;
//! - [`load_from_l2`]: `ld.global.cg`, a load that skips the multiprocessor's
//!   L1 (which other multiprocessors' stores do not update) and reads L2,
//!   where every store lands.
//!
//! The pattern (the last of several pieces combining their results): each
//! writer stores, calls [`fence_gpu`], then one thread counts the piece
//! done with an atomic; the thread that sees the count complete calls
//! [`fence_gpu`] and reads the others' results with [`load_from_l2`].

use core::arch::asm;
use core::mem::{align_of, size_of, transmute_copy};

/// `fence.acq_rel.gpu` (CUDA's `__threadfence()`).
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
