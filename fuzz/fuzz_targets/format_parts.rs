//! Fuzzes every format's constructor from raw parts (`try_new`): any parts
//! must give a matrix or an error, never a panic; a matrix accepted must be
//! what its parts say. It converts to a canonical CSR, and SpMV on it gives
//! the bits SpMV on that CSR gives (over min-plus, whose sums are exact in
//! any order; for COO, the CSR with duplicates combined by min, since COO's
//! SpMV takes each duplicate as a product of its own: the first run found
//! that difference, and `tests/formats.rs` keeps its input).
//!
//! The first byte picks the format; the rest are read with
//! `arbitrary::Unstructured`: small dimensions, then each array.

#![no_main]

use arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use spmx::format::{Bsr, Coo, Csc, Csr, ELL_PAD, Ell, Hyb, Sell, SellParts};
use spmx::ops::SpmvFormat;
use spmx::{Engine, MinPlus, Semiring};

/// Dimensions up to this: enough for every odd shape, small enough to run fast.
const MAX_DIM: usize = 12;

fuzz_target!(|data: &[u8]| {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    let mut u = Unstructured::new(rest);
    let _ = match which % 7 {
        0 => csr(&mut u).map(|m| m.map(|a| check(&a, &a))),
        // COO's SpMV takes each duplicate as a product of its own, which is
        // the CSR whose duplicates were combined with the semiring's add.
        1 => coo(&mut u).map(|m| m.map(|a| check(&a, &a.to_csr_with(MinPlus::<f64>::add)))),
        2 => csc(&mut u).map(|m| m.map(|a| check(&a, &a.to_csr()))),
        3 => ell(&mut u).map(|m| m.map(|a| check(&a, &a.to_csr()))),
        4 => hyb(&mut u).map(|m| m.map(|a| check(&a, &a.to_csr()))),
        5 => sell(&mut u).map(|m| m.map(|a| check(&a, &a.to_csr()))),
        _ => bsr(&mut u).map(|m| m.map(|a| check(&a, &a.to_csr()))),
    };
});

/// `csr` is canonical, and `a` multiplies as `csr` does.
fn check<F: SpmvFormat<f64>>(a: &F, csr: &Csr<f64>) {
    let (m, n, row_ptr, col_idx, values) = csr.clone().into_parts();
    Csr::try_new(m, n, row_ptr, col_idx, values).expect("to_csr gives a canonical CSR");
    let x: Vec<f64> = (0..n).map(|j| (j % 5) as f64 - 2.0).collect();
    let want = spmx::ops::spmv::<MinPlus<f64>>(csr, &x, Engine::Serial).unwrap();
    let got = spmx::ops::spmv::<MinPlus<f64>>(a, &x, Engine::Serial).unwrap();
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&got), bits(&want), "SpMV on the format and on its CSR differ");
}

fn dim(u: &mut Unstructured) -> Result<usize> {
    u.int_in_range(0..=MAX_DIM)
}

/// A length-prefixed array of small values (so that in-range indices are common).
fn small<T: From<u8>>(u: &mut Unstructured, max: u8) -> Result<Vec<T>> {
    let len = u.int_in_range(0..=4 * MAX_DIM * MAX_DIM)?;
    (0..len).map(|_| Ok(T::from(u.int_in_range(0..=max)?))).collect()
}

/// Values: small integers, so every sum is exact.
fn values(u: &mut Unstructured) -> Result<Vec<f64>> {
    let len = u.int_in_range(0..=4 * MAX_DIM * MAX_DIM)?;
    (0..len).map(|_| Ok(f64::from(u.int_in_range(-8i8..=8)?))).collect()
}

/// Row or column pointers: often increasing, sometimes anything.
fn pointers(u: &mut Unstructured) -> Result<Vec<usize>> {
    let len = u.int_in_range(0..=MAX_DIM + 2)?;
    let mut at = 0usize;
    (0..len)
        .map(|_| {
            at += usize::from(u.int_in_range(0u8..=6)?);
            Ok(if u.ratio(1, 16)? { usize::from(u.arbitrary::<u8>()?) } else { at })
        })
        .collect()
}

fn csr(u: &mut Unstructured) -> Result<Option<Csr<f64>>> {
    let (m, n) = (dim(u)?, dim(u)?);
    Ok(Csr::try_new(m, n, pointers(u)?, small(u, 14)?, values(u)?).ok())
}

fn coo(u: &mut Unstructured) -> Result<Option<Coo<f64>>> {
    let (m, n) = (dim(u)?, dim(u)?);
    Ok(Coo::try_new(m, n, small(u, 14)?, small(u, 14)?, values(u)?).ok())
}

fn csc(u: &mut Unstructured) -> Result<Option<Csc<f64>>> {
    let (m, n) = (dim(u)?, dim(u)?);
    Ok(Csc::try_new(m, n, pointers(u)?, small(u, 14)?, values(u)?).ok())
}

fn ell(u: &mut Unstructured) -> Result<Option<Ell<f64>>> {
    let (m, n, w) = (dim(u)?, dim(u)?, u.int_in_range(0..=6)?);
    let mut cols: Vec<u32> = small(u, 14)?;
    // The padding marker, sometimes.
    for c in cols.iter_mut() {
        if u.ratio(1, 4)? {
            *c = ELL_PAD;
        }
    }
    Ok(Ell::try_new(m, n, w, cols, values(u)?).ok())
}

fn hyb(u: &mut Unstructured) -> Result<Option<Hyb<f64>>> {
    let (Some(ell), Some(coo)) = (ell(u)?, coo(u)?) else {
        return Ok(None);
    };
    Ok(Hyb::try_new(ell, coo).ok())
}

fn sell(u: &mut Unstructured) -> Result<Option<Sell<f64>>> {
    let parts = SellParts {
        nrows: dim(u)?,
        ncols: dim(u)?,
        c: u.int_in_range(0..=5)?,
        sigma: u.int_in_range(0..=8)?,
        perm: small(u, 14)?,
        slice_ptr: pointers(u)?,
        slice_width: small(u, 6)?,
        col_idx: small(u, 14)?,
        values: values(u)?,
    };
    Ok(Sell::try_new(parts).ok())
}

fn bsr(u: &mut Unstructured) -> Result<Option<Bsr<f64>>> {
    let (m, n, b) = (dim(u)?, dim(u)?, u.int_in_range(0..=4)?);
    let masks = (0..u.int_in_range(0..=MAX_DIM)?)
        .map(|_| u.arbitrary::<u16>().map(u64::from))
        .collect::<Result<Vec<_>>>()?;
    Ok(Bsr::try_new(m, n, b, pointers(u)?, small(u, 6)?, values(u)?, masks).ok())
}
