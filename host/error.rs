//! The library's error type: every failure names what went wrong and where
//! (file and line for input, row and column for matrix data, sizes for limits).
//!
//! Policy (after sprs' guidelines): bad *data* — a file, user-supplied parts,
//! a size that cannot be met — is an [`Error`]. A broken *contract* between
//! pieces of code that already hold valid matrices (multiplying a 3×4 by a
//! 5×2) panics with a message naming the check.

use std::path::PathBuf;

/// Every recoverable failure in spmx.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The operating system refused a read or write.
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// Malformed or unsupported input text, at a known line (1-based).
    #[error("{file}:{line}: {reason}")]
    Parse {
        file: String,
        line: u64,
        reason: String,
    },
    /// Parts handed to a format constructor break its invariants.
    #[error("invalid {format} matrix: {reason}")]
    Invalid {
        format: &'static str,
        reason: String,
    },
    /// A size that cannot be represented or allocated, with the numbers.
    #[error("too large: {0}")]
    TooLarge(String),
    /// One MPI rank failed; every rank returns this, so all exit together.
    #[error("rank {rank} of {ranks}: {message}")]
    Rank {
        rank: usize,
        ranks: usize,
        message: String,
    },
    /// The requested engine cannot run here (not built in, no device, ...).
    #[error("the {engine} engine is not available: {reason}")]
    Unavailable {
        engine: &'static str,
        reason: String,
    },
}

/// `Result` with spmx's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub(crate) fn invalid(format: &'static str, reason: impl Into<String>) -> Self {
        Error::Invalid {
            format,
            reason: reason.into(),
        }
    }
}
