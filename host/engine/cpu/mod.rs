//! The cpu engine: the row kernels of [`shared`](super::shared) spread over
//! all cores with rayon. Rows are split into chunks of equal *work*
//! (nonzeros for SpMV and SpMM, products for SpGEMM), never equal row
//! counts, so a few long rows cannot stall one thread. Each row is computed
//! exactly as the serial engine computes it, so results do not depend on
//! the number of threads.

pub mod ewise;
pub mod masked;
pub mod spgemm;
pub mod spmm;
pub mod spmv;
pub mod transpose;

pub use spgemm::spgemm;
pub use spmm::spmm;
