//! SpGEMM's classification: every row of C classed by its products and
//! binned by class (long rows of A summed first), and the prefix sum that
//! turns row lengths into offsets.

use std::ops::Range;

use cudarc::driver::CudaSlice;
use gpu_kernels::args::{
    DevPtrMut, SCAN_SHARED, SCAN_THREADS, SCAN_TILE, SPGEMM_CLASSES, SPGEMM_CLASSIFY_MAX,
    SPGEMM_LONG_CHUNK, SPGEMM_THREADS, ScanArgs, SpgemmClassifyArgs,
};
use gpu_kernels::kernels::utility;

use crate::Scalar;
use crate::engine::cuda::Gpu;
use crate::engine::cuda::matrix::DevCsr;
use crate::error::Result;

use super::symbolic::dense_shared;

/// Rows of C listed by class, for one range of rows.
pub(super) struct Binned {
    pub(super) counts: [u32; SPGEMM_CLASSES],
    pub(super) offsets: [u32; SPGEMM_CLASSES + 1],
    pub(super) rows: CudaSlice<u32>,
    pub(super) products: u64,
}

/// Classifies rows `rows` of A ⊗ B and lists them by class (the lengths of
/// class-0 rows go to `row_len`, and to `stage_len` bounds on the short,
/// hashed and long rows' lengths, 0 for the others); `giant` is the least
/// products and entries of A of a giant row.
pub(super) fn classify<T: Scalar>(
    gpu: &Gpu,
    a: &DevCsr<T>,
    b: &DevCsr<T>,
    rows: Range<u32>,
    row_len: &mut CudaSlice<u32>,
    mut stage_len: Option<&mut CudaSlice<u32>>,
    giant: (u64, u32),
) -> Result<Binned> {
    let n = rows.end - rows.start;
    let mut class = gpu.output::<u8>(n.max(1) as usize)?;
    // A count a class.
    let mut counts = gpu.zeros::<u32>(SPGEMM_CLASSES)?;
    let mut products = gpu.zeros::<u64>(1)?;
    let mut list = gpu.output::<u32>(n.max(1) as usize)?;
    // Chunks of the long rows: at most one a row over the warp's limit,
    // plus one per full chunk. Only the long kernels touch their count, so
    // it is zeroed only when they run.
    let chunks = a.nnz as usize / SPGEMM_CLASSIFY_MAX as usize
        + a.nnz as usize / SPGEMM_LONG_CHUNK as usize
        + 1;
    let long = a.longest_row > SPGEMM_CLASSIFY_MAX;
    let mut long_count = if long {
        gpu.zeros::<u32>(1)?
    } else {
        gpu.output::<u32>(1)?
    };
    let mut long_chunks = gpu.output::<u64>(if long { chunks } else { 1 })?;
    let mut long_products = gpu.output::<u64>(if long { n.max(1) as usize } else { 1 })?;
    let mut long_span = gpu.output::<u32>(if long { 2 * n.max(1) as usize } else { 1 })?;
    let (giant_products, giant_len) = giant;
    // Middle rows of a narrow span take the dense kernel only where none
    // of its rows needs the global scratch, sized by B's width.
    let dense_middle = u32::from(!dense_shared(gpu, b).1);
    // The struct of every phase: the class counts (then the binning's
    // cursors) and the classes' offsets (known once counted) vary. A
    // macro, so that each phase borrows the buffers only for its launches.
    macro_rules! args {
        ($counts:expr, $offsets:expr) => {
            SpgemmClassifyArgs {
                a_row_ptr: gpu.ptr(&a.row_ptr),
                a_col_idx: gpu.ptr(&a.col_idx),
                b_row_ptr: gpu.ptr(&b.row_ptr),
                b_col_idx: gpu.ptr(&b.col_idx),
                class: gpu.ptr_mut(&mut class),
                row_len: gpu.ptr_mut(row_len),
                counts: gpu.ptr_mut($counts),
                products: gpu.ptr_mut(&mut products),
                rows: gpu.ptr_mut(&mut list),
                long_chunks: gpu.ptr_mut(&mut long_chunks),
                long_count: gpu.ptr_mut(&mut long_count),
                long_products: gpu.ptr_mut(&mut long_products),
                long_span: gpu.ptr_mut(&mut long_span),
                stage_len: stage_len
                    .as_deref_mut()
                    .map_or(DevPtrMut::null(), |s| gpu.ptr_mut(s)),
                giant_products,
                row_start: rows.start,
                row_end: rows.end,
                giant_len,
                dense_middle,
                offsets: $offsets,
                pad: 0,
            }
        };
    }
    let args = args!(&mut counts, [0; SPGEMM_CLASSES + 1]);
    let sms = gpu.sm_count();
    let grid = n.div_ceil(SPGEMM_THREADS).clamp(1, sms * 32);
    // SAFETY (the classification's launches): A's and B's arrays, `n`
    // rows' classes, lengths and list, the counts, and the long rows'
    // buffers sized above for A's entries when A has long rows (the long
    // kernels run only then); grid-stride kernels.
    if long {
        unsafe {
            gpu.launch(utility::spgemm_long_rows(), grid, SPGEMM_THREADS, 0, args)?;
            let products = utility::spgemm_long_products();
            gpu.launch(products, sms * 8, SPGEMM_THREADS, 0, args)?;
        }
    }
    unsafe { gpu.launch(utility::spgemm_classify(), grid, SPGEMM_THREADS, 0, args)? };
    let counts_host: [u32; SPGEMM_CLASSES] = gpu.download(&counts)?[..SPGEMM_CLASSES]
        .try_into()
        .expect("a count a class");
    let products_host = gpu.download(&products)?[0];
    let mut offsets = [0u32; SPGEMM_CLASSES + 1];
    for c in 1..=SPGEMM_CLASSES {
        offsets[c] = offsets[c - 1] + counts_host[c - 1];
    }
    let mut cursors = gpu.zeros::<u32>(SPGEMM_CLASSES)?;
    let args = args!(&mut cursors, offsets);
    // SAFETY: as the classification, the cursors `SPGEMM_CLASSES` counts.
    unsafe { gpu.launch(utility::spgemm_bin(), grid, SPGEMM_THREADS, 0, args)? };
    Ok(Binned {
        counts: counts_host,
        offsets,
        rows: list,
        products: products_host,
    })
}

/// The exclusive prefix sum of `input[..n]`: `n + 1` offsets, the last the
/// total.
pub(in crate::engine::cuda) fn exclusive_scan(
    gpu: &Gpu,
    input: &CudaSlice<u32>,
    n: u32,
) -> Result<CudaSlice<u64>> {
    let n_tiles = n.div_ceil(SCAN_TILE).max(1);
    let mut output = gpu.output::<u64>(n as usize + 1)?;
    let mut tile_sums = gpu.output::<u64>(n_tiles as usize)?;
    let args = ScanArgs {
        input: gpu.ptr(input),
        output: gpu.ptr_mut(&mut output),
        tile_sums: gpu.ptr_mut(&mut tile_sums),
        n,
        n_tiles,
    };
    let grid = n.div_ceil(SCAN_THREADS).clamp(1, gpu.sm_count() * 32);
    // SAFETY: `n` values in, `n + 1` offsets out, `n_tiles` tile sums; a
    // block a tile, then one block, with the scan's shared memory, then a
    // grid-stride add.
    unsafe {
        gpu.launch(
            utility::scan_tiles(),
            n_tiles,
            SCAN_THREADS,
            SCAN_SHARED,
            args,
        )?;
        gpu.launch(
            utility::scan_tile_sums(),
            1,
            SCAN_THREADS,
            SCAN_SHARED,
            args,
        )?;
        gpu.launch(utility::scan_add(), grid, SCAN_THREADS, 0, args)?;
    }
    Ok(output)
}
