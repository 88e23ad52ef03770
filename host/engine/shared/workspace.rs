//! Workspaces for SpGEMM kept between calls: a thread's row accumulator and
//! the buffers into which a one-pass product appends its rows of C. Both
//! the serial and cpu engines take theirs from here, so repeated products
//! (iterative methods, benchmarks) neither remap nor refault them.

use super::accumulator::Accumulator;
use super::fresh;
use crate::scalar::Scalar;
use rayon::prelude::*;
use std::any::Any;
use std::sync::Mutex;

/// One thread's SpGEMM workspace.
pub struct Workspace<A, T> {
    /// The thread's accumulator of one row of C.
    pub acc: A,
    /// Rows of C formed in one pass on several threads, before they are
    /// copied into C's own arrays (whose size is known only once every row
    /// is formed); made on huge pages where large (see
    /// [`fresh::kept_room`]).
    pub cols: Vec<u32>,
    /// The values of the rows in `cols`.
    pub vals: Vec<T>,
}

/// Workspaces kept from earlier calls, at most one per thread of the
/// pool. A dense accumulator spans B's columns (up to 3.3 MiB) and the
/// buffers hold a thread's share of C: made fresh, their pages are mapped
/// on first touch, and freed, unmapping them interrupts the other cores to
/// flush their TLBs, which costs a virtual machine dearly (with 2 threads,
/// a third of a small product's time went to the kernel).
static KEPT: Mutex<Vec<Box<dyn Any + Send>>> = Mutex::new(Vec::new());

/// Most of C's entries (in bytes) a thread's buffers keep mapped between
/// calls. Arrays larger than this get fresh pages from the system allocator
/// on every call whatever we do (glibc maps anything over 32 MiB anew), so
/// keeping such buffers would hold the memory and save nothing.
pub const KEEP_BUFFERS_MAX_BYTES: usize = 1 << 25;

impl<A, T: Scalar> Workspace<A, T> {
    /// Bytes of C's entries in the buffers.
    fn rows_bytes(&self) -> usize {
        self.cols.len() * size_of::<u32>() + self.vals.len() * size_of::<T>()
    }
}

/// `n` workspaces for a B of `ncols` columns, empty: kept ones that fit,
/// then new ones from `make`.
pub fn take_kept<T: Scalar, A: Accumulator<T> + Send + 'static>(
    n: usize,
    ncols: usize,
    make: &(dyn Fn() -> A + Sync),
) -> Vec<Workspace<A, T>> {
    let mut taken = Vec::with_capacity(n);
    let mut kept = KEPT.lock().unwrap_or_else(|e| e.into_inner());
    let mut k = 0;
    while k < kept.len() && taken.len() < n {
        if kept[k]
            .downcast_ref::<Workspace<A, T>>()
            .is_some_and(|ws| ws.acc.fits(ncols))
        {
            let ws = kept.swap_remove(k).downcast::<Workspace<A, T>>();
            taken.push(*ws.expect("checked"));
        } else {
            k += 1;
        }
    }
    drop(kept);
    let new = || Workspace {
        acc: make(),
        cols: Vec::new(),
        vals: Vec::new(),
    };
    // Several new ones are made on the pool's threads side by side (each
    // maps and writes its accumulator's pages: a first product's).
    match n.saturating_sub(taken.len()) {
        0 | 1 => taken.resize_with(n, new),
        more => taken.par_extend((0..more).into_par_iter().map(|_| new())),
    }
    taken
}

/// Keeps `taken` (trimmed, buffers emptied, see [`fresh::trim_kept`]) for
/// later calls, the newest first in line, dropping the oldest beyond one
/// per thread.
pub fn keep<T: Scalar, A: Accumulator<T> + Send + 'static>(mut taken: Vec<Workspace<A, T>>) {
    for ws in &mut taken {
        ws.acc.trim();
        if ws.rows_bytes() > KEEP_BUFFERS_MAX_BYTES {
            ws.cols = Vec::new();
            ws.vals = Vec::new();
        } else {
            fresh::trim_kept(&mut ws.cols);
            fresh::trim_kept(&mut ws.vals);
        }
        ws.cols.clear();
        ws.vals.clear();
    }
    let mut kept = KEPT.lock().unwrap_or_else(|e| e.into_inner());
    for ws in taken {
        kept.insert(0, Box::new(ws));
    }
    kept.truncate(rayon::current_num_threads());
}
