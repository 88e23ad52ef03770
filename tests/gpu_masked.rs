//! Masked products on the GPU against the serial engine, bit for bit, for
//! every semiring the GPU has: `C⟨M⟩ = A ⊗ B` with a structural mask (a
//! dot product an entry of M, summed in the CPU's order, so plus-times
//! too has the serial bits), `y⟨m⟩ = A ⊗ x` with a mask and its
//! complement, merging and replacing; random shapes (0×0, empty rows,
//! rectangular), generated inputs with long rows, and triangles counted
//! on the real graphs. A complemented mask is refused by name.
//!
//! Without a GPU (or without feature `gpu`) the tests print why and pass.
#![cfg(feature = "gpu")]

mod common;

use common::gpu::{assert_same_bits, gpu, stamped_or_refused};
use common::{TestScalar, arb_csr_shaped, both_ways};
use proptest::prelude::*;
use spmx::app::{TriangleOrder, triangles};
use spmx::format::Coo;
use spmx::ops::{self, Mask, VectorMask};
use spmx::{Csr, Engine, Error, Scalar, Semiring, generate};

fn check<S: Semiring>(a: &Csr<S::Value>, b: &Csr<S::Value>, mask: &Csr<bool>)
where
    S::Value: TestScalar,
{
    let m = Mask::structural(mask);
    let want = ops::spgemm_masked::<S, bool>(a, b, m, Engine::Serial).unwrap();
    let got = ops::spgemm_masked::<S, bool>(a, b, m, Engine::Cuda).unwrap();
    assert_same_bits(&got, &want);
    let refused = ops::spgemm_masked::<S, bool>(a, b, Mask::complement(mask), Engine::Cuda);
    assert!(
        matches!(refused, Err(Error::Unavailable { .. })),
        "{refused:?}"
    );
    let x: Vec<S::Value> = (0..a.ncols())
        .map(|j| common::in_domain::<S>(S::Value::from_f64(j as f64 * 0.5 - 3.0)))
        .collect();
    let allowed: Vec<bool> = (0..a.nrows())
        .map(|i| mask.row_len(i).is_multiple_of(2))
        .collect();
    let before: Vec<S::Value> = (0..a.nrows())
        .map(|i| S::Value::from_f64(i as f64 + 0.25))
        .collect();
    for complement in [false, true] {
        for replace in [false, true] {
            let mask = VectorMask {
                allowed: &allowed,
                complement,
            };
            let run = |engine| {
                let mut y = before.clone();
                ops::spmv_masked::<S>(a, &x, &mut y, mask, replace, engine).unwrap();
                y.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
            };
            assert_eq!(
                run(Engine::Cuda),
                run(Engine::Serial),
                "complement {complement} replace {replace}"
            );
        }
    }
}

/// `m`'s pattern with row `full` holding every column.
fn with_a_full_row(m: &Csr<f64>, full: usize) -> Csr<bool> {
    let mut coo = Coo::new(m.nrows(), m.ncols()).unwrap();
    for i in 0..m.nrows() {
        if i == full {
            (0..m.ncols()).for_each(|j| coo.push(i, j, true).unwrap());
        } else {
            m.row(i)
                .0
                .iter()
                .for_each(|&j| coo.push(i, j as usize, true).unwrap());
        }
    }
    coo.to_csr()
}

/// (A m×k, B k×n, mask m×n) with random shapes.
fn arb_case<T: TestScalar>(f: fn(T) -> T) -> impl Strategy<Value = (Csr<T>, Csr<T>, Csr<bool>)> {
    (0usize..20, 0usize..20, 0usize..20).prop_flat_map(move |(m, k, n)| {
        (
            arb_csr_shaped::<T>(m, k),
            arb_csr_shaped::<T>(k, n),
            arb_csr_shaped::<bool>(m, n),
        )
            .prop_map(move |(a, b, mask)| (a.map(f), b.map(f), mask))
    })
}

macro_rules! semiring_tests {
    ($name:ident, $S:ty, $T:ty, $f:expr) => {
        mod $name {
            use super::*;
            proptest! {
                #![proptest_config(ProptestConfig::with_cases(24))]
                #[test]
                fn random_shapes_give_the_serial_bits((a, b, mask) in arb_case::<$T>($f)) {
                    if gpu(stringify!($name)).is_some() {
                        stamped_or_refused::<$S>(stringify!($name), |_| ());
                        if gpu_kernels::kernels::stamped::<$S>() {
                            check::<$S>(&a, &b, &mask);
                        }
                    }
                }
            }

            /// Long rows (a power-law A) and a dense mask row.
            #[test]
            fn generated_inputs_give_the_serial_bits() {
                if gpu(stringify!($name)).is_none() || !gpu_kernels::kernels::stamped::<$S>() {
                    return;
                }
                let a = generate::power_law(3000, 2000, 12.0, 2.1, 7).unwrap();
                let b = generate::uniform(2000, 2500, 0, 40, 8).unwrap();
                let mask = with_a_full_row(&generate::uniform(3000, 2500, 0, 60, 9).unwrap(), 7);
                let (a, b) = (
                    a.map(|v| ($f)(<$T>::from_f64(v))),
                    b.map(|v| ($f)(<$T>::from_f64(v))),
                );
                check::<$S>(&a, &b, &mask);
            }
        }
    };
}

/// `semiring_tests!` for every instance of [`spmx::for_each_semiring!`].
macro_rules! every_semiring {
    ($($name:ident $sr:ident $atomic:ident [$($t:ident => $S:ty as $test:ident),+];)*) => {
        $($( semiring_tests!($test, $S, $t, common::in_domain::<$S>); )+)*
    };
}
/// The same for every integer instance of
/// [`spmx::for_each_integer_semiring!`].
macro_rules! every_integer_semiring {
    ($($name:ident $sr:ident [$($t:ident => $S:ty as $test:ident),+];)*) => {
        $($( semiring_tests!($test, $S, $t, common::in_domain::<$S>); )+)*
    };
}
spmx::for_each_semiring!(every_semiring! {});
spmx::for_each_integer_semiring!(every_integer_semiring! {});

/// Triangles counted with the GPU's masked product equal the CPU's, on
/// the real graphs.
#[test]
fn triangles_on_the_real_graphs_match_the_cpu() {
    if gpu("triangles_on_the_real_graphs_match_the_cpu").is_none() {
        return;
    }
    let graphs = [
        "wiki-Vote",
        "ego-Facebook",
        "as-caida_G_010",
        "delaunay_n16",
        "bcsstk16",
    ];
    let real = common::real_matrices("triangles_on_the_real_graphs_match_the_cpu");
    for (name, a) in real
        .iter()
        .filter(|(n, _)| graphs.iter().any(|g| n.starts_with(g)))
    {
        counts_as_the_cpu(a, name);
    }
}

/// Asserts that the GPU counts `a`'s triangles and edges as the CPU does,
/// in every order.
fn counts_as_the_cpu(a: &Csr<f64>, name: &str) {
    for order in [TriangleOrder::Natural, TriangleOrder::Degree] {
        let cpu = triangles(a, order, Engine::Cpu).unwrap();
        let cuda = triangles(a, order, Engine::Cuda).unwrap();
        assert_eq!(
            (cuda.count, cuda.edges),
            (cpu.count, cpu.edges),
            "{name} {order:?}"
        );
    }
}

/// Triangles counted on the GPU equal the CPU's on random graphs: skewed
/// (a power law), a complete graph, directed and one-sided inputs, and
/// the empty ones.
#[test]
fn triangles_on_random_graphs_match_the_cpu() {
    if gpu("triangles_on_random_graphs_match_the_cpu").is_none() {
        return;
    }
    let mut graphs = vec![
        Csr::<f64>::empty(0, 0),
        Csr::<f64>::empty(1, 1),
        Csr::<f64>::empty(7, 7),
        Csr::try_new(
            40,
            40,
            (0..=40).map(|i| i * 40).collect(),
            (0..1600).map(|k| k % 40).collect(),
            vec![1.0; 1600],
        )
        .unwrap(),
    ];
    for seed in 0..4 {
        graphs.push(spmx::generate::power_law(3000, 3000, 8.0, 2.1, seed).unwrap());
        graphs.push(spmx::generate::uniform(500, 500, 0, 12, seed).unwrap());
    }
    for (k, a) in graphs.iter().enumerate() {
        counts_as_the_cpu(a, &format!("graph {k}"));
    }
    assert_eq!(
        triangles(&graphs[3], TriangleOrder::Degree, Engine::Cuda)
            .unwrap()
            .count,
        9880
    );
}

/// A graph kept on the GPU: L made there when its pattern is symmetric
/// (stored both ways), else downloaded; the CPU's count and edges either way.
#[test]
fn triangles_of_a_device_matrix_match_the_cpu() {
    let Some(gpu) = gpu("triangles_of_a_device_matrix_match_the_cpu") else {
        return;
    };
    let mut graphs = vec![Csr::<f64>::empty(0, 0), Csr::<f64>::empty(5, 5)];
    for seed in 0..4 {
        let directed = spmx::generate::power_law(2500, 2500, 8.0, 2.1, seed).unwrap();
        graphs.push(both_ways(&directed));
        graphs.push(directed);
        graphs.push(both_ways(
            &spmx::generate::uniform(400, 400, 0, 9, seed).unwrap(),
        ));
    }
    for (k, a) in graphs.iter().enumerate() {
        let on_device = spmx::engine::cuda::matrix::DevCsr::upload(gpu, a).unwrap();
        for order in [TriangleOrder::Natural, TriangleOrder::Degree] {
            let cpu = triangles(a, order, Engine::Cpu).unwrap();
            let got = spmx::app::triangles::triangles_on_device(&on_device, order).unwrap();
            assert_eq!(
                (got.count, got.edges),
                (cpu.count, cpu.edges),
                "graph {k} {order:?}"
            );
        }
    }
    let wide = spmx::engine::cuda::matrix::DevCsr::upload(gpu, &Csr::<f64>::empty(2, 3)).unwrap();
    let err = spmx::app::triangles::triangles_on_device(&wide, TriangleOrder::Degree).unwrap_err();
    assert!(err.to_string().contains("2×3, not square"), "{err}");
}
