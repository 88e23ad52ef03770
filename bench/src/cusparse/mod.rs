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
//!
//! | module | what |
//! |--------|------|
//! | this one | the handle, the value types, A's descriptor, status checks |
//! | `spmv` | [`SpmvAlg`], [`CusparseSpmv`] |
//! | `spmm` | [`SpmmAlg`], [`CusparseSpmm`] |
//! | `spgemm` | [`CusparseSpgemm`], [`CusparseSpgemmReuse`] |
//!
//! [`DenseLayout`]: spmx::engine::cuda::spmm::DenseLayout

mod spgemm;
mod spmm;
mod spmv;

pub use spgemm::{CusparseSpgemm, CusparseSpgemmReuse};
pub use spmm::{CusparseSpmm, SpmmAlg};
pub use spmv::{CusparseSpmv, SpmvAlg};

use std::ffi::c_void;

use cudarc::cusparse::sys;
use cudarc::driver::DevicePtr;

use spmx::Scalar;
use spmx::engine::cuda::Gpu;
use spmx::engine::cuda::matrix::DevCsr;
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
