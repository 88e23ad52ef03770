//! SpGEMM kernels, `C = A ⊗ B` over a semiring with A, B and C in CSR:
//! [`crate::kernels`] stamps the row kernels, the giant rows' and the
//! replay's per semiring; classification, binning, the prefix sum, Bᵀ and
//! the gather are utility entry points.
//!
//! The host runs two phases over the same row kernels: *symbolic* (the
//! exact length of every row of C), a prefix sum of the lengths (C's row
//! offsets), then *numeric* (the entries); or, for classes with many
//! rows, *staging* (both at once, into a staging area) and *unstaging*
//! (the staged rows copied to C). Each phase has its argument struct
//! ([`SpgemmPhase`](crate::args::SpgemmPhase)) and its own entry points,
//! `{family}_{phase}`: one body serves the phases of a class, reading its
//! struct through [`row::Rows`], and each entry point is compiled with
//! its phase a constant, so it carries no other phase's code. Rows are
//! classed by their product count, Σ over A(i,k) of |B(k,:)|, and the
//! span of their columns (lowest to highest column of the B rows they
//! meet):
//!
//! | family         | rows                                         | one … per row | how                                  |
//! |----------------|----------------------------------------------|---------------|--------------------------------------|
//! | `spgemm_copy`  | ≤ 1 entry of A, or no products               | warp          | a scaled copy of B's row             |
//! | `spgemm_warp`  | ≤ `SPGEMM_WARP_MAX` (32) products            | warp          | symbolic: distinct columns by `match.any`; numeric: sort the products in registers |
//! | `spgemm_short` | ≤ 32 entries of A, ≤ `SPGEMM_SHORT_MAX` (128) products, a span beyond the table | warp | sort the products in registers, 2 or 4 a lane |
//! | `spgemm_hash`  | fit a table of `SPGEMM_HASH_SLOTS` (512)     | warp          | a table in the warp's shared memory  |
//! | `spgemm_hash`, wide class | ≤ `SPGEMM_BLOCK_MAX` (1024) products, a span ≤ `SPGEMM_WIDE_SLOTS` (2048) | warp | a table indexed by column, fewer warps a block |
//! | `spgemm_block` | ≤ `SPGEMM_BLOCK_MAX` (1024) products over a span of more than `SPGEMM_DENSE_SPAN_PER_PRODUCT` (32) columns a product | block | sort the products in shared memory |
//! | `spgemm_dense` | more, or ≤ 1024 over a narrower span         | block         | a bitmap of the span, values by column or by rank |
//! | giant ([`giant`]) | ≥ `giant_len` entries of A and a share of B's entries in products | lane, 32 rows a batch | column by column of Bᵀ |
//!
//! Every kernel sums each entry of C in the serial engine's order, so the
//! result has the serial bits for every semiring, plus-times included, on
//! every run, with no atomics on values.
//!
//! **Sorting (ESC).** The sort kernels gather a row's products with the
//! key `(column, product number)` — products numbered in A's order, then
//! B's — and sort the keys (bitonic). Equal columns are then adjacent and
//! in the serial order, and each column's first product sums its run. A
//! sort costs `log² products` steps, cheap for the up to 128 keys a warp
//! sorts in its registers by shuffles ([`register`]), and for the middle
//! rows a block holds ([`block`]); in a warp's shared memory it loses to
//! the table ([`hash`]).
//!
//! # Glossary
//!
//! "Wide" and "long" name several things in the argument structs and entry
//! points, which keep their names (the host loads kernels by name); the
//! modules here say each thing by one term, never by a bare "wide" or
//! "long":
//!
//! | word | means | named in `args` and entry points |
//! |---|---|---|
//! | *long row* | a row of A of more than `SPGEMM_CLASSIFY_MAX` entries, too long for one warp to classify: summed first by warps, a chunk each | `spgemm_long_rows`, `spgemm_long_products`, `long_products`, `long_span`, `SPGEMM_LONG_CHUNK` |
//! | *dense row* | a row of the dense class (more than `SPGEMM_BLOCK_MAX` products, or fewer over a narrow span), through a bitmap | `SPGEMM_CLASS_DENSE`, `spgemm_dense`; the host's `STAGE_MIN_LONG_ROWS` |
//! | *giant row* | a long row whose products are a large share of B's entries, through Bᵀ | `SPGEMM_CLASS_GIANT`, `spgemm_giant_*` |
//! | *long tile* | a replay tile whose last list runs on through the tiles after it, replayed by a block | `REPLAY_LONG_TILE`, `long_tiles`, `n_long`, `spgemm_replay_long_*` |
//! | *wide class* | rows of up to 1024 products in a span of up to 2048 columns, through `spgemm_hash` with a direct table of 2048 slots | `SPGEMM_CLASS_WIDE`, `SPGEMM_WIDE_SLOTS` |
//! | *span beyond the table* | a span of more columns than a table indexed by column has slots (the short class's rows) | — |
//! | *8 a lane* | a replay of 8 products a lane (tiles of 32 × 8) | `REPLAY_WIDE_LANE`, `spgemm_replay_8` (4 a lane: `REPLAY_NARROW_LANE`, `_4`) |
//! | *far tile* | a replay tile whose A positions lie too far apart to pack beside B's, listed apart in `wide_a` | `REPLAY_WIDE_TILE`, `wide_a` |
//! | *long column* | a column of Bᵀ of more than 32 entries, sorted by a block | `SpgemmTransposeArgs::long` |
//!
//! # Map
//!
//! Host step (in `host/engine/cuda/spgemm/`, its `plan/` for the replay)
//! → argument struct in [`crate::args`] → entry points → module here:
//!
//! | host step | arguments | entry points | module |
//! |---|---|---|---|
//! | classify, bin (`classify`) | `SpgemmClassifyArgs` | `spgemm_long_rows`, `spgemm_long_products` (long rows only), `spgemm_classify`, `spgemm_bin` | [`classify`] |
//! | Bᵀ for giant rows (`Giant::new`) | `SpgemmTransposeArgs` | `spgemm_transpose_count`, `_scatter`, `_sort` | [`giant`] |
//! | symbolic phase, classes 1–6 (`rows.rs`, `launch_rows`) | `SpgemmSymbolicArgs` | `spgemm_warp_symbolic`, `spgemm_short_symbolic`; `spgemm_hash_symbolic` (hash and wide classes); `spgemm_block_symbolic`; `spgemm_dense_symbolic` (stamped) | [`register`]; [`hash`]; [`block`]; [`dense`]; shared helpers in [`row`] |
//! | numeric phase, classes 0–6 (the same) | `SpgemmNumericArgs` | `spgemm_copy`; `spgemm_warp_numeric`, `spgemm_short_numeric`; `spgemm_hash_numeric`; `spgemm_block_numeric`; `spgemm_dense_numeric` (stamped) | [`copy`]; [`register`]; [`hash`]; [`block`]; [`dense`] |
//! | staging, in the symbolic phase: short, hash, dense classes (the same) | `SpgemmStageArgs` | `spgemm_short_stage`, `spgemm_hash_stage`, `spgemm_dense_stage` (stamped) | [`register`]; [`hash`]; [`dense`] |
//! | unstaging, in the numeric phase (the same) | `SpgemmUnstageArgs` | `spgemm_unstage` (short, hash), `spgemm_unstage_dense` (stamped) | [`stage`] |
//! | giant rows, batch by batch (`launch_giant`) | `SpgemmGatherArgs`, `SpgemmGiantSymbolicArgs` or `SpgemmGiantNumericArgs` | `spgemm_giant_gather`, `spgemm_giant_columns_{symbolic,numeric}`, `spgemm_giant_rows_{symbolic,numeric}` (the last four stamped) | [`giant`] |
//! | row offsets (`exclusive_scan`) | `ScanArgs` | `scan_tiles`, `scan_tile_sums`, `scan_add` | [`scan`] |
//! | the plan's numeric phase (`SpgemmPlan::numeric`) | `SpgemmReplayArgs` | `spgemm_replay_4`, `spgemm_replay_8`, their `_staged` (stamped) | [`replay`] |
//! | the same, long tiles beside (`SpgemmPlan::numeric`) | `SpgemmReplayArgs` | `spgemm_replay_long_4`, `_8` (stamped) | [`replay_long`] |

pub mod block;
pub mod classify;
pub mod copy;
pub mod dense;
pub mod giant;
pub mod hash;
pub mod register;
pub mod replay;
pub mod replay_long;
pub mod row;
pub mod scan;
pub mod stage;

pub use block::spgemm_block;
pub use copy::spgemm_copy;
pub use dense::spgemm_dense;
pub use giant::{spgemm_giant_columns, spgemm_giant_rows};
pub use hash::spgemm_hash;
pub use register::{spgemm_short, spgemm_warp};
pub use replay::{
    spgemm_replay_4, spgemm_replay_4_staged, spgemm_replay_8, spgemm_replay_8_staged,
};
pub use replay_long::{spgemm_replay_long_4, spgemm_replay_long_8};
pub use stage::{spgemm_unstage, spgemm_unstage_dense};
