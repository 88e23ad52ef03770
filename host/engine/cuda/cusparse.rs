//! cuSPARSE, NVIDIA's sparse library, loaded at run time through cudarc:
//! the vendor's CSR SpMV `y = A·x` (`f32`, `f64`) that `spmx bench` races
//! our kernels against, on the same device, stream and device copy of A.
//!
//! A small safe layer over `cudarc::cusparse::{sys, result}`: [`Cusparse`]
//! owns a handle that queues work on the [`Gpu`]'s one stream;
//! [`CusparseSpmv`] owns A as a [`DevCsr`] (`u32` offsets and indices,
//! base 0), its descriptors and its workspace, for one [`SpmvAlg`]. Every
//! status is checked, and a failure is an [`Error::Unavailable`] naming the
//! call. Only functions that both `libcusparse.so.12` and `.so.13` export
//! are called unconditionally; `cusparseSpMV_preprocess` (12.4 and later)
//! is looked up first and used where it exists.

use std::ffi::c_void;

use cudarc::cusparse::sys;
use cudarc::driver::{CudaSlice, DevicePtr, DevicePtrMut};

use super::Gpu;
use super::matrix::DevCsr;
use crate::Scalar;
use crate::error::{Error, Result};

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

/// A cuSPARSE handle working on the [`Gpu`]'s stream.
pub struct Cusparse {
    handle: sys::cusparseHandle_t,
    version: i32,
    /// Whether this libcusparse has `cusparseSpMV_preprocess`.
    preprocess: bool,
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
            preprocess: false,
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
        // SAFETY: the library is loaded (checked above); looking a symbol up
        // calls nothing.
        lib.preprocess =
            unsafe { sys::culib().get::<unsafe extern "C" fn()>(b"cusparseSpMV_preprocess") }
                .is_ok();
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

/// The descriptors of one SpMV, destroyed on drop (those created so far).
struct Descriptors {
    a: sys::cusparseSpMatDescr_t,
    x: sys::cusparseDnVecDescr_t,
    y: sys::cusparseDnVecDescr_t,
}

impl Drop for Descriptors {
    fn drop(&mut self) {
        // SAFETY: each non-null descriptor was created by cuSPARSE and is
        // destroyed once.
        unsafe {
            if !self.a.is_null() {
                let _ = sys::cusparseDestroySpMat(self.a);
            }
            for v in [self.x, self.y] {
                if !v.is_null() {
                    let _ = sys::cusparseDestroyDnVec(v);
                }
            }
        }
    }
}

/// cuSPARSE's `y = A·x` for one CSR matrix and algorithm, ready to run on
/// any `x` and `y` of the right lengths.
pub struct CusparseSpmv<T> {
    descriptors: Descriptors,
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
        let stream = gpu.stream();
        let mut d = Descriptors {
            a: std::ptr::null_mut(),
            x: std::ptr::null_mut(),
            y: std::ptr::null_mut(),
        };
        let (row_ptr, _) = matrix.row_ptr.device_ptr(stream);
        let (col_idx, _) = matrix.col_idx.device_ptr(stream);
        let (values, _) = matrix.values.device_ptr(stream);
        // SAFETY: the three arrays hold n_rows + 1, nnz and nnz elements of
        // the declared types and live as long as the descriptor (both are
        // owned by the CusparseSpmv returned).
        check("cusparseCreateCsr", unsafe {
            sys::cusparseCreateCsr(
                &mut d.a,
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
        let (xp, _) = x.device_ptr(stream);
        let (yp, _) = y.device_ptr_mut(stream);
        // SAFETY: x and y hold n_cols and n_rows values; `run` points the
        // descriptors at its own vectors before every product.
        check("cusparseCreateDnVec", unsafe {
            sys::cusparseCreateDnVec(&mut d.x, x.len() as i64, xp as *mut c_void, T::DATA_TYPE)
        })?;
        check("cusparseCreateDnVec", unsafe {
            sys::cusparseCreateDnVec(&mut d.y, y.len() as i64, yp as *mut c_void, T::DATA_TYPE)
        })?;
        let (one, zero) = (T::from_f64(1.0), T::from_f64(0.0));
        let mut size = 0usize;
        // SAFETY: live handle and descriptors; alpha and beta are host
        // values of the compute type (the handle's default pointer mode).
        check("cusparseSpMV_bufferSize", unsafe {
            sys::cusparseSpMV_bufferSize(
                lib.handle,
                sys::cusparseOperation_t::CUSPARSE_OPERATION_NON_TRANSPOSE,
                scalar(&one),
                d.a as sys::cusparseConstSpMatDescr_t,
                d.x as sys::cusparseConstDnVecDescr_t,
                scalar(&zero),
                d.y,
                T::DATA_TYPE,
                alg.sys(),
                &mut size,
            )
        })?;
        let mut workspace = gpu.zeros::<u8>(size.max(1))?;
        let mut preprocessed = false;
        if lib.preprocess {
            let (wp, _) = workspace.device_ptr_mut(stream);
            // SAFETY: as above, with the workspace of the size asked for.
            let status = unsafe {
                sys::cusparseSpMV_preprocess(
                    lib.handle,
                    sys::cusparseOperation_t::CUSPARSE_OPERATION_NON_TRANSPOSE,
                    scalar(&one),
                    d.a as sys::cusparseConstSpMatDescr_t,
                    d.x as sys::cusparseConstDnVecDescr_t,
                    scalar(&zero),
                    d.y,
                    T::DATA_TYPE,
                    alg.sys(),
                    wp as *mut c_void,
                )
            };
            // An algorithm without a preprocessing step may say so.
            preprocessed = status == sys::cusparseStatus_t::CUSPARSE_STATUS_SUCCESS;
            if !preprocessed && status != sys::cusparseStatus_t::CUSPARSE_STATUS_NOT_SUPPORTED {
                return Err(status_error("cusparseSpMV_preprocess", status));
            }
        }
        Ok(CusparseSpmv {
            descriptors: d,
            matrix,
            workspace,
            alg,
            preprocessed,
        })
    }

    /// `cusparse-alg1`, with `+pre` when the product was preprocessed.
    pub fn label(&self) -> String {
        let pre = if self.preprocessed { "+pre" } else { "" };
        format!("{}{pre}", self.alg.name())
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
        let d = &self.descriptors;
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
                sys::cusparseDnVecSetValues(d.x, xp as *mut c_void),
            )?;
            check(
                "cusparseDnVecSetValues",
                sys::cusparseDnVecSetValues(d.y, yp as *mut c_void),
            )?;
            check(
                "cusparseSpMV",
                sys::cusparseSpMV(
                    lib.handle,
                    sys::cusparseOperation_t::CUSPARSE_OPERATION_NON_TRANSPOSE,
                    scalar(&one),
                    d.a as sys::cusparseConstSpMatDescr_t,
                    d.x as sys::cusparseConstDnVecDescr_t,
                    scalar(&zero),
                    d.y,
                    T::DATA_TYPE,
                    self.alg.sys(),
                    wp as *mut c_void,
                ),
            )
        }
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
