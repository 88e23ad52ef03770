//! Graph algorithms on the GPU against the CPU's, bit for bit: breadth-first
//! search (levels and parents) and shortest paths from many sources
//! (Bellman–Ford rounds of min-plus SpMM), on random graphs (skewed,
//! directed and both ways, deep, edgeless; zero, −0 and +∞ weights,
//! self-loops, non-integer weights whose sums round) and the real set; a
//! graph with a negative weight refused by the GPU's SSSP and squared by
//! its APSP.
//!
//! Without a GPU (or without feature `gpu`) the tests print why and pass.
#![cfg(feature = "gpu")]

mod common;

use common::gpu::gpu;
use common::{Rng, both_ways, random_graph};
use spmx::app::apsp::{self, ApspMethod};
use spmx::app::sssp::sssp;
use spmx::{Csr, Engine, Error};

/// Breadth-first search on the GPU gives the CPU's levels and parents on
/// random graphs (skewed, directed and both ways, complete, a path deep
/// enough for many batches of levels, edgeless ones) and the real set's
/// square matrices, from three sources each; a device graph too.
#[test]
fn bfs_matches_the_cpu() {
    let Some(gpu) = gpu("bfs_matches_the_cpu") else {
        return;
    };
    let path = 3000;
    let mut graphs = vec![
        ("one vertex".to_string(), Csr::<f64>::empty(1, 1)),
        ("edgeless".into(), Csr::<f64>::empty(7, 7)),
        (
            "path".into(),
            Csr::try_new(
                path,
                path,
                (0..=path).map(|i| i.min(path - 1)).collect(),
                (1..path as u32).collect(),
                vec![1.0; path - 1],
            )
            .unwrap(),
        ),
    ];
    for seed in 0..3 {
        let directed = spmx::generate::power_law(3000, 3000, 6.0, 2.1, seed).unwrap();
        graphs.push((format!("power law {seed} both ways"), both_ways(&directed)));
        graphs.push((format!("power law {seed}"), directed));
        let uniform = spmx::generate::uniform(500, 500, 0, 3, seed).unwrap();
        graphs.push((format!("uniform {seed}"), uniform));
    }
    let real = common::real_matrices("bfs_matches_the_cpu");
    graphs.extend((real.into_iter()).filter(|(_, a)| a.nrows() == a.ncols()));
    for (name, a) in &graphs {
        let n = a.nrows();
        for source in [0, n / 2, n - 1] {
            let cpu = spmx::app::bfs::bfs(a, source, Engine::Serial).unwrap();
            let cuda = spmx::app::bfs::bfs(a, source, Engine::Cuda).unwrap();
            let seen = |b: &spmx::app::bfs::Bfs| {
                let levels: Vec<_> = b.levels().collect();
                let parents: Vec<_> = b.parents().collect();
                (levels, parents, b.reached(), b.depth())
            };
            assert_eq!(seen(&cuda), seen(&cpu), "{name} from {source}");
        }
    }
    let on_device = spmx::engine::cuda::matrix::DevCsr::upload(gpu, &graphs[3].1).unwrap();
    let got = spmx::app::bfs::bfs_on_device(&on_device, 5).unwrap();
    let want = spmx::app::bfs::bfs(&graphs[3].1, 5, Engine::Cpu).unwrap();
    assert_eq!(
        got.levels().collect::<Vec<_>>(),
        want.levels().collect::<Vec<_>>()
    );
    assert_eq!(
        got.parents().collect::<Vec<_>>(),
        want.parents().collect::<Vec<_>>()
    );
    let err = spmx::app::bfs::bfs_on_device(&on_device, 3000).unwrap_err();
    assert!(err.to_string().contains("source below 3000"), "{err}");
    let wide = spmx::engine::cuda::matrix::DevCsr::upload(gpu, &Csr::<f64>::empty(2, 3)).unwrap();
    let err = spmx::app::bfs::bfs_on_device(&wide, 0).unwrap_err();
    assert!(err.to_string().contains("2×3"), "{err}");
}

/// Shortest paths from many sources on the GPU equal the CPU's bit for bit
/// on random graphs without negative weights (integer weights, and weights
/// whose sums round), sources repeated; APSP on cuda takes Bellman–Ford
/// rounds to the same bits; a negative weight is refused by SSSP on cuda
/// and squared by APSP; the real set's graphs from 40 sources each.
#[test]
fn sssp_and_apsp_match_the_cpu() {
    if gpu("sssp_and_apsp_match_the_cpu").is_none() {
        return;
    }
    let mut rng = Rng(5);
    for (n, degree) in [
        (0, 1),
        (1, 0),
        (3, 0),
        (17, 1),
        (60, 3),
        (300, 4),
        (2000, 6),
    ] {
        for scale in [1.0, 0.37] {
            let g = random_graph(&mut rng, n, degree, false)
                .map(|w| w * scale + 0.001 * (scale - 1.0).abs());
            let sources: Vec<usize> = (0..n.min(50))
                .chain((0..n.min(5)).map(|_| rng.below(n)))
                .collect();
            let want = sssp(&g, &sources, Engine::Serial).unwrap();
            let got = sssp(&g, &sources, Engine::Cuda).unwrap();
            assert!(got.same_bits(&want), "{n} vertices, scale {scale}");
            if n <= 300 {
                let all = apsp::apsp(&g, Engine::Cuda).unwrap();
                assert_eq!(all.method, ApspMethod::Rounds);
                let cpu = apsp::apsp(&g, Engine::Cpu).unwrap();
                assert!(
                    all.distances.same_bits(&cpu.distances),
                    "APSP of {n}, scale {scale}"
                );
            }
        }
    }
    let negative = random_graph(&mut rng, 40, 3, true);
    let err = sssp(&negative, &[0], Engine::Cuda).unwrap_err();
    assert!(
        matches!(err, Error::Unavailable { .. }) && err.to_string().contains("negative"),
        "{err}"
    );
    let squared = apsp::apsp(&negative, Engine::Cuda).unwrap();
    assert_eq!(squared.method, ApspMethod::Squaring);
    for (name, a) in common::real_matrices("sssp_and_apsp_match_the_cpu") {
        if a.nrows() != a.ncols() {
            continue;
        }
        let g = a.map(|w| w.abs());
        let sources: Vec<usize> = (0..40).map(|r| r * a.nrows() / 40).collect();
        let want = sssp(&g, &sources, Engine::Cpu).unwrap();
        let got = sssp(&g, &sources, Engine::Cuda).unwrap();
        assert!(got.same_bits(&want), "{name}");
    }
}
