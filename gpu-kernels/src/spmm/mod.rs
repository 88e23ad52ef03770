//! SpMM kernel bodies, `C = A ⊗ B` over a semiring with A sparse (CSR) and
//! B, C dense; [`crate::kernels`] stamps their entry points: the block
//! kernels in [`block`] (a lane's unit of values in [`chunk`]), the
//! combining of long rows' pieces in [`fixup`], a thread per row in
//! [`thread`].
//!
//! | family              | one … per                          | layouts      | float `+` order                |
//! |---------------------|------------------------------------|--------------|--------------------------------|
//! | `spmm_csr_block`    | group of lanes per (block, tile)   | row-major    | rows in order, pieces in order (local pieces: a butterfly) |
//! | `spmm_csr_block_vec`| the same, 16-byte loads of B       | row-major    | as `spmm_csr_block`            |
//! | `…_fused`           | the same; the last piece combines  | row-major    | as `spmm_csr_block`            |
//! | `spmm_csr_fixup`    | thread per (long row, column)      | row-major    | pieces in order                |
//! | `spmm_csr_thread`   | thread per (row, 8 columns)        | any (strides)| row order (= serial)           |
//!
//! The block kernels are the fast path for row-major operands. The host cuts
//! A's entries into nnz-balanced blocks of whole rows (a row longer than a
//! block into pieces). A group of lanes takes a block and a tile of
//! columns: it stages the block's entries (column, row, value) through
//! shared memory with coalesced loads (a lane issues up to four entries'
//! loads before it stores any: one memory latency for four entries, not
//! one an entry), then
//! every lane of the group reads the staged entries (a broadcast) and, for
//! each, loads the `V` values of B's row it owns — consecutive lanes,
//! consecutive columns: coalesced — and accumulates them in registers,
//! writing a row of C when the next row's entries begin. Four entries'
//! loads of B are in flight a lane, across row boundaries, so a block of
//! short rows costs one chain of memory latencies, not one a row; a round
//! of four whose last entry is in the current row (rows ascend) skips the
//! per-entry row checks. A is read once per tile of columns, B's rows are
//! read whole, and C is written once, coalesced. `spmm_csr_fixup` then
//! combines each long row's pieces in a fixed order, so the result is the
//! same bits on every run. The `_fused` kernels save that second launch
//! (a few microseconds, what a small product costs): the last piece of a
//! long row to finish, by a releasing atomic count, combines the row's
//! pieces in the same order. The host uses them where no long row has more
//! than 64 pieces: one group sums a row's pieces one after another, where
//! the fix-up spreads a row over `k` threads. A row of few pieces (at most
//! twice a warp's groups: rows of 17 to 128 entries in blocks of 16 at
//! k = 32) needs neither: it is cut into at most a warp's groups of
//! *local* pieces, side by side in one warp, whose groups sum their parts
//! by shuffles (a butterfly, the same bits every run) before the first
//! writes the row: no partial rows, no count.
//!
//! Every item's path is short: lanes, groups and tiles are powers of two
//! (shifts and masks; a division only to split an item into block and
//! tile when there are several tiles), the staging loop ends on a warp
//! vote, and a block's descriptor is one 16-byte load.
//!
//! All launches are one-dimensional grid-stride loops: any grid is correct.
//!
//! # Map
//!
//! Host kernel (`--kernel`, in `host/engine/cuda/spmm/`) → argument
//! struct in [`crate::args`] → entry points → module here:
//!
//! | host kernel | host side | arguments | entry points | module |
//! |---|---|---|---|---|
//! | `block-rows`, `block-rows-fused` | `partition.rs` (blocks cut on the host), `blocks.rs` (launches) | `SpmmBlockArgs`; `SpmmFixupArgs` | `spmm_csr_block`, `spmm_csr_block_vec`, their `_fused` forms; `spmm_csr_fixup` | [`block`]; [`fixup`] |
//! | `thread-row` | `SpmmPlan::run` (`mod.rs`) | `SpmmCsrThreadArgs` | `spmm_csr_thread` | [`thread`] |
//! | `transposed` | `SpmmPlan::run`, `transpose` (`mod.rs`) | `TransposeArgs`, then `block-rows`' | `transpose_*` (`crate::util`), then `block-rows`' | [`block`] |

pub mod block;
pub mod chunk;
pub mod fixup;
pub mod thread;

pub use block::{
    spmm_csr_block, spmm_csr_block_fused, spmm_csr_block_vec, spmm_csr_block_vec_fused,
};
pub use chunk::{Chunk, One, Packed, Vec16};
pub use fixup::spmm_csr_fixup;
pub use thread::spmm_csr_thread;
