//! Kernels that are not sparse algebra: helpers for the host's benchmarks.
//! They are entry points of their own, not stamped per semiring; the host
//! finds them in [`crate::kernels::UTILITY_KERNELS`].

use crate::args::SpinArgs;
use core::arch::asm;

/// Holds its stream for `ns` nanoseconds: one thread reads the GPU's global
/// timer until that much time has passed. A benchmark queues it first, then
/// queues its timed runs while it spins, so that the runs start back to
/// back instead of waiting on the host to queue each one.
///
/// Launch: one block of one thread.
///
/// # Safety
/// Always sound; `unsafe` only as every entry point is.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn spin_ns(a: SpinArgs) {
    let start = global_timer();
    while global_timer().wrapping_sub(start) < a.ns {}
}

/// `%globaltimer`: nanoseconds, the same clock for every SM.
#[inline(always)]
fn global_timer() -> u64 {
    let t: u64;
    // SAFETY: reads a special register; no memory is touched.
    unsafe { asm!("mov.u64 {t}, %globaltimer;", t = out(reg64) t, options(nostack)) };
    t
}
