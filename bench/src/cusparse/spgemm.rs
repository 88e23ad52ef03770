//! cuSPARSE's CSR SpGEMM `C = A·B`: the whole sequence once
//! ([`CusparseSpgemm`]), or C's structure once and its values as often as
//! asked ([`CusparseSpgemmReuse`]).

use std::ffi::c_void;
use std::marker::PhantomData;

use cudarc::cusparse::sys;
use cudarc::driver::{CudaSlice, DevicePtrMut};

use spmx::engine::cuda::Gpu;
use spmx::engine::cuda::matrix::DevCsr;
use spmx::error::Result;

use super::{CsrDescr, Cusparse, CusparseValue, check, scalar};

/// C = A·B by cuSPARSE's `cusparseSpGEMM` (`CUSPARSE_SPGEMM_DEFAULT`), C
/// on the device: what `spmx bench spgemm` races our SpGEMM against.
pub struct CusparseSpgemm<T> {
    pub row_ptr: CudaSlice<u32>,
    pub col_idx: CudaSlice<u32>,
    pub values: CudaSlice<T>,
    /// Entries of C, as cuSPARSE reports them.
    pub nnz: usize,
}

/// A CSR descriptor cuSPARSE fills (C of a product), destroyed on drop.
struct OutCsrDescr(sys::cusparseSpMatDescr_t);

impl Drop for OutCsrDescr {
    fn drop(&mut self) {
        // SAFETY: created by cuSPARSE and destroyed once.
        let _ = unsafe { sys::cusparseDestroySpMat(self.0) };
    }
}

/// A `cusparseSpGEMMDescr_t`, destroyed on drop.
struct SpgemmDescr(sys::cusparseSpGEMMDescr_t);

impl Drop for SpgemmDescr {
    fn drop(&mut self) {
        // SAFETY: created by cuSPARSE and destroyed once.
        let _ = unsafe { sys::cusparseSpGEMM_destroyDescr(self.0) };
    }
}

impl OutCsrDescr {
    /// C of `rows` × `cols`, its offsets in `row_ptr` (`rows + 1`), its
    /// columns and values set once cuSPARSE knows its size ([`Self::fill`]).
    fn new<T: CusparseValue>(
        gpu: &Gpu,
        rows: u32,
        cols: u32,
        row_ptr: &mut CudaSlice<u32>,
    ) -> Result<OutCsrDescr> {
        let (rp, _) = row_ptr.device_ptr_mut(gpu.stream());
        let mut c = std::ptr::null_mut();
        // SAFETY: C's offsets hold rows + 1 values; columns and values are
        // set once cuSPARSE knows C's size.
        check("cusparseCreateCsr", unsafe {
            sys::cusparseCreateCsr(
                &mut c,
                i64::from(rows),
                i64::from(cols),
                0,
                rp as *mut c_void,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                sys::cusparseIndexType_t::CUSPARSE_INDEX_32I,
                sys::cusparseIndexType_t::CUSPARSE_INDEX_32I,
                sys::cusparseIndexBase_t::CUSPARSE_INDEX_BASE_ZERO,
                T::DATA_TYPE,
            )
        })?;
        Ok(OutCsrDescr(c))
    }

    /// C's columns and values, allocated at the size cuSPARSE reports and
    /// set in the descriptor beside `row_ptr`; returns them and the size.
    fn fill<T: CusparseValue>(
        &self,
        gpu: &Gpu,
        row_ptr: &mut CudaSlice<u32>,
    ) -> Result<(CudaSlice<u32>, CudaSlice<T>, usize)> {
        let stream = gpu.stream();
        let (mut rows, mut cols, mut nnz) = (0i64, 0i64, 0i64);
        // SAFETY: a live descriptor; three outputs.
        check("cusparseSpMatGetSize", unsafe {
            sys::cusparseSpMatGetSize(self.0, &mut rows, &mut cols, &mut nnz)
        })?;
        let nnz = usize::try_from(nnz).unwrap_or(0);
        let mut col_idx = gpu.output::<u32>(nnz.max(1))?;
        let mut values = gpu.output::<T>(nnz.max(1))?;
        {
            let (rp, _) = row_ptr.device_ptr_mut(stream);
            let (cp, _) = col_idx.device_ptr_mut(stream);
            let (vp, _) = values.device_ptr_mut(stream);
            // SAFETY: arrays of the sizes C's descriptor reports.
            check("cusparseCsrSetPointers", unsafe {
                sys::cusparseCsrSetPointers(
                    self.0,
                    rp as *mut c_void,
                    cp as *mut c_void,
                    vp as *mut c_void,
                )
            })?;
        }
        Ok((col_idx, values, nnz))
    }
}

impl SpgemmDescr {
    fn new() -> Result<SpgemmDescr> {
        let mut desc = std::ptr::null_mut();
        // SAFETY: creates a descriptor.
        check("cusparseSpGEMM_createDescr", unsafe {
            sys::cusparseSpGEMM_createDescr(&mut desc)
        })?;
        Ok(SpgemmDescr(desc))
    }
}

const NON_TRANSPOSE: sys::cusparseOperation_t =
    sys::cusparseOperation_t::CUSPARSE_OPERATION_NON_TRANSPOSE;
const SPGEMM_DEFAULT: sys::cusparseSpGEMMAlg_t = sys::cusparseSpGEMMAlg_t::CUSPARSE_SPGEMM_DEFAULT;

impl<T: CusparseValue> CusparseSpgemm<T> {
    /// C = A·B, the whole of cuSPARSE's sequence: work estimation, compute
    /// (each sized, then run with its buffer), C's arrays allocated at the
    /// size it reports, copy. Buffers are allocated as `cudaMalloc` does,
    /// not cleared (as ours are). Queued on the GPU's stream; the sizes wait
    /// for it. Every failing call is an error naming it and its status.
    pub fn multiply(lib: &Cusparse, gpu: &Gpu, a: &DevCsr<T>, b: &DevCsr<T>) -> Result<Self> {
        let (ad, bd) = (CsrDescr::new(gpu, a)?, CsrDescr::new(gpu, b)?);
        let mut row_ptr = gpu.zeros::<u32>(a.n_rows as usize + 1)?;
        let c = OutCsrDescr::new::<T>(gpu, a.n_rows, b.n_cols, &mut row_ptr)?;
        let desc = SpgemmDescr::new()?;
        let (one, zero) = (T::from_f64(1.0), T::from_f64(0.0));
        let (op, alg) = (NON_TRANSPOSE, SPGEMM_DEFAULT);
        // SAFETY (both calls): live handle and descriptors; alpha and beta
        // host values of the compute type; the buffer null (asking its size)
        // or of the size asked for.
        let buf1 = sized_call(
            gpu,
            "cusparseSpGEMM_workEstimation",
            |size, buffer| unsafe {
                sys::cusparseSpGEMM_workEstimation(
                    lib.handle,
                    op,
                    op,
                    scalar(&one),
                    ad.as_const(),
                    bd.as_const(),
                    scalar(&zero),
                    c.0,
                    T::DATA_TYPE,
                    alg,
                    desc.0,
                    size,
                    buffer,
                )
            },
        )?;
        let buf2 = sized_call(gpu, "cusparseSpGEMM_compute", |size, buffer| unsafe {
            sys::cusparseSpGEMM_compute(
                lib.handle,
                op,
                op,
                scalar(&one),
                ad.as_const(),
                bd.as_const(),
                scalar(&zero),
                c.0,
                T::DATA_TYPE,
                alg,
                desc.0,
                size,
                buffer,
            )
        })?;
        let (col_idx, values, nnz) = c.fill::<T>(gpu, &mut row_ptr)?;
        // SAFETY: live handle and descriptors, C's arrays set.
        check("cusparseSpGEMM_copy", unsafe {
            sys::cusparseSpGEMM_copy(
                lib.handle,
                op,
                op,
                scalar(&one),
                ad.as_const(),
                bd.as_const(),
                scalar(&zero),
                c.0,
                T::DATA_TYPE,
                alg,
                desc.0,
            )
        })?;
        drop((buf1, buf2));
        Ok(CusparseSpgemm {
            row_ptr,
            col_idx,
            values,
            nnz,
        })
    }
}

/// C = A·B by cuSPARSE's `cusparseSpGEMMreuse` sequence: C's structure
/// once ([`new`](Self::new): work estimation, nnz, copy), then
/// [`compute`](Self::compute) as often as A's and B's values change, in
/// place. What the race's numeric-only case times our `SpgemmPlan` against.
/// It points at A's and B's device arrays, so it borrows them.
pub struct CusparseSpgemmReuse<'m, T> {
    lib: &'m Cusparse,
    a: CsrDescr,
    b: CsrDescr,
    c: OutCsrDescr,
    desc: SpgemmDescr,
    /// The buffers `compute` reads (the fourth and fifth of the sequence).
    _buffers: [CudaSlice<u8>; 2],
    pub row_ptr: CudaSlice<u32>,
    pub col_idx: CudaSlice<u32>,
    pub values: CudaSlice<T>,
    /// Entries of C, as cuSPARSE reports them.
    pub nnz: usize,
    _operands: PhantomData<&'m DevCsr<T>>,
}

impl<'m, T: CusparseValue> CusparseSpgemmReuse<'m, T> {
    /// C's structure for A·B, and its values once ([`Self::compute`]).
    pub fn new(lib: &'m Cusparse, gpu: &Gpu, a: &'m DevCsr<T>, b: &'m DevCsr<T>) -> Result<Self> {
        let (ad, bd) = (CsrDescr::new(gpu, a)?, CsrDescr::new(gpu, b)?);
        let mut row_ptr = gpu.zeros::<u32>(a.n_rows as usize + 1)?;
        let c = OutCsrDescr::new::<T>(gpu, a.n_rows, b.n_cols, &mut row_ptr)?;
        let desc = SpgemmDescr::new()?;
        let (op, alg) = (NON_TRANSPOSE, SPGEMM_DEFAULT);
        // SAFETY (every call below): live handle and descriptors; each
        // buffer null (asking its size) or of the size asked for, kept
        // until the calls that read it have been queued.
        let buf1 = sized_call(
            gpu,
            "cusparseSpGEMMreuse_workEstimation",
            |size, buffer| unsafe {
                sys::cusparseSpGEMMreuse_workEstimation(
                    lib.handle,
                    op,
                    op,
                    ad.as_const(),
                    bd.as_const(),
                    c.0,
                    alg,
                    desc.0,
                    size,
                    buffer,
                )
            },
        )?;
        let nnz_call = |sizes: &mut [usize; 3], buffers: [*mut c_void; 3]| unsafe {
            let [s2, s3, s4] = sizes;
            sys::cusparseSpGEMMreuse_nnz(
                lib.handle,
                op,
                op,
                ad.as_const(),
                bd.as_const(),
                c.0,
                alg,
                desc.0,
                s2,
                buffers[0],
                s3,
                buffers[1],
                s4,
                buffers[2],
            )
        };
        let mut sizes = [0usize; 3];
        check(
            "cusparseSpGEMMreuse_nnz",
            nnz_call(&mut sizes, [std::ptr::null_mut(); 3]),
        )?;
        let [b2, b3, b4] = sizes.map(|size| gpu.output::<u8>(size.max(1)));
        let (mut b2, mut b3, mut b4) = (b2?, b3?, b4?);
        {
            let stream = gpu.stream();
            let (p2, _) = b2.device_ptr_mut(stream);
            let (p3, _) = b3.device_ptr_mut(stream);
            let (p4, _) = b4.device_ptr_mut(stream);
            let ptrs = [p2, p3, p4].map(|p| p as *mut c_void);
            check("cusparseSpGEMMreuse_nnz", nnz_call(&mut sizes, ptrs))?;
        }
        let (col_idx, values, nnz) = c.fill::<T>(gpu, &mut row_ptr)?;
        let buf5 = sized_call(gpu, "cusparseSpGEMMreuse_copy", |size, buffer| unsafe {
            sys::cusparseSpGEMMreuse_copy(
                lib.handle,
                op,
                op,
                ad.as_const(),
                bd.as_const(),
                c.0,
                alg,
                desc.0,
                size,
                buffer,
            )
        })?;
        drop((buf1, b2, b3));
        let mut reuse = CusparseSpgemmReuse {
            lib,
            a: ad,
            b: bd,
            c,
            desc,
            _buffers: [b4, buf5],
            row_ptr,
            col_idx,
            values,
            nnz,
            _operands: PhantomData,
        };
        reuse.compute()?;
        Ok(reuse)
    }

    /// C's values from A's and B's present values (queued on the stream):
    /// `cusparseSpGEMMreuse_compute`.
    pub fn compute(&mut self) -> Result<()> {
        let (one, zero) = (T::from_f64(1.0), T::from_f64(0.0));
        // SAFETY: live handle and descriptors, the buffers this sequence
        // made kept in `self`; alpha and beta host values of the compute
        // type.
        check("cusparseSpGEMMreuse_compute", unsafe {
            sys::cusparseSpGEMMreuse_compute(
                self.lib.handle,
                NON_TRANSPOSE,
                NON_TRANSPOSE,
                scalar(&one),
                self.a.as_const(),
                self.b.as_const(),
                scalar(&zero),
                self.c.0,
                T::DATA_TYPE,
                SPGEMM_DEFAULT,
                self.desc.0,
            )
        })
    }
}

/// A cuSPARSE call that takes a buffer, made as its API asks: once with no
/// buffer (it writes the size it needs), then with a buffer of that size,
/// which is returned (it must live until the work it queued is done).
fn sized_call(
    gpu: &Gpu,
    call: &str,
    mut f: impl FnMut(*mut usize, *mut c_void) -> sys::cusparseStatus_t,
) -> Result<CudaSlice<u8>> {
    let mut size = 0usize;
    check(call, f(&mut size, std::ptr::null_mut()))?;
    let mut buffer = gpu.output::<u8>(size.max(1))?;
    {
        let (p, _) = buffer.device_ptr_mut(gpu.stream());
        check(call, f(&mut size, p as *mut c_void))?;
    }
    Ok(buffer)
}
