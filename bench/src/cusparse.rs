//! cuSPARSE, NVIDIA's sparse library, loaded at run time through cudarc:
//! the vendor's CSR SpMV `y = A·x`, SpMM `C = A·B` and SpGEMM (`f32`,
//! `f64`) that
//! `spmx bench` races our kernels against, on the same device, stream and
//! device copy of A.
//!
//! A small safe layer over `cudarc::cusparse::{sys, result}`: [`Cusparse`]
//! owns a handle that queues work on the [`Gpu`]'s one stream;
//! [`CusparseSpmv`] and [`CusparseSpmm`] own A as a [`DevCsr`] (`u32`
//! offsets and indices, base 0), its descriptors and its workspace, for one
//! algorithm ([`SpmvAlg`], [`SpmmAlg`]); SpMM's B and C are row- or
//! column-major ([`DenseLayout`]). [`CusparseSpgemm`] runs a whole SpGEMM;
//! [`CusparseSpgemmReuse`] plans one and recomputes its values
//! (`cusparseSpGEMMreuse_compute`). Every status is checked, and a failure
//! is an [`Error::Unavailable`] naming the call and the status (an
//! algorithm that does not support a layout or type says
//! `CUSPARSE_STATUS_NOT_SUPPORTED`). Only functions that both
//! `libcusparse.so.12` and `.so.13` export are called unconditionally;
//! `cusparseSpMV_preprocess` (12.4 and later) and `cusparseSpMM_preprocess`
//! are looked up first and used where they exist.

use std::ffi::c_void;
use std::marker::PhantomData;

use cudarc::cusparse::sys;
use cudarc::driver::{CudaSlice, DevicePtr, DevicePtrMut};

use spmx::Scalar;
use spmx::engine::cuda::Gpu;
use spmx::engine::cuda::matrix::DevCsr;
use spmx::engine::cuda::spmm::DenseLayout;
use spmx::error::{Error, Result};

const ENGINE: &str = "cuSPARSE";

/// A value type cuSPARSE computes in: `f32` or `f64`.
pub trait CusparseValue: Scalar {
    const DATA_TYPE: sys::cudaDataType;
}

impl CusparseValue for f32 {
    const DATA_TYPE: sys::cudaDataType = sys::cudaDataType::CUDA_R_32F;
}

impl CusparseValue for f64 {
    const DATA_TYPE: sys::cudaDataType = sys::cudaDataType::CUDA_R_64F;
}

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

/// A cuSPARSE handle working on the [`Gpu`]'s stream.
pub struct Cusparse {
    handle: sys::cusparseHandle_t,
    version: i32,
    /// Whether this libcusparse has `cusparseSpMV_preprocess`.
    spmv_preprocess: bool,
    /// Whether this libcusparse has `cusparseSpMM_preprocess`.
    spmm_preprocess: bool,
}

impl Cusparse {
    /// Loads libcusparse and opens a handle on `gpu`'s context and stream.
    /// Without the library the error names the files looked for and the
    /// `LD_LIBRARY_PATH` to set.
    pub fn new(gpu: &Gpu) -> Result<Cusparse> {
        // SAFETY: only tries to open the library (cudarc would panic on
        // the first call into a library it cannot open).
        if !unsafe { sys::is_culib_present() } {
            return Err(missing_library());
        }
        // cuSPARSE uses the context current on this thread: the Gpu's.
        gpu.context()
            .bind_to_thread()
            .map_err(|e| Error::Unavailable {
                engine: ENGINE,
                reason: format!("binding the CUDA context failed: {e:?}"),
            })?;
        let handle =
            cudarc::cusparse::result::create().map_err(|e| status_error("cusparseCreate", e.0))?;
        let mut lib = Cusparse {
            handle,
            version: 0,
            spmv_preprocess: exports(b"cusparseSpMV_preprocess"),
            spmm_preprocess: exports(b"cusparseSpMM_preprocess"),
        };
        let stream = gpu.stream().cu_stream() as sys::cudaStream_t;
        // SAFETY: a live handle, and the stream of the Gpu, which lives as
        // long as the process.
        check("cusparseSetStream", unsafe {
            sys::cusparseSetStream(handle, stream)
        })?;
        // SAFETY: a live handle; writes one int.
        check("cusparseGetVersion", unsafe {
            sys::cusparseGetVersion(handle, &mut lib.version)
        })?;
        Ok(lib)
    }

    /// The library's version, `12.6.3`.
    pub fn version(&self) -> String {
        let v = self.version;
        format!("{}.{}.{}", v / 1000, v % 1000 / 100, v % 100)
    }
}

impl Drop for Cusparse {
    fn drop(&mut self) {
        // SAFETY: the handle is live and destroyed once; a failure cannot
        // be reported from here.
        let _ = unsafe { sys::cusparseDestroy(self.handle) };
    }
}

/// Whether the loaded libcusparse exports `symbol` (called only once the
/// library is known to load).
fn exports(symbol: &[u8]) -> bool {
    // SAFETY: the library is loaded (Cusparse::new checks first); looking a
    // symbol up calls nothing.
    unsafe { sys::culib().get::<unsafe extern "C" fn()>(symbol) }.is_ok()
}

/// A CSR matrix described to cuSPARSE, destroyed on drop. It points at a
/// [`DevCsr`]'s arrays, which its owner keeps alive as long as it.
struct CsrDescr(sys::cusparseSpMatDescr_t);

impl CsrDescr {
    fn new<T: CusparseValue>(gpu: &Gpu, matrix: &DevCsr<T>) -> Result<CsrDescr> {
        let stream = gpu.stream();
        let (row_ptr, _) = matrix.row_ptr.device_ptr(stream);
        let (col_idx, _) = matrix.col_idx.device_ptr(stream);
        let (values, _) = matrix.values.device_ptr(stream);
        let mut d = std::ptr::null_mut();
        // SAFETY: the three arrays hold n_rows + 1, nnz and nnz elements of
        // the declared types; the descriptor is returned only if created.
        check("cusparseCreateCsr", unsafe {
            sys::cusparseCreateCsr(
                &mut d,
                i64::from(matrix.n_rows),
                i64::from(matrix.n_cols),
                i64::from(matrix.nnz),
                row_ptr as *mut c_void,
                col_idx as *mut c_void,
                values as *mut c_void,
                sys::cusparseIndexType_t::CUSPARSE_INDEX_32I,
                sys::cusparseIndexType_t::CUSPARSE_INDEX_32I,
                sys::cusparseIndexBase_t::CUSPARSE_INDEX_BASE_ZERO,
                T::DATA_TYPE,
            )
        })?;
        Ok(CsrDescr(d))
    }

    fn as_const(&self) -> sys::cusparseConstSpMatDescr_t {
        self.0 as sys::cusparseConstSpMatDescr_t
    }
}

impl Drop for CsrDescr {
    fn drop(&mut self) {
        // SAFETY: created by cuSPARSE and destroyed once.
        let _ = unsafe { sys::cusparseDestroySpMat(self.0) };
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

/// The algorithm's name, with `+pre` when the product was preprocessed.
fn label(alg: &str, preprocessed: bool) -> String {
    let pre = if preprocessed { "+pre" } else { "" };
    format!("{alg}{pre}")
}

/// Whether a `*_preprocess` call prepared the product: an algorithm
/// without a preprocessing step may say `NOT_SUPPORTED`, which is not an
/// error; any other failure is.
fn preprocess_ran(call: &str, status: sys::cusparseStatus_t) -> Result<bool> {
    match status {
        sys::cusparseStatus_t::CUSPARSE_STATUS_SUCCESS => Ok(true),
        sys::cusparseStatus_t::CUSPARSE_STATUS_NOT_SUPPORTED => Ok(false),
        _ => Err(status_error(call, status)),
    }
}

/// A host scalar as the `const void*` cuSPARSE takes.
fn scalar<T>(v: &T) -> *const c_void {
    (v as *const T).cast()
}

fn check(call: &str, status: sys::cusparseStatus_t) -> Result<()> {
    status.result().map_err(|e| status_error(call, e.0))
}

fn status_error(call: &str, status: sys::cusparseStatus_t) -> Error {
    Error::Unavailable {
        engine: ENGINE,
        reason: format!("{call} failed: {status:?}"),
    }
}

fn missing_library() -> Error {
    let names: Vec<String> = cudarc::get_lib_name_candidates("cusparse")
        .into_iter()
        .filter(|n| n.starts_with("libcusparse.so"))
        .collect();
    Error::Unavailable {
        engine: ENGINE,
        reason: format!(
            "libcusparse could not be loaded (looked for {}): install cuSPARSE (the CUDA \
             toolkit, or pip's nvidia-cusparse) and add the folder holding libcusparse.so.* \
             to LD_LIBRARY_PATH (it also needs libnvJitLink.so.* of the same CUDA release \
             there)",
            names.join(", ")
        ),
    }
}
