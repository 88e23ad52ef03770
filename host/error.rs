//! The library's error type: every failure names what went wrong and where
//! (file and line for input, row and column for matrix data, sizes for limits).
//!
//! The policy (which failures are an [`Error`] and which panic) is written
//! once, in the crate's documentation: [Errors](crate#errors).

use std::fmt;
use std::path::PathBuf;

/// Every recoverable failure in spmx.
///
/// Each message is complete on its own: [`Error::Io`] prints the operating
/// system's reason after the path, so it is not also returned as
/// [`source`](std::error::Error::source) (a reporter that prints the chain,
/// as `anyhow`'s `{:#}` does, would print the reason twice).
#[derive(Debug)]
pub enum Error {
    /// The operating system refused a read or write.
    Io {
        /// The file or device it was asked of.
        path: PathBuf,
        /// The operating system's reason.
        source: std::io::Error,
    },
    /// Malformed or unsupported input text, at a known line (1-based).
    Parse {
        /// The file (or stream) read.
        file: String,
        /// The line, counted from 1.
        line: u64,
        /// What is wrong with it.
        reason: String,
    },
    /// Parts handed to a format constructor break its invariants, or a
    /// value lies outside a semiring's domain.
    Invalid {
        /// The format (or semiring) whose invariant is broken.
        format: &'static str,
        /// Which one, and where.
        reason: String,
    },
    /// Operands that do not fit the operation: a broken contract, such as
    /// a 2×3 times a 4×2, or an `x` of the wrong length. The message
    /// names the check and both shapes, e.g.
    /// `spgemm: A.ncols() != B.nrows() (2×3 times 4×2)`; the operators
    /// ([`ops::operators`](crate::ops::operators)) panic with the same text.
    Mismatch {
        /// The operation (`spgemm`, `spmv`, `spmm`, `ewise_add`, ...).
        op: &'static str,
        /// The check that failed, with both shapes.
        reason: String,
    },
    /// A size that cannot be represented or allocated, with the numbers.
    TooLarge(String),
    /// One MPI rank failed; every rank returns this, so all exit together.
    Rank {
        /// The rank that failed, counted from 0.
        rank: usize,
        /// How many ranks ran.
        ranks: usize,
        /// That rank's error.
        message: String,
    },
    /// The requested engine cannot run here (not built in, no device, ...).
    Unavailable {
        /// The engine asked for.
        engine: &'static str,
        /// Why it cannot run.
        reason: String,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Io { path, source } => {
                let path = crate::io::printable(&path.to_string_lossy()).into_owned();
                write!(f, "{path}: {source}")
            }
            Error::Parse { file, line, reason } => write!(f, "{file}:{line}: {reason}"),
            Error::Invalid { format, reason } => write!(f, "invalid {format} matrix: {reason}"),
            Error::Mismatch { op, reason } => write!(f, "{op}: {reason}"),
            Error::TooLarge(what) => write!(f, "too large: {what}"),
            Error::Rank {
                rank,
                ranks,
                message,
            } => write!(f, "rank {rank} of {ranks}: {message}"),
            Error::Unavailable { engine, reason } => {
                write!(f, "the {engine} engine is not available: {reason}")
            }
        }
    }
}

impl std::error::Error for Error {}

/// `Result` with spmx's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// An [`Error::Invalid`] for `format`, saying `reason`.
    pub fn invalid(format: &'static str, reason: impl Into<String>) -> Self {
        Error::Invalid {
            format,
            reason: reason.into(),
        }
    }

    /// An [`Error::Mismatch`] of `op`, saying which check failed on which
    /// shapes.
    pub fn mismatch(op: &'static str, reason: impl Into<String>) -> Self {
        Error::Mismatch {
            op,
            reason: reason.into(),
        }
    }
}
