//! The invariant check shared by the two compressed formats: CSR (rows of
//! sorted columns) and CSC (columns of sorted rows) differ only in which
//! axis is "major", so one validator names the axes and serves both.

use crate::error::{Error, Result};
use crate::format::MAX_DIM;

/// Names of the axes in messages: CSR is (row, column), CSC (column, row).
pub(crate) struct Axes {
    pub format: &'static str,
    pub major: &'static str,
    pub minor: &'static str,
    pub ptr: &'static str,
    /// Names of the two counts: `nrows` / `ncols`.
    pub count_major: &'static str,
    pub count_minor: &'static str,
}

pub(crate) const CSR_AXES: Axes = Axes {
    format: "CSR",
    major: "row",
    minor: "column",
    ptr: "row_ptr",
    count_major: "nrows",
    count_minor: "ncols",
};

pub(crate) const CSC_AXES: Axes = Axes {
    format: "CSC",
    major: "column",
    minor: "row",
    ptr: "col_ptr",
    count_major: "ncols",
    count_minor: "nrows",
};

/// Checks a compressed layout, naming the first broken invariant: shape
/// within `MAX_DIM`, `n_major + 1` pointers starting at 0, never
/// decreasing, ending at the entry count; minor indices in range and
/// strictly increasing within each major line.
pub(crate) fn validate(
    axes: &Axes,
    (nrows, ncols): (usize, usize),
    n_major: usize,
    n_minor: usize,
    ptr: &[usize],
    idx: &[u32],
    nvalues: usize,
) -> Result<()> {
    let Axes {
        major,
        minor,
        ptr: ptr_name,
        count_major,
        count_minor,
        ..
    } = axes;
    let bad = |reason: String| Err(Error::invalid(axes.format, reason));
    if nrows > MAX_DIM || ncols > MAX_DIM {
        return bad(format!(
            "shape {nrows}×{ncols} exceeds the largest dimension {MAX_DIM}"
        ));
    }
    if ptr.len() != n_major + 1 {
        return bad(format!(
            "{ptr_name} has {} entries, expected {count_major} + 1 = {}",
            ptr.len(),
            n_major + 1
        ));
    }
    if ptr[0] != 0 {
        return bad(format!("{ptr_name}[0] is {}, expected 0", ptr[0]));
    }
    if idx.len() != nvalues {
        return bad(format!(
            "{} {minor} indices but {nvalues} values",
            idx.len()
        ));
    }
    if ptr[n_major] != idx.len() {
        return bad(format!(
            "{ptr_name}[{n_major}] is {} but there are {} entries",
            ptr[n_major],
            idx.len()
        ));
    }
    for i in 0..n_major {
        let (start, end) = (ptr[i], ptr[i + 1]);
        if end < start {
            return bad(format!(
                "{ptr_name} decreases at {major} {i} ({start} then {end})"
            ));
        }
        if end > idx.len() {
            return bad(format!(
                "{ptr_name}[{}] is {end}, past the {} entries",
                i + 1,
                idx.len()
            ));
        }
        let line = &idx[start..end];
        for (k, &c) in line.iter().enumerate() {
            if c as usize >= n_minor {
                return bad(format!(
                    "{major} {i}: {minor} {c} out of range ({count_minor} = {n_minor})"
                ));
            }
            if k > 0 && line[k - 1] >= c {
                let what = if line[k - 1] == c {
                    format!("duplicate {minor}")
                } else {
                    format!("{minor}s not sorted")
                };
                return bad(format!("{major} {i}: {what} ({} then {c})", line[k - 1]));
            }
        }
    }
    Ok(())
}
