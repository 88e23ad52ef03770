//! SpMV kernel bodies, `y = A ⊗ x` over a semiring, one generic function per
//! format and strategy, a module per format (CSR: per strategy);
//! [`crate::kernels`] stamps their entry points. All
//! launches are one-dimensional, and every kernel is a grid-stride loop, so
//! any grid size is correct and the host picks one for occupancy (a few
//! blocks per SM, or enough to cover the work once).
//!
//! | family                 | one … per           | block size     | `y` before        | float `+` order         |
//! |------------------------|---------------------|----------------|-------------------|-------------------------|
//! | `spmv_csr_scalar`      | thread per row      | any            | anything          | row order (= serial)    |
//! | `spmv_csr_vector`      | `lanes` lanes / row | multiple of 32 | anything          | strided, then a tree    |
//! | `spmv_csr_merge`       | warp per part       | multiple of 32 | anything          | see [`spmv_csr_merge`]  |
//! | `spmv_csr_merge_fixup` | warp per part       | multiple of 32 | the merge's `y`   | carries, then `y`       |
//! | `spmv_csr_adaptive`    | block per row block | multiple of 32 | anything          | see [`spmv_csr_adaptive`] |
//! | `spmv_coo_atomic`      | thread per entry    | any            | zero, or a sum    | the atomics' (varies)   |
//! | `spmv_ell`             | thread per row      | any            | anything          | row order (= serial)    |
//! | `spmv_ell_near`        | thread per row      | any            | anything          | row order (= serial)    |
//! | `spmv_sell`            | thread per position | any            | anything          | row order (= serial)    |
//! | `spmv_bsr`             | thread per row      | any            | anything          | row order (= serial)    |
//!
//! "Row order" is increasing column, as the serial engine sums: the same
//! bits for every semiring. The order-independent semirings (min, max, or:
//! [`Semiring::ORDER_INDEPENDENT`](crate::semiring::Semiring::ORDER_INDEPENDENT)) give the serial engine's bits in every
//! kernel; only plus-times may differ, in the last bits, where the order
//! differs.
//!
//! HYB has no kernel of its own: the host runs `spmv_ell` on the ELL part
//! (which writes every `y[i]`), then `spmv_coo_atomic` on the overflow (which
//! reads and updates `y`) on the same stream.
//!
//! A launch that breaks its contract in a way that would give a wrong `y`
//! (a block size that is not a multiple of 32 where warps cooperate,
//! `items_per_part` not a positive multiple of 32, `c = 0`, `b` outside
//! `1..=8`) stops with `trap`: the host sees a launch error. A `lanes` out of
//! range counts as 32, which is still correct.
//!
//! # Map
//!
//! Host kernel (`--kernel`, in `host/engine/cuda/spmv.rs`) → argument
//! struct in [`crate::args`] → entry points → module here:
//!
//! | host kernel | arguments | entry points | module |
//! |---|---|---|---|
//! | `csr-scalar`, `csr-vector` | `SpmvCsrArgs` | `spmv_csr_scalar`, `spmv_csr_vector` | [`csr`] |
//! | `csr-merge` | `SpmvCsrMergeArgs` | `spmv_csr_merge`, `spmv_csr_merge_fixup` | [`csr_merge`] (search and walk in [`crate::merge_path`]) |
//! | `csr-adaptive` | `SpmvCsrAdaptiveArgs` | `spmv_csr_adaptive` | [`csr_adaptive`] |
//! | `coo`, `hyb`'s overflow | `SpmvCooArgs` | `spmv_coo_atomic` | [`coo`] |
//! | `ell`, `hyb`; `sell` | `SpmvEllArgs` or `SpmvEllNearArgs`; `SpmvSellArgs` | `spmv_ell` or `spmv_ell_near`; `spmv_sell` | [`ell`] |
//! | `bsr` | `SpmvBsrArgs` | `spmv_bsr` | [`bsr`] |
//!
//! The formats' conversions on the device (`csr_to_ell_*`,
//! `csr_to_ell_near_*`) are utility kernels in `crate::util`.

pub mod bsr;
pub mod coo;
pub mod csr;
pub mod csr_adaptive;
pub mod csr_merge;
pub mod ell;

pub use bsr::spmv_bsr;
pub use coo::spmv_coo_atomic;
pub use csr::{spmv_csr_scalar, spmv_csr_vector};
pub use csr_adaptive::spmv_csr_adaptive;
pub use csr_merge::{spmv_csr_merge, spmv_csr_merge_fixup};
pub use ell::{spmv_ell, spmv_ell_near, spmv_sell};
