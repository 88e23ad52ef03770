//! The masked products' argument structs (`spgemm_masked_dot`,
//! `spmv_csr_masked`, `triangle_count`'s `L·Lᵀ⟨L⟩` summed and its L, and a
//! breadth-first search's level, `bfs_push`).

use super::{DevPtr, DevPtrMut};

kernel_args! {
    SpgemmMaskedDotArgs = 88;
    SpmvCsrMaskedArgs = 64;
}

/// `C⟨M⟩ = A ⊗ B` for a structural mask M, entry by entry of M: for its
/// entry `e` at `(i, j)`, the columns of A's row `i` and of Bᵀ's row `j`
/// (B's column `j`, as CSR of Bᵀ) merged; where they meet at `k`,
/// `A(i, k) ⊗ B(k, j)`, summed in `k` order from the first product into
/// `values[e]`, and `formed[e]` set to 1 (0 where they never meet: C has
/// no entry there, and `values[e]` is the semiring's zero). The host
/// keeps the formed entries, in M's order.
#[repr(C)]
#[derive(Debug)]
pub struct SpgemmMaskedDotArgs<'a, T> {
    /// A's `n_rows + 1` offsets, column indices (sorted in a row), values.
    pub a_row_ptr: DevPtr<'a, u32>,
    pub a_col_idx: DevPtr<'a, u32>,
    pub a_values: DevPtr<'a, T>,
    /// Bᵀ's (rows: B's columns) offsets, column indices (sorted), values.
    pub bt_row_ptr: DevPtr<'a, u32>,
    pub bt_col_idx: DevPtr<'a, u32>,
    pub bt_values: DevPtr<'a, T>,
    /// The row and the column of each of M's `mask_nnz` entries.
    pub mask_rows: DevPtr<'a, u32>,
    pub mask_cols: DevPtr<'a, u32>,
    /// A value and a flag for each entry of M.
    pub values: DevPtrMut<'a, T>,
    pub formed: DevPtrMut<'a, u32>,
    pub mask_nnz: u32,
    /// Always 0 (keeps the struct free of padding).
    pub _pad: u32,
}

/// `y⟨m⟩ = A ⊗ x` over CSR, a thread a row: row `i` is computed (as
/// `spmv_csr_scalar` computes it: in row order from the semiring zero)
/// where `allowed[i]` differs from `complement`; elsewhere `y[i]` is kept,
/// or (`replace` 1) set to the semiring's zero.
#[repr(C)]
#[derive(Debug)]
pub struct SpmvCsrMaskedArgs<'a, T> {
    /// `n_rows + 1` offsets into `col_idx` and `values`.
    pub row_ptr: DevPtr<'a, u32>,
    /// Column of each stored entry.
    pub col_idx: DevPtr<'a, u32>,
    /// Value of each stored entry.
    pub values: DevPtr<'a, T>,
    /// The dense input vector.
    pub x: DevPtr<'a, T>,
    /// The dense output vector, `n_rows` entries, read where kept.
    pub y: DevPtrMut<'a, T>,
    /// A flag a row (a `bool`: one byte, 0 or 1).
    pub allowed: DevPtr<'a, bool>,
    pub n_rows: u32,
    /// 1: the mask allows the rows `allowed` says false.
    pub complement: u32,
    /// 1: rows the mask rules out are set to the semiring's zero.
    pub replace: u32,
    /// Always 0 (keeps the struct free of padding).
    pub _pad: u32,
}

/// Triangles of an undirected graph from L, the strictly lower triangle
/// of its pattern under some order of the vertices: for each entry
/// `(i, j)` of L, L's rows `i` and `j` merged and their meetings counted
/// into `count` (the sum of `L·Lᵀ⟨L⟩` over plus-pair: a triangle counted
/// once, at its two highest vertices).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct TriangleCountArgs<'a> {
    /// L's `n + 1` offsets and column indices (increasing in a row).
    pub row_ptr: DevPtr<'a, u64>,
    pub col_idx: DevPtr<'a, u32>,
    /// The row of each of L's `nnz` entries.
    pub entry_rows: DevPtr<'a, u32>,
    /// One counter, zeroed before the launch.
    pub count: DevPtrMut<'a, u64>,
    pub nnz: u32,
    /// Always 0 (keeps the struct free of padding).
    pub _pad: u32,
}

/// Whether a square CSR's pattern is symmetric (`triangle_symmetric`):
/// for each entry `(i, j)`, row `j` searched for `i`; `asymmetric` set to
/// 1 where it is missing.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct TriangleSymmetricArgs<'a> {
    /// The graph's `n + 1` offsets and column indices (increasing in a
    /// row, each below `n`).
    pub row_ptr: DevPtr<'a, u32>,
    pub col_idx: DevPtr<'a, u32>,
    /// One flag, zeroed before the launch.
    pub asymmetric: DevPtrMut<'a, u32>,
    pub n: u32,
    /// Always 0 (keeps the struct free of padding).
    pub _pad: u32,
}

/// L of a graph with a symmetric pattern, row `v` the neighbours `w` of
/// `v` that come before it: `w < v` by number, or (`by_degree` 1) by
/// degree (the row length), ties by number. `triangle_lower_lengths`
/// writes each row's length to `lengths`; `triangle_lower_fill` its
/// columns (increasing, as in the graph) and rows from the offsets
/// `l_row_ptr` scanned from those lengths.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct TriangleLowerArgs<'a> {
    /// The graph's `n + 1` offsets and column indices (symmetric pattern).
    pub row_ptr: DevPtr<'a, u32>,
    pub col_idx: DevPtr<'a, u32>,
    /// L's row lengths (`n`), written by `triangle_lower_lengths`.
    pub lengths: DevPtrMut<'a, u32>,
    /// L's `n + 1` offsets, read by `triangle_lower_fill`.
    pub l_row_ptr: DevPtr<'a, u64>,
    /// L's column indices and each entry's row, written by
    /// `triangle_lower_fill`.
    pub l_col_idx: DevPtrMut<'a, u32>,
    pub l_rows: DevPtrMut<'a, u32>,
    pub n: u32,
    pub by_degree: u32,
}

utility_kernel_args! {
    TriangleCountArgs = 40;
    TriangleSymmetricArgs = 32;
    TriangleLowerArgs = 56;
    BfsPushArgs = 56;
}

/// One level of a breadth-first search by push (`bfs_push`): each vertex
/// `u` of the frontier (level `level - 1`, `counts[level - 1]` of them
/// in `frontier`) claims each out-neighbour `v` by raising `words[v]` to
/// `!(level << 32 | u)` (atomic max: a lower level, then a lower parent,
/// packs higher; 0 is unreached), and the vertices it found unreached
/// are appended to `next`, counted in `counts[level]`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct BfsPushArgs<'a> {
    /// The graph's `n + 1` offsets and column indices (each below `n`).
    pub row_ptr: DevPtr<'a, u32>,
    pub col_idx: DevPtr<'a, u32>,
    /// The frontier's vertices, and the next level's (room for `n`).
    pub frontier: DevPtr<'a, u32>,
    pub next: DevPtrMut<'a, u32>,
    /// Vertices found at each level: `counts[level - 1]` read,
    /// `counts[level]` (zeroed before) counted up.
    pub counts: DevPtrMut<'a, u32>,
    /// Each vertex's level and parent, packed as above (`n`).
    pub words: DevPtrMut<'a, u64>,
    pub level: u32,
    /// Always 0 (keeps the struct free of padding).
    pub _pad: u32,
}
