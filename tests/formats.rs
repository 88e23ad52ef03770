//! Every format against CSR: random round trips must give back the same
//! matrix bit for bit (explicit zeros included), layouts must keep their
//! invariants, and each constructor must reject each broken invariant with a
//! message that names it.

mod common;

use common::{TestScalar, arb_csr, assert_identical};
use proptest::prelude::*;
use spmx::error::Result;
use spmx::format::{Bsr, Coo, Csc, Csr, Dense, ELL_PAD, Ell, Hyb, MAX_DIM, Sell, SellParts};

/// Converts `a` through every format (with the given parameters) and back.
fn round_trip_all<T: TestScalar>(a: &Csr<T>, k: usize, c: usize, sigma: usize, b: usize) {
    assert_identical(&Csc::from_csr(a).to_csr(), a);
    assert_identical(&Ell::from_csr(a).unwrap().to_csr(), a);
    assert_identical(&Hyb::from_csr(a).to_csr(), a);
    assert_identical(&Hyb::from_csr_with_width(a, k).unwrap().to_csr(), a);
    assert_identical(&Sell::from_csr(a, c, sigma).unwrap().to_csr(), a);
    assert_identical(&Sell::jds(a).to_csr(), a);
    assert_identical(&Bsr::from_csr(a, b).unwrap().to_csr(), a);
}

/// `σ` from a multiplier: `C · mult`, or `nrows` when `mult` is 0.
fn sigma_for(nrows: usize, c: usize, mult: usize) -> usize {
    if mult == 0 { nrows } else { c * mult }
}

proptest! {
    #[test]
    fn csc_round_trip(a in arb_csr::<f64>(24, 24)) {
        let csc = Csc::from_csr(&a);
        prop_assert_eq!(csc.nnz(), a.nnz());
        assert_identical(&csc.to_csr(), &a);
        assert_identical(&csc.into_csr(), &a);
    }

    #[test]
    fn csr_csc_transpose_twice(a in arb_csr::<f64>(24, 24)) {
        let t = a.transpose();
        assert_identical(&t.transpose(), &a);
        // CSC of A holds the CSR arrays of Aᵀ, and the other way round.
        assert_identical(&Csc::from_csr(&a).into_transpose(), &t);
        let csc_t = Csc::from_csr(&t);
        prop_assert_eq!(csc_t.col_ptr(), a.row_ptr());
        prop_assert_eq!(csc_t.row_idx(), a.col_idx());
    }

    #[test]
    fn ell_round_trip(a in arb_csr::<f64>(24, 24), extra in 0usize..3) {
        let e = Ell::from_csr(&a).unwrap();
        prop_assert_eq!(e.width(), a.row_stats().max);
        prop_assert_eq!(e.nnz(), a.nnz());
        assert_identical(&e.to_csr(), &a);
        let wide = Ell::from_csr_with_width(&a, e.width() + extra).unwrap();
        prop_assert_eq!(wide.col_idx().len(), (e.width() + extra) * a.nrows());
        assert_identical(&wide.to_csr(), &a);
        let parts = (wide.col_idx().to_vec(), wide.values().to_vec());
        let rebuilt = Ell::try_new(a.nrows(), a.ncols(), wide.width(), parts.0, parts.1).unwrap();
        prop_assert_eq!(rebuilt, wide);
    }

    #[test]
    fn hyb_round_trip(a in arb_csr::<f64>(24, 24), k in 0usize..6) {
        let h = Hyb::from_csr(&a);
        prop_assert_eq!(h.width(), Hyb::choose_width(&a));
        // At least a third of the rows fill the ELL part.
        let reach = (0..a.nrows()).filter(|&i| a.row_len(i) >= h.width()).count();
        prop_assert!(3 * reach >= a.nrows());
        assert_identical(&h.to_csr(), &a);
        let forced = Hyb::from_csr_with_width(&a, k).unwrap();
        prop_assert_eq!(forced.width(), k);
        prop_assert_eq!(forced.nnz(), a.nnz());
        assert_identical(&forced.to_csr(), &a);
        let rebuilt = Hyb::try_new(forced.ell().clone(), forced.overflow().clone()).unwrap();
        prop_assert_eq!(rebuilt, forced);
    }

    #[test]
    fn sell_round_trip(
        a in arb_csr::<f64>(40, 16),
        c in prop::sample::select(vec![1usize, 2, 3, 4, 8, 32]),
        mult in 0usize..4,
    ) {
        let sigma = sigma_for(a.nrows(), c, mult);
        let s = Sell::from_csr(&a, c, sigma).unwrap();
        prop_assert_eq!(s.nnz(), a.nnz());
        prop_assert_eq!(s.nslices(), a.nrows().div_ceil(c));
        // Within each window, rows are in decreasing length.
        let lens: Vec<usize> = s.perm().iter().map(|&r| a.row_len(r as usize)).collect();
        if sigma > 0 {
            for window in lens.chunks(sigma) {
                prop_assert!(window.is_sorted_by(|x, y| x >= y), "{:?}", window);
            }
        }
        assert_identical(&s.to_csr(), &a);
        let rebuilt = Sell::try_new(s.clone().into_parts()).unwrap();
        prop_assert_eq!(rebuilt, s);
    }

    #[test]
    fn jds_round_trip(a in arb_csr::<f64>(40, 16)) {
        let j = Sell::jds(&a);
        prop_assert_eq!(j.slice_height(), 1);
        prop_assert_eq!(j.col_idx().len(), a.nnz(), "JDS has no padding");
        let lens: Vec<usize> = j.perm().iter().map(|&r| a.row_len(r as usize)).collect();
        prop_assert!(lens.is_sorted_by(|x, y| x >= y));
        assert_identical(&j.to_csr(), &a);
    }

    #[test]
    fn bsr_round_trip(a in arb_csr::<f64>(24, 24), b in 1usize..=8) {
        let s = Bsr::from_csr(&a, b).unwrap();
        prop_assert_eq!(s.nnz(), a.nnz());
        assert_identical(&s.to_csr(), &a);
        let rebuilt = Bsr::try_new(
            a.nrows(),
            a.ncols(),
            b,
            s.block_row_ptr().to_vec(),
            s.block_col().to_vec(),
            s.values().to_vec(),
            s.masks().to_vec(),
        )
        .unwrap();
        prop_assert_eq!(rebuilt, s);
    }

    #[test]
    fn dense_round_trip_drops_only_entries_equal_to_the_fill(
        a in arb_csr::<f64>(16, 16),
        fill in prop::sample::select(vec![0.0, f64::INFINITY, -1.0]),
    ) {
        let d = Dense::from_csr(&a, fill).unwrap();
        for i in 0..a.nrows() {
            for j in 0..a.ncols() {
                prop_assert_eq!(d.get(i, j), a.get(i, j).unwrap_or(fill));
            }
        }
        let want = without(&a.to_coo(), fill);
        prop_assert_eq!(d.to_csr(fill), want);
    }

    #[test]
    fn every_format_round_trips_f32(
        a in arb_csr::<f32>(24, 24),
        k in 0usize..4,
        c in 1usize..=5,
        mult in 0usize..3,
        b in 1usize..=8,
    ) {
        round_trip_all(&a, k, c, sigma_for(a.nrows(), c, mult), b);
    }

    #[test]
    fn every_format_round_trips_bool(
        a in arb_csr::<bool>(24, 24),
        k in 0usize..4,
        c in 1usize..=5,
        mult in 0usize..3,
        b in 1usize..=8,
    ) {
        round_trip_all(&a, k, c, sigma_for(a.nrows(), c, mult), b);
        let d = Dense::from_csr(&a, false).unwrap();
        prop_assert_eq!(d.to_csr(false).nnz(), a.values().iter().filter(|&&v| v).count());
    }
}

/// `coo` as CSR without the entries equal to `absent`.
fn without(coo: &Coo<f64>, absent: f64) -> Csr<f64> {
    let mut kept = Coo::new(coo.nrows(), coo.ncols()).unwrap();
    for k in 0..coo.nnz() {
        if coo.values()[k] != absent {
            kept.push_unchecked(coo.rows()[k], coo.cols()[k], coo.values()[k]);
        }
    }
    kept.to_csr()
}

#[test]
fn one_long_row_spills_into_the_hyb_overflow() {
    // 30 rows of 2 entries and one of 20: K = 2, 18 entries of overflow.
    let mut coo = Coo::new(31, 20).unwrap();
    for i in 0..30 {
        coo.push(i, i % 20, 1.0).unwrap();
        coo.push(i, 19, 0.0).unwrap();
    }
    for j in 0..20 {
        coo.push(30, j, j as f64).unwrap();
    }
    let a = coo.to_csr();
    let h = Hyb::from_csr(&a);
    assert_eq!(h.width(), 2);
    assert_eq!(h.overflow().nnz(), 18);
    assert_identical(&h.to_csr(), &a);
    assert!(h.storage_bytes() < Ell::from_csr(&a).unwrap().storage_bytes());
}

// ---- Constructor rejections: one per invariant per format. ----

#[track_caller]
fn rejects<X: std::fmt::Debug>(r: Result<X>, needle: &str) {
    let e = r
        .expect_err("constructor accepted broken parts")
        .to_string();
    assert!(
        e.contains(needle),
        "message {e:?} does not mention {needle:?}"
    );
}

#[test]
fn csc_rejects_each_broken_invariant() {
    let csc = |m, n, p: &[usize], r: &[u32], v: &[f64]| {
        Csc::try_new(m, n, p.to_vec(), r.to_vec(), v.to_vec())
    };
    rejects(
        csc(2, MAX_DIM + 1, &[], &[], &[]),
        "exceeds the largest dimension",
    );
    rejects(csc(2, 2, &[0, 1], &[0], &[1.0]), "ncols + 1");
    rejects(csc(2, 1, &[1, 1], &[0], &[1.0]), "col_ptr[0] is 1");
    rejects(csc(2, 1, &[0, 1], &[0], &[]), "1 row indices but 0 values");
    rejects(
        csc(2, 1, &[0, 2], &[0], &[1.0]),
        "col_ptr[1] is 2 but there are 1 entries",
    );
    rejects(
        csc(2, 3, &[0, 2, 1, 2], &[0, 1], &[1.0; 2]),
        "decreases at column 1",
    );
    rejects(
        csc(2, 2, &[0, 3, 2], &[0, 1], &[1.0; 2]),
        "past the 2 entries",
    );
    rejects(
        csc(2, 1, &[0, 1], &[2], &[1.0]),
        "column 0: row 2 out of range",
    );
    rejects(
        csc(2, 1, &[0, 2], &[1, 1], &[1.0; 2]),
        "column 0: duplicate row",
    );
    rejects(
        csc(2, 1, &[0, 2], &[1, 0], &[1.0; 2]),
        "column 0: rows not sorted",
    );
}

#[test]
fn ell_rejects_each_broken_invariant() {
    const P: u32 = ELL_PAD;
    let ell = |m, n, w, c: &[u32], v: &[f64]| Ell::try_new(m, n, w, c.to_vec(), v.to_vec());
    // A valid 2×3 of width 2: row 0 = {0, 2}, row 1 = {1}.
    assert!(ell(2, 3, 2, &[0, 1, 2, P], &[1.0, 2.0, 3.0, 0.0]).is_ok());
    rejects(
        ell(MAX_DIM + 1, 3, 0, &[], &[]),
        "exceeds the largest dimension",
    );
    rejects(ell(4, 3, usize::MAX, &[], &[]), "overflows usize");
    rejects(
        ell(2, 3, 2, &[0, 1, 2], &[1.0; 3]),
        "expected width × nrows = 4",
    );
    rejects(ell(2, 3, 2, &[0, 1, 2, P], &[1.0; 3]), "3 values");
    rejects(
        ell(2, 3, 2, &[0, 1, 2, P], &[1.0, 2.0, 3.0, 4.0]),
        "row 1, slot 1: padding holds 4.0",
    );
    rejects(
        ell(2, 3, 2, &[P, 1, 2, P], &[0.0, 2.0, 3.0, 0.0]),
        "row 0, slot 1: column 2 after padding",
    );
    rejects(
        ell(2, 3, 2, &[0, 3, 2, P], &[1.0, 2.0, 3.0, 0.0]),
        "row 1, slot 0: column 3 out of range",
    );
    rejects(
        ell(2, 3, 2, &[2, 1, 2, P], &[1.0, 2.0, 3.0, 0.0]),
        "row 0, slot 1: duplicate column",
    );
    rejects(
        ell(2, 3, 2, &[2, 1, 0, P], &[1.0, 2.0, 3.0, 0.0]),
        "row 0, slot 1: columns not sorted",
    );
}

#[test]
fn hyb_rejects_each_broken_invariant() {
    const P: u32 = ELL_PAD;
    // ELL part of width 1 over 3×4: row 0 = {1}, row 1 = {}, row 2 = {2}.
    let ell = Ell::try_new(3, 4, 1, vec![1, P, 2], vec![1.0, 0.0, 1.0]).unwrap();
    let hyb = |rows: &[u32], cols: &[u32]| {
        let vals = vec![1.0; rows.len()];
        let overflow = Coo::try_new(3, 4, rows.to_vec(), cols.to_vec(), vals).unwrap();
        Hyb::try_new(ell.clone(), overflow)
    };
    assert!(hyb(&[0, 0, 2], &[2, 3, 3]).is_ok());
    rejects(
        Hyb::try_new(ell.clone(), Coo::new(3, 5).unwrap()),
        "ELL part is 3×4 but the overflow is 3×5",
    );
    rejects(
        hyb(&[2, 0], &[3, 2]),
        "overflow entry 1 at (0, 2) does not follow entry 0 at (2, 3)",
    );
    rejects(hyb(&[0, 0], &[2, 2]), "without duplicates");
    rejects(
        hyb(&[1], &[0]),
        "row 1 has overflow but its ELL part is not full",
    );
    rejects(
        hyb(&[2], &[1]),
        "row 2: overflow column 1 does not come after the ELL part's last column 2",
    );
}

/// A valid SELL-2-4 of a 5×3 matrix with rows of 1, 3, 0, 2, 2 entries.
fn sell_parts() -> SellParts<f64> {
    let lens = [1usize, 3, 0, 2, 2];
    let mut coo = Coo::new(5, 3).unwrap();
    for (i, &len) in lens.iter().enumerate() {
        for j in 0..len {
            coo.push(i, j, 1.0).unwrap();
        }
    }
    // perm [1, 3, 0, 2, 4]; slices {1, 3} (width 3), {0, 2} (1), {4, ghost} (2).
    Sell::from_csr(&coo.to_csr(), 2, 4).unwrap().into_parts()
}

#[test]
fn sell_rejects_each_broken_invariant() {
    const P: u32 = ELL_PAD;
    let with = |f: &dyn Fn(&mut SellParts<f64>)| {
        let mut p = sell_parts();
        f(&mut p);
        Sell::try_new(p)
    };
    assert!(with(&|_| ()).is_ok());
    rejects(
        with(&|p| p.ncols = MAX_DIM + 1),
        "exceeds the largest dimension",
    );
    rejects(with(&|p| p.c = 0), "slice height C is 0");
    rejects(
        with(&|p| p.sigma = 3),
        "σ = 3 is neither a positive multiple of C = 2 nor nrows = 5",
    );
    rejects(
        with(&|p| p.perm.truncate(4)),
        "perm has 4 entries, expected nrows = 5",
    );
    rejects(with(&|p| p.perm[4] = 5), "perm[4] = 5 is not a row");
    rejects(with(&|p| p.perm[2] = 1), "perm[2] = 1 repeats a row");
    rejects(
        with(&|p| p.perm.swap(0, 4)),
        "perm[0] = 4 moves row 4 out of its window 1",
    );
    rejects(
        with(&|p| p.slice_width.push(0)),
        "4 slice widths and 4 slice pointers, expected 3 and 4",
    );
    rejects(
        with(&|p| {
            p.slice_ptr.iter_mut().for_each(|x| *x += 1);
        }),
        "slice_ptr[0] is 1",
    );
    rejects(
        with(&|p| p.values.truncate(11)),
        "12 column indices and 11 values",
    );
    rejects(
        with(&|p| p.slice_width[1] = 2),
        "slice 1 spans slice_ptr 6..8, expected C × width = 2 × 2 slots",
    );
    rejects(
        with(&|p| p.col_idx[4] = 3),
        "slice 0, row 1 (position 0), slot 2: column 3 out of range",
    );
    rejects(
        with(&|p| p.col_idx[9] = 0),
        "slice 2, local row 1 (past the last row): holds entries",
    );
    rejects(
        with(&|p| {
            // Position 2 (row 0) loses its only entry: slice 1 is all
            // padding but still claims width 1.
            p.col_idx[6] = P;
            p.values[6] = 0.0;
        }),
        "slice 1 has width 1 but its longest row has 0 entries",
    );
    rejects(
        with(&|p| {
            // Give position 3 (row 2) an entry its predecessor lacks.
            p.col_idx[6] = P;
            p.values[6] = 0.0;
            p.col_idx[7] = 0;
        }),
        "position 3): 1 entries, more than position 2's 0",
    );
}

#[test]
fn bsr_rejects_each_broken_invariant() {
    // A valid 3×3 with b = 2: block (0, 0) holds (0, 0); block (1, 1) holds (2, 2).
    let vals = || vec![1.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0];
    let bsr = |m, n, b, p: &[usize], c: &[u32], v: Vec<f64>, k: &[u64]| {
        Bsr::try_new(m, n, b, p.to_vec(), c.to_vec(), v, k.to_vec())
    };
    assert!(bsr(3, 3, 2, &[0, 1, 2], &[0, 1], vals(), &[1, 1]).is_ok());
    rejects(
        bsr(MAX_DIM + 1, 3, 2, &[], &[], vec![], &[]),
        "exceeds the largest dimension",
    );
    rejects(
        bsr(3, 3, 0, &[], &[], vec![], &[]),
        "block size 0 is outside 1..=8",
    );
    rejects(
        bsr(3, 3, 9, &[], &[], vec![], &[]),
        "block size 9 is outside 1..=8",
    );
    rejects(
        bsr(3, 3, 2, &[0, 2], &[0, 1], vals(), &[1, 1]),
        "expected ceil(nrows / b) + 1 = 3",
    );
    rejects(
        bsr(3, 3, 2, &[1, 1, 2], &[0, 1], vals(), &[1, 1]),
        "block_row_ptr[0] is 1",
    );
    rejects(
        bsr(3, 3, 2, &[0, 1, 1], &[0, 1], vals(), &[1, 1]),
        "block_row_ptr[2] is 1 but there are 2 blocks",
    );
    rejects(
        bsr(3, 3, 2, &[0, 1, 2], &[0, 1], vals(), &[1]),
        "need 2 masks and 2 × 4 values, got 1 and 8",
    );
    rejects(
        bsr(3, 3, 2, &[0, 1, 2], &[0, 1], vec![0.0; 7], &[1, 1]),
        "got 2 and 7",
    );
    rejects(
        bsr(3, 3, 2, &[0, 3, 2], &[0, 1], vals(), &[1, 1]),
        "not monotone within 0..=2 at block row 0",
    );
    rejects(
        bsr(3, 3, 2, &[0, 1, 2], &[0, 2], vals(), &[1, 1]),
        "block row 1, block 1 (block column 2): block column out of range",
    );
    rejects(
        bsr(3, 3, 2, &[0, 2, 2], &[1, 1], vals(), &[1, 1]),
        "duplicate block column",
    );
    rejects(
        bsr(3, 3, 2, &[0, 2, 2], &[1, 0], vals(), &[1, 1]),
        "block columns not sorted",
    );
    rejects(
        bsr(3, 3, 2, &[0, 1, 2], &[0, 1], vals(), &[1, 0]),
        "block 1 (block column 1): empty mask",
    );
    rejects(
        bsr(3, 3, 2, &[0, 1, 2], &[0, 1], vals(), &[0x11, 1]),
        "block 0 (block column 0): mask 0x11 has bits beyond the b² = 4 slots",
    );
    rejects(
        bsr(3, 3, 2, &[0, 1, 2], &[0, 1], vals(), &[1, 0b10]),
        "block 1 (block column 1): mask 0x2 marks slots past the matrix edge",
    );
    let mut v = vals();
    v[3] = 5.0;
    rejects(
        bsr(3, 3, 2, &[0, 1, 2], &[0, 1], v, &[1, 1]),
        "block 0 (block column 0): slot (1, 1) is not in the mask but holds 5.0",
    );
}

#[test]
fn dense_rejects_each_broken_invariant() {
    rejects(
        Dense::try_new(MAX_DIM + 1, 1, vec![0.0]),
        "exceeds the largest dimension",
    );
    rejects(
        Dense::try_new(2, 3, vec![0.0; 5]),
        "5 values for a 2×3 matrix",
    );
}

#[test]
fn conversion_parameters_are_checked() {
    let a = Csr::<f64>::empty(4, 4);
    let two_in_a_row = Csr::try_new(1, 2, vec![0, 2], vec![0, 1], vec![1.0; 2]).unwrap();
    rejects(
        Ell::from_csr_with_width(&two_in_a_row, 1),
        "less than the longest row",
    );
    rejects(Sell::from_csr(&a, 0, 4), "C is 0");
    rejects(Sell::from_csr(&a, 2, 3), "neither a positive multiple");
    rejects(Bsr::from_csr(&a, 9), "outside 1..=8");
    rejects(Bsr::from_csr(&a, 0), "outside 1..=8");
}

/// Found by fuzzing `format_parts` (its first finding): COO may hold
/// duplicate coordinates, and its SpMV takes each as a product of its own,
/// so over a semiring other than plus-times it is the CSR whose duplicates
/// were combined with that semiring's add, not [`Coo::to_csr`] (which sums
/// them, as MatrixMarket assembly does). Both documented; this pins them.
#[test]
fn coo_duplicates_are_separate_products_in_spmv() {
    use spmx::{Engine, MinPlus, PlusTimes, Semiring};
    // Two parallel edges 0 → 1 of weights 3 and 5, and one of weight 2.
    let coo = Coo::try_new(2, 2, vec![0, 0, 1], vec![1, 1, 0], vec![3.0, 5.0, 2.0]).unwrap();
    let x = [10.0, 20.0];
    let min_plus = coo.spmv_with::<MinPlus<f64>>(&x, Engine::Serial).unwrap();
    assert_eq!(min_plus, [23.0, 12.0]); // the shorter edge, not 3 + 5
    let combined = coo.to_csr_with(MinPlus::<f64>::add);
    assert_eq!(
        combined
            .spmv_with::<MinPlus<f64>>(&x, Engine::Serial)
            .unwrap(),
        min_plus
    );
    // Plus-times: the same either way.
    let plus_times = coo.spmv_with::<PlusTimes<f64>>(&x, Engine::Serial).unwrap();
    assert_eq!(plus_times, [160.0, 20.0]);
    assert_eq!(
        coo.to_csr()
            .spmv_with::<PlusTimes<f64>>(&x, Engine::Serial)
            .unwrap(),
        plus_times
    );
}

/// Issue 20: `spmx convert` of a file with a NaN failed for every format
/// (the round trip was compared with `==`, and NaN ≠ NaN). Every format
/// keeps NaN, ±∞ and −0 bit for bit, through the checked (`try_`)
/// conversions the CLI uses as through the others, and
/// [`Csr::identical`] is the comparison that says so.
#[test]
fn nan_round_trips_every_format() {
    let quiet = f64::NAN;
    let payload = f64::from_bits(0x7ff8_0000_0000_beef);
    let a = Csr::try_new(
        3,
        4,
        vec![0, 3, 3, 6],
        vec![0, 1, 3, 0, 2, 3],
        vec![
            quiet,
            -0.0,
            f64::INFINITY,
            payload,
            -quiet,
            f64::NEG_INFINITY,
        ],
    )
    .unwrap();
    assert_ne!(a, a, "== follows IEEE: NaN ≠ NaN");
    assert!(a.identical(&a));
    let mut zero = a.clone();
    zero.values_mut()[1] = 0.0;
    assert!(!a.identical(&zero), "0 and −0 differ");
    round_trip_all(&a, 2, 2, 2, 2);
    let checked: [(&str, Result<Csr<f64>>); 7] = [
        ("COO", a.to_coo().try_to_csr()),
        ("CSC", Csc::try_from_csr(&a).and_then(Csc::try_into_csr)),
        ("ELL", Ell::from_csr(&a).and_then(|m| m.try_to_csr())),
        ("HYB", Hyb::try_from_csr(&a).and_then(|m| m.try_to_csr())),
        (
            "SELL",
            Sell::from_csr(&a, 2, 2).and_then(|m| m.try_to_csr()),
        ),
        ("BSR", Bsr::from_csr(&a, 3).and_then(|m| m.try_to_csr())),
        (
            "transpose twice",
            a.try_transpose().and_then(|t| t.try_transpose()),
        ),
    ];
    for (name, back) in checked {
        assert!(back.unwrap().identical(&a), "{name}");
    }
    // Dense keeps every element that differs from the fill, NaN included.
    let d = Dense::from_csr(&a, 7.0).unwrap().to_csr(7.0);
    assert!(d.identical(&a));
}
