//! Fuzzes format conversions: a random small CSR (any shape, empty rows,
//! explicit zeros, −0, NaN) converted to every format with fuzzed
//! parameters and back must be the same matrix, bit for bit; a conversion
//! may refuse parameters only with an error, never a panic.

#![no_main]

use arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use spmx::format::{Bsr, Coo, Csc, Csr, Dense, Ell, Hyb, Sell};

const MAX_DIM: u32 = 40;

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(a) = matrix(&mut u) else { return };
    let Ok(params) = Params::draw(&mut u) else { return };
    same(&a, &a.to_coo().to_csr(), "COO");
    same(&a, &Csc::from_csr(&a).to_csr(), "CSC");
    same(&a, &a.transpose().transpose(), "transpose twice");
    if let Ok(ell) = Ell::from_csr_with_width(&a, params.width) {
        same(&a, &ell.to_csr(), "ELL");
    }
    if let Ok(ell) = Ell::from_csr(&a) {
        same(&a, &ell.to_csr(), "ELL (widest row)");
    }
    if let Ok(hyb) = Hyb::from_csr_with_width(&a, params.width) {
        same(&a, &hyb.to_csr(), "HYB");
    }
    same(&a, &Hyb::from_csr(&a).to_csr(), "HYB (automatic width)");
    if let Ok(sell) = Sell::from_csr(&a, params.c, params.sigma) {
        same(&a, &sell.to_csr(), "SELL");
    }
    if let Ok(bsr) = Bsr::from_csr(&a, params.b) {
        same(&a, &bsr.to_csr(), "BSR");
    }
    // Dense keeps every value; entries equal to the fill come back absent,
    // so compare with a fill no entry has.
    if let Ok(d) = Dense::from_csr(&a, f64::INFINITY) {
        same(&a, &d.to_csr(f64::INFINITY), "dense");
    }
});

struct Params {
    width: usize,
    c: usize,
    sigma: usize,
    b: usize,
}

impl Params {
    fn draw(u: &mut Unstructured) -> Result<Params> {
        Ok(Params {
            width: u.int_in_range(0..=12)?,
            c: u.int_in_range(0..=9)?,
            sigma: u.int_in_range(0..=70)?,
            b: u.int_in_range(0..=9)?,
        })
    }
}

/// A CSR from fuzzed coordinates (duplicates keep the first value).
fn matrix(u: &mut Unstructured) -> Result<Csr<f64>> {
    let (m, n) = (u.int_in_range(0..=MAX_DIM)?, u.int_in_range(0..=MAX_DIM)?);
    let mut coo = Coo::new(m as usize, n as usize).expect("a small shape");
    if m > 0 && n > 0 {
        for _ in 0..u.int_in_range(0..=4 * (m + n))? {
            let (r, c) = (u.int_in_range(0..=m - 1)?, u.int_in_range(0..=n - 1)?);
            let v = match u.int_in_range(0u8..=4)? {
                0 => 0.0,
                1 => -0.0,
                2 => f64::NAN,
                _ => f64::from(u.int_in_range(-100i16..=100)?) / 8.0,
            };
            coo.push(r as usize, c as usize, v).expect("in range");
        }
    }
    Ok(coo.to_csr_with(|first, _| first))
}

#[track_caller]
fn same(a: &Csr<f64>, b: &Csr<f64>, via: &str) {
    assert_eq!(a.shape(), b.shape(), "{via}: shape");
    assert_eq!(a.row_ptr(), b.row_ptr(), "{via}: row pointers");
    assert_eq!(a.col_idx(), b.col_idx(), "{via}: columns");
    let bits = |m: &Csr<f64>| m.values().iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(a), bits(b), "{via}: value bits");
}
