//! The library's error type: every failure names what went wrong and where
//! (file and line for input, row and column for matrix data, sizes for limits).
//!
//! Policy (after sprs' guidelines): bad *data* — a file, user-supplied parts,
//! a size that cannot be met — is an [`Error`]. A broken *contract* between
//! pieces of code that already hold valid matrices (multiplying a 3×4 by a
//! 5×2) panics with a message naming the check.

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
        path: PathBuf,
        source: std::io::Error,
    },
    /// Malformed or unsupported input text, at a known line (1-based).
    Parse {
        file: String,
        line: u64,
        reason: String,
    },
    /// Parts handed to a format constructor break its invariants.
    Invalid {
        format: &'static str,
        reason: String,
    },
    /// A size that cannot be represented or allocated, with the numbers.
    TooLarge(String),
    /// One MPI rank failed; every rank returns this, so all exit together.
    Rank {
        rank: usize,
        ranks: usize,
        message: String,
    },
    /// The requested engine cannot run here (not built in, no device, ...).
    Unavailable {
        engine: &'static str,
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
}
