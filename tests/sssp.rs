//! Shortest paths from chosen sources (`spmx::app::sssp`) against a plain
//! Floyd–Warshall on random graphs: disconnected, with self-loops, parallel
//! edges (combined by `graph_from_coo`), zero and −0 weights, +∞ edges,
//! negative weights without negative cycles; negative cycles (through −∞
//! too) reported naming a vertex on them; 0×0 and 1×1; sources out of
//! range; serial and cpu giving the same bits; and APSP by Dijkstra equal
//! to APSP by squaring.

mod common;

use common::reference::floyd_warshall;
use common::{Rng, random_graph};

use spmx::app::apsp::{self, ApspMethod, apsp_squaring};
use spmx::app::sssp::sssp;
use spmx::engine::Engine;
use spmx::{Coo, Csr, Error};

/// `got` (rows of `sources`) against Floyd–Warshall's rows, exactly, with
/// each distance +0 rather than −0.
fn assert_matches_floyd_warshall(g: &Csr<f64>, sources: &[usize], got: &Csr<f64>, what: &str) {
    let want = floyd_warshall(g);
    assert_eq!(got.shape(), (sources.len(), g.nrows()), "{what}");
    for (r, &s) in sources.iter().enumerate() {
        for (j, w) in want[s].iter().enumerate() {
            assert_eq!(got.get(r, j), *w, "{what}: d({s}, {j})");
        }
    }
    assert!(
        got.values()
            .iter()
            .all(|v| v.to_bits() != (-0.0f64).to_bits()),
        "{what}: a −0 distance"
    );
}

#[test]
fn random_graphs_match_floyd_warshall() {
    let mut rng = Rng(1);
    for negative in [false, true] {
        for (n, degree) in [(2, 1), (5, 2), (17, 1), (40, 3), (60, 6)] {
            for engine in [Engine::Serial, Engine::Cpu, Engine::Auto] {
                let g = random_graph(&mut rng, n, degree, negative);
                let sources: Vec<usize> = (0..n + 3).map(|_| rng.below(n)).collect();
                let got = sssp(&g, &sources, engine).unwrap();
                let what = format!("{n} vertices, negative {negative}, {engine}");
                assert_matches_floyd_warshall(&g, &sources, &got, &what);
            }
        }
    }
}

#[test]
fn no_vertex_and_one_vertex() {
    for engine in [Engine::Serial, Engine::Cpu] {
        assert_eq!(
            sssp(&Csr::empty(0, 0), &[], engine).unwrap().shape(),
            (0, 0)
        );
        let one = sssp(&Csr::empty(1, 1), &[0, 0], engine).unwrap();
        assert_eq!(
            (one.shape(), one.get(0, 0), one.get(1, 0)),
            ((2, 1), Some(0.0), Some(0.0))
        );
        // A self-loop of weight 3 does not lengthen the empty path.
        let looped = Csr::try_new(1, 1, vec![0, 1], vec![0], vec![3.0]).unwrap();
        assert_eq!(sssp(&looped, &[0], engine).unwrap().get(0, 0), Some(0.0));
    }
}

#[test]
fn bad_input_is_an_error_naming_it() {
    let g = Csr::try_new(3, 3, vec![0, 1, 2, 2], vec![1, 2], vec![1.0, f64::NAN]).unwrap();
    let err = sssp(&g, &[0], Engine::Serial).unwrap_err();
    assert!(
        matches!(err, Error::Invalid { .. })
            && err
                .to_string()
                .contains("from vertex 1 to vertex 2 (counted from 0) has weight NaN"),
        "{err}"
    );
    let g = Csr::try_new(3, 3, vec![0, 1, 2, 2], vec![1, 2], vec![1.0, 1.0]).unwrap();
    let err = sssp(&g, &[0, 3], Engine::Cpu).unwrap_err().to_string();
    assert!(
        err.contains("source 3 (number 2 of the sources) is out of range: the graph has 3"),
        "{err}"
    );
    let err = sssp(&Csr::empty(2, 3), &[0], Engine::Serial).unwrap_err();
    assert!(
        matches!(err, Error::Mismatch { .. }) && err.to_string().contains("square, not 2×3"),
        "{err}"
    );
    let err = sssp(&g, &[0], Engine::Mpi).unwrap_err();
    assert!(matches!(err, Error::Unavailable { .. }), "mpi: {err}");
}

/// The vertex a negative-cycle error names, counted from 0.
fn cycle_vertex(g: &Csr<f64>, source: usize, engine: Engine) -> usize {
    let err = sssp(g, &[source], engine).unwrap_err().to_string();
    let named = err
        .split("through vertex ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .unwrap_or_else(|| panic!("{err}"));
    assert!(
        err.contains("negative cycle") && err.contains(&format!("from source {source}")),
        "{err}"
    );
    named.parse().unwrap()
}

#[test]
fn negative_cycles_are_reported_naming_a_vertex_on_them() {
    // 0 → 1 → 2 → 3, and 3 → 4 → 5 → 3 of weight −1; 6 → 7 → 6 of −2,
    // reached from 6 only.
    let edges = [
        (0, 1, 1.0),
        (1, 2, 2.0),
        (2, 3, 1.0),
        (3, 4, 2.0),
        (4, 5, -4.0),
        (5, 3, 1.0),
        (6, 7, -1.0),
        (7, 6, -1.0),
        (7, 0, 5.0),
    ];
    let coo = Coo::try_new(
        8,
        8,
        edges.iter().map(|e| e.0).collect(),
        edges.iter().map(|e| e.1).collect(),
        edges.iter().map(|e| e.2).collect(),
    )
    .unwrap();
    let g = coo.to_csr();
    for engine in [Engine::Serial, Engine::Cpu] {
        for source in [0, 3, 5] {
            let on = cycle_vertex(&g, source, engine);
            assert!([3, 4, 5].contains(&on), "{engine}: from {source}, {on}");
        }
        assert!([6, 7].contains(&cycle_vertex(&g, 7, engine)), "{engine}");
        // From a vertex that reaches no cycle, the distances.
        let path = Csr::try_new(3, 3, vec![0, 1, 2, 2], vec![1, 2], vec![-1.0, -2.0]).unwrap();
        let d = sssp(&path, &[0, 2], engine).unwrap();
        assert_eq!(
            (d.get(0, 2), d.get(1, 2), d.nnz()),
            (Some(-3.0), Some(0.0), 4)
        );
        // A negative self-loop is a cycle of its own.
        let looped = Csr::try_new(2, 2, vec![0, 1, 2], vec![1, 1], vec![1.0, -0.5]).unwrap();
        assert_eq!(cycle_vertex(&looped, 0, engine), 1, "{engine}");
    }
}

/// A cycle through a −∞ edge does not fall (−∞ stays −∞); it is found all
/// the same. A −∞ edge on no cycle gives −∞ distances, and an edge of +∞
/// after it is no edge (no NaN).
#[test]
fn cycles_through_neg_inf_are_reported_and_paths_are_not() {
    for engine in [Engine::Serial, Engine::Cpu] {
        let g = common::neg_inf_cycle_graph();
        assert!([0, 1].contains(&cycle_vertex(&g, 0, engine)), "{engine}");
        assert!([0, 1].contains(&cycle_vertex(&g, 1, engine)), "{engine}");
        let g = common::inf_meets_neg_inf_graph();
        let d = sssp(&g, &[0, 1, 2], engine).unwrap();
        let want = Csr::try_new(
            3,
            3,
            vec![0, 2, 3, 4],
            vec![0, 1, 1, 2],
            vec![0.0, f64::NEG_INFINITY, 0.0, 0.0],
        )
        .unwrap();
        assert_eq!(d, want, "{engine}");
        // −∞ downstream of a positive cycle: no negative cycle.
        let g = Csr::try_new(
            3,
            3,
            vec![0, 1, 2, 3],
            vec![1, 2, 1],
            vec![f64::NEG_INFINITY, 1.0, 1.0],
        )
        .unwrap();
        let d = sssp(&g, &[0], engine).unwrap();
        assert_eq!(d.values(), [0.0, f64::NEG_INFINITY, f64::NEG_INFINITY]);
    }
}

/// Non-integer weights: the cpu engine's rows are the serial engine's bit
/// for bit, each source computed on one thread.
#[test]
fn serial_and_cpu_give_the_same_bits() {
    let mut rng = Rng(7);
    for negative in [false, true] {
        let g = random_graph(&mut rng, 300, 4, negative).map(|w| w * 0.37 + 0.001);
        let sources: Vec<usize> = (0..300).chain([5, 5, 299]).collect();
        let serial = sssp(&g, &sources, Engine::Serial).unwrap();
        let cpu = sssp(&g, &sources, Engine::Cpu).unwrap();
        assert!(serial.same_bits(&cpu), "negative {negative}");
    }
}

/// On graphs without negative weights, APSP by Dijkstra (what `apsp`
/// takes on a sparse graph) has the pattern of APSP by squaring and its
/// values within 1e-12 relative.
#[test]
fn apsp_by_dijkstra_equals_apsp_by_squaring() {
    let mut rng = Rng(3);
    for (n, degree) in [(0, 1), (3, 0), (30, 2), (120, 3)] {
        let g = random_graph(&mut rng, n, degree, false).map(|w| w * 1.3 + 0.01);
        let dijkstra = apsp::apsp(&g, Engine::Cpu).unwrap();
        assert_eq!(
            (dijkstra.method, dijkstra.squarings),
            (ApspMethod::Dijkstra, 0)
        );
        let squaring = apsp_squaring(&g, Engine::Cpu, &mut |_| {}).unwrap();
        assert_eq!(squaring.method, ApspMethod::Squaring);
        let (d, s) = (&dijkstra.distances, &squaring.distances);
        assert_eq!(
            (d.row_ptr(), d.col_idx()),
            (s.row_ptr(), s.col_idx()),
            "{n}"
        );
        for (a, b) in d.values().iter().zip(s.values()) {
            assert!(
                (a - b).abs() <= 1e-12 * a.abs().max(b.abs()),
                "{n}: {a} {b}"
            );
        }
    }
}

/// A graph with a negative weight is squared; a complete graph without
/// negative weights takes Dijkstra, and on cuda Bellman–Ford rounds.
#[test]
fn apsp_squares_negative_graphs_only() {
    let path = Csr::try_new(3, 3, vec![0, 1, 2, 2], vec![1, 2], vec![-1.0, 2.0]).unwrap();
    let done = apsp::apsp(&path, Engine::Cpu).unwrap();
    assert_eq!((done.method, done.squarings), (ApspMethod::Squaring, 2));
    let n = 20;
    let complete = Csr::try_new(
        n,
        n,
        (0..=n).map(|i| i * n).collect(),
        (0..n * n).map(|k| (k % n) as u32).collect(),
        (0..n * n).map(|k| (k % 7 + 1) as f64).collect(),
    )
    .unwrap();
    let done = apsp::apsp(&complete, Engine::Serial).unwrap();
    assert_eq!(done.method, ApspMethod::Dijkstra);
    let squared = apsp_squaring(&complete, Engine::Serial, &mut |_| {}).unwrap();
    assert_eq!(done.distances, squared.distances);
    assert_eq!(
        apsp::method_for(&complete, Engine::Cuda),
        ApspMethod::Rounds
    );
    assert_eq!(apsp::method_for(&path, Engine::Cuda), ApspMethod::Squaring);
}
