//! Generators: the same seed gives the same matrix whatever the thread
//! count, the structured matrices have their exact shapes, the random ones
//! follow their row-length laws, and bad parameters are clear errors.

use spmx::generate::{GenSpec, RmatParams, banded, poisson2d, poisson3d, power_law, rmat, uniform};
use spmx::{Csr, Error};

/// A small instance of every generator, each spanning several chunks of rows
/// (and, for R-MAT, of edges).
fn small_specs() -> Vec<GenSpec> {
    vec![
        GenSpec::Uniform {
            nrows: 10_000,
            ncols: 3_000,
            min_per_row: 0,
            max_per_row: 12,
        },
        // Rows of more than half the columns take the complement path.
        GenSpec::Uniform {
            nrows: 5_000,
            ncols: 40,
            min_per_row: 15,
            max_per_row: 40,
        },
        GenSpec::Rmat(RmatParams::graph500(13)),
        GenSpec::Poisson2d { n: 70 },
        GenSpec::Poisson3d { n: 17 },
        GenSpec::Banded {
            n: 9_000,
            lower: 3,
            upper: 7,
        },
        GenSpec::PowerLaw {
            nrows: 9_000,
            ncols: 5_000,
            mean_row_len: 6.0,
            exponent: 2.2,
        },
    ]
}

fn is_random(spec: &GenSpec) -> bool {
    !matches!(spec, GenSpec::Poisson2d { .. } | GenSpec::Poisson3d { .. })
}

fn in_pool<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(f)
}

#[test]
fn every_output_is_canonical_csr() {
    for spec in small_specs() {
        let a = spec.generate(1).unwrap();
        assert!(a.nnz() > 0, "{}", spec.describe());
        let (nrows, ncols, row_ptr, col_idx, values) = a.into_parts();
        if let Err(e) = Csr::try_new(nrows, ncols, row_ptr, col_idx, values) {
            panic!("{}: {e}", spec.describe());
        }
    }
}

#[test]
fn same_seed_same_matrix_other_seed_other_matrix() {
    for spec in small_specs().iter().filter(|s| is_random(s)) {
        let a = spec.generate(7).unwrap();
        assert_eq!(a, spec.generate(7).unwrap(), "{}", spec.describe());
        assert_ne!(a, spec.generate(8).unwrap(), "{}", spec.describe());
    }
}

#[test]
fn output_does_not_depend_on_the_thread_count() {
    for spec in small_specs() {
        let one = in_pool(1, || spec.generate(3).unwrap());
        let three = in_pool(3, || spec.generate(3).unwrap());
        assert_eq!(one, three, "{}", spec.describe());
    }
}

#[test]
fn random_values_lie_in_the_unit_interval_and_are_exact_in_f32() {
    for spec in small_specs().iter().filter(|s| is_random(s)) {
        let a = spec.generate(5).unwrap();
        for &v in a.values() {
            assert!(v > 0.0 && v <= 1.0, "{}: {v}", spec.describe());
            assert_eq!(v as f32 as f64, v, "{}", spec.describe());
        }
    }
}

#[test]
fn poisson_matrices_have_exact_shapes_and_stencils() {
    for n in [1, 2, 3, 7, 70] {
        let a = poisson2d(n).unwrap();
        assert_eq!(a.shape(), (n * n, n * n));
        assert_eq!(a.nnz(), 5 * n * n - 4 * n, "2D n = {n}");
        assert_eq!(a.transpose(), a);
        let b = poisson3d(n).unwrap();
        assert_eq!(b.shape(), (n * n * n, n * n * n));
        assert_eq!(b.nnz(), 7 * n * n * n - 6 * n * n, "3D n = {n}");
        assert_eq!(b.transpose(), b);
    }
    let n = 7;
    let a = poisson2d(n).unwrap();
    let at = |i: usize, j: usize| i * n + j;
    assert_eq!(a.get(at(3, 4), at(3, 4)), Some(4.0));
    for (i, j) in [(2, 4), (4, 4), (3, 3), (3, 5)] {
        assert_eq!(a.get(at(3, 4), at(i, j)), Some(-1.0));
    }
    // Row ends of the grid do not wrap around.
    assert_eq!(a.get(at(3, 6), at(4, 0)), None);
    assert_eq!(a.row_len(at(0, 0)), 3);
    let b = poisson3d(n).unwrap();
    let at = |i: usize, j: usize, k: usize| (i * n + j) * n + k;
    let (cols, vals) = b.row(at(3, 3, 3));
    let expect = [at(2, 3, 3), at(3, 2, 3), at(3, 3, 2), at(3, 3, 3)];
    let expect = expect
        .into_iter()
        .chain([at(3, 3, 4), at(3, 4, 3), at(4, 3, 3)]);
    assert_eq!(cols, expect.map(|c| c as u32).collect::<Vec<_>>());
    assert_eq!(vals, [-1.0, -1.0, -1.0, 6.0, -1.0, -1.0, -1.0]);
}

#[test]
fn uniform_rows_have_lengths_within_bounds() {
    for (ncols, min, max) in [(3_000, 0, 12), (3_000, 8, 8), (40, 15, 40), (40, 40, 40)] {
        let a = uniform(10_000, ncols, min, max, 11).unwrap();
        let stats = a.row_stats();
        assert!(stats.min >= min && stats.max <= max, "{stats:?}");
        let mid = (min + max) as f64 / 2.0;
        assert!((stats.mean - mid).abs() < 0.05 * mid + 0.1, "{stats:?}");
    }
}

#[test]
fn rmat_is_skewed_toward_row_zero_and_keeps_self_loops() {
    let params = RmatParams::graph500(14);
    let a = rmat(params, 2).unwrap();
    assert_eq!(a.shape(), (1 << 14, 1 << 14));
    assert!(a.nnz() <= 16 << 14);
    let mean = a.row_stats().mean;
    assert!(
        a.row_len(0) as f64 > 50.0 * mean,
        "row 0: {}, mean {mean}",
        a.row_len(0)
    );
    assert!(a.transpose().row_len(0) as f64 > 50.0 * mean);
    assert!(a.get(0, 0).is_some());
}

#[test]
fn rmat_quadrants_are_where_graph500_puts_them() {
    let corner = |a, b, c| {
        let g = rmat(
            RmatParams {
                scale: 5,
                edge_factor: 4,
                a,
                b,
                c,
            },
            1,
        )
        .unwrap();
        assert_eq!(g.nnz(), 1, "every edge lands on one cell");
        let row = (0..32).find(|&i| g.row_len(i) == 1).unwrap();
        (row, g.row(row).0[0])
    };
    assert_eq!(corner(1.0, 0.0, 0.0), (0, 0));
    assert_eq!(corner(0.0, 1.0, 0.0), (0, 31));
    assert_eq!(corner(0.0, 0.0, 1.0), (31, 0));
    assert_eq!(corner(0.0, 0.0, 0.0), (31, 31));
}

#[test]
fn power_law_rows_have_the_requested_mean_and_a_heavy_tail() {
    for (mean, exponent) in [(8.0, 2.5), (16.0, 3.0), (4.0, 2.0)] {
        let a = power_law(20_000, 20_000, mean, exponent, 9).unwrap();
        let stats = a.row_stats();
        assert!(
            (stats.mean - mean).abs() < 0.1 * mean,
            "γ = {exponent}: mean {} for {mean}",
            stats.mean
        );
        assert!(stats.min >= 1);
        assert!(stats.max as f64 > 20.0 * mean, "γ = {exponent}: {stats:?}");
    }
    // A mean of ncols fills every row.
    let full = power_law(10, 30, 30.0, 2.5, 1).unwrap();
    assert_eq!(full.nnz(), 300);
}

#[test]
fn banded_holds_the_whole_band() {
    let (n, lower, upper) = (9_000, 3, 7);
    let a = banded(n, lower, upper, 4).unwrap();
    let band = n * (lower + upper + 1) - lower * (lower + 1) / 2 - upper * (upper + 1) / 2;
    assert_eq!(a.nnz(), band);
    assert_eq!(a.row(0).0, [0, 1, 2, 3, 4, 5, 6, 7]);
    assert_eq!(a.row(n - 1).0, [8_996, 8_997, 8_998, 8_999]);
    assert_eq!(banded(5, 4, 4, 4).unwrap().nnz(), 25);
}

#[test]
fn gen_spec_makes_what_the_functions_make() {
    let spec = GenSpec::Banded {
        n: 100,
        lower: 2,
        upper: 1,
    };
    assert_eq!(spec.generate(6).unwrap(), banded(100, 2, 1, 6).unwrap());
    let spec = GenSpec::PowerLaw {
        nrows: 300,
        ncols: 200,
        mean_row_len: 5.0,
        exponent: 2.5,
    };
    assert_eq!(
        spec.generate(6).unwrap(),
        power_law(300, 200, 5.0, 2.5, 6).unwrap()
    );
    assert_eq!(
        GenSpec::Rmat(RmatParams::graph500(22)).describe(),
        "R-MAT scale 22, edge factor 16, a=0.57 b=0.19 c=0.19"
    );
    assert_eq!(
        GenSpec::Poisson3d { n: 160 }.describe(),
        "3D Poisson 160³ (4096000×4096000, 7-point)"
    );
}

#[test]
fn bad_parameters_are_errors_that_say_why() {
    let invalid = |r: spmx::Result<Csr<f64>>, needle: &str| match r {
        Err(e @ Error::Invalid { .. }) => assert!(e.to_string().contains(needle), "{e}"),
        other => panic!("expected an Invalid error with {needle:?}, got {other:?}"),
    };
    let too_large = |r: spmx::Result<Csr<f64>>, needle: &str| match r {
        Err(e @ Error::TooLarge(_)) => assert!(e.to_string().contains(needle), "{e}"),
        other => panic!("expected a TooLarge error with {needle:?}, got {other:?}"),
    };
    invalid(uniform(0, 5, 1, 2, 1), "nrows must be at least 1");
    invalid(
        uniform(5, 5, 3, 2, 1),
        "min_per_row (3) exceeds max_per_row (2)",
    );
    invalid(uniform(5, 5, 1, 6, 1), "max_per_row (6) exceeds ncols (5)");
    too_large(uniform(5, 1 << 32, 1, 2, 1), "ncols = 4294967296");

    let rmat_with = |scale, edge_factor, a, b, c| {
        rmat(
            RmatParams {
                scale,
                edge_factor,
                a,
                b,
                c,
            },
            1,
        )
    };
    invalid(
        rmat_with(4, 16, -0.1, 0.2, 0.2),
        "a = -0.1 is not in [0, 1]",
    );
    invalid(rmat_with(4, 16, 0.5, f64::NAN, 0.2), "b = NaN");
    invalid(rmat_with(4, 16, 0.6, 0.3, 0.3), "exceeds 1");
    invalid(
        rmat_with(4, 0, 0.57, 0.19, 0.19),
        "edge_factor must be at least 1",
    );
    too_large(rmat_with(32, 16, 0.57, 0.19, 0.19), "scale 32");
    too_large(rmat_with(31, usize::MAX, 0.57, 0.19, 0.19), "overflow");
    too_large(rmat_with(30, 1 << 20, 0.57, 0.19, 0.19), "cannot allocate");
    // Decimal probabilities that sum to a hair above 1 are accepted.
    assert!(rmat_with(4, 16, 0.33, 0.56, 0.11).is_ok());

    invalid(poisson2d(0), "n must be at least 1");
    too_large(poisson2d(70_000), "largest dimension");
    too_large(poisson3d(2_000), "largest dimension");
    invalid(banded(10, 10, 0, 1), "must be below n = 10");
    invalid(banded(0, 0, 0, 1), "n must be at least 1");

    invalid(power_law(10, 10, 4.0, 1.0, 1), "exponent 1 must be");
    invalid(power_law(10, 10, 4.0, f64::INFINITY, 1), "exponent inf");
    invalid(
        power_law(10, 10, 0.5, 2.5, 1),
        "mean_row_len 0.5 must lie in [1, ncols = 10]",
    );
    invalid(power_law(10, 10, 11.0, 2.5, 1), "mean_row_len 11");
}
