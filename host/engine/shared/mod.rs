//! What the engines share, below all of them: the row kernels that form
//! rows of each operation's result, the checks of their operands, the
//! split of rows into chunks of equal work, and SpGEMM's accumulators,
//! workspaces and fresh memory. Engines import from here, never from one
//! another.
//!
//! The serial engine runs these kernels over all rows on the calling
//! thread; the cpu engine runs the same kernels on chunks of rows across
//! its threads, so the two give the same bits; the cuda engine and the mpi
//! ranks take their checks and splits from here too.

pub mod accumulator;
pub mod ewise;
pub mod fresh;
pub mod masked;
pub mod partition;
pub mod spgemm;
pub mod spmm;
pub mod spmv;
pub mod workspace;
