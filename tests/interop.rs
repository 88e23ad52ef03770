//! Conversions to and from other crates' matrices (features `sprs`,
//! `nalgebra`, `ndarray`; all three, one section each): round trips
//! bit for bit on random matrices of every scalar type (0×0, empty rows,
//! rectangular, a dense row, explicit zeros and −0), the moves that must
//! not copy (the same buffer comes back), the transposing paths checked
//! against the other crate's own transpose, and the errors.
#![cfg(all(feature = "sprs", feature = "nalgebra", feature = "ndarray"))]

mod common;

use common::{TestScalar, arb_csr, assert_identical};
use proptest::prelude::*;
use spmx::format::{Csc, MAX_DIM};
use spmx::{Csr, Error};

/// Cases per property: small matrices, so a few hundred run quickly.
const CASES: u32 = 128;

/// Runs `check` on `f64`, `f32` and `bool` matrices of up to 9×11.
macro_rules! for_each_scalar {
    ($($name:ident => $check:ident;)*) => {
        proptest! {
            #![proptest_config(ProptestConfig::with_cases(CASES))]
            $(
                #[test]
                fn $name(a64 in arb_csr::<f64>(9, 11), a32 in arb_csr::<f32>(9, 11), ab in arb_csr::<bool>(9, 11)) {
                    $check(a64);
                    $check(a32);
                    $check(ab);
                }
            )*
        }
    };
}

mod sprs_conversions {
    use super::*;
    use sprs::{CsMat, CsMatI, CsMatView};

    /// Csr → CSR-stored sprs → Csr moves the arrays both ways; through
    /// sprs's own CSC (its transpose) into Csr and Csc and back.
    fn round_trips<T: TestScalar>(a: Csr<T>) {
        let moved = a.clone();
        let values = moved.values().as_ptr();
        let m = CsMatI::<T, u32, usize>::from(moved);
        assert!(m.is_csr());
        assert_eq!(m.data().as_ptr(), values, "Csr → sprs copied the values");
        let csc_stored = m.to_csc();
        assert_identical(&Csc::try_from(m.clone()).unwrap().to_csr(), &a);
        let back = Csr::try_from(m).unwrap();
        assert_eq!(
            back.values().as_ptr(),
            values,
            "sprs → Csr copied the values"
        );
        assert_identical(&back, &a);

        assert_identical(&Csr::try_from(csc_stored.clone()).unwrap(), &a);
        let (want, values) = (csc_stored.clone(), csc_stored.data().as_ptr());
        let csc = Csc::try_from(csc_stored).unwrap();
        assert_eq!(
            csc.values().as_ptr(),
            values,
            "sprs → Csc copied the values"
        );
        assert_identical(&csc.to_csr(), &a);
        let again = CsMatI::<T, u32, usize>::from(csc);
        assert!(again.is_csc());
        assert_eq!(
            again.data().as_ptr(),
            values,
            "Csc → sprs copied the values"
        );
        assert_eq!(again, want);
    }

    /// Views of sprs's usual `CsMat<T>` (`usize` indices), either order,
    /// copy into Csr and Csc.
    fn views_copy<T: TestScalar>(a: Csr<T>) {
        let m: CsMat<T> = CsMatI::<T, u32, usize>::from(a.clone()).to_other_types();
        assert_identical(&Csr::try_from(m.view()).unwrap(), &a);
        assert_identical(&Csc::try_from(m.view()).unwrap().to_csr(), &a);
        let csc_stored = m.to_csc();
        assert_identical(&Csr::try_from(csc_stored.view()).unwrap(), &a);
        assert_identical(&Csc::try_from(csc_stored.view()).unwrap().to_csr(), &a);
    }

    for_each_scalar! {
        sprs_round_trips_bit_for_bit => round_trips;
        sprs_views_copy_bit_for_bit => views_copy;
    }

    #[test]
    fn pointers_that_start_past_zero_are_shifted() {
        // A 2×3 matrix whose entries are (0, 0) and (1, 2), cut from a
        // larger one: sprs keeps the pointers' offset.
        let m =
            CsMatI::<f64, u32, usize>::try_new((2, 3), vec![5, 6, 7], vec![0, 2], vec![1.0, -0.0])
                .unwrap();
        let want = Csr::try_new(2, 3, vec![0, 1, 2], vec![0, 2], vec![1.0, -0.0]).unwrap();
        assert_identical(&Csr::try_from(m.clone()).unwrap(), &want);
        assert_identical(&Csr::try_from(m.view()).unwrap(), &want);
        let big = CsMat::new(
            (4, 3),
            vec![0, 2, 3, 4, 6],
            vec![0, 1, 0, 2, 1, 2],
            vec![1., 2., 3., 4., 5., 6.],
        );
        let rows_1_2 = big.slice_outer(1..3);
        let want = Csr::try_new(2, 3, vec![0, 1, 2], vec![0, 2], vec![3.0, 4.0]).unwrap();
        assert_identical(&Csr::try_from(rows_1_2).unwrap(), &want);
    }

    #[test]
    fn an_index_past_u32_is_an_error_naming_it() {
        let cols = 1usize << 33;
        let m = CsMatView::new((1, cols), &[0, 1], &[5_000_000_000usize], &[1.0]);
        let e = Csr::try_from(m).unwrap_err();
        assert!(matches!(e, Error::Invalid { format: "CSR", .. }), "{e}");
        assert!(e.to_string().contains("5000000000"), "{e}");
        let e = Csc::try_from(m.transpose_view()).unwrap_err();
        assert!(matches!(e, Error::Invalid { format: "CSC", .. }), "{e}");
    }

    #[test]
    fn a_shape_past_spmx_dimensions_is_an_error() {
        let m = CsMatView::<f64>::new((1, MAX_DIM + 1), &[0, 0], &[], &[]);
        let e = Csr::try_from(m).unwrap_err();
        assert!(matches!(e, Error::Invalid { .. }), "{e}");
        assert!(e.to_string().contains("exceeds"), "{e}");
    }
}

mod nalgebra_conversions {
    use super::*;
    use nalgebra_sparse::{CscMatrix, CsrMatrix};

    /// Csr ⇄ CsrMatrix and Csc ⇄ CscMatrix: the pointers and values move,
    /// the indices are the same numbers.
    fn round_trips<T: TestScalar>(a: Csr<T>) {
        let moved = a.clone();
        let (row_ptr, values) = (moved.row_ptr().as_ptr(), moved.values().as_ptr());
        let m = CsrMatrix::from(moved);
        assert_eq!(
            (m.row_offsets().as_ptr(), m.values().as_ptr()),
            (row_ptr, values)
        );
        assert_eq!((m.nrows(), m.ncols()), a.shape());
        let widened: Vec<usize> = a.col_idx().iter().map(|&c| c as usize).collect();
        assert_eq!(m.col_indices(), widened);
        let back = Csr::try_from(m).unwrap();
        assert_eq!(
            (back.row_ptr().as_ptr(), back.values().as_ptr()),
            (row_ptr, values)
        );
        assert_identical(&back, &a);

        // spmx's CSC is nalgebra-sparse's conversion of the same CSR.
        let c = CscMatrix::from(Csc::from_csr(&a));
        let want = CscMatrix::from(&CsrMatrix::from(a.clone()));
        assert_eq!(
            (c.col_offsets(), c.row_indices()),
            (want.col_offsets(), want.row_indices())
        );
        let bits = |m: &CscMatrix<T>| m.values().iter().map(|&v| v.bits()).collect::<Vec<_>>();
        assert_eq!(bits(&c), bits(&want));
        assert_identical(&Csc::try_from(c).unwrap().to_csr(), &a);
    }

    for_each_scalar! {
        nalgebra_round_trips_bit_for_bit => round_trips;
    }

    #[test]
    fn an_index_past_u32_is_an_error_naming_it() {
        let m =
            CsrMatrix::try_from_csr_data(1, 1 << 33, vec![0, 1], vec![5_000_000_000], vec![1.0])
                .unwrap();
        let e = Csr::try_from(m).unwrap_err();
        assert!(matches!(e, Error::Invalid { format: "CSR", .. }), "{e}");
        assert!(e.to_string().contains("5000000000"), "{e}");
        let m =
            CscMatrix::try_from_csc_data(1 << 33, 1, vec![0, 1], vec![5_000_000_000], vec![1.0])
                .unwrap();
        let e = Csc::try_from(m).unwrap_err();
        assert!(matches!(e, Error::Invalid { format: "CSC", .. }), "{e}");
    }

    #[test]
    fn a_shape_past_spmx_dimensions_is_an_error() {
        let m =
            CsrMatrix::try_from_csr_data(1, MAX_DIM + 1, vec![0, 1], vec![3], vec![true]).unwrap();
        let e = Csr::try_from(m).unwrap_err();
        assert!(matches!(e, Error::Invalid { .. }), "{e}");
        assert!(e.to_string().contains("exceeds"), "{e}");
    }
}

mod ndarray_conversions {
    use super::*;
    use common::arb_shape;
    use ndarray::{Array1, Array2, ArrayView2, ShapeBuilder, s};
    use spmx::format::Dense;
    use spmx::interop::ndarray::spmv;
    use spmx::{Engine, PlusTimes};

    /// A dense matrix of random values, of a shape up to 7×8.
    fn arb_dense<T: TestScalar>() -> impl Strategy<Value = Dense<T>> {
        arb_shape(7, 8).prop_flat_map(|(m, n)| {
            prop::collection::vec(T::arb(), m * n)
                .prop_map(move |v| Dense::try_new(m, n, v).unwrap())
        })
    }

    #[track_caller]
    fn assert_same_bits<T: TestScalar>(got: &Dense<T>, want: &Dense<T>) {
        assert_eq!(got.shape(), want.shape(), "shape");
        let bits = |d: &Dense<T>| d.as_slice().iter().map(|&v| v.bits()).collect::<Vec<_>>();
        assert_eq!(bits(got), bits(want), "value bits");
    }

    /// Dense ⇄ Array2 moves the buffer; a column-major copy, a view and a
    /// row-sliced array come back equal.
    fn round_trips<T: TestScalar>(d: Dense<T>) {
        let data = d.as_slice().as_ptr();
        let view = ArrayView2::from(&d);
        assert_eq!(view.dim(), d.shape());
        assert!(
            view.indexed_iter()
                .all(|((i, j), &v)| v.bits() == d.get(i, j).bits())
        );
        assert_same_bits(&Dense::try_from(view).unwrap(), &d);

        let a = Array2::from(d.clone());
        let fortran = Array2::from_shape_vec(a.dim().f(), a.t().iter().copied().collect()).unwrap();
        assert_same_bits(&Dense::try_from(fortran).unwrap(), &d);
        let moved = Array2::from(d.clone());
        let buffer = moved.as_ptr();
        let back = Dense::try_from(moved).unwrap();
        assert_eq!(back.as_slice().as_ptr(), buffer, "Array2 → Dense copied");
        assert_same_bits(&back, &d);
        let a = Array2::from(d);
        assert_eq!(a.as_ptr(), data, "Dense → Array2 copied");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(CASES))]
        #[test]
        fn ndarray_round_trips_bit_for_bit(d64 in arb_dense::<f64>(), d32 in arb_dense::<f32>(), db in arb_dense::<bool>()) {
            round_trips(d64);
            round_trips(d32);
            round_trips(db);
        }

        #[test]
        fn spmv_and_spmm_with_ndarray_operands(a in arb_csr::<f64>(9, 11), seed in any::<u64>()) {
            let x: Vec<f64> = (0..2 * a.ncols()).map(|k| ((seed >> (k % 64)) & 7) as f64 - 3.0).collect();
            let bits = |v: &[f64]| v.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
            let want = a.spmv_with::<PlusTimes<f64>>(&x[..a.ncols()], Engine::Serial).unwrap();
            let xs = Array1::from_vec(x.clone());
            let y = spmv::<PlusTimes<f64>>(&a, xs.slice(s![..a.ncols()]), Engine::Serial).unwrap();
            prop_assert_eq!(bits(y.as_slice().unwrap()), bits(&want));
            // A strided x: every other element of an interleaved array.
            let interleaved: Array1<f64> = x[..a.ncols()].iter().flat_map(|&v| [v, f64::NAN]).collect();
            let y = spmv::<PlusTimes<f64>>(&a, interleaved.slice(s![..;2]), Engine::Serial).unwrap();
            prop_assert_eq!(bits(y.as_slice().unwrap()), bits(&want));

            // A column-major B (copied into row-major) gives the row-major B's product.
            let b = Array2::from_shape_fn((a.ncols(), 3).f(), |(i, j)| x[(i + j) % x.len().max(1)]);
            let c = a.spmm_with::<PlusTimes<f64>>(&Dense::try_from(b.clone()).unwrap(), Engine::Serial).unwrap();
            let row_major = Dense::try_from(b.as_standard_layout().into_owned()).unwrap();
            let want = a.spmm_with::<PlusTimes<f64>>(&row_major, Engine::Serial).unwrap();
            let c = Array2::from(c);
            prop_assert_eq!(c.dim(), want.shape());
            prop_assert!(c.indexed_iter().all(|((i, j), v)| v.to_bits() == want.get(i, j).to_bits()));
        }
    }

    #[test]
    fn sliced_and_reversed_arrays_convert_in_logical_order() {
        let full = Array2::from_shape_fn((4, 5), |(i, j)| (10 * i + j) as f64);
        let mut rows = full.clone();
        rows.slice_collapse(s![1..3, ..]);
        assert!(rows.is_standard_layout());
        let want = Dense::try_new(2, 5, (10..15).chain(20..25).map(f64::from).collect()).unwrap();
        assert_eq!(Dense::try_from(rows).unwrap(), want);
        let cols = full.slice(s![..;-1, 1..3]).to_owned();
        assert_eq!(
            Dense::try_from(cols.clone()).unwrap(),
            Dense::try_from(cols.view()).unwrap()
        );
        let reversed = full.slice(s![..;-1, 1..3]);
        let want = Dense::try_new(4, 2, vec![31., 32., 21., 22., 11., 12., 1., 2.]).unwrap();
        assert_eq!(Dense::try_from(reversed).unwrap(), want);
    }

    #[test]
    fn a_shape_past_spmx_dimensions_is_an_error() {
        let e = Dense::try_from(Array2::<f32>::zeros((0, MAX_DIM + 1))).unwrap_err();
        assert!(
            matches!(
                e,
                Error::Invalid {
                    format: "dense",
                    ..
                }
            ),
            "{e}"
        );
        assert!(e.to_string().contains("exceeds"), "{e}");
    }
}

/// A NaN with a payload, −0 and −∞ come back with the same bits through
/// every crate, moved or copied.
#[test]
fn special_values_keep_their_bits() {
    use nalgebra_sparse::CsrMatrix;
    use ndarray::Array2;
    use spmx::format::Dense;
    use sprs::{CsMat, CsMatI};

    let nan = f64::from_bits(0x7ff8_0000_dead_beef);
    let values = vec![nan, -0.0, f64::NEG_INFINITY];
    let a = Csr::try_new(2, 3, vec![0, 2, 3], vec![0, 2, 1], values.clone()).unwrap();
    let m = CsMatI::<f64, u32, usize>::from(a.clone());
    let usize_indices: CsMat<f64> = m.to_other_types();
    assert_identical(&Csr::try_from(usize_indices.view()).unwrap(), &a);
    assert_identical(&Csr::try_from(m.to_csc()).unwrap(), &a);
    assert_identical(&Csr::try_from(m).unwrap(), &a);
    assert_identical(&Csr::try_from(CsrMatrix::from(a.clone())).unwrap(), &a);
    let d = Dense::try_new(1, 3, values).unwrap();
    let bits = |d: &Dense<f64>| d.as_slice().iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    let back = Dense::try_from(Array2::from(d.clone())).unwrap();
    assert_eq!(bits(&back), bits(&d));
    let back = Dense::try_from(Array2::from(d.clone()).view()).unwrap();
    assert_eq!(bits(&back), bits(&d));
}
