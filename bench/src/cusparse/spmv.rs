//! cuSPARSE's CSR SpMV `y = A·x`: its algorithms and a product ready to
//! run on any `x` and `y`.

use std::ffi::c_void;

use cudarc::cusparse::sys;
use cudarc::driver::{CudaSlice, DevicePtr, DevicePtrMut};

use spmx::engine::cuda::Gpu;
use spmx::engine::cuda::matrix::DevCsr;
use spmx::error::Result;

use super::{CsrDescr, Cusparse, CusparseValue, check, label, preprocess_ran, scalar};

/// cuSPARSE's SpMV algorithms for CSR.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpmvAlg {
    /// `CUSPARSE_SPMV_ALG_DEFAULT`: the library's choice.
    Default,
    /// `CUSPARSE_SPMV_CSR_ALG1`: fast, not deterministic.
    CsrAlg1,
    /// `CUSPARSE_SPMV_CSR_ALG2`: the same bits on every run.
    CsrAlg2,
}

impl SpmvAlg {
    pub const ALL: [SpmvAlg; 3] = [SpmvAlg::Default, SpmvAlg::CsrAlg1, SpmvAlg::CsrAlg2];

    /// `cusparse-default`, `cusparse-alg1`, `cusparse-alg2`.
    pub fn name(self) -> &'static str {
        match self {
            SpmvAlg::Default => "cusparse-default",
            SpmvAlg::CsrAlg1 => "cusparse-alg1",
            SpmvAlg::CsrAlg2 => "cusparse-alg2",
        }
    }

    fn sys(self) -> sys::cusparseSpMVAlg_t {
        match self {
            SpmvAlg::Default => sys::cusparseSpMVAlg_t::CUSPARSE_SPMV_ALG_DEFAULT,
            SpmvAlg::CsrAlg1 => sys::cusparseSpMVAlg_t::CUSPARSE_SPMV_CSR_ALG1,
            SpmvAlg::CsrAlg2 => sys::cusparseSpMVAlg_t::CUSPARSE_SPMV_CSR_ALG2,
        }
    }
}

/// A dense vector described to cuSPARSE, destroyed on drop. Its owner
/// points it at the vector of each product before running it.
struct DnVecDescr(sys::cusparseDnVecDescr_t);

impl DnVecDescr {
    fn new<T: CusparseValue>(gpu: &Gpu, v: &CudaSlice<T>) -> Result<DnVecDescr> {
        let (p, _) = v.device_ptr(gpu.stream());
        let mut d = std::ptr::null_mut();
        // SAFETY: `v` holds `v.len()` values of the declared type.
        check("cusparseCreateDnVec", unsafe {
            sys::cusparseCreateDnVec(&mut d, v.len() as i64, p as *mut c_void, T::DATA_TYPE)
        })?;
        Ok(DnVecDescr(d))
    }
}

impl Drop for DnVecDescr {
    fn drop(&mut self) {
        // SAFETY: created by cuSPARSE and destroyed once.
        let _ = unsafe { sys::cusparseDestroyDnVec(self.0) };
    }
}

/// cuSPARSE's `y = A·x` for one CSR matrix and algorithm, ready to run on
/// any `x` and `y` of the right lengths.
pub struct CusparseSpmv<T> {
    // The descriptors come first, so that they are destroyed before the
    // arrays they point at.
    a: CsrDescr,
    x: DnVecDescr,
    y: DnVecDescr,
    matrix: DevCsr<T>,
    workspace: CudaSlice<u8>,
    alg: SpmvAlg,
    preprocessed: bool,
}

impl<T: CusparseValue> CusparseSpmv<T> {
    /// Describes `matrix` to cuSPARSE, sizes and allocates the workspace
    /// of `alg`, and runs `cusparseSpMV_preprocess` where the library has
    /// it. `x` and `y` are any vectors of A's column and row counts (the
    /// calls that size and prepare the product want them).
    pub fn new(
        lib: &Cusparse,
        gpu: &Gpu,
        matrix: DevCsr<T>,
        alg: SpmvAlg,
        x: &CudaSlice<T>,
        y: &mut CudaSlice<T>,
    ) -> Result<Self> {
        assert_eq!(x.len(), matrix.n_cols as usize, "x.len() != A.ncols()");
        assert_eq!(y.len(), matrix.n_rows as usize, "y.len() != A.nrows()");
        let a = CsrDescr::new(gpu, &matrix)?;
        let (xd, yd) = (DnVecDescr::new(gpu, x)?, DnVecDescr::new(gpu, y)?);
        let (one, zero) = (T::from_f64(1.0), T::from_f64(0.0));
        let mut size = 0usize;
        // SAFETY: live handle and descriptors; alpha and beta are host
        // values of the compute type (the handle's default pointer mode).
        check("cusparseSpMV_bufferSize", unsafe {
            sys::cusparseSpMV_bufferSize(
                lib.handle,
                sys::cusparseOperation_t::CUSPARSE_OPERATION_NON_TRANSPOSE,
                scalar(&one),
                a.as_const(),
                xd.0 as sys::cusparseConstDnVecDescr_t,
                scalar(&zero),
                yd.0,
                T::DATA_TYPE,
                alg.sys(),
                &mut size,
            )
        })?;
        let mut workspace = gpu.zeros::<u8>(size.max(1))?;
        let mut preprocessed = false;
        if lib.spmv_preprocess {
            let (wp, _) = workspace.device_ptr_mut(gpu.stream());
            // SAFETY: as above, with the workspace of the size asked for.
            let status = unsafe {
                sys::cusparseSpMV_preprocess(
                    lib.handle,
                    sys::cusparseOperation_t::CUSPARSE_OPERATION_NON_TRANSPOSE,
                    scalar(&one),
                    a.as_const(),
                    xd.0 as sys::cusparseConstDnVecDescr_t,
                    scalar(&zero),
                    yd.0,
                    T::DATA_TYPE,
                    alg.sys(),
                    wp as *mut c_void,
                )
            };
            preprocessed = preprocess_ran("cusparseSpMV_preprocess", status)?;
        }
        Ok(CusparseSpmv {
            a,
            x: xd,
            y: yd,
            matrix,
            workspace,
            alg,
            preprocessed,
        })
    }

    /// `cusparse-alg1`, with `+pre` when the product was preprocessed.
    pub fn label(&self) -> String {
        label(self.alg.name(), self.preprocessed)
    }

    /// Bytes A and the workspace occupy on the device.
    pub fn device_bytes(&self) -> usize {
        self.matrix.bytes() + self.workspace.len()
    }

    /// Queues `y = A·x` on the GPU's stream.
    pub fn run(
        &mut self,
        lib: &Cusparse,
        gpu: &Gpu,
        x: &CudaSlice<T>,
        y: &mut CudaSlice<T>,
    ) -> Result<()> {
        assert_eq!(x.len(), self.matrix.n_cols as usize, "x.len() != A.ncols()");
        assert_eq!(y.len(), self.matrix.n_rows as usize, "y.len() != A.nrows()");
        let stream = gpu.stream();
        let (xp, _) = x.device_ptr(stream);
        let (yp, _) = y.device_ptr_mut(stream);
        let (wp, _) = self.workspace.device_ptr_mut(stream);
        let (one, zero) = (T::from_f64(1.0), T::from_f64(0.0));
        // SAFETY: live descriptors pointed at vectors of their lengths,
        // borrowed for this call; the workspace is the one sized (and
        // preprocessed) for this matrix and algorithm.
        unsafe {
            check(
                "cusparseDnVecSetValues",
                sys::cusparseDnVecSetValues(self.x.0, xp as *mut c_void),
            )?;
            check(
                "cusparseDnVecSetValues",
                sys::cusparseDnVecSetValues(self.y.0, yp as *mut c_void),
            )?;
            check(
                "cusparseSpMV",
                sys::cusparseSpMV(
                    lib.handle,
                    sys::cusparseOperation_t::CUSPARSE_OPERATION_NON_TRANSPOSE,
                    scalar(&one),
                    self.a.as_const(),
                    self.x.0 as sys::cusparseConstDnVecDescr_t,
                    scalar(&zero),
                    self.y.0,
                    T::DATA_TYPE,
                    self.alg.sys(),
                    wp as *mut c_void,
                ),
            )
        }
    }
}
