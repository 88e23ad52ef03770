//! A product larger than memory: `RowBlocks` plans C in row blocks that
//! each fit a budget, and the blocks, computed one after another on the
//! serial and cpu engines, are the whole product's rows bit for bit, for
//! every semiring, odd shapes included; a C over the memory available is
//! `TooLarge` from every SpGEMM entry point before any of it is made.

mod common;

use common::{TestScalar, arb_csr_shaped, assert_identical, reference};
use proptest::prelude::*;
use spmx::engine::Engine;
use spmx::ops::spgemm_blocks::{self, RowBlocks};
use spmx::{Csr, Scalar, Semiring, generate};

/// The blocks of `plan`, stacked, against the reference product.
fn check_blocks<S: Semiring>(a: &Csr<S::Value>, b: &Csr<S::Value>, plan: &RowBlocks, engine: Engine)
where
    S::Value: TestScalar,
{
    let want = reference::spgemm::<S>(a, b);
    assert_eq!(plan.nnz(), want.nnz());
    let (mut row_ptr, mut cols, mut vals) = (vec![0], Vec::new(), Vec::new());
    let mut next = 0;
    plan.multiply::<S>(a, b, engine, |rows, c| {
        assert_eq!(rows.start, next, "blocks in order");
        next = rows.end;
        assert_eq!(c.nrows(), rows.len());
        assert_eq!(c.nnz(), plan.entries(rows.clone()));
        for i in 0..c.nrows() {
            let (cc, cv) = c.row(i);
            cols.extend_from_slice(cc);
            vals.extend_from_slice(cv);
            row_ptr.push(cols.len());
        }
        Ok(())
    })
    .unwrap();
    assert_eq!(next, a.nrows());
    let got = Csr::from_parts_unchecked(a.nrows(), b.ncols(), row_ptr, cols, vals);
    assert_identical(&got, &want);
}

/// A plan whose budget is a fifth of C's bytes, or `None` when C is empty.
fn small_plan<T: Scalar>(a: &Csr<T>, b: &Csr<T>) -> Option<RowBlocks> {
    let c =
        reference::spgemm::<spmx::PlusTimes<f64>>(&a.map(|v| v.to_f64()), &b.map(|v| v.to_f64()));
    let c_bytes = c.nnz() * (4 + size_of::<T>()) + 24 * (a.nrows() + 1);
    let budget = (c_bytes / 5).max(1000);
    RowBlocks::plan(a, b, budget).unwrap_or_else(|e| panic!("budget {budget}: {e}"))
}

macro_rules! semiring_tests {
    ($test:ident, $S:ty, $T:ty) => {
        mod $test {
            use super::*;

            proptest! {
                #![proptest_config(ProptestConfig::with_cases(64))]
                #[test]
                fn blocks_are_the_products_rows(
                    (a, b) in (0usize..30, 0usize..30, 0usize..30).prop_flat_map(|(m, k, n)| {
                        (arb_csr_shaped::<$T>(m, k), arb_csr_shaped::<$T>(k, n))
                    })
                ) {
                    // A budget too small for some rows is TooLarge, never a
                    // wrong block; a plan that fits whole is None.
                    let plan = RowBlocks::plan(&a, &b, 600);
                    if let Ok(Some(plan)) = plan {
                        for engine in [Engine::Serial, Engine::Cpu] {
                            check_blocks::<$S>(&a, &b, &plan, engine);
                        }
                    }
                }
            }

            #[test]
            fn generated_product_in_many_blocks() {
                let a = generate::power_law(3000, 2000, 12.0, 2.2, 7).unwrap();
                let b = generate::uniform(2000, 2500, 0, 30, 8).unwrap();
                let (a, b) = (a.map(<$T>::from_f64), b.map(<$T>::from_f64));
                let plan = small_plan(&a, &b).expect("C larger than the budget");
                assert!(plan.blocks().len() >= 5, "{} blocks", plan.blocks().len());
                for engine in [Engine::Serial, Engine::Cpu] {
                    check_blocks::<$S>(&a, &b, &plan, engine);
                }
            }
        }
    };
}

/// `semiring_tests!` for every instance of [`spmx::for_each_semiring!`].
macro_rules! every_semiring {
    ($($name:ident $sr:ident $atomic:ident [$($t:ident => $S:ty as $test:ident),+];)*) => {
        $($( semiring_tests!($test, $S, $t); )+)*
    };
}
spmx::for_each_semiring!(every_semiring! {});

/// A C that fits the budget whole needs no blocks; one row over half the
/// budget is `TooLarge` naming the row.
#[test]
fn a_plan_is_none_when_c_fits_and_an_error_for_a_row_too_large() {
    let a = generate::uniform(200, 200, 5, 10, 1).unwrap();
    assert!(RowBlocks::plan(&a, &a, 1 << 30).unwrap().is_none());
    let dense_row = Csr::try_new(1, 1000, vec![0, 1000], (0..1000).collect(), vec![1.0; 1000]);
    let dense_row = dense_row.unwrap();
    let col = dense_row.try_transpose().unwrap();
    let e = RowBlocks::plan(&col, &dense_row, 5000)
        .err()
        .expect("a row too large");
    assert!(
        e.to_string()
            .contains("row 0 of C = A·B alone has 1000 entries"),
        "{e}"
    );
}

/// Rows of about equal products cover every row in order.
#[test]
fn rows_by_products_cover_every_row() {
    let a = generate::power_law(1000, 1000, 8.0, 2.2, 3).unwrap();
    let rows = spgemm_blocks::rows_by_products(&a, &a, 32).unwrap();
    assert_eq!(rows.first().unwrap().start, 0);
    assert_eq!(rows.last().unwrap().end, 1000);
    for w in rows.windows(2) {
        assert_eq!(w[0].end, w[1].start);
    }
}
