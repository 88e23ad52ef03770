//! spmx's errors as Python exceptions, each with spmx's message: bad input
//! (a file's line, parts that break CSR's invariants, shapes that do not
//! fit, a value outside a semiring's domain) is `ValueError`; a size that
//! does not fit memory is [`OutOfMemoryError`], a `MemoryError` carrying
//! the bytes needed and available where the message gives them; what an
//! engine does not have, or cannot run here, is `NotImplementedError`; the
//! operating system's refusals are `OSError` (`FileNotFoundError`,
//! `PermissionError`).

use pyo3::exceptions::{
    PyFileNotFoundError, PyMemoryError, PyNotImplementedError, PyOSError, PyPermissionError,
    PyRuntimeError, PyValueError,
};
use pyo3::prelude::*;
use spmx::Error;

pyo3::create_exception!(
    _spmx,
    OutOfMemoryError,
    PyMemoryError,
    "A product or an array does not fit in host or GPU memory. `needed` and \
     `available` are the bytes spmx's message gives (None where it gives none)."
);

/// `e` as the Python exception of its kind (see the module docs).
pub fn to_py(py: Python<'_>, e: Error) -> PyErr {
    let message = e.to_string();
    match e {
        Error::Io { source, .. } => match source.kind() {
            std::io::ErrorKind::NotFound => PyFileNotFoundError::new_err(message),
            std::io::ErrorKind::PermissionDenied => PyPermissionError::new_err(message),
            _ => PyOSError::new_err(message),
        },
        Error::Parse { .. } | Error::Invalid { .. } | Error::Mismatch { .. } => {
            PyValueError::new_err(message)
        }
        Error::TooLarge(_) => out_of_memory(py, message),
        Error::Unavailable { .. } => PyNotImplementedError::new_err(message),
        Error::Rank { .. } => PyRuntimeError::new_err(message),
    }
}

/// An [`OutOfMemoryError`] with `needed` and `available` read from the
/// message.
fn out_of_memory(py: Python<'_>, message: String) -> PyErr {
    let (needed, available) = (needed_bytes(&message), available_bytes(&message));
    let err = OutOfMemoryError::new_err(message);
    let value = err.value(py);
    // Setting an attribute on a fresh exception instance cannot fail.
    let _ = value.setattr("needed", needed);
    let _ = value.setattr("available", available);
    err
}

/// The number that ends just before `marker`, or starts just after it.
fn number_around(message: &str, marker: &str, after: bool) -> Option<u64> {
    let at = message.find(marker)?;
    let digits: String = if after {
        message[at + marker.len()..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect()
    } else {
        let before: Vec<char> = message[..at]
            .chars()
            .rev()
            .take_while(char::is_ascii_digit)
            .collect();
        before.into_iter().rev().collect()
    };
    digits.parse().ok()
}

/// The bytes a `too large` message says are needed. The crate's messages
/// say them so: `C = A·B … its arrays need N bytes`, `N bytes of GPU
/// memory requested`, `… = N bytes (…)` (an array), `holding them takes
/// N bytes` (a file's size line).
fn needed_bytes(message: &str) -> Option<u64> {
    number_around(message, " bytes of GPU memory requested", false).or_else(|| {
        ["need ", "takes ", "= "]
            .iter()
            .find_map(|m| number_around(message, m, true))
    })
}

/// The bytes a `too large` message says are available: `more than the N
/// bytes`, `more than this machine's N bytes`, `requested; N of T bytes
/// free` (the GPU).
fn available_bytes(message: &str) -> Option<u64> {
    ["more than the ", "more than this machine's ", "requested; "]
        .iter()
        .find_map(|m| number_around(message, m, true))
}
