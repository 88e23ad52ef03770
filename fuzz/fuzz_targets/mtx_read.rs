//! Fuzzes the MatrixMarket reader: any bytes must give a matrix or an error
//! (parse, I/O, or a size line larger than memory), never a panic; a
//! matrix must convert to a canonical CSR and survive a write and read back
//! unchanged.
//!
//! The first byte picks the options: bit 0 the index base, bit 1 drop_invalid.

#![no_main]

use libfuzzer_sys::fuzz_target;
use spmx::io::{Field, IndexBase, ReadOptions, read_mtx_from, write_mtx_to};
use spmx::{Csr, Error};

/// Conversion to CSR allocates a row pointer per row; larger shapes are
/// read but not converted, so the fuzzer does not run out of memory.
const MAX_CONVERTED_ROWS: usize = 1 << 20;

fuzz_target!(|data: &[u8]| {
    let Some((&flags, text)) = data.split_first() else {
        return;
    };
    let opts = ReadOptions {
        index_base: if flags & 1 == 0 { IndexBase::One } else { IndexBase::Zero },
        drop_invalid: flags & 2 != 0,
    };
    let m = match read_mtx_from::<f64, _>(text, "fuzz", &opts) {
        Ok(m) => m,
        Err(Error::Parse { file, .. }) => {
            assert_eq!(file, "fuzz");
            return;
        }
        Err(Error::Io { .. }) => return,
        // A size line declaring more entries than this machine's memory holds.
        Err(Error::TooLarge(why)) => {
            assert!(why.starts_with("fuzz:") && why.contains("the size line declares"), "{why}");
            return;
        }
        Err(e) => panic!("unexpected error kind: {e}"),
    };
    assert!(m.dropped == 0 || opts.drop_invalid);
    if m.coo.nrows() > MAX_CONVERTED_ROWS || m.coo.ncols() > MAX_CONVERTED_ROWS {
        return;
    }
    let csr = m.coo.to_csr();
    let (nrows, ncols, row_ptr, col_idx, values) = csr.clone().into_parts();
    Csr::try_new(nrows, ncols, row_ptr, col_idx, values).expect("COO → CSR is canonical");

    let mut text = Vec::new();
    write_mtx_to(&mut text, &csr, Field::Real).expect("writing real values cannot fail");
    let back = read_mtx_from::<f64, _>(&text[..], "written", &Default::default())
        .unwrap_or_else(|e| panic!("reading back what was written: {e}"))
        .coo
        .to_csr();
    assert_eq!(back.shape(), csr.shape());
    assert_eq!(back.row_ptr(), csr.row_ptr());
    assert_eq!(back.col_idx(), csr.col_idx());
    // Bits, except that every NaN reads back as the one NaN the writer prints.
    for (a, b) in back.values().iter().zip(csr.values()) {
        assert!(a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()), "{a:?} != {b:?}");
    }
});
