//! cuSPARSE's CSR SpMM `C = A·B`, B and C dense in either layout: its
//! algorithms and a product ready to run on any B and C.

use std::ffi::c_void;

use cudarc::cusparse::sys;
use cudarc::driver::{CudaSlice, DevicePtr, DevicePtrMut};

use spmx::engine::cuda::Gpu;
use spmx::engine::cuda::matrix::DevCsr;
use spmx::engine::cuda::spmm::DenseLayout;
use spmx::error::Result;

use super::{CsrDescr, Cusparse, CusparseValue, check, label, preprocess_ran, scalar};

/// cuSPARSE's SpMM algorithms for CSR. Which layouts of B and C each one
/// takes depends on the library version; one that refuses says so with
/// `CUSPARSE_STATUS_NOT_SUPPORTED`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpmmAlg {
    /// `CUSPARSE_SPMM_ALG_DEFAULT`: the library's choice.
    Default,
    /// `CUSPARSE_SPMM_CSR_ALG1`.
    CsrAlg1,
    /// `CUSPARSE_SPMM_CSR_ALG2`.
    CsrAlg2,
    /// `CUSPARSE_SPMM_CSR_ALG3`.
    CsrAlg3,
}

impl SpmmAlg {
    pub const ALL: [SpmmAlg; 4] = [
        SpmmAlg::Default,
        SpmmAlg::CsrAlg1,
        SpmmAlg::CsrAlg2,
        SpmmAlg::CsrAlg3,
    ];

    /// `cusparse-default`, `cusparse-alg1`, `cusparse-alg2`, `cusparse-alg3`.
    pub fn name(self) -> &'static str {
        match self {
            SpmmAlg::Default => "cusparse-default",
            SpmmAlg::CsrAlg1 => "cusparse-alg1",
            SpmmAlg::CsrAlg2 => "cusparse-alg2",
            SpmmAlg::CsrAlg3 => "cusparse-alg3",
        }
    }

    fn sys(self) -> sys::cusparseSpMMAlg_t {
        match self {
            SpmmAlg::Default => sys::cusparseSpMMAlg_t::CUSPARSE_SPMM_ALG_DEFAULT,
            SpmmAlg::CsrAlg1 => sys::cusparseSpMMAlg_t::CUSPARSE_SPMM_CSR_ALG1,
            SpmmAlg::CsrAlg2 => sys::cusparseSpMMAlg_t::CUSPARSE_SPMM_CSR_ALG2,
            SpmmAlg::CsrAlg3 => sys::cusparseSpMMAlg_t::CUSPARSE_SPMM_CSR_ALG3,
        }
    }
}

/// A dense matrix described to cuSPARSE, destroyed on drop. Its owner
/// points it at the matrix of each product before running it.
struct DnMatDescr(sys::cusparseDnMatDescr_t);

impl DnMatDescr {
    /// `rows × cols` values in `layout`, packed: the leading dimension is
    /// `cols` for row-major, `rows` for column-major.
    fn new<T: CusparseValue>(
        gpu: &Gpu,
        rows: usize,
        cols: usize,
        layout: DenseLayout,
        values: &CudaSlice<T>,
    ) -> Result<DnMatDescr> {
        assert_eq!(values.len(), rows * cols, "dense values != rows × cols");
        let (ld, order) = match layout {
            DenseLayout::RowMajor => (cols, sys::cusparseOrder_t::CUSPARSE_ORDER_ROW),
            DenseLayout::ColMajor => (rows, sys::cusparseOrder_t::CUSPARSE_ORDER_COL),
        };
        let (p, _) = values.device_ptr(gpu.stream());
        let mut d = std::ptr::null_mut();
        // SAFETY: `values` holds rows × cols values of the declared type,
        // packed with leading dimension `ld`.
        check("cusparseCreateDnMat", unsafe {
            sys::cusparseCreateDnMat(
                &mut d,
                rows as i64,
                cols as i64,
                ld.max(1) as i64,
                p as *mut c_void,
                T::DATA_TYPE,
                order,
            )
        })?;
        Ok(DnMatDescr(d))
    }

    fn as_const(&self) -> sys::cusparseConstDnMatDescr_t {
        self.0 as sys::cusparseConstDnMatDescr_t
    }
}

impl Drop for DnMatDescr {
    fn drop(&mut self) {
        // SAFETY: created by cuSPARSE and destroyed once.
        let _ = unsafe { sys::cusparseDestroyDnMat(self.0) };
    }
}

/// cuSPARSE's `C = A·B` for one CSR matrix, algorithm, width `k` and
/// layout of B and C, ready to run on any B (n × k) and C (m × k) of that
/// layout.
pub struct CusparseSpmm<T> {
    // The descriptors come first, so that they are destroyed before the
    // arrays they point at.
    a: CsrDescr,
    b: DnMatDescr,
    c: DnMatDescr,
    matrix: DevCsr<T>,
    workspace: CudaSlice<u8>,
    alg: SpmmAlg,
    k: usize,
    preprocessed: bool,
}

impl<T: CusparseValue> CusparseSpmm<T> {
    /// Describes `matrix` and B, C (`k` columns, `layout`) to cuSPARSE,
    /// sizes and allocates the workspace of `alg`, and runs
    /// `cusparseSpMM_preprocess` where the library has it. `b` and `c` are
    /// any matrices of the right sizes (the calls that size and prepare
    /// the product want them). An algorithm that does not take this layout
    /// or type is an error naming the call and the status.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        lib: &Cusparse,
        gpu: &Gpu,
        matrix: DevCsr<T>,
        alg: SpmmAlg,
        k: usize,
        layout: DenseLayout,
        b: &CudaSlice<T>,
        c: &mut CudaSlice<T>,
    ) -> Result<Self> {
        let (m, n) = (matrix.n_rows as usize, matrix.n_cols as usize);
        let a = CsrDescr::new(gpu, &matrix)?;
        let bd = DnMatDescr::new(gpu, n, k, layout, b)?;
        let cd = DnMatDescr::new(gpu, m, k, layout, c)?;
        let (one, zero) = (T::from_f64(1.0), T::from_f64(0.0));
        let mut size = 0usize;
        // SAFETY: live handle and descriptors; alpha and beta are host
        // values of the compute type (the handle's default pointer mode).
        check("cusparseSpMM_bufferSize", unsafe {
            sys::cusparseSpMM_bufferSize(
                lib.handle,
                sys::cusparseOperation_t::CUSPARSE_OPERATION_NON_TRANSPOSE,
                sys::cusparseOperation_t::CUSPARSE_OPERATION_NON_TRANSPOSE,
                scalar(&one),
                a.as_const(),
                bd.as_const(),
                scalar(&zero),
                cd.0,
                T::DATA_TYPE,
                alg.sys(),
                &mut size,
            )
        })?;
        let mut workspace = gpu.zeros::<u8>(size.max(1))?;
        let mut preprocessed = false;
        if lib.spmm_preprocess {
            let (wp, _) = workspace.device_ptr_mut(gpu.stream());
            // SAFETY: as above, with the workspace of the size asked for.
            let status = unsafe {
                sys::cusparseSpMM_preprocess(
                    lib.handle,
                    sys::cusparseOperation_t::CUSPARSE_OPERATION_NON_TRANSPOSE,
                    sys::cusparseOperation_t::CUSPARSE_OPERATION_NON_TRANSPOSE,
                    scalar(&one),
                    a.as_const(),
                    bd.as_const(),
                    scalar(&zero),
                    cd.0,
                    T::DATA_TYPE,
                    alg.sys(),
                    wp as *mut c_void,
                )
            };
            preprocessed = preprocess_ran("cusparseSpMM_preprocess", status)?;
        }
        Ok(CusparseSpmm {
            a,
            b: bd,
            c: cd,
            matrix,
            workspace,
            alg,
            k,
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

    /// Queues `C = A·B` on the GPU's stream (B and C in the layout given
    /// to [`CusparseSpmm::new`]).
    pub fn run(
        &mut self,
        lib: &Cusparse,
        gpu: &Gpu,
        b: &CudaSlice<T>,
        c: &mut CudaSlice<T>,
    ) -> Result<()> {
        let (m, n) = (self.matrix.n_rows as usize, self.matrix.n_cols as usize);
        assert_eq!(b.len(), n * self.k, "B's values != A.ncols() × k");
        assert_eq!(c.len(), m * self.k, "C's values != A.nrows() × k");
        let stream = gpu.stream();
        let (bp, _) = b.device_ptr(stream);
        let (cp, _) = c.device_ptr_mut(stream);
        let (wp, _) = self.workspace.device_ptr_mut(stream);
        let (one, zero) = (T::from_f64(1.0), T::from_f64(0.0));
        // SAFETY: live descriptors pointed at matrices of their sizes,
        // borrowed for this call; the workspace is the one sized (and
        // preprocessed) for this matrix, algorithm and layout.
        unsafe {
            check(
                "cusparseDnMatSetValues",
                sys::cusparseDnMatSetValues(self.b.0, bp as *mut c_void),
            )?;
            check(
                "cusparseDnMatSetValues",
                sys::cusparseDnMatSetValues(self.c.0, cp as *mut c_void),
            )?;
            check(
                "cusparseSpMM",
                sys::cusparseSpMM(
                    lib.handle,
                    sys::cusparseOperation_t::CUSPARSE_OPERATION_NON_TRANSPOSE,
                    sys::cusparseOperation_t::CUSPARSE_OPERATION_NON_TRANSPOSE,
                    scalar(&one),
                    self.a.as_const(),
                    self.b.as_const(),
                    scalar(&zero),
                    self.c.0,
                    T::DATA_TYPE,
                    self.alg.sys(),
                    wp as *mut c_void,
                ),
            )
        }
    }
}
